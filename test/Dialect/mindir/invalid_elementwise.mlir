// Diagnostics of the elementwise ops, select, clamp and cast.
// RUN: ms-opt %s --split-input-file --verify-diagnostics

func.func @exp_int(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'mindir.exp' op operand #0 must be statically shaped tensor (at most 2^63-1 bytes) of float (f16, bf16, f32, f64) values, but got 'tensor<4xi32>'}}
  %0 = mindir.exp %x : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @neg_bool(%x: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{'mindir.neg' op operand #0 must be statically shaped tensor (at most 2^63-1 bytes) of number (f16, bf16, f32, f64, i8, i32, i64) values, but got 'tensor<4xi1>'}}
  %0 = mindir.neg %x : tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @relu_dynamic(%x: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{'mindir.relu' op operand #0 must be statically shaped tensor (at most 2^63-1 bytes) of number}}
  %0 = mindir.relu %x : tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

func.func @sqrt_unranked(%x: tensor<*xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'mindir.sqrt' op operand #0 must be statically shaped tensor (at most 2^63-1 bytes) of float}}
  %0 = "mindir.sqrt"(%x) : (tensor<*xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @abs_i16(%x: tensor<4xi16>) -> tensor<4xi16> {
  // expected-error @+1 {{'mindir.abs' op operand #0 must be statically shaped tensor (at most 2^63-1 bytes) of number}}
  %0 = mindir.abs %x : tensor<4xi16>
  return %0 : tensor<4xi16>
}

// -----

func.func @sigmoid_type_mismatch(%x: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error @+1 {{'mindir.sigmoid' op requires the same type for all operands and results}}
  %0 = "mindir.sigmoid"(%x) : (tensor<4xf32>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

func.func @leaky_relu_int(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'mindir.leaky_relu' op operand #0 must be statically shaped tensor (at most 2^63-1 bytes) of float}}
  %0 = mindir.leaky_relu %x : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @gelu_bad_approximate(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{expected ::msmlir::mindir::GeluApproximate to be one of: tanh, none}}
  // expected-error @+1 {{failed to parse MindIR_GeluApproximateAttr parameter 'value'}}
  %0 = mindir.gelu %x {approximate = #mindir.approximate<erf>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @gelu_approximate_string(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'mindir.gelu' op attribute 'approximate' failed to satisfy constraint: GELU formula: tanh (approximation) or none (erf)}}
  %0 = mindir.gelu %x {approximate = "none"} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @logical_not_float(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'mindir.logical_not' op operand #0 must be statically shaped tensor (at most 2^63-1 bytes) of 1-bit signless integer values, but got 'tensor<4xf32>'}}
  %0 = mindir.logical_not %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @isnan_int(%x: tensor<4xi32>) -> tensor<4xi1> {
  // expected-error @+1 {{'mindir.isnan' op operand #0 must be statically shaped tensor (at most 2^63-1 bytes) of float}}
  %0 = mindir.isnan %x : (tensor<4xi32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @isfinite_wrong_shape(%x: tensor<4xf32>) -> tensor<3xi1> {
  // expected-error @+2 {{'mindir.isfinite' op inferred type(s) 'tensor<4xi1>' are incompatible with return type(s) of operation 'tensor<3xi1>'}}
  // expected-error @+1 {{'mindir.isfinite' op failed to infer returned types}}
  %0 = mindir.isfinite %x : (tensor<4xf32>) -> tensor<3xi1>
  return %0 : tensor<3xi1>
}

// -----

func.func @cast_shape(%x: tensor<4xf32>) -> tensor<2x2xi32> {
  // expected-error @+1 {{'mindir.cast' op cast cannot change the shape: 'tensor<4xf32>' to 'tensor<2x2xi32>'}}
  %0 = mindir.cast %x : tensor<4xf32> to tensor<2x2xi32>
  return %0 : tensor<2x2xi32>
}

// -----

func.func @cast_to_i16(%x: tensor<4xf32>) -> tensor<4xi16> {
  // expected-error @+1 {{'mindir.cast' op result #0 must be statically shaped tensor (at most 2^63-1 bytes) of f16, bf16, f32, f64, i1, i8, i32 or i64 values, but got 'tensor<4xi16>'}}
  %0 = mindir.cast %x : tensor<4xf32> to tensor<4xi16>
  return %0 : tensor<4xi16>
}

// -----

func.func @add_broadcast(%a: tensor<2x3xf32>, %b: tensor<4xf32>) -> tensor<2x4xf32> {
  // expected-error @+2 {{shapes [2, 3] and [4] cannot be broadcast together}}
  // expected-error @+1 {{'mindir.add' op failed to infer returned types}}
  %0 = mindir.add %a, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @sub_element_types(%a: tensor<4xf32>, %b: tensor<4xf16>) -> tensor<4xf32> {
  // expected-error @+2 {{operands must have the same element type, got 'f32' and 'f16'}}
  // expected-error @+1 {{'mindir.sub' op failed to infer returned types}}
  %0 = mindir.sub %a, %b : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @mul_wrong_result(%a: tensor<2x1xf32>, %b: tensor<3xf32>) -> tensor<2x1xf32> {
  // expected-error @+2 {{'mindir.mul' op inferred type(s) 'tensor<2x3xf32>' are incompatible with return type(s) of operation 'tensor<2x1xf32>'}}
  // expected-error @+1 {{'mindir.mul' op failed to infer returned types}}
  %0 = mindir.mul %a, %b : (tensor<2x1xf32>, tensor<3xf32>) -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}

// -----

func.func @div_wrong_result_element(%a: tensor<4xi32>) -> tensor<4xf32> {
  // expected-error @+2 {{'mindir.div' op inferred type(s) 'tensor<4xi32>' are incompatible with return type(s) of operation 'tensor<4xf32>'}}
  // expected-error @+1 {{'mindir.div' op failed to infer returned types}}
  %0 = mindir.div %a, %a : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @floordiv_bool(%a: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{'mindir.floordiv' op operand #0 must be statically shaped tensor (at most 2^63-1 bytes) of number}}
  %0 = mindir.floordiv %a, %a : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @mod_dynamic(%a: tensor<?xi32>) -> tensor<?xi32> {
  // expected-error @+1 {{'mindir.mod' op operand #0 must be statically shaped tensor (at most 2^63-1 bytes) of number}}
  %0 = mindir.mod %a, %a : (tensor<?xi32>, tensor<?xi32>) -> tensor<?xi32>
  return %0 : tensor<?xi32>
}

// -----

func.func @pow_int(%a: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'mindir.pow' op operand #0 must be statically shaped tensor (at most 2^63-1 bytes) of float}}
  %0 = mindir.pow %a, %a : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @maximum_element_types(%a: tensor<4xi32>, %b: tensor<4xi64>) -> tensor<4xi32> {
  // expected-error @+2 {{operands must have the same element type, got 'i32' and 'i64'}}
  // expected-error @+1 {{'mindir.maximum' op failed to infer returned types}}
  %0 = mindir.maximum %a, %b : (tensor<4xi32>, tensor<4xi64>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @minimum_broadcast(%a: tensor<3x2xf32>, %b: tensor<3xf32>) -> tensor<3x2xf32> {
  // expected-error @+2 {{shapes [3, 2] and [3] cannot be broadcast together}}
  // expected-error @+1 {{'mindir.minimum' op failed to infer returned types}}
  %0 = mindir.minimum %a, %b : (tensor<3x2xf32>, tensor<3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func @equal_result_not_bool(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'mindir.equal' op result #0 must be statically shaped tensor (at most 2^63-1 bytes) of 1-bit signless integer values, but got 'tensor<4xf32>'}}
  %0 = mindir.equal %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @less_element_types(%a: tensor<4xf32>, %b: tensor<4xi32>) -> tensor<4xi1> {
  // expected-error @+2 {{operands must have the same element type, got 'f32' and 'i32'}}
  // expected-error @+1 {{'mindir.less' op failed to infer returned types}}
  %0 = mindir.less %a, %b : (tensor<4xf32>, tensor<4xi32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @greater_broadcast(%a: tensor<4xf32>, %b: tensor<5xf32>) -> tensor<4xi1> {
  // expected-error @+2 {{shapes [4] and [5] cannot be broadcast together}}
  // expected-error @+1 {{'mindir.greater' op failed to infer returned types}}
  %0 = mindir.greater %a, %b : (tensor<4xf32>, tensor<5xf32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @not_equal_wrong_shape(%a: tensor<4xf32>, %b: tensor<f32>) -> tensor<i1> {
  // expected-error @+2 {{'mindir.not_equal' op inferred type(s) 'tensor<4xi1>' are incompatible with return type(s) of operation 'tensor<i1>'}}
  // expected-error @+1 {{'mindir.not_equal' op failed to infer returned types}}
  %0 = mindir.not_equal %a, %b : (tensor<4xf32>, tensor<f32>) -> tensor<i1>
  return %0 : tensor<i1>
}

// -----

func.func @logical_and_float(%a: tensor<4xf32>) -> tensor<4xi1> {
  // expected-error @+1 {{'mindir.logical_and' op operand #0 must be statically shaped tensor (at most 2^63-1 bytes) of 1-bit signless integer values, but got 'tensor<4xf32>'}}
  %0 = mindir.logical_and %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @logical_or_broadcast(%a: tensor<2xi1>, %b: tensor<3xi1>) -> tensor<3xi1> {
  // expected-error @+2 {{shapes [2] and [3] cannot be broadcast together}}
  // expected-error @+1 {{'mindir.logical_or' op failed to infer returned types}}
  %0 = mindir.logical_or %a, %b : (tensor<2xi1>, tensor<3xi1>) -> tensor<3xi1>
  return %0 : tensor<3xi1>
}

// -----

func.func @select_cond_not_bool(%c: tensor<4xf32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'mindir.select' op operand #0 must be statically shaped tensor (at most 2^63-1 bytes) of 1-bit signless integer values, but got 'tensor<4xf32>'}}
  %0 = mindir.select %c, %x, %x : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @select_element_types(%c: tensor<4xi1>, %x: tensor<4xf32>, %y: tensor<4xf64>) -> tensor<4xf32> {
  // expected-error @+2 {{operands must have the same element type, got 'f32' and 'f64'}}
  // expected-error @+1 {{'mindir.select' op failed to infer returned types}}
  %0 = mindir.select %c, %x, %y : (tensor<4xi1>, tensor<4xf32>, tensor<4xf64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @select_broadcast(%c: tensor<3xi1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{shapes [3] and [4] cannot be broadcast together}}
  // expected-error @+1 {{'mindir.select' op failed to infer returned types}}
  %0 = mindir.select %c, %x, %x : (tensor<3xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @clamp_element_types(%x: tensor<4xf32>, %lo: tensor<i32>) -> tensor<4xf32> {
  // expected-error @+2 {{operands must have the same element type, got 'f32' and 'i32'}}
  // expected-error @+1 {{'mindir.clamp' op failed to infer returned types}}
  %0 = mindir.clamp %x, %lo, %lo : (tensor<4xf32>, tensor<i32>, tensor<i32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @clamp_broadcast(%x: tensor<4xf32>, %lo: tensor<2xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{shapes [4] and [2] cannot be broadcast together}}
  // expected-error @+1 {{'mindir.clamp' op failed to infer returned types}}
  %0 = mindir.clamp %x, %lo, %lo : (tensor<4xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
