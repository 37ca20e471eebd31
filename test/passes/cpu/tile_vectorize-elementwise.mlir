// RUN: ms-opt %s --msmlir-cpu-tile-vectorize="min-work=0" --split-input-file | FileCheck %s

// Elementwise ops with identity maps are flattened to 1-D and vectorized 16
// lanes at a time.
// CHECK-LABEL: func.func @exp2d
// CHECK:         tensor.collapse_shape {{.*}} into tensor<65536xf32>
// CHECK:         scf.for {{.*}} = %c0 to %c65536 step %c16
// CHECK:           vector.transfer_read {{.*}} : tensor<65536xf32>, vector<16xf32>
// CHECK:           math.exp {{.*}} : vector<16xf32>
// CHECK:           vector.transfer_write {{.*}} : vector<16xf32>, tensor<65536xf32>
// CHECK-NOT:     linalg.generic
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @exp2d(%x: tensor<64x1024xf32>) -> tensor<64x1024xf32> {
  %e = tensor.empty() : tensor<64x1024xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<64x1024xf32>) outs(%e : tensor<64x1024xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = math.exp %a : f32
    linalg.yield %y : f32
  } -> tensor<64x1024xf32>
  return %r : tensor<64x1024xf32>
}

// -----

// A broadcast operand keeps the 2-D form: rows of 1, 16 lanes along the row.
// CHECK-LABEL: func.func @bias
// CHECK:         scf.for {{.*}} to %c64 step %c1
// CHECK:           scf.for {{.*}} to %c1024 step %c16
// CHECK:             vector.transfer_read {{.*}} : tensor<1024xf32>, vector<16xf32>
// CHECK:             arith.addf {{.*}} : vector<16xf32>
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @bias(%x: tensor<64x1024xf32>, %b: tensor<1024xf32>) -> tensor<64x1024xf32> {
  %e = tensor.empty() : tensor<64x1024xf32>
  %r = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<64x1024xf32>, tensor<1024xf32>) outs(%e : tensor<64x1024xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %y = arith.addf %a, %c : f32
    linalg.yield %y : f32
  } -> tensor<64x1024xf32>
  return %r : tensor<64x1024xf32>
}

// -----

// A size without a good vector divisor (997 is prime): 16-lane tiles, the
// last one partial, vectorized with masks.
// CHECK-LABEL: func.func @prime
// CHECK:         scf.for {{.*}} to %c997 step %c16
// CHECK:           %[[N:.*]] = affine.min
// CHECK:           %[[M:.*]] = vector.create_mask %[[N]] : vector<16xi1>
// CHECK:           vector.transfer_read {{.*}}, %[[M]] {{.*}} : tensor<?xf32>, vector<16xf32>
// CHECK:           math.tanh {{.*}} : vector<16xf32>
// CHECK:           vector.transfer_write {{.*}}, %[[M]] {{.*}} : vector<16xf32>, tensor<?xf32>
// CHECK-NOT:     linalg.generic
#id1 = affine_map<(d0) -> (d0)>
func.func @prime(%x: tensor<997xf32>) -> tensor<997xf32> {
  %e = tensor.empty() : tensor<997xf32>
  %r = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%x : tensor<997xf32>) outs(%e : tensor<997xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = math.tanh %a : f32
    linalg.yield %y : f32
  } -> tensor<997xf32>
  return %r : tensor<997xf32>
}

// -----

// Ops on dynamic shapes keep the plain path (i1 ops are vectorized:
// tile_vectorize-bool.mlir).
// CHECK-LABEL: func.func @plain
// CHECK:         linalg.generic
// CHECK-NOT:     vector.
func.func @plain(%d: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %d, %c0 : tensor<?xf32>
  %e2 = tensor.empty(%n) : tensor<?xf32>
  %r2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                        iterator_types = ["parallel"]}
      ins(%d : tensor<?xf32>) outs(%e2 : tensor<?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = math.exp %a : f32
    linalg.yield %y : f32
  } -> tensor<?xf32>
  return %r2 : tensor<?xf32>
}

// -----

// With the default min-work (8192) a small op keeps the plain path.
// RUN: ms-opt %s --msmlir-cpu-tile-vectorize --split-input-file | FileCheck %s --check-prefix=DEFAULT
// DEFAULT-LABEL: func.func @small
// DEFAULT:         linalg.generic
// DEFAULT-NOT:     vector.
// CHECK-LABEL:   func.func @small
// CHECK-NOT:       linalg.generic
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @small(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = math.exp %a : f32
    linalg.yield %y : f32
  } -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}
