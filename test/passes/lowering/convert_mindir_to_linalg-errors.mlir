// RUN: ms-opt %s --convert-mindir-to-linalg --verify-diagnostics

// A mindir op without a lowering is an error at its location (mindir.grad
// must be expanded by mindir-autodiff first).
func.func @f(%x: tensor<3xf32>) -> tensor<f32> {
  %s = mindir.reduce_sum %x : (tensor<3xf32>) -> tensor<f32>
  return %s : tensor<f32>
}

func.func @g(%x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @below {{no lowering to linalg for 'mindir.grad'}}
  %dx = mindir.grad @f(%x) {grad_position = array<i64: 0>} : (tensor<3xf32>) -> tensor<3xf32>
  return %dx : tensor<3xf32>
}

// A pooling window so large that its padded input could not exist is an error
// at the op (it was a Python TypeError deep in the lowering).
func.func @huge_pool_window(%x: tensor<1x8x32x32xf32>, %dy: tensor<1x8x16x16xf32>) -> tensor<1x8x32x32xf32> {
  // expected-error @below {{mindir.max_pool2d_grad: the padded input of shape [1, 8, 1099511627806, 1099511627806] would need more than 2^63 bytes}}
  %g = mindir.max_pool2d_grad %x, %dy {kernel_size = array<i64: 1099511627776, 1099511627776>, strides = array<i64: 2, 2>, pad_mode = #mindir.pad_mode<same>} : (tensor<1x8x32x32xf32>, tensor<1x8x16x16xf32>) -> tensor<1x8x32x32xf32>
  return %g : tensor<1x8x32x32xf32>
}
