// RUN: ms-opt %s --convert-mindir-to-linalg --split-input-file | FileCheck %s
//
// constant -> arith.constant; fill / zeros_like / ones_like -> linalg.fill;
// arange -> linalg.generic on linalg.index (start + i * delta in f64);
// random_uniform / random_normal -> linalg.generic hashing the linear index with
// seed-derived keys (three murmur3 fmix32 rounds), then uniform bits -> float
// (and Box-Muller for normal).

// CHECK-LABEL: func.func @constant(
// CHECK-SAME: ) -> tensor<2x2xf32> {
// CHECK: [[CST:%[a-zA-Z0-9_.$-]+]] = arith.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK: return [[CST]] : tensor<2x2xf32>
func.func @constant() -> tensor<2x2xf32> {
  %0 = mindir.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

// CHECK-LABEL: func.func @constant_i1(
// CHECK-SAME: ) -> tensor<3xi1> {
// CHECK: [[CST:%[a-zA-Z0-9_.$-]+]] = arith.constant dense<[true, false, true]> : tensor<3xi1>
// CHECK: return [[CST]] : tensor<3xi1>
func.func @constant_i1() -> tensor<3xi1> {
  %0 = mindir.constant dense<[true, false, true]> : tensor<3xi1>
  return %0 : tensor<3xi1>
}

// -----

// CHECK-LABEL: func.func @fill(
// CHECK-SAME: ) -> tensor<3x4xf32> {
// CHECK: [[CST:%[a-zA-Z0-9_.$-]+]] = arith.constant 2.500000e+00 : f32
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<3x4xf32>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.fill ins([[CST]] : f32) outs([[V0]] : tensor<3x4xf32>) -> tensor<3x4xf32>
// CHECK: return [[V1]] : tensor<3x4xf32>
func.func @fill() -> tensor<3x4xf32> {
  %0 = mindir.fill 2.5 : f32 : tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// CHECK-LABEL: func.func @fill_i64(
// CHECK-SAME: ) -> tensor<5xi64> {
// CHECK: [[CM7_I64:%[a-zA-Z0-9_.$-]+]] = arith.constant -7 : i64
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<5xi64>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.fill ins([[CM7_I64]] : i64) outs([[V0]] : tensor<5xi64>) -> tensor<5xi64>
// CHECK: return [[V1]] : tensor<5xi64>
func.func @fill_i64() -> tensor<5xi64> {
  %0 = mindir.fill -7 : i64 : tensor<5xi64>
  return %0 : tensor<5xi64>
}

// -----

// CHECK-LABEL: func.func @zeros_like(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<3x4xf16>) -> tensor<3x4xf16> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<3x4xf16>
// CHECK: [[CST:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f16
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.fill ins([[CST]] : f16) outs([[V0]] : tensor<3x4xf16>) -> tensor<3x4xf16>
// CHECK: return [[V1]] : tensor<3x4xf16>
func.func @zeros_like(%x: tensor<3x4xf16>) -> tensor<3x4xf16> {
  %0 = mindir.zeros_like %x : tensor<3x4xf16>
  return %0 : tensor<3x4xf16>
}

// -----

// CHECK-LABEL: func.func @ones_like(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<3x4xi32>) -> tensor<3x4xi32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<3x4xi32>
// CHECK: [[C1_I32:%[a-zA-Z0-9_.$-]+]] = arith.constant 1 : i32
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.fill ins([[C1_I32]] : i32) outs([[V0]] : tensor<3x4xi32>) -> tensor<3x4xi32>
// CHECK: return [[V1]] : tensor<3x4xi32>
func.func @ones_like(%x: tensor<3x4xi32>) -> tensor<3x4xi32> {
  %0 = mindir.ones_like %x : tensor<3x4xi32>
  return %0 : tensor<3x4xi32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @arange(
// CHECK-SAME: ) -> tensor<4xf32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4xf32>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]]], iterator_types = ["parallel"]} outs([[V0]] : tensor<4xf32>) {
// CHECK: ^bb0([[OUT:%[a-zA-Z0-9_.$-]+]]: f32):
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = linalg.index 0 : index
// CHECK: [[V3:%[a-zA-Z0-9_.$-]+]] = arith.index_cast [[V2]] : index to i64
// CHECK: [[CST:%[a-zA-Z0-9_.$-]+]] = arith.constant 1.000000e+00 : f64
// CHECK: [[V4:%[a-zA-Z0-9_.$-]+]] = arith.sitofp [[V3]] : i64 to f64
// CHECK: [[CST_0:%[a-zA-Z0-9_.$-]+]] = arith.constant 2.500000e-01 : f64
// CHECK: [[V5:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V4]], [[CST_0]] : f64
// CHECK: [[V6:%[a-zA-Z0-9_.$-]+]] = arith.addf [[CST]], [[V5]] : f64
// CHECK: [[V7:%[a-zA-Z0-9_.$-]+]] = arith.truncf [[V6]] : f64 to f32
// CHECK: linalg.yield [[V7]] : f32
// CHECK: } -> tensor<4xf32>
// CHECK: return [[V1]] : tensor<4xf32>
func.func @arange() -> tensor<4xf32> {
  %0 = mindir.arange {start = 1.0 : f64, limit = 2.0 : f64, delta = 0.25 : f64} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @arange_i32(
// CHECK-SAME: ) -> tensor<4xi32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4xi32>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]]], iterator_types = ["parallel"]} outs([[V0]] : tensor<4xi32>) {
// CHECK: ^bb0([[OUT:%[a-zA-Z0-9_.$-]+]]: i32):
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = linalg.index 0 : index
// CHECK: [[V3:%[a-zA-Z0-9_.$-]+]] = arith.index_cast [[V2]] : index to i64
// CHECK: [[CST:%[a-zA-Z0-9_.$-]+]] = arith.constant 1.000000e+01 : f64
// CHECK: [[V4:%[a-zA-Z0-9_.$-]+]] = arith.sitofp [[V3]] : i64 to f64
// CHECK: [[CST_0:%[a-zA-Z0-9_.$-]+]] = arith.constant -3.000000e+00 : f64
// CHECK: [[V5:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V4]], [[CST_0]] : f64
// CHECK: [[V6:%[a-zA-Z0-9_.$-]+]] = arith.addf [[CST]], [[V5]] : f64
// CHECK: [[V7:%[a-zA-Z0-9_.$-]+]] = arith.fptosi [[V6]] : f64 to i32
// CHECK: linalg.yield [[V7]] : i32
// CHECK: } -> tensor<4xi32>
// CHECK: return [[V1]] : tensor<4xi32>
func.func @arange_i32() -> tensor<4xi32> {
  %0 = mindir.arange {start = 10.0 : f64, limit = 0.0 : f64, delta = -3.0 : f64} : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @random_uniform(
// CHECK-SAME: ) -> tensor<2x3xf32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<2x3xf32>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]]], iterator_types = ["parallel", "parallel"]} outs([[V0]] : tensor<2x3xf32>) {
// CHECK: ^bb0([[OUT:%[a-zA-Z0-9_.$-]+]]: f32):
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = linalg.index 0 : index
// CHECK: [[V3:%[a-zA-Z0-9_.$-]+]] = linalg.index 1 : index
// CHECK: [[C3:%[a-zA-Z0-9_.$-]+]] = arith.constant 3 : index
// CHECK: [[V4:%[a-zA-Z0-9_.$-]+]] = arith.muli [[V2]], [[C3]] : index
// CHECK: [[V5:%[a-zA-Z0-9_.$-]+]] = arith.addi [[V4]], [[V3]] : index
// CHECK: [[V6:%[a-zA-Z0-9_.$-]+]] = arith.index_cast [[V5]] : index to i32
// CHECK: [[CM1599513850_I32:%[a-zA-Z0-9_.$-]+]] = arith.constant -1599513850 : i32
// CHECK: [[V7:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V6]], [[CM1599513850_I32]] : i32
// CHECK: [[C16_I32:%[a-zA-Z0-9_.$-]+]] = arith.constant 16 : i32
// CHECK: [[V8:%[a-zA-Z0-9_.$-]+]] = arith.shrui [[V7]], [[C16_I32]] : i32
// CHECK: [[V9:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V7]], [[V8]] : i32
// CHECK: [[CM2048144789_I32:%[a-zA-Z0-9_.$-]+]] = arith.constant -2048144789 : i32
// CHECK: [[V10:%[a-zA-Z0-9_.$-]+]] = arith.muli [[V9]], [[CM2048144789_I32]] : i32
// CHECK: [[C13_I32:%[a-zA-Z0-9_.$-]+]] = arith.constant 13 : i32
// CHECK: [[V11:%[a-zA-Z0-9_.$-]+]] = arith.shrui [[V10]], [[C13_I32]] : i32
// CHECK: [[V12:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V10]], [[V11]] : i32
// CHECK: [[CM1028477387_I32:%[a-zA-Z0-9_.$-]+]] = arith.constant -1028477387 : i32
// CHECK: [[V13:%[a-zA-Z0-9_.$-]+]] = arith.muli [[V12]], [[CM1028477387_I32]] : i32
// CHECK: [[C16_I32_0:%[a-zA-Z0-9_.$-]+]] = arith.constant 16 : i32
// CHECK: [[V14:%[a-zA-Z0-9_.$-]+]] = arith.shrui [[V13]], [[C16_I32_0]] : i32
// CHECK: [[V15:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V13]], [[V14]] : i32
// CHECK: [[CM1817661424_I32:%[a-zA-Z0-9_.$-]+]] = arith.constant -1817661424 : i32
// CHECK: [[V16:%[a-zA-Z0-9_.$-]+]] = arith.addi [[V15]], [[CM1817661424_I32]] : i32
// CHECK: [[C16_I32_1:%[a-zA-Z0-9_.$-]+]] = arith.constant 16 : i32
// CHECK: [[V17:%[a-zA-Z0-9_.$-]+]] = arith.shrui [[V16]], [[C16_I32_1]] : i32
// CHECK: [[V18:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V16]], [[V17]] : i32
// CHECK: [[CM2048144789_I32_2:%[a-zA-Z0-9_.$-]+]] = arith.constant -2048144789 : i32
// CHECK: [[V19:%[a-zA-Z0-9_.$-]+]] = arith.muli [[V18]], [[CM2048144789_I32_2]] : i32
// CHECK: [[C13_I32_3:%[a-zA-Z0-9_.$-]+]] = arith.constant 13 : i32
// CHECK: [[V20:%[a-zA-Z0-9_.$-]+]] = arith.shrui [[V19]], [[C13_I32_3]] : i32
// CHECK: [[V21:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V19]], [[V20]] : i32
// CHECK: [[CM1028477387_I32_4:%[a-zA-Z0-9_.$-]+]] = arith.constant -1028477387 : i32
// CHECK: [[V22:%[a-zA-Z0-9_.$-]+]] = arith.muli [[V21]], [[CM1028477387_I32_4]] : i32
// CHECK: [[C16_I32_5:%[a-zA-Z0-9_.$-]+]] = arith.constant 16 : i32
// CHECK: [[V23:%[a-zA-Z0-9_.$-]+]] = arith.shrui [[V22]], [[C16_I32_5]] : i32
// CHECK: [[V24:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V22]], [[V23]] : i32
// CHECK: [[C63233898_I32:%[a-zA-Z0-9_.$-]+]] = arith.constant 63233898 : i32
// CHECK: [[V25:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V24]], [[C63233898_I32]] : i32
// CHECK: [[C16_I32_6:%[a-zA-Z0-9_.$-]+]] = arith.constant 16 : i32
// CHECK: [[V26:%[a-zA-Z0-9_.$-]+]] = arith.shrui [[V25]], [[C16_I32_6]] : i32
// CHECK: [[V27:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V25]], [[V26]] : i32
// CHECK: [[CM2048144789_I32_7:%[a-zA-Z0-9_.$-]+]] = arith.constant -2048144789 : i32
// CHECK: [[V28:%[a-zA-Z0-9_.$-]+]] = arith.muli [[V27]], [[CM2048144789_I32_7]] : i32
// CHECK: [[C13_I32_8:%[a-zA-Z0-9_.$-]+]] = arith.constant 13 : i32
// CHECK: [[V29:%[a-zA-Z0-9_.$-]+]] = arith.shrui [[V28]], [[C13_I32_8]] : i32
// CHECK: [[V30:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V28]], [[V29]] : i32
// CHECK: [[CM1028477387_I32_9:%[a-zA-Z0-9_.$-]+]] = arith.constant -1028477387 : i32
// CHECK: [[V31:%[a-zA-Z0-9_.$-]+]] = arith.muli [[V30]], [[CM1028477387_I32_9]] : i32
// CHECK: [[C16_I32_10:%[a-zA-Z0-9_.$-]+]] = arith.constant 16 : i32
// CHECK: [[V32:%[a-zA-Z0-9_.$-]+]] = arith.shrui [[V31]], [[C16_I32_10]] : i32
// CHECK: [[V33:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V31]], [[V32]] : i32
// CHECK: [[C8_I32:%[a-zA-Z0-9_.$-]+]] = arith.constant 8 : i32
// CHECK: [[V34:%[a-zA-Z0-9_.$-]+]] = arith.shrui [[V33]], [[C8_I32]] : i32
// CHECK: [[V35:%[a-zA-Z0-9_.$-]+]] = arith.uitofp [[V34]] : i32 to f32
// CHECK: [[CST:%[a-zA-Z0-9_.$-]+]] = arith.constant 5.96046448E-8 : f32
// CHECK: [[V36:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V35]], [[CST]] : f32
// CHECK: [[CST_11:%[a-zA-Z0-9_.$-]+]] = arith.constant -1.000000e+00 : f32
// CHECK: [[CST_12:%[a-zA-Z0-9_.$-]+]] = arith.constant 2.000000e+00 : f32
// CHECK: [[V37:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V36]], [[CST_12]] : f32
// CHECK: [[V38:%[a-zA-Z0-9_.$-]+]] = arith.addf [[CST_11]], [[V37]] : f32
// CHECK: [[CST_13:%[a-zA-Z0-9_.$-]+]] = arith.constant 1.000000e+00 : f32
// CHECK: [[V39:%[a-zA-Z0-9_.$-]+]] = arith.cmpf olt, [[V38]], [[CST_13]] : f32
// CHECK: [[CST_14:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.99999994 : f32
// CHECK: [[V40:%[a-zA-Z0-9_.$-]+]] = arith.select [[V39]], [[V38]], [[CST_14]] : f32
// CHECK: linalg.yield [[V40]] : f32
// CHECK: } -> tensor<2x3xf32>
// CHECK: return [[V1]] : tensor<2x3xf32>
func.func @random_uniform() -> tensor<2x3xf32> {
  %0 = mindir.random_uniform {seed = 42 : i64, minval = -1.0 : f64, maxval = 1.0 : f64} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @random_uniform_f16(
// CHECK-SAME: ) -> tensor<5xf16> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<5xf16>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]]], iterator_types = ["parallel"]} outs([[V0]] : tensor<5xf16>) {
// CHECK: ^bb0([[OUT:%[a-zA-Z0-9_.$-]+]]: f16):
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = linalg.index 0 : index
// CHECK: [[V3:%[a-zA-Z0-9_.$-]+]] = arith.index_cast [[V2]] : index to i32
// CHECK: [[C654565011_I32:%[a-zA-Z0-9_.$-]+]] = arith.constant 654565011 : i32
// CHECK: [[V4:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V3]], [[C654565011_I32]] : i32
// CHECK: [[C16_I32:%[a-zA-Z0-9_.$-]+]] = arith.constant 16 : i32
// CHECK: [[V5:%[a-zA-Z0-9_.$-]+]] = arith.shrui [[V4]], [[C16_I32]] : i32
// CHECK: [[V6:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V4]], [[V5]] : i32
// CHECK: [[CM2048144789_I32:%[a-zA-Z0-9_.$-]+]] = arith.constant -2048144789 : i32
// CHECK: [[V7:%[a-zA-Z0-9_.$-]+]] = arith.muli [[V6]], [[CM2048144789_I32]] : i32
// CHECK: [[C13_I32:%[a-zA-Z0-9_.$-]+]] = arith.constant 13 : i32
// CHECK: [[V8:%[a-zA-Z0-9_.$-]+]] = arith.shrui [[V7]], [[C13_I32]] : i32
// CHECK: [[V9:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V7]], [[V8]] : i32
// CHECK: [[CM1028477387_I32:%[a-zA-Z0-9_.$-]+]] = arith.constant -1028477387 : i32
// CHECK: [[V10:%[a-zA-Z0-9_.$-]+]] = arith.muli [[V9]], [[CM1028477387_I32]] : i32
// CHECK: [[C16_I32_0:%[a-zA-Z0-9_.$-]+]] = arith.constant 16 : i32
// CHECK: [[V11:%[a-zA-Z0-9_.$-]+]] = arith.shrui [[V10]], [[C16_I32_0]] : i32
// CHECK: [[V12:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V10]], [[V11]] : i32
// CHECK: [[CM549679477_I32:%[a-zA-Z0-9_.$-]+]] = arith.constant -549679477 : i32
// CHECK: [[V13:%[a-zA-Z0-9_.$-]+]] = arith.addi [[V12]], [[CM549679477_I32]] : i32
// CHECK: [[C16_I32_1:%[a-zA-Z0-9_.$-]+]] = arith.constant 16 : i32
// CHECK: [[V14:%[a-zA-Z0-9_.$-]+]] = arith.shrui [[V13]], [[C16_I32_1]] : i32
// CHECK: [[V15:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V13]], [[V14]] : i32
// CHECK: [[CM2048144789_I32_2:%[a-zA-Z0-9_.$-]+]] = arith.constant -2048144789 : i32
// CHECK: [[V16:%[a-zA-Z0-9_.$-]+]] = arith.muli [[V15]], [[CM2048144789_I32_2]] : i32
// CHECK: [[C13_I32_3:%[a-zA-Z0-9_.$-]+]] = arith.constant 13 : i32
// CHECK: [[V17:%[a-zA-Z0-9_.$-]+]] = arith.shrui [[V16]], [[C13_I32_3]] : i32
// CHECK: [[V18:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V16]], [[V17]] : i32
// CHECK: [[CM1028477387_I32_4:%[a-zA-Z0-9_.$-]+]] = arith.constant -1028477387 : i32
// CHECK: [[V19:%[a-zA-Z0-9_.$-]+]] = arith.muli [[V18]], [[CM1028477387_I32_4]] : i32
// CHECK: [[C16_I32_5:%[a-zA-Z0-9_.$-]+]] = arith.constant 16 : i32
// CHECK: [[V20:%[a-zA-Z0-9_.$-]+]] = arith.shrui [[V19]], [[C16_I32_5]] : i32
// CHECK: [[V21:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V19]], [[V20]] : i32
// CHECK: [[CM1520289333_I32:%[a-zA-Z0-9_.$-]+]] = arith.constant -1520289333 : i32
// CHECK: [[V22:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V21]], [[CM1520289333_I32]] : i32
// CHECK: [[C16_I32_6:%[a-zA-Z0-9_.$-]+]] = arith.constant 16 : i32
// CHECK: [[V23:%[a-zA-Z0-9_.$-]+]] = arith.shrui [[V22]], [[C16_I32_6]] : i32
// CHECK: [[V24:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V22]], [[V23]] : i32
// CHECK: [[CM2048144789_I32_7:%[a-zA-Z0-9_.$-]+]] = arith.constant -2048144789 : i32
// CHECK: [[V25:%[a-zA-Z0-9_.$-]+]] = arith.muli [[V24]], [[CM2048144789_I32_7]] : i32
// CHECK: [[C13_I32_8:%[a-zA-Z0-9_.$-]+]] = arith.constant 13 : i32
// CHECK: [[V26:%[a-zA-Z0-9_.$-]+]] = arith.shrui [[V25]], [[C13_I32_8]] : i32
// CHECK: [[V27:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V25]], [[V26]] : i32
// CHECK: [[CM1028477387_I32_9:%[a-zA-Z0-9_.$-]+]] = arith.constant -1028477387 : i32
// CHECK: [[V28:%[a-zA-Z0-9_.$-]+]] = arith.muli [[V27]], [[CM1028477387_I32_9]] : i32
// CHECK: [[C16_I32_10:%[a-zA-Z0-9_.$-]+]] = arith.constant 16 : i32
// CHECK: [[V29:%[a-zA-Z0-9_.$-]+]] = arith.shrui [[V28]], [[C16_I32_10]] : i32
// CHECK: [[V30:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V28]], [[V29]] : i32
// CHECK: [[C21_I32:%[a-zA-Z0-9_.$-]+]] = arith.constant 21 : i32
// CHECK: [[V31:%[a-zA-Z0-9_.$-]+]] = arith.shrui [[V30]], [[C21_I32]] : i32
// CHECK: [[V32:%[a-zA-Z0-9_.$-]+]] = arith.uitofp [[V31]] : i32 to f32
// CHECK: [[CST:%[a-zA-Z0-9_.$-]+]] = arith.constant 4.8828125E-4 : f32
// CHECK: [[V33:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V32]], [[CST]] : f32
// CHECK: [[CST_11:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f32
// CHECK: [[CST_12:%[a-zA-Z0-9_.$-]+]] = arith.constant 1.000000e+00 : f32
// CHECK: [[V34:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V33]], [[CST_12]] : f32
// CHECK: [[V35:%[a-zA-Z0-9_.$-]+]] = arith.addf [[CST_11]], [[V34]] : f32
// CHECK: [[V36:%[a-zA-Z0-9_.$-]+]] = arith.truncf [[V35]] : f32 to f16
// CHECK: [[CST_13:%[a-zA-Z0-9_.$-]+]] = arith.constant 1.000000e+00 : f16
// CHECK: [[V37:%[a-zA-Z0-9_.$-]+]] = arith.cmpf olt, [[V36]], [[CST_13]] : f16
// CHECK: [[CST_14:%[a-zA-Z0-9_.$-]+]] = arith.constant 9.995110e-01 : f16
// CHECK: [[V38:%[a-zA-Z0-9_.$-]+]] = arith.select [[V37]], [[V36]], [[CST_14]] : f16
// CHECK: linalg.yield [[V38]] : f16
// CHECK: } -> tensor<5xf16>
// CHECK: return [[V1]] : tensor<5xf16>
func.func @random_uniform_f16() -> tensor<5xf16> {
  %0 = mindir.random_uniform {seed = 7 : i64} : tensor<5xf16>
  return %0 : tensor<5xf16>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @random_normal(
// CHECK-SAME: ) -> tensor<2x3xf32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<2x3xf32>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]]], iterator_types = ["parallel", "parallel"]} outs([[V0]] : tensor<2x3xf32>) {
// CHECK: ^bb0([[OUT:%[a-zA-Z0-9_.$-]+]]: f32):
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = linalg.index 0 : index
// CHECK: [[V3:%[a-zA-Z0-9_.$-]+]] = linalg.index 1 : index
// CHECK: [[C3:%[a-zA-Z0-9_.$-]+]] = arith.constant 3 : index
// CHECK: [[V4:%[a-zA-Z0-9_.$-]+]] = arith.muli [[V2]], [[C3]] : index
// CHECK: [[V5:%[a-zA-Z0-9_.$-]+]] = arith.addi [[V4]], [[V3]] : index
// CHECK: [[V6:%[a-zA-Z0-9_.$-]+]] = arith.index_cast [[V5]] : index to i32
// CHECK: [[CST:%[a-zA-Z0-9_.$-]+]] = arith.constant 1.000000e+00 : f32
// CHECK: [[C182059875_I32:%[a-zA-Z0-9_.$-]+]] = arith.constant 182059875 : i32
// CHECK: [[V7:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V6]], [[C182059875_I32]] : i32
// CHECK: [[C16_I32:%[a-zA-Z0-9_.$-]+]] = arith.constant 16 : i32
// CHECK: [[V8:%[a-zA-Z0-9_.$-]+]] = arith.shrui [[V7]], [[C16_I32]] : i32
// CHECK: [[V9:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V7]], [[V8]] : i32
// CHECK: [[CM2048144789_I32:%[a-zA-Z0-9_.$-]+]] = arith.constant -2048144789 : i32
// CHECK: [[V10:%[a-zA-Z0-9_.$-]+]] = arith.muli [[V9]], [[CM2048144789_I32]] : i32
// CHECK: [[C13_I32:%[a-zA-Z0-9_.$-]+]] = arith.constant 13 : i32
// CHECK: [[V11:%[a-zA-Z0-9_.$-]+]] = arith.shrui [[V10]], [[C13_I32]] : i32
// CHECK: [[V12:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V10]], [[V11]] : i32
// CHECK: [[CM1028477387_I32:%[a-zA-Z0-9_.$-]+]] = arith.constant -1028477387 : i32
// CHECK: [[V13:%[a-zA-Z0-9_.$-]+]] = arith.muli [[V12]], [[CM1028477387_I32]] : i32
// CHECK: [[C16_I32_0:%[a-zA-Z0-9_.$-]+]] = arith.constant 16 : i32
// CHECK: [[V14:%[a-zA-Z0-9_.$-]+]] = arith.shrui [[V13]], [[C16_I32_0]] : i32
// CHECK: [[V15:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V13]], [[V14]] : i32
// CHECK: [[C270255354_I32:%[a-zA-Z0-9_.$-]+]] = arith.constant 270255354 : i32
// CHECK: [[V16:%[a-zA-Z0-9_.$-]+]] = arith.addi [[V15]], [[C270255354_I32]] : i32
// CHECK: [[C16_I32_1:%[a-zA-Z0-9_.$-]+]] = arith.constant 16 : i32
// CHECK: [[V17:%[a-zA-Z0-9_.$-]+]] = arith.shrui [[V16]], [[C16_I32_1]] : i32
// CHECK: [[V18:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V16]], [[V17]] : i32
// CHECK: [[CM2048144789_I32_2:%[a-zA-Z0-9_.$-]+]] = arith.constant -2048144789 : i32
// CHECK: [[V19:%[a-zA-Z0-9_.$-]+]] = arith.muli [[V18]], [[CM2048144789_I32_2]] : i32
// CHECK: [[C13_I32_3:%[a-zA-Z0-9_.$-]+]] = arith.constant 13 : i32
// CHECK: [[V20:%[a-zA-Z0-9_.$-]+]] = arith.shrui [[V19]], [[C13_I32_3]] : i32
// CHECK: [[V21:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V19]], [[V20]] : i32
// CHECK: [[CM1028477387_I32_4:%[a-zA-Z0-9_.$-]+]] = arith.constant -1028477387 : i32
// CHECK: [[V22:%[a-zA-Z0-9_.$-]+]] = arith.muli [[V21]], [[CM1028477387_I32_4]] : i32
// CHECK: [[C16_I32_5:%[a-zA-Z0-9_.$-]+]] = arith.constant 16 : i32
// CHECK: [[V23:%[a-zA-Z0-9_.$-]+]] = arith.shrui [[V22]], [[C16_I32_5]] : i32
// CHECK: [[V24:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V22]], [[V23]] : i32
// CHECK: [[CM730674783_I32:%[a-zA-Z0-9_.$-]+]] = arith.constant -730674783 : i32
// CHECK: [[V25:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V24]], [[CM730674783_I32]] : i32
// CHECK: [[C16_I32_6:%[a-zA-Z0-9_.$-]+]] = arith.constant 16 : i32
// CHECK: [[V26:%[a-zA-Z0-9_.$-]+]] = arith.shrui [[V25]], [[C16_I32_6]] : i32
// CHECK: [[V27:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V25]], [[V26]] : i32
// CHECK: [[CM2048144789_I32_7:%[a-zA-Z0-9_.$-]+]] = arith.constant -2048144789 : i32
// CHECK: [[V28:%[a-zA-Z0-9_.$-]+]] = arith.muli [[V27]], [[CM2048144789_I32_7]] : i32
// CHECK: [[C13_I32_8:%[a-zA-Z0-9_.$-]+]] = arith.constant 13 : i32
// CHECK: [[V29:%[a-zA-Z0-9_.$-]+]] = arith.shrui [[V28]], [[C13_I32_8]] : i32
// CHECK: [[V30:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V28]], [[V29]] : i32
// CHECK: [[CM1028477387_I32_9:%[a-zA-Z0-9_.$-]+]] = arith.constant -1028477387 : i32
// CHECK: [[V31:%[a-zA-Z0-9_.$-]+]] = arith.muli [[V30]], [[CM1028477387_I32_9]] : i32
// CHECK: [[C16_I32_10:%[a-zA-Z0-9_.$-]+]] = arith.constant 16 : i32
// CHECK: [[V32:%[a-zA-Z0-9_.$-]+]] = arith.shrui [[V31]], [[C16_I32_10]] : i32
// CHECK: [[V33:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V31]], [[V32]] : i32
// CHECK: [[C8_I32:%[a-zA-Z0-9_.$-]+]] = arith.constant 8 : i32
// CHECK: [[V34:%[a-zA-Z0-9_.$-]+]] = arith.shrui [[V33]], [[C8_I32]] : i32
// CHECK: [[V35:%[a-zA-Z0-9_.$-]+]] = arith.uitofp [[V34]] : i32 to f32
// CHECK: [[CST_11:%[a-zA-Z0-9_.$-]+]] = arith.constant 5.96046448E-8 : f32
// CHECK: [[V36:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V35]], [[CST_11]] : f32
// CHECK: [[V37:%[a-zA-Z0-9_.$-]+]] = arith.subf [[CST]], [[V36]] : f32
// CHECK: [[C1341309151_I32:%[a-zA-Z0-9_.$-]+]] = arith.constant 1341309151 : i32
// CHECK: [[V38:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V6]], [[C1341309151_I32]] : i32
// CHECK: [[C16_I32_12:%[a-zA-Z0-9_.$-]+]] = arith.constant 16 : i32
// CHECK: [[V39:%[a-zA-Z0-9_.$-]+]] = arith.shrui [[V38]], [[C16_I32_12]] : i32
// CHECK: [[V40:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V38]], [[V39]] : i32
// CHECK: [[CM2048144789_I32_13:%[a-zA-Z0-9_.$-]+]] = arith.constant -2048144789 : i32
// CHECK: [[V41:%[a-zA-Z0-9_.$-]+]] = arith.muli [[V40]], [[CM2048144789_I32_13]] : i32
// CHECK: [[C13_I32_14:%[a-zA-Z0-9_.$-]+]] = arith.constant 13 : i32
// CHECK: [[V42:%[a-zA-Z0-9_.$-]+]] = arith.shrui [[V41]], [[C13_I32_14]] : i32
// CHECK: [[V43:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V41]], [[V42]] : i32
// CHECK: [[CM1028477387_I32_15:%[a-zA-Z0-9_.$-]+]] = arith.constant -1028477387 : i32
// CHECK: [[V44:%[a-zA-Z0-9_.$-]+]] = arith.muli [[V43]], [[CM1028477387_I32_15]] : i32
// CHECK: [[C16_I32_16:%[a-zA-Z0-9_.$-]+]] = arith.constant 16 : i32
// CHECK: [[V45:%[a-zA-Z0-9_.$-]+]] = arith.shrui [[V44]], [[C16_I32_16]] : i32
// CHECK: [[V46:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V44]], [[V45]] : i32
// CHECK: [[C1151401728_I32:%[a-zA-Z0-9_.$-]+]] = arith.constant 1151401728 : i32
// CHECK: [[V47:%[a-zA-Z0-9_.$-]+]] = arith.addi [[V46]], [[C1151401728_I32]] : i32
// CHECK: [[C16_I32_17:%[a-zA-Z0-9_.$-]+]] = arith.constant 16 : i32
// CHECK: [[V48:%[a-zA-Z0-9_.$-]+]] = arith.shrui [[V47]], [[C16_I32_17]] : i32
// CHECK: [[V49:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V47]], [[V48]] : i32
// CHECK: [[CM2048144789_I32_18:%[a-zA-Z0-9_.$-]+]] = arith.constant -2048144789 : i32
// CHECK: [[V50:%[a-zA-Z0-9_.$-]+]] = arith.muli [[V49]], [[CM2048144789_I32_18]] : i32
// CHECK: [[C13_I32_19:%[a-zA-Z0-9_.$-]+]] = arith.constant 13 : i32
// CHECK: [[V51:%[a-zA-Z0-9_.$-]+]] = arith.shrui [[V50]], [[C13_I32_19]] : i32
// CHECK: [[V52:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V50]], [[V51]] : i32
// CHECK: [[CM1028477387_I32_20:%[a-zA-Z0-9_.$-]+]] = arith.constant -1028477387 : i32
// CHECK: [[V53:%[a-zA-Z0-9_.$-]+]] = arith.muli [[V52]], [[CM1028477387_I32_20]] : i32
// CHECK: [[C16_I32_21:%[a-zA-Z0-9_.$-]+]] = arith.constant 16 : i32
// CHECK: [[V54:%[a-zA-Z0-9_.$-]+]] = arith.shrui [[V53]], [[C16_I32_21]] : i32
// CHECK: [[V55:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V53]], [[V54]] : i32
// CHECK: [[C1904920271_I32:%[a-zA-Z0-9_.$-]+]] = arith.constant 1904920271 : i32
// CHECK: [[V56:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V55]], [[C1904920271_I32]] : i32
// CHECK: [[C16_I32_22:%[a-zA-Z0-9_.$-]+]] = arith.constant 16 : i32
// CHECK: [[V57:%[a-zA-Z0-9_.$-]+]] = arith.shrui [[V56]], [[C16_I32_22]] : i32
// CHECK: [[V58:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V56]], [[V57]] : i32
// CHECK: [[CM2048144789_I32_23:%[a-zA-Z0-9_.$-]+]] = arith.constant -2048144789 : i32
// CHECK: [[V59:%[a-zA-Z0-9_.$-]+]] = arith.muli [[V58]], [[CM2048144789_I32_23]] : i32
// CHECK: [[C13_I32_24:%[a-zA-Z0-9_.$-]+]] = arith.constant 13 : i32
// CHECK: [[V60:%[a-zA-Z0-9_.$-]+]] = arith.shrui [[V59]], [[C13_I32_24]] : i32
// CHECK: [[V61:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V59]], [[V60]] : i32
// CHECK: [[CM1028477387_I32_25:%[a-zA-Z0-9_.$-]+]] = arith.constant -1028477387 : i32
// CHECK: [[V62:%[a-zA-Z0-9_.$-]+]] = arith.muli [[V61]], [[CM1028477387_I32_25]] : i32
// CHECK: [[C16_I32_26:%[a-zA-Z0-9_.$-]+]] = arith.constant 16 : i32
// CHECK: [[V63:%[a-zA-Z0-9_.$-]+]] = arith.shrui [[V62]], [[C16_I32_26]] : i32
// CHECK: [[V64:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V62]], [[V63]] : i32
// CHECK: [[C8_I32_27:%[a-zA-Z0-9_.$-]+]] = arith.constant 8 : i32
// CHECK: [[V65:%[a-zA-Z0-9_.$-]+]] = arith.shrui [[V64]], [[C8_I32_27]] : i32
// CHECK: [[V66:%[a-zA-Z0-9_.$-]+]] = arith.uitofp [[V65]] : i32 to f32
// CHECK: [[CST_28:%[a-zA-Z0-9_.$-]+]] = arith.constant 5.96046448E-8 : f32
// CHECK: [[V67:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V66]], [[CST_28]] : f32
// CHECK: [[CST_29:%[a-zA-Z0-9_.$-]+]] = arith.constant -2.000000e+00 : f32
// CHECK: [[V68:%[a-zA-Z0-9_.$-]+]] = math.log [[V37]] : f32
// CHECK: [[V69:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[CST_29]], [[V68]] : f32
// CHECK: [[V70:%[a-zA-Z0-9_.$-]+]] = math.sqrt [[V69]] : f32
// CHECK: [[CST_30:%[a-zA-Z0-9_.$-]+]] = arith.constant 6.28318548 : f32
// CHECK: [[V71:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[CST_30]], [[V67]] : f32
// CHECK: [[V72:%[a-zA-Z0-9_.$-]+]] = math.cos [[V71]] : f32
// CHECK: [[V73:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V70]], [[V72]] : f32
// CHECK: [[CST_31:%[a-zA-Z0-9_.$-]+]] = arith.constant 1.000000e+00 : f32
// CHECK: [[CST_32:%[a-zA-Z0-9_.$-]+]] = arith.constant 2.000000e+00 : f32
// CHECK: [[V74:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[CST_32]], [[V73]] : f32
// CHECK: [[V75:%[a-zA-Z0-9_.$-]+]] = arith.addf [[CST_31]], [[V74]] : f32
// CHECK: linalg.yield [[V75]] : f32
// CHECK: } -> tensor<2x3xf32>
// CHECK: return [[V1]] : tensor<2x3xf32>
func.func @random_normal() -> tensor<2x3xf32> {
  %0 = mindir.random_normal {seed = 42 : i64, mean = 1.0 : f64, stddev = 2.0 : f64} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @random_normal_f64(
// CHECK-SAME: ) -> tensor<5xf64> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<5xf64>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]]], iterator_types = ["parallel"]} outs([[V0]] : tensor<5xf64>) {
// CHECK: ^bb0([[OUT:%[a-zA-Z0-9_.$-]+]]: f64):
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = linalg.index 0 : index
// CHECK: [[V3:%[a-zA-Z0-9_.$-]+]] = arith.index_cast [[V2]] : index to i32
// CHECK: [[CST:%[a-zA-Z0-9_.$-]+]] = arith.constant 1.000000e+00 : f64
// CHECK: [[CM133212378_I32:%[a-zA-Z0-9_.$-]+]] = arith.constant -133212378 : i32
// CHECK: [[V4:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V3]], [[CM133212378_I32]] : i32
// CHECK: [[C16_I32:%[a-zA-Z0-9_.$-]+]] = arith.constant 16 : i32
// CHECK: [[V5:%[a-zA-Z0-9_.$-]+]] = arith.shrui [[V4]], [[C16_I32]] : i32
// CHECK: [[V6:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V4]], [[V5]] : i32
// CHECK: [[CM2048144789_I32:%[a-zA-Z0-9_.$-]+]] = arith.constant -2048144789 : i32
// CHECK: [[V7:%[a-zA-Z0-9_.$-]+]] = arith.muli [[V6]], [[CM2048144789_I32]] : i32
// CHECK: [[C13_I32:%[a-zA-Z0-9_.$-]+]] = arith.constant 13 : i32
// CHECK: [[V8:%[a-zA-Z0-9_.$-]+]] = arith.shrui [[V7]], [[C13_I32]] : i32
// CHECK: [[V9:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V7]], [[V8]] : i32
// CHECK: [[CM1028477387_I32:%[a-zA-Z0-9_.$-]+]] = arith.constant -1028477387 : i32
// CHECK: [[V10:%[a-zA-Z0-9_.$-]+]] = arith.muli [[V9]], [[CM1028477387_I32]] : i32
// CHECK: [[C16_I32_0:%[a-zA-Z0-9_.$-]+]] = arith.constant 16 : i32
// CHECK: [[V11:%[a-zA-Z0-9_.$-]+]] = arith.shrui [[V10]], [[C16_I32_0]] : i32
// CHECK: [[V12:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V10]], [[V11]] : i32
// CHECK: [[C51708243_I32:%[a-zA-Z0-9_.$-]+]] = arith.constant 51708243 : i32
// CHECK: [[V13:%[a-zA-Z0-9_.$-]+]] = arith.addi [[V12]], [[C51708243_I32]] : i32
// CHECK: [[C16_I32_1:%[a-zA-Z0-9_.$-]+]] = arith.constant 16 : i32
// CHECK: [[V14:%[a-zA-Z0-9_.$-]+]] = arith.shrui [[V13]], [[C16_I32_1]] : i32
// CHECK: [[V15:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V13]], [[V14]] : i32
// CHECK: [[CM2048144789_I32_2:%[a-zA-Z0-9_.$-]+]] = arith.constant -2048144789 : i32
// CHECK: [[V16:%[a-zA-Z0-9_.$-]+]] = arith.muli [[V15]], [[CM2048144789_I32_2]] : i32
// CHECK: [[C13_I32_3:%[a-zA-Z0-9_.$-]+]] = arith.constant 13 : i32
// CHECK: [[V17:%[a-zA-Z0-9_.$-]+]] = arith.shrui [[V16]], [[C13_I32_3]] : i32
// CHECK: [[V18:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V16]], [[V17]] : i32
// CHECK: [[CM1028477387_I32_4:%[a-zA-Z0-9_.$-]+]] = arith.constant -1028477387 : i32
// CHECK: [[V19:%[a-zA-Z0-9_.$-]+]] = arith.muli [[V18]], [[CM1028477387_I32_4]] : i32
// CHECK: [[C16_I32_5:%[a-zA-Z0-9_.$-]+]] = arith.constant 16 : i32
// CHECK: [[V20:%[a-zA-Z0-9_.$-]+]] = arith.shrui [[V19]], [[C16_I32_5]] : i32
// CHECK: [[V21:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V19]], [[V20]] : i32
// CHECK: [[C1684580317_I32:%[a-zA-Z0-9_.$-]+]] = arith.constant 1684580317 : i32
// CHECK: [[V22:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V21]], [[C1684580317_I32]] : i32
// CHECK: [[C16_I32_6:%[a-zA-Z0-9_.$-]+]] = arith.constant 16 : i32
// CHECK: [[V23:%[a-zA-Z0-9_.$-]+]] = arith.shrui [[V22]], [[C16_I32_6]] : i32
// CHECK: [[V24:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V22]], [[V23]] : i32
// CHECK: [[CM2048144789_I32_7:%[a-zA-Z0-9_.$-]+]] = arith.constant -2048144789 : i32
// CHECK: [[V25:%[a-zA-Z0-9_.$-]+]] = arith.muli [[V24]], [[CM2048144789_I32_7]] : i32
// CHECK: [[C13_I32_8:%[a-zA-Z0-9_.$-]+]] = arith.constant 13 : i32
// CHECK: [[V26:%[a-zA-Z0-9_.$-]+]] = arith.shrui [[V25]], [[C13_I32_8]] : i32
// CHECK: [[V27:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V25]], [[V26]] : i32
// CHECK: [[CM1028477387_I32_9:%[a-zA-Z0-9_.$-]+]] = arith.constant -1028477387 : i32
// CHECK: [[V28:%[a-zA-Z0-9_.$-]+]] = arith.muli [[V27]], [[CM1028477387_I32_9]] : i32
// CHECK: [[C16_I32_10:%[a-zA-Z0-9_.$-]+]] = arith.constant 16 : i32
// CHECK: [[V29:%[a-zA-Z0-9_.$-]+]] = arith.shrui [[V28]], [[C16_I32_10]] : i32
// CHECK: [[V30:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V28]], [[V29]] : i32
// CHECK: [[V31:%[a-zA-Z0-9_.$-]+]] = arith.uitofp [[V30]] : i32 to f64
// CHECK: [[CST_11:%[a-zA-Z0-9_.$-]+]] = arith.constant 2.3283064365386963E-10 : f64
// CHECK: [[V32:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V31]], [[CST_11]] : f64
// CHECK: [[V33:%[a-zA-Z0-9_.$-]+]] = arith.subf [[CST]], [[V32]] : f64
// CHECK: [[C359926651_I32:%[a-zA-Z0-9_.$-]+]] = arith.constant 359926651 : i32
// CHECK: [[V34:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V3]], [[C359926651_I32]] : i32
// CHECK: [[C16_I32_12:%[a-zA-Z0-9_.$-]+]] = arith.constant 16 : i32
// CHECK: [[V35:%[a-zA-Z0-9_.$-]+]] = arith.shrui [[V34]], [[C16_I32_12]] : i32
// CHECK: [[V36:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V34]], [[V35]] : i32
// CHECK: [[CM2048144789_I32_13:%[a-zA-Z0-9_.$-]+]] = arith.constant -2048144789 : i32
// CHECK: [[V37:%[a-zA-Z0-9_.$-]+]] = arith.muli [[V36]], [[CM2048144789_I32_13]] : i32
// CHECK: [[C13_I32_14:%[a-zA-Z0-9_.$-]+]] = arith.constant 13 : i32
// CHECK: [[V38:%[a-zA-Z0-9_.$-]+]] = arith.shrui [[V37]], [[C13_I32_14]] : i32
// CHECK: [[V39:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V37]], [[V38]] : i32
// CHECK: [[CM1028477387_I32_15:%[a-zA-Z0-9_.$-]+]] = arith.constant -1028477387 : i32
// CHECK: [[V40:%[a-zA-Z0-9_.$-]+]] = arith.muli [[V39]], [[CM1028477387_I32_15]] : i32
// CHECK: [[C16_I32_16:%[a-zA-Z0-9_.$-]+]] = arith.constant 16 : i32
// CHECK: [[V41:%[a-zA-Z0-9_.$-]+]] = arith.shrui [[V40]], [[C16_I32_16]] : i32
// CHECK: [[V42:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V40]], [[V41]] : i32
// CHECK: [[C1076004042_I32:%[a-zA-Z0-9_.$-]+]] = arith.constant 1076004042 : i32
// CHECK: [[V43:%[a-zA-Z0-9_.$-]+]] = arith.addi [[V42]], [[C1076004042_I32]] : i32
// CHECK: [[C16_I32_17:%[a-zA-Z0-9_.$-]+]] = arith.constant 16 : i32
// CHECK: [[V44:%[a-zA-Z0-9_.$-]+]] = arith.shrui [[V43]], [[C16_I32_17]] : i32
// CHECK: [[V45:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V43]], [[V44]] : i32
// CHECK: [[CM2048144789_I32_18:%[a-zA-Z0-9_.$-]+]] = arith.constant -2048144789 : i32
// CHECK: [[V46:%[a-zA-Z0-9_.$-]+]] = arith.muli [[V45]], [[CM2048144789_I32_18]] : i32
// CHECK: [[C13_I32_19:%[a-zA-Z0-9_.$-]+]] = arith.constant 13 : i32
// CHECK: [[V47:%[a-zA-Z0-9_.$-]+]] = arith.shrui [[V46]], [[C13_I32_19]] : i32
// CHECK: [[V48:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V46]], [[V47]] : i32
// CHECK: [[CM1028477387_I32_20:%[a-zA-Z0-9_.$-]+]] = arith.constant -1028477387 : i32
// CHECK: [[V49:%[a-zA-Z0-9_.$-]+]] = arith.muli [[V48]], [[CM1028477387_I32_20]] : i32
// CHECK: [[C16_I32_21:%[a-zA-Z0-9_.$-]+]] = arith.constant 16 : i32
// CHECK: [[V50:%[a-zA-Z0-9_.$-]+]] = arith.shrui [[V49]], [[C16_I32_21]] : i32
// CHECK: [[V51:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V49]], [[V50]] : i32
// CHECK: [[CM872172154_I32:%[a-zA-Z0-9_.$-]+]] = arith.constant -872172154 : i32
// CHECK: [[V52:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V51]], [[CM872172154_I32]] : i32
// CHECK: [[C16_I32_22:%[a-zA-Z0-9_.$-]+]] = arith.constant 16 : i32
// CHECK: [[V53:%[a-zA-Z0-9_.$-]+]] = arith.shrui [[V52]], [[C16_I32_22]] : i32
// CHECK: [[V54:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V52]], [[V53]] : i32
// CHECK: [[CM2048144789_I32_23:%[a-zA-Z0-9_.$-]+]] = arith.constant -2048144789 : i32
// CHECK: [[V55:%[a-zA-Z0-9_.$-]+]] = arith.muli [[V54]], [[CM2048144789_I32_23]] : i32
// CHECK: [[C13_I32_24:%[a-zA-Z0-9_.$-]+]] = arith.constant 13 : i32
// CHECK: [[V56:%[a-zA-Z0-9_.$-]+]] = arith.shrui [[V55]], [[C13_I32_24]] : i32
// CHECK: [[V57:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V55]], [[V56]] : i32
// CHECK: [[CM1028477387_I32_25:%[a-zA-Z0-9_.$-]+]] = arith.constant -1028477387 : i32
// CHECK: [[V58:%[a-zA-Z0-9_.$-]+]] = arith.muli [[V57]], [[CM1028477387_I32_25]] : i32
// CHECK: [[C16_I32_26:%[a-zA-Z0-9_.$-]+]] = arith.constant 16 : i32
// CHECK: [[V59:%[a-zA-Z0-9_.$-]+]] = arith.shrui [[V58]], [[C16_I32_26]] : i32
// CHECK: [[V60:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V58]], [[V59]] : i32
// CHECK: [[V61:%[a-zA-Z0-9_.$-]+]] = arith.uitofp [[V60]] : i32 to f64
// CHECK: [[CST_27:%[a-zA-Z0-9_.$-]+]] = arith.constant 2.3283064365386963E-10 : f64
// CHECK: [[V62:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V61]], [[CST_27]] : f64
// CHECK: [[CST_28:%[a-zA-Z0-9_.$-]+]] = arith.constant -2.000000e+00 : f64
// CHECK: [[V63:%[a-zA-Z0-9_.$-]+]] = math.log [[V33]] : f64
// CHECK: [[V64:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[CST_28]], [[V63]] : f64
// CHECK: [[V65:%[a-zA-Z0-9_.$-]+]] = math.sqrt [[V64]] : f64
// CHECK: [[CST_29:%[a-zA-Z0-9_.$-]+]] = arith.constant 6.2831853071795862 : f64
// CHECK: [[V66:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[CST_29]], [[V62]] : f64
// CHECK: [[V67:%[a-zA-Z0-9_.$-]+]] = math.cos [[V66]] : f64
// CHECK: [[V68:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V65]], [[V67]] : f64
// CHECK: [[CST_30:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f64
// CHECK: [[CST_31:%[a-zA-Z0-9_.$-]+]] = arith.constant 1.000000e+00 : f64
// CHECK: [[V69:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[CST_31]], [[V68]] : f64
// CHECK: [[V70:%[a-zA-Z0-9_.$-]+]] = arith.addf [[CST_30]], [[V69]] : f64
// CHECK: linalg.yield [[V70]] : f64
// CHECK: } -> tensor<5xf64>
// CHECK: return [[V1]] : tensor<5xf64>
func.func @random_normal_f64() -> tensor<5xf64> {
  %0 = mindir.random_normal {seed = -1 : i64} : tensor<5xf64>
  return %0 : tensor<5xf64>
}
