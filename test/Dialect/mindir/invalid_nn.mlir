// Diagnostics of the neural-network ops.
// RUN: ms-opt %s --split-input-file --verify-diagnostics

func.func @conv2d_rank(%x: tensor<3x32x32xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<8x30x30xf32> {
  // expected-error @+2 {{conv2d expects a 4-D NCHW input and a 4-D OIHW weight, got [3, 32, 32] and [8, 3, 3, 3]}}
  // expected-error @+1 {{'mindir.conv2d' op failed to infer returned types}}
  %0 = mindir.conv2d %x, %w : (tensor<3x32x32xf32>, tensor<8x3x3x3xf32>) -> tensor<8x30x30xf32>
  return %0 : tensor<8x30x30xf32>
}

// -----

func.func @conv2d_channels(%x: tensor<1x4x32x32xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<1x8x30x30xf32> {
  // expected-error @+2 {{input has 4 channels but the weight expects 3 (3 per group x 1 groups)}}
  // expected-error @+1 {{'mindir.conv2d' op failed to infer returned types}}
  %0 = mindir.conv2d %x, %w : (tensor<1x4x32x32xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x30x30xf32>
  return %0 : tensor<1x8x30x30xf32>
}

// -----

func.func @conv2d_group(%x: tensor<1x4x8x8xf32>, %w: tensor<6x2x3x3xf32>) -> tensor<1x6x6x6xf32> {
  // expected-error @+2 {{group 3 must divide the input channels 4 and the output channels 6}}
  // expected-error @+1 {{'mindir.conv2d' op failed to infer returned types}}
  %0 = mindir.conv2d %x, %w {group = 3 : i64} : (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}

// -----

// pad_mode is an enum: the parser rejects an unknown case...
func.func @conv2d_pad_mode(%x: tensor<1x3x8x8xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<1x8x8x8xf32> {
  // expected-error @+2 {{expected ::msmlir::mindir::PadMode to be one of: valid, same, pad}}
  // expected-error @+1 {{failed to parse MindIR_PadModeAttr parameter 'value'}}
  %0 = mindir.conv2d %x, %w {pad_mode = #mindir.pad_mode<SAME>} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x8x8xf32>
  return %0 : tensor<1x8x8x8xf32>
}

// -----

// ... and an attribute that is not a #mindir.pad_mode (the old string form).
func.func @conv2d_pad_mode_string(%x: tensor<1x3x8x8xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<1x8x8x8xf32> {
  // expected-error @+1 {{'mindir.conv2d' op attribute 'pad_mode' failed to satisfy constraint: window padding mode: valid, same or pad}}
  %0 = mindir.conv2d %x, %w {pad_mode = "same"} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x8x8xf32>
  return %0 : tensor<1x8x8x8xf32>
}

// -----

func.func @max_pool2d_pad_mode_other_enum(%x: tensor<1x8x32x32xf32>) -> tensor<1x8x16x16xf32> {
  // expected-error @+1 {{'mindir.max_pool2d' op attribute 'pad_mode' failed to satisfy constraint: window padding mode: valid, same or pad}}
  %0 = mindir.max_pool2d %x {kernel_size = array<i64: 2, 2>, pad_mode = #mindir.data_format<NCHW>} : (tensor<1x8x32x32xf32>) -> tensor<1x8x16x16xf32>
  return %0 : tensor<1x8x16x16xf32>
}

// -----

func.func @conv2d_pad_without_pad_mode(%x: tensor<1x3x8x8xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<1x8x8x8xf32> {
  // expected-error @+2 {{pad must be all zero unless pad_mode is "pad", got [1, 1, 1, 1] with pad_mode "valid"}}
  // expected-error @+1 {{'mindir.conv2d' op failed to infer returned types}}
  %0 = mindir.conv2d %x, %w {pad = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x8x8xf32>
  return %0 : tensor<1x8x8x8xf32>
}

// -----

func.func @conv2d_pad_count(%x: tensor<1x3x8x8xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<1x8x8x8xf32> {
  // expected-error @+2 {{pad must have 4 values [top, bottom, left, right], got 2}}
  // expected-error @+1 {{'mindir.conv2d' op failed to infer returned types}}
  %0 = mindir.conv2d %x, %w {pad_mode = #mindir.pad_mode<pad>, pad = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x8x8xf32>
  return %0 : tensor<1x8x8x8xf32>
}

// -----

func.func @conv2d_pad_negative(%x: tensor<1x3x8x8xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<1x8x4x6xf32> {
  // expected-error @+2 {{pad values must be non-negative}}
  // expected-error @+1 {{'mindir.conv2d' op failed to infer returned types}}
  %0 = mindir.conv2d %x, %w {pad_mode = #mindir.pad_mode<pad>, pad = array<i64: -1, -1, 0, 0>} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x4x6xf32>
  return %0 : tensor<1x8x4x6xf32>
}

// -----

func.func @conv2d_stride_count(%x: tensor<1x3x8x8xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<1x8x6x6xf32> {
  // expected-error @+2 {{kernel size, stride and dilation must have 2 values}}
  // expected-error @+1 {{'mindir.conv2d' op failed to infer returned types}}
  %0 = mindir.conv2d %x, %w {stride = array<i64: 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x6x6xf32>
  return %0 : tensor<1x8x6x6xf32>
}

// -----

func.func @conv2d_zero_stride(%x: tensor<1x3x8x8xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<1x8x6x6xf32> {
  // expected-error @+2 {{kernel size, stride and dilation must be positive}}
  // expected-error @+1 {{'mindir.conv2d' op failed to infer returned types}}
  %0 = mindir.conv2d %x, %w {stride = array<i64: 0, 1>} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x6x6xf32>
  return %0 : tensor<1x8x6x6xf32>
}

// -----

func.func @conv2d_window_too_big(%x: tensor<1x3x4x4xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<1x8x1x1xf32> {
  // expected-error @+2 {{window of size 5 does not fit an input of size 4 (pad_mode "valid")}}
  // expected-error @+1 {{'mindir.conv2d' op failed to infer returned types}}
  %0 = mindir.conv2d %x, %w {dilation = array<i64: 2, 2>} : (tensor<1x3x4x4xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x1x1xf32>
  return %0 : tensor<1x8x1x1xf32>
}

// -----

func.func @conv2d_element_types(%x: tensor<1x3x8x8xf32>, %w: tensor<8x3x3x3xf16>) -> tensor<1x8x6x6xf32> {
  // expected-error @+2 {{operands must have the same element type, got 'f32' and 'f16'}}
  // expected-error @+1 {{'mindir.conv2d' op failed to infer returned types}}
  %0 = mindir.conv2d %x, %w : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf16>) -> tensor<1x8x6x6xf32>
  return %0 : tensor<1x8x6x6xf32>
}

// -----

func.func @conv2d_int(%x: tensor<1x3x8x8xi32>, %w: tensor<8x3x3x3xi32>) -> tensor<1x8x6x6xi32> {
  // expected-error @+1 {{'mindir.conv2d' op operand #0 must be statically shaped tensor (at most 2^63-1 bytes) of float}}
  %0 = mindir.conv2d %x, %w : (tensor<1x3x8x8xi32>, tensor<8x3x3x3xi32>) -> tensor<1x8x6x6xi32>
  return %0 : tensor<1x8x6x6xi32>
}

// -----

func.func @conv2d_wrong_result(%x: tensor<1x3x8x8xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<1x8x8x8xf32> {
  // expected-error @+2 {{'mindir.conv2d' op inferred type(s) 'tensor<1x8x6x6xf32>' are incompatible with return type(s) of operation 'tensor<1x8x8x8xf32>'}}
  // expected-error @+1 {{'mindir.conv2d' op failed to infer returned types}}
  %0 = mindir.conv2d %x, %w : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x8x8xf32>
  return %0 : tensor<1x8x8x8xf32>
}

// -----

func.func @conv2d_backprop_input_dout(%dy: tensor<1x8x15x15xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<1x3x32x32xf32> {
  // expected-error @+2 {{dout has shape [1, 8, 15, 15] but [1, 8, 16, 16] was expected}}
  // expected-error @+1 {{'mindir.conv2d_backprop_input' op failed to infer returned types}}
  %0 = mindir.conv2d_backprop_input %dy, %w {input_shape = array<i64: 1, 3, 32, 32>, pad_mode = #mindir.pad_mode<same>, stride = array<i64: 2, 2>} : (tensor<1x8x15x15xf32>, tensor<8x3x3x3xf32>) -> tensor<1x3x32x32xf32>
  return %0 : tensor<1x3x32x32xf32>
}

// -----

func.func @conv2d_backprop_input_negative_shape(%dy: tensor<1x8x16x16xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<1x3x32x32xf32> {
  // expected-error @+2 {{input shape [-1, 3, 32, 32] has a negative dim}}
  // expected-error @+1 {{'mindir.conv2d_backprop_input' op failed to infer returned types}}
  %0 = mindir.conv2d_backprop_input %dy, %w {input_shape = array<i64: -1, 3, 32, 32>, pad_mode = #mindir.pad_mode<same>, stride = array<i64: 2, 2>} : (tensor<1x8x16x16xf32>, tensor<8x3x3x3xf32>) -> tensor<1x3x32x32xf32>
  return %0 : tensor<1x3x32x32xf32>
}

// -----

func.func @conv2d_backprop_input_missing_shape(%dy: tensor<1x8x16x16xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<1x3x32x32xf32> {
  // expected-error @+1 {{'mindir.conv2d_backprop_input' op requires attribute 'input_shape'}}
  %0 = mindir.conv2d_backprop_input %dy, %w {pad_mode = #mindir.pad_mode<same>, stride = array<i64: 2, 2>} : (tensor<1x8x16x16xf32>, tensor<8x3x3x3xf32>) -> tensor<1x3x32x32xf32>
  return %0 : tensor<1x3x32x32xf32>
}

// -----

func.func @conv2d_backprop_filter_negative_shape(%dy: tensor<1x8x30x30xf32>, %x: tensor<1x3x32x32xf32>) -> tensor<8x3x3x3xf32> {
  // expected-error @+2 {{weight shape [-8, 3, 3, 3] has a negative dim}}
  // expected-error @+1 {{'mindir.conv2d_backprop_filter' op failed to infer returned types}}
  %0 = mindir.conv2d_backprop_filter %dy, %x {filter_shape = array<i64: -8, 3, 3, 3>} : (tensor<1x8x30x30xf32>, tensor<1x3x32x32xf32>) -> tensor<8x3x3x3xf32>
  return %0 : tensor<8x3x3x3xf32>
}

// -----

func.func @conv2d_backprop_filter_dout(%dy: tensor<1x8x16x16xf32>, %x: tensor<1x3x32x32xf32>) -> tensor<8x3x3x3xf32> {
  // expected-error @+2 {{dout has shape [1, 8, 16, 16] but [1, 8, 30, 30] was expected}}
  // expected-error @+1 {{'mindir.conv2d_backprop_filter' op failed to infer returned types}}
  %0 = mindir.conv2d_backprop_filter %dy, %x {filter_shape = array<i64: 8, 3, 3, 3>} : (tensor<1x8x16x16xf32>, tensor<1x3x32x32xf32>) -> tensor<8x3x3x3xf32>
  return %0 : tensor<8x3x3x3xf32>
}

// -----

func.func @max_pool2d_rank(%x: tensor<8x32x32xf32>) -> tensor<8x16x16xf32> {
  // expected-error @+2 {{pooling expects a 4-D NCHW input, got [8, 32, 32]}}
  // expected-error @+1 {{'mindir.max_pool2d' op failed to infer returned types}}
  %0 = mindir.max_pool2d %x {kernel_size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<8x32x32xf32>) -> tensor<8x16x16xf32>
  return %0 : tensor<8x16x16xf32>
}

// -----

func.func @max_pool2d_no_kernel(%x: tensor<1x8x32x32xf32>) -> tensor<1x8x16x16xf32> {
  // expected-error @+1 {{'mindir.max_pool2d' op requires attribute 'kernel_size'}}
  %0 = mindir.max_pool2d %x {strides = array<i64: 2, 2>} : (tensor<1x8x32x32xf32>) -> tensor<1x8x16x16xf32>
  return %0 : tensor<1x8x16x16xf32>
}

// -----

func.func @avg_pool2d_zero_kernel(%x: tensor<1x8x32x32xf32>) -> tensor<1x8x32x32xf32> {
  // expected-error @+2 {{kernel size, stride and dilation must be positive}}
  // expected-error @+1 {{'mindir.avg_pool2d' op failed to infer returned types}}
  %0 = mindir.avg_pool2d %x {kernel_size = array<i64: 0, 1>} : (tensor<1x8x32x32xf32>) -> tensor<1x8x32x32xf32>
  return %0 : tensor<1x8x32x32xf32>
}

// -----

func.func @avg_pool2d_pad_without_pad_mode(%x: tensor<1x8x32x32xf32>) -> tensor<1x8x32x32xf32> {
  // expected-error @+2 {{pad must be all zero unless pad_mode is "pad", got [1, 1, 1, 1] with pad_mode "same"}}
  // expected-error @+1 {{'mindir.avg_pool2d' op failed to infer returned types}}
  %0 = mindir.avg_pool2d %x {kernel_size = array<i64: 3, 3>, pad_mode = #mindir.pad_mode<same>, pad = array<i64: 1, 1, 1, 1>} : (tensor<1x8x32x32xf32>) -> tensor<1x8x32x32xf32>
  return %0 : tensor<1x8x32x32xf32>
}

// -----

func.func @max_pool2d_grad_dout(%x: tensor<1x8x32x32xf32>, %dy: tensor<1x8x32x32xf32>) -> tensor<1x8x32x32xf32> {
  // expected-error @+2 {{dout has shape [1, 8, 32, 32] but [1, 8, 16, 16] was expected}}
  // expected-error @+1 {{'mindir.max_pool2d_grad' op failed to infer returned types}}
  %0 = mindir.max_pool2d_grad %x, %dy {kernel_size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x8x32x32xf32>, tensor<1x8x32x32xf32>) -> tensor<1x8x32x32xf32>
  return %0 : tensor<1x8x32x32xf32>
}

// -----

func.func @max_pool2d_grad_element_types(%x: tensor<1x8x32x32xf32>, %dy: tensor<1x8x16x16xf16>) -> tensor<1x8x32x32xf32> {
  // expected-error @+2 {{operands must have the same element type, got 'f32' and 'f16'}}
  // expected-error @+1 {{'mindir.max_pool2d_grad' op failed to infer returned types}}
  %0 = mindir.max_pool2d_grad %x, %dy {kernel_size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x8x32x32xf32>, tensor<1x8x16x16xf16>) -> tensor<1x8x32x32xf32>
  return %0 : tensor<1x8x32x32xf32>
}

// -----

func.func @avg_pool2d_grad_input_shape(%dy: tensor<1x8x16x16xf32>) -> tensor<8x32x32xf32> {
  // expected-error @+2 {{pooling expects a 4-D NCHW input, got [8, 32, 32]}}
  // expected-error @+1 {{'mindir.avg_pool2d_grad' op failed to infer returned types}}
  %0 = mindir.avg_pool2d_grad %dy {input_shape = array<i64: 8, 32, 32>, kernel_size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x8x16x16xf32>) -> tensor<8x32x32xf32>
  return %0 : tensor<8x32x32xf32>
}

// -----

func.func @avg_pool2d_grad_negative_shape(%dy: tensor<1x8x16x16xf32>) -> tensor<1x8x32x32xf32> {
  // expected-error @+2 {{input shape [1, -8, 32, 32] has a negative dim}}
  // expected-error @+1 {{'mindir.avg_pool2d_grad' op failed to infer returned types}}
  %0 = mindir.avg_pool2d_grad %dy {input_shape = array<i64: 1, -8, 32, 32>, kernel_size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x8x16x16xf32>) -> tensor<1x8x32x32xf32>
  return %0 : tensor<1x8x32x32xf32>
}

// -----

func.func @avg_pool2d_grad_dout(%dy: tensor<1x8x15x16xf32>) -> tensor<1x8x32x32xf32> {
  // expected-error @+2 {{dout has shape [1, 8, 15, 16] but [1, 8, 16, 16] was expected}}
  // expected-error @+1 {{'mindir.avg_pool2d_grad' op failed to infer returned types}}
  %0 = mindir.avg_pool2d_grad %dy {input_shape = array<i64: 1, 8, 32, 32>, kernel_size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x8x15x16xf32>) -> tensor<1x8x32x32xf32>
  return %0 : tensor<1x8x32x32xf32>
}

// -----

func.func @softmax_axis(%x: tensor<4x10xf32>) -> tensor<4x10xf32> {
  // expected-error @+1 {{axis 2 is out of range for rank 2}}
  %0 = mindir.softmax %x {axis = 2 : i64} : tensor<4x10xf32>
  return %0 : tensor<4x10xf32>
}

// -----

func.func @log_softmax_axis(%x: tensor<4x10xf32>) -> tensor<4x10xf32> {
  // expected-error @+1 {{axis -3 is out of range for rank 2}}
  %0 = mindir.log_softmax %x {axis = -3 : i64} : tensor<4x10xf32>
  return %0 : tensor<4x10xf32>
}

// -----

func.func @softmax_int(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'mindir.softmax' op operand #0 must be statically shaped tensor (at most 2^63-1 bytes) of float}}
  %0 = mindir.softmax %x : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @layer_norm_axis(%x: tensor<2x4x8xf32>, %g: tensor<8xf32>) -> tensor<2x4x8xf32> {
  // expected-error @+2 {{begin_norm_axis 3 is out of range for rank 3}}
  // expected-error @+1 {{'mindir.layer_norm' op failed to infer returned types}}
  %0:3 = mindir.layer_norm %x, %g, %g {begin_norm_axis = 3 : i64} : (tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<2x4x8xf32>, tensor<2x4x1xf32>, tensor<2x4x1xf32>)
  return %0#0 : tensor<2x4x8xf32>
}

// -----

func.func @layer_norm_params_axis(%x: tensor<2x4x8xf32>, %g: tensor<8xf32>) -> tensor<2x4x8xf32> {
  // expected-error @+2 {{begin_params_axis -4 is out of range for rank 3}}
  // expected-error @+1 {{'mindir.layer_norm' op failed to infer returned types}}
  %0:3 = mindir.layer_norm %x, %g, %g {begin_params_axis = -4 : i64} : (tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<2x4x8xf32>, tensor<2x4x1xf32>, tensor<2x4x1xf32>)
  return %0#0 : tensor<2x4x8xf32>
}

// -----

func.func @layer_norm_gamma(%x: tensor<2x4x8xf32>, %g: tensor<4xf32>, %b: tensor<8xf32>) -> tensor<2x4x8xf32> {
  // expected-error @+2 {{gamma has shape [4] but [8] was expected}}
  // expected-error @+1 {{'mindir.layer_norm' op failed to infer returned types}}
  %0:3 = mindir.layer_norm %x, %g, %b : (tensor<2x4x8xf32>, tensor<4xf32>, tensor<8xf32>) -> (tensor<2x4x8xf32>, tensor<2x4x1xf32>, tensor<2x4x1xf32>)
  return %0#0 : tensor<2x4x8xf32>
}

// -----

func.func @layer_norm_beta(%x: tensor<2x4x8xf32>, %g: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<2x4x8xf32> {
  // expected-error @+2 {{beta has shape [8] but [4, 8] was expected}}
  // expected-error @+1 {{'mindir.layer_norm' op failed to infer returned types}}
  %0:3 = mindir.layer_norm %x, %g, %b {begin_params_axis = 1 : i64} : (tensor<2x4x8xf32>, tensor<4x8xf32>, tensor<8xf32>) -> (tensor<2x4x8xf32>, tensor<2x4x1xf32>, tensor<2x4x1xf32>)
  return %0#0 : tensor<2x4x8xf32>
}

// -----

func.func @layer_norm_stats_shape(%x: tensor<2x4x8xf32>, %g: tensor<8xf32>) -> tensor<2x4x8xf32> {
  // expected-error @+2 {{'mindir.layer_norm' op inferred type(s) 'tensor<2x4x8xf32>', 'tensor<2x4x1xf32>', 'tensor<2x4x1xf32>' are incompatible with return type(s) of operation 'tensor<2x4x8xf32>', 'tensor<2x4xf32>', 'tensor<2x4xf32>'}}
  // expected-error @+1 {{'mindir.layer_norm' op failed to infer returned types}}
  %0:3 = mindir.layer_norm %x, %g, %g : (tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<2x4x8xf32>, tensor<2x4xf32>, tensor<2x4xf32>)
  return %0#0 : tensor<2x4x8xf32>
}

// -----

func.func @batch_norm_rank(%x: tensor<3xf32>, %c: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+2 {{batch_norm expects an input of rank >= 2 (N, C, ...), got [3]}}
  // expected-error @+1 {{'mindir.batch_norm' op failed to infer returned types}}
  %0:3 = mindir.batch_norm %x, %c, %c, %c, %c : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
  return %0#0 : tensor<3xf32>
}

// -----

func.func @batch_norm_scale(%x: tensor<2x3x4x4xf32>, %s: tensor<4xf32>, %c: tensor<3xf32>) -> tensor<2x3x4x4xf32> {
  // expected-error @+2 {{scale has shape [4] but [3] was expected}}
  // expected-error @+1 {{'mindir.batch_norm' op failed to infer returned types}}
  %0:3 = mindir.batch_norm %x, %s, %c, %c, %c : (tensor<2x3x4x4xf32>, tensor<4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>)
  return %0#0 : tensor<2x3x4x4xf32>
}

// -----

func.func @batch_norm_variance(%x: tensor<2x3x4x4xf32>, %c: tensor<3xf32>, %v: tensor<1x3xf32>) -> tensor<2x3x4x4xf32> {
  // expected-error @+2 {{variance has shape [1, 3] but [3] was expected}}
  // expected-error @+1 {{'mindir.batch_norm' op failed to infer returned types}}
  %0:3 = mindir.batch_norm %x, %c, %c, %c, %v {is_training = true} : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<1x3xf32>) -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>)
  return %0#0 : tensor<2x3x4x4xf32>
}

// -----

func.func @batch_norm_element_types(%x: tensor<2x3xf16>, %c: tensor<3xf32>) -> tensor<2x3xf16> {
  // expected-error @+2 {{operands must have the same element type, got 'f16' and 'f32'}}
  // expected-error @+1 {{'mindir.batch_norm' op failed to infer returned types}}
  %0:3 = mindir.batch_norm %x, %c, %c, %c, %c : (tensor<2x3xf16>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3xf16>, tensor<3xf16>, tensor<3xf16>)
  return %0#0 : tensor<2x3xf16>
}

// -----

func.func @dropout_keep_prob_zero(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'mindir.dropout' op keep_prob must be in (0, 1], got 0}}
  %0:2 = mindir.dropout %x {keep_prob = 0.0 : f64} : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %0#0 : tensor<4xf32>
}

// -----

func.func @dropout_keep_prob_above_one(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'mindir.dropout' op keep_prob must be in (0, 1], got 1.5}}
  %0:2 = mindir.dropout %x {keep_prob = 1.5 : f64} : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %0#0 : tensor<4xf32>
}

// -----

func.func @dropout_mask_type(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{'mindir.dropout' op inferred type(s) 'tensor<4xf32>', 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<4xf32>', 'tensor<4xf16>'}}
  // expected-error @+1 {{'mindir.dropout' op failed to infer returned types}}
  %0:2 = mindir.dropout %x : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf16>)
  return %0#0 : tensor<4xf32>
}

// -----

func.func @one_hot_on_value_rank(%i: tensor<4xi32>, %on: tensor<1xf32>, %off: tensor<f32>) -> tensor<4x10xf32> {
  // expected-error @+2 {{on_value and off_value must be 0-d tensors}}
  // expected-error @+1 {{'mindir.one_hot' op failed to infer returned types}}
  %0 = mindir.one_hot %i, %on, %off {depth = 10 : i64} : (tensor<4xi32>, tensor<1xf32>, tensor<f32>) -> tensor<4x10xf32>
  return %0 : tensor<4x10xf32>
}

// -----

func.func @one_hot_depth(%i: tensor<4xi32>, %on: tensor<f32>) -> tensor<4x0xf32> {
  // expected-error @+2 {{depth must be positive, got 0}}
  // expected-error @+1 {{'mindir.one_hot' op failed to infer returned types}}
  %0 = mindir.one_hot %i, %on, %on {depth = 0 : i64} : (tensor<4xi32>, tensor<f32>, tensor<f32>) -> tensor<4x0xf32>
  return %0 : tensor<4x0xf32>
}

// -----

func.func @one_hot_axis(%i: tensor<4xi32>, %on: tensor<f32>) -> tensor<4x10xf32> {
  // expected-error @+2 {{axis 2 is out of range for rank 2}}
  // expected-error @+1 {{'mindir.one_hot' op failed to infer returned types}}
  %0 = mindir.one_hot %i, %on, %on {depth = 10 : i64, axis = 2 : i64} : (tensor<4xi32>, tensor<f32>, tensor<f32>) -> tensor<4x10xf32>
  return %0 : tensor<4x10xf32>
}

// -----

func.func @one_hot_on_off_types(%i: tensor<4xi32>, %on: tensor<f32>, %off: tensor<i32>) -> tensor<4x10xf32> {
  // expected-error @+2 {{operands must have the same element type, got 'f32' and 'i32'}}
  // expected-error @+1 {{'mindir.one_hot' op failed to infer returned types}}
  %0 = mindir.one_hot %i, %on, %off {depth = 10 : i64} : (tensor<4xi32>, tensor<f32>, tensor<i32>) -> tensor<4x10xf32>
  return %0 : tensor<4x10xf32>
}

// -----

func.func @one_hot_float_indices(%i: tensor<4xf32>, %on: tensor<f32>) -> tensor<4x10xf32> {
  // expected-error @+1 {{'mindir.one_hot' op operand #0 must be statically shaped tensor (at most 2^63-1 bytes) of integer (i8, i32, i64) values, but got 'tensor<4xf32>'}}
  %0 = mindir.one_hot %i, %on, %on {depth = 10 : i64} : (tensor<4xf32>, tensor<f32>, tensor<f32>) -> tensor<4x10xf32>
  return %0 : tensor<4x10xf32>
}

// -----

func.func @cross_entropy_rank(%l: tensor<10xf32>) -> tensor<f32> {
  // expected-error @+2 {{logits must be 2-D [N, C], got [10]}}
  // expected-error @+1 {{'mindir.softmax_cross_entropy_with_logits' op failed to infer returned types}}
  %0:2 = mindir.softmax_cross_entropy_with_logits %l, %l : (tensor<10xf32>, tensor<10xf32>) -> (tensor<f32>, tensor<10xf32>)
  return %0#0 : tensor<f32>
}

// -----

func.func @cross_entropy_labels(%l: tensor<4x10xf32>, %y: tensor<4x9xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{labels has shape [4, 9] but [4, 10] was expected}}
  // expected-error @+1 {{'mindir.softmax_cross_entropy_with_logits' op failed to infer returned types}}
  %0:2 = mindir.softmax_cross_entropy_with_logits %l, %y : (tensor<4x10xf32>, tensor<4x9xf32>) -> (tensor<4xf32>, tensor<4x10xf32>)
  return %0#0 : tensor<4xf32>
}

// -----

func.func @cross_entropy_element_types(%l: tensor<4x10xf32>, %y: tensor<4x10xf16>) -> tensor<4xf32> {
  // expected-error @+2 {{operands must have the same element type, got 'f32' and 'f16'}}
  // expected-error @+1 {{'mindir.softmax_cross_entropy_with_logits' op failed to infer returned types}}
  %0:2 = mindir.softmax_cross_entropy_with_logits %l, %y : (tensor<4x10xf32>, tensor<4x10xf16>) -> (tensor<4xf32>, tensor<4x10xf32>)
  return %0#0 : tensor<4xf32>
}

// -----

func.func @sparse_cross_entropy_labels(%l: tensor<4x10xf32>, %y: tensor<4x1xi32>) -> tensor<4xf32> {
  // expected-error @+2 {{labels has shape [4, 1] but [4] was expected}}
  // expected-error @+1 {{'mindir.sparse_softmax_cross_entropy_with_logits' op failed to infer returned types}}
  %0:2 = mindir.sparse_softmax_cross_entropy_with_logits %l, %y : (tensor<4x10xf32>, tensor<4x1xi32>) -> (tensor<4xf32>, tensor<4x10xf32>)
  return %0#0 : tensor<4xf32>
}

// -----

func.func @sparse_cross_entropy_float_labels(%l: tensor<4x10xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'mindir.sparse_softmax_cross_entropy_with_logits' op operand #1 must be statically shaped tensor (at most 2^63-1 bytes) of integer (i8, i32, i64) values, but got 'tensor<4xf32>'}}
  %0:2 = mindir.sparse_softmax_cross_entropy_with_logits %l, %y : (tensor<4x10xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4x10xf32>)
  return %0#0 : tensor<4xf32>
}

// -----

// A negative depth is an error (it was read as a huge unsigned value and built
// an invalid tensor type: an MLIR assertion).
func.func @one_hot_negative_depth(%i: tensor<4xi32>, %on: tensor<f32>, %off: tensor<f32>) -> tensor<4x10xf32> {
  // expected-error @+2 {{depth must be positive, got -1}}
  // expected-error @+1 {{'mindir.one_hot' op failed to infer returned types}}
  %0 = mindir.one_hot %i, %on, %off {depth = -1 : i64} : (tensor<4xi32>, tensor<f32>, tensor<f32>) -> tensor<4x10xf32>
  return %0 : tensor<4x10xf32>
}
