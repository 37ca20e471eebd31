// RUN: ms-opt %s --msmlir-fuse-rows="min-work=0" --verify-diagnostics | FileCheck %s

// A function whose fusion script fails (here an argmax, a sink with two
// results: fuse_into_containing_op gets no containing loop for the fills) is
// put back as it was, and a remark at the function says so.
// CHECK-LABEL: func.func @argmax
// CHECK-NOT:     scf.for
// CHECK:         linalg.generic
#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d1)>
// expected-remark @below {{msmlir-fuse-rows: the fusion script failed; the ops of this function stay unfused}}
func.func @argmax(%arg0: tensor<2x3x4xf32>) -> tensor<2x3xi32> {
  %c0_i32 = arith.constant 0 : i32
  %cst = arith.constant 0xFF800000 : f32
  %0 = tensor.empty() : tensor<2x3xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = tensor.empty() : tensor<2x3xi32>
  %3 = linalg.fill ins(%c0_i32 : i32) outs(%2 : tensor<2x3xi32>) -> tensor<2x3xi32>
  %4:2 = linalg.generic {indexing_maps = [#map, #map1, #map1], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0 : tensor<2x3x4xf32>) outs(%1, %3 : tensor<2x3xf32>, tensor<2x3xi32>) {
  ^bb0(%in: f32, %out: f32, %out_0: i32):
    %5 = arith.cmpf ogt, %in, %out : f32
    %6 = arith.cmpf uno, %in, %in : f32
    %7 = arith.cmpf ord, %out, %out : f32
    %8 = arith.andi %6, %7 : i1
    %9 = arith.ori %5, %8 : i1
    %10 = linalg.index 2 : index
    %11 = arith.index_cast %10 : index to i32
    %12 = arith.select %9, %in, %out : f32
    %13 = arith.select %9, %11, %out_0 : i32
    linalg.yield %12, %13 : f32, i32
  } -> (tensor<2x3xf32>, tensor<2x3xi32>)
  return %4#1 : tensor<2x3xi32>
}
