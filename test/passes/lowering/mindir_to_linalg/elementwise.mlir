// RUN: ms-opt %s --convert-mindir-to-linalg --split-input-file | FileCheck %s
//
// Elementwise mindir ops -> one linalg.generic each (parallel iterators) with an
// arith/math body. Broadcast operands: unit dims that broadcast are collapsed
// away (tensor.collapse_shape) and the operand is read through a projected
// permutation map; 0-d operands through `-> ()`. f16/bf16 math runs in f32.

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @neg(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xf32>) -> tensor<4x5xf32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4x5xf32>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]]], iterator_types = ["parallel", "parallel"]} ins([[ARG0]] : tensor<4x5xf32>) outs([[V0]] : tensor<4x5xf32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT:%[a-zA-Z0-9_.$-]+]]: f32):
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = arith.negf [[IN]] : f32
// CHECK: linalg.yield [[V2]] : f32
// CHECK: } -> tensor<4x5xf32>
// CHECK: return [[V1]] : tensor<4x5xf32>
func.func @neg(%x: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %0 = mindir.neg %x : tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @abs(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xf32>) -> tensor<4x5xf32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4x5xf32>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]]], iterator_types = ["parallel", "parallel"]} ins([[ARG0]] : tensor<4x5xf32>) outs([[V0]] : tensor<4x5xf32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT:%[a-zA-Z0-9_.$-]+]]: f32):
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = math.absf [[IN]] : f32
// CHECK: linalg.yield [[V2]] : f32
// CHECK: } -> tensor<4x5xf32>
// CHECK: return [[V1]] : tensor<4x5xf32>
func.func @abs(%x: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %0 = mindir.abs %x : tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @sign(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xf32>) -> tensor<4x5xf32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4x5xf32>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]]], iterator_types = ["parallel", "parallel"]} ins([[ARG0]] : tensor<4x5xf32>) outs([[V0]] : tensor<4x5xf32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT:%[a-zA-Z0-9_.$-]+]]: f32):
// CHECK: [[CST:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f32
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[IN]], [[CST]] : f32
// CHECK: [[CST_0:%[a-zA-Z0-9_.$-]+]] = arith.constant 1.000000e+00 : f32
// CHECK: [[V3:%[a-zA-Z0-9_.$-]+]] = arith.cmpf olt, [[IN]], [[CST]] : f32
// CHECK: [[CST_1:%[a-zA-Z0-9_.$-]+]] = arith.constant -1.000000e+00 : f32
// CHECK: [[V4:%[a-zA-Z0-9_.$-]+]] = arith.select [[V3]], [[CST_1]], [[CST]] : f32
// CHECK: [[V5:%[a-zA-Z0-9_.$-]+]] = arith.select [[V2]], [[CST_0]], [[V4]] : f32
// CHECK: [[V6:%[a-zA-Z0-9_.$-]+]] = arith.cmpf uno, [[IN]], [[IN]] : f32
// CHECK: [[V7:%[a-zA-Z0-9_.$-]+]] = arith.select [[V6]], [[IN]], [[V5]] : f32
// CHECK: linalg.yield [[V7]] : f32
// CHECK: } -> tensor<4x5xf32>
// CHECK: return [[V1]] : tensor<4x5xf32>
func.func @sign(%x: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %0 = mindir.sign %x : tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @exp(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xf32>) -> tensor<4x5xf32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4x5xf32>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]]], iterator_types = ["parallel", "parallel"]} ins([[ARG0]] : tensor<4x5xf32>) outs([[V0]] : tensor<4x5xf32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT:%[a-zA-Z0-9_.$-]+]]: f32):
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = math.exp [[IN]] : f32
// CHECK: linalg.yield [[V2]] : f32
// CHECK: } -> tensor<4x5xf32>
// CHECK: return [[V1]] : tensor<4x5xf32>
func.func @exp(%x: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %0 = mindir.exp %x : tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @log(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xf32>) -> tensor<4x5xf32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4x5xf32>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]]], iterator_types = ["parallel", "parallel"]} ins([[ARG0]] : tensor<4x5xf32>) outs([[V0]] : tensor<4x5xf32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT:%[a-zA-Z0-9_.$-]+]]: f32):
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = math.log [[IN]] : f32
// CHECK: linalg.yield [[V2]] : f32
// CHECK: } -> tensor<4x5xf32>
// CHECK: return [[V1]] : tensor<4x5xf32>
func.func @log(%x: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %0 = mindir.log %x : tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @log1p(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xf32>) -> tensor<4x5xf32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4x5xf32>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]]], iterator_types = ["parallel", "parallel"]} ins([[ARG0]] : tensor<4x5xf32>) outs([[V0]] : tensor<4x5xf32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT:%[a-zA-Z0-9_.$-]+]]: f32):
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = math.log1p [[IN]] : f32
// CHECK: linalg.yield [[V2]] : f32
// CHECK: } -> tensor<4x5xf32>
// CHECK: return [[V1]] : tensor<4x5xf32>
func.func @log1p(%x: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %0 = mindir.log1p %x : tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @expm1(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xf32>) -> tensor<4x5xf32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4x5xf32>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]]], iterator_types = ["parallel", "parallel"]} ins([[ARG0]] : tensor<4x5xf32>) outs([[V0]] : tensor<4x5xf32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT:%[a-zA-Z0-9_.$-]+]]: f32):
// Kahan's form: u = exp(x); (u - 1) * x / log(u), with x itself where u == 1.
// CHECK: [[U:%[a-zA-Z0-9_.$-]+]] = math.exp [[IN]] : f32
// CHECK: [[UM1:%[a-zA-Z0-9_.$-]+]] = arith.subf [[U]], %{{.*}} : f32
// CHECK: [[NUM:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[UM1]], [[IN]] : f32
// CHECK: [[LOG:%[a-zA-Z0-9_.$-]+]] = math.log [[U]] : f32
// CHECK: arith.divf [[NUM]], [[LOG]] : f32
// CHECK: arith.constant 0x7F800000 : f32
// CHECK: arith.cmpf oeq, [[U]], %{{.*}} : f32
// CHECK: arith.constant -1.000000e+00 : f32
// CHECK: arith.cmpf oeq, [[UM1]], %{{.*}} : f32
// CHECK: [[ONE:%[a-zA-Z0-9_.$-]+]] = arith.cmpf oeq, [[U]], %{{.*}} : f32
// CHECK: [[R:%[a-zA-Z0-9_.$-]+]] = arith.select [[ONE]], [[IN]], %{{.*}} : f32
// CHECK: linalg.yield [[R]] : f32
// CHECK-NOT: math.expm1
// CHECK: return [[V1]] : tensor<4x5xf32>
func.func @expm1(%x: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %0 = mindir.expm1 %x : tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @sqrt(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xf32>) -> tensor<4x5xf32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4x5xf32>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]]], iterator_types = ["parallel", "parallel"]} ins([[ARG0]] : tensor<4x5xf32>) outs([[V0]] : tensor<4x5xf32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT:%[a-zA-Z0-9_.$-]+]]: f32):
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = math.sqrt [[IN]] : f32
// CHECK: linalg.yield [[V2]] : f32
// CHECK: } -> tensor<4x5xf32>
// CHECK: return [[V1]] : tensor<4x5xf32>
func.func @sqrt(%x: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %0 = mindir.sqrt %x : tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @rsqrt(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xf32>) -> tensor<4x5xf32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4x5xf32>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]]], iterator_types = ["parallel", "parallel"]} ins([[ARG0]] : tensor<4x5xf32>) outs([[V0]] : tensor<4x5xf32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT:%[a-zA-Z0-9_.$-]+]]: f32):
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = math.rsqrt [[IN]] : f32
// CHECK: linalg.yield [[V2]] : f32
// CHECK: } -> tensor<4x5xf32>
// CHECK: return [[V1]] : tensor<4x5xf32>
func.func @rsqrt(%x: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %0 = mindir.rsqrt %x : tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @reciprocal(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xf32>) -> tensor<4x5xf32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4x5xf32>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]]], iterator_types = ["parallel", "parallel"]} ins([[ARG0]] : tensor<4x5xf32>) outs([[V0]] : tensor<4x5xf32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT:%[a-zA-Z0-9_.$-]+]]: f32):
// CHECK: [[CST:%[a-zA-Z0-9_.$-]+]] = arith.constant 1.000000e+00 : f32
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = arith.divf [[CST]], [[IN]] : f32
// CHECK: linalg.yield [[V2]] : f32
// CHECK: } -> tensor<4x5xf32>
// CHECK: return [[V1]] : tensor<4x5xf32>
func.func @reciprocal(%x: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %0 = mindir.reciprocal %x : tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @square(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xf32>) -> tensor<4x5xf32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4x5xf32>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]]], iterator_types = ["parallel", "parallel"]} ins([[ARG0]] : tensor<4x5xf32>) outs([[V0]] : tensor<4x5xf32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT:%[a-zA-Z0-9_.$-]+]]: f32):
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[IN]], [[IN]] : f32
// CHECK: linalg.yield [[V2]] : f32
// CHECK: } -> tensor<4x5xf32>
// CHECK: return [[V1]] : tensor<4x5xf32>
func.func @square(%x: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %0 = mindir.square %x : tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @sin(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xf32>) -> tensor<4x5xf32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4x5xf32>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]]], iterator_types = ["parallel", "parallel"]} ins([[ARG0]] : tensor<4x5xf32>) outs([[V0]] : tensor<4x5xf32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT:%[a-zA-Z0-9_.$-]+]]: f32):
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = math.sin [[IN]] : f32
// CHECK: linalg.yield [[V2]] : f32
// CHECK: } -> tensor<4x5xf32>
// CHECK: return [[V1]] : tensor<4x5xf32>
func.func @sin(%x: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %0 = mindir.sin %x : tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @cos(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xf32>) -> tensor<4x5xf32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4x5xf32>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]]], iterator_types = ["parallel", "parallel"]} ins([[ARG0]] : tensor<4x5xf32>) outs([[V0]] : tensor<4x5xf32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT:%[a-zA-Z0-9_.$-]+]]: f32):
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = math.cos [[IN]] : f32
// CHECK: linalg.yield [[V2]] : f32
// CHECK: } -> tensor<4x5xf32>
// CHECK: return [[V1]] : tensor<4x5xf32>
func.func @cos(%x: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %0 = mindir.cos %x : tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @tanh(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xf32>) -> tensor<4x5xf32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4x5xf32>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]]], iterator_types = ["parallel", "parallel"]} ins([[ARG0]] : tensor<4x5xf32>) outs([[V0]] : tensor<4x5xf32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT:%[a-zA-Z0-9_.$-]+]]: f32):
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = math.tanh [[IN]] : f32
// CHECK: linalg.yield [[V2]] : f32
// CHECK: } -> tensor<4x5xf32>
// CHECK: return [[V1]] : tensor<4x5xf32>
func.func @tanh(%x: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %0 = mindir.tanh %x : tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @sigmoid(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xf32>) -> tensor<4x5xf32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4x5xf32>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]]], iterator_types = ["parallel", "parallel"]} ins([[ARG0]] : tensor<4x5xf32>) outs([[V0]] : tensor<4x5xf32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT:%[a-zA-Z0-9_.$-]+]]: f32):
// CHECK: [[CST:%[a-zA-Z0-9_.$-]+]] = arith.constant 1.000000e+00 : f32
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = arith.negf [[IN]] : f32
// CHECK: [[V3:%[a-zA-Z0-9_.$-]+]] = math.exp [[V2]] : f32
// CHECK: [[V4:%[a-zA-Z0-9_.$-]+]] = arith.addf [[CST]], [[V3]] : f32
// CHECK: [[V5:%[a-zA-Z0-9_.$-]+]] = arith.divf [[CST]], [[V4]] : f32
// CHECK: linalg.yield [[V5]] : f32
// CHECK: } -> tensor<4x5xf32>
// CHECK: return [[V1]] : tensor<4x5xf32>
func.func @sigmoid(%x: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %0 = mindir.sigmoid %x : tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @relu(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xf32>) -> tensor<4x5xf32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4x5xf32>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]]], iterator_types = ["parallel", "parallel"]} ins([[ARG0]] : tensor<4x5xf32>) outs([[V0]] : tensor<4x5xf32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT:%[a-zA-Z0-9_.$-]+]]: f32):
// CHECK: [[CST:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f32
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = arith.maximumf [[IN]], [[CST]] : f32
// CHECK: linalg.yield [[V2]] : f32
// CHECK: } -> tensor<4x5xf32>
// CHECK: return [[V1]] : tensor<4x5xf32>
func.func @relu(%x: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %0 = mindir.relu %x : tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @leaky_relu(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xf32>) -> tensor<4x5xf32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4x5xf32>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]]], iterator_types = ["parallel", "parallel"]} ins([[ARG0]] : tensor<4x5xf32>) outs([[V0]] : tensor<4x5xf32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT:%[a-zA-Z0-9_.$-]+]]: f32):
// CHECK: [[CST:%[a-zA-Z0-9_.$-]+]] = arith.constant 1.000000e-01 : f32
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[CST]], [[IN]] : f32
// CHECK: [[CST_0:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f32
// CHECK: [[V3:%[a-zA-Z0-9_.$-]+]] = arith.cmpf oge, [[IN]], [[CST_0]] : f32
// CHECK: [[V4:%[a-zA-Z0-9_.$-]+]] = arith.select [[V3]], [[IN]], [[V2]] : f32
// CHECK: linalg.yield [[V4]] : f32
// CHECK: } -> tensor<4x5xf32>
// CHECK: return [[V1]] : tensor<4x5xf32>
func.func @leaky_relu(%x: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %0 = mindir.leaky_relu %x {alpha = 0.1 : f64} : tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @gelu_tanh(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xf32>) -> tensor<4x5xf32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4x5xf32>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]]], iterator_types = ["parallel", "parallel"]} ins([[ARG0]] : tensor<4x5xf32>) outs([[V0]] : tensor<4x5xf32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT:%[a-zA-Z0-9_.$-]+]]: f32):
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[IN]], [[IN]] : f32
// CHECK: [[V3:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V2]], [[IN]] : f32
// CHECK: [[CST:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.797884583 : f32
// CHECK: [[CST_0:%[a-zA-Z0-9_.$-]+]] = arith.constant 4.471500e-02 : f32
// CHECK: [[V4:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[CST_0]], [[V3]] : f32
// CHECK: [[V5:%[a-zA-Z0-9_.$-]+]] = arith.addf [[IN]], [[V4]] : f32
// CHECK: [[V6:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[CST]], [[V5]] : f32
// CHECK: [[CST_1:%[a-zA-Z0-9_.$-]+]] = arith.constant 5.000000e-01 : f32
// CHECK: [[V7:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[CST_1]], [[IN]] : f32
// CHECK: [[CST_2:%[a-zA-Z0-9_.$-]+]] = arith.constant 1.000000e+00 : f32
// CHECK: [[V8:%[a-zA-Z0-9_.$-]+]] = math.tanh [[V6]] : f32
// CHECK: [[V9:%[a-zA-Z0-9_.$-]+]] = arith.addf [[CST_2]], [[V8]] : f32
// CHECK: [[V10:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V7]], [[V9]] : f32
// CHECK: linalg.yield [[V10]] : f32
// CHECK: } -> tensor<4x5xf32>
// CHECK: return [[V1]] : tensor<4x5xf32>
func.func @gelu_tanh(%x: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %0 = mindir.gelu %x : tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @gelu_erf(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xf32>) -> tensor<4x5xf32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4x5xf32>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]]], iterator_types = ["parallel", "parallel"]} ins([[ARG0]] : tensor<4x5xf32>) outs([[V0]] : tensor<4x5xf32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT:%[a-zA-Z0-9_.$-]+]]: f32):
// CHECK: [[CST:%[a-zA-Z0-9_.$-]+]] = arith.constant 5.000000e-01 : f32
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[CST]], [[IN]] : f32
// CHECK: [[CST_0:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.707106769 : f32
// CHECK: [[V3:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[IN]], [[CST_0]] : f32
// CHECK: [[V4:%[a-zA-Z0-9_.$-]+]] = math.erf [[V3]] : f32
// CHECK: [[CST_1:%[a-zA-Z0-9_.$-]+]] = arith.constant 1.000000e+00 : f32
// CHECK: [[V5:%[a-zA-Z0-9_.$-]+]] = arith.addf [[CST_1]], [[V4]] : f32
// CHECK: [[V6:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[V2]], [[V5]] : f32
// CHECK: linalg.yield [[V6]] : f32
// CHECK: } -> tensor<4x5xf32>
// CHECK: return [[V1]] : tensor<4x5xf32>
func.func @gelu_erf(%x: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %0 = mindir.gelu %x {approximate = #mindir.approximate<none>} : tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @erf(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xf32>) -> tensor<4x5xf32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4x5xf32>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]]], iterator_types = ["parallel", "parallel"]} ins([[ARG0]] : tensor<4x5xf32>) outs([[V0]] : tensor<4x5xf32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT:%[a-zA-Z0-9_.$-]+]]: f32):
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = math.erf [[IN]] : f32
// CHECK: linalg.yield [[V2]] : f32
// CHECK: } -> tensor<4x5xf32>
// CHECK: return [[V1]] : tensor<4x5xf32>
func.func @erf(%x: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %0 = mindir.erf %x : tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @softplus(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xf32>) -> tensor<4x5xf32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4x5xf32>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]]], iterator_types = ["parallel", "parallel"]} ins([[ARG0]] : tensor<4x5xf32>) outs([[V0]] : tensor<4x5xf32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT:%[a-zA-Z0-9_.$-]+]]: f32):
// CHECK: [[CST:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f32
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = arith.maximumf [[IN]], [[CST]] : f32
// CHECK: [[V3:%[a-zA-Z0-9_.$-]+]] = math.absf [[IN]] : f32
// CHECK: [[V4:%[a-zA-Z0-9_.$-]+]] = arith.negf [[V3]] : f32
// CHECK: [[V5:%[a-zA-Z0-9_.$-]+]] = math.exp [[V4]] : f32
// CHECK: [[V6:%[a-zA-Z0-9_.$-]+]] = math.log1p [[V5]] : f32
// CHECK: [[V7:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V2]], [[V6]] : f32
// CHECK: linalg.yield [[V7]] : f32
// CHECK: } -> tensor<4x5xf32>
// CHECK: return [[V1]] : tensor<4x5xf32>
func.func @softplus(%x: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %0 = mindir.softplus %x : tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @silu(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xf32>) -> tensor<4x5xf32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4x5xf32>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]]], iterator_types = ["parallel", "parallel"]} ins([[ARG0]] : tensor<4x5xf32>) outs([[V0]] : tensor<4x5xf32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT:%[a-zA-Z0-9_.$-]+]]: f32):
// CHECK: [[CST:%[a-zA-Z0-9_.$-]+]] = arith.constant 1.000000e+00 : f32
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = arith.negf [[IN]] : f32
// CHECK: [[V3:%[a-zA-Z0-9_.$-]+]] = math.exp [[V2]] : f32
// CHECK: [[V4:%[a-zA-Z0-9_.$-]+]] = arith.addf [[CST]], [[V3]] : f32
// CHECK: [[V5:%[a-zA-Z0-9_.$-]+]] = arith.divf [[IN]], [[V4]] : f32
// CHECK: linalg.yield [[V5]] : f32
// CHECK: } -> tensor<4x5xf32>
// CHECK: return [[V1]] : tensor<4x5xf32>
func.func @silu(%x: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %0 = mindir.silu %x : tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @floor(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xf32>) -> tensor<4x5xf32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4x5xf32>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]]], iterator_types = ["parallel", "parallel"]} ins([[ARG0]] : tensor<4x5xf32>) outs([[V0]] : tensor<4x5xf32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT:%[a-zA-Z0-9_.$-]+]]: f32):
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = math.floor [[IN]] : f32
// CHECK: linalg.yield [[V2]] : f32
// CHECK: } -> tensor<4x5xf32>
// CHECK: return [[V1]] : tensor<4x5xf32>
func.func @floor(%x: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %0 = mindir.floor %x : tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @ceil(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xf32>) -> tensor<4x5xf32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4x5xf32>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]]], iterator_types = ["parallel", "parallel"]} ins([[ARG0]] : tensor<4x5xf32>) outs([[V0]] : tensor<4x5xf32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT:%[a-zA-Z0-9_.$-]+]]: f32):
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = math.ceil [[IN]] : f32
// CHECK: linalg.yield [[V2]] : f32
// CHECK: } -> tensor<4x5xf32>
// CHECK: return [[V1]] : tensor<4x5xf32>
func.func @ceil(%x: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %0 = mindir.ceil %x : tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @round(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xf32>) -> tensor<4x5xf32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4x5xf32>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]]], iterator_types = ["parallel", "parallel"]} ins([[ARG0]] : tensor<4x5xf32>) outs([[V0]] : tensor<4x5xf32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT:%[a-zA-Z0-9_.$-]+]]: f32):
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = math.roundeven [[IN]] : f32
// CHECK: linalg.yield [[V2]] : f32
// CHECK: } -> tensor<4x5xf32>
// CHECK: return [[V1]] : tensor<4x5xf32>
func.func @round(%x: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %0 = mindir.round %x : tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @exp_f16(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<8xf16>) -> tensor<8xf16> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<8xf16>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]]], iterator_types = ["parallel"]} ins([[ARG0]] : tensor<8xf16>) outs([[V0]] : tensor<8xf16>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: f16, [[OUT:%[a-zA-Z0-9_.$-]+]]: f16):
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = arith.extf [[IN]] : f16 to f32
// CHECK: [[V3:%[a-zA-Z0-9_.$-]+]] = math.exp [[V2]] : f32
// CHECK: [[V4:%[a-zA-Z0-9_.$-]+]] = arith.truncf [[V3]] : f32 to f16
// CHECK: linalg.yield [[V4]] : f16
// CHECK: } -> tensor<8xf16>
// CHECK: return [[V1]] : tensor<8xf16>
func.func @exp_f16(%x: tensor<8xf16>) -> tensor<8xf16> {
  %0 = mindir.exp %x : tensor<8xf16>
  return %0 : tensor<8xf16>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @neg_i32(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xi32>) -> tensor<4x5xi32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4x5xi32>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]]], iterator_types = ["parallel", "parallel"]} ins([[ARG0]] : tensor<4x5xi32>) outs([[V0]] : tensor<4x5xi32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: i32, [[OUT:%[a-zA-Z0-9_.$-]+]]: i32):
