// scf.for is differentiated without unrolling: the forward loop saves the
// values its backward needs in per-iteration stacks (tensor<4x...>, written
// at the iteration number), and the backward is a loop over the iterations
// in reverse that reads them back.
// RUN: ms-opt %s --mindir-autodiff | FileCheck %s

func.func @rnn(%x: tensor<3xf32>, %w: tensor<3xf32>) -> tensor<3xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%h = %x) -> (tensor<3xf32>) {
    %m = mindir.mul %h, %w : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %t = mindir.tanh %m : tensor<3xf32>
    scf.yield %t : tensor<3xf32>
  }
  return %r : tensor<3xf32>
}

func.func @grad_rnn(%x: tensor<3xf32>, %w: tensor<3xf32>, %s: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %dx, %dw = mindir.grad @rnn(%x, %w) sens(%s : tensor<3xf32>) {grad_position = array<i64: 0, 1>}
      : (tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
  return %dx, %dw : tensor<3xf32>, tensor<3xf32>
}

// CHECK-LABEL: func.func private @rnn_grad
// CHECK-SAME: (%[[X:.*]]: tensor<3xf32>, %[[W:.*]]: tensor<3xf32>, %[[S:.*]]: tensor<3xf32>)
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[E1:.*]] = tensor.empty() : tensor<4x3xf32>
// CHECK-DAG: %[[E2:.*]] = tensor.empty() : tensor<4x3xf32>
// Forward loop: the original iter_arg plus two stacks (tanh and the state h).
// CHECK-DAG: %[[N4:.*]] = arith.constant 4 : index
// CHECK: %[[F:.*]]:3 = scf.for %[[I:.*]] = %[[C0]] to %{{.*}} step %[[C1]] iter_args(%[[H:.*]] = %[[X]], %[[ST1:.*]] = %[[E1]], %[[ST2:.*]] = %[[E2]]) -> (tensor<3xf32>, tensor<4x3xf32>, tensor<4x3xf32>)
// CHECK:   %[[M:.*]] = mindir.mul %[[H]], %[[W]]
// CHECK:   %[[T:.*]] = mindir.tanh %[[M]]
// CHECK:   %[[K:.*]] = arith.divsi
// CHECK:   %[[I1:.*]] = tensor.insert_slice %[[T]] into %[[ST1]][%[[K]], 0] [1, 3] [1, 1]
// CHECK:   %[[I2:.*]] = tensor.insert_slice %[[H]] into %[[ST2]][%[[K]], 0] [1, 3] [1, 1]
// CHECK:   scf.yield %[[T]], %[[I1]], %[[I2]]
// CHECK: }
// No unrolling: exactly one tanh, in the forward loop.
// CHECK-NOT: mindir.tanh
// Backward loop over the 4 iterations (%N = 4), carrying d(h) (seeded with sens) and
// accumulating d(w); iteration j reads the saved values of iteration 3 - j.
// CHECK: %[[B:.*]]:2 = scf.for %[[J:.*]] = %{{.*}} to %[[N:.*]] step %{{.*}} iter_args(%[[DH:.*]] = %[[S]], %[[DW:.*]] = %{{.*}}) -> (tensor<3xf32>, tensor<3xf32>)
// CHECK:   %[[NM1:.*]] = arith.subi %[[N]], %{{.*}} : index
// CHECK:   %[[REV:.*]] = arith.subi %[[NM1]], %[[J]] : index
// CHECK:   %[[TK:.*]] = tensor.extract_slice %[[F]]#1[%[[REV]], 0] [1, 3] [1, 1] : tensor<4x3xf32> to tensor<3xf32>
// CHECK:   %[[HK:.*]] = tensor.extract_slice %[[F]]#2[%[[REV]], 0] [1, 3] [1, 1] : tensor<4x3xf32> to tensor<3xf32>
// CHECK:   mindir.square %[[TK]]
// CHECK:   %[[G:.*]] = mindir.mul %[[DH]], %{{.*}}
// CHECK:   %[[NDH:.*]] = mindir.mul %[[G]], %[[W]]
// CHECK:   %[[GW:.*]] = mindir.mul %[[G]], %[[HK]]
// CHECK:   %[[NDW:.*]] = mindir.add %[[DW]], %[[GW]]
// CHECK:   scf.yield %[[NDH]], %[[NDW]]
// CHECK: }
// CHECK: return %[[B]]#0, %[[B]]#1
