// RUN: ms-opt %s --msmlir-cpu-vectorize-arg-reductions="min-work=0" --verify-diagnostics --split-input-file | FileCheck %s

// Row argmax (the lowering of mindir.argmax, reduced dim innermost): a loop
// over the rows, along the row a 64-lane vector of the best values and of
// their indices (an iota plus the step's offset) updated by the body's
// compare-select (strictly greater, or the first NaN); the partial last step
// masked; then the lane combine: the maximum (NaN propagating), the smallest
// index among the lanes equal to it or NaN.
// CHECK-LABEL: func.func @row
// CHECK-NOT:     linalg.generic
// CHECK-DAG:     %[[IOTA:.*]] = arith.constant dense<[0, 1, 2, {{.*}}, 63]> : vector<64xi32>
// CHECK-DAG:     %[[BIG:.*]] = vector.broadcast %c2147483647{{.*}} : i32 to vector<64xi32>
// CHECK:         scf.for {{.*}} to %c8
// CHECK:           %[[B0:.*]] = vector.broadcast %{{.*}} : f32 to vector<64xf32>
// CHECK:           %[[L:.*]]:2 = scf.for %[[K:.*]] = %c0 to %c256 step %c64 iter_args(%[[B:.*]] = %[[B0]], %[[I:.*]] = %{{.*}})
// CHECK:             %[[X:.*]] = vector.transfer_read %arg0[%{{.*}}, %[[K]]], %{{.*}} {in_bounds = [true]} : tensor<8x300xf32>, vector<64xf32>
// CHECK:             %[[GT:.*]] = arith.cmpf ogt, %[[X]], %[[B]] : vector<64xf32>
// CHECK:             %[[NAN:.*]] = arith.cmpf uno, %[[X]], %[[X]] : vector<64xf32>
// CHECK:             %[[ORD:.*]] = arith.cmpf ord, %[[B]], %[[B]] : vector<64xf32>
// CHECK:             %[[FN:.*]] = arith.andi %[[NAN]], %[[ORD]] : vector<64xi1>
// CHECK:             %[[T:.*]] = arith.ori %[[GT]], %[[FN]] : vector<64xi1>
// CHECK:             %[[KI:.*]] = arith.index_cast %[[K]] : index to i32
// CHECK:             %[[KB:.*]] = vector.broadcast %[[KI]] : i32 to vector<64xi32>
// CHECK:             %[[IDX:.*]] = arith.addi %[[KB]], %[[IOTA]] : vector<64xi32>
// CHECK:             %[[V1:.*]] = arith.select %[[T]], %[[X]], %[[B]] : vector<64xi1>, vector<64xf32>
// CHECK:             %[[I1:.*]] = arith.select %[[T]], %[[IDX]], %[[I]] : vector<64xi1>, vector<64xi32>
// CHECK:             scf.yield %[[V1]], %[[I1]]
// CHECK:           %[[M:.*]] = vector.create_mask %{{.*}} : vector<64xi1>
// CHECK:           %[[X2:.*]] = vector.transfer_read %arg0[%{{.*}}, %c256], %{{.*}}, %[[M]] : tensor<8x300xf32>, vector<64xf32>
// CHECK:           arith.cmpf ogt, %[[X2]], %[[L]]#0
// CHECK:           %[[T2:.*]] = arith.andi %{{.*}}, %[[M]] : vector<64xi1>
// CHECK:           %[[V2:.*]] = arith.select %[[T2]], %[[X2]], %[[L]]#0
// CHECK:           %[[I2:.*]] = arith.select %[[T2]], %{{.*}}, %[[L]]#1
// CHECK:           %[[MAX:.*]] = vector.reduction <maximumf>, %[[V2]] : vector<64xf32> into f32
// CHECK:           %[[MB:.*]] = vector.broadcast %[[MAX]] : f32 to vector<64xf32>
// CHECK:           %[[EQ:.*]] = arith.cmpf oeq, %[[V2]], %[[MB]]
// CHECK:           %[[VN:.*]] = arith.cmpf uno, %[[V2]], %[[V2]]
// CHECK:           %[[C:.*]] = arith.ori %[[EQ]], %[[VN]]
// CHECK:           %[[S:.*]] = arith.select %[[C]], %[[I2]], %[[BIG]]
// CHECK:           %[[R:.*]] = vector.reduction <minsi>, %[[S]] : vector<64xi32> into i32
// CHECK:           tensor.insert %[[MAX]]
// CHECK:           tensor.insert %[[R]]
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
func.func @row(%arg0: tensor<8x300xf32>) -> tensor<8xi32> {
  %c0_i32 = arith.constant 0 : i32
  %cst = arith.constant 0xFF800000 : f32
  %0 = tensor.empty() : tensor<8xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<8xf32>) -> tensor<8xf32>
  %2 = tensor.empty() : tensor<8xi32>
  %3 = linalg.fill ins(%c0_i32 : i32) outs(%2 : tensor<8xi32>) -> tensor<8xi32>
  %4:2 = linalg.generic {indexing_maps = [#map, #map1, #map1], iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<8x300xf32>) outs(%1, %3 : tensor<8xf32>, tensor<8xi32>) {
  ^bb0(%in: f32, %out: f32, %out_0: i32):
    %5 = arith.cmpf ogt, %in, %out : f32
    %6 = arith.cmpf uno, %in, %in : f32
    %7 = arith.cmpf ord, %out, %out : f32
    %8 = arith.andi %6, %7 : i1
    %9 = arith.ori %5, %8 : i1
    %10 = linalg.index 1 : index
    %11 = arith.index_cast %10 : index to i32
    %12 = arith.select %9, %in, %out : f32
    %13 = arith.select %9, %11, %out_0 : i32
    linalg.yield %12, %13 : f32, i32
  } -> (tensor<8xf32>, tensor<8xi32>)
  return %4#1 : tensor<8xi32>
}

