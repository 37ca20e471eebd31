// RUN: ms-opt %s --convert-mindir-to-linalg --split-input-file | FileCheck %s
//
// Reductions -> linalg.generic with "reduction" iterators into a linalg.fill of
// the identity (0, 1, -inf/+inf, INT_MIN/INT_MAX); keep_dims re-inserts unit
// dims with tensor.expand_shape. f16/bf16 sum/mean/prod accumulate in f32.
// argmax/argmin carry (value, index) through a two-output generic; the index is
// linalg.index of the reduced dim, taken only on a strictly better value or the
// first NaN, so the first extremum wins (numpy).

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[MAP1:map[0-9]*]] = affine_map<(d0, d1, d2) -> ()>
// CHECK-LABEL: func.func @reduce_sum_all(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<2x3x4xf32>) -> tensor<f32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<f32>
// CHECK: [[CST:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f32
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.fill ins([[CST]] : f32) outs([[V0]] : tensor<f32>) -> tensor<f32>
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP1]]], iterator_types = ["reduction", "reduction", "reduction"]} ins([[ARG0]] : tensor<2x3x4xf32>) outs([[V1]] : tensor<f32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT:%[a-zA-Z0-9_.$-]+]]: f32):
// CHECK: [[V3:%[a-zA-Z0-9_.$-]+]] = arith.addf [[IN]], [[OUT]] : f32
// CHECK: linalg.yield [[V3]] : f32
// CHECK: } -> tensor<f32>
// CHECK: return [[V2]] : tensor<f32>
func.func @reduce_sum_all(%a0: tensor<2x3x4xf32>) -> tensor<f32> {
  %0 = mindir.reduce_sum %a0 : (tensor<2x3x4xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[MAP1:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @reduce_sum_axis(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<2x3x4xf32>) -> tensor<2x4xf32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<2x4xf32>
// CHECK: [[CST:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f32
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.fill ins([[CST]] : f32) outs([[V0]] : tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP1]]], iterator_types = ["parallel", "reduction", "parallel"]} ins([[ARG0]] : tensor<2x3x4xf32>) outs([[V1]] : tensor<2x4xf32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT:%[a-zA-Z0-9_.$-]+]]: f32):
// CHECK: [[V3:%[a-zA-Z0-9_.$-]+]] = arith.addf [[IN]], [[OUT]] : f32
// CHECK: linalg.yield [[V3]] : f32
// CHECK: } -> tensor<2x4xf32>
// CHECK: return [[V2]] : tensor<2x4xf32>
func.func @reduce_sum_axis(%a0: tensor<2x3x4xf32>) -> tensor<2x4xf32> {
  %0 = mindir.reduce_sum %a0 {axes = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[MAP1:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0)>
// CHECK-LABEL: func.func @reduce_sum_keep_dims(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<2x3x4xf32>) -> tensor<2x1x1xf32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<2xf32>
// CHECK: [[CST:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f32
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.fill ins([[CST]] : f32) outs([[V0]] : tensor<2xf32>) -> tensor<2xf32>
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP1]]], iterator_types = ["parallel", "reduction", "reduction"]} ins([[ARG0]] : tensor<2x3x4xf32>) outs([[V1]] : tensor<2xf32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT:%[a-zA-Z0-9_.$-]+]]: f32):
// CHECK: [[V3:%[a-zA-Z0-9_.$-]+]] = arith.addf [[IN]], [[OUT]] : f32
// CHECK: linalg.yield [[V3]] : f32
// CHECK: } -> tensor<2xf32>
// CHECK: [[EXPANDED:%[a-zA-Z0-9_.$-]+]] = tensor.expand_shape [[V2]] {{\[\[}}0, 1, 2]] output_shape [2, 1, 1] : tensor<2xf32> into tensor<2x1x1xf32>
// CHECK: return [[EXPANDED]] : tensor<2x1x1xf32>
func.func @reduce_sum_keep_dims(%a0: tensor<2x3x4xf32>) -> tensor<2x1x1xf32> {
  %0 = mindir.reduce_sum %a0 {axes = array<i64: 1, -1>, keep_dims = true} : (tensor<2x3x4xf32>) -> tensor<2x1x1xf32>
  return %0 : tensor<2x1x1xf32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[MAP1:map[0-9]*]] = affine_map<(d0, d1, d2) -> ()>
