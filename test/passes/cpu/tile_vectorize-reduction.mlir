// RUN: ms-opt %s --msmlir-cpu-tile-vectorize --split-input-file | FileCheck %s

// A row reduction: one row at a time, partial sums carried through the row
// (tile_reduction_using_for) in 4 independent vectors of 16 (a vector<64>:
// four registers, four dependence chains), one horizontal reduction per row.
// CHECK-LABEL: func.func @rowsum
// CHECK:         scf.for {{.*}} to %c64 step %c1
// CHECK:           vector.transfer_write %{{.*}} : vector<64xf32>, tensor<1x64xf32>
// CHECK:           scf.for {{.*}} to %c1024 step %c64 {{.*}} -> (tensor<1x64xf32>)
// CHECK:             arith.addf {{.*}} : vector<64xf32>
// CHECK:           vector.multi_reduction <add>, {{.*}} [1] : vector<1x64xf32> to vector<1xf32>
// CHECK-NOT:     linalg.generic
func.func @rowsum(%x: tensor<64x1024xf32>) -> tensor<64xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<64x1024xf32>) outs(%f : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %r : tensor<64xf32>
}

// -----

// A column reduction (innermost dim parallel): memory in order, 8 rows per
// step outside, 16 columns at a time inside, folded into the accumulator row.
// CHECK-LABEL: func.func @colmax
// CHECK:         scf.for {{.*}} to %c512 step %c8
// CHECK:           scf.for {{.*}} to %c256 step %c16
// CHECK:             vector.transfer_read {{.*}} : tensor<512x256xf32>, vector<8x16xf32>
// CHECK:             vector.multi_reduction <maximumf>, {{.*}} [0] : vector<8x16xf32> to vector<16xf32>
// CHECK-NOT:     linalg.generic
func.func @colmax(%x: tensor<512x256xf32>) -> tensor<256xf32> {
  %z = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<256xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<256xf32>) -> tensor<256xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>],
                       iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<512x256xf32>) outs(%f : tensor<256xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.maximumf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<256xf32>
  return %r : tensor<256xf32>
}

// -----

// A row of 96: fewer partial-sum vectors (two of 16), as many as the row
// holds at least twice.
// CHECK-LABEL: func.func @rowmax_short
// CHECK:           scf.for {{.*}} to %c96 step %c32 {{.*}} -> (tensor<1x32xf32>)
// CHECK:             arith.maximumf {{.*}} : vector<32xf32>
// CHECK:           vector.multi_reduction <maximumf>, {{.*}} [1] : vector<1x32xf32> to vector<1xf32>
func.func @rowmax_short(%x: tensor<256x96xf32>) -> tensor<256xf32> {
  %z = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<256xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<256xf32>) -> tensor<256xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<256x96xf32>) outs(%f : tensor<256xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.maximumf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<256xf32>
  return %r : tensor<256xf32>
}