// CHECK: [[C0_I32:%[a-zA-Z0-9_.$-]+]] = arith.constant 0 : i32
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = arith.subi [[C0_I32]], [[IN]] : i32
// CHECK: linalg.yield [[V2]] : i32
// CHECK: } -> tensor<4x5xi32>
// CHECK: return [[V1]] : tensor<4x5xi32>
func.func @neg_i32(%x: tensor<4x5xi32>) -> tensor<4x5xi32> {
  %0 = mindir.neg %x : tensor<4x5xi32>
  return %0 : tensor<4x5xi32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @abs_i32(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xi32>) -> tensor<4x5xi32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4x5xi32>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]]], iterator_types = ["parallel", "parallel"]} ins([[ARG0]] : tensor<4x5xi32>) outs([[V0]] : tensor<4x5xi32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: i32, [[OUT:%[a-zA-Z0-9_.$-]+]]: i32):
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = math.absi [[IN]] : i32
// CHECK: linalg.yield [[V2]] : i32
// CHECK: } -> tensor<4x5xi32>
// CHECK: return [[V1]] : tensor<4x5xi32>
func.func @abs_i32(%x: tensor<4x5xi32>) -> tensor<4x5xi32> {
  %0 = mindir.abs %x : tensor<4x5xi32>
  return %0 : tensor<4x5xi32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @sign_i32(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xi32>) -> tensor<4x5xi32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4x5xi32>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]]], iterator_types = ["parallel", "parallel"]} ins([[ARG0]] : tensor<4x5xi32>) outs([[V0]] : tensor<4x5xi32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: i32, [[OUT:%[a-zA-Z0-9_.$-]+]]: i32):
