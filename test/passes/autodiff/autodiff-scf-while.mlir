// scf.while: the trip count is known only at run time. The forward loop
// carries an iteration counter, a capacity and stacks of run-time size
// (tensor<?x...>, doubled when full); the backward runs the last `before`
// region's backward, then a reverse scf.for over the counted iterations.
// RUN: ms-opt %s --mindir-autodiff | FileCheck %s

func.func @f(%x: tensor<2xf64>, %w: tensor<2xf64>) -> tensor<2xf64> {
  %r = scf.while (%h = %x) : (tensor<2xf64>) -> tensor<2xf64> {
    %s = mindir.reduce_sum %h : (tensor<2xf64>) -> tensor<f64>
    %sv = tensor.extract %s[] : tensor<f64>
    %lim = arith.constant 10.0 : f64
    %c = arith.cmpf olt, %sv, %lim : f64
    scf.condition(%c) %h : tensor<2xf64>
  } do {
  ^bb0(%h2: tensor<2xf64>):
    %m = mindir.mul %h2, %w : (tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>
    %e = mindir.exp %m : tensor<2xf64>
    scf.yield %e : tensor<2xf64>
  }
  return %r : tensor<2xf64>
}
func.func @main(%x: tensor<2xf64>, %w: tensor<2xf64>) -> tensor<2xf64> {
  %dw = mindir.grad @f(%x, %w) {grad_position = array<i64: 1>} : (tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>
  return %dw : tensor<2xf64>
}

// CHECK-LABEL: func.func private @f_grad
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG: %[[Z:.*]] = arith.constant 0 : index
// CHECK: %[[S1:.*]] = tensor.empty(%[[C8]]) : tensor<?x2xf64>
// CHECK: %[[S2:.*]] = tensor.empty(%[[C8]]) : tensor<?x2xf64>
// CHECK: %[[WH:.*]]:5 = scf.while (%{{.*}} = %{{.*}}, %{{.*}} = %[[Z]], %{{.*}} = %[[C8]], %{{.*}} = %[[S1]], %{{.*}} = %[[S2]]) : (tensor<2xf64>, index, index, tensor<?x2xf64>, tensor<?x2xf64>)
// Growth when the counter reaches the capacity:
// CHECK: arith.cmpi sge
// CHECK: scf.if %{{.*}} -> (index, tensor<?x2xf64>, tensor<?x2xf64>)
// CHECK: arith.muli
// CHECK: tensor.insert_slice
// CHECK: scf.condition
// CHECK: } do {
// CHECK: mindir.exp
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[%{{.*}}, 0] [1, 2] [1, 1] : tensor<2xf64> into tensor<?x2xf64>
// CHECK: arith.addi
// CHECK: scf.yield
// The reverse loop runs %[[WH]]#1 (the counter) times.
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[WH]]#1 step
// CHECK: %[[E:.*]] = tensor.extract_slice %[[WH]]#3
// CHECK: %[[H:.*]] = tensor.extract_slice %[[WH]]#4
// The backward of exp reads the saved exp (not recomputed).
// CHECK-NOT: mindir.exp
// CHECK: mindir.mul %{{.*}}, %[[E]]
// CHECK: mindir.mul %{{.*}}, %[[H]]
// CHECK: scf.yield
// CHECK: return
