// RUN: ms-opt %s --msmlir-fuse-rows --canonicalize --cse | FileCheck %s
// RUN: ms-opt %s --msmlir-fuse-rows="threads=2" --canonicalize --cse | FileCheck %s --check-prefix=THREADS

// An expanded layer_norm that also returns its statistics (the training
// case), as the linalg stage leaves it: the [rows, 1] statistics put
// tensor.expand_shape ops between the reductions, `x - mean` has two
// consumers, and mean / rstd are returned. msmlir-fuse-rows folds the unit
// dims (the reshapes between producers and consumers cancel), recomputes
// `x - mean` in each consumer (no row temporary, no full tensor), and
// yields mean and rstd from the one row loop (fused as an scf.forall, whose
// fusion can yield producers, then made an scf.for).
// CHECK-LABEL: func.func @layernorm_stats
// CHECK-NOT:     linalg.generic
// CHECK-NOT:     tensor.expand_shape
// CHECK:         %[[L:.*]]:3 = scf.for %{{.*}} = %c0 to %c2048 step %c1 iter_args({{.*}}) -> (tensor<2048x256xf32>, tensor<2048xf32>, tensor<2048xf32>)
// CHECK-NOT:       tensor.expand_shape
// CHECK:           %[[ROW:.*]] = tensor.extract_slice %arg0[%{{.*}}, 0] [1, 256] [1, 1]
// CHECK:           %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[ROW]] : tensor<1x256xf32>)
// CHECK:           %[[MEAN:.*]] = linalg.generic {{.*}} ins(%[[SUM]] : tensor<1xf32>)
// CHECK:           %[[VAR:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[ROW]], %[[MEAN]] : tensor<1x256xf32>, tensor<1xf32>)
// CHECK:             arith.subf
// CHECK:             arith.mulf
// CHECK:           %[[RSTD:.*]] = linalg.generic {{.*}} ins(%[[VAR]] : tensor<1xf32>)
// CHECK:             math.rsqrt
// CHECK:           %[[Y:.*]] = linalg.generic {{.*}} ins(%[[ROW]], %[[MEAN]], %[[RSTD]], %arg1, %arg2 :
// CHECK:             arith.subf
// CHECK-DAG:       tensor.insert_slice %[[MEAN]] into
// CHECK-DAG:       tensor.insert_slice %[[RSTD]] into
// CHECK-DAG:       tensor.insert_slice %[[Y]] into
// CHECK:           scf.yield
// CHECK-NOT:     linalg.generic
// CHECK-DAG:     tensor.expand_shape %[[L]]#1
// CHECK-DAG:     tensor.expand_shape %[[L]]#2
// CHECK:         return {{.*}}, %[[L]]#0 :

// With threads the rows are split into tasks first; the statistics are
// yielded by the task loop and by the row loop inside it.
// THREADS-LABEL: func.func @layernorm_stats
// THREADS:         scf.forall (%{{.*}}) in (2) shared_outs({{.*}}) -> (tensor<2048x256xf32>, tensor<2048xf32>, tensor<2048xf32>)
// THREADS:           scf.for %{{.*}} = %c0 to %c1024 step %c1 iter_args({{.*}}) -> (tensor<1024x256xf32>, tensor<1024xf32>, tensor<1024xf32>)
// THREADS:             math.rsqrt
// THREADS:           scf.forall.in_parallel
// THREADS-NOT:     linalg.generic
// THREADS:         return
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
#map2 = affine_map<(d0) -> (d0)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map4 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map5 = affine_map<(d0, d1, d2) -> (d2)>
func.func @layernorm_stats(%arg0: tensor<2048x256xf32>, %arg1: tensor<256xf32>, %arg2: tensor<256xf32>) -> (tensor<2048x1xf32>, tensor<2048x1xf32>, tensor<2048x256xf32>) {
  %cst = arith.constant 9.99999974E-6 : f32
  %cst_0 = arith.constant 2.560000e+02 : f32
  %cst_1 = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<2048xf32>
  %1 = linalg.fill ins(%cst_1 : f32) outs(%0 : tensor<2048xf32>) -> tensor<2048xf32>
  %2 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<2048x256xf32>) outs(%1 : tensor<2048xf32>) {
  ^bb0(%in: f32, %out: f32):
    %12 = arith.addf %in, %out : f32
    linalg.yield %12 : f32
  } -> tensor<2048xf32>
  %3 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel"]} ins(%2 : tensor<2048xf32>) outs(%0 : tensor<2048xf32>) {
  ^bb0(%in: f32, %out: f32):
    %12 = arith.divf %in, %cst_0 : f32
    linalg.yield %12 : f32
  } -> tensor<2048xf32>
  %expanded = tensor.expand_shape %3 [[0, 1]] output_shape [2048, 1] : tensor<2048xf32> into tensor<2048x1xf32>
  %4 = tensor.empty() : tensor<2048x256xf32>
  %5 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %3 : tensor<2048x256xf32>, tensor<2048xf32>) outs(%4 : tensor<2048x256xf32>) {
  ^bb0(%in: f32, %in_4: f32, %out: f32):
    %12 = arith.subf %in, %in_4 : f32
    linalg.yield %12 : f32
  } -> tensor<2048x256xf32>
  %expanded_2 = tensor.expand_shape %5 [[0, 1], [2]] output_shape [2048, 1, 256] : tensor<2048x256xf32> into tensor<2048x1x256xf32>
  %expanded_3 = tensor.expand_shape %0 [[0, 1]] output_shape [2048, 1] : tensor<2048xf32> into tensor<2048x1xf32>
  %6 = linalg.fill ins(%cst_1 : f32) outs(%expanded_3 : tensor<2048x1xf32>) -> tensor<2048x1xf32>
  %7 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["parallel", "parallel", "reduction"]} ins(%expanded_2 : tensor<2048x1x256xf32>) outs(%6 : tensor<2048x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %12 = arith.mulf %in, %in : f32
    %13 = arith.addf %12, %out : f32
    linalg.yield %13 : f32
  } -> tensor<2048x1xf32>
  %8 = tensor.empty() : tensor<2048x1xf32>
  %9 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%7 : tensor<2048x1xf32>) outs(%8 : tensor<2048x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %12 = arith.divf %in, %cst_0 : f32
    %13 = arith.addf %12, %cst : f32
    %14 = math.rsqrt %13 : f32
    linalg.yield %14 : f32
  } -> tensor<2048x1xf32>
  %10 = tensor.empty() : tensor<2048x1x256xf32>
  %11 = linalg.generic {indexing_maps = [#map3, #map4, #map5, #map5, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded_2, %9, %arg1, %arg2 : tensor<2048x1x256xf32>, tensor<2048x1xf32>, tensor<256xf32>, tensor<256xf32>) outs(%10 : tensor<2048x1x256xf32>) {
  ^bb0(%in: f32, %in_4: f32, %in_5: f32, %in_6: f32, %out: f32):
    %12 = arith.mulf %in, %in_4 : f32
    %13 = arith.mulf %12, %in_5 : f32
    %14 = arith.addf %13, %in_6 : f32
    linalg.yield %14 : f32
  } -> tensor<2048x1x256xf32>
  %collapsed = tensor.collapse_shape %11 [[0, 1], [2]] : tensor<2048x1x256xf32> into tensor<2048x256xf32>
  return %expanded, %9, %collapsed : tensor<2048x1xf32>, tensor<2048x1xf32>, tensor<2048x256xf32>
}
