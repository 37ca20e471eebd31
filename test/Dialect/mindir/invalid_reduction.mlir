// Diagnostics of the reductions and the linear-algebra ops.
// RUN: ms-opt %s --split-input-file --verify-diagnostics

func.func @reduce_axis_out_of_range(%x: tensor<2x3x4xf32>) -> tensor<2x3xf32> {
  // expected-error @+2 {{axis 3 is out of range for rank 3}}
  // expected-error @+1 {{'mindir.reduce_sum' op failed to infer returned types}}
  %0 = mindir.reduce_sum %x {axes = array<i64: 3>} : (tensor<2x3x4xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @reduce_negative_axis_out_of_range(%x: tensor<2x3xf32>) -> tensor<3xf32> {
  // expected-error @+2 {{axis -3 is out of range for rank 2}}
  // expected-error @+1 {{'mindir.reduce_mean' op failed to infer returned types}}
  %0 = mindir.reduce_mean %x {axes = array<i64: -3>} : (tensor<2x3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @reduce_repeated_axis(%x: tensor<2x3x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+2 {{axis 1 is repeated}}
  // expected-error @+1 {{'mindir.reduce_max' op failed to infer returned types}}
  %0 = mindir.reduce_max %x {axes = array<i64: -2, 1>} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @reduce_keep_dims_mismatch(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-error @+2 {{'mindir.reduce_min' op inferred type(s) 'tensor<2x1xf32>' are incompatible with return type(s) of operation 'tensor<2xf32>'}}
  // expected-error @+1 {{'mindir.reduce_min' op failed to infer returned types}}
  %0 = mindir.reduce_min %x {axes = array<i64: 1>, keep_dims = true} : (tensor<2x3xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @reduce_bool(%x: tensor<4xi1>) -> tensor<i1> {
  // expected-error @+1 {{'mindir.reduce_prod' op operand #0 must be statically shaped tensor (at most 2^63-1 bytes) of number}}
  %0 = mindir.reduce_prod %x : (tensor<4xi1>) -> tensor<i1>
  return %0 : tensor<i1>
}

// -----

func.func @argmax_scalar(%x: tensor<f32>) -> tensor<i32> {
  // expected-error @+2 {{argmax/argmin need a tensor of rank >= 1}}
  // expected-error @+1 {{'mindir.argmax' op failed to infer returned types}}
  %0 = mindir.argmax %x : (tensor<f32>) -> tensor<i32>
  return %0 : tensor<i32>
}

// -----

func.func @argmin_axis(%x: tensor<2x3xf32>) -> tensor<2xi32> {
  // expected-error @+2 {{axis 2 is out of range for rank 2}}
  // expected-error @+1 {{'mindir.argmin' op failed to infer returned types}}
  %0 = mindir.argmin %x {axis = 2 : i64} : (tensor<2x3xf32>) -> tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

func.func @argmax_i64_result(%x: tensor<2x3xf32>) -> tensor<2xi64> {
  // expected-error @+1 {{'mindir.argmax' op result #0 must be statically shaped tensor (at most 2^63-1 bytes) of 32-bit signless integer values, but got 'tensor<2xi64>'}}
  %0 = mindir.argmax %x : (tensor<2x3xf32>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

func.func @matmul_not_2d(%a: tensor<2x2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+2 {{matmul expects 2-D operands, got [2, 2, 3] and [3, 4]}}
  // expected-error @+1 {{'mindir.matmul' op failed to infer returned types}}
  %0 = mindir.matmul %a, %b : (tensor<2x2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @matmul_contraction(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x3xf32> {
  // expected-error @+2 {{contraction dims differ: [2, 3] x [3, 4] (transposed) contracts 3 with 4}}
  // expected-error @+1 {{'mindir.matmul' op failed to infer returned types}}
  %0 = mindir.matmul %a, %b {transpose_b = true} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @matmul_element_types(%a: tensor<2x3xf32>, %b: tensor<3x4xf16>) -> tensor<2x4xf32> {
  // expected-error @+2 {{operands must have the same element type, got 'f32' and 'f16'}}
  // expected-error @+1 {{'mindir.matmul' op failed to infer returned types}}
  %0 = mindir.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xf16>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @matmul_wrong_result(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<4x2xf32> {
  // expected-error @+2 {{'mindir.matmul' op inferred type(s) 'tensor<2x4xf32>' are incompatible with return type(s) of operation 'tensor<4x2xf32>'}}
  // expected-error @+1 {{'mindir.matmul' op failed to infer returned types}}
  %0 = mindir.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// -----

func.func @batch_matmul_rank(%a: tensor<2x3xf32>, %b: tensor<1x3x4xf32>) -> tensor<1x2x4xf32> {
  // expected-error @+2 {{batch_matmul expects operands of rank >= 3, got [2, 3] and [1, 3, 4]}}
  // expected-error @+1 {{'mindir.batch_matmul' op failed to infer returned types}}
  %0 = mindir.batch_matmul %a, %b : (tensor<2x3xf32>, tensor<1x3x4xf32>) -> tensor<1x2x4xf32>
  return %0 : tensor<1x2x4xf32>
}

// -----

func.func @batch_matmul_batch_dims(%a: tensor<2x2x3xf32>, %b: tensor<3x3x4xf32>) -> tensor<3x2x4xf32> {
  // expected-error @+2 {{shapes [2] and [3] cannot be broadcast together}}
  // expected-error @+1 {{'mindir.batch_matmul' op failed to infer returned types}}
  %0 = mindir.batch_matmul %a, %b : (tensor<2x2x3xf32>, tensor<3x3x4xf32>) -> tensor<3x2x4xf32>
  return %0 : tensor<3x2x4xf32>
}

// -----

func.func @batch_matmul_contraction(%a: tensor<2x2x3xf32>, %b: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  // expected-error @+2 {{contraction dims differ: [2, 2, 3] (transposed) x [2, 3, 4] contracts 2 with 3}}
  // expected-error @+1 {{'mindir.batch_matmul' op failed to infer returned types}}
  %0 = mindir.batch_matmul %a, %b {transpose_a = true} : (tensor<2x2x3xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

func.func @bias_add_format(%x: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  // expected-error @+2 {{expected ::msmlir::mindir::DataFormat to be one of: NCHW, NHWC}}
  // expected-error @+1 {{failed to parse MindIR_DataFormatAttr parameter 'value'}}
  %0 = mindir.bias_add %x, %b {data_format = #mindir.data_format<NCW>} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @bias_add_format_string(%x: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'mindir.bias_add' op attribute 'data_format' failed to satisfy constraint: channel layout: NCHW (channels at dim 1) or NHWC (channels last)}}
  %0 = mindir.bias_add %x, %b {data_format = "NHWC"} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @bias_add_rank(%x: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+2 {{bias_add expects an input of rank >= 2, got [3]}}
  // expected-error @+1 {{'mindir.bias_add' op failed to infer returned types}}
  %0 = mindir.bias_add %x, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @bias_add_channels(%x: tensor<2x3x4x5xf32>, %b: tensor<3xf32>) -> tensor<2x3x4x5xf32> {
  // expected-error @+2 {{bias has shape [3] but the input has 5 channels}}
  // expected-error @+1 {{'mindir.bias_add' op failed to infer returned types}}
  %0 = mindir.bias_add %x, %b {data_format = #mindir.data_format<NHWC>} : (tensor<2x3x4x5xf32>, tensor<3xf32>) -> tensor<2x3x4x5xf32>
  return %0 : tensor<2x3x4x5xf32>
}

// -----

func.func @bias_add_element_types(%x: tensor<2x3xf32>, %b: tensor<3xi32>) -> tensor<2x3xf32> {
  // expected-error @+2 {{operands must have the same element type, got 'f32' and 'i32'}}
  // expected-error @+1 {{'mindir.bias_add' op failed to infer returned types}}
  %0 = mindir.bias_add %x, %b : (tensor<2x3xf32>, tensor<3xi32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @argmax_of_empty_axis(%x: tensor<3x0xf32>) -> tensor<3xi32> {
  // expected-error @+2 {{argmax/argmin of an empty axis (1 of shape [3, 0]) has no answer}}
  // expected-error @+1 {{'mindir.argmax' op failed to infer returned types}}
  %0 = mindir.argmax %x {axis = 1 : i64} : (tensor<3x0xf32>) -> tensor<3xi32>
  return %0 : tensor<3xi32>
}
