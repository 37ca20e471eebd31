// RUN: ms-opt %s --mindir-insert-shardings --split-input-file | filecheck %s

// Repeated calculation (MindSpore: a strategy whose cuts use fewer devices
// than device_num; each block is computed by device_num / product devices).
// The cuts take the mesh's leading axes, the remaining axes repeat: 4 ranks,
// MatMul ((2, 1), (1, 1)) -> a 2x2 mesh, x's rows on axis 0, axis 1 repeats.
// CHECK:       shard.grid @msmlir_grid(shape = 2x2)
// CHECK-LABEL: func.func @rows_on_half
// CHECK:         %[[S:.*]] = shard.sharding @msmlir_grid split_axes = {{\[\[}}0]] : !shard.sharding
// CHECK:         shard.shard %arg0 to %[[S]] annotate_for_users
// CHECK:         %[[R:.*]] = shard.sharding @msmlir_grid split_axes = {{\[\[}}]] : !shard.sharding
// CHECK:         shard.shard %arg1 to %[[R]] annotate_for_users
// CHECK:         mindir.matmul
func.func @rows_on_half(%x: tensor<8x16xf32>, %w: tensor<16x32xf32>) -> tensor<8x32xf32>
    attributes {mindir.device_num = 4 : i64} {
  %h = mindir.matmul %x, %w {mindir.in_strategy = [array<i64: 2, 1>, array<i64: 1, 1>]} : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  return %h : tensor<8x32xf32>
}

// -----

// A cut of device_num (the batch fed per rank) next to a cut of 2: the mesh
// is 2x2, the batch over both axes, the column split of w over axis 0.
// CHECK:       shard.grid @msmlir_grid(shape = 2x2)
// CHECK-LABEL: func.func @batch_and_half
// CHECK:         split_axes = {{\[\[}}0, 1]]
// CHECK:         split_axes = {{\[\[}}], [0]]
// CHECK:         mindir.matmul
func.func @batch_and_half(%x: tensor<8x16xf32> {mindir.strategy = array<i64: 4, 1>}, %w: tensor<16x32xf32>) -> tensor<8x32xf32>
    attributes {mindir.device_num = 4 : i64} {
  %h = mindir.matmul %x, %w {mindir.in_strategy = [array<i64: 1, 1>, array<i64: 1, 2>]} : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  return %h : tensor<8x32xf32>
}

// -----

// On a 2x2 data x model mesh, an elementwise op cut only 2 ways takes axis 0
// (MindSpore puts the repeated devices last in the device matrix).
// CHECK:       shard.grid @msmlir_grid(shape = 2x2)
// CHECK-LABEL: func.func @mesh_and_half
// CHECK:         mindir.matmul
// CHECK:         split_axes = {{\[\[}}], [0]]
// CHECK:         mindir.relu
// CHECK:         split_axes = {{\[\[}}0]]
// CHECK:         mindir.exp
func.func @mesh_and_half(%x: tensor<8x16xf32>, %w: tensor<16x32xf32>) -> tensor<8x32xf32>
    attributes {mindir.device_num = 4 : i64} {
  %h = mindir.matmul %x, %w {mindir.in_strategy = [array<i64: 2, 1>, array<i64: 1, 2>]} : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  %r = mindir.relu %h {mindir.in_strategy = [array<i64: 1, 2>]} : tensor<8x32xf32>
  %e = mindir.exp %r {mindir.in_strategy = [array<i64: 2, 1>]} : tensor<8x32xf32>
  return %e : tensor<8x32xf32>
}

// -----

// 8 ranks: a MatMul using 4 of them as 2x2 and a batch cut 8 -> a 2x2x2 mesh;
// the matmul's cuts on axes 0 and 1, axis 2 repeats it.
// CHECK:       shard.grid @msmlir_grid(shape = 2x2x2)
// CHECK-LABEL: func.func @eight
// CHECK:         split_axes = {{\[\[}}0, 1, 2]]
// CHECK:         split_axes = {{\[\[}}0]]
// CHECK:         split_axes = {{\[\[}}], [1]]
// CHECK:         mindir.matmul
func.func @eight(%x: tensor<8x16xf32> {mindir.strategy = array<i64: 8, 1>}, %w: tensor<16x32xf32>) -> tensor<8x32xf32>
    attributes {mindir.device_num = 8 : i64} {
  %h = mindir.matmul %x, %w {mindir.in_strategy = [array<i64: 2, 1>, array<i64: 1, 2>]} : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  return %h : tensor<8x32xf32>
}
