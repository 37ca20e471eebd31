// RUN: ms-opt %s --convert-mindir-to-linalg --split-input-file | FileCheck %s
//
// matmul / batch_matmul -> linalg.matmul / linalg.batch_matmul into a zero
// linalg.fill; transposed operands through the named op's indexing_maps.
// f16 accumulates in f32. batch_matmul broadcasts operands to the result's batch
// dims (linalg.broadcast) and folds the batch dims into one. bias_add -> a
// broadcasting linalg.generic reading the bias at the channel dim.

// CHECK-LABEL: func.func @matmul(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4x8xf32>, [[ARG1:%[a-zA-Z0-9_.$-]+]]: tensor<8x16xf32>) -> tensor<4x16xf32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4x16xf32>
// CHECK: [[CST:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f32
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.fill ins([[CST]] : f32) outs([[V0]] : tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = linalg.matmul ins([[ARG0]], [[ARG1]] : tensor<4x8xf32>, tensor<8x16xf32>) outs([[V1]] : tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK: return [[V2]] : tensor<4x16xf32>
func.func @matmul(%a0: tensor<4x8xf32>, %a1: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %0 = mindir.matmul %a0, %a1 : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-DAG: #[[MAP1:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[MAP2:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @matmul_transpose_a(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<8x4xf32>, [[ARG1:%[a-zA-Z0-9_.$-]+]]: tensor<8x16xf32>) -> tensor<4x16xf32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4x16xf32>
// CHECK: [[CST:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f32
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.fill ins([[CST]] : f32) outs([[V0]] : tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = linalg.matmul indexing_maps = [#[[MAP]], #[[MAP1]], #[[MAP2]]] ins([[ARG0]], [[ARG1]] : tensor<8x4xf32>, tensor<8x16xf32>) outs([[V1]] : tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK: return [[V2]] : tensor<4x16xf32>
func.func @matmul_transpose_a(%a0: tensor<8x4xf32>, %a1: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %0 = mindir.matmul %a0, %a1 {transpose_a = true} : (tensor<8x4xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[MAP1:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[MAP2:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @matmul_transpose_b(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4x8xf32>, [[ARG1:%[a-zA-Z0-9_.$-]+]]: tensor<16x8xf32>) -> tensor<4x16xf32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4x16xf32>
// CHECK: [[CST:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f32
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.fill ins([[CST]] : f32) outs([[V0]] : tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = linalg.matmul indexing_maps = [#[[MAP]], #[[MAP1]], #[[MAP2]]] ins([[ARG0]], [[ARG1]] : tensor<4x8xf32>, tensor<16x8xf32>) outs([[V1]] : tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK: return [[V2]] : tensor<4x16xf32>
func.func @matmul_transpose_b(%a0: tensor<4x8xf32>, %a1: tensor<16x8xf32>) -> tensor<4x16xf32> {
  %0 = mindir.matmul %a0, %a1 {transpose_b = true} : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-DAG: #[[MAP1:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[MAP2:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @matmul_transpose_ab(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<8x4xf32>, [[ARG1:%[a-zA-Z0-9_.$-]+]]: tensor<16x8xf32>) -> tensor<4x16xf32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4x16xf32>
// CHECK: [[CST:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f32
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.fill ins([[CST]] : f32) outs([[V0]] : tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = linalg.matmul indexing_maps = [#[[MAP]], #[[MAP1]], #[[MAP2]]] ins([[ARG0]], [[ARG1]] : tensor<8x4xf32>, tensor<16x8xf32>) outs([[V1]] : tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK: return [[V2]] : tensor<4x16xf32>
func.func @matmul_transpose_ab(%a0: tensor<8x4xf32>, %a1: tensor<16x8xf32>) -> tensor<4x16xf32> {
  %0 = mindir.matmul %a0, %a1 {transpose_a = true, transpose_b = true} : (tensor<8x4xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// CHECK-LABEL: func.func @matmul_i32(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4x8xi32>, [[ARG1:%[a-zA-Z0-9_.$-]+]]: tensor<8x16xi32>) -> tensor<4x16xi32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4x16xi32>
// CHECK: [[C0_I32:%[a-zA-Z0-9_.$-]+]] = arith.constant 0 : i32
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.fill ins([[C0_I32]] : i32) outs([[V0]] : tensor<4x16xi32>) -> tensor<4x16xi32>
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = linalg.matmul ins([[ARG0]], [[ARG1]] : tensor<4x8xi32>, tensor<8x16xi32>) outs([[V1]] : tensor<4x16xi32>) -> tensor<4x16xi32>
// CHECK: return [[V2]] : tensor<4x16xi32>
func.func @matmul_i32(%a0: tensor<4x8xi32>, %a1: tensor<8x16xi32>) -> tensor<4x16xi32> {
  %0 = mindir.matmul %a0, %a1 : (tensor<4x8xi32>, tensor<8x16xi32>) -> tensor<4x16xi32>
  return %0 : tensor<4x16xi32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @matmul_f16(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4x8xf16>, [[ARG1:%[a-zA-Z0-9_.$-]+]]: tensor<8x16xf16>) -> tensor<4x16xf16> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4x16xf32>
// CHECK: [[CST:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f32
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.fill ins([[CST]] : f32) outs([[V0]] : tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = linalg.matmul ins([[ARG0]], [[ARG1]] : tensor<4x8xf16>, tensor<8x16xf16>) outs([[V1]] : tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK: [[V3:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4x16xf16>
// CHECK: [[V4:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]]], iterator_types = ["parallel", "parallel"]} ins([[V2]] : tensor<4x16xf32>) outs([[V3]] : tensor<4x16xf16>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT:%[a-zA-Z0-9_.$-]+]]: f16):
// CHECK: [[V5:%[a-zA-Z0-9_.$-]+]] = arith.truncf [[IN]] : f32 to f16
// CHECK: linalg.yield [[V5]] : f16
// CHECK: } -> tensor<4x16xf16>
// CHECK: return [[V4]] : tensor<4x16xf16>
func.func @matmul_f16(%a0: tensor<4x8xf16>, %a1: tensor<8x16xf16>) -> tensor<4x16xf16> {
  %0 = mindir.matmul %a0, %a1 : (tensor<4x8xf16>, tensor<8x16xf16>) -> tensor<4x16xf16>
  return %0 : tensor<4x16xf16>
}

// -----

// CHECK-LABEL: func.func @batch_matmul(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<3x4x8xf32>, [[ARG1:%[a-zA-Z0-9_.$-]+]]: tensor<3x8x16xf32>) -> tensor<3x4x16xf32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<3x4x16xf32>
// CHECK: [[CST:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f32
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.fill ins([[CST]] : f32) outs([[V0]] : tensor<3x4x16xf32>) -> tensor<3x4x16xf32>
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = linalg.batch_matmul ins([[ARG0]], [[ARG1]] : tensor<3x4x8xf32>, tensor<3x8x16xf32>) outs([[V1]] : tensor<3x4x16xf32>) -> tensor<3x4x16xf32>
// CHECK: return [[V2]] : tensor<3x4x16xf32>
func.func @batch_matmul(%a0: tensor<3x4x8xf32>, %a1: tensor<3x8x16xf32>) -> tensor<3x4x16xf32> {
  %0 = mindir.batch_matmul %a0, %a1 : (tensor<3x4x8xf32>, tensor<3x8x16xf32>) -> tensor<3x4x16xf32>
  return %0 : tensor<3x4x16xf32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d1)>
// CHECK-DAG: #[[MAP1:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
// CHECK-DAG: #[[MAP2:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @batch_matmul_transpose(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<3x8x4xf32>, [[ARG1:%[a-zA-Z0-9_.$-]+]]: tensor<3x16x8xf32>) -> tensor<3x4x16xf32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<3x4x16xf32>
// CHECK: [[CST:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f32
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.fill ins([[CST]] : f32) outs([[V0]] : tensor<3x4x16xf32>) -> tensor<3x4x16xf32>
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = linalg.batch_matmul indexing_maps = [#[[MAP]], #[[MAP1]], #[[MAP2]]] ins([[ARG0]], [[ARG1]] : tensor<3x8x4xf32>, tensor<3x16x8xf32>) outs([[V1]] : tensor<3x4x16xf32>) -> tensor<3x4x16xf32>
// CHECK: return [[V2]] : tensor<3x4x16xf32>
func.func @batch_matmul_transpose(%a0: tensor<3x8x4xf32>, %a1: tensor<3x16x8xf32>) -> tensor<3x4x16xf32> {
  %0 = mindir.batch_matmul %a0, %a1 {transpose_a = true, transpose_b = true} : (tensor<3x8x4xf32>, tensor<3x16x8xf32>) -> tensor<3x4x16xf32>
  return %0 : tensor<3x4x16xf32>
}

// -----

// CHECK-LABEL: func.func @batch_matmul_broadcast(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<2x1x4x8xf32>, [[ARG1:%[a-zA-Z0-9_.$-]+]]: tensor<3x8x16xf32>) -> tensor<2x3x4x16xf32> {
// CHECK: [[COLLAPSED:%[a-zA-Z0-9_.$-]+]] = tensor.collapse_shape [[ARG0]] {{\[\[}}0], [1, 2], [3]] : tensor<2x1x4x8xf32> into tensor<2x4x8xf32>
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<2x3x4x8xf32>
// CHECK: [[BROADCASTED:%[a-zA-Z0-9_.$-]+]] = linalg.broadcast ins([[COLLAPSED]] : tensor<2x4x8xf32>) outs([[V0]] : tensor<2x3x4x8xf32>) dimensions = [1]
// CHECK: [[COLLAPSED_0:%[a-zA-Z0-9_.$-]+]] = tensor.collapse_shape [[BROADCASTED]] {{\[\[}}0, 1], [2], [3]] : tensor<2x3x4x8xf32> into tensor<6x4x8xf32>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<2x3x8x16xf32>
// CHECK: [[BROADCASTED_1:%[a-zA-Z0-9_.$-]+]] = linalg.broadcast ins([[ARG1]] : tensor<3x8x16xf32>) outs([[V1]] : tensor<2x3x8x16xf32>) dimensions = [0]
// CHECK: [[COLLAPSED_2:%[a-zA-Z0-9_.$-]+]] = tensor.collapse_shape [[BROADCASTED_1]] {{\[\[}}0, 1], [2], [3]] : tensor<2x3x8x16xf32> into tensor<6x8x16xf32>
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<6x4x16xf32>
// CHECK: [[CST:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f32
// CHECK: [[V3:%[a-zA-Z0-9_.$-]+]] = linalg.fill ins([[CST]] : f32) outs([[V2]] : tensor<6x4x16xf32>) -> tensor<6x4x16xf32>
// CHECK: [[V4:%[a-zA-Z0-9_.$-]+]] = linalg.batch_matmul ins([[COLLAPSED_0]], [[COLLAPSED_2]] : tensor<6x4x8xf32>, tensor<6x8x16xf32>) outs([[V3]] : tensor<6x4x16xf32>) -> tensor<6x4x16xf32>
// CHECK: [[EXPANDED:%[a-zA-Z0-9_.$-]+]] = tensor.expand_shape [[V4]] {{\[\[}}0, 1], [2], [3]] output_shape [2, 3, 4, 16] : tensor<6x4x16xf32> into tensor<2x3x4x16xf32>
// CHECK: return [[EXPANDED]] : tensor<2x3x4x16xf32>
func.func @batch_matmul_broadcast(%a0: tensor<2x1x4x8xf32>, %a1: tensor<3x8x16xf32>) -> tensor<2x3x4x16xf32> {
  %0 = mindir.batch_matmul %a0, %a1 : (tensor<2x1x4x8xf32>, tensor<3x8x16xf32>) -> tensor<2x3x4x16xf32>
  return %0 : tensor<2x3x4x16xf32>
}

// -----

// CHECK-LABEL: func.func @batch_matmul_broadcast_unit(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<1x4x8xi64>, [[ARG1:%[a-zA-Z0-9_.$-]+]]: tensor<5x8x16xi64>) -> tensor<5x4x16xi64> {
// CHECK: [[COLLAPSED:%[a-zA-Z0-9_.$-]+]] = tensor.collapse_shape [[ARG0]] {{\[\[}}0, 1], [2]] : tensor<1x4x8xi64> into tensor<4x8xi64>
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<5x4x8xi64>
// CHECK: [[BROADCASTED:%[a-zA-Z0-9_.$-]+]] = linalg.broadcast ins([[COLLAPSED]] : tensor<4x8xi64>) outs([[V0]] : tensor<5x4x8xi64>) dimensions = [0]
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<5x4x16xi64>
// CHECK: [[C0_I64:%[a-zA-Z0-9_.$-]+]] = arith.constant 0 : i64
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = linalg.fill ins([[C0_I64]] : i64) outs([[V1]] : tensor<5x4x16xi64>) -> tensor<5x4x16xi64>
// CHECK: [[V3:%[a-zA-Z0-9_.$-]+]] = linalg.batch_matmul ins([[BROADCASTED]], [[ARG1]] : tensor<5x4x8xi64>, tensor<5x8x16xi64>) outs([[V2]] : tensor<5x4x16xi64>) -> tensor<5x4x16xi64>
// CHECK: return [[V3]] : tensor<5x4x16xi64>
func.func @batch_matmul_broadcast_unit(%a0: tensor<1x4x8xi64>, %a1: tensor<5x8x16xi64>) -> tensor<5x4x16xi64> {
  %0 = mindir.batch_matmul %a0, %a1 : (tensor<1x4x8xi64>, tensor<5x8x16xi64>) -> tensor<5x4x16xi64>
  return %0 : tensor<5x4x16xi64>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[MAP1:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-LABEL: func.func @bias_add_nchw(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<2x3x4x5xf32>, [[ARG1:%[a-zA-Z0-9_.$-]+]]: tensor<3xf32>) -> tensor<2x3x4x5xf32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<2x3x4x5xf32>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP1]], #[[MAP]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins([[ARG0]], [[ARG1]] : tensor<2x3x4x5xf32>, tensor<3xf32>) outs([[V0]] : tensor<2x3x4x5xf32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: f32, [[IN_0:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT:%[a-zA-Z0-9_.$-]+]]: f32):
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = arith.addf [[IN]], [[IN_0]] : f32
// CHECK: linalg.yield [[V2]] : f32
// CHECK: } -> tensor<2x3x4x5xf32>
// CHECK: return [[V1]] : tensor<2x3x4x5xf32>
func.func @bias_add_nchw(%a0: tensor<2x3x4x5xf32>, %a1: tensor<3xf32>) -> tensor<2x3x4x5xf32> {
  %0 = mindir.bias_add %a0, %a1 : (tensor<2x3x4x5xf32>, tensor<3xf32>) -> tensor<2x3x4x5xf32>
  return %0 : tensor<2x3x4x5xf32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[MAP1:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d3)>
// CHECK-LABEL: func.func @bias_add_nhwc(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<2x3x4x5xf32>, [[ARG1:%[a-zA-Z0-9_.$-]+]]: tensor<5xf32>) -> tensor<2x3x4x5xf32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<2x3x4x5xf32>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP1]], #[[MAP]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins([[ARG0]], [[ARG1]] : tensor<2x3x4x5xf32>, tensor<5xf32>) outs([[V0]] : tensor<2x3x4x5xf32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: f32, [[IN_0:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT:%[a-zA-Z0-9_.$-]+]]: f32):
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = arith.addf [[IN]], [[IN_0]] : f32
// CHECK: linalg.yield [[V2]] : f32
// CHECK: } -> tensor<2x3x4x5xf32>
// CHECK: return [[V1]] : tensor<2x3x4x5xf32>
func.func @bias_add_nhwc(%a0: tensor<2x3x4x5xf32>, %a1: tensor<5xf32>) -> tensor<2x3x4x5xf32> {
  %0 = mindir.bias_add %a0, %a1 {data_format = #mindir.data_format<NHWC>} : (tensor<2x3x4x5xf32>, tensor<5xf32>) -> tensor<2x3x4x5xf32>
  return %0 : tensor<2x3x4x5xf32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[MAP1:map[0-9]*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @bias_add_2d(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<6x3xi32>, [[ARG1:%[a-zA-Z0-9_.$-]+]]: tensor<3xi32>) -> tensor<6x3xi32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<6x3xi32>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP1]], #[[MAP]]], iterator_types = ["parallel", "parallel"]} ins([[ARG0]], [[ARG1]] : tensor<6x3xi32>, tensor<3xi32>) outs([[V0]] : tensor<6x3xi32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: i32, [[IN_0:%[a-zA-Z0-9_.$-]+]]: i32, [[OUT:%[a-zA-Z0-9_.$-]+]]: i32):
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = arith.addi [[IN]], [[IN_0]] : i32
// CHECK: linalg.yield [[V2]] : i32
// CHECK: } -> tensor<6x3xi32>
// CHECK: return [[V1]] : tensor<6x3xi32>
func.func @bias_add_2d(%a0: tensor<6x3xi32>, %a1: tensor<3xi32>) -> tensor<6x3xi32> {
  %0 = mindir.bias_add %a0, %a1 : (tensor<6x3xi32>, tensor<3xi32>) -> tensor<6x3xi32>
  return %0 : tensor<6x3xi32>
}
