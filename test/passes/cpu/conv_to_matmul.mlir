// RUN: ms-opt %s --msmlir-cpu-conv-to-matmul --split-input-file | FileCheck %s
// RUN: ms-opt %s --msmlir-cpu-conv-to-matmul="col-chunk=4096" --split-input-file | FileCheck %s --check-prefix=CHUNK

// Forward convolution, F = 16 < P = N*OH*OW: the filter seen as [F, K]
// (a collapse, no copy), the im2col gather [K, P] (rows along the output
// width, contiguous 14-element transfer_reads), C[F, P] = W col as a matmul
// generic, and a transposing generic back to NCHW.
// CHECK-LABEL: func.func @fwd
// CHECK-NOT:     linalg.conv
// CHECK:         tensor.collapse_shape %arg1 {{\[\[}}0], [1, 2, 3]] : tensor<16x3x3x3xf32> into tensor<16x27xf32>
// CHECK:         scf.for
// CHECK:           vector.transfer_read %arg0{{.*}} : tensor<8x3x16x16xf32>, vector<14xf32>
// CHECK:         tensor.collapse_shape {{.*}} into tensor<27x1568xf32>
// CHECK:         linalg.fill {{.*}} -> tensor<16x1568xf32>
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]{{.*}}ins({{.*}} : tensor<16x27xf32>, tensor<27x1568xf32>)
// CHECK:           arith.mulf
// CHECK:           arith.addf
// CHECK:         tensor.expand_shape {{.*}} into tensor<16x8x14x14xf32>
// CHECK:         linalg.generic {{.*}} ins({{.*}} : tensor<16x8x14x14xf32>) outs({{.*}} : tensor<8x16x14x14xf32>)
// With a small im2col budget: one image per iteration, its C[F, OH*OW] is
// the output slice itself (expand_shape + insert_slice, no transpose).
// CHUNK-LABEL: func.func @fwd
// CHUNK:         scf.for {{.*}} to %c8 step %c1 iter_args({{.*}}) -> (tensor<8x16x14x14xf32>)
// CHUNK:           vector.transfer_read %arg0{{.*}} : tensor<8x3x16x16xf32>, vector<14xf32>
// CHUNK:           tensor.collapse_shape {{.*}} into tensor<27x196xf32>
// CHUNK:           linalg.generic {{.*}}ins({{.*}} : tensor<16x27xf32>, tensor<27x196xf32>)
// CHUNK:           tensor.expand_shape {{.*}} into tensor<1x16x14x14xf32>
// CHUNK:           tensor.insert_slice {{.*}} into %{{.*}}[%{{.*}}, 0, 0, 0] [1, 16, 14, 14]
func.func @fwd(%x: tensor<8x3x16x16xf32>, %w: tensor<16x3x3x3xf32>) -> tensor<8x16x14x14xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16x14x14xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<8x16x14x14xf32>) -> tensor<8x16x14x14xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<8x3x16x16xf32>, tensor<16x3x3x3xf32>) outs(%f : tensor<8x16x14x14xf32>) -> tensor<8x16x14x14xf32>
  return %r : tensor<8x16x14x14xf32>
}

// -----

// A filter gradient as it is lowered (the batch is the channel dim C = 32,
// dout the 10x10 filter): K = 3200 is huge, P = 4*3*3 small. The kernel
// width (10) is the longer unit-stride row, so col is [P, K]. With a small
// budget the loop runs over channel chunks, accumulating into C[F, P].
// CHECK-LABEL: func.func @dw
// CHECK-NOT:     linalg.conv
// CHECK:         vector.transfer_read {{.*}} : tensor<4x32x12x12xf32>, vector<10xf32>
// CHECK:         tensor.collapse_shape {{.*}} into tensor<36x3200xf32>
// CHECK:         linalg.generic {{.*}}ins({{.*}} : tensor<8x3200xf32>, tensor<36x3200xf32>) outs({{.*}} : tensor<8x36xf32>)
// CHECK:         tensor.expand_shape {{.*}} into tensor<8x4x3x3xf32>
// CHUNK-LABEL: func.func @dw
// CHUNK:         scf.for {{.*}} to %c32 step %c1 iter_args({{.*}}) -> (tensor<8x36xf32>)
// CHUNK:           tensor.extract_slice {{.*}} [8, 100] [1, 1] : tensor<8x3200xf32> to tensor<8x100xf32>
// CHUNK:           vector.transfer_read {{.*}} : tensor<4x32x12x12xf32>, vector<10xf32>
// CHUNK:           linalg.generic {{.*}}ins({{.*}} : tensor<8x100xf32>, tensor<36x100xf32>) outs({{.*}} : tensor<8x36xf32>)
// CHUNK:         tensor.expand_shape {{.*}} into tensor<8x4x3x3xf32>
func.func @dw(%x: tensor<4x32x12x12xf32>, %d: tensor<8x32x10x10xf32>) -> tensor<4x8x3x3xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8x3x3xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x8x3x3xf32>) -> tensor<4x8x3x3xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %d : tensor<4x32x12x12xf32>, tensor<8x32x10x10xf32>) outs(%f : tensor<4x8x3x3xf32>) -> tensor<4x8x3x3xf32>
  return %r : tensor<4x8x3x3xf32>
}

// -----

// More filters than output positions (F = 64 > P = 49): col is the A
// operand (read transposed, [K, P]), C[P, F] goes back to NCHW through
// [N, OH, OW, F]; the init is not a fill, so it is added there.
// CHECK-DAG:   #[[A:.*]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-DAG:   #[[B:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG:   #[[BACK:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3, d1)>
// CHECK-LABEL: func.func @many_filters
// CHECK:         linalg.generic {indexing_maps = [#[[A]], #[[B]], {{.*}}ins({{.*}} : tensor<72x49xf32>, tensor<64x72xf32>) outs({{.*}} : tensor<49x64xf32>)
// CHECK:         tensor.expand_shape {{.*}} into tensor<1x7x7x64xf32>
// CHECK:         linalg.generic {indexing_maps = [#[[BACK]], {{.*}}ins({{.*}}, %arg2 : tensor<1x7x7x64xf32>, tensor<1x64x7x7xf32>)
// CHECK:           arith.addf
func.func @many_filters(%x: tensor<1x8x9x9xf32>, %w: tensor<64x8x3x3xf32>, %acc: tensor<1x64x7x7xf32>) -> tensor<1x64x7x7xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x8x9x9xf32>, tensor<64x8x3x3xf32>) outs(%acc : tensor<1x64x7x7xf32>) -> tensor<1x64x7x7xf32>
  return %r : tensor<1x64x7x7xf32>
}
