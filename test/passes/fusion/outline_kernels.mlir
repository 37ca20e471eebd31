// RUN: ms-opt %s --mskernel-outline-kernels | FileCheck %s

// Each mskernel.fused becomes a call of a private kernel function named from
// its target, kind, first ops and a hash of its body; the two identical
// kernels are one function called twice. The module records the kernel
// count, the calls and the bytes they move (2 calls x 3 x 16 B + 1 x 2 x 16 B).
// CHECK:       module attributes {msmlir.kernel_stats = {bytes = 128 : i64, calls = 3 : i64, kernels = 2 : i64}}
// CHECK-LABEL: func.func @host
// CHECK:         %[[A:.+]] = call @[[ADD:cpu_elemwise_add_mul_[0-9a-f]+]](%arg0, %arg1)
// CHECK:         %[[B:.+]] = call @[[ADD]](%[[A]], %arg1)
// CHECK:         %[[C:.+]] = call @[[EXP:cpu_opaque_exp_[0-9a-f]+]](%[[B]])
// CHECK:         return %[[C]]
// CHECK:       func.func private @[[ADD]](%{{.+}}: tensor<4xf32>, %{{.+}}: tensor<4xf32>) -> tensor<4xf32>
// CHECK-SAME:    attributes {mskernel.kind = #mskernel.kind<elemwise>, mskernel.target = #mskernel.target<cpu>}
// CHECK:         mindir.add
// CHECK:         mindir.mul
// CHECK:         return
// CHECK:       func.func private @[[EXP]]
// CHECK-SAME:    mskernel.kind = #mskernel.kind<opaque>
// CHECK-NOT:   func.func
func.func @host(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %a = mskernel.fused(%x, %y) {kind = #mskernel.kind<elemwise>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%p: tensor<4xf32>, %q: tensor<4xf32>):
    %s = mindir.add %p, %q : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %m = mindir.mul %s, %q : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    mskernel.yield %m : tensor<4xf32>
  }
  %b = mskernel.fused(%a, %y) {kind = #mskernel.kind<elemwise>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%p: tensor<4xf32>, %q: tensor<4xf32>):
    %s = mindir.add %p, %q : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %m = mindir.mul %s, %q : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    mskernel.yield %m : tensor<4xf32>
  }
  %c = mskernel.fused(%b) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%p: tensor<4xf32>):
    %e = mindir.exp %p : tensor<4xf32>
    mskernel.yield %e : tensor<4xf32>
  }
  return %c : tensor<4xf32>
}
