// The integer bitwise ops (issue 12): round trip, result types inferred with
// broadcasting, and the diagnostics for non-integer or mismatched operands.
// RUN: ms-opt %s --split-input-file | ms-opt --split-input-file | FileCheck %s
// RUN: ms-opt %s --split-input-file --mlir-print-op-generic | ms-opt --split-input-file | FileCheck %s

// CHECK-LABEL: func.func @bitwise
func.func @bitwise(%a: tensor<2x4xi32>, %b: tensor<4xi32>, %c: tensor<3xi8>, %d: tensor<i64>) {
  // CHECK: mindir.bitwise_and %{{.*}}, %{{.*}} : (tensor<2x4xi32>, tensor<4xi32>) -> tensor<2x4xi32>
  %0 = mindir.bitwise_and %a, %b : (tensor<2x4xi32>, tensor<4xi32>) -> tensor<2x4xi32>
  // CHECK: mindir.bitwise_or %{{.*}}, %{{.*}} : (tensor<3xi8>, tensor<3xi8>) -> tensor<3xi8>
  %1 = mindir.bitwise_or %c, %c : (tensor<3xi8>, tensor<3xi8>) -> tensor<3xi8>
  // CHECK: mindir.bitwise_xor %{{.*}}, %{{.*}} : (tensor<i64>, tensor<i64>) -> tensor<i64>
  %2 = mindir.bitwise_xor %d, %d : (tensor<i64>, tensor<i64>) -> tensor<i64>
  // CHECK: mindir.left_shift %{{.*}}, %{{.*}} : (tensor<4xi32>, tensor<2x4xi32>) -> tensor<2x4xi32>
  %3 = mindir.left_shift %b, %a : (tensor<4xi32>, tensor<2x4xi32>) -> tensor<2x4xi32>
  // CHECK: mindir.right_shift %{{.*}}, %{{.*}} : (tensor<2x4xi32>, tensor<4xi32>) -> tensor<2x4xi32>
  %4 = mindir.right_shift %a, %b : (tensor<2x4xi32>, tensor<4xi32>) -> tensor<2x4xi32>
  // CHECK: mindir.bitwise_not %{{.*}} : tensor<3xi8>
  %5 = mindir.bitwise_not %c : tensor<3xi8>
  return
}
