// RUN: ms-opt %s | ms-opt | FileCheck %s

// The collectives round-trip; the reduction is an enum attribute (sum by default).

// CHECK-LABEL: func.func @collectives
// CHECK: mindir.all_reduce %{{.*}} : tensor<4x3xf32>
// CHECK: mindir.all_reduce %{{.*}} {op = #mindir.reduce_op<max>} : tensor<4x3xf32>
// CHECK: mindir.all_gather %{{.*}} {group_size = 2 : i64} : tensor<4x3xf32> -> tensor<8x3xf32>
// CHECK: mindir.reduce_scatter %{{.*}} {group_size = 2 : i64, op = #mindir.reduce_op<prod>} : tensor<4x3xf32> -> tensor<2x3xf32>
// CHECK: mindir.broadcast %{{.*}} {root = 1 : i64} : tensor<4xi64>
func.func @collectives(%x: tensor<4x3xf32>, %i: tensor<4xi64>) -> (tensor<4x3xf32>, tensor<4x3xf32>, tensor<8x3xf32>, tensor<2x3xf32>, tensor<4xi64>) {
  %a = mindir.all_reduce %x : tensor<4x3xf32>
  %m = mindir.all_reduce %x {op = #mindir.reduce_op<max>} : tensor<4x3xf32>
  %g = mindir.all_gather %x {group_size = 2 : i64} : tensor<4x3xf32> -> tensor<8x3xf32>
  %s = mindir.reduce_scatter %x {group_size = 2 : i64, op = #mindir.reduce_op<prod>} : tensor<4x3xf32> -> tensor<2x3xf32>
  %b = mindir.broadcast %i {root = 1 : i64} : tensor<4xi64>
  return %a, %m, %g, %s, %b : tensor<4x3xf32>, tensor<4x3xf32>, tensor<8x3xf32>, tensor<2x3xf32>, tensor<4xi64>
}

// Collectives have side effects: an unused one is not removed.
// CHECK-LABEL: func.func @kept
// CHECK: mindir.all_reduce
func.func @kept(%x: tensor<4xf32>) {
  %a = mindir.all_reduce %x : tensor<4xf32>
  return
}
