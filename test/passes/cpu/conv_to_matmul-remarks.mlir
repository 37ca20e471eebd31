// RUN: ms-opt %s --msmlir-cpu-conv-to-matmul --verify-diagnostics --split-input-file | FileCheck %s

// Convolutions the pass leaves alone: grouped, f64 and dynamic ones with a
// remark at the op; small ones (fewer multiply-adds than a matmul worth
// packing) silently.

// CHECK-LABEL: func.func @grouped
// CHECK:         linalg.conv_2d_ngchw_gfchw
func.func @grouped(%x: tensor<2x2x4x16x16xf32>, %w: tensor<2x8x4x3x3xf32>, %o: tensor<2x2x8x14x14xf32>) -> tensor<2x2x8x14x14xf32> {
  // expected-remark @+1 {{msmlir-cpu-conv-to-matmul: grouped convolution (conv_2d_ngchw_gfchw) keeps the plain path}}
  %r = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<2x2x4x16x16xf32>, tensor<2x8x4x3x3xf32>) outs(%o : tensor<2x2x8x14x14xf32>) -> tensor<2x2x8x14x14xf32>
  return %r : tensor<2x2x8x14x14xf32>
}

// -----

// CHECK-LABEL: func.func @f64
// CHECK:         linalg.conv_2d_nchw_fchw
func.func @f64(%x: tensor<8x3x16x16xf64>, %w: tensor<16x3x3x3xf64>, %o: tensor<8x16x14x14xf64>) -> tensor<8x16x14x14xf64> {
  // expected-remark @+1 {{msmlir-cpu-conv-to-matmul: not f32; this convolution keeps the plain path}}
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<8x3x16x16xf64>, tensor<16x3x3x3xf64>) outs(%o : tensor<8x16x14x14xf64>) -> tensor<8x16x14x14xf64>
  return %r : tensor<8x16x14x14xf64>
}

// -----

// CHECK-LABEL: func.func @dynamic
// CHECK:         linalg.conv_2d_nchw_fchw
func.func @dynamic(%x: tensor<?x3x16x16xf32>, %w: tensor<16x3x3x3xf32>, %o: tensor<?x16x14x14xf32>) -> tensor<?x16x14x14xf32> {
  // expected-remark @+1 {{msmlir-cpu-conv-to-matmul: dynamic shapes; this convolution keeps the plain path}}
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<?x3x16x16xf32>, tensor<16x3x3x3xf32>) outs(%o : tensor<?x16x14x14xf32>) -> tensor<?x16x14x14xf32>
  return %r : tensor<?x16x14x14xf32>
}

// -----

// CHECK-LABEL: func.func @small
// CHECK:         linalg.conv_2d_nchw_fchw
func.func @small(%x: tensor<1x2x6x6xf32>, %w: tensor<4x2x3x3xf32>, %o: tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x2x6x6xf32>, tensor<4x2x3x3xf32>) outs(%o : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %r : tensor<1x4x4x4xf32>
}
