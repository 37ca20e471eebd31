// RUN: ms-opt %s --msmlir-cpu-conv-to-matmul --split-input-file | FileCheck %s

// The input gradient as lower_conv2d_backprop_input emits it (a convolution
// of the padded dout with the flipped, transposed filter, tagged with the
// forward geometry): rebuilt from dout and w, without the zeros of the
// padding. Per batch chunk (4 images: 60000 dcol elements): dout transposed
// to [F, P], dcol[(c, kh, kw), (n, oh, ow)] = W^T dY as one matmul generic
// (K = F = 16), then the col2im generic, vectorized along the width: one
// contiguous 14-element read of the flat dcol per window position.
// CHECK-LABEL: func.func @dx
// CHECK-NOT:     linalg.conv
// CHECK:         scf.for {{.*}} to %c8 step %c4 iter_args({{.*}}) -> (tensor<8x6x14x14xf32>)
// CHECK:           tensor.extract_slice %arg0[%{{.*}}, 0, 0, 0] [4, 16, 10, 10]
// CHECK:           linalg.generic {{.*}} ins({{.*}} : tensor<4x16x10x10xf32>) outs({{.*}} : tensor<16x4x10x10xf32>)
// CHECK:           tensor.collapse_shape %arg1 {{\[\[}}0], [1, 2, 3]] : tensor<16x6x5x5xf32> into tensor<16x150xf32>
// CHECK:           linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]{{.*}}ins({{.*}} : tensor<16x150xf32>, tensor<16x400xf32>) outs({{.*}} : tensor<150x400xf32>)
// CHECK:             arith.mulf
// CHECK:             arith.addf
// CHECK:           tensor.collapse_shape {{.*}} into tensor<60000xf32>
// CHECK:           scf.for
// CHECK:             scf.for
// CHECK:               scf.for
// CHECK:                 scf.for {{.*}} to %c5
// CHECK:                   scf.for {{.*}} to %c5
// CHECK:                     vector.transfer_read %{{.*}}[%{{.*}}]{{.*}} : tensor<60000xf32>, vector<14xf32>
// CHECK:                     arith.select {{.*}} : vector<14xi1>, vector<14xf32>
// CHECK:                     arith.addf {{.*}} : vector<14xf32>
// CHECK:           tensor.insert_slice {{.*}} [4, 6, 14, 14] [1, 1, 1, 1] : tensor<4x6x14x14xf32> into tensor<8x6x14x14xf32>
// CHECK-NOT:     vector.gather
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @dx(%arg0: tensor<8x16x10x10xf32>, %arg1: tensor<16x6x5x5xf32>) -> tensor<8x6x14x14xf32> {
  %c4 = arith.constant 4 : index
  %cst = arith.constant 0.000000e+00 : f32
  %padded = tensor.pad %arg0 low[0, 0, 4, 4] high[0, 0, 4, 4] {
  ^bb0(%arg2: index, %arg3: index, %arg4: index, %arg5: index):
    tensor.yield %cst : f32
  } : tensor<8x16x10x10xf32> to tensor<8x16x18x18xf32>
  %0 = tensor.empty() : tensor<6x16x5x5xf32>
  %1 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%0 : tensor<6x16x5x5xf32>) {
  ^bb0(%out: f32):
    %5 = linalg.index 0 : index
    %6 = linalg.index 1 : index
    %7 = linalg.index 2 : index
    %8 = linalg.index 3 : index
    %9 = arith.subi %c4, %7 : index
    %10 = arith.subi %c4, %8 : index
    %extracted = tensor.extract %arg1[%6, %5, %9, %10] : tensor<16x6x5x5xf32>
    linalg.yield %extracted : f32
  } -> tensor<6x16x5x5xf32>
  %2 = tensor.empty() : tensor<8x6x14x14xf32>
  %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<8x6x14x14xf32>) -> tensor<8x6x14x14xf32>
  %4 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, msmlir.conv_input_grad = array<i64: 1, 1, 1, 1, 0, 0, 10, 10>, strides = dense<1> : tensor<2xi64>} ins(%padded, %1 : tensor<8x16x18x18xf32>, tensor<6x16x5x5xf32>) outs(%3 : tensor<8x6x14x14xf32>) -> tensor<8x6x14x14xf32>
  return %4 : tensor<8x6x14x14xf32>
}

// -----

// The tag on a convolution whose operands are not the lowering's (here the
// filter is a plain argument): the ordinary im2col path, tag dropped.
// CHECK-LABEL: func.func @tag_mismatch
// CHECK-NOT:     msmlir.conv_input_grad
// CHECK:         vector.transfer_read
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
func.func @tag_mismatch(%x: tensor<8x16x18x18xf32>, %w: tensor<6x16x5x5xf32>) -> tensor<8x6x14x14xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %2 = tensor.empty() : tensor<8x6x14x14xf32>
  %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<8x6x14x14xf32>) -> tensor<8x6x14x14xf32>
  %4 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, msmlir.conv_input_grad = array<i64: 1, 1, 1, 1, 0, 0, 10, 10>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<8x16x18x18xf32>, tensor<6x16x5x5xf32>) outs(%3 : tensor<8x6x14x14xf32>) -> tensor<8x6x14x14xf32>
  return %4 : tensor<8x6x14x14xf32>
}

