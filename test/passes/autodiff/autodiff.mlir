// mindir-autodiff on a small function: mindir.grad becomes a call of a new
// private function holding the forward copy followed by the reverse-mode
// backward, which reads the forward's values (tanh is computed once).
// RUN: ms-opt %s --mindir-autodiff --split-input-file | FileCheck %s
// RUN: ms-opt %s --mindir-autodiff --canonicalize --cse --split-input-file | FileCheck %s --check-prefix=OPT

func.func @f(%x: tensor<3xf32>, %w: tensor<3xf32>) -> tensor<f32> {
  %m = mindir.mul %x, %w : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %t = mindir.tanh %m : tensor<3xf32>
  %s = mindir.reduce_sum %t : (tensor<3xf32>) -> tensor<f32>
  return %s : tensor<f32>
}

// The original function is kept.
// CHECK-LABEL: func.func @f(
// CHECK-LABEL: func.func @value_and_grad
// CHECK-SAME: (%[[X:.*]]: tensor<3xf32>, %[[W:.*]]: tensor<3xf32>)
// CHECK-NOT: mindir.grad
// CHECK: %[[R:.*]]:2 = call @f_grad(%[[X]], %[[W]]) : (tensor<3xf32>, tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>)
// CHECK: return %[[R]]#0, %[[R]]#1
func.func @value_and_grad(%x: tensor<3xf32>, %w: tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>) {
  %v, %dx = mindir.grad @f(%x, %w) {grad_position = array<i64: 0>, return_value}
      : (tensor<3xf32>, tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>)
  return %v, %dx : tensor<f32>, tensor<3xf32>
}

// CHECK-LABEL: func.func private @f_grad
// CHECK-SAME: (%[[A:.*]]: tensor<3xf32>, %[[B:.*]]: tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>)
// Forward:
// CHECK: %[[M:.*]] = mindir.mul %[[A]], %[[B]]
// CHECK: %[[T:.*]] = mindir.tanh %[[M]]
// CHECK: %[[S:.*]] = mindir.reduce_sum %[[T]]
// Backward, seeded with ones: reduce_sum -> broadcast, tanh -> 1 - tanh^2 of
// the forward's tanh, mul -> dout * w (no gradient is built for w).
// CHECK: %[[ONE:.*]] = mindir.ones_like %[[S]]
// CHECK: %[[RS:.*]] = mindir.reshape %[[ONE]] {shape = array<i64: 1>}
// CHECK: %[[BC:.*]] = mindir.broadcast_to %[[RS]] {shape = array<i64: 3>}
// CHECK: %[[SQ:.*]] = mindir.square %[[T]]
// CHECK: %[[D:.*]] = mindir.sub %{{.*}}, %[[SQ]]
// CHECK: %[[DM:.*]] = mindir.mul %[[BC]], %[[D]]
// CHECK: %[[DX:.*]] = mindir.mul %[[DM]], %[[B]]
// CHECK-NOT: mindir.tanh
// CHECK-NOT: mindir.mul %[[DM]], %[[A]]
// CHECK: return %[[S]], %[[DX]] : tensor<f32>, tensor<3xf32>

// After canonicalize + cse the seed folds to a constant and the backward is
// two elementwise ops on the forward's tanh.
// OPT-LABEL: func.func private @f_grad
// OPT: %[[T:.*]] = mindir.tanh
// OPT: %[[S:.*]] = mindir.reduce_sum %[[T]]
// OPT-NOT: ones_like
// OPT-NOT: broadcast_to
// OPT: mindir.square %[[T]]
// OPT: return %[[S]]

// -----

// sens, has_aux (the other results are aux values, returned with
// return_value) and a repeated position (one value, returned once).
func.func @g(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %e = mindir.exp %x : tensor<2xf32>
  %n = mindir.neg %x : tensor<2xf32>
  return %e, %n : tensor<2xf32>, tensor<2xf32>
}
// CHECK-LABEL: func.func @aux
// CHECK-SAME: (%[[X:.*]]: tensor<2xf32>, %[[S:.*]]: tensor<2xf32>)
// CHECK: %[[R:.*]]:3 = call @g_grad(%[[X]], %[[S]]) : (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
// CHECK: return %[[R]]#0, %[[R]]#1, %[[R]]#2, %[[R]]#2
func.func @aux(%x: tensor<2xf32>, %s: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %v, %aux, %dx, %dx2 = mindir.grad @g(%x) sens(%s : tensor<2xf32>) {grad_position = array<i64: 0, 0>, has_aux, return_value}
      : (tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
  return %v, %aux, %dx, %dx2 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}
// Only the first result is differentiated (with the sens argument).
// CHECK-LABEL: func.func private @g_grad
// CHECK-SAME: (%[[A:.*]]: tensor<2xf32>, %[[SE:.*]]: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
// CHECK: %[[E:.*]] = mindir.exp %[[A]]
// CHECK: %[[N:.*]] = mindir.neg %[[A]]
// CHECK: %[[D:.*]] = mindir.mul %[[SE]], %[[E]]
// CHECK-NOT: mindir.neg
// CHECK: return %[[E]], %[[N]], %[[D]]