// CHECK-LABEL: func.func @reduce_sum_all_keep_dims(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<2x3x4xf32>) -> tensor<1x1x1xf32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<f32>
// CHECK: [[CST:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f32
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.fill ins([[CST]] : f32) outs([[V0]] : tensor<f32>) -> tensor<f32>
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP1]]], iterator_types = ["reduction", "reduction", "reduction"]} ins([[ARG0]] : tensor<2x3x4xf32>) outs([[V1]] : tensor<f32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT:%[a-zA-Z0-9_.$-]+]]: f32):
// CHECK: [[V3:%[a-zA-Z0-9_.$-]+]] = arith.addf [[IN]], [[OUT]] : f32
// CHECK: linalg.yield [[V3]] : f32
// CHECK: } -> tensor<f32>
// CHECK: [[EXPANDED:%[a-zA-Z0-9_.$-]+]] = tensor.expand_shape [[V2]] [] output_shape [1, 1, 1] : tensor<f32> into tensor<1x1x1xf32>
// CHECK: return [[EXPANDED]] : tensor<1x1x1xf32>
func.func @reduce_sum_all_keep_dims(%a0: tensor<2x3x4xf32>) -> tensor<1x1x1xf32> {
  %0 = mindir.reduce_sum %a0 {keep_dims = true} : (tensor<2x3x4xf32>) -> tensor<1x1x1xf32>
  return %0 : tensor<1x1x1xf32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[MAP1:map[0-9]*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[MAP2:map[0-9]*]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @reduce_sum_f16(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<8x16xf16>) -> tensor<8xf16> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<8xf32>
// CHECK: [[CST:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f32
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.fill ins([[CST]] : f32) outs([[V0]] : tensor<8xf32>) -> tensor<8xf32>
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP1]]], iterator_types = ["parallel", "reduction"]} ins([[ARG0]] : tensor<8x16xf16>) outs([[V1]] : tensor<8xf32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: f16, [[OUT:%[a-zA-Z0-9_.$-]+]]: f32):
// CHECK: [[V5:%[a-zA-Z0-9_.$-]+]] = arith.extf [[IN]] : f16 to f32
// CHECK: [[V6:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V5]], [[OUT]] : f32
// CHECK: linalg.yield [[V6]] : f32
// CHECK: } -> tensor<8xf32>
// CHECK: [[V3:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<8xf16>
// CHECK: [[V4:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP2]], #[[MAP2]]], iterator_types = ["parallel"]} ins([[V2]] : tensor<8xf32>) outs([[V3]] : tensor<8xf16>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT:%[a-zA-Z0-9_.$-]+]]: f16):
// CHECK: [[V5:%[a-zA-Z0-9_.$-]+]] = arith.truncf [[IN]] : f32 to f16
// CHECK: linalg.yield [[V5]] : f16
// CHECK: } -> tensor<8xf16>
// CHECK: return [[V4]] : tensor<8xf16>
func.func @reduce_sum_f16(%a0: tensor<8x16xf16>) -> tensor<8xf16> {
  %0 = mindir.reduce_sum %a0 {axes = array<i64: -1>} : (tensor<8x16xf16>) -> tensor<8xf16>
  return %0 : tensor<8xf16>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[MAP1:map[0-9]*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @reduce_sum_i32(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<8x16xi32>) -> tensor<16xi32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<16xi32>
// CHECK: [[C0_I32:%[a-zA-Z0-9_.$-]+]] = arith.constant 0 : i32
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.fill ins([[C0_I32]] : i32) outs([[V0]] : tensor<16xi32>) -> tensor<16xi32>
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP1]]], iterator_types = ["reduction", "parallel"]} ins([[ARG0]] : tensor<8x16xi32>) outs([[V1]] : tensor<16xi32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: i32, [[OUT:%[a-zA-Z0-9_.$-]+]]: i32):
// CHECK: [[V3:%[a-zA-Z0-9_.$-]+]] = arith.addi [[IN]], [[OUT]] : i32
// CHECK: linalg.yield [[V3]] : i32
// CHECK: } -> tensor<16xi32>
// CHECK: return [[V2]] : tensor<16xi32>
func.func @reduce_sum_i32(%a0: tensor<8x16xi32>) -> tensor<16xi32> {
  %0 = mindir.reduce_sum %a0 {axes = array<i64: 0>} : (tensor<8x16xi32>) -> tensor<16xi32>
  return %0 : tensor<16xi32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[MAP1:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[MAP2:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @reduce_mean(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<2x3x4xf32>) -> tensor<2x4xf32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<2x4xf32>
// CHECK: [[CST:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f32
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.fill ins([[CST]] : f32) outs([[V0]] : tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP1]]], iterator_types = ["parallel", "reduction", "parallel"]} ins([[ARG0]] : tensor<2x3x4xf32>) outs([[V1]] : tensor<2x4xf32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT:%[a-zA-Z0-9_.$-]+]]: f32):
// CHECK: [[V5:%[a-zA-Z0-9_.$-]+]] = arith.addf [[IN]], [[OUT]] : f32
// CHECK: linalg.yield [[V5]] : f32
// CHECK: } -> tensor<2x4xf32>
// CHECK: [[V3:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<2x4xf32>
// CHECK: [[V4:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP2]], #[[MAP2]]], iterator_types = ["parallel", "parallel"]} ins([[V2]] : tensor<2x4xf32>) outs([[V3]] : tensor<2x4xf32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT:%[a-zA-Z0-9_.$-]+]]: f32):
// CHECK: [[CST_0:%[a-zA-Z0-9_.$-]+]] = arith.constant 3.000000e+00 : f32
// CHECK: [[V5:%[a-zA-Z0-9_.$-]+]] = arith.divf [[IN]], [[CST_0]] : f32
// CHECK: linalg.yield [[V5]] : f32
// CHECK: } -> tensor<2x4xf32>
// CHECK: return [[V4]] : tensor<2x4xf32>
func.func @reduce_mean(%a0: tensor<2x3x4xf32>) -> tensor<2x4xf32> {
  %0 = mindir.reduce_mean %a0 {axes = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[MAP1:map[0-9]*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[MAP2:map[0-9]*]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @reduce_mean_bf16(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<8x16xbf16>) -> tensor<8x1xbf16> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<8xf32>
// CHECK: [[CST:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f32
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.fill ins([[CST]] : f32) outs([[V0]] : tensor<8xf32>) -> tensor<8xf32>
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP1]]], iterator_types = ["parallel", "reduction"]} ins([[ARG0]] : tensor<8x16xbf16>) outs([[V1]] : tensor<8xf32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: bf16, [[OUT:%[a-zA-Z0-9_.$-]+]]: f32):
// CHECK: [[V5:%[a-zA-Z0-9_.$-]+]] = arith.extf [[IN]] : bf16 to f32
// CHECK: [[V6:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V5]], [[OUT]] : f32
// CHECK: linalg.yield [[V6]] : f32
// CHECK: } -> tensor<8xf32>
// CHECK: [[V3:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<8xbf16>
// CHECK: [[V4:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP2]], #[[MAP2]]], iterator_types = ["parallel"]} ins([[V2]] : tensor<8xf32>) outs([[V3]] : tensor<8xbf16>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT:%[a-zA-Z0-9_.$-]+]]: bf16):
// CHECK: [[CST_0:%[a-zA-Z0-9_.$-]+]] = arith.constant 1.600000e+01 : f32
// CHECK: [[V5:%[a-zA-Z0-9_.$-]+]] = arith.divf [[IN]], [[CST_0]] : f32
// CHECK: [[V6:%[a-zA-Z0-9_.$-]+]] = arith.truncf [[V5]] : f32 to bf16
// CHECK: linalg.yield [[V6]] : bf16
// CHECK: } -> tensor<8xbf16>
// CHECK: [[EXPANDED:%[a-zA-Z0-9_.$-]+]] = tensor.expand_shape [[V4]] {{\[\[}}0, 1]] output_shape [8, 1] : tensor<8xbf16> into tensor<8x1xbf16>
// CHECK: return [[EXPANDED]] : tensor<8x1xbf16>
func.func @reduce_mean_bf16(%a0: tensor<8x16xbf16>) -> tensor<8x1xbf16> {
  %0 = mindir.reduce_mean %a0 {axes = array<i64: 1>, keep_dims = true} : (tensor<8x16xbf16>) -> tensor<8x1xbf16>
  return %0 : tensor<8x1xbf16>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[MAP1:map[0-9]*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[MAP2:map[0-9]*]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @reduce_mean_i32(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<8x16xi32>) -> tensor<8xi32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<8xi64>
// CHECK: [[C0_I64:%[a-zA-Z0-9_.$-]+]] = arith.constant 0 : i64
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.fill ins([[C0_I64]] : i64) outs([[V0]] : tensor<8xi64>) -> tensor<8xi64>
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP1]]], iterator_types = ["parallel", "reduction"]} ins([[ARG0]] : tensor<8x16xi32>) outs([[V1]] : tensor<8xi64>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: i32, [[OUT:%[a-zA-Z0-9_.$-]+]]: i64):
// CHECK: [[V5:%[a-zA-Z0-9_.$-]+]] = arith.extsi [[IN]] : i32 to i64
// CHECK: [[V6:%[a-zA-Z0-9_.$-]+]] = arith.addi [[V5]], [[OUT]] : i64
// CHECK: linalg.yield [[V6]] : i64
// CHECK: } -> tensor<8xi64>
// CHECK: [[V3:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<8xi32>
// CHECK: [[V4:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP2]], #[[MAP2]]], iterator_types = ["parallel"]} ins([[V2]] : tensor<8xi64>) outs([[V3]] : tensor<8xi32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: i64, [[OUT:%[a-zA-Z0-9_.$-]+]]: i32):
// CHECK: [[C16_I64:%[a-zA-Z0-9_.$-]+]] = arith.constant 16 : i64
// CHECK: [[V5:%[a-zA-Z0-9_.$-]+]] = arith.divsi [[IN]], [[C16_I64]] : i64
// CHECK: [[V6:%[a-zA-Z0-9_.$-]+]] = arith.trunci [[V5]] : i64 to i32
// CHECK: linalg.yield [[V6]] : i32
// CHECK: } -> tensor<8xi32>
// CHECK: return [[V4]] : tensor<8xi32>
func.func @reduce_mean_i32(%a0: tensor<8x16xi32>) -> tensor<8xi32> {
  %0 = mindir.reduce_mean %a0 {axes = array<i64: 1>} : (tensor<8x16xi32>) -> tensor<8xi32>
  return %0 : tensor<8xi32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[MAP1:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-LABEL: func.func @reduce_max(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<2x3x4xf32>) -> tensor<3xf32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<3xf32>
// CHECK: [[CST:%[a-zA-Z0-9_.$-]+]] = arith.constant 0xFF800000 : f32
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.fill ins([[CST]] : f32) outs([[V0]] : tensor<3xf32>) -> tensor<3xf32>
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP1]]], iterator_types = ["reduction", "parallel", "reduction"]} ins([[ARG0]] : tensor<2x3x4xf32>) outs([[V1]] : tensor<3xf32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT:%[a-zA-Z0-9_.$-]+]]: f32):
// CHECK: [[V3:%[a-zA-Z0-9_.$-]+]] = arith.maximumf [[IN]], [[OUT]] : f32
// CHECK: linalg.yield [[V3]] : f32
// CHECK: } -> tensor<3xf32>
// CHECK: return [[V2]] : tensor<3xf32>
func.func @reduce_max(%a0: tensor<2x3x4xf32>) -> tensor<3xf32> {
  %0 = mindir.reduce_max %a0 {axes = array<i64: 0, 2>} : (tensor<2x3x4xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[MAP1:map[0-9]*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @reduce_max_i8(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<5x7xi8>) -> tensor<5xi8> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<5xi8>
// CHECK: [[CM128_I8:%[a-zA-Z0-9_.$-]+]] = arith.constant -128 : i8
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.fill ins([[CM128_I8]] : i8) outs([[V0]] : tensor<5xi8>) -> tensor<5xi8>
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP1]]], iterator_types = ["parallel", "reduction"]} ins([[ARG0]] : tensor<5x7xi8>) outs([[V1]] : tensor<5xi8>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: i8, [[OUT:%[a-zA-Z0-9_.$-]+]]: i8):
// CHECK: [[V3:%[a-zA-Z0-9_.$-]+]] = arith.maxsi [[IN]], [[OUT]] : i8
// CHECK: linalg.yield [[V3]] : i8
// CHECK: } -> tensor<5xi8>
// CHECK: return [[V2]] : tensor<5xi8>
func.func @reduce_max_i8(%a0: tensor<5x7xi8>) -> tensor<5xi8> {
  %0 = mindir.reduce_max %a0 {axes = array<i64: 1>} : (tensor<5x7xi8>) -> tensor<5xi8>
  return %0 : tensor<5xi8>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[MAP1:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @reduce_min(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<2x3x4xf32>) -> tensor<2x3xf32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<2x3xf32>
// CHECK: [[CST:%[a-zA-Z0-9_.$-]+]] = arith.constant 0x7F800000 : f32
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.fill ins([[CST]] : f32) outs([[V0]] : tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP1]]], iterator_types = ["parallel", "parallel", "reduction"]} ins([[ARG0]] : tensor<2x3x4xf32>) outs([[V1]] : tensor<2x3xf32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT:%[a-zA-Z0-9_.$-]+]]: f32):
// CHECK: [[V3:%[a-zA-Z0-9_.$-]+]] = arith.minimumf [[IN]], [[OUT]] : f32
// CHECK: linalg.yield [[V3]] : f32
// CHECK: } -> tensor<2x3xf32>
// CHECK: return [[V2]] : tensor<2x3xf32>
func.func @reduce_min(%a0: tensor<2x3x4xf32>) -> tensor<2x3xf32> {
  %0 = mindir.reduce_min %a0 {axes = array<i64: 2>} : (tensor<2x3x4xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[MAP1:map[0-9]*]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @reduce_min_i64(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<5x7xi64>) -> tensor<i64> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<i64>
// CHECK: [[C9223372036854775807_I64:%[a-zA-Z0-9_.$-]+]] = arith.constant 9223372036854775807 : i64
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.fill ins([[C9223372036854775807_I64]] : i64) outs([[V0]] : tensor<i64>) -> tensor<i64>
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP1]]], iterator_types = ["reduction", "reduction"]} ins([[ARG0]] : tensor<5x7xi64>) outs([[V1]] : tensor<i64>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: i64, [[OUT:%[a-zA-Z0-9_.$-]+]]: i64):
// CHECK: [[V3:%[a-zA-Z0-9_.$-]+]] = arith.minsi [[IN]], [[OUT]] : i64
// CHECK: linalg.yield [[V3]] : i64
// CHECK: } -> tensor<i64>
// CHECK: return [[V2]] : tensor<i64>
func.func @reduce_min_i64(%a0: tensor<5x7xi64>) -> tensor<i64> {
  %0 = mindir.reduce_min %a0 : (tensor<5x7xi64>) -> tensor<i64>
  return %0 : tensor<i64>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[MAP1:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @reduce_prod(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<2x3x4xf32>) -> tensor<2x3xf32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<2x3xf32>
// CHECK: [[CST:%[a-zA-Z0-9_.$-]+]] = arith.constant 1.000000e+00 : f32
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.fill ins([[CST]] : f32) outs([[V0]] : tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP1]]], iterator_types = ["parallel", "parallel", "reduction"]} ins([[ARG0]] : tensor<2x3x4xf32>) outs([[V1]] : tensor<2x3xf32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT:%[a-zA-Z0-9_.$-]+]]: f32):
// CHECK: [[V3:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[IN]], [[OUT]] : f32
// CHECK: linalg.yield [[V3]] : f32
// CHECK: } -> tensor<2x3xf32>
// CHECK: return [[V2]] : tensor<2x3xf32>
func.func @reduce_prod(%a0: tensor<2x3x4xf32>) -> tensor<2x3xf32> {
  %0 = mindir.reduce_prod %a0 {axes = array<i64: -1>} : (tensor<2x3x4xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[MAP1:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @argmax(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<2x3x4xf32>) -> tensor<2x3xi32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<2x3xf32>
// CHECK: [[CST:%[a-zA-Z0-9_.$-]+]] = arith.constant 0xFF800000 : f32
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.fill ins([[CST]] : f32) outs([[V0]] : tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<2x3xi32>
// CHECK: [[C0_I32:%[a-zA-Z0-9_.$-]+]] = arith.constant 0 : i32
// CHECK: [[V3:%[a-zA-Z0-9_.$-]+]] = linalg.fill ins([[C0_I32]] : i32) outs([[V2]] : tensor<2x3xi32>) -> tensor<2x3xi32>
// CHECK: [[V4:%[a-zA-Z0-9_.$-]+]]:2 = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP1]], #[[MAP1]]], iterator_types = ["parallel", "parallel", "reduction"]} ins([[ARG0]] : tensor<2x3x4xf32>) outs([[V1]], [[V3]] : tensor<2x3xf32>, tensor<2x3xi32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT_0:%[a-zA-Z0-9_.$-]+]]: i32):
// CHECK: [[V5:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[IN]], [[OUT]] : f32
// CHECK: [[V6:%[a-zA-Z0-9_.$-]+]] = arith.cmpf uno, [[IN]], [[IN]] : f32
// CHECK: [[V7:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ord, [[OUT]], [[OUT]] : f32
// CHECK: [[V8:%[a-zA-Z0-9_.$-]+]] = arith.andi [[V6]], [[V7]] : i1
// CHECK: [[V9:%[a-zA-Z0-9_.$-]+]] = arith.ori [[V5]], [[V8]] : i1
// CHECK: [[V10:%[a-zA-Z0-9_.$-]+]] = linalg.index 2 : index
// CHECK: [[V11:%[a-zA-Z0-9_.$-]+]] = arith.index_cast [[V10]] : index to i32
// CHECK: [[V12:%[a-zA-Z0-9_.$-]+]] = arith.select [[V9]], [[IN]], [[OUT]] : f32
// CHECK: [[V13:%[a-zA-Z0-9_.$-]+]] = arith.select [[V9]], [[V11]], [[OUT_0]] : i32
// CHECK: linalg.yield [[V12]], [[V13]] : f32, i32
// CHECK: } -> (tensor<2x3xf32>, tensor<2x3xi32>)
// CHECK: return [[V4]]#1 : tensor<2x3xi32>
func.func @argmax(%a0: tensor<2x3x4xf32>) -> tensor<2x3xi32> {
  %0 = mindir.argmax %a0 : (tensor<2x3x4xf32>) -> tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[MAP1:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @argmax_keep_dims(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<2x3x4xf32>) -> tensor<2x1x4xi32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<2x4xf32>
// CHECK: [[CST:%[a-zA-Z0-9_.$-]+]] = arith.constant 0xFF800000 : f32
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.fill ins([[CST]] : f32) outs([[V0]] : tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<2x4xi32>
// CHECK: [[C0_I32:%[a-zA-Z0-9_.$-]+]] = arith.constant 0 : i32
// CHECK: [[V3:%[a-zA-Z0-9_.$-]+]] = linalg.fill ins([[C0_I32]] : i32) outs([[V2]] : tensor<2x4xi32>) -> tensor<2x4xi32>
// CHECK: [[V4:%[a-zA-Z0-9_.$-]+]]:2 = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP1]], #[[MAP1]]], iterator_types = ["parallel", "reduction", "parallel"]} ins([[ARG0]] : tensor<2x3x4xf32>) outs([[V1]], [[V3]] : tensor<2x4xf32>, tensor<2x4xi32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT_0:%[a-zA-Z0-9_.$-]+]]: i32):
// CHECK: [[V5:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[IN]], [[OUT]] : f32
// CHECK: [[V6:%[a-zA-Z0-9_.$-]+]] = arith.cmpf uno, [[IN]], [[IN]] : f32
// CHECK: [[V7:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ord, [[OUT]], [[OUT]] : f32
// CHECK: [[V8:%[a-zA-Z0-9_.$-]+]] = arith.andi [[V6]], [[V7]] : i1
// CHECK: [[V9:%[a-zA-Z0-9_.$-]+]] = arith.ori [[V5]], [[V8]] : i1
// CHECK: [[V10:%[a-zA-Z0-9_.$-]+]] = linalg.index 1 : index
// CHECK: [[V11:%[a-zA-Z0-9_.$-]+]] = arith.index_cast [[V10]] : index to i32
// CHECK: [[V12:%[a-zA-Z0-9_.$-]+]] = arith.select [[V9]], [[IN]], [[OUT]] : f32
// CHECK: [[V13:%[a-zA-Z0-9_.$-]+]] = arith.select [[V9]], [[V11]], [[OUT_0]] : i32
// CHECK: linalg.yield [[V12]], [[V13]] : f32, i32
// CHECK: } -> (tensor<2x4xf32>, tensor<2x4xi32>)
// CHECK: [[EXPANDED:%[a-zA-Z0-9_.$-]+]] = tensor.expand_shape [[V4]]#1 {{\[\[}}0], [1, 2]] output_shape [2, 1, 4] : tensor<2x4xi32> into tensor<2x1x4xi32>
// CHECK: return [[EXPANDED]] : tensor<2x1x4xi32>
func.func @argmax_keep_dims(%a0: tensor<2x3x4xf32>) -> tensor<2x1x4xi32> {
  %0 = mindir.argmax %a0 {axis = 1 : i64, keep_dims = true} : (tensor<2x3x4xf32>) -> tensor<2x1x4xi32>
  return %0 : tensor<2x1x4xi32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[MAP1:map[0-9]*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @argmax_i32(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<5x7xi32>) -> tensor<7xi32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<7xi32>
// CHECK: [[CM2147483648_I32:%[a-zA-Z0-9_.$-]+]] = arith.constant -2147483648 : i32
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.fill ins([[CM2147483648_I32]] : i32) outs([[V0]] : tensor<7xi32>) -> tensor<7xi32>
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<7xi32>
// CHECK: [[C0_I32:%[a-zA-Z0-9_.$-]+]] = arith.constant 0 : i32
// CHECK: [[V3:%[a-zA-Z0-9_.$-]+]] = linalg.fill ins([[C0_I32]] : i32) outs([[V2]] : tensor<7xi32>) -> tensor<7xi32>
// CHECK: [[V4:%[a-zA-Z0-9_.$-]+]]:2 = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP1]], #[[MAP1]]], iterator_types = ["reduction", "parallel"]} ins([[ARG0]] : tensor<5x7xi32>) outs([[V1]], [[V3]] : tensor<7xi32>, tensor<7xi32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: i32, [[OUT:%[a-zA-Z0-9_.$-]+]]: i32, [[OUT_0:%[a-zA-Z0-9_.$-]+]]: i32):
// CHECK: [[V5:%[a-zA-Z0-9_.$-]+]] = arith.cmpi sgt, [[IN]], [[OUT]] : i32
// CHECK: [[V6:%[a-zA-Z0-9_.$-]+]] = linalg.index 0 : index
// CHECK: [[V7:%[a-zA-Z0-9_.$-]+]] = arith.index_cast [[V6]] : index to i32
// CHECK: [[V8:%[a-zA-Z0-9_.$-]+]] = arith.select [[V5]], [[IN]], [[OUT]] : i32
// CHECK: [[V9:%[a-zA-Z0-9_.$-]+]] = arith.select [[V5]], [[V7]], [[OUT_0]] : i32
// CHECK: linalg.yield [[V8]], [[V9]] : i32, i32
// CHECK: } -> (tensor<7xi32>, tensor<7xi32>)
// CHECK: return [[V4]]#1 : tensor<7xi32>
func.func @argmax_i32(%a0: tensor<5x7xi32>) -> tensor<7xi32> {
  %0 = mindir.argmax %a0 {axis = 0 : i64} : (tensor<5x7xi32>) -> tensor<7xi32>
  return %0 : tensor<7xi32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[MAP1:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-LABEL: func.func @argmin(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<2x3x4xf32>) -> tensor<3x4xi32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<3x4xf32>
// CHECK: [[CST:%[a-zA-Z0-9_.$-]+]] = arith.constant 0x7F800000 : f32
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.fill ins([[CST]] : f32) outs([[V0]] : tensor<3x4xf32>) -> tensor<3x4xf32>
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<3x4xi32>
// CHECK: [[C0_I32:%[a-zA-Z0-9_.$-]+]] = arith.constant 0 : i32
// CHECK: [[V3:%[a-zA-Z0-9_.$-]+]] = linalg.fill ins([[C0_I32]] : i32) outs([[V2]] : tensor<3x4xi32>) -> tensor<3x4xi32>
// CHECK: [[V4:%[a-zA-Z0-9_.$-]+]]:2 = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP1]], #[[MAP1]]], iterator_types = ["reduction", "parallel", "parallel"]} ins([[ARG0]] : tensor<2x3x4xf32>) outs([[V1]], [[V3]] : tensor<3x4xf32>, tensor<3x4xi32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT_0:%[a-zA-Z0-9_.$-]+]]: i32):
// CHECK: [[V5:%[a-zA-Z0-9_.$-]+]] = arith.cmpf olt, [[IN]], [[OUT]] : f32
// CHECK: [[V6:%[a-zA-Z0-9_.$-]+]] = arith.cmpf uno, [[IN]], [[IN]] : f32
// CHECK: [[V7:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ord, [[OUT]], [[OUT]] : f32
// CHECK: [[V8:%[a-zA-Z0-9_.$-]+]] = arith.andi [[V6]], [[V7]] : i1
// CHECK: [[V9:%[a-zA-Z0-9_.$-]+]] = arith.ori [[V5]], [[V8]] : i1
// CHECK: [[V10:%[a-zA-Z0-9_.$-]+]] = linalg.index 0 : index
// CHECK: [[V11:%[a-zA-Z0-9_.$-]+]] = arith.index_cast [[V10]] : index to i32
// CHECK: [[V12:%[a-zA-Z0-9_.$-]+]] = arith.select [[V9]], [[IN]], [[OUT]] : f32
// CHECK: [[V13:%[a-zA-Z0-9_.$-]+]] = arith.select [[V9]], [[V11]], [[OUT_0]] : i32
// CHECK: linalg.yield [[V12]], [[V13]] : f32, i32
// CHECK: } -> (tensor<3x4xf32>, tensor<3x4xi32>)
// CHECK: return [[V4]]#1 : tensor<3x4xi32>
func.func @argmin(%a0: tensor<2x3x4xf32>) -> tensor<3x4xi32> {
  %0 = mindir.argmin %a0 {axis = 0 : i64} : (tensor<2x3x4xf32>) -> tensor<3x4xi32>
  return %0 : tensor<3x4xi32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[MAP1:map[0-9]*]] = affine_map<(d0) -> ()>
// CHECK-LABEL: func.func @argmin_1d(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<9xf64>) -> tensor<i32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<f64>
// CHECK: [[CST:%[a-zA-Z0-9_.$-]+]] = arith.constant 0x7FF0000000000000 : f64
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.fill ins([[CST]] : f64) outs([[V0]] : tensor<f64>) -> tensor<f64>
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<i32>
// CHECK: [[C0_I32:%[a-zA-Z0-9_.$-]+]] = arith.constant 0 : i32
// CHECK: [[V3:%[a-zA-Z0-9_.$-]+]] = linalg.fill ins([[C0_I32]] : i32) outs([[V2]] : tensor<i32>) -> tensor<i32>
// CHECK: [[V4:%[a-zA-Z0-9_.$-]+]]:2 = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP1]], #[[MAP1]]], iterator_types = ["reduction"]} ins([[ARG0]] : tensor<9xf64>) outs([[V1]], [[V3]] : tensor<f64>, tensor<i32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: f64, [[OUT:%[a-zA-Z0-9_.$-]+]]: f64, [[OUT_0:%[a-zA-Z0-9_.$-]+]]: i32):
// CHECK: [[V5:%[a-zA-Z0-9_.$-]+]] = arith.cmpf olt, [[IN]], [[OUT]] : f64
// CHECK: [[V6:%[a-zA-Z0-9_.$-]+]] = arith.cmpf uno, [[IN]], [[IN]] : f64
// CHECK: [[V7:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ord, [[OUT]], [[OUT]] : f64
// CHECK: [[V8:%[a-zA-Z0-9_.$-]+]] = arith.andi [[V6]], [[V7]] : i1
// CHECK: [[V9:%[a-zA-Z0-9_.$-]+]] = arith.ori [[V5]], [[V8]] : i1
// CHECK: [[V10:%[a-zA-Z0-9_.$-]+]] = linalg.index 0 : index
// CHECK: [[V11:%[a-zA-Z0-9_.$-]+]] = arith.index_cast [[V10]] : index to i32
// CHECK: [[V12:%[a-zA-Z0-9_.$-]+]] = arith.select [[V9]], [[IN]], [[OUT]] : f64
// CHECK: [[V13:%[a-zA-Z0-9_.$-]+]] = arith.select [[V9]], [[V11]], [[OUT_0]] : i32
// CHECK: linalg.yield [[V12]], [[V13]] : f64, i32
// CHECK: } -> (tensor<f64>, tensor<i32>)
// CHECK: return [[V4]]#1 : tensor<i32>
func.func @argmin_1d(%a0: tensor<9xf64>) -> tensor<i32> {
  %0 = mindir.argmin %a0 : (tensor<9xf64>) -> tensor<i32>
  return %0 : tensor<i32>
}

// -----

// A float sum over at least 8192 elements accumulates in f64 (a long f32 sum
// drifts; numpy's is pairwise), then rounds once to f32.
// CHECK-LABEL: func.func @long_sum
//       CHECK:   %[[Z:.+]] = arith.constant 0.000000e+00 : f64
//       CHECK:   %[[ACC:.+]] = linalg.fill ins(%[[Z]] : f64) outs(%{{.+}} : tensor<4xf64>)
//       CHECK:   %[[S:.+]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%{{.+}} : tensor<4x8192xf32>) outs(%[[ACC]] : tensor<4xf64>)
//       CHECK:     %[[W:.+]] = arith.extf %{{.+}} : f32 to f64
//       CHECK:     arith.addf %[[W]], %{{.+}} : f64
//       CHECK:   linalg.generic {{.*}} ins(%[[S]] : tensor<4xf64>) outs(%{{.+}} : tensor<4xf32>)
//       CHECK:     arith.truncf %{{.+}} : f64 to f32
func.func @long_sum(%x: tensor<4x8192xf32>) -> tensor<4xf32> {
  %y = mindir.reduce_sum %x {axes = array<i64: 1>} : (tensor<4x8192xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// Below 8192 elements the sum stays in f32.
// CHECK-LABEL: func.func @short_sum
//       CHECK:   linalg.generic {{.*}} outs(%{{.+}} : tensor<4xf32>)
//   CHECK-NOT:   f64
func.func @short_sum(%x: tensor<4x8191xf32>) -> tensor<4xf32> {
  %y = mindir.reduce_sum %x {axes = array<i64: 1>} : (tensor<4x8191xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
