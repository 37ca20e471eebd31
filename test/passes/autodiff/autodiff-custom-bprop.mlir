// mindir-autodiff uses a function's user bprop (attribute mindir.bprop) at its
// call sites instead of differentiating its body (frontend: msmlir.custom_bprop,
// Cell.bprop). The hook lives in passes/autodiff/custom_bprop.py.
// RUN: ms-opt %s --mindir-autodiff --split-input-file --verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func private @main_grad
// CHECK: %[[Y:.*]] = call @sq(%[[X:.*]]) : (tensor<3xf32>) -> tensor<3xf32>
// CHECK-NOT: mindir.mul
// CHECK: call @sq_bprop(%[[X]], %[[Y]], %{{.*}}) : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
func.func private @sq(%x: tensor<3xf32>) -> tensor<3xf32> attributes {mindir.bprop = @sq_bprop} {
  %0 = mindir.mul %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
// (x, out, dout) -> dx = 4 * x * dout (twice the true derivative)
func.func private @sq_bprop(%x: tensor<3xf32>, %out: tensor<3xf32>, %dout: tensor<3xf32>) -> tensor<3xf32> {
  %c = mindir.constant dense<4.0> : tensor<f32>
  %0 = mindir.mul %x, %c : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  %1 = mindir.mul %0, %dout : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %1 : tensor<3xf32>
}
func.func private @main(%x: tensor<3xf32>) -> tensor<f32> {
  %0 = call @sq(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %1 = mindir.reduce_sum %0 : (tensor<3xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}
func.func @g(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = mindir.grad @main(%x) {grad_position = array<i64: 0>} : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func private @f(%x: tensor<3xf32>) -> tensor<3xf32> attributes {mindir.bprop = @f_bprop} {
  return %x : tensor<3xf32>
}
func.func private @f_bprop(%x: tensor<3xf32>, %dout: tensor<3xf32>) -> tensor<3xf32> {
  return %dout : tensor<3xf32>
}
func.func private @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error-re @+1 {{the bprop @f_bprop of @f must have type {{.*}}}}
  %0 = call @f(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
func.func @g(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = mindir.grad @main(%x) {grad_position = array<i64: 0>} : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
