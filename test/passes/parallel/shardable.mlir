// RUN: ms-opt %s --msmlir-make-shardable | filecheck %s

// Unit-dim reshapes become linalg copies with projected maps (shardable);
// a reshape that merges two real dims stays.
// CHECK-DAG:   #[[ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG:   #[[P0:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @reshapes(
// CHECK:         %[[E:.*]] = linalg.generic {indexing_maps = [#[[P0]], #[[ID2]]], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<32xf32>) outs(%{{.*}} : tensor<32x1xf32>)
// CHECK-NEXT:    ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      linalg.yield %[[IN]] : f32
// CHECK:         %[[C:.*]] = linalg.generic {indexing_maps = [#[[ID2]], #[[P0]]], iterator_types = ["parallel", "reduction"]} ins(%[[E]] : tensor<32x1xf32>) outs(%{{.*}} : tensor<32xf32>)
// CHECK:         tensor.collapse_shape %arg1 {{\[\[}}0, 1]] : tensor<4x8xf32> into tensor<32xf32>
// CHECK-NOT:     tensor.expand_shape
func.func @reshapes(%x: tensor<32xf32>, %y: tensor<4x8xf32>) -> (tensor<32xf32>, tensor<32xf32>) {
  %e = tensor.expand_shape %x [[0, 1]] output_shape [32, 1] : tensor<32xf32> into tensor<32x1xf32>
  %c = tensor.collapse_shape %e [[0, 1]] : tensor<32x1xf32> into tensor<32xf32>
  %m = tensor.collapse_shape %y [[0, 1]] : tensor<4x8xf32> into tensor<32xf32>
  return %c, %m : tensor<32xf32>, tensor<32xf32>
}

// A ramp constant (a sparse cross-entropy's class indices, here 2 * j + 1
// along dim 1) becomes a generic of linalg.index; splats and other constants stay.
// CHECK-LABEL: func.func @ramps(
// CHECK:         linalg.generic {indexing_maps = [#[[ID2]]], iterator_types = ["parallel", "parallel"]} outs(%{{.*}} : tensor<3x4xi32>)
// CHECK:           %[[I:.*]] = linalg.index 1 : index
// CHECK:           %[[II:.*]] = arith.index_cast %[[I]] : index to i32
// CHECK:           %[[M:.*]] = arith.muli %[[II]], %{{.*}} : i32
// CHECK:           arith.addi %[[M]], %{{.*}} : i32
// CHECK:         arith.constant dense<1.000000e+00> : tensor<4xf32>
// CHECK:         arith.constant dense<[1.000000e+00, 5.000000e+00, 2.000000e+00]> : tensor<3xf32>
func.func @ramps() -> (tensor<3x4xi32>, tensor<4xf32>, tensor<3xf32>) {
  %r = arith.constant dense<[[1, 3, 5, 7], [1, 3, 5, 7], [1, 3, 5, 7]]> : tensor<3x4xi32>
  %s = arith.constant dense<1.0> : tensor<4xf32>
  %o = arith.constant dense<[1.0, 5.0, 2.0]> : tensor<3xf32>
  return %r, %s, %o : tensor<3x4xi32>, tensor<4xf32>, tensor<3xf32>
}
