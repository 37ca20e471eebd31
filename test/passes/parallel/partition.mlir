// RUN: ms-opt %s --pass-pipeline="builtin.module(mindir-insert-shardings,convert-mindir-to-linalg,msmlir-shard-partition)" | filecheck %s

// Megatron MLP on 2 ranks: each rank holds x whole, half of w1's columns and
// half of w2's rows; relu runs on the local 4x8 half of h; the second matmul
// gives partial sums (its accumulator is zero on every rank) that one
// all_reduce adds up.
// CHECK-LABEL: func.func @mlp(
// CHECK-SAME:      %[[X:[a-z0-9]+]]: tensor<4x8xf32>, %[[W1:[a-z0-9]+]]: tensor<8x8xf32>, %[[W2:[a-z0-9]+]]: tensor<8x8xf32>) -> tensor<4x8xf32>
// CHECK:         %[[H:.*]] = linalg.matmul ins(%[[X]], %[[W1]] : tensor<4x8xf32>, tensor<8x8xf32>)
// CHECK:         %[[R:.*]] = linalg.generic {{.*}} ins(%[[H]] : tensor<4x8xf32>)
// CHECK:           arith.maximumf
// CHECK:         %[[Y:.*]] = linalg.matmul ins(%[[R]], %[[W2]] : tensor<4x8xf32>, tensor<8x8xf32>)
// CHECK:         %[[S:.*]] = shard.all_reduce %[[Y]] on @msmlir_grid grid_axes = [0] : tensor<4x8xf32> -> tensor<4x8xf32>
// CHECK:         return %[[S]]
// CHECK-NOT:     shard.shard
func.func @mlp(%x: tensor<4x8xf32>, %w1: tensor<8x16xf32>, %w2: tensor<16x8xf32>) -> tensor<4x8xf32>
    attributes {mindir.device_num = 2 : i64} {
  %0 = mindir.matmul %x, %w1 {mindir.in_strategy = [array<i64: 1, 1>, array<i64: 1, 2>]} : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %1 = mindir.relu %0 : tensor<4x16xf32>
  %2 = mindir.matmul %1, %w2 {mindir.in_strategy = [array<i64: 1, 2>, array<i64: 2, 1>]} : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}

// Row reduction of row-split data: reduced locally (3 rows per rank), the
// 3-element results gathered (forward-backward propagation; the default
// backward one would gather the 3x8 input instead).
// CHECK-LABEL: func.func @rowsum(
// CHECK-SAME:      %[[A:[a-z0-9]+]]: tensor<3x8xf32>{{.*}}) -> (tensor<6xf32>
// CHECK:         %[[L:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}} ins(%[[A]] : tensor<3x8xf32>) outs(%{{.*}} : tensor<3xf32>)
// CHECK:         %[[G:.*]] = shard.all_gather %[[L]] on @msmlir_grid grid_axes = [0] gather_axis = 0 : tensor<3xf32> -> tensor<6xf32>
// CHECK:         return %[[G]]
func.func @rowsum(%x: tensor<6x8xf32> {mindir.strategy = array<i64: 2, 1>}) -> (tensor<6xf32> {mindir.strategy = array<i64: 1>})
    attributes {mindir.device_num = 2 : i64} {
  %0 = mindir.reduce_sum %x {axes = array<i64: 1>} : (tensor<6x8xf32>) -> tensor<6xf32>
  return %0 : tensor<6xf32>
}
