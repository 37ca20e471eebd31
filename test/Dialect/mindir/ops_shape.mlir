// Round trip of the shape-manipulation ops.
// RUN: ms-opt %s | ms-opt | FileCheck %s
// RUN: ms-opt %s --mlir-print-op-generic | ms-opt | FileCheck %s

// CHECK-LABEL: func.func @reshape
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>, %[[S:.*]]: tensor<1xi32>)
func.func @reshape(%x: tensor<2x3x4xf32>, %s: tensor<1xi32>) {
  // CHECK: mindir.reshape %[[X]] {shape = array<i64: -1, 4>} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %0 = mindir.reshape %x {shape = array<i64: -1, 4>} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  // CHECK: mindir.reshape %[[X]] {shape = array<i64: 24>} : (tensor<2x3x4xf32>) -> tensor<24xf32>
  %1 = mindir.reshape %x {shape = array<i64: 24>} : (tensor<2x3x4xf32>) -> tensor<24xf32>
  // To a 0-d tensor.
  // CHECK: mindir.reshape %[[S]] {shape = array<i64>} : (tensor<1xi32>) -> tensor<i32>
  %2 = mindir.reshape %s {shape = array<i64>} : (tensor<1xi32>) -> tensor<i32>
  return
}

// CHECK-LABEL: func.func @transpose
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
func.func @transpose(%x: tensor<2x3x4xf32>) {
  // CHECK: mindir.transpose %[[X]] {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %0 = mindir.transpose %x {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  // CHECK: mindir.transpose %[[X]] {perm = array<i64: 0, 1, 2>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %1 = mindir.transpose %x {perm = array<i64: 0, 1, 2>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return
}

// CHECK-LABEL: func.func @broadcast_expand_squeeze_flatten
// CHECK-SAME: (%[[V:.*]]: tensor<3xf32>, %[[R:.*]]: tensor<1x3xi1>, %[[M:.*]]: tensor<2x3xf32>, %[[U:.*]]: tensor<1x3x1xi64>, %[[T:.*]]: tensor<2x3x4xf32>)
func.func @broadcast_expand_squeeze_flatten(%v: tensor<3xf32>, %r: tensor<1x3xi1>, %m: tensor<2x3xf32>, %u: tensor<1x3x1xi64>, %t: tensor<2x3x4xf32>) {
  // CHECK: mindir.broadcast_to %[[V]] {shape = array<i64: 2, 3>} : (tensor<3xf32>) -> tensor<2x3xf32>
  %0 = mindir.broadcast_to %v {shape = array<i64: 2, 3>} : (tensor<3xf32>) -> tensor<2x3xf32>
  // -1 keeps the input dim.
  // CHECK: mindir.broadcast_to %[[R]] {shape = array<i64: 5, 4, -1>} : (tensor<1x3xi1>) -> tensor<5x4x3xi1>
  %1 = mindir.broadcast_to %r {shape = array<i64: 5, 4, -1>} : (tensor<1x3xi1>) -> tensor<5x4x3xi1>
  // CHECK: mindir.expand_dims %[[M]] {axis = 0 : i64} : (tensor<2x3xf32>) -> tensor<1x2x3xf32>
  %2 = mindir.expand_dims %m {axis = 0 : i64} : (tensor<2x3xf32>) -> tensor<1x2x3xf32>
  // CHECK: mindir.expand_dims %[[M]] {axis = -1 : i64} : (tensor<2x3xf32>) -> tensor<2x3x1xf32>
  %3 = mindir.expand_dims %m {axis = -1 : i64} : (tensor<2x3xf32>) -> tensor<2x3x1xf32>
  // Default (empty) axis: every unit dim.
  // CHECK: mindir.squeeze %[[U]] : (tensor<1x3x1xi64>) -> tensor<3xi64>
  %4 = mindir.squeeze %u : (tensor<1x3x1xi64>) -> tensor<3xi64>
  // CHECK: mindir.squeeze %[[U]] {axis = array<i64: 0>} : (tensor<1x3x1xi64>) -> tensor<3x1xi64>
  %5 = mindir.squeeze %u {axis = array<i64: 0>} : (tensor<1x3x1xi64>) -> tensor<3x1xi64>
  // CHECK: mindir.squeeze %[[U]] {axis = array<i64: -1>} : (tensor<1x3x1xi64>) -> tensor<1x3xi64>
  %6 = mindir.squeeze %u {axis = array<i64: -1>} : (tensor<1x3x1xi64>) -> tensor<1x3xi64>
  // CHECK: mindir.flatten %[[T]] : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
  %7 = mindir.flatten %t : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
  // CHECK: mindir.flatten %[[V]] : (tensor<3xf32>) -> tensor<3x1xf32>
  %8 = mindir.flatten %v : (tensor<3xf32>) -> tensor<3x1xf32>
  return
}

