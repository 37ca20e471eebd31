// Round trip of the reductions, arg-reductions and linear-algebra ops.
// RUN: ms-opt %s | ms-opt | FileCheck %s
// RUN: ms-opt %s --mlir-print-op-generic | ms-opt | FileCheck %s

// CHECK-LABEL: func.func @reduce
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>, %[[I:.*]]: tensor<5x6xi32>, %[[S:.*]]: tensor<f64>)
func.func @reduce(%x: tensor<2x3x4xf32>, %i: tensor<5x6xi32>, %s: tensor<f64>) {
  // Empty axes (the default, elided) reduce everything.
  // CHECK: mindir.reduce_sum %[[X]] : (tensor<2x3x4xf32>) -> tensor<f32>
  %0 = mindir.reduce_sum %x : (tensor<2x3x4xf32>) -> tensor<f32>
  // CHECK: mindir.reduce_sum %[[X]] {keep_dims = true} : (tensor<2x3x4xf32>) -> tensor<1x1x1xf32>
  %1 = mindir.reduce_sum %x {keep_dims = true} : (tensor<2x3x4xf32>) -> tensor<1x1x1xf32>
  // CHECK: mindir.reduce_mean %[[X]] {axes = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
  %2 = mindir.reduce_mean %x {axes = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
  // Negative axes count from the end.
  // CHECK: mindir.reduce_max %[[X]] {axes = array<i64: -1, 0>, keep_dims = true} : (tensor<2x3x4xf32>) -> tensor<1x3x1xf32>
  %3 = mindir.reduce_max %x {axes = array<i64: -1, 0>, keep_dims = true} : (tensor<2x3x4xf32>) -> tensor<1x3x1xf32>
  // CHECK: mindir.reduce_min %[[I]] {axes = array<i64: 0>} : (tensor<5x6xi32>) -> tensor<6xi32>
  %4 = mindir.reduce_min %i {axes = array<i64: 0>} : (tensor<5x6xi32>) -> tensor<6xi32>
  // CHECK: mindir.reduce_prod %[[I]] {axes = array<i64: 1, 0>} : (tensor<5x6xi32>) -> tensor<i32>
  %5 = mindir.reduce_prod %i {axes = array<i64: 1, 0>, keep_dims = false} : (tensor<5x6xi32>) -> tensor<i32>
  // A 0-d input reduces to itself.
  // CHECK: mindir.reduce_sum %[[S]] : (tensor<f64>) -> tensor<f64>
  %6 = mindir.reduce_sum %s : (tensor<f64>) -> tensor<f64>
  return
}

// CHECK-LABEL: func.func @arg_reduce
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>, %[[I:.*]]: tensor<7xi64>)
func.func @arg_reduce(%x: tensor<2x3x4xf32>, %i: tensor<7xi64>) {
  // Default axis -1.
  // CHECK: mindir.argmax %[[X]] : (tensor<2x3x4xf32>) -> tensor<2x3xi32>
  %0 = mindir.argmax %x : (tensor<2x3x4xf32>) -> tensor<2x3xi32>
  // CHECK: mindir.argmax %[[X]] {axis = 1 : i64, keep_dims = true} : (tensor<2x3x4xf32>) -> tensor<2x1x4xi32>
  %1 = mindir.argmax %x {axis = 1 : i64, keep_dims = true} : (tensor<2x3x4xf32>) -> tensor<2x1x4xi32>
  // CHECK: mindir.argmin %[[X]] {axis = 0 : i64} : (tensor<2x3x4xf32>) -> tensor<3x4xi32>
  %2 = mindir.argmin %x {axis = 0 : i64} : (tensor<2x3x4xf32>) -> tensor<3x4xi32>
  // CHECK: mindir.argmin %[[I]] : (tensor<7xi64>) -> tensor<i32>
  %3 = mindir.argmin %i : (tensor<7xi64>) -> tensor<i32>
  return
}

