// Diagnostics of the integer bitwise ops (issue 12).
// RUN: ms-opt %s --split-input-file --verify-diagnostics

func.func @and_float(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'mindir.bitwise_and' op operand #0 must be statically shaped tensor (at most 2^63-1 bytes) of integer (i8, i32, i64) values, but got 'tensor<4xf32>'}}
  %0 = mindir.bitwise_and %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @not_bool(%x: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{'mindir.bitwise_not' op operand #0 must be statically shaped tensor (at most 2^63-1 bytes) of integer (i8, i32, i64) values, but got 'tensor<4xi1>'}}
  %0 = mindir.bitwise_not %x : tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @shift_mixed(%x: tensor<4xi32>, %y: tensor<4xi64>) -> tensor<4xi32> {
  // expected-error @+2 {{operands must have the same element type, got 'i32' and 'i64'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mindir.left_shift %x, %y : (tensor<4xi32>, tensor<4xi64>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @or_shapes(%x: tensor<3xi32>, %y: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+2 {{shapes [3] and [4] cannot be broadcast together}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mindir.bitwise_or %x, %y : (tensor<3xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}