// CHECK-LABEL: func.func @slices
// CHECK-SAME: (%[[X:.*]]: tensor<4x6xf32>, %[[V:.*]]: tensor<10xi32>)
func.func @slices(%x: tensor<4x6xf32>, %v: tensor<10xi32>) {
  // CHECK: mindir.slice %[[X]] {begin = array<i64: 1, 2>, size = array<i64: 2, -1>} : (tensor<4x6xf32>) -> tensor<2x4xf32>
  %0 = mindir.slice %x {begin = array<i64: 1, 2>, size = array<i64: 2, -1>} : (tensor<4x6xf32>) -> tensor<2x4xf32>
  // CHECK: mindir.strided_slice %[[V]] {begin = array<i64: 1>, end = array<i64: 9>, strides = array<i64: 3>} : (tensor<10xi32>) -> tensor<3xi32>
  %1 = mindir.strided_slice %v {begin = array<i64: 1>, end = array<i64: 9>, strides = array<i64: 3>} : (tensor<10xi32>) -> tensor<3xi32>
  // Reversal: x[::-1] is begin 9, end -1, stride -1.
  // CHECK: mindir.strided_slice %[[V]] {begin = array<i64: 9>, end = array<i64: -1>, strides = array<i64: -1>} : (tensor<10xi32>) -> tensor<10xi32>
  %2 = mindir.strided_slice %v {begin = array<i64: 9>, end = array<i64: -1>, strides = array<i64: -1>} : (tensor<10xi32>) -> tensor<10xi32>
  // CHECK: mindir.strided_slice %[[X]] {begin = array<i64: 3, 0>, end = array<i64: 0, 6>, strides = array<i64: -2, 2>} : (tensor<4x6xf32>) -> tensor<2x3xf32>
  %3 = mindir.strided_slice %x {begin = array<i64: 3, 0>, end = array<i64: 0, 6>, strides = array<i64: -2, 2>} : (tensor<4x6xf32>) -> tensor<2x3xf32>
  // An empty slice.
  // CHECK: mindir.strided_slice %[[V]] {begin = array<i64: 5>, end = array<i64: 2>, strides = array<i64: 1>} : (tensor<10xi32>) -> tensor<0xi32>
  %4 = mindir.strided_slice %v {begin = array<i64: 5>, end = array<i64: 2>, strides = array<i64: 1>} : (tensor<10xi32>) -> tensor<0xi32>
  return
}

