// Diagnostics of the shape-manipulation ops.
// RUN: ms-opt %s --split-input-file --verify-diagnostics

func.func @reshape_two_inferred(%x: tensor<2x3x4xf32>) -> tensor<6x4xf32> {
  // expected-error @+2 {{reshape target [-1, -1] has more than one -1}}
  // expected-error @+1 {{'mindir.reshape' op failed to infer returned types}}
  %0 = mindir.reshape %x {shape = array<i64: -1, -1>} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}

// -----

func.func @reshape_negative(%x: tensor<2x3x4xf32>) -> tensor<2x12xf32> {
  // expected-error @+2 {{reshape target [-2, 12] has a negative dim}}
  // expected-error @+1 {{'mindir.reshape' op failed to infer returned types}}
  %0 = mindir.reshape %x {shape = array<i64: -2, 12>} : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
  return %0 : tensor<2x12xf32>
}

// -----

func.func @reshape_not_divisible(%x: tensor<2x3x4xf32>) -> tensor<5x5xf32> {
  // expected-error @+2 {{cannot reshape [2, 3, 4] (24 elements) to [5, -1]}}
  // expected-error @+1 {{'mindir.reshape' op failed to infer returned types}}
  %0 = mindir.reshape %x {shape = array<i64: 5, -1>} : (tensor<2x3x4xf32>) -> tensor<5x5xf32>
  return %0 : tensor<5x5xf32>
}

// -----

func.func @reshape_count(%x: tensor<2x3x4xf32>) -> tensor<5x5xf32> {
  // expected-error @+2 {{cannot reshape [2, 3, 4] (24 elements) to [5, 5] (25 elements)}}
  // expected-error @+1 {{'mindir.reshape' op failed to infer returned types}}
  %0 = mindir.reshape %x {shape = array<i64: 5, 5>} : (tensor<2x3x4xf32>) -> tensor<5x5xf32>
  return %0 : tensor<5x5xf32>
}

// -----

func.func @reshape_element_type(%x: tensor<2x3xf32>) -> tensor<6xf16> {
  // expected-error @+2 {{'mindir.reshape' op inferred type(s) 'tensor<6xf32>' are incompatible with return type(s) of operation 'tensor<6xf16>'}}
  // expected-error @+1 {{'mindir.reshape' op failed to infer returned types}}
  %0 = mindir.reshape %x {shape = array<i64: 6>} : (tensor<2x3xf32>) -> tensor<6xf16>
  return %0 : tensor<6xf16>
}

// -----