// -----

// A first layer's filter gradient (6 x 5 x 5 outputs, 28-wide kernel rows):
// partial sums part[.., 28] over (batch, kernel row) read straight from x
// and dout (the transposes go dead), the 6 filters' accumulators side by
// side (one x row, six dout rows, six FMAs per step) as masked vector<32xf32>
// (a power of two), in an outer loop over chunks of 2 images (48 KiB of
// inputs, in L1 while every output reads them), then one sum over the 28
// lanes per output.
// CHECK-LABEL: func.func @dw
// CHECK-NOT:     linalg.conv
// CHECK:         linalg.fill {{.*}} -> tensor<1x6x5x5x28xf32>
// CHECK:         scf.for {{.*}} to %c4 step %c2 iter_args({{.*}}) -> (tensor<1x6x5x5x28xf32>)
// CHECK:           scf.forall (%{{.*}}, %{{.*}}) in (5, 5) {{.*}} -> (tensor<1x6x5x5x28xf32>)
// CHECK:             scf.for {{.*}} to %c2
// CHECK:               scf.for {{.*}} to %c28
// CHECK-COUNT-6:         math.fma {{.*}} : vector<32xf32>
// CHECK-NOT:             math.fma
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]{{.*}}ins({{.*}} : tensor<1x6x5x5x28xf32>) outs({{.*}} : tensor<1x6x5x5xf32>)
func.func @dw(%arg0: tensor<4x6x28x28xf32>, %arg1: tensor<4x1x32x32xf32>) -> tensor<6x1x5x5xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<1x4x32x32xf32>
  %transposed = linalg.transpose ins(%arg1 : tensor<4x1x32x32xf32>) outs(%0 : tensor<1x4x32x32xf32>) permutation = [1, 0, 2, 3]
  %1 = tensor.empty() : tensor<6x4x28x28xf32>
  %transposed_0 = linalg.transpose ins(%arg0 : tensor<4x6x28x28xf32>) outs(%1 : tensor<6x4x28x28xf32>) permutation = [1, 0, 2, 3]
  %2 = tensor.empty() : tensor<1x6x5x5xf32>
  %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<1x6x5x5xf32>) -> tensor<1x6x5x5xf32>
  %4 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%transposed, %transposed_0 : tensor<1x4x32x32xf32>, tensor<6x4x28x28xf32>) outs(%3 : tensor<1x6x5x5xf32>) -> tensor<1x6x5x5xf32>
  %5 = tensor.empty() : tensor<6x1x5x5xf32>
  %transposed_1 = linalg.transpose ins(%4 : tensor<1x6x5x5xf32>) outs(%5 : tensor<6x1x5x5xf32>) permutation = [1, 0, 2, 3]
  return %transposed_1 : tensor<6x1x5x5xf32>
}

// -----

// A Dense input gradient feeding a Flatten: the reshape folded into the
// matmul (N split into 16x5x5) is collapsed back to a 2-D matmul generic
// (what msmlir-cpu-pack-matmul reads), its result expanded.
// CHECK-LABEL: func.func @mm_expanded
// CHECK:         tensor.collapse_shape {{.*}} {{\[\[}}0], [1, 2, 3]] : tensor<120x16x5x5xf32> into tensor<120x400xf32>
// CHECK:         linalg.fill {{.*}} -> tensor<64x400xf32>
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]{{.*}}ins(%arg0, %{{.*}} : tensor<64x120xf32>, tensor<120x400xf32>) outs({{.*}} : tensor<64x400xf32>)
// CHECK:         tensor.expand_shape {{.*}} {{\[\[}}0], [1, 2, 3]] output_shape [64, 16, 5, 5] : tensor<64x400xf32> into tensor<64x16x5x5xf32>
#map1 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d4)>
#map2 = affine_map<(d0, d1, d2, d3, d4) -> (d4, d1, d2, d3)>
#map3 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
func.func @mm_expanded(%arg0: tensor<64x120xf32>, %arg1: tensor<120x400xf32>) -> tensor<64x16x5x5xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<64x16x5x5xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<64x16x5x5xf32>) -> tensor<64x16x5x5xf32>
  %expanded_0 = tensor.expand_shape %arg1 [[0], [1, 2, 3]] output_shape [120, 16, 5, 5] : tensor<120x400xf32> into tensor<120x16x5x5xf32>
  %2 = linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%arg0, %expanded_0 : tensor<64x120xf32>, tensor<120x16x5x5xf32>) outs(%1 : tensor<64x16x5x5xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %3 = arith.mulf %in, %in_1 : f32
    %4 = arith.addf %out, %3 : f32
    linalg.yield %4 : f32
  } -> tensor<64x16x5x5xf32>
  return %2 : tensor<64x16x5x5xf32>
}
