// RUN: ms-opt %s --msmlir-cpu-conv-to-matmul --split-input-file | FileCheck %s

// A first layer (C*KH*KW = 25, F = 6, 28-wide output rows): computed in
// place, no im2col and no matmul. One forall iteration per (image, output
// row) with the output's fill fused in; inside, the loops over the window
// (kh, kw; the unit c loop folds away) and the six filters unrolled: per
// window position one input row and six filter taps feed six independent
// FMAs on the rows' accumulators, 28 lanes as masked vector<32xf32>.
// CHECK-LABEL: func.func @conv1
// CHECK-NOT:     linalg.conv
// CHECK-NOT:     vector.contract
// CHECK:         scf.forall (%[[N:.*]], %[[OH:.*]]) in (64, 28) shared_outs({{.*}}) -> (tensor<64x6x28x28xf32>)
// CHECK:           vector.constant_mask [6, 1, 28] : vector<6x1x32xi1>
// CHECK:           vector.transfer_write {{.*}} : vector<6x1x32xf32>, tensor<1x6x1x28xf32>
// CHECK:           scf.for {{.*}} to %c5
// CHECK:             scf.for {{.*}} to %c5
// CHECK:               vector.constant_mask [28] : vector<32xi1>
// CHECK:               vector.transfer_read {{.*}}, %{{.*}} {in_bounds = [true]} : tensor<28xf32>, vector<32xf32>
// CHECK-COUNT-6:       math.fma {{.*}} : vector<32xf32>
// CHECK-NOT:           math.fma
// CHECK:         return
func.func @conv1(%x: tensor<64x1x32x32xf32>, %w: tensor<6x1x5x5xf32>) -> tensor<64x6x28x28xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<64x6x28x28xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<64x6x28x28xf32>) -> tensor<64x6x28x28xf32>
  %2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<64x1x32x32xf32>, tensor<6x1x5x5xf32>) outs(%1 : tensor<64x6x28x28xf32>) -> tensor<64x6x28x28xf32>
  return %2 : tensor<64x6x28x28xf32>
}

// -----

// 16 filters: two blocks of 8 accumulators (8 FMAs per window position; the
// forall runs over the blocks too), 20-wide rows masked.
// CHECK-LABEL: func.func @blocks
// CHECK:         scf.forall ({{.*}}) in (2, 2, 20) shared_outs
// CHECK:           vector.constant_mask [8, 1, 20] : vector<8x1x32xi1>
// CHECK-COUNT-8:   math.fma {{.*}} : vector<32xf32>
// CHECK-NOT:       math.fma
func.func @blocks(%x: tensor<2x1x24x24xf32>, %w: tensor<16x1x5x5xf32>) -> tensor<2x16x20x20xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<2x16x20x20xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<2x16x20x20xf32>) -> tensor<2x16x20x20xf32>
  %2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<2x1x24x24xf32>, tensor<16x1x5x5xf32>) outs(%1 : tensor<2x16x20x20xf32>) -> tensor<2x16x20x20xf32>
  return %2 : tensor<2x16x20x20xf32>
}
