// RUN: ms-opt %s --mindir-insert-shardings | filecheck %s

// Megatron MLP: w1 column-split (strategy (1, 2)), w2 row-split ((2, 1));
// op strategies become annotate_for_users shard ops on the operands, on a
// private 1-D grid of device_num ranks, and the module names the MPI ABI.
// CHECK:       module attributes {dlti.map = #dlti.map<"MPI:Implementation" = "OpenMPI">}
// CHECK:       shard.grid @msmlir_grid(shape = 2) {sym_visibility = "private"}
// CHECK-LABEL: func.func @mlp
// CHECK:         %[[R:.*]] = shard.sharding @msmlir_grid split_axes = {{\[\[\]\]}}
// CHECK:         %[[X:.*]] = shard.shard %arg0 to %[[R]] annotate_for_users : tensor<4x8xf32>
// CHECK:         %[[C:.*]] = shard.sharding @msmlir_grid split_axes = {{\[\[\], \[0\]\]}}
// CHECK:         %[[W1:.*]] = shard.shard %arg1 to %[[C]] annotate_for_users : tensor<8x16xf32>
// CHECK:         mindir.matmul %[[X]], %[[W1]]
// CHECK:         %[[ROW:.*]] = shard.sharding @msmlir_grid split_axes = {{\[\[0\]\]}}
// CHECK:         %[[W2:.*]] = shard.shard %arg2 to %[[ROW]] annotate_for_users : tensor<16x8xf32>
// CHECK:         mindir.matmul %{{.*}}, %[[W2]]
func.func @mlp(%x: tensor<4x8xf32>, %w1: tensor<8x16xf32>, %w2: tensor<16x8xf32>) -> tensor<4x8xf32>
    attributes {mindir.device_num = 2 : i64} {
  %0 = mindir.matmul %x, %w1 {mindir.in_strategy = [array<i64: 1, 1>, array<i64: 1, 2>]} : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %1 = mindir.relu %0 : tensor<4x16xf32>
  %2 = mindir.matmul %1, %w2 {mindir.in_strategy = [array<i64: 1, 2>, array<i64: 2, 1>]} : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}

// Argument / result strategies (ms.shard's in_strategy / out_strategy) and an
// op's out_strategy (a result annotation that every other user sees).
// CHECK-LABEL: func.func @rows
// CHECK:         %[[S:.*]] = shard.sharding @msmlir_grid split_axes = {{\[\[0\]\]}}
// CHECK:         %[[A:.*]] = shard.shard %arg0 to %[[S]] annotate_for_users : tensor<6x8xf32>
// CHECK:         %[[E:.*]] = mindir.exp %[[A]]
// CHECK:         %[[OS:.*]] = shard.sharding @msmlir_grid split_axes = {{\[\[0\]\]}}
// CHECK:         %[[O:.*]] = shard.shard %[[E]] to %[[OS]] : tensor<6x8xf32>
// CHECK:         mindir.reduce_sum %[[O]]
// CHECK:         %[[RS:.*]] = shard.sharding @msmlir_grid split_axes = {{\[\[\]\]}}
// CHECK:         %[[RET:.*]] = shard.shard %{{.*}} to %[[RS]] annotate_for_users : tensor<6xf32>
// CHECK:         return %[[RET]]
func.func @rows(%x: tensor<6x8xf32> {mindir.strategy = array<i64: 2, 1>}) -> (tensor<6xf32> {mindir.strategy = array<i64: 1>})
    attributes {mindir.device_num = 2 : i64} {
  %0 = mindir.exp %x {mindir.out_strategy = [array<i64: 2, 1>]} : tensor<6x8xf32>
  %1 = mindir.reduce_sum %0 {axes = array<i64: 1>} : (tensor<6x8xf32>) -> tensor<6xf32>
  return %1 : tensor<6xf32>
}

// Without strategies nothing changes.
// CHECK-LABEL: func.func @plain
// CHECK-NOT:     shard.
func.func @plain(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = mindir.exp %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// A sharding hint (Cell.shard's in/out strategies, parameter_plan): a layout
// constraint, the value laid out by the strategy and its users seeing it.
// CHECK-LABEL: func.func @hint
// CHECK-NOT:     mindir.sharding_hint
// CHECK:         %[[S:.*]] = shard.sharding @msmlir_grid split_axes = {{\[\[0\]\]}}
// CHECK:         %[[D:.*]] = shard.shard %arg0 to %[[S]] : tensor<8x4xf32>
// CHECK:         %[[S2:.*]] = shard.sharding @msmlir_grid split_axes = {{\[\[0\]\]}}
// CHECK:         %[[U:.*]] = shard.shard %[[D]] to %[[S2]] annotate_for_users : tensor<8x4xf32>
// CHECK:         mindir.relu %[[U]]
// CHECK-NOT:     mindir.sharding_hint
func.func @hint(%x: tensor<8x4xf32>) -> tensor<8x4xf32> attributes {mindir.device_num = 2 : i64} {
  %0 = mindir.sharding_hint %x {strategy = array<i64: 2, 1>} : tensor<8x4xf32>
  %1 = mindir.relu %0 : tensor<8x4xf32>
  return %1 : tensor<8x4xf32>
}