// -----

// Column argmin of i32 (axis 0): vectors along the columns (32 lanes, the
// 33rd column masked), the rows a loop inside, compare-select lane-wise;
// no horizontal step.
// CHECK-LABEL: func.func @col
// CHECK-NOT:     linalg.generic
// CHECK:         scf.for {{.*}} to %c33 step %c32
// CHECK:           %[[M:.*]] = vector.create_mask %{{.*}} : vector<32xi1>
// CHECK:           scf.for {{.*}} to %c64 step %c1 iter_args
// CHECK:             %[[X:.*]] = vector.transfer_read %arg0{{.*}}, %{{.*}} : tensor<64x33xi32>, vector<32xi32>
// CHECK:             %[[LT:.*]] = arith.cmpi slt, %[[X]], %{{.*}} : vector<32xi32>
// CHECK:             arith.select %[[LT]], %[[X]], %{{.*}} : vector<32xi1>, vector<32xi32>
// CHECK:             arith.select %[[LT]], %{{.*}}, %{{.*}} : vector<32xi1>, vector<32xi32>
// CHECK:             scf.yield
// CHECK-NOT:     vector.reduction
// CHECK:         vector.transfer_write {{.*}}, %[[M]] : vector<32xi32>, tensor<33xi32>
#map = affine_map<(d0, d1) -> (d0, d1)>
#map2 = affine_map<(d0, d1) -> (d1)>
func.func @col(%arg0: tensor<64x33xi32>) -> tensor<33xi32> {
  %c0_i32 = arith.constant 0 : i32
  %c2147483647_i32 = arith.constant 2147483647 : i32
  %0 = tensor.empty() : tensor<33xi32>
  %1 = linalg.fill ins(%c2147483647_i32 : i32) outs(%0 : tensor<33xi32>) -> tensor<33xi32>
  %2 = tensor.empty() : tensor<33xi32>
  %3 = linalg.fill ins(%c0_i32 : i32) outs(%2 : tensor<33xi32>) -> tensor<33xi32>
  %4:2 = linalg.generic {indexing_maps = [#map, #map2, #map2], iterator_types = ["reduction", "parallel"]} ins(%arg0 : tensor<64x33xi32>) outs(%1, %3 : tensor<33xi32>, tensor<33xi32>) {
  ^bb0(%in: i32, %out: i32, %out_0: i32):
    %5 = arith.cmpi slt, %in, %out : i32
    %6 = linalg.index 0 : index
    %7 = arith.index_cast %6 : index to i32
    %8 = arith.select %5, %in, %out : i32
    %9 = arith.select %5, %7, %out_0 : i32
    linalg.yield %8, %9 : i32, i32
  } -> (tensor<33xi32>, tensor<33xi32>)
  return %4#1 : tensor<33xi32>
}

// -----

// A float compare without the first-NaN clause is not numpy's argmax (the
// lane combine would return a NaN lane's index): left alone, silently.
// CHECK-LABEL: func.func @no_nan_clause
// CHECK:         linalg.generic
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
func.func @no_nan_clause(%arg0: tensor<8x300xf32>, %v: tensor<8xf32>, %i: tensor<8xi32>) -> tensor<8xi32> {
  %4:2 = linalg.generic {indexing_maps = [#map, #map1, #map1], iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<8x300xf32>) outs(%v, %i : tensor<8xf32>, tensor<8xi32>) {
  ^bb0(%in: f32, %out: f32, %out_0: i32):
    %5 = arith.cmpf ogt, %in, %out : f32
    %10 = linalg.index 1 : index
    %11 = arith.index_cast %10 : index to i32
    %12 = arith.select %5, %in, %out : f32
    %13 = arith.select %5, %11, %out_0 : i32
    linalg.yield %12, %13 : f32, i32
  } -> (tensor<8xf32>, tensor<8xi32>)
  return %4#1 : tensor<8xi32>
}

// -----

// One column: no vector dim; the plain path, with a remark.
#map = affine_map<(d0, d1) -> (d0, d1)>
#map2 = affine_map<(d0, d1) -> (d1)>
func.func @one_column(%arg0: tensor<64x1xf32>, %v: tensor<1xf32>, %i: tensor<1xi32>) -> tensor<1xi32> {
  // expected-remark @+1 {{msmlir-cpu-vectorize-arg-reductions: this arg reduction keeps the plain path: no vector dim}}
  %4:2 = linalg.generic {indexing_maps = [#map, #map2, #map2], iterator_types = ["reduction", "parallel"]} ins(%arg0 : tensor<64x1xf32>) outs(%v, %i : tensor<1xf32>, tensor<1xi32>) {
  ^bb0(%in: f32, %out: f32, %out_0: i32):
    %5 = arith.cmpf ogt, %in, %out : f32
    %6 = arith.cmpf uno, %in, %in : f32
    %7 = arith.cmpf ord, %out, %out : f32
    %8 = arith.andi %6, %7 : i1
    %9 = arith.ori %5, %8 : i1
    %10 = linalg.index 0 : index
    %11 = arith.index_cast %10 : index to i32
    %12 = arith.select %9, %in, %out : f32
    %13 = arith.select %9, %11, %out_0 : i32
    linalg.yield %12, %13 : f32, i32
  } -> (tensor<1xf32>, tensor<1xi32>)
  return %4#1 : tensor<1xi32>
}
