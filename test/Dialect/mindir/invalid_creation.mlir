// Diagnostics of the creation ops.
// RUN: ms-opt %s --split-input-file --verify-diagnostics

func.func @constant_bad_element_type() -> tensor<2xi16> {
  // expected-error @+1 {{'mindir.constant' op result #0 must be statically shaped tensor (at most 2^63-1 bytes) of f16, bf16, f32, f64, i1, i8, i32 or i64 values, but got 'tensor<2xi16>'}}
  %0 = mindir.constant dense<1> : tensor<2xi16>
  return %0 : tensor<2xi16>
}

// -----

func.func @constant_type_mismatch() -> tensor<3xf32> {
  // expected-error @+2 {{'mindir.constant' op inferred type(s) 'tensor<2xf32>' are incompatible with return type(s) of operation 'tensor<3xf32>'}}
  // expected-error @+1 {{'mindir.constant' op failed to infer returned types}}
  %0 = "mindir.constant"() <{value = dense<1.0> : tensor<2xf32>}> : () -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @fill_type_mismatch() -> tensor<2xf32> {
  // expected-error @+1 {{'mindir.fill' op fill value has type 'i32' but the result element type is 'f32'}}
  %0 = mindir.fill 1 : i32 : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @fill_dynamic() -> tensor<?xf32> {
  // expected-error @+1 {{'mindir.fill' op result #0 must be statically shaped tensor}}
  %0 = mindir.fill 1.0 : f32 : tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

func.func @zeros_like_type_mismatch(%x: tensor<2xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'mindir.zeros_like' op requires the same type for all operands and results}}
  %0 = "mindir.zeros_like"(%x) : (tensor<2xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @arange_zero_delta() -> tensor<0xf32> {
  // expected-error @+1 {{'mindir.arange' op delta must not be zero}}
  %0 = mindir.arange {start = 0.0 : f64, limit = 5.0 : f64, delta = 0.0 : f64} : tensor<0xf32>
  return %0 : tensor<0xf32>
}

// -----

func.func @arange_wrong_count() -> tensor<4xi32> {
  // expected-error @+1 {{'mindir.arange' op range [0, 5) with step 2 has 3 elements, but the result type is 'tensor<4xi32>'}}
  %0 = mindir.arange {start = 0.0 : f64, limit = 5.0 : f64, delta = 2.0 : f64} : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @arange_not_1d() -> tensor<1x5xi32> {
  // expected-error @+1 {{'mindir.arange' op range [0, 5) with step 1 has 5 elements, but the result type is 'tensor<1x5xi32>'}}
  %0 = mindir.arange {start = 0.0 : f64, limit = 5.0 : f64} : tensor<1x5xi32>
  return %0 : tensor<1x5xi32>
}

// -----

func.func @arange_bool() -> tensor<2xi1> {
  // expected-error @+1 {{'mindir.arange' op result #0 must be statically shaped tensor (at most 2^63-1 bytes) of number (f16, bf16, f32, f64, i8, i32, i64) values, but got 'tensor<2xi1>'}}
  %0 = mindir.arange {start = 0.0 : f64, limit = 2.0 : f64} : tensor<2xi1>
  return %0 : tensor<2xi1>
}

// -----

func.func @arange_missing_limit() -> tensor<2xf32> {
  // expected-error @+1 {{'mindir.arange' op requires attribute 'limit'}}
  %0 = mindir.arange {start = 0.0 : f64} : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @random_uniform_empty_range() -> tensor<4xf32> {
  // expected-error @+1 {{'mindir.random_uniform' op minval must be less than maxval, got [1, 1)}}
  %0 = mindir.random_uniform {seed = 1 : i64, minval = 1.0 : f64} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @random_uniform_int() -> tensor<4xi32> {
  // expected-error @+1 {{'mindir.random_uniform' op result #0 must be statically shaped tensor (at most 2^63-1 bytes) of float (f16, bf16, f32, f64) values, but got 'tensor<4xi32>'}}
  %0 = mindir.random_uniform {seed = 1 : i64} : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @random_uniform_no_seed() -> tensor<4xf32> {
  // expected-error @+1 {{'mindir.random_uniform' op requires attribute 'seed'}}
  %0 = mindir.random_uniform : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @random_normal_negative_stddev() -> tensor<4xf32> {
  // expected-error @+1 {{'mindir.random_normal' op stddev must be non-negative, got -1}}
  %0 = mindir.random_normal {seed = 1 : i64, stddev = -1.0 : f64} : tensor<4xf32>
  return %0 : tensor<4xf32>
}
