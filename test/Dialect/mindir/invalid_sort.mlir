// Diagnostics of mindir.sort.
// RUN: ms-opt %s --split-input-file --verify-diagnostics

func.func @sort_axis_out_of_range(%x: tensor<2x3xf32>) -> tensor<2x3xi32> {
  // expected-error @+2 {{axis 2 is out of range for rank 2}}
  // expected-error @+1 {{'mindir.sort' op failed to infer returned types}}
  %v, %i = mindir.sort %x {axis = 2 : i64} : (tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xi32>)
  return %i : tensor<2x3xi32>
}

// -----

func.func @sort_negative_axis_out_of_range(%x: tensor<2x3xf32>) -> tensor<2x3xi32> {
  // expected-error @+2 {{axis -3 is out of range for rank 2}}
  // expected-error @+1 {{'mindir.sort' op failed to infer returned types}}
  %v, %i = mindir.sort %x {axis = -3 : i64} : (tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xi32>)
  return %i : tensor<2x3xi32>
}

// -----

func.func @sort_0d(%x: tensor<f32>) -> tensor<i32> {
  // expected-error @+2 {{sort needs a tensor of rank >= 1}}
  // expected-error @+1 {{'mindir.sort' op failed to infer returned types}}
  %v, %i = mindir.sort %x : (tensor<f32>) -> (tensor<f32>, tensor<i32>)
  return %i : tensor<i32>
}

// -----

func.func @sort_i64_indices(%x: tensor<4xf32>) -> tensor<4xi64> {
  // expected-error @+1 {{result #1 must be statically shaped tensor (at most 2^63-1 bytes) of 32-bit signless integer values}}
  %v, %i = mindir.sort %x : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xi64>)
  return %i : tensor<4xi64>
}

// -----

func.func @sort_values_type(%x: tensor<4xf32>) -> tensor<4xf64> {
  // expected-error @+2 {{'mindir.sort' op inferred type(s) 'tensor<4xf32>', 'tensor<4xi32>' are incompatible with return type(s) of operation 'tensor<4xf64>', 'tensor<4xi32>'}}
  // expected-error @+1 {{'mindir.sort' op failed to infer returned types}}
  %v, %i = mindir.sort %x : (tensor<4xf32>) -> (tensor<4xf64>, tensor<4xi32>)
  return %v : tensor<4xf64>
}

// -----

func.func @sort_shape_mismatch(%x: tensor<4x2xf32>) -> tensor<2x4xi32> {
  // expected-error @+2 {{'mindir.sort' op inferred type(s) 'tensor<4x2xf32>', 'tensor<4x2xi32>' are incompatible with return type(s) of operation 'tensor<4x2xf32>', 'tensor<2x4xi32>'}}
  // expected-error @+1 {{'mindir.sort' op failed to infer returned types}}
  %v, %i = mindir.sort %x : (tensor<4x2xf32>) -> (tensor<4x2xf32>, tensor<2x4xi32>)
  return %i : tensor<2x4xi32>
}

// -----

func.func @sort_bool(%x: tensor<4xi1>) -> tensor<4xi32> {
  // expected-error @+1 {{operand #0 must be statically shaped tensor (at most 2^63-1 bytes) of number (f16, bf16, f32, f64, i8, i32, i64) values}}
  %v, %i = mindir.sort %x : (tensor<4xi1>) -> (tensor<4xi1>, tensor<4xi32>)
  return %i : tensor<4xi32>
}

// -----

func.func @sort_axis_too_long(%x: tensor<2147483648xi8>) -> tensor<2147483648xi32> {
  // expected-error @+2 {{sort axis of size 2147483648 does not fit i32 indices}}
  // expected-error @+1 {{'mindir.sort' op failed to infer returned types}}
  %v, %i = mindir.sort %x : (tensor<2147483648xi8>) -> (tensor<2147483648xi8>, tensor<2147483648xi32>)
  return %i : tensor<2147483648xi32>
}
