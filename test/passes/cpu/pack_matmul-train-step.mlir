// RUN: ms-opt %s --msmlir-cpu-pack-matmul | FileCheck %s

// The matmuls of an MLP train step that are not plain: the relu-backward
// select epilogue, the N=10 logits, a small weight gradient.
// The relu-backward select (an i1 mask operand of the epilogue) takes the
// direct kernel: the mask tile is read with an i1 padding value
// (`arith.constant false`) and selects in registers before the only store;
// no packed C, no linalg.pack/unpack left.

// CHECK-LABEL: func.func @select_mask
// CHECK-NOT:     linalg.pack
// CHECK:         vector.contract
// CHECK:         %[[F:.*]] = arith.constant false
// CHECK:         vector.transfer_read %{{.*}}, %[[F]] {{.*}} : tensor<128x512xi1>, vector<{{[0-9]+}}x{{[0-9]+}}xi1>
// CHECK:         arith.select {{.*}} : vector<{{[0-9]+}}x{{[0-9]+}}xi1>, vector<{{[0-9]+}}x{{[0-9]+}}xf32>
// CHECK:         vector.transfer_write {{.*}} : vector<{{[0-9]+}}x{{[0-9]+}}xf32>, tensor<128x512xf32>
// CHECK-NOT:     linalg.unpack
// CHECK:         return
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @select_mask(%a: tensor<128x512xf32>, %b: tensor<512x512xf32>, %m: tensor<128x512xi1>) -> tensor<128x512xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x512xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<128x512xf32>) -> tensor<128x512xf32>
  %r = linalg.matmul ins(%a, %b : tensor<128x512xf32>, tensor<512x512xf32>)
                     outs(%f : tensor<128x512xf32>) -> tensor<128x512xf32>
  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m, %r : tensor<128x512xi1>, tensor<128x512xf32>) outs(%e : tensor<128x512xf32>) {
  ^bb0(%c: i1, %x: f32, %o: f32):
    %s = arith.select %c, %x, %z : f32
    linalg.yield %s : f32
  } -> tensor<128x512xf32>
  return %y : tensor<128x512xf32>
}

// Narrow C (N=10 logits): B panels narrowed to 8 columns (two panels, the
// second a masked tail tile), so the direct kernel applies (a panel wider
// than C would not).
// CHECK-LABEL: func.func @logits
// CHECK-NOT:     linalg.pack
// CHECK:         tensor.expand_shape {{.*}} into tensor<2x512x8xf32>
// CHECK:         vector.contract {{.*}} into vector<{{[0-9]+}}x8xf32>
// CHECK:         scf.if
// CHECK:           vector.transfer_write %{{.*}}] : vector<{{[0-9]+}}x8xf32>, tensor<128x10xf32>
// CHECK:         } else {
// CHECK:           vector.transfer_write {{.*}} {in_bounds = [true, true]} : vector<{{[0-9]+}}x8xf32>, tensor<128x10xf32>
// CHECK-NOT:     linalg.unpack
// CHECK:         return
func.func @logits(%a: tensor<128x512xf32>, %w: tensor<10x512xf32>) -> tensor<128x10xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x10xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<128x10xf32>) -> tensor<128x10xf32>
  %r = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
                     ins(%a, %w : tensor<128x512xf32>, tensor<10x512xf32>)
                     outs(%f : tensor<128x10xf32>) -> tensor<128x10xf32>
  return %r : tensor<128x10xf32>
}

// A small matmul (dW3 of a train step: 10x512 += (128x10)^T (128x512)): B,
// stored [k, n] without a tail panel, is read in place by the micro-kernel
// (no pack); A (10 rows: a tail panel) is packed.
// CHECK-LABEL: func.func @small_in_place
// CHECK:         tensor.expand_shape {{.*}} into tensor<{{[0-9]+}}x128x{{[0-9]+}}xf32>
// CHECK-NOT:     tensor.expand_shape
// CHECK:         scf.for {{.*}} -> (vector<{{[0-9]+}}x{{[0-9]+}}xf32>)
// CHECK:           vector.transfer_read %arg1[{{.*}}], %{{.*}} {in_bounds = [true, true]} : tensor<128x512xf32>, vector<4x{{[0-9]+}}xf32>
// CHECK:           vector.contract
// CHECK:         return
func.func @small_in_place(%a: tensor<128x10xf32>, %b: tensor<128x512xf32>) -> tensor<10x512xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<10x512xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<10x512xf32>) -> tensor<10x512xf32>
  %r = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
                     ins(%a, %b : tensor<128x10xf32>, tensor<128x512xf32>)
                     outs(%f : tensor<10x512xf32>) -> tensor<10x512xf32>
  return %r : tensor<10x512xf32>
}