// CHECK: [[C0_I32:%[a-zA-Z0-9_.$-]+]] = arith.constant 0 : i32
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = arith.cmpi sgt, [[IN]], [[C0_I32]] : i32
// CHECK: [[C1_I32:%[a-zA-Z0-9_.$-]+]] = arith.constant 1 : i32
// CHECK: [[V3:%[a-zA-Z0-9_.$-]+]] = arith.cmpi slt, [[IN]], [[C0_I32]] : i32
// CHECK: [[CM1_I32:%[a-zA-Z0-9_.$-]+]] = arith.constant -1 : i32
// CHECK: [[V4:%[a-zA-Z0-9_.$-]+]] = arith.select [[V3]], [[CM1_I32]], [[C0_I32]] : i32
// CHECK: [[V5:%[a-zA-Z0-9_.$-]+]] = arith.select [[V2]], [[C1_I32]], [[V4]] : i32
// CHECK: linalg.yield [[V5]] : i32
// CHECK: } -> tensor<4x5xi32>
// CHECK: return [[V1]] : tensor<4x5xi32>
func.func @sign_i32(%x: tensor<4x5xi32>) -> tensor<4x5xi32> {
  %0 = mindir.sign %x : tensor<4x5xi32>
  return %0 : tensor<4x5xi32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @relu_i8(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<8xi8>) -> tensor<8xi8> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<8xi8>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]]], iterator_types = ["parallel"]} ins([[ARG0]] : tensor<8xi8>) outs([[V0]] : tensor<8xi8>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: i8, [[OUT:%[a-zA-Z0-9_.$-]+]]: i8):
// CHECK: [[C0_I8:%[a-zA-Z0-9_.$-]+]] = arith.constant 0 : i8
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = arith.maxsi [[IN]], [[C0_I8]] : i8
// CHECK: linalg.yield [[V2]] : i8
// CHECK: } -> tensor<8xi8>
// CHECK: return [[V1]] : tensor<8xi8>
func.func @relu_i8(%x: tensor<8xi8>) -> tensor<8xi8> {
  %0 = mindir.relu %x : tensor<8xi8>
  return %0 : tensor<8xi8>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @logical_not(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xi1>) -> tensor<4x5xi1> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4x5xi1>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]]], iterator_types = ["parallel", "parallel"]} ins([[ARG0]] : tensor<4x5xi1>) outs([[V0]] : tensor<4x5xi1>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: i1, [[OUT:%[a-zA-Z0-9_.$-]+]]: i1):
