// RUN: ms-opt %s --convert-mindir-to-linalg | FileCheck %s

// The input gradient's convolution carries the forward geometry
// (sh, sw, dh, dw, pad_top, pad_left, OH, OW) for msmlir-cpu-conv-to-matmul.
// CHECK-LABEL: func.func @dx
// CHECK:         tensor.pad %arg0 low[0, 0, 1, 3] high[0, 0, 2, 4]
// CHECK:         linalg.conv_2d_nchw_fchw {{.*}}msmlir.conv_input_grad = array<i64: 1, 1, 1, 2, 1, 1, 9, 9>
func.func @dx(%d: tensor<2x4x9x9xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<2x3x10x12xf32> {
  %r = mindir.conv2d_backprop_input %d, %w {input_shape = array<i64: 2, 3, 10, 12>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 2>, pad_mode = #mindir.pad_mode<pad>, pad = array<i64: 1, 0, 1, 0>} : (tensor<2x4x9x9xf32>, tensor<4x3x3x3xf32>) -> tensor<2x3x10x12xf32>
  return %r : tensor<2x3x10x12xf32>
}
