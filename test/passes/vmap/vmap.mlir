// mindir-vmap: a declaration carrying mindir.vmap gets the batched body of its
// callee, op by op (batching rules), with no loop over the batch.
// RUN: ms-opt %s --mindir-vmap --split-input-file | FileCheck %s

// matmul with a batched lhs becomes batch_matmul; the unbatched rhs gets a unit
// batch dim; the reduction's "all axes" becomes the per-example axes; a
// per-example scalar is reshaped to broadcast per example.
// CHECK-LABEL: func.func private @f_vmap(%{{.*}}: tensor<8x2x3xf32>, %{{.*}}: tensor<3x4xf32>) -> tensor<8x2x4xf32>
// CHECK-NOT: mindir.vmap
// CHECK-NOT: scf.for
// CHECK: %[[W:.*]] = mindir.reshape %{{.*}} {shape = array<i64: 1, 3, 4>}
// CHECK: mindir.batch_matmul %{{.*}}, %[[W]] : (tensor<8x2x3xf32>, tensor<1x3x4xf32>) -> tensor<8x2x4xf32>
// CHECK: mindir.reduce_sum %{{.*}} {axes = array<i64: 1, 2>} : (tensor<8x2x3xf32>) -> tensor<8xf32>
// CHECK: mindir.reshape %{{.*}} {shape = array<i64: 8, 1, 1>} : (tensor<8xf32>) -> tensor<8x1x1xf32>
// CHECK: mindir.softmax %{{.*}} {axis = 2 : i64} : tensor<8x2x4xf32>
func.func private @f(%x: tensor<2x3xf32>, %w: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %0 = mindir.matmul %x, %w : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %1 = mindir.reduce_sum %x : (tensor<2x3xf32>) -> tensor<f32>
  %2 = mindir.add %0, %1 : (tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
  %3 = mindir.softmax %2 {axis = 1 : i64} : tensor<2x4xf32>
  return %3 : tensor<2x4xf32>
}
func.func private @f_vmap(tensor<8x2x3xf32>, tensor<3x4xf32>) -> tensor<8x2x4xf32>
    attributes {mindir.vmap = {callee = @f, in_axes = [0 : i64, unit], out_axes = [0 : i64]}}

// -----

// in_axes 1 moves the batch dim to 0 first; out_axes 1 moves it back; an
// output that does not depend on the batched input is broadcast to the batch.
// CHECK-LABEL: func.func private @g_vmap
// CHECK-SAME: (%[[X:.*]]: tensor<3x5xf32>, %[[Y:.*]]: tensor<3xf32>) -> (tensor<3x5xf32>, tensor<5x3xf32>)
// CHECK: %[[T:.*]] = mindir.transpose %[[X]] {perm = array<i64: 1, 0>} : (tensor<3x5xf32>) -> tensor<5x3xf32>
// CHECK: %[[E:.*]] = mindir.exp %[[T]] : tensor<5x3xf32>
// CHECK: %[[N:.*]] = mindir.neg %[[Y]] : tensor<3xf32>
// CHECK: %[[R:.*]] = mindir.transpose %[[E]] {perm = array<i64: 1, 0>} : (tensor<5x3xf32>) -> tensor<3x5xf32>
// CHECK: %[[B:.*]] = mindir.broadcast_to %[[N]] {shape = array<i64: 5, 3>} : (tensor<3xf32>) -> tensor<5x3xf32>
// CHECK: return %[[R]], %[[B]]
func.func private @g(%x: tensor<3xf32>, %y: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %0 = mindir.exp %x : tensor<3xf32>
  %1 = mindir.neg %y : tensor<3xf32>
  return %0, %1 : tensor<3xf32>, tensor<3xf32>
}
func.func private @g_vmap(tensor<3x5xf32>, tensor<3xf32>) -> (tensor<3x5xf32>, tensor<5x3xf32>)
    attributes {mindir.vmap = {callee = @g, in_axes = [1 : i64, unit], out_axes = [1 : i64, 0 : i64]}}

// -----

// An scf.if on a per-example condition computes both branches and selects.
// CHECK-LABEL: func.func private @h_vmap
// CHECK-NOT: scf.if
// CHECK: %[[C:.*]] = mindir.greater %{{.*}}, %{{.*}} : (tensor<4xf32>, tensor<f32>) -> tensor<4xi1>
// CHECK-DAG: %[[T:.*]] = mindir.exp %{{.*}} : tensor<4x3xf32>
// CHECK-DAG: %[[E:.*]] = mindir.neg %{{.*}} : tensor<4x3xf32>
// CHECK: %[[C2:.*]] = mindir.reshape %[[C]] {shape = array<i64: 4, 1>} : (tensor<4xi1>) -> tensor<4x1xi1>
// CHECK: mindir.select %[[C2]], %[[T]], %[[E]] : (tensor<4x1xi1>, tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
func.func private @h(%x: tensor<3xf32>) -> tensor<3xf32> {
  %z = mindir.constant dense<0.0> : tensor<f32>
  %s = mindir.reduce_sum %x : (tensor<3xf32>) -> tensor<f32>
  %p = mindir.greater %s, %z : (tensor<f32>, tensor<f32>) -> tensor<i1>
  %c = tensor.extract %p[] : tensor<i1>
  %r = scf.if %c -> (tensor<3xf32>) {
    %a = mindir.exp %x : tensor<3xf32>
    scf.yield %a : tensor<3xf32>
  } else {
    %b = mindir.neg %x : tensor<3xf32>
    scf.yield %b : tensor<3xf32>
  }
  return %r : tensor<3xf32>
}
func.func private @h_vmap(tensor<4x3xf32>) -> tensor<4x3xf32>
    attributes {mindir.vmap = {callee = @h, in_axes = [0 : i64], out_axes = [0 : i64]}}

// -----

// A while loop whose condition differs per example runs while any example's
// condition holds; finished examples keep their values through a select.
// CHECK-LABEL: func.func private @w_vmap
// CHECK: scf.while (%[[X:.*]] = %{{.*}}, %[[I:.*]] = %{{.*}}) : (tensor<4x3xf32>, tensor<4xf32>)
// CHECK: %[[C:.*]] = mindir.less %[[I]], %{{.*}} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
// CHECK: %[[F:.*]] = mindir.cast %[[C]] : tensor<4xi1> to tensor<4xf32>
// CHECK: mindir.reduce_max %[[F]]
// CHECK: scf.condition
// CHECK: mindir.select
// CHECK: mindir.select
// CHECK: scf.yield
func.func private @w(%x: tensor<3xf32>, %n: tensor<f32>) -> tensor<3xf32> {
  %zero = mindir.constant dense<0.0> : tensor<f32>
  %r:2 = scf.while (%a = %x, %i = %zero) : (tensor<3xf32>, tensor<f32>) -> (tensor<3xf32>, tensor<f32>) {
    %c = mindir.less %i, %n : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %e = tensor.extract %c[] : tensor<i1>
    scf.condition(%e) %a, %i : tensor<3xf32>, tensor<f32>
  } do {
  ^bb0(%a: tensor<3xf32>, %i: tensor<f32>):
    %h = mindir.constant dense<0.5> : tensor<f32>
    %a2 = mindir.mul %a, %h : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
    %one = mindir.constant dense<1.0> : tensor<f32>
    %i2 = mindir.add %i, %one : (tensor<f32>, tensor<f32>) -> tensor<f32>
    scf.yield %a2, %i2 : tensor<3xf32>, tensor<f32>
  }
  return %r#0 : tensor<3xf32>
}
func.func private @w_vmap(tensor<4x3xf32>, tensor<4xf32>) -> tensor<4x3xf32>
    attributes {mindir.vmap = {callee = @w, in_axes = [0 : i64, 0 : i64], out_axes = [0 : i64]}}
