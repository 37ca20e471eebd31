// Round trip of the state/ordering ops and of mindir.grad.
// RUN: ms-opt %s | ms-opt | FileCheck %s
// RUN: ms-opt %s --mlir-print-op-generic | ms-opt | FileCheck %s

// CHECK-LABEL: func.func @assign_depend
// CHECK-SAME: (%[[W:.*]]: tensor<4xf32>, %[[N:.*]]: tensor<4xf32>, %[[X:.*]]: tensor<2xi32>)
func.func @assign_depend(%w: tensor<4xf32>, %new: tensor<4xf32>, %x: tensor<2xi32>) -> (tensor<2xi32>, tensor<2xi32>) {
  // CHECK: %[[A:.*]] = mindir.assign %[[W]], %[[N]] : tensor<4xf32>
  %a = mindir.assign %w, %new : tensor<4xf32>
  // CHECK: %[[B:.*]] = mindir.assign %[[W]], %[[A]] : tensor<4xf32>
  %b = mindir.assign %w, %a : tensor<4xf32>
  // CHECK: mindir.depend %[[X]] after %[[A]] : tensor<4xf32> : tensor<2xi32>
  %0 = mindir.depend %x after %a : tensor<4xf32> : tensor<2xi32>
  // CHECK: mindir.depend %[[X]] after %[[A]], %[[B]] : tensor<4xf32>, tensor<4xf32> : tensor<2xi32>
  %1 = mindir.depend %x after %a, %b : tensor<4xf32>, tensor<4xf32> : tensor<2xi32>
  // CHECK: mindir.depend %[[X]] : tensor<2xi32>
  %2 = mindir.depend %x : tensor<2xi32>
  return %0, %1 : tensor<2xi32>, tensor<2xi32>
}

func.func private @f(%x: tensor<3xf32>, %y: tensor<f32>) -> (tensor<f32>, tensor<3xf32>)

// CHECK-LABEL: func.func @grad
// CHECK-SAME: (%[[X:.*]]: tensor<3xf32>, %[[Y:.*]]: tensor<f32>, %[[S:.*]]: tensor<f32>)
func.func @grad(%x: tensor<3xf32>, %y: tensor<f32>, %s: tensor<f32>) {
  // CHECK: mindir.grad @f(%[[X]], %[[Y]]) {grad_position = array<i64: 0, 1>} : (tensor<3xf32>, tensor<f32>) -> (tensor<3xf32>, tensor<f32>)
  %0:2 = mindir.grad @f(%x, %y) {grad_position = array<i64: 0, 1>} : (tensor<3xf32>, tensor<f32>) -> (tensor<3xf32>, tensor<f32>)
  // CHECK: mindir.grad @f(%[[X]], %[[Y]]) sens(%[[S]] : tensor<f32>) {grad_position = array<i64: 0>, has_aux, return_value} : (tensor<3xf32>, tensor<f32>) -> (tensor<f32>, tensor<3xf32>, tensor<3xf32>)
  %1:3 = mindir.grad @f(%x, %y) sens(%s : tensor<f32>) {grad_position = array<i64: 0>, has_aux, return_value} : (tensor<3xf32>, tensor<f32>) -> (tensor<f32>, tensor<3xf32>, tensor<3xf32>)
  return
}
