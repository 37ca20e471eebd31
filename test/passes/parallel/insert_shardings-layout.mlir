// RUN: ms-opt %s --mindir-insert-shardings | filecheck %s

// A user-given device matrix (MindSpore's Layout((2, 2), ("dp", "mp"))):
// the mesh is the matrix and each dim's axes are taken as written, including
// what no tuple of cuts can say: x's rows over axis 1 ("mp"), w's columns
// over axis 0 ("dp"), a dim over both axes in the order (1, 0).
// CHECK:       shard.grid @msmlir_grid(shape = 2x2)
// CHECK-LABEL: func.func @layouts
// CHECK:         %[[A:.*]] = shard.sharding @msmlir_grid split_axes = {{\[\[}}1, 0]] : !shard.sharding
// CHECK:         shard.shard %arg0 to %[[A]] annotate_for_users
// CHECK:         %[[X:.*]] = shard.sharding @msmlir_grid split_axes = {{\[\[}}1]] : !shard.sharding
// CHECK:         shard.shard {{.*}} to %[[X]] annotate_for_users
// CHECK:         %[[W:.*]] = shard.sharding @msmlir_grid split_axes = {{\[\[}}], [0]] : !shard.sharding
// CHECK:         shard.shard %arg1 to %[[W]] annotate_for_users
// CHECK:         mindir.matmul
// A hint with a layout (Cell.shard): both shard.shard ops on axis 1 for dim 1.
// CHECK:         split_axes = {{\[\[}}], [1]]
// CHECK:         split_axes = {{\[\[}}], [1]]
// CHECK-NOT:     mindir.sharding_hint
// The result's layout.
// CHECK:         %[[R:.*]] = shard.sharding @msmlir_grid split_axes = {{\[\[}}0]] : !shard.sharding
// CHECK:         return
// A plain tuple next to layouts must fit the matrix's leading axes: a cut of 2 is axis 0.
// CHECK-LABEL: func.func @mixed
// CHECK:         split_axes = {{\[\[}}0]]
func.func @layouts(%x: tensor<8x16xf32> {mindir.strategy = array<i64: 4, 1>,
                                         mindir.layout = [array<i64: 1, 0>, array<i64>]},
                   %w: tensor<16x8xf32>)
    -> (tensor<8x8xf32> {mindir.strategy = array<i64: 2, 1>, mindir.layout = [array<i64: 0>, array<i64>]})
    attributes {mindir.device_num = 4 : i64, mindir.device_matrix = array<i64: 2, 2>} {
  %y = mindir.matmul %x, %w {mindir.device_matrix = array<i64: 2, 2>,
         mindir.in_layout = [[array<i64: 1>, array<i64>], [array<i64>, array<i64: 0>]],
         mindir.in_strategy = [array<i64: 2, 1>, array<i64: 1, 2>]} : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>
  %h = mindir.sharding_hint %y {strategy = array<i64: 1, 2>, mindir.layout = [array<i64>, array<i64: 1>],
         mindir.device_matrix = array<i64: 2, 2>} : tensor<8x8xf32>
  return %h : tensor<8x8xf32>
}
func.func @mixed(%x: tensor<8x16xf32>) -> tensor<8x16xf32>
    attributes {mindir.device_num = 4 : i64} {
  %r = mindir.relu %x {mindir.in_strategy = [array<i64: 2, 1>]} : tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}