// CHECK: [[TRUE:%[a-zA-Z0-9_.$-]+]] = arith.constant true
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = arith.xori [[IN]], [[TRUE]] : i1
// CHECK: linalg.yield [[V2]] : i1
// CHECK: } -> tensor<4x5xi1>
// CHECK: return [[V1]] : tensor<4x5xi1>
func.func @logical_not(%x: tensor<4x5xi1>) -> tensor<4x5xi1> {
  %0 = mindir.logical_not %x : tensor<4x5xi1>
  return %0 : tensor<4x5xi1>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @isnan(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xf32>) -> tensor<4x5xi1> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4x5xi1>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]]], iterator_types = ["parallel", "parallel"]} ins([[ARG0]] : tensor<4x5xf32>) outs([[V0]] : tensor<4x5xi1>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT:%[a-zA-Z0-9_.$-]+]]: i1):
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = arith.cmpf uno, [[IN]], [[IN]] : f32
// CHECK: linalg.yield [[V2]] : i1
// CHECK: } -> tensor<4x5xi1>
// CHECK: return [[V1]] : tensor<4x5xi1>
func.func @isnan(%a0: tensor<4x5xf32>) -> tensor<4x5xi1> {
  %0 = mindir.isnan %a0 : (tensor<4x5xf32>) -> tensor<4x5xi1>
  return %0 : tensor<4x5xi1>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @isfinite(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xf32>) -> tensor<4x5xi1> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4x5xi1>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]]], iterator_types = ["parallel", "parallel"]} ins([[ARG0]] : tensor<4x5xf32>) outs([[V0]] : tensor<4x5xi1>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT:%[a-zA-Z0-9_.$-]+]]: i1):
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = math.absf [[IN]] : f32
// CHECK: [[CST:%[a-zA-Z0-9_.$-]+]] = arith.constant 0x7F800000 : f32
// CHECK: [[V3:%[a-zA-Z0-9_.$-]+]] = arith.cmpf one, [[V2]], [[CST]] : f32
// CHECK: linalg.yield [[V3]] : i1
// CHECK: } -> tensor<4x5xi1>
// CHECK: return [[V1]] : tensor<4x5xi1>
func.func @isfinite(%a0: tensor<4x5xf32>) -> tensor<4x5xi1> {
  %0 = mindir.isfinite %a0 : (tensor<4x5xf32>) -> tensor<4x5xi1>
  return %0 : tensor<4x5xi1>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @cast_f32_i32(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4xf32>) -> tensor<4xi32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4xi32>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]]], iterator_types = ["parallel"]} ins([[ARG0]] : tensor<4xf32>) outs([[V0]] : tensor<4xi32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT:%[a-zA-Z0-9_.$-]+]]: i32):
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = arith.fptosi [[IN]] : f32 to i32
// CHECK: linalg.yield [[V2]] : i32
// CHECK: } -> tensor<4xi32>
// CHECK: return [[V1]] : tensor<4xi32>
func.func @cast_f32_i32(%x: tensor<4xf32>) -> tensor<4xi32> {
  %0 = mindir.cast %x : tensor<4xf32> to tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @cast_i32_f32(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4xi32>) -> tensor<4xf32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4xf32>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]]], iterator_types = ["parallel"]} ins([[ARG0]] : tensor<4xi32>) outs([[V0]] : tensor<4xf32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: i32, [[OUT:%[a-zA-Z0-9_.$-]+]]: f32):
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = arith.sitofp [[IN]] : i32 to f32
// CHECK: linalg.yield [[V2]] : f32
// CHECK: } -> tensor<4xf32>
// CHECK: return [[V1]] : tensor<4xf32>
func.func @cast_i32_f32(%x: tensor<4xi32>) -> tensor<4xf32> {
  %0 = mindir.cast %x : tensor<4xi32> to tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @cast_f32_f16(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4xf32>) -> tensor<4xf16> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4xf16>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]]], iterator_types = ["parallel"]} ins([[ARG0]] : tensor<4xf32>) outs([[V0]] : tensor<4xf16>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT:%[a-zA-Z0-9_.$-]+]]: f16):
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = arith.truncf [[IN]] : f32 to f16
// CHECK: linalg.yield [[V2]] : f16
// CHECK: } -> tensor<4xf16>
// CHECK: return [[V1]] : tensor<4xf16>
func.func @cast_f32_f16(%x: tensor<4xf32>) -> tensor<4xf16> {
  %0 = mindir.cast %x : tensor<4xf32> to tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @cast_bf16_f16(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4xbf16>) -> tensor<4xf16> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4xf16>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]]], iterator_types = ["parallel"]} ins([[ARG0]] : tensor<4xbf16>) outs([[V0]] : tensor<4xf16>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: bf16, [[OUT:%[a-zA-Z0-9_.$-]+]]: f16):
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = arith.extf [[IN]] : bf16 to f32
// CHECK: [[V3:%[a-zA-Z0-9_.$-]+]] = arith.truncf [[V2]] : f32 to f16
// CHECK: linalg.yield [[V3]] : f16
// CHECK: } -> tensor<4xf16>
// CHECK: return [[V1]] : tensor<4xf16>
func.func @cast_bf16_f16(%x: tensor<4xbf16>) -> tensor<4xf16> {
  %0 = mindir.cast %x : tensor<4xbf16> to tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @cast_i64_i8(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4xi64>) -> tensor<4xi8> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4xi8>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]]], iterator_types = ["parallel"]} ins([[ARG0]] : tensor<4xi64>) outs([[V0]] : tensor<4xi8>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: i64, [[OUT:%[a-zA-Z0-9_.$-]+]]: i8):
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = arith.trunci [[IN]] : i64 to i8
// CHECK: linalg.yield [[V2]] : i8
// CHECK: } -> tensor<4xi8>
// CHECK: return [[V1]] : tensor<4xi8>
func.func @cast_i64_i8(%x: tensor<4xi64>) -> tensor<4xi8> {
  %0 = mindir.cast %x : tensor<4xi64> to tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @cast_i8_i64(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4xi8>) -> tensor<4xi64> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4xi64>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]]], iterator_types = ["parallel"]} ins([[ARG0]] : tensor<4xi8>) outs([[V0]] : tensor<4xi64>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: i8, [[OUT:%[a-zA-Z0-9_.$-]+]]: i64):
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = arith.extsi [[IN]] : i8 to i64
// CHECK: linalg.yield [[V2]] : i64
// CHECK: } -> tensor<4xi64>
// CHECK: return [[V1]] : tensor<4xi64>
func.func @cast_i8_i64(%x: tensor<4xi8>) -> tensor<4xi64> {
  %0 = mindir.cast %x : tensor<4xi8> to tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @cast_i32_i1(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4xi32>) -> tensor<4xi1> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4xi1>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]]], iterator_types = ["parallel"]} ins([[ARG0]] : tensor<4xi32>) outs([[V0]] : tensor<4xi1>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: i32, [[OUT:%[a-zA-Z0-9_.$-]+]]: i1):
// CHECK: [[C0_I32:%[a-zA-Z0-9_.$-]+]] = arith.constant 0 : i32
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = arith.cmpi ne, [[IN]], [[C0_I32]] : i32
// CHECK: linalg.yield [[V2]] : i1
// CHECK: } -> tensor<4xi1>
// CHECK: return [[V1]] : tensor<4xi1>
func.func @cast_i32_i1(%x: tensor<4xi32>) -> tensor<4xi1> {
  %0 = mindir.cast %x : tensor<4xi32> to tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @cast_f32_i1(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4xf32>) -> tensor<4xi1> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4xi1>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]]], iterator_types = ["parallel"]} ins([[ARG0]] : tensor<4xf32>) outs([[V0]] : tensor<4xi1>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT:%[a-zA-Z0-9_.$-]+]]: i1):
