// RUN: ms-opt %s --msmlir-sink-constants | filecheck %s

// CHECK-LABEL: func.func @f
// CHECK:         linalg.generic
// CHECK:         ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[C:.*]] = arith.constant 2.000000e+00 : f32
// CHECK-NEXT:      arith.mulf %[[IN]], %[[C]] : f32
func.func @f(%x: tensor<4x8xf32>, %o: tensor<4xf32>) -> tensor<4xf32> {
  %c = arith.constant 2.0 : f32
  %0 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%o : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %m = arith.mulf %in, %c : f32
    %s = arith.addf %m, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