// CHECK-LABEL: func.func @matmul
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<3x4xf32>, %[[BT:.*]]: tensor<4x3xf32>, %[[AT:.*]]: tensor<3x2xf32>, %[[I:.*]]: tensor<2x2xi32>)
func.func @matmul(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %bt: tensor<4x3xf32>, %at: tensor<3x2xf32>, %i: tensor<2x2xi32>) {
  // CHECK: mindir.matmul %[[A]], %[[B]] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %0 = mindir.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  // CHECK: mindir.matmul %[[A]], %[[BT]] {transpose_b = true} : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
  %1 = mindir.matmul %a, %bt {transpose_b = true} : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
  // CHECK: mindir.matmul %[[AT]], %[[B]] {transpose_a = true} : (tensor<3x2xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %2 = mindir.matmul %at, %b {transpose_a = true, transpose_b = false} : (tensor<3x2xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  // CHECK: mindir.matmul %[[AT]], %[[BT]] {transpose_a = true, transpose_b = true} : (tensor<3x2xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
  %3 = mindir.matmul %at, %bt {transpose_a = true, transpose_b = true} : (tensor<3x2xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
  // CHECK: mindir.matmul %[[I]], %[[I]] : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi32>
  %4 = mindir.matmul %i, %i : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi32>
  return
}

// CHECK-LABEL: func.func @batch_matmul
// CHECK-SAME: (%[[A:.*]]: tensor<8x2x3xf16>, %[[B:.*]]: tensor<1x3x4xf16>, %[[C:.*]]: tensor<5x1x4x3xf16>)
func.func @batch_matmul(%a: tensor<8x2x3xf16>, %b: tensor<1x3x4xf16>, %c: tensor<5x1x4x3xf16>) {
  // CHECK: mindir.batch_matmul %[[A]], %[[B]] : (tensor<8x2x3xf16>, tensor<1x3x4xf16>) -> tensor<8x2x4xf16>
  %0 = mindir.batch_matmul %a, %b : (tensor<8x2x3xf16>, tensor<1x3x4xf16>) -> tensor<8x2x4xf16>
  // Batch dims broadcast across ranks: [8] with [5, 1] gives [5, 8].
  // CHECK: mindir.batch_matmul %[[A]], %[[C]] {transpose_b = true} : (tensor<8x2x3xf16>, tensor<5x1x4x3xf16>) -> tensor<5x8x2x4xf16>
  %1 = mindir.batch_matmul %a, %c {transpose_b = true} : (tensor<8x2x3xf16>, tensor<5x1x4x3xf16>) -> tensor<5x8x2x4xf16>
  // CHECK: mindir.batch_matmul %[[A]], %[[A]] {transpose_a = true} : (tensor<8x2x3xf16>, tensor<8x2x3xf16>) -> tensor<8x3x3xf16>
  %2 = mindir.batch_matmul %a, %a {transpose_a = true} : (tensor<8x2x3xf16>, tensor<8x2x3xf16>) -> tensor<8x3x3xf16>
  return
}

// CHECK-LABEL: func.func @bias_add
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4x5xf32>, %[[B3:.*]]: tensor<3xf32>, %[[B5:.*]]: tensor<5xf32>, %[[M:.*]]: tensor<2x3xf32>)
func.func @bias_add(%x: tensor<2x3x4x5xf32>, %b3: tensor<3xf32>, %b5: tensor<5xf32>, %m: tensor<2x3xf32>) {
  // CHECK: mindir.bias_add %[[X]], %[[B3]] : (tensor<2x3x4x5xf32>, tensor<3xf32>) -> tensor<2x3x4x5xf32>
  %0 = mindir.bias_add %x, %b3 : (tensor<2x3x4x5xf32>, tensor<3xf32>) -> tensor<2x3x4x5xf32>
  // CHECK: mindir.bias_add %[[X]], %[[B5]] {data_format = #mindir.data_format<NHWC>} : (tensor<2x3x4x5xf32>, tensor<5xf32>) -> tensor<2x3x4x5xf32>
  %1 = mindir.bias_add %x, %b5 {data_format = #mindir.data_format<NHWC>} : (tensor<2x3x4x5xf32>, tensor<5xf32>) -> tensor<2x3x4x5xf32>
  // CHECK: mindir.bias_add %[[M]], %[[B3]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %2 = mindir.bias_add %m, %b3 {data_format = #mindir.data_format<NCHW>} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return
}
