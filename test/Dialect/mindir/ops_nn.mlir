// Round trip of the neural-network ops.
// RUN: ms-opt %s | ms-opt | FileCheck %s
// RUN: ms-opt %s --mlir-print-op-generic | ms-opt | FileCheck %s

// CHECK-LABEL: func.func @conv2d
// CHECK-SAME: (%[[X:.*]]: tensor<1x3x32x32xf32>, %[[W:.*]]: tensor<8x3x3x3xf32>, %[[G:.*]]: tensor<1x4x8x8xf32>, %[[GW:.*]]: tensor<6x2x3x3xf32>)
func.func @conv2d(%x: tensor<1x3x32x32xf32>, %w: tensor<8x3x3x3xf32>, %g: tensor<1x4x8x8xf32>, %gw: tensor<6x2x3x3xf32>) {
  // Defaults (stride 1, pad_mode "valid", pad 0, dilation 1, group 1) are elided.
  // CHECK: mindir.conv2d %[[X]], %[[W]] : (tensor<1x3x32x32xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x30x30xf32>
  %0 = mindir.conv2d %x, %w : (tensor<1x3x32x32xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x30x30xf32>
  // "same": output = ceil(in / stride).
  // CHECK: mindir.conv2d %[[X]], %[[W]] {pad_mode = #mindir.pad_mode<same>, stride = array<i64: 2, 2>} : (tensor<1x3x32x32xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x16x16xf32>
  %1 = mindir.conv2d %x, %w {pad_mode = #mindir.pad_mode<same>, stride = array<i64: 2, 2>} : (tensor<1x3x32x32xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x16x16xf32>
  // "pad": explicit [top, bottom, left, right].
  // CHECK: mindir.conv2d %[[X]], %[[W]] {pad = array<i64: 1, 1, 2, 2>, pad_mode = #mindir.pad_mode<pad>} : (tensor<1x3x32x32xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x32x34xf32>
  %2 = mindir.conv2d %x, %w {pad_mode = #mindir.pad_mode<pad>, pad = array<i64: 1, 1, 2, 2>} : (tensor<1x3x32x32xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x32x34xf32>
  // Dilation 2: the effective kernel is 5.
  // CHECK: mindir.conv2d %[[X]], %[[W]] {dilation = array<i64: 2, 2>, stride = array<i64: 1, 3>} : (tensor<1x3x32x32xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x28x10xf32>
  %3 = mindir.conv2d %x, %w {dilation = array<i64: 2, 2>, stride = array<i64: 1, 3>} : (tensor<1x3x32x32xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x28x10xf32>
  // Grouped: 4 input channels in 2 groups of 2.
  // CHECK: mindir.conv2d %[[G]], %[[GW]] {group = 2 : i64} : (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x6x6xf32>
  %4 = mindir.conv2d %g, %gw {group = 2 : i64} : (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x6x6xf32>
  return
}

// CHECK-LABEL: func.func @conv2d_backprop
// CHECK-SAME: (%[[DY:.*]]: tensor<1x8x16x16xf32>, %[[W:.*]]: tensor<8x3x3x3xf32>, %[[DV:.*]]: tensor<1x8x30x30xf32>, %[[X:.*]]: tensor<1x3x32x32xf32>)
func.func @conv2d_backprop(%dy: tensor<1x8x16x16xf32>, %w: tensor<8x3x3x3xf32>, %dv: tensor<1x8x30x30xf32>, %x: tensor<1x3x32x32xf32>) {
  // CHECK: mindir.conv2d_backprop_input %[[DY]], %[[W]] {input_shape = array<i64: 1, 3, 32, 32>, pad_mode = #mindir.pad_mode<same>, stride = array<i64: 2, 2>} : (tensor<1x8x16x16xf32>, tensor<8x3x3x3xf32>) -> tensor<1x3x32x32xf32>
  %0 = mindir.conv2d_backprop_input %dy, %w {input_shape = array<i64: 1, 3, 32, 32>, pad_mode = #mindir.pad_mode<same>, stride = array<i64: 2, 2>} : (tensor<1x8x16x16xf32>, tensor<8x3x3x3xf32>) -> tensor<1x3x32x32xf32>
  // CHECK: mindir.conv2d_backprop_filter %[[DV]], %[[X]] {filter_shape = array<i64: 8, 3, 3, 3>} : (tensor<1x8x30x30xf32>, tensor<1x3x32x32xf32>) -> tensor<8x3x3x3xf32>
  %1 = mindir.conv2d_backprop_filter %dv, %x {filter_shape = array<i64: 8, 3, 3, 3>} : (tensor<1x8x30x30xf32>, tensor<1x3x32x32xf32>) -> tensor<8x3x3x3xf32>
  // CHECK: mindir.conv2d_backprop_filter %[[DY]], %[[X]] {filter_shape = array<i64: 8, 3, 3, 3>, pad = array<i64: 0, 1, 0, 1>, pad_mode = #mindir.pad_mode<pad>, stride = array<i64: 2, 2>} : (tensor<1x8x16x16xf32>, tensor<1x3x32x32xf32>) -> tensor<8x3x3x3xf32>
  %2 = mindir.conv2d_backprop_filter %dy, %x {filter_shape = array<i64: 8, 3, 3, 3>, pad = array<i64: 0, 1, 0, 1>, pad_mode = #mindir.pad_mode<pad>, stride = array<i64: 2, 2>} : (tensor<1x8x16x16xf32>, tensor<1x3x32x32xf32>) -> tensor<8x3x3x3xf32>
  return
}

// CHECK-LABEL: func.func @pooling
// CHECK-SAME: (%[[X:.*]]: tensor<1x8x32x32xf32>, %[[DY:.*]]: tensor<1x8x16x16xf32>)
func.func @pooling(%x: tensor<1x8x32x32xf32>, %dy: tensor<1x8x16x16xf32>) {
  // CHECK: mindir.max_pool2d %[[X]] {kernel_size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x8x32x32xf32>) -> tensor<1x8x16x16xf32>
  %0 = mindir.max_pool2d %x {kernel_size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x8x32x32xf32>) -> tensor<1x8x16x16xf32>
  // CHECK: mindir.max_pool2d %[[X]] {kernel_size = array<i64: 3, 3>, pad_mode = #mindir.pad_mode<same>, strides = array<i64: 2, 2>} : (tensor<1x8x32x32xf32>) -> tensor<1x8x16x16xf32>
  %1 = mindir.max_pool2d %x {kernel_size = array<i64: 3, 3>, pad_mode = #mindir.pad_mode<same>, strides = array<i64: 2, 2>} : (tensor<1x8x32x32xf32>) -> tensor<1x8x16x16xf32>
  // Default strides [1, 1].
  // CHECK: mindir.avg_pool2d %[[X]] {kernel_size = array<i64: 2, 2>} : (tensor<1x8x32x32xf32>) -> tensor<1x8x31x31xf32>
  %2 = mindir.avg_pool2d %x {kernel_size = array<i64: 2, 2>} : (tensor<1x8x32x32xf32>) -> tensor<1x8x31x31xf32>
  // CHECK: mindir.avg_pool2d %[[X]] {kernel_size = array<i64: 3, 3>, pad = array<i64: 1, 1, 1, 1>, pad_mode = #mindir.pad_mode<pad>} : (tensor<1x8x32x32xf32>) -> tensor<1x8x32x32xf32>
  %3 = mindir.avg_pool2d %x {kernel_size = array<i64: 3, 3>, pad = array<i64: 1, 1, 1, 1>, pad_mode = #mindir.pad_mode<pad>} : (tensor<1x8x32x32xf32>) -> tensor<1x8x32x32xf32>
  // CHECK: mindir.max_pool2d_grad %[[X]], %[[DY]] {kernel_size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x8x32x32xf32>, tensor<1x8x16x16xf32>) -> tensor<1x8x32x32xf32>
  %4 = mindir.max_pool2d_grad %x, %dy {kernel_size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x8x32x32xf32>, tensor<1x8x16x16xf32>) -> tensor<1x8x32x32xf32>
  // CHECK: mindir.avg_pool2d_grad %[[DY]] {input_shape = array<i64: 1, 8, 32, 32>, kernel_size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x8x16x16xf32>) -> tensor<1x8x32x32xf32>
  %5 = mindir.avg_pool2d_grad %dy {input_shape = array<i64: 1, 8, 32, 32>, kernel_size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x8x16x16xf32>) -> tensor<1x8x32x32xf32>
  return
}

// CHECK-LABEL: func.func @softmax
// CHECK-SAME: (%[[X:.*]]: tensor<4x10xf32>)
func.func @softmax(%x: tensor<4x10xf32>) {
  // CHECK: mindir.softmax %[[X]] : tensor<4x10xf32>
  %0 = mindir.softmax %x : tensor<4x10xf32>
  // CHECK: mindir.softmax %[[X]] {axis = 0 : i64} : tensor<4x10xf32>
  %1 = mindir.softmax %x {axis = 0 : i64} : tensor<4x10xf32>
  // CHECK: mindir.log_softmax %[[X]] : tensor<4x10xf32>
  %2 = mindir.log_softmax %x {axis = -1 : i64} : tensor<4x10xf32>
  // CHECK: mindir.log_softmax %[[X]] {axis = -2 : i64} : tensor<4x10xf32>
  %3 = mindir.log_softmax %x {axis = -2 : i64} : tensor<4x10xf32>
  return
}

// CHECK-LABEL: func.func @norms
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x8xf32>, %[[G:.*]]: tensor<8xf32>, %[[G2:.*]]: tensor<4x8xf32>, %[[Y:.*]]: tensor<2x3x4x4xbf16>, %[[C:.*]]: tensor<3xbf16>)
func.func @norms(%x: tensor<2x4x8xf32>, %g: tensor<8xf32>, %g2: tensor<4x8xf32>, %y: tensor<2x3x4x4xbf16>, %c: tensor<3xbf16>) {
  // CHECK: mindir.layer_norm %[[X]], %[[G]], %[[G]] : (tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<2x4x8xf32>, tensor<2x4x1xf32>, tensor<2x4x1xf32>)
  %0:3 = mindir.layer_norm %x, %g, %g : (tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<2x4x8xf32>, tensor<2x4x1xf32>, tensor<2x4x1xf32>)
  // CHECK: mindir.layer_norm %[[X]], %[[G2]], %[[G2]] {begin_norm_axis = 1 : i64, begin_params_axis = 1 : i64, epsilon = 9.9999999999999995E-7 : f64} : (tensor<2x4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> (tensor<2x4x8xf32>, tensor<2x1x1xf32>, tensor<2x1x1xf32>)
  %1:3 = mindir.layer_norm %x, %g2, %g2 {begin_norm_axis = 1 : i64, begin_params_axis = 1 : i64, epsilon = 1.0e-6 : f64} : (tensor<2x4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> (tensor<2x4x8xf32>, tensor<2x1x1xf32>, tensor<2x1x1xf32>)
  // Eval mode (the default).
  // CHECK: mindir.batch_norm %[[Y]], %[[C]], %[[C]], %[[C]], %[[C]] : (tensor<2x3x4x4xbf16>, tensor<3xbf16>, tensor<3xbf16>, tensor<3xbf16>, tensor<3xbf16>) -> (tensor<2x3x4x4xbf16>, tensor<3xbf16>, tensor<3xbf16>)
  %2:3 = mindir.batch_norm %y, %c, %c, %c, %c : (tensor<2x3x4x4xbf16>, tensor<3xbf16>, tensor<3xbf16>, tensor<3xbf16>, tensor<3xbf16>) -> (tensor<2x3x4x4xbf16>, tensor<3xbf16>, tensor<3xbf16>)
  // CHECK: mindir.batch_norm %[[Y]], %[[C]], %[[C]], %[[C]], %[[C]] {epsilon = 1.000000e-03 : f64, is_training = true} : (tensor<2x3x4x4xbf16>, tensor<3xbf16>, tensor<3xbf16>, tensor<3xbf16>, tensor<3xbf16>) -> (tensor<2x3x4x4xbf16>, tensor<3xbf16>, tensor<3xbf16>)
  %3:3 = mindir.batch_norm %y, %c, %c, %c, %c {is_training = true, epsilon = 1.0e-3 : f64} : (tensor<2x3x4x4xbf16>, tensor<3xbf16>, tensor<3xbf16>, tensor<3xbf16>, tensor<3xbf16>) -> (tensor<2x3x4x4xbf16>, tensor<3xbf16>, tensor<3xbf16>)
  return
}

// CHECK-LABEL: func.func @dropout
// CHECK-SAME: (%[[X:.*]]: tensor<4x4xf32>)
func.func @dropout(%x: tensor<4x4xf32>) {
  // CHECK: mindir.dropout %[[X]] : (tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>)
  %0:2 = mindir.dropout %x : (tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>)
  // CHECK: mindir.dropout %[[X]] {keep_prob = 9.000000e-01 : f64, seed = 3 : i64} : (tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>)
  %1:2 = mindir.dropout %x {keep_prob = 0.9 : f64, seed = 3 : i64} : (tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>)
  // keep_prob = 1 keeps everything.
  // CHECK: mindir.dropout %[[X]] {keep_prob = 1.000000e+00 : f64} : (tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>)
  %2:2 = mindir.dropout %x {keep_prob = 1.0 : f64} : (tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>)
  return
}

// CHECK-LABEL: func.func @one_hot
// CHECK-SAME: (%[[I:.*]]: tensor<4xi32>, %[[J:.*]]: tensor<2x3xi64>, %[[ON:.*]]: tensor<f32>, %[[OFF:.*]]: tensor<f32>, %[[B:.*]]: tensor<i1>)
func.func @one_hot(%i: tensor<4xi32>, %j: tensor<2x3xi64>, %on: tensor<f32>, %off: tensor<f32>, %b: tensor<i1>) {
  // CHECK: mindir.one_hot %[[I]], %[[ON]], %[[OFF]] {depth = 10 : i64} : (tensor<4xi32>, tensor<f32>, tensor<f32>) -> tensor<4x10xf32>
  %0 = mindir.one_hot %i, %on, %off {depth = 10 : i64} : (tensor<4xi32>, tensor<f32>, tensor<f32>) -> tensor<4x10xf32>
  // CHECK: mindir.one_hot %[[I]], %[[ON]], %[[OFF]] {axis = 0 : i64, depth = 10 : i64} : (tensor<4xi32>, tensor<f32>, tensor<f32>) -> tensor<10x4xf32>
  %1 = mindir.one_hot %i, %on, %off {depth = 10 : i64, axis = 0 : i64} : (tensor<4xi32>, tensor<f32>, tensor<f32>) -> tensor<10x4xf32>
  // CHECK: mindir.one_hot %[[J]], %[[B]], %[[B]] {axis = 1 : i64, depth = 5 : i64} : (tensor<2x3xi64>, tensor<i1>, tensor<i1>) -> tensor<2x5x3xi1>
  %2 = mindir.one_hot %j, %b, %b {depth = 5 : i64, axis = 1 : i64} : (tensor<2x3xi64>, tensor<i1>, tensor<i1>) -> tensor<2x5x3xi1>
  return
}

// CHECK-LABEL: func.func @cross_entropy
// CHECK-SAME: (%[[L:.*]]: tensor<4x10xf32>, %[[D:.*]]: tensor<4x10xf32>, %[[S:.*]]: tensor<4xi32>)
func.func @cross_entropy(%logits: tensor<4x10xf32>, %dense: tensor<4x10xf32>, %sparse: tensor<4xi32>) {
  // CHECK: mindir.softmax_cross_entropy_with_logits %[[L]], %[[D]] : (tensor<4x10xf32>, tensor<4x10xf32>) -> (tensor<4xf32>, tensor<4x10xf32>)
  %0:2 = mindir.softmax_cross_entropy_with_logits %logits, %dense : (tensor<4x10xf32>, tensor<4x10xf32>) -> (tensor<4xf32>, tensor<4x10xf32>)
  // CHECK: mindir.sparse_softmax_cross_entropy_with_logits %[[L]], %[[S]] : (tensor<4x10xf32>, tensor<4xi32>) -> (tensor<4xf32>, tensor<4x10xf32>)
  %1:2 = mindir.sparse_softmax_cross_entropy_with_logits %logits, %sparse : (tensor<4x10xf32>, tensor<4xi32>) -> (tensor<4xf32>, tensor<4x10xf32>)
  return
}