// CHECK-LABEL: func.func @concat_split_stack
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<2x5xf32>, %[[C:.*]]: tensor<4x3xf32>, %[[D:.*]]: tensor<2x6xf32>)
func.func @concat_split_stack(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>, %c: tensor<4x3xf32>, %d: tensor<2x6xf32>) {
  // CHECK: mindir.concat %[[A]], %[[B]] {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
  %0 = mindir.concat %a, %b {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
  // CHECK: mindir.concat %[[A]], %[[C]], %[[A]] : (tensor<2x3xf32>, tensor<4x3xf32>, tensor<2x3xf32>) -> tensor<8x3xf32>
  %1 = mindir.concat %a, %c, %a : (tensor<2x3xf32>, tensor<4x3xf32>, tensor<2x3xf32>) -> tensor<8x3xf32>
  // CHECK: mindir.concat %[[A]] {axis = -1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = mindir.concat %a {axis = -1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: mindir.split %[[D]] {axis = 1 : i64, output_num = 2 : i64} : (tensor<2x6xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>)
  %3:2 = mindir.split %d {axis = 1 : i64, output_num = 2 : i64} : (tensor<2x6xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>)
  // CHECK: mindir.split %[[C]] {output_num = 4 : i64} : (tensor<4x3xf32>) -> (tensor<1x3xf32>, tensor<1x3xf32>, tensor<1x3xf32>, tensor<1x3xf32>)
  %4:4 = mindir.split %c {output_num = 4 : i64} : (tensor<4x3xf32>) -> (tensor<1x3xf32>, tensor<1x3xf32>, tensor<1x3xf32>, tensor<1x3xf32>)
  // CHECK: mindir.stack %[[A]], %[[A]], %[[A]] : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<3x2x3xf32>
  %5 = mindir.stack %a, %a, %a : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<3x2x3xf32>
  // CHECK: mindir.stack %[[A]], %[[A]] {axis = -1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3x2xf32>
  %6 = mindir.stack %a, %a {axis = -1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3x2xf32>
  return
}

// CHECK-LABEL: func.func @gather_tile_pad
// CHECK-SAME: (%[[P:.*]]: tensor<10x4xf32>, %[[I:.*]]: tensor<3xi32>, %[[J:.*]]: tensor<2x2xi64>, %[[X:.*]]: tensor<2x3xi32>)
func.func @gather_tile_pad(%p: tensor<10x4xf32>, %i: tensor<3xi32>, %j: tensor<2x2xi64>, %x: tensor<2x3xi32>) {
  // CHECK: mindir.gather %[[P]], %[[I]] : (tensor<10x4xf32>, tensor<3xi32>) -> tensor<3x4xf32>
  %0 = mindir.gather %p, %i : (tensor<10x4xf32>, tensor<3xi32>) -> tensor<3x4xf32>
  // CHECK: mindir.gather %[[P]], %[[J]] {axis = 1 : i64} : (tensor<10x4xf32>, tensor<2x2xi64>) -> tensor<10x2x2xf32>
  %1 = mindir.gather %p, %j {axis = 1 : i64} : (tensor<10x4xf32>, tensor<2x2xi64>) -> tensor<10x2x2xf32>
  // CHECK: mindir.tile %[[X]] {multiples = array<i64: 2, 3>} : (tensor<2x3xi32>) -> tensor<4x9xi32>
  %2 = mindir.tile %x {multiples = array<i64: 2, 3>} : (tensor<2x3xi32>) -> tensor<4x9xi32>
  // More multiples than dims: leading unit dims.
  // CHECK: mindir.tile %[[X]] {multiples = array<i64: 2, 1, 1>} : (tensor<2x3xi32>) -> tensor<2x2x3xi32>
  %3 = mindir.tile %x {multiples = array<i64: 2, 1, 1>} : (tensor<2x3xi32>) -> tensor<2x2x3xi32>
  // CHECK: mindir.pad %[[X]] {paddings = array<i64: 1, 0, 2, 2>} : (tensor<2x3xi32>) -> tensor<3x7xi32>
  %4 = mindir.pad %x {paddings = array<i64: 1, 0, 2, 2>} : (tensor<2x3xi32>) -> tensor<3x7xi32>
  // CHECK: mindir.pad %[[P]] {constant_value = -1.000000e+00 : f64, paddings = array<i64: 0, 0, 1, 1>} : (tensor<10x4xf32>) -> tensor<10x6xf32>
  %5 = mindir.pad %p {paddings = array<i64: 0, 0, 1, 1>, constant_value = -1.0 : f64} : (tensor<10x4xf32>) -> tensor<10x6xf32>
  return
}