func.func @transpose_rank(%x: tensor<2x3x4xf32>) -> tensor<3x2xf32> {
  // expected-error @+2 {{perm [1, 0] does not match rank 3}}
  // expected-error @+1 {{'mindir.transpose' op failed to infer returned types}}
  %0 = mindir.transpose %x {perm = array<i64: 1, 0>} : (tensor<2x3x4xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func @transpose_repeated(%x: tensor<2x3x4xf32>) -> tensor<2x2x3xf32> {
  // expected-error @+2 {{perm [0, 0, 1] is not a permutation}}
  // expected-error @+1 {{'mindir.transpose' op failed to infer returned types}}
  %0 = mindir.transpose %x {perm = array<i64: 0, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<2x2x3xf32>
  return %0 : tensor<2x2x3xf32>
}

// -----

func.func @transpose_out_of_range(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error @+2 {{perm [-1, 0] is not a permutation}}
  // expected-error @+1 {{'mindir.transpose' op failed to infer returned types}}
  %0 = mindir.transpose %x {perm = array<i64: -1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func @broadcast_to_lower_rank(%x: tensor<2x3xf32>) -> tensor<3xf32> {
  // expected-error @+2 {{cannot broadcast [2, 3] to the lower-rank shape [3]}}
  // expected-error @+1 {{'mindir.broadcast_to' op failed to infer returned types}}
  %0 = mindir.broadcast_to %x {shape = array<i64: 3>} : (tensor<2x3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @broadcast_to_unmatched_minus_one(%x: tensor<2x3xf32>) -> tensor<4x2x3xf32> {
  // expected-error @+2 {{-1 in [-1, 2, 3] has no matching input dim}}
  // expected-error @+1 {{'mindir.broadcast_to' op failed to infer returned types}}
  %0 = mindir.broadcast_to %x {shape = array<i64: -1, 2, 3>} : (tensor<2x3xf32>) -> tensor<4x2x3xf32>
  return %0 : tensor<4x2x3xf32>
}

// -----

func.func @broadcast_to_incompatible(%x: tensor<2x3xf32>) -> tensor<2x4xf32> {
  // expected-error @+2 {{cannot broadcast [2, 3] to [2, 4]}}
  // expected-error @+1 {{'mindir.broadcast_to' op failed to infer returned types}}
  %0 = mindir.broadcast_to %x {shape = array<i64: 2, 4>} : (tensor<2x3xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @broadcast_to_negative(%x: tensor<1x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+2 {{broadcast shape [-2, 3] has a negative dim other than -1}}
  // expected-error @+1 {{'mindir.broadcast_to' op failed to infer returned types}}
  %0 = mindir.broadcast_to %x {shape = array<i64: -2, 3>} : (tensor<1x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @expand_dims_axis(%x: tensor<2x3xf32>) -> tensor<2x3x1xf32> {
  // expected-error @+2 {{axis 3 is out of range for rank 3}}
  // expected-error @+1 {{'mindir.expand_dims' op failed to infer returned types}}
  %0 = mindir.expand_dims %x {axis = 3 : i64} : (tensor<2x3xf32>) -> tensor<2x3x1xf32>
  return %0 : tensor<2x3x1xf32>
}

// -----

func.func @expand_dims_missing_axis(%x: tensor<2x3xf32>) -> tensor<1x2x3xf32> {
  // expected-error @+1 {{'mindir.expand_dims' op requires attribute 'axis'}}
  %0 = mindir.expand_dims %x : (tensor<2x3xf32>) -> tensor<1x2x3xf32>
  return %0 : tensor<1x2x3xf32>
}

// -----

func.func @squeeze_non_unit(%x: tensor<1x3x1xf32>) -> tensor<1x1xf32> {
  // expected-error @+2 {{cannot squeeze axis 1 of size 3}}
  // expected-error @+1 {{'mindir.squeeze' op failed to infer returned types}}
  %0 = mindir.squeeze %x {axis = array<i64: 1>} : (tensor<1x3x1xf32>) -> tensor<1x1xf32>
  return %0 : tensor<1x1xf32>
}

// -----

func.func @squeeze_axis(%x: tensor<1x3x1xf32>) -> tensor<3x1xf32> {
  // expected-error @+2 {{axis -4 is out of range for rank 3}}
  // expected-error @+1 {{'mindir.squeeze' op failed to infer returned types}}
  %0 = mindir.squeeze %x {axis = array<i64: -4>} : (tensor<1x3x1xf32>) -> tensor<3x1xf32>
  return %0 : tensor<3x1xf32>
}

// -----

func.func @flatten_scalar(%x: tensor<f32>) -> tensor<1x1xf32> {
  // expected-error @+2 {{flatten expects a tensor of rank >= 1}}
  // expected-error @+1 {{'mindir.flatten' op failed to infer returned types}}
  %0 = mindir.flatten %x : (tensor<f32>) -> tensor<1x1xf32>
  return %0 : tensor<1x1xf32>
}

// -----

func.func @slice_count(%x: tensor<4x6xf32>) -> tensor<2x6xf32> {
  // expected-error @+2 {{begin and size need one value per dim (rank 2)}}
  // expected-error @+1 {{'mindir.slice' op failed to infer returned types}}
  %0 = mindir.slice %x {begin = array<i64: 1>, size = array<i64: 2>} : (tensor<4x6xf32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

func.func @slice_out_of_bounds(%x: tensor<4x6xf32>) -> tensor<3x6xf32> {
  // expected-error @+2 {{slice [3, 6) is out of bounds for dim 0 of size 4}}
  // expected-error @+1 {{'mindir.slice' op failed to infer returned types}}
  %0 = mindir.slice %x {begin = array<i64: 3, 0>, size = array<i64: 3, -1>} : (tensor<4x6xf32>) -> tensor<3x6xf32>
  return %0 : tensor<3x6xf32>
}

// -----

func.func @slice_negative_begin(%x: tensor<4x6xf32>) -> tensor<1x6xf32> {
  // expected-error @+2 {{slice [-1, 0) is out of bounds for dim 0 of size 4}}
  // expected-error @+1 {{'mindir.slice' op failed to infer returned types}}
  %0 = mindir.slice %x {begin = array<i64: -1, 0>, size = array<i64: 1, -1>} : (tensor<4x6xf32>) -> tensor<1x6xf32>
  return %0 : tensor<1x6xf32>
}

// -----

func.func @strided_slice_count(%x: tensor<4x6xf32>) -> tensor<4x6xf32> {
  // expected-error @+2 {{begin, end and strides need one value per dim (rank 2)}}
  // expected-error @+1 {{'mindir.strided_slice' op failed to infer returned types}}
  %0 = mindir.strided_slice %x {begin = array<i64: 0, 0>, end = array<i64: 4, 6>, strides = array<i64: 1>} : (tensor<4x6xf32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

func.func @strided_slice_zero_stride(%x: tensor<10xf32>) -> tensor<10xf32> {
  // expected-error @+2 {{stride of dim 0 is zero}}
  // expected-error @+1 {{'mindir.strided_slice' op failed to infer returned types}}
  %0 = mindir.strided_slice %x {begin = array<i64: 0>, end = array<i64: 10>, strides = array<i64: 0>} : (tensor<10xf32>) -> tensor<10xf32>
  return %0 : tensor<10xf32>
}

// -----

func.func @strided_slice_not_normalized(%x: tensor<10xf32>) -> tensor<0xf32> {
  // expected-error @+2 {{begin 11 / end 2 are not normalized indices for dim 0 of size 10}}
  // expected-error @+1 {{'mindir.strided_slice' op failed to infer returned types}}
  %0 = mindir.strided_slice %x {begin = array<i64: 11>, end = array<i64: 2>, strides = array<i64: 1>} : (tensor<10xf32>) -> tensor<0xf32>
  return %0 : tensor<0xf32>
}

// -----

func.func @strided_slice_negative_stride_bounds(%x: tensor<10xf32>) -> tensor<10xf32> {
  // expected-error @+2 {{begin 10 / end -1 are not normalized indices for dim 0 of size 10}}
  // expected-error @+1 {{'mindir.strided_slice' op failed to infer returned types}}
  %0 = mindir.strided_slice %x {begin = array<i64: 10>, end = array<i64: -1>, strides = array<i64: -1>} : (tensor<10xf32>) -> tensor<10xf32>
  return %0 : tensor<10xf32>
}

// -----

func.func @concat_empty() -> tensor<0xf32> {
  // expected-error @+2 {{concat needs at least one input}}
  // expected-error @+1 {{'mindir.concat' op failed to infer returned types}}
  %0 = mindir.concat : () -> tensor<0xf32>
  return %0 : tensor<0xf32>
}

// -----

func.func @concat_rank(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<5x3xf32> {
  // expected-error @+2 {{concat inputs differ in rank: [2, 3] and [3]}}
  // expected-error @+1 {{'mindir.concat' op failed to infer returned types}}
  %0 = mindir.concat %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<5x3xf32>
  return %0 : tensor<5x3xf32>
}

// -----

func.func @concat_other_dims(%a: tensor<2x3xf32>, %b: tensor<3x3xf32>) -> tensor<2x6xf32> {
  // expected-error @+2 {{concat inputs [2, 3] and [3, 3] differ outside axis 1}}
  // expected-error @+1 {{'mindir.concat' op failed to infer returned types}}
  %0 = mindir.concat %a, %b {axis = 1 : i64} : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

func.func @concat_element_types(%a: tensor<2x3xf32>, %b: tensor<2x3xi32>) -> tensor<4x3xf32> {
  // expected-error @+2 {{operands must have the same element type, got 'f32' and 'i32'}}
  // expected-error @+1 {{'mindir.concat' op failed to infer returned types}}
  %0 = mindir.concat %a, %b : (tensor<2x3xf32>, tensor<2x3xi32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @concat_axis(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+2 {{axis 2 is out of range for rank 2}}
  // expected-error @+1 {{'mindir.concat' op failed to infer returned types}}
  %0 = mindir.concat %a {axis = 2 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @split_uneven(%x: tensor<2x6xf32>) -> tensor<2x2xf32> {
  // expected-error @+2 {{cannot split dim 1 of size 6 into 4 equal parts}}
  // expected-error @+1 {{'mindir.split' op failed to infer returned types}}
  %0:4 = mindir.split %x {axis = 1 : i64, output_num = 4 : i64} : (tensor<2x6xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>)
  return %0#0 : tensor<2x2xf32>
}

// -----

func.func @split_zero(%x: tensor<2x6xf32>) {
  // expected-error @+2 {{cannot split dim 0 of size 2 into 0 equal parts}}
  // expected-error @+1 {{'mindir.split' op failed to infer returned types}}
  mindir.split %x {output_num = 0 : i64} : (tensor<2x6xf32>) -> ()
  return
}

// -----

func.func @split_result_count(%x: tensor<2x6xf32>) -> tensor<2x2xf32> {
  // expected-error @+2 {{'mindir.split' op inferred type(s) 'tensor<2x2xf32>', 'tensor<2x2xf32>', 'tensor<2x2xf32>' are incompatible with return type(s) of operation 'tensor<2x2xf32>', 'tensor<2x2xf32>'}}
  // expected-error @+1 {{'mindir.split' op failed to infer returned types}}
  %0:2 = mindir.split %x {axis = 1 : i64, output_num = 3 : i64} : (tensor<2x6xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>)
  return %0#0 : tensor<2x2xf32>
}

// -----

func.func @stack_empty() -> tensor<0xf32> {
  // expected-error @+2 {{stack needs at least one input}}
  // expected-error @+1 {{'mindir.stack' op failed to infer returned types}}
  %0 = mindir.stack : () -> tensor<0xf32>
  return %0 : tensor<0xf32>
}

// -----

func.func @stack_types(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) -> tensor<2x2x3xf32> {
  // expected-error @+2 {{stack inputs must have the same type, got 'tensor<2x3xf32>' and 'tensor<3x2xf32>'}}
  // expected-error @+1 {{'mindir.stack' op failed to infer returned types}}
  %0 = mindir.stack %a, %b : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2x3xf32>
  return %0 : tensor<2x2x3xf32>
}

// -----

func.func @stack_axis(%a: tensor<2x3xf32>) -> tensor<2x3x1xf32> {
  // expected-error @+2 {{axis -4 is out of range for rank 3}}
  // expected-error @+1 {{'mindir.stack' op failed to infer returned types}}
  %0 = mindir.stack %a {axis = -4 : i64} : (tensor<2x3xf32>) -> tensor<2x3x1xf32>
  return %0 : tensor<2x3x1xf32>
}

// -----

func.func @gather_axis(%p: tensor<10x4xf32>, %i: tensor<3xi32>) -> tensor<3x4xf32> {
  // expected-error @+2 {{axis 2 is out of range for rank 2}}
  // expected-error @+1 {{'mindir.gather' op failed to infer returned types}}
  %0 = mindir.gather %p, %i {axis = 2 : i64} : (tensor<10x4xf32>, tensor<3xi32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @gather_float_indices(%p: tensor<10x4xf32>, %i: tensor<3xf32>) -> tensor<3x4xf32> {
  // expected-error @+1 {{'mindir.gather' op operand #1 must be statically shaped tensor (at most 2^63-1 bytes) of integer (i8, i32, i64) values, but got 'tensor<3xf32>'}}
  %0 = mindir.gather %p, %i : (tensor<10x4xf32>, tensor<3xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @tile_count(%x: tensor<2x3xf32>) -> tensor<2x6xf32> {
  // expected-error @+2 {{multiples [2] must have at least rank 2 values}}
  // expected-error @+1 {{'mindir.tile' op failed to infer returned types}}
  %0 = mindir.tile %x {multiples = array<i64: 2>} : (tensor<2x3xf32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

func.func @tile_zero(%x: tensor<2x3xf32>) -> tensor<4x0xf32> {
  // expected-error @+2 {{multiples must be positive, got [2, 0]}}
  // expected-error @+1 {{'mindir.tile' op failed to infer returned types}}
  %0 = mindir.tile %x {multiples = array<i64: 2, 0>} : (tensor<2x3xf32>) -> tensor<4x0xf32>
  return %0 : tensor<4x0xf32>
}

// -----

func.func @pad_count(%x: tensor<2x3xf32>) -> tensor<4x3xf32> {
  // expected-error @+2 {{paddings need 2 values per dim (4), got 2}}
  // expected-error @+1 {{'mindir.pad' op failed to infer returned types}}
  %0 = mindir.pad %x {paddings = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @pad_negative(%x: tensor<2x3xf32>) -> tensor<1x3xf32> {
  // expected-error @+2 {{paddings must be non-negative, got [-1, 0, 0, 0]}}
  // expected-error @+1 {{'mindir.pad' op failed to infer returned types}}
  %0 = mindir.pad %x {paddings = array<i64: -1, 0, 0, 0>} : (tensor<2x3xf32>) -> tensor<1x3xf32>
  return %0 : tensor<1x3xf32>
}

// -----

// Sizes that overflow int64 are located errors, never an MLIR assertion later.
func.func @pad_size_overflows(%x: tensor<2xf32>) -> tensor<5xf32> {
  // expected-error @+2 {{the padded size overflows int64}}
  // expected-error @+1 {{'mindir.pad' op failed to infer returned types}}
  %y = mindir.pad %x {paddings = array<i64: 9223372036854775800, 100>} : (tensor<2xf32>) -> tensor<5xf32>
  return %y : tensor<5xf32>
}

// -----

func.func @broadcast_too_large(%x: tensor<2xf32>) -> tensor<1099511627776x1099511627776xf32> {
  // expected-error @+1 {{'mindir.broadcast_to' op result #0 must be statically shaped tensor (at most 2^63-1 bytes) of f16, bf16, f32, f64, i1, i8, i32 or i64 values, but got 'tensor<1099511627776x1099511627776xf32>'}}
  %y = mindir.broadcast_to %x {shape = array<i64: 1099511627776, 1099511627776>} : (tensor<2xf32>) -> tensor<1099511627776x1099511627776xf32>
  return %y : tensor<1099511627776x1099511627776xf32>
}

// -----

func.func @tile_size_overflows(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{the tiled size overflows int64}}
  // expected-error @+1 {{'mindir.tile' op failed to infer returned types}}
  %y = mindir.tile %x {multiples = array<i64: 4611686018427387904>} : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @reshape_target_overflows(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{the reshape target's element count overflows int64}}
  // expected-error @+1 {{'mindir.reshape' op failed to infer returned types}}
  %y = mindir.reshape %x {shape = array<i64: 4294967296, 4294967296, -1>} : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @strided_slice_extreme_stride(%x: tensor<4xf32>) -> tensor<1xf32> {
  %y = mindir.strided_slice %x {begin = array<i64: 0>, end = array<i64: 4>, strides = array<i64: 9223372036854775807>} : (tensor<4xf32>) -> tensor<1xf32>
  return %y : tensor<1xf32>
}
