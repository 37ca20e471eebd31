// RUN: ms-opt %s --mindir-insert-shardings | filecheck %s

// 4 devices as a 2x2 mesh, inferred from the strategies as MindSpore infers
// its device matrix: MatMul ((2, 1), (1, 2)) is (i, k, j) = (2, 1, 2) and
// ((2, 2), (2, 1)) is (2, 2, 1): the cuts > 1 are the mesh, in order (the
// batch on axis 0, the hidden dim on axis 1: data x model parallel).
// CHECK:       shard.grid @msmlir_grid(shape = 2x2)
// CHECK-LABEL: func.func @mlp
// CHECK:         %[[S0:.*]] = shard.sharding @msmlir_grid split_axes = {{\[\[}}0]] : !shard.sharding
// CHECK:         shard.shard %arg0 to %[[S0]] annotate_for_users
// CHECK:         %[[S1:.*]] = shard.sharding @msmlir_grid split_axes = {{\[\[}}], [1]] : !shard.sharding
// CHECK:         shard.shard %arg1 to %[[S1]] annotate_for_users
// CHECK:         mindir.matmul
// CHECK:         %[[S2:.*]] = shard.sharding @msmlir_grid split_axes = {{\[\[}}0], [1]] : !shard.sharding
// CHECK:         mindir.relu
// CHECK:         split_axes = {{\[\[}}0], [1]]
// CHECK:         %[[S4:.*]] = shard.sharding @msmlir_grid split_axes = {{\[\[}}1]] : !shard.sharding
// CHECK:         shard.shard %arg2 to %[[S4]] annotate_for_users
// CHECK:         mindir.matmul
// Dense layout (transpose_b: w is [out, in]): j is w's dim 0.
// CHECK-LABEL: func.func @dense
// CHECK:         split_axes = {{\[\[}}0]]
// CHECK:         %[[W:.*]] = shard.sharding @msmlir_grid split_axes = {{\[\[}}1]] : !shard.sharding
// CHECK:         shard.shard %arg1 to %[[W]] annotate_for_users
// CHECK:         mindir.matmul
// One cut of device_num (a data-parallel batch) spans both axes.
// CHECK-LABEL: func.func @batch
// CHECK:         split_axes = {{\[\[}}0, 1]]
func.func @mlp(%x: tensor<8x16xf32>, %w1: tensor<16x32xf32>, %w2: tensor<32x8xf32>) -> tensor<8x8xf32>
    attributes {mindir.device_num = 4 : i64} {
  %h = mindir.matmul %x, %w1 {mindir.in_strategy = [array<i64: 2, 1>, array<i64: 1, 2>]} : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  %r = mindir.relu %h {mindir.in_strategy = [array<i64: 2, 2>]} : tensor<8x32xf32>
  %y = mindir.matmul %r, %w2 {mindir.in_strategy = [array<i64: 2, 2>, array<i64: 2, 1>]} : (tensor<8x32xf32>, tensor<32x8xf32>) -> tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}
func.func @dense(%x: tensor<8x16xf32>, %w: tensor<32x16xf32>) -> tensor<8x32xf32>
    attributes {mindir.device_num = 4 : i64} {
  %h = mindir.matmul %x, %w {transpose_b = true, mindir.in_strategy = [array<i64: 2, 1>, array<i64: 2, 1>]} : (tensor<8x16xf32>, tensor<32x16xf32>) -> tensor<8x32xf32>
  return %h : tensor<8x32xf32>
}
func.func @batch(%x: tensor<8x16xf32> {mindir.strategy = array<i64: 4, 1>}) -> tensor<8x16xf32>
    attributes {mindir.device_num = 4 : i64} {
  %r = mindir.relu %x : tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}
