// RUN: ms-opt %s --msmlir-cpu-tile-vectorize="min-work=0" --split-input-file | FileCheck %s

// Ops with i1 operands or results are vectorized like the others: a relu
// epilogue writing its mask (an i1 result), 16 lanes (the f32 operands set
// the vector length; i1 vectors are masks in registers, bytes in memory once
// bufferized: msmlir-widen-bool-memrefs).
// CHECK-LABEL: func.func @relu_mask
// CHECK:         scf.for {{.*}} to %c64 step %c1
// CHECK:           scf.for {{.*}} to %c1024 step %c16
// CHECK:             arith.cmpf ogt, {{.*}} : vector<16xf32>
// CHECK:             vector.transfer_write {{.*}} : vector<16xi1>, tensor<1x16xi1>
// CHECK-NOT:     linalg.generic
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @relu_mask(%x: tensor<64x1024xf32>, %b: tensor<1024xf32>) -> (tensor<64x1024xf32>, tensor<64x1024xi1>) {
  %e = tensor.empty() : tensor<64x1024xf32>
  %m = tensor.empty() : tensor<64x1024xi1>
  %r:2 = linalg.generic {indexing_maps = [#id, #row, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<64x1024xf32>, tensor<1024xf32>) outs(%e, %m : tensor<64x1024xf32>, tensor<64x1024xi1>) {
  ^bb0(%a: f32, %c: f32, %o: f32, %o2: i1):
    %z = arith.constant 0.0 : f32
    %y = arith.addf %a, %c : f32
    %r = arith.maximumf %y, %z : f32
    %k = arith.cmpf ogt, %y, %z : f32
    linalg.yield %r, %k : f32, i1
  } -> (tensor<64x1024xf32>, tensor<64x1024xi1>)
  return %r#0, %r#1 : tensor<64x1024xf32>, tensor<64x1024xi1>
}

// -----

// The relu backward: select(mask, g, 0) reading the i1 mask as vectors
// (flattened: identity maps), sizes without a good divisor masked.
// CHECK-LABEL: func.func @select_mask
// CHECK:         scf.for {{.*}} to %c66799 step %c16
// CHECK:           %[[M:.*]] = vector.create_mask {{.*}} : vector<16xi1>
// CHECK:           %[[K:.*]] = vector.transfer_read {{.*}}, %[[M]] {{.*}} : tensor<?xi1>, vector<16xi1>
// CHECK:           arith.select %[[K]], {{.*}} : vector<16xi1>, vector<16xf32>
// CHECK-NOT:     linalg.generic
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @select_mask(%m: tensor<67x997xi1>, %g: tensor<67x997xf32>) -> tensor<67x997xf32> {
  %e = tensor.empty() : tensor<67x997xf32>
  %z = arith.constant 0.0 : f32
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m, %g : tensor<67x997xi1>, tensor<67x997xf32>) outs(%e : tensor<67x997xf32>) {
  ^bb0(%a: i1, %c: f32, %o: f32):
    %y = arith.select %a, %c, %z : f32
    linalg.yield %y : f32
  } -> tensor<67x997xf32>
  return %r : tensor<67x997xf32>
}

// -----

// Bool only (logical and of two masks): byte lanes (32).
// CHECK-LABEL: func.func @and_masks
// CHECK:         scf.for {{.*}} to %c65536 step %c32
// CHECK:           arith.andi {{.*}} : vector<32xi1>
// CHECK-NOT:     linalg.generic
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @and_masks(%a: tensor<64x1024xi1>, %b: tensor<64x1024xi1>) -> tensor<64x1024xi1> {
  %e = tensor.empty() : tensor<64x1024xi1>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<64x1024xi1>, tensor<64x1024xi1>) outs(%e : tensor<64x1024xi1>) {
  ^bb0(%x: i1, %y: i1, %o: i1):
    %v = arith.andi %x, %y : i1
    linalg.yield %v : i1
  } -> tensor<64x1024xi1>
  return %r : tensor<64x1024xi1>
}

// -----

// A mask feeding a column reduction (the bias gradient of a dense layer's
// relu backward): the select and the sum, 8 rows x 16 lanes per step, rows
// outer (memory in order).
// CHECK-LABEL: func.func @masked_colsum
// CHECK:         scf.for {{.*}} to %c128 step %c8
// CHECK:           scf.for {{.*}} to %c512 step %c16
// CHECK:             vector.transfer_read {{.*}} : tensor<128x512xi1>, vector<8x16xi1>
// CHECK:             arith.select {{.*}} : vector<8x16xi1>, vector<8x16xf32>
// CHECK:             vector.multi_reduction <add>, {{.*}} [0] : vector<8x16xf32> to vector<16xf32>
// CHECK-NOT:     linalg.generic
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @masked_colsum(%m: tensor<128x512xi1>, %g: tensor<128x512xf32>) -> tensor<512xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<512xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<512xf32>) -> tensor<512xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #col], iterator_types = ["reduction", "parallel"]}
      ins(%m, %g : tensor<128x512xi1>, tensor<128x512xf32>) outs(%f : tensor<512xf32>) {
  ^bb0(%a: i1, %c: f32, %o: f32):
    %y = arith.select %a, %c, %z : f32
    %s = arith.addf %y, %o : f32
    linalg.yield %s : f32
  } -> tensor<512xf32>
  return %r : tensor<512xf32>
}