// CHECK: [[CST:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f32
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = arith.cmpf une, [[IN]], [[CST]] : f32
// CHECK: linalg.yield [[V2]] : i1
// CHECK: } -> tensor<4xi1>
// CHECK: return [[V1]] : tensor<4xi1>
func.func @cast_f32_i1(%x: tensor<4xf32>) -> tensor<4xi1> {
  %0 = mindir.cast %x : tensor<4xf32> to tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @cast_i1_f32(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4xi1>) -> tensor<4xf32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4xf32>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]]], iterator_types = ["parallel"]} ins([[ARG0]] : tensor<4xi1>) outs([[V0]] : tensor<4xf32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: i1, [[OUT:%[a-zA-Z0-9_.$-]+]]: f32):
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = arith.uitofp [[IN]] : i1 to f32
// CHECK: linalg.yield [[V2]] : f32
// CHECK: } -> tensor<4xf32>
// CHECK: return [[V1]] : tensor<4xf32>
func.func @cast_i1_f32(%x: tensor<4xi1>) -> tensor<4xf32> {
  %0 = mindir.cast %x : tensor<4xi1> to tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @cast_i1_i32(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4xi1>) -> tensor<4xi32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4xi32>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]]], iterator_types = ["parallel"]} ins([[ARG0]] : tensor<4xi1>) outs([[V0]] : tensor<4xi32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: i1, [[OUT:%[a-zA-Z0-9_.$-]+]]: i32):
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = arith.extui [[IN]] : i1 to i32
// CHECK: linalg.yield [[V2]] : i32
// CHECK: } -> tensor<4xi32>
// CHECK: return [[V1]] : tensor<4xi32>
func.func @cast_i1_i32(%x: tensor<4xi1>) -> tensor<4xi32> {
  %0 = mindir.cast %x : tensor<4xi1> to tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// CHECK-LABEL: func.func @stop_gradient(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xf32>) -> tensor<4x5xf32> {
// CHECK: return [[ARG0]] : tensor<4x5xf32>
func.func @stop_gradient(%x: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %0 = mindir.stop_gradient %x : tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @add(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xf32>, [[ARG1:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xf32>) -> tensor<4x5xf32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4x5xf32>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]], #[[MAP]]], iterator_types = ["parallel", "parallel"]} ins([[ARG0]], [[ARG1]] : tensor<4x5xf32>, tensor<4x5xf32>) outs([[V0]] : tensor<4x5xf32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: f32, [[IN_0:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT:%[a-zA-Z0-9_.$-]+]]: f32):
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = arith.addf [[IN]], [[IN_0]] : f32
// CHECK: linalg.yield [[V2]] : f32
// CHECK: } -> tensor<4x5xf32>
// CHECK: return [[V1]] : tensor<4x5xf32>
func.func @add(%a0: tensor<4x5xf32>, %a1: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %0 = mindir.add %a0, %a1 : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[MAP1:map[0-9]*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[MAP2:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @add_broadcast(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4x1xf32>, [[ARG1:%[a-zA-Z0-9_.$-]+]]: tensor<5xf32>) -> tensor<4x5xf32> {
// CHECK: [[COLLAPSED:%[a-zA-Z0-9_.$-]+]] = tensor.collapse_shape [[ARG0]] {{\[\[}}0, 1]] : tensor<4x1xf32> into tensor<4xf32>
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4x5xf32>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP1]], #[[MAP2]]], iterator_types = ["parallel", "parallel"]} ins([[COLLAPSED]], [[ARG1]] : tensor<4xf32>, tensor<5xf32>) outs([[V0]] : tensor<4x5xf32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: f32, [[IN_0:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT:%[a-zA-Z0-9_.$-]+]]: f32):
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = arith.addf [[IN]], [[IN_0]] : f32
// CHECK: linalg.yield [[V2]] : f32
// CHECK: } -> tensor<4x5xf32>
// CHECK: return [[V1]] : tensor<4x5xf32>
func.func @add_broadcast(%a0: tensor<4x1xf32>, %a1: tensor<5xf32>) -> tensor<4x5xf32> {
  %0 = mindir.add %a0, %a1 : (tensor<4x1xf32>, tensor<5xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> ()>
// CHECK-DAG: #[[MAP1:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @add_scalar(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<f32>, [[ARG1:%[a-zA-Z0-9_.$-]+]]: tensor<2x3xf32>) -> tensor<2x3xf32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<2x3xf32>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP1]], #[[MAP1]]], iterator_types = ["parallel", "parallel"]} ins([[ARG0]], [[ARG1]] : tensor<f32>, tensor<2x3xf32>) outs([[V0]] : tensor<2x3xf32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: f32, [[IN_0:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT:%[a-zA-Z0-9_.$-]+]]: f32):
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = arith.addf [[IN]], [[IN_0]] : f32
// CHECK: linalg.yield [[V2]] : f32
// CHECK: } -> tensor<2x3xf32>
// CHECK: return [[V1]] : tensor<2x3xf32>
func.func @add_scalar(%a0: tensor<f32>, %a1: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = mindir.add %a0, %a1 : (tensor<f32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @add_i64(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<3xi64>, [[ARG1:%[a-zA-Z0-9_.$-]+]]: tensor<3xi64>) -> tensor<3xi64> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<3xi64>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]], #[[MAP]]], iterator_types = ["parallel"]} ins([[ARG0]], [[ARG1]] : tensor<3xi64>, tensor<3xi64>) outs([[V0]] : tensor<3xi64>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: i64, [[IN_0:%[a-zA-Z0-9_.$-]+]]: i64, [[OUT:%[a-zA-Z0-9_.$-]+]]: i64):
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = arith.addi [[IN]], [[IN_0]] : i64
// CHECK: linalg.yield [[V2]] : i64
// CHECK: } -> tensor<3xi64>
// CHECK: return [[V1]] : tensor<3xi64>
func.func @add_i64(%a0: tensor<3xi64>, %a1: tensor<3xi64>) -> tensor<3xi64> {
  %0 = mindir.add %a0, %a1 : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  return %0 : tensor<3xi64>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @sub(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xf32>, [[ARG1:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xf32>) -> tensor<4x5xf32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4x5xf32>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]], #[[MAP]]], iterator_types = ["parallel", "parallel"]} ins([[ARG0]], [[ARG1]] : tensor<4x5xf32>, tensor<4x5xf32>) outs([[V0]] : tensor<4x5xf32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: f32, [[IN_0:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT:%[a-zA-Z0-9_.$-]+]]: f32):
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = arith.subf [[IN]], [[IN_0]] : f32
// CHECK: linalg.yield [[V2]] : f32
// CHECK: } -> tensor<4x5xf32>
// CHECK: return [[V1]] : tensor<4x5xf32>
func.func @sub(%a0: tensor<4x5xf32>, %a1: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %0 = mindir.sub %a0, %a1 : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @mul(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xf32>, [[ARG1:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xf32>) -> tensor<4x5xf32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4x5xf32>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]], #[[MAP]]], iterator_types = ["parallel", "parallel"]} ins([[ARG0]], [[ARG1]] : tensor<4x5xf32>, tensor<4x5xf32>) outs([[V0]] : tensor<4x5xf32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: f32, [[IN_0:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT:%[a-zA-Z0-9_.$-]+]]: f32):
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = arith.mulf [[IN]], [[IN_0]] : f32
// CHECK: linalg.yield [[V2]] : f32
// CHECK: } -> tensor<4x5xf32>
// CHECK: return [[V1]] : tensor<4x5xf32>
func.func @mul(%a0: tensor<4x5xf32>, %a1: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %0 = mindir.mul %a0, %a1 : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @div(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xf32>, [[ARG1:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xf32>) -> tensor<4x5xf32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4x5xf32>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]], #[[MAP]]], iterator_types = ["parallel", "parallel"]} ins([[ARG0]], [[ARG1]] : tensor<4x5xf32>, tensor<4x5xf32>) outs([[V0]] : tensor<4x5xf32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: f32, [[IN_0:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT:%[a-zA-Z0-9_.$-]+]]: f32):
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = arith.divf [[IN]], [[IN_0]] : f32
// CHECK: linalg.yield [[V2]] : f32
// CHECK: } -> tensor<4x5xf32>
// CHECK: return [[V1]] : tensor<4x5xf32>
func.func @div(%a0: tensor<4x5xf32>, %a1: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %0 = mindir.div %a0, %a1 : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @div_i32(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xi32>, [[ARG1:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xi32>) -> tensor<4x5xi32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4x5xi32>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]], #[[MAP]]], iterator_types = ["parallel", "parallel"]} ins([[ARG0]], [[ARG1]] : tensor<4x5xi32>, tensor<4x5xi32>) outs([[V0]] : tensor<4x5xi32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: i32, [[IN_0:%[a-zA-Z0-9_.$-]+]]: i32, [[OUT:%[a-zA-Z0-9_.$-]+]]: i32):
// CHECK: [[C0_I32:%[a-zA-Z0-9_.$-]+]] = arith.constant 0 : i32
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = arith.cmpi eq, [[IN_0]], [[C0_I32]] : i32
// CHECK: [[CM1_I32:%[a-zA-Z0-9_.$-]+]] = arith.constant -1 : i32
// CHECK: [[V3:%[a-zA-Z0-9_.$-]+]] = arith.cmpi eq, [[IN_0]], [[CM1_I32]] : i32
// CHECK: [[V4:%[a-zA-Z0-9_.$-]+]] = arith.ori [[V2]], [[V3]] : i1
// CHECK: [[C1_I32:%[a-zA-Z0-9_.$-]+]] = arith.constant 1 : i32
// CHECK: [[V5:%[a-zA-Z0-9_.$-]+]] = arith.select [[V4]], [[C1_I32]], [[IN_0]] : i32
// CHECK: [[C0_I32_1:%[a-zA-Z0-9_.$-]+]] = arith.constant 0 : i32
// CHECK: [[V6:%[a-zA-Z0-9_.$-]+]] = arith.subi [[C0_I32_1]], [[IN]] : i32
// CHECK: [[V7:%[a-zA-Z0-9_.$-]+]] = arith.divsi [[IN]], [[V5]] : i32
// CHECK: [[V8:%[a-zA-Z0-9_.$-]+]] = arith.select [[V3]], [[V6]], [[V7]] : i32
// CHECK: [[C0_I32_2:%[a-zA-Z0-9_.$-]+]] = arith.constant 0 : i32
// CHECK: [[V9:%[a-zA-Z0-9_.$-]+]] = arith.select [[V2]], [[C0_I32_2]], [[V8]] : i32
// CHECK: linalg.yield [[V9]] : i32
// CHECK: } -> tensor<4x5xi32>
// CHECK: return [[V1]] : tensor<4x5xi32>
func.func @div_i32(%a0: tensor<4x5xi32>, %a1: tensor<4x5xi32>) -> tensor<4x5xi32> {
  %0 = mindir.div %a0, %a1 : (tensor<4x5xi32>, tensor<4x5xi32>) -> tensor<4x5xi32>
  return %0 : tensor<4x5xi32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @floordiv(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xf32>, [[ARG1:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xf32>) -> tensor<4x5xf32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4x5xf32>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]], #[[MAP]]], iterator_types = ["parallel", "parallel"]} ins([[ARG0]], [[ARG1]] : tensor<4x5xf32>, tensor<4x5xf32>) outs([[V0]] : tensor<4x5xf32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: f32, [[IN_0:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT:%[a-zA-Z0-9_.$-]+]]: f32):
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = arith.divf [[IN]], [[IN_0]] : f32
// CHECK: [[V3:%[a-zA-Z0-9_.$-]+]] = math.floor [[V2]] : f32
// CHECK: linalg.yield [[V3]] : f32
// CHECK: } -> tensor<4x5xf32>
// CHECK: return [[V1]] : tensor<4x5xf32>
func.func @floordiv(%a0: tensor<4x5xf32>, %a1: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %0 = mindir.floordiv %a0, %a1 : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @floordiv_i32(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xi32>, [[ARG1:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xi32>) -> tensor<4x5xi32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4x5xi32>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]], #[[MAP]]], iterator_types = ["parallel", "parallel"]} ins([[ARG0]], [[ARG1]] : tensor<4x5xi32>, tensor<4x5xi32>) outs([[V0]] : tensor<4x5xi32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: i32, [[IN_0:%[a-zA-Z0-9_.$-]+]]: i32, [[OUT:%[a-zA-Z0-9_.$-]+]]: i32):
// CHECK: [[C0_I32:%[a-zA-Z0-9_.$-]+]] = arith.constant 0 : i32
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = arith.cmpi eq, [[IN_0]], [[C0_I32]] : i32
// CHECK: [[CM1_I32:%[a-zA-Z0-9_.$-]+]] = arith.constant -1 : i32
// CHECK: [[V3:%[a-zA-Z0-9_.$-]+]] = arith.cmpi eq, [[IN_0]], [[CM1_I32]] : i32
// CHECK: [[V4:%[a-zA-Z0-9_.$-]+]] = arith.ori [[V2]], [[V3]] : i1
// CHECK: [[C1_I32:%[a-zA-Z0-9_.$-]+]] = arith.constant 1 : i32
// CHECK: [[V5:%[a-zA-Z0-9_.$-]+]] = arith.select [[V4]], [[C1_I32]], [[IN_0]] : i32
// CHECK: [[C0_I32_1:%[a-zA-Z0-9_.$-]+]] = arith.constant 0 : i32
// CHECK: [[V6:%[a-zA-Z0-9_.$-]+]] = arith.divsi [[IN]], [[V5]] : i32
// CHECK: [[V7:%[a-zA-Z0-9_.$-]+]] = arith.remsi [[IN]], [[V5]] : i32
// CHECK: [[V8:%[a-zA-Z0-9_.$-]+]] = arith.cmpi ne, [[V7]], [[C0_I32_1]] : i32
// CHECK: [[V9:%[a-zA-Z0-9_.$-]+]] = arith.cmpi slt, [[V7]], [[C0_I32_1]] : i32
// CHECK: [[V10:%[a-zA-Z0-9_.$-]+]] = arith.cmpi slt, [[V5]], [[C0_I32_1]] : i32
// CHECK: [[V11:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V9]], [[V10]] : i1
// CHECK: [[V12:%[a-zA-Z0-9_.$-]+]] = arith.andi [[V8]], [[V11]] : i1
// CHECK: [[C1_I32_2:%[a-zA-Z0-9_.$-]+]] = arith.constant 1 : i32
// CHECK: [[V13:%[a-zA-Z0-9_.$-]+]] = arith.subi [[V6]], [[C1_I32_2]] : i32
// CHECK: [[V14:%[a-zA-Z0-9_.$-]+]] = arith.select [[V12]], [[V13]], [[V6]] : i32
// CHECK: [[V15:%[a-zA-Z0-9_.$-]+]] = arith.subi [[C0_I32_1]], [[IN]] : i32
// CHECK: [[V16:%[a-zA-Z0-9_.$-]+]] = arith.select [[V3]], [[V15]], [[V14]] : i32
// CHECK: [[V17:%[a-zA-Z0-9_.$-]+]] = arith.select [[V2]], [[C0_I32_1]], [[V16]] : i32
// CHECK: linalg.yield [[V17]] : i32
// CHECK: } -> tensor<4x5xi32>
// CHECK: return [[V1]] : tensor<4x5xi32>
func.func @floordiv_i32(%a0: tensor<4x5xi32>, %a1: tensor<4x5xi32>) -> tensor<4x5xi32> {
  %0 = mindir.floordiv %a0, %a1 : (tensor<4x5xi32>, tensor<4x5xi32>) -> tensor<4x5xi32>
  return %0 : tensor<4x5xi32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @mod(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xf32>, [[ARG1:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xf32>) -> tensor<4x5xf32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4x5xf32>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]], #[[MAP]]], iterator_types = ["parallel", "parallel"]} ins([[ARG0]], [[ARG1]] : tensor<4x5xf32>, tensor<4x5xf32>) outs([[V0]] : tensor<4x5xf32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: f32, [[IN_0:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT:%[a-zA-Z0-9_.$-]+]]: f32):
// CHECK: [[CST:%[a-zA-Z0-9_.$-]+]] = arith.constant 0.000000e+00 : f32
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = arith.remf [[IN]], [[IN_0]] : f32
// CHECK: [[V3:%[a-zA-Z0-9_.$-]+]] = arith.cmpf une, [[V2]], [[CST]] : f32
// CHECK: [[V4:%[a-zA-Z0-9_.$-]+]] = arith.cmpf olt, [[V2]], [[CST]] : f32
// CHECK: [[V5:%[a-zA-Z0-9_.$-]+]] = arith.cmpf olt, [[IN_0]], [[CST]] : f32
// CHECK: [[V6:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V4]], [[V5]] : i1
// CHECK: [[V7:%[a-zA-Z0-9_.$-]+]] = arith.andi [[V3]], [[V6]] : i1
// CHECK: [[V8:%[a-zA-Z0-9_.$-]+]] = arith.addf [[V2]], [[IN_0]] : f32
// CHECK: [[V9:%[a-zA-Z0-9_.$-]+]] = arith.select [[V7]], [[V8]], [[V2]] : f32
// CHECK: [[V10:%[a-zA-Z0-9_.$-]+]] = arith.cmpf oeq, [[V9]], [[CST]] : f32
// CHECK: [[V11:%[a-zA-Z0-9_.$-]+]] = math.copysign [[CST]], [[IN_0]] : f32
// CHECK: [[V12:%[a-zA-Z0-9_.$-]+]] = arith.select [[V10]], [[V11]], [[V9]] : f32
// CHECK: linalg.yield [[V12]] : f32
// CHECK: } -> tensor<4x5xf32>
// CHECK: return [[V1]] : tensor<4x5xf32>
func.func @mod(%a0: tensor<4x5xf32>, %a1: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %0 = mindir.mod %a0, %a1 : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @mod_i32(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xi32>, [[ARG1:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xi32>) -> tensor<4x5xi32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4x5xi32>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]], #[[MAP]]], iterator_types = ["parallel", "parallel"]} ins([[ARG0]], [[ARG1]] : tensor<4x5xi32>, tensor<4x5xi32>) outs([[V0]] : tensor<4x5xi32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: i32, [[IN_0:%[a-zA-Z0-9_.$-]+]]: i32, [[OUT:%[a-zA-Z0-9_.$-]+]]: i32):
// CHECK: [[C0_I32:%[a-zA-Z0-9_.$-]+]] = arith.constant 0 : i32
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = arith.cmpi eq, [[IN_0]], [[C0_I32]] : i32
// CHECK: [[CM1_I32:%[a-zA-Z0-9_.$-]+]] = arith.constant -1 : i32
// CHECK: [[V3:%[a-zA-Z0-9_.$-]+]] = arith.cmpi eq, [[IN_0]], [[CM1_I32]] : i32
// CHECK: [[V4:%[a-zA-Z0-9_.$-]+]] = arith.ori [[V2]], [[V3]] : i1
// CHECK: [[C1_I32:%[a-zA-Z0-9_.$-]+]] = arith.constant 1 : i32
// CHECK: [[V5:%[a-zA-Z0-9_.$-]+]] = arith.select [[V4]], [[C1_I32]], [[IN_0]] : i32
// CHECK: [[C0_I32_1:%[a-zA-Z0-9_.$-]+]] = arith.constant 0 : i32
// CHECK: [[V6:%[a-zA-Z0-9_.$-]+]] = arith.remsi [[IN]], [[V5]] : i32
// CHECK: [[V7:%[a-zA-Z0-9_.$-]+]] = arith.cmpi ne, [[V6]], [[C0_I32_1]] : i32
// CHECK: [[V8:%[a-zA-Z0-9_.$-]+]] = arith.cmpi slt, [[V6]], [[C0_I32_1]] : i32
// CHECK: [[V9:%[a-zA-Z0-9_.$-]+]] = arith.cmpi slt, [[V5]], [[C0_I32_1]] : i32
// CHECK: [[V10:%[a-zA-Z0-9_.$-]+]] = arith.xori [[V8]], [[V9]] : i1
// CHECK: [[V11:%[a-zA-Z0-9_.$-]+]] = arith.andi [[V7]], [[V10]] : i1
// CHECK: [[V12:%[a-zA-Z0-9_.$-]+]] = arith.addi [[V6]], [[V5]] : i32
// CHECK: [[V13:%[a-zA-Z0-9_.$-]+]] = arith.select [[V11]], [[V12]], [[V6]] : i32
// CHECK: [[V14:%[a-zA-Z0-9_.$-]+]] = arith.select [[V2]], [[C0_I32_1]], [[V13]] : i32
// CHECK: linalg.yield [[V14]] : i32
// CHECK: } -> tensor<4x5xi32>
// CHECK: return [[V1]] : tensor<4x5xi32>
func.func @mod_i32(%a0: tensor<4x5xi32>, %a1: tensor<4x5xi32>) -> tensor<4x5xi32> {
  %0 = mindir.mod %a0, %a1 : (tensor<4x5xi32>, tensor<4x5xi32>) -> tensor<4x5xi32>
  return %0 : tensor<4x5xi32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @pow(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xf32>, [[ARG1:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xf32>) -> tensor<4x5xf32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4x5xf32>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]], #[[MAP]]], iterator_types = ["parallel", "parallel"]} ins([[ARG0]], [[ARG1]] : tensor<4x5xf32>, tensor<4x5xf32>) outs([[V0]] : tensor<4x5xf32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: f32, [[IN_0:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT:%[a-zA-Z0-9_.$-]+]]: f32):
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = math.powf [[IN]], [[IN_0]] : f32
// CHECK: linalg.yield [[V2]] : f32
// CHECK: } -> tensor<4x5xf32>
// CHECK: return [[V1]] : tensor<4x5xf32>
func.func @pow(%a0: tensor<4x5xf32>, %a1: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %0 = mindir.pow %a0, %a1 : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @maximum(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xf32>, [[ARG1:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xf32>) -> tensor<4x5xf32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4x5xf32>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]], #[[MAP]]], iterator_types = ["parallel", "parallel"]} ins([[ARG0]], [[ARG1]] : tensor<4x5xf32>, tensor<4x5xf32>) outs([[V0]] : tensor<4x5xf32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: f32, [[IN_0:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT:%[a-zA-Z0-9_.$-]+]]: f32):
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = arith.maximumf [[IN]], [[IN_0]] : f32
// CHECK: linalg.yield [[V2]] : f32
// CHECK: } -> tensor<4x5xf32>
// CHECK: return [[V1]] : tensor<4x5xf32>
func.func @maximum(%a0: tensor<4x5xf32>, %a1: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %0 = mindir.maximum %a0, %a1 : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @minimum(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xf32>, [[ARG1:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xf32>) -> tensor<4x5xf32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4x5xf32>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]], #[[MAP]]], iterator_types = ["parallel", "parallel"]} ins([[ARG0]], [[ARG1]] : tensor<4x5xf32>, tensor<4x5xf32>) outs([[V0]] : tensor<4x5xf32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: f32, [[IN_0:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT:%[a-zA-Z0-9_.$-]+]]: f32):
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = arith.minimumf [[IN]], [[IN_0]] : f32
// CHECK: linalg.yield [[V2]] : f32
// CHECK: } -> tensor<4x5xf32>
// CHECK: return [[V1]] : tensor<4x5xf32>
func.func @minimum(%a0: tensor<4x5xf32>, %a1: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %0 = mindir.minimum %a0, %a1 : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @maximum_i32(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xi32>, [[ARG1:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xi32>) -> tensor<4x5xi32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4x5xi32>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]], #[[MAP]]], iterator_types = ["parallel", "parallel"]} ins([[ARG0]], [[ARG1]] : tensor<4x5xi32>, tensor<4x5xi32>) outs([[V0]] : tensor<4x5xi32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: i32, [[IN_0:%[a-zA-Z0-9_.$-]+]]: i32, [[OUT:%[a-zA-Z0-9_.$-]+]]: i32):
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = arith.maxsi [[IN]], [[IN_0]] : i32
// CHECK: linalg.yield [[V2]] : i32
// CHECK: } -> tensor<4x5xi32>
// CHECK: return [[V1]] : tensor<4x5xi32>
func.func @maximum_i32(%a0: tensor<4x5xi32>, %a1: tensor<4x5xi32>) -> tensor<4x5xi32> {
  %0 = mindir.maximum %a0, %a1 : (tensor<4x5xi32>, tensor<4x5xi32>) -> tensor<4x5xi32>
  return %0 : tensor<4x5xi32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @minimum_i8(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<3xi8>, [[ARG1:%[a-zA-Z0-9_.$-]+]]: tensor<3xi8>) -> tensor<3xi8> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<3xi8>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]], #[[MAP]]], iterator_types = ["parallel"]} ins([[ARG0]], [[ARG1]] : tensor<3xi8>, tensor<3xi8>) outs([[V0]] : tensor<3xi8>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: i8, [[IN_0:%[a-zA-Z0-9_.$-]+]]: i8, [[OUT:%[a-zA-Z0-9_.$-]+]]: i8):
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = arith.minsi [[IN]], [[IN_0]] : i8
// CHECK: linalg.yield [[V2]] : i8
// CHECK: } -> tensor<3xi8>
// CHECK: return [[V1]] : tensor<3xi8>
func.func @minimum_i8(%a0: tensor<3xi8>, %a1: tensor<3xi8>) -> tensor<3xi8> {
  %0 = mindir.minimum %a0, %a1 : (tensor<3xi8>, tensor<3xi8>) -> tensor<3xi8>
  return %0 : tensor<3xi8>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @equal(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xf32>, [[ARG1:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xf32>) -> tensor<4x5xi1> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4x5xi1>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]], #[[MAP]]], iterator_types = ["parallel", "parallel"]} ins([[ARG0]], [[ARG1]] : tensor<4x5xf32>, tensor<4x5xf32>) outs([[V0]] : tensor<4x5xi1>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: f32, [[IN_0:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT:%[a-zA-Z0-9_.$-]+]]: i1):
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = arith.cmpf oeq, [[IN]], [[IN_0]] : f32
// CHECK: linalg.yield [[V2]] : i1
// CHECK: } -> tensor<4x5xi1>
// CHECK: return [[V1]] : tensor<4x5xi1>
func.func @equal(%a0: tensor<4x5xf32>, %a1: tensor<4x5xf32>) -> tensor<4x5xi1> {
  %0 = mindir.equal %a0, %a1 : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x5xi1>
  return %0 : tensor<4x5xi1>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @not_equal(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xf32>, [[ARG1:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xf32>) -> tensor<4x5xi1> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4x5xi1>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]], #[[MAP]]], iterator_types = ["parallel", "parallel"]} ins([[ARG0]], [[ARG1]] : tensor<4x5xf32>, tensor<4x5xf32>) outs([[V0]] : tensor<4x5xi1>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: f32, [[IN_0:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT:%[a-zA-Z0-9_.$-]+]]: i1):
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = arith.cmpf une, [[IN]], [[IN_0]] : f32
// CHECK: linalg.yield [[V2]] : i1
// CHECK: } -> tensor<4x5xi1>
// CHECK: return [[V1]] : tensor<4x5xi1>
func.func @not_equal(%a0: tensor<4x5xf32>, %a1: tensor<4x5xf32>) -> tensor<4x5xi1> {
  %0 = mindir.not_equal %a0, %a1 : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x5xi1>
  return %0 : tensor<4x5xi1>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @less(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xf32>, [[ARG1:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xf32>) -> tensor<4x5xi1> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4x5xi1>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]], #[[MAP]]], iterator_types = ["parallel", "parallel"]} ins([[ARG0]], [[ARG1]] : tensor<4x5xf32>, tensor<4x5xf32>) outs([[V0]] : tensor<4x5xi1>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: f32, [[IN_0:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT:%[a-zA-Z0-9_.$-]+]]: i1):
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = arith.cmpf olt, [[IN]], [[IN_0]] : f32
// CHECK: linalg.yield [[V2]] : i1
// CHECK: } -> tensor<4x5xi1>
// CHECK: return [[V1]] : tensor<4x5xi1>
func.func @less(%a0: tensor<4x5xf32>, %a1: tensor<4x5xf32>) -> tensor<4x5xi1> {
  %0 = mindir.less %a0, %a1 : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x5xi1>
  return %0 : tensor<4x5xi1>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @less_equal(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xf32>, [[ARG1:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xf32>) -> tensor<4x5xi1> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4x5xi1>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]], #[[MAP]]], iterator_types = ["parallel", "parallel"]} ins([[ARG0]], [[ARG1]] : tensor<4x5xf32>, tensor<4x5xf32>) outs([[V0]] : tensor<4x5xi1>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: f32, [[IN_0:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT:%[a-zA-Z0-9_.$-]+]]: i1):
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ole, [[IN]], [[IN_0]] : f32
// CHECK: linalg.yield [[V2]] : i1
// CHECK: } -> tensor<4x5xi1>
// CHECK: return [[V1]] : tensor<4x5xi1>
func.func @less_equal(%a0: tensor<4x5xf32>, %a1: tensor<4x5xf32>) -> tensor<4x5xi1> {
  %0 = mindir.less_equal %a0, %a1 : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x5xi1>
  return %0 : tensor<4x5xi1>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @greater(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xf32>, [[ARG1:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xf32>) -> tensor<4x5xi1> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4x5xi1>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]], #[[MAP]]], iterator_types = ["parallel", "parallel"]} ins([[ARG0]], [[ARG1]] : tensor<4x5xf32>, tensor<4x5xf32>) outs([[V0]] : tensor<4x5xi1>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: f32, [[IN_0:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT:%[a-zA-Z0-9_.$-]+]]: i1):
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = arith.cmpf ogt, [[IN]], [[IN_0]] : f32
// CHECK: linalg.yield [[V2]] : i1
// CHECK: } -> tensor<4x5xi1>
// CHECK: return [[V1]] : tensor<4x5xi1>
func.func @greater(%a0: tensor<4x5xf32>, %a1: tensor<4x5xf32>) -> tensor<4x5xi1> {
  %0 = mindir.greater %a0, %a1 : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x5xi1>
  return %0 : tensor<4x5xi1>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @greater_equal(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xf32>, [[ARG1:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xf32>) -> tensor<4x5xi1> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4x5xi1>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]], #[[MAP]]], iterator_types = ["parallel", "parallel"]} ins([[ARG0]], [[ARG1]] : tensor<4x5xf32>, tensor<4x5xf32>) outs([[V0]] : tensor<4x5xi1>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: f32, [[IN_0:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT:%[a-zA-Z0-9_.$-]+]]: i1):
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = arith.cmpf oge, [[IN]], [[IN_0]] : f32
// CHECK: linalg.yield [[V2]] : i1
// CHECK: } -> tensor<4x5xi1>
// CHECK: return [[V1]] : tensor<4x5xi1>
func.func @greater_equal(%a0: tensor<4x5xf32>, %a1: tensor<4x5xf32>) -> tensor<4x5xi1> {
  %0 = mindir.greater_equal %a0, %a1 : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x5xi1>
  return %0 : tensor<4x5xi1>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @less_i32(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xi32>, [[ARG1:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xi32>) -> tensor<4x5xi1> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4x5xi1>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]], #[[MAP]]], iterator_types = ["parallel", "parallel"]} ins([[ARG0]], [[ARG1]] : tensor<4x5xi32>, tensor<4x5xi32>) outs([[V0]] : tensor<4x5xi1>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: i32, [[IN_0:%[a-zA-Z0-9_.$-]+]]: i32, [[OUT:%[a-zA-Z0-9_.$-]+]]: i1):
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = arith.cmpi slt, [[IN]], [[IN_0]] : i32
// CHECK: linalg.yield [[V2]] : i1
// CHECK: } -> tensor<4x5xi1>
// CHECK: return [[V1]] : tensor<4x5xi1>
func.func @less_i32(%a0: tensor<4x5xi32>, %a1: tensor<4x5xi32>) -> tensor<4x5xi1> {
  %0 = mindir.less %a0, %a1 : (tensor<4x5xi32>, tensor<4x5xi32>) -> tensor<4x5xi1>
  return %0 : tensor<4x5xi1>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @greater_equal_i64(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<3xi64>, [[ARG1:%[a-zA-Z0-9_.$-]+]]: tensor<3xi64>) -> tensor<3xi1> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<3xi1>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]], #[[MAP]]], iterator_types = ["parallel"]} ins([[ARG0]], [[ARG1]] : tensor<3xi64>, tensor<3xi64>) outs([[V0]] : tensor<3xi1>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: i64, [[IN_0:%[a-zA-Z0-9_.$-]+]]: i64, [[OUT:%[a-zA-Z0-9_.$-]+]]: i1):
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = arith.cmpi sge, [[IN]], [[IN_0]] : i64
// CHECK: linalg.yield [[V2]] : i1
// CHECK: } -> tensor<3xi1>
// CHECK: return [[V1]] : tensor<3xi1>
func.func @greater_equal_i64(%a0: tensor<3xi64>, %a1: tensor<3xi64>) -> tensor<3xi1> {
  %0 = mindir.greater_equal %a0, %a1 : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi1>
  return %0 : tensor<3xi1>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @less_i1(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xi1>, [[ARG1:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xi1>) -> tensor<4x5xi1> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4x5xi1>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]], #[[MAP]]], iterator_types = ["parallel", "parallel"]} ins([[ARG0]], [[ARG1]] : tensor<4x5xi1>, tensor<4x5xi1>) outs([[V0]] : tensor<4x5xi1>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: i1, [[IN_0:%[a-zA-Z0-9_.$-]+]]: i1, [[OUT:%[a-zA-Z0-9_.$-]+]]: i1):
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = arith.cmpi ult, [[IN]], [[IN_0]] : i1
// CHECK: linalg.yield [[V2]] : i1
// CHECK: } -> tensor<4x5xi1>
// CHECK: return [[V1]] : tensor<4x5xi1>
func.func @less_i1(%a0: tensor<4x5xi1>, %a1: tensor<4x5xi1>) -> tensor<4x5xi1> {
  %0 = mindir.less %a0, %a1 : (tensor<4x5xi1>, tensor<4x5xi1>) -> tensor<4x5xi1>
  return %0 : tensor<4x5xi1>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @logical_and(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xi1>, [[ARG1:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xi1>) -> tensor<4x5xi1> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4x5xi1>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]], #[[MAP]]], iterator_types = ["parallel", "parallel"]} ins([[ARG0]], [[ARG1]] : tensor<4x5xi1>, tensor<4x5xi1>) outs([[V0]] : tensor<4x5xi1>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: i1, [[IN_0:%[a-zA-Z0-9_.$-]+]]: i1, [[OUT:%[a-zA-Z0-9_.$-]+]]: i1):
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = arith.andi [[IN]], [[IN_0]] : i1
// CHECK: linalg.yield [[V2]] : i1
// CHECK: } -> tensor<4x5xi1>
// CHECK: return [[V1]] : tensor<4x5xi1>
func.func @logical_and(%a0: tensor<4x5xi1>, %a1: tensor<4x5xi1>) -> tensor<4x5xi1> {
  %0 = mindir.logical_and %a0, %a1 : (tensor<4x5xi1>, tensor<4x5xi1>) -> tensor<4x5xi1>
  return %0 : tensor<4x5xi1>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[MAP1:map[0-9]*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @logical_or(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xi1>, [[ARG1:%[a-zA-Z0-9_.$-]+]]: tensor<5xi1>) -> tensor<4x5xi1> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4x5xi1>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP1]], #[[MAP]]], iterator_types = ["parallel", "parallel"]} ins([[ARG0]], [[ARG1]] : tensor<4x5xi1>, tensor<5xi1>) outs([[V0]] : tensor<4x5xi1>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: i1, [[IN_0:%[a-zA-Z0-9_.$-]+]]: i1, [[OUT:%[a-zA-Z0-9_.$-]+]]: i1):
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = arith.ori [[IN]], [[IN_0]] : i1
// CHECK: linalg.yield [[V2]] : i1
// CHECK: } -> tensor<4x5xi1>
// CHECK: return [[V1]] : tensor<4x5xi1>
func.func @logical_or(%a0: tensor<4x5xi1>, %a1: tensor<5xi1>) -> tensor<4x5xi1> {
  %0 = mindir.logical_or %a0, %a1 : (tensor<4x5xi1>, tensor<5xi1>) -> tensor<4x5xi1>
  return %0 : tensor<4x5xi1>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[MAP1:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[MAP2:map[0-9]*]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @select(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4x1xi1>, [[ARG1:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xf32>, [[ARG2:%[a-zA-Z0-9_.$-]+]]: tensor<f32>) -> tensor<4x5xf32> {
// CHECK: [[COLLAPSED:%[a-zA-Z0-9_.$-]+]] = tensor.collapse_shape [[ARG0]] {{\[\[}}0, 1]] : tensor<4x1xi1> into tensor<4xi1>
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4x5xf32>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP1]], #[[MAP2]], #[[MAP1]]], iterator_types = ["parallel", "parallel"]} ins([[COLLAPSED]], [[ARG1]], [[ARG2]] : tensor<4xi1>, tensor<4x5xf32>, tensor<f32>) outs([[V0]] : tensor<4x5xf32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: i1, [[IN_0:%[a-zA-Z0-9_.$-]+]]: f32, [[IN_1:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT:%[a-zA-Z0-9_.$-]+]]: f32):
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = arith.select [[IN]], [[IN_0]], [[IN_1]] : f32
// CHECK: linalg.yield [[V2]] : f32
// CHECK: } -> tensor<4x5xf32>
// CHECK: return [[V1]] : tensor<4x5xf32>
func.func @select(%a0: tensor<4x1xi1>, %a1: tensor<4x5xf32>, %a2: tensor<f32>) -> tensor<4x5xf32> {
  %0 = mindir.select %a0, %a1, %a2 : (tensor<4x1xi1>, tensor<4x5xf32>, tensor<f32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[MAP1:map[0-9]*]] = affine_map<(d0, d1) -> ()>
// CHECK-DAG: #[[MAP2:map[0-9]*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @clamp(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xf32>, [[ARG1:%[a-zA-Z0-9_.$-]+]]: tensor<f32>, [[ARG2:%[a-zA-Z0-9_.$-]+]]: tensor<5xf32>) -> tensor<4x5xf32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4x5xf32>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP1]], #[[MAP2]], #[[MAP]]], iterator_types = ["parallel", "parallel"]} ins([[ARG0]], [[ARG1]], [[ARG2]] : tensor<4x5xf32>, tensor<f32>, tensor<5xf32>) outs([[V0]] : tensor<4x5xf32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: f32, [[IN_0:%[a-zA-Z0-9_.$-]+]]: f32, [[IN_1:%[a-zA-Z0-9_.$-]+]]: f32, [[OUT:%[a-zA-Z0-9_.$-]+]]: f32):
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = arith.maximumf [[IN]], [[IN_0]] : f32
// CHECK: [[V3:%[a-zA-Z0-9_.$-]+]] = arith.minimumf [[V2]], [[IN_1]] : f32
// CHECK: linalg.yield [[V3]] : f32
// CHECK: } -> tensor<4x5xf32>
// CHECK: return [[V1]] : tensor<4x5xf32>
func.func @clamp(%a0: tensor<4x5xf32>, %a1: tensor<f32>, %a2: tensor<5xf32>) -> tensor<4x5xf32> {
  %0 = mindir.clamp %a0, %a1, %a2 : (tensor<4x5xf32>, tensor<f32>, tensor<5xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

// CHECK-DAG: #[[MAP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[MAP1:map[0-9]*]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @clamp_i32(
// CHECK-SAME: [[ARG0:%[a-zA-Z0-9_.$-]+]]: tensor<4x5xi32>, [[ARG1:%[a-zA-Z0-9_.$-]+]]: tensor<i32>, [[ARG2:%[a-zA-Z0-9_.$-]+]]: tensor<i32>) -> tensor<4x5xi32> {
// CHECK: [[V0:%[a-zA-Z0-9_.$-]+]] = tensor.empty() : tensor<4x5xi32>
// CHECK: [[V1:%[a-zA-Z0-9_.$-]+]] = linalg.generic {indexing_maps = [#[[MAP]], #[[MAP1]], #[[MAP1]], #[[MAP]]], iterator_types = ["parallel", "parallel"]} ins([[ARG0]], [[ARG1]], [[ARG2]] : tensor<4x5xi32>, tensor<i32>, tensor<i32>) outs([[V0]] : tensor<4x5xi32>) {
// CHECK: ^bb0([[IN:%[a-zA-Z0-9_.$-]+]]: i32, [[IN_0:%[a-zA-Z0-9_.$-]+]]: i32, [[IN_1:%[a-zA-Z0-9_.$-]+]]: i32, [[OUT:%[a-zA-Z0-9_.$-]+]]: i32):
// CHECK: [[V2:%[a-zA-Z0-9_.$-]+]] = arith.maxsi [[IN]], [[IN_0]] : i32
// CHECK: [[V3:%[a-zA-Z0-9_.$-]+]] = arith.minsi [[V2]], [[IN_1]] : i32
// CHECK: linalg.yield [[V3]] : i32
// CHECK: } -> tensor<4x5xi32>
// CHECK: return [[V1]] : tensor<4x5xi32>
func.func @clamp_i32(%a0: tensor<4x5xi32>, %a1: tensor<i32>, %a2: tensor<i32>) -> tensor<4x5xi32> {
  %0 = mindir.clamp %a0, %a1, %a2 : (tensor<4x5xi32>, tensor<i32>, tensor<i32>) -> tensor<4x5xi32>
  return %0 : tensor<4x5xi32>
}
