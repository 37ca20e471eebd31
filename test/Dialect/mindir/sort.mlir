// Round trip of mindir.sort (stable sort along an axis: values and i32 indices).
// RUN: ms-opt %s | ms-opt | FileCheck %s
// RUN: ms-opt %s --mlir-print-op-generic | ms-opt | FileCheck %s

// CHECK-LABEL: func.func @sort
// CHECK-SAME: (%[[X:.*]]: tensor<5x3xf32>, %[[I:.*]]: tensor<7xi64>, %[[H:.*]]: tensor<2x3x4xf16>)
func.func @sort(%x: tensor<5x3xf32>, %i: tensor<7xi64>, %h: tensor<2x3x4xf16>) {
  // The defaults (axis = -1, ascending) are elided.
  // CHECK: %{{.*}}, %{{.*}} = mindir.sort %[[X]] : (tensor<5x3xf32>) -> (tensor<5x3xf32>, tensor<5x3xi32>)
  %v0, %i0 = mindir.sort %x : (tensor<5x3xf32>) -> (tensor<5x3xf32>, tensor<5x3xi32>)
  // CHECK: mindir.sort %[[X]] : (tensor<5x3xf32>) -> (tensor<5x3xf32>, tensor<5x3xi32>)
  %v1, %i1 = mindir.sort %x {axis = -1 : i64, descending = false} : (tensor<5x3xf32>) -> (tensor<5x3xf32>, tensor<5x3xi32>)
  // CHECK: mindir.sort %[[X]] {axis = 0 : i64, descending = true} : (tensor<5x3xf32>) -> (tensor<5x3xf32>, tensor<5x3xi32>)
  %v2, %i2 = mindir.sort %x {axis = 0 : i64, descending = true} : (tensor<5x3xf32>) -> (tensor<5x3xf32>, tensor<5x3xi32>)
  // Integers; the indices are i32 whatever the element type.
  // CHECK: mindir.sort %[[I]] {descending = true} : (tensor<7xi64>) -> (tensor<7xi64>, tensor<7xi32>)
  %v3, %i3 = mindir.sort %i {descending = true} : (tensor<7xi64>) -> (tensor<7xi64>, tensor<7xi32>)
  // Negative axes count from the end.
  // CHECK: mindir.sort %[[H]] {axis = -2 : i64} : (tensor<2x3x4xf16>) -> (tensor<2x3x4xf16>, tensor<2x3x4xi32>)
  %v4, %i4 = mindir.sort %h {axis = -2 : i64} : (tensor<2x3x4xf16>) -> (tensor<2x3x4xf16>, tensor<2x3x4xi32>)
  return
}

// An empty axis and a unit axis are valid.
// CHECK-LABEL: func.func @degenerate
func.func @degenerate(%e: tensor<0x4xf64>, %u: tensor<3x1xi8>) -> (tensor<0x4xi32>, tensor<3x1xi8>) {
  // CHECK: mindir.sort %{{.*}} {axis = 0 : i64} : (tensor<0x4xf64>) -> (tensor<0x4xf64>, tensor<0x4xi32>)
  %v0, %i0 = mindir.sort %e {axis = 0 : i64} : (tensor<0x4xf64>) -> (tensor<0x4xf64>, tensor<0x4xi32>)
  // CHECK: mindir.sort %{{.*}} : (tensor<3x1xi8>) -> (tensor<3x1xi8>, tensor<3x1xi32>)
  %v1, %i1 = mindir.sort %u : (tensor<3x1xi8>) -> (tensor<3x1xi8>, tensor<3x1xi32>)
  return %i0, %v1 : tensor<0x4xi32>, tensor<3x1xi8>
}
