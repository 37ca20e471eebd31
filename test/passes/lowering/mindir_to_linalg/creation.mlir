// RUN: ms-opt %s --convert-mindir-to-linalg --split-input-file | FileCheck %s
//
// constant -> arith.constant; fill / zeros_like / ones_like -> linalg.fill;
// arange -> linalg.generic on linalg.index (start + i * delta in f64);
// random_uniform / random_normal -> linalg.generic hashing the linear index
// with splitmix64 under a key of (seed, stream[, offset]), then uniform bits ->
// float (and Box-Muller for normal). Key constants, with G = 0x9E3779B97F4A7C15
// and mix = the splitmix64 finalizer: k = mix(mix(seed * G + stream + 1)),
// printed as signed i64. The run-time offset operand: random_offset.mlir.

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

// f32 in [-1, 1): key of (seed 42, stream 0) k = -5549583634255512103; element
// i hashes k + (i + 1) * G with the splitmix64 finalizer (xorshift 30, 27, 31
// and its two multipliers); the top 24 bits give u in [0, 1), then -1 + 2u,
// kept below 1.
// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @random_uniform(
// CHECK-NOT: tensor.extract
// CHECK: %[[R:.+]] = linalg.generic {indexing_maps = [#[[MAP]]], iterator_types = ["parallel", "parallel"]} outs(%{{.+}} : tensor<2x3xf32>) {
// CHECK:   %[[I0:.+]] = linalg.index 0 : index
// CHECK:   %[[I1:.+]] = linalg.index 1 : index
// CHECK:   %[[C3:.+]] = arith.constant 3 : index
// CHECK:   %[[ROW:.+]] = arith.muli %[[I0]], %[[C3]] : index
// CHECK:   %[[IDX:.+]] = arith.addi %[[ROW]], %[[I1]] : index
// CHECK:   %[[LIN0:.+]] = arith.index_cast %[[IDX]] : index to i64
// CHECK:   %[[K0:.+]] = arith.constant -5549583634255512103 : i64
// CHECK:   %[[NEXT0:.+]] = arith.addi %[[LIN0]], %{{.+}} : i64
// CHECK:   %[[G0:.+]] = arith.constant -7046029254386353131 : i64
// CHECK:   %[[STEP0:.+]] = arith.muli %[[NEXT0]], %[[G0]] : i64
// CHECK:   %[[Z0:.+]] = arith.addi %[[K0]], %[[STEP0]] : i64
// CHECK:   %[[C300:.+]] = arith.constant 30 : i64
// CHECK:   %[[S10:.+]] = arith.shrui %[[Z0]], %[[C300]] : i64
// CHECK:   %[[X10:.+]] = arith.xori %[[Z0]], %[[S10]] : i64
// CHECK:   %[[M10:.+]] = arith.constant -4658895280553007687 : i64
// CHECK:   %[[Y10:.+]] = arith.muli %[[X10]], %[[M10]] : i64
// CHECK:   %[[C270:.+]] = arith.constant 27 : i64
// CHECK:   %[[S20:.+]] = arith.shrui %[[Y10]], %[[C270]] : i64
// CHECK:   %[[X20:.+]] = arith.xori %[[Y10]], %[[S20]] : i64
// CHECK:   %[[M20:.+]] = arith.constant -7723592293110705685 : i64
// CHECK:   %[[Y20:.+]] = arith.muli %[[X20]], %[[M20]] : i64
// CHECK:   %[[C310:.+]] = arith.constant 31 : i64
// CHECK:   %[[S30:.+]] = arith.shrui %[[Y20]], %[[C310]] : i64
// CHECK:   %[[H0:.+]] = arith.xori %[[Y20]], %[[S30]] : i64
// CHECK:   %[[C40:.+]] = arith.constant 40 : i64
// CHECK:   %[[TOP:.+]] = arith.shrui %[[H0]], %[[C40]] : i64
// CHECK:   %[[F:.+]] = arith.uitofp %[[TOP]] : i64 to f32
// CHECK:   %[[EPS:.+]] = arith.constant 5.96046448E-8 : f32
// CHECK:   %[[U:.+]] = arith.mulf %[[F]], %[[EPS]] : f32
// CHECK:   %[[LO:.+]] = arith.constant -1.000000e+00 : f32
// CHECK:   %[[WIDTH:.+]] = arith.constant 2.000000e+00 : f32
// CHECK:   %[[UW:.+]] = arith.mulf %[[U]], %[[WIDTH]] : f32
// CHECK:   %[[V:.+]] = arith.addf %[[LO]], %[[UW]] : f32
// CHECK:   %[[HI:.+]] = arith.constant 1.000000e+00 : f32
// CHECK:   %[[LT:.+]] = arith.cmpf olt, %[[V]], %[[HI]] : f32
// CHECK:   %[[BELOW:.+]] = arith.constant 0.99999994 : f32
// CHECK:   %[[OUT:.+]] = arith.select %[[LT]], %[[V]], %[[BELOW]] : f32
// CHECK:   linalg.yield %[[OUT]] : f32
// CHECK: return %[[R]] : tensor<2x3xf32>
func.func @random_uniform() -> tensor<2x3xf32> {
  %0 = mindir.random_uniform {seed = 42 : i64, minval = -1.0 : f64, maxval = 1.0 : f64} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
// -----

// f16: key of (seed 7, stream 0) k = -8780433196893807203; 11 random bits
// (shift 53), u computed in f32 and truncated to f16, kept below 1.
// CHECK-LABEL: func.func @random_uniform_f16(
// CHECK: %[[R:.+]] = linalg.generic {{.*}} outs(%{{.+}} : tensor<5xf16>) {
// CHECK:   %[[I0:.+]] = linalg.index 0 : index
// CHECK:   %[[LIN0:.+]] = arith.index_cast %[[I0]] : index to i64
// CHECK:   %[[K0:.+]] = arith.constant -8780433196893807203 : i64
// CHECK:   %[[NEXT0:.+]] = arith.addi %[[LIN0]], %{{.+}} : i64
// CHECK:   %[[G0:.+]] = arith.constant -7046029254386353131 : i64
// CHECK:   %[[STEP0:.+]] = arith.muli %[[NEXT0]], %[[G0]] : i64
// CHECK:   %[[Z0:.+]] = arith.addi %[[K0]], %[[STEP0]] : i64
// CHECK:   %[[C300:.+]] = arith.constant 30 : i64
// CHECK:   %[[S10:.+]] = arith.shrui %[[Z0]], %[[C300]] : i64
// CHECK:   %[[X10:.+]] = arith.xori %[[Z0]], %[[S10]] : i64
// CHECK:   %[[M10:.+]] = arith.constant -4658895280553007687 : i64
// CHECK:   %[[Y10:.+]] = arith.muli %[[X10]], %[[M10]] : i64
// CHECK:   %[[C270:.+]] = arith.constant 27 : i64
// CHECK:   %[[S20:.+]] = arith.shrui %[[Y10]], %[[C270]] : i64
// CHECK:   %[[X20:.+]] = arith.xori %[[Y10]], %[[S20]] : i64
// CHECK:   %[[M20:.+]] = arith.constant -7723592293110705685 : i64
// CHECK:   %[[Y20:.+]] = arith.muli %[[X20]], %[[M20]] : i64
// CHECK:   %[[C310:.+]] = arith.constant 31 : i64
// CHECK:   %[[S30:.+]] = arith.shrui %[[Y20]], %[[C310]] : i64
// CHECK:   %[[H0:.+]] = arith.xori %[[Y20]], %[[S30]] : i64
// CHECK:   %[[C53:.+]] = arith.constant 53 : i64
// CHECK:   %[[TOP:.+]] = arith.shrui %[[H0]], %[[C53]] : i64
// CHECK:   %[[F:.+]] = arith.uitofp %[[TOP]] : i64 to f32
// CHECK:   %[[EPS:.+]] = arith.constant 4.8828125E-4 : f32
// CHECK:   %[[U:.+]] = arith.mulf %[[F]], %[[EPS]] : f32
// CHECK:   %[[V:.+]] = arith.truncf %{{.+}} : f32 to f16
// CHECK:   %[[LT:.+]] = arith.cmpf olt, %[[V]], %{{.+}} : f16
// CHECK:   %[[OUT:.+]] = arith.select %[[LT]], %[[V]], %{{.+}} : f16
// CHECK:   linalg.yield %[[OUT]] : f16
// CHECK: return %[[R]] : tensor<5xf16>
func.func @random_uniform_f16() -> tensor<5xf16> {
  %0 = mindir.random_uniform {seed = 7 : i64} : tensor<5xf16>
  return %0 : tensor<5xf16>
}
// -----

// Box-Muller on two streams of seed 42: u1 from stream 1 (key
// -8941228002914167351), u2 from stream 2 (key -3632048241808712752), 24 bits
// each; z = sqrt(-2 log(1 - u1)) cos(2 pi u2); 1 + 2z.
// CHECK-LABEL: func.func @random_normal(
// CHECK: %[[R:.+]] = linalg.generic {{.*}} outs(%{{.+}} : tensor<2x3xf32>) {
// CHECK:   %[[LIN0:.+]] = arith.index_cast %{{.+}} : index to i64
// CHECK:   %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK:   %[[K0:.+]] = arith.constant -8941228002914167351 : i64
// CHECK:   %[[NEXT0:.+]] = arith.addi %[[LIN0]], %{{.+}} : i64
// CHECK:   %[[G0:.+]] = arith.constant -7046029254386353131 : i64
// CHECK:   %[[STEP0:.+]] = arith.muli %[[NEXT0]], %[[G0]] : i64
// CHECK:   %[[Z0:.+]] = arith.addi %[[K0]], %[[STEP0]] : i64
// CHECK:   %[[C300:.+]] = arith.constant 30 : i64
// CHECK:   %[[S10:.+]] = arith.shrui %[[Z0]], %[[C300]] : i64
// CHECK:   %[[X10:.+]] = arith.xori %[[Z0]], %[[S10]] : i64
// CHECK:   %[[M10:.+]] = arith.constant -4658895280553007687 : i64
// CHECK:   %[[Y10:.+]] = arith.muli %[[X10]], %[[M10]] : i64
// CHECK:   %[[C270:.+]] = arith.constant 27 : i64
// CHECK:   %[[S20:.+]] = arith.shrui %[[Y10]], %[[C270]] : i64
// CHECK:   %[[X20:.+]] = arith.xori %[[Y10]], %[[S20]] : i64
// CHECK:   %[[M20:.+]] = arith.constant -7723592293110705685 : i64
// CHECK:   %[[Y20:.+]] = arith.muli %[[X20]], %[[M20]] : i64
// CHECK:   %[[C310:.+]] = arith.constant 31 : i64
// CHECK:   %[[S30:.+]] = arith.shrui %[[Y20]], %[[C310]] : i64
// CHECK:   %[[H0:.+]] = arith.xori %[[Y20]], %[[S30]] : i64
// CHECK:   %[[T1:.+]] = arith.shrui %[[H0]], %{{.+}} : i64
// CHECK:   %[[F1:.+]] = arith.uitofp %[[T1]] : i64 to f32
// CHECK:   %[[V1:.+]] = arith.mulf %[[F1]], %{{.+}} : f32
// CHECK:   %[[U1:.+]] = arith.subf %[[ONE]], %[[V1]] : f32
// CHECK:   %[[K1:.+]] = arith.constant -3632048241808712752 : i64
// CHECK:   %[[NEXT1:.+]] = arith.addi %[[LIN0]], %{{.+}} : i64
// CHECK:   %[[G1:.+]] = arith.constant -7046029254386353131 : i64
// CHECK:   %[[STEP1:.+]] = arith.muli %[[NEXT1]], %[[G1]] : i64
// CHECK:   %[[Z1:.+]] = arith.addi %[[K1]], %[[STEP1]] : i64
// CHECK:   %[[C301:.+]] = arith.constant 30 : i64
// CHECK:   %[[S11:.+]] = arith.shrui %[[Z1]], %[[C301]] : i64
// CHECK:   %[[X11:.+]] = arith.xori %[[Z1]], %[[S11]] : i64
// CHECK:   %[[M11:.+]] = arith.constant -4658895280553007687 : i64
// CHECK:   %[[Y11:.+]] = arith.muli %[[X11]], %[[M11]] : i64
// CHECK:   %[[C271:.+]] = arith.constant 27 : i64
// CHECK:   %[[S21:.+]] = arith.shrui %[[Y11]], %[[C271]] : i64
// CHECK:   %[[X21:.+]] = arith.xori %[[Y11]], %[[S21]] : i64
// CHECK:   %[[M21:.+]] = arith.constant -7723592293110705685 : i64
// CHECK:   %[[Y21:.+]] = arith.muli %[[X21]], %[[M21]] : i64
// CHECK:   %[[C311:.+]] = arith.constant 31 : i64
// CHECK:   %[[S31:.+]] = arith.shrui %[[Y21]], %[[C311]] : i64
// CHECK:   %[[H1:.+]] = arith.xori %[[Y21]], %[[S31]] : i64
// CHECK:   %[[T2:.+]] = arith.shrui %[[H1]], %{{.+}} : i64
// CHECK:   %[[F2:.+]] = arith.uitofp %[[T2]] : i64 to f32
// CHECK:   %[[U2:.+]] = arith.mulf %[[F2]], %{{.+}} : f32
// CHECK:   %[[LOG:.+]] = math.log %[[U1]] : f32
// CHECK:   %[[M2L:.+]] = arith.mulf %{{.+}}, %[[LOG]] : f32
// CHECK:   %[[RAD:.+]] = math.sqrt %[[M2L]] : f32
// CHECK:   %[[ANG:.+]] = arith.mulf %{{.+}}, %[[U2]] : f32
// CHECK:   %[[COS:.+]] = math.cos %[[ANG]] : f32
// CHECK:   %[[Z:.+]] = arith.mulf %[[RAD]], %[[COS]] : f32
// CHECK:   %[[MEAN:.+]] = arith.constant 1.000000e+00 : f32
// CHECK:   %[[STD:.+]] = arith.constant 2.000000e+00 : f32
// CHECK:   %[[SZ:.+]] = arith.mulf %[[STD]], %[[Z]] : f32
// CHECK:   %[[OUT:.+]] = arith.addf %[[MEAN]], %[[SZ]] : f32
// CHECK:   linalg.yield %[[OUT]] : f32
// CHECK: return %[[R]] : tensor<2x3xf32>
func.func @random_normal() -> tensor<2x3xf32> {
  %0 = mindir.random_normal {seed = 42 : i64, mean = 1.0 : f64, stddev = 2.0 : f64} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
// -----

// f64: 53 random bits per uniform (shift 11, scale 2^-53), computed in f64;
// seed -1: stream keys -7310030732589413063 and -6579661249916461786.
// CHECK-LABEL: func.func @random_normal_f64(
// CHECK: %[[R:.+]] = linalg.generic {{.*}} outs(%{{.+}} : tensor<5xf64>) {
// CHECK:   %[[K1:.+]] = arith.constant -7310030732589413063 : i64
// CHECK:   %[[C11:.+]] = arith.constant 11 : i64
// CHECK:   %[[T1:.+]] = arith.shrui %{{.+}}, %[[C11]] : i64
// CHECK:   %[[F1:.+]] = arith.uitofp %[[T1]] : i64 to f64
// CHECK:   arith.constant 1.1102230246251565E-16 : f64
// CHECK:   %[[K2:.+]] = arith.constant -6579661249916461786 : i64
// CHECK:   arith.uitofp %{{.+}} : i64 to f64
// CHECK:   math.log %{{.+}} : f64
// CHECK:   math.sqrt %{{.+}} : f64
// CHECK:   math.cos %{{.+}} : f64
// CHECK:   linalg.yield %{{.+}} : f64
// CHECK: return %[[R]] : tensor<5xf64>
func.func @random_normal_f64() -> tensor<5xf64> {
  %0 = mindir.random_normal {seed = -1 : i64} : tensor<5xf64>
  return %0 : tensor<5xf64>
}
