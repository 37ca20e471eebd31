// RUN: env MSMLIR_MM_KERNEL=4,16,16,8,256 ms-opt %s --msmlir-cpu-pack-matmul | FileCheck %s

// The matmul's single-use elementwise consumer (here bias add + relu) is
// applied to the register tile before its only store, into the consumer's
// output: no C buffer, no separate epilogue loop. Sizes that do not divide the
// 4x16 tile (67x45) take out-of-bounds (masked) transfers on the tail tiles
// only (an scf.if per tile). The pack of B is zero padded: the last panel
// (45 = 2*16 + 13) reads 13 columns into a zero vector<16>. A is not packed:
// the tile's rows past the last (67 = 16*4 + 3) broadcast row 66 again
// (clamped indices), and the masked store drops them. k = 33: 8 steps of 4
// then one of 1.

// CHECK-LABEL: func.func @dense
// CHECK-NOT:     linalg.generic
// CHECK-DAG:     %[[Z:.*]] = arith.constant dense<0.000000e+00> : vector<16xf32>
// CHECK:         tensor.empty() : tensor<3x528xf32>
// CHECK:         vector.transfer_read {{.*}} {in_bounds = [true]} : tensor<33x45xf32>, vector<13xf32>
// CHECK:         vector.insert_strided_slice {{.*}}, %[[Z]] {offsets = [0], strides = [1]} : vector<13xf32> into vector<16xf32>
// CHECK:         tensor.expand_shape {{.*}} into tensor<3x33x16xf32>
// CHECK-COUNT-4:     arith.minui %{{.*}}, %c66 : index
// CHECK:             scf.for {{.*}} step %c4 {{.*}} -> (vector<4x16xf32>)
// CHECK:               vector.from_elements {{.*}} : vector<4x4xf32>
// CHECK:               vector.contract
// CHECK:             vector.from_elements {{.*}} : vector<1x4xf32>
// CHECK:             vector.contract {{.*}} : vector<1x4xf32>, vector<1x16xf32> into vector<4x16xf32>
// CHECK:             scf.if
// CHECK:               vector.transfer_read {{.*}} permutation_map = {{.*}} : tensor<45xf32>, vector<4x16xf32>
// CHECK:               arith.addf {{.*}} : vector<4x16xf32>
// CHECK:               arith.maximumf {{.*}} : vector<4x16xf32>
// CHECK:               vector.transfer_write %{{.*}}] : vector<4x16xf32>, tensor<67x45xf32>
// CHECK:             } else {
// CHECK:               vector.transfer_write {{.*}} {in_bounds = [true, true]} : vector<4x16xf32>, tensor<67x45xf32>
// CHECK-NOT:     linalg.generic
// CHECK:         return
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @dense(%a: tensor<67x33xf32>, %b: tensor<33x45xf32>, %bias: tensor<45xf32>) -> tensor<67x45xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<67x45xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<67x45xf32>) -> tensor<67x45xf32>
  %r = linalg.matmul ins(%a, %b : tensor<67x33xf32>, tensor<33x45xf32>)
                     outs(%f : tensor<67x45xf32>) -> tensor<67x45xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%r, %bias : tensor<67x45xf32>, tensor<45xf32>) outs(%e : tensor<67x45xf32>) {
  ^bb0(%x: f32, %c: f32, %o: f32):
    %s = arith.addf %x, %c : f32
    %m = arith.maximumf %s, %z : f32
    linalg.yield %m : f32
  } -> tensor<67x45xf32>
  return %y : tensor<67x45xf32>
}

// A matmul whose result has two users keeps its output and the consumers.
// CHECK-LABEL: func.func @two_users
// CHECK:         vector.contract
// CHECK:         vector.transfer_write {{.*}} : vector<4x16xf32>, tensor<64x64xf32>
// CHECK:         linalg.generic
// CHECK:         return
func.func @two_users(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>)
                     outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%r : tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.maximumf %x, %z : f32
    linalg.yield %m : f32
  } -> tensor<64x64xf32>
  return %r, %y : tensor<64x64xf32>, tensor<64x64xf32>
}

// x @ W^T + bias, relu (W stored [n, k]) computed as C^T = W x^T: each 4x16
// tile of C^T is transposed (zips, once, before the tail branch) into four
// pieces of 4 rows of C, each taking the epilogue as one vector<16> (the
// bias read along C's columns as a 4x4 tile, flattened) and written as a
// 4x4 sub-tile; the tails of both dims (45 = 11*4 + 1 rows of W, 24 = 16 + 8 rows of
// x) take masked transfers in the tail tiles only. x is packed by one block
// of code (16 row reads, 4 rounds of zips, 16 writes) in one loop nest: its
// partial second panel clamps the row indices to the last row (23), the
// last k block (65 = 4*16 + 1) is shifted back to end at k = 65 (49).
// CHECK-LABEL: func.func @dense_bt
// CHECK:         scf.for {{.*}} -> (tensor<2x1040xf32>)
// CHECK-NEXT:      scf.for {{.*}} = %c0 to %c80 step %c16 {{.*}} -> (tensor<2x1040xf32>)
// CHECK-NEXT:        arith.minsi %{{.*}}, %c49 : index
// CHECK:             arith.minsi %{{.*}}, %c23 : index
// CHECK-COUNT-16:    vector.transfer_read %arg0[{{.*}} : tensor<24x65xf32>, vector<16xf32>
// CHECK-COUNT-64:    vector.shuffle
// CHECK-COUNT-16:    vector.transfer_write {{.*}} : vector<16xf32>, tensor<2x1040xf32>
// CHECK-NOT:     vector.transfer_read %arg0
// CHECK:         tensor.expand_shape {{.*}} into tensor<2x65x16xf32>
// CHECK-COUNT-4:     arith.minui %{{.*}}, %c44 : index
// CHECK:             scf.for {{.*}} -> (vector<4x16xf32>)
// CHECK:               tensor.extract %arg1{{.*}} : tensor<45x65xf32>
// CHECK:               vector.contract
// CHECK:             scf.if
// CHECK-NOT:           vector.shuffle
// CHECK:               vector.transfer_read %arg2{{.*}} : tensor<45xf32>, vector<4x4xf32>
// CHECK:               vector.shape_cast {{.*}} : vector<4x4xf32> to vector<16xf32>
// CHECK:               arith.addf {{.*}} : vector<16xf32>
// CHECK:               arith.maximumf {{.*}} : vector<16xf32>
// CHECK:               vector.shape_cast {{.*}} : vector<16xf32> to vector<4x4xf32>
// CHECK:               vector.transfer_write %{{.*}}] : vector<4x4xf32>, tensor<24x45xf32>
// CHECK:             } else {
// CHECK-NOT:           vector.shuffle
// CHECK:               vector.transfer_write {{.*}} {in_bounds = [true, true]} : vector<4x4xf32>, tensor<24x45xf32>
// CHECK-NOT:     linalg.generic
// CHECK:         return
#mk = affine_map<(m, n, k) -> (m, k)>
#nk = affine_map<(m, n, k) -> (n, k)>
#mn = affine_map<(m, n, k) -> (m, n)>
func.func @dense_bt(%x: tensor<24x65xf32>, %w: tensor<45x65xf32>, %bias: tensor<45xf32>) -> tensor<24x45xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<24x45xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<24x45xf32>) -> tensor<24x45xf32>
  %r = linalg.generic {indexing_maps = [#mk, #nk, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<24x65xf32>, tensor<45x65xf32>) outs(%f : tensor<24x45xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<24x45xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%r, %bias : tensor<24x45xf32>, tensor<45xf32>) outs(%e : tensor<24x45xf32>) {
  ^bb0(%v: f32, %c: f32, %o: f32):
    %s = arith.addf %v, %c : f32
    %m = arith.maximumf %s, %z : f32
    linalg.yield %m : f32
  } -> tensor<24x45xf32>
  return %y : tensor<24x45xf32>
}
