// RUN: ms-opt %s --pass-pipeline="builtin.module(mindir-insert-shardings,convert-mindir-to-linalg,msmlir-shard-partition)" | filecheck %s

// A 2x2 mesh (data x model parallel): x whole on every rank but consumed
// split by rows over mesh axis 0 and by columns over axis 1, the relu's
// result returned whole. MLIR 22's shard-partition cannot reshard on a grid
// of rank > 1 (`reshardOn1DGrid` asserts), so msmlir-shard-partition cuts
// each resharding out before it and puts back collectives over one grid
// axis each: a slice per axis in, a gather per axis out.
// CHECK-LABEL: func.func @f(
// CHECK-SAME:      %[[X:[a-z0-9]+]]: tensor<8x16xf32>
// CHECK-NOT:     linalg.copy
// CHECK:         %[[A:.*]] = shard.all_slice %[[X]] on @msmlir_grid grid_axes = [0] slice_axis = 0 : tensor<8x16xf32> -> tensor<4x16xf32>
// CHECK:         %[[B:.*]] = shard.all_slice %[[A]] on @msmlir_grid grid_axes = [1] slice_axis = 1 : tensor<4x16xf32> -> tensor<4x8xf32>
// CHECK:         %[[R:.*]] = linalg.generic {{.*}} ins(%[[B]] : tensor<4x8xf32>)
// CHECK:         %[[G:.*]] = shard.all_gather %[[R]] on @msmlir_grid grid_axes = [0] gather_axis = 0 : tensor<4x8xf32> -> tensor<8x8xf32>
// CHECK:         %[[H:.*]] = shard.all_gather %[[G]] on @msmlir_grid grid_axes = [1] gather_axis = 1 : tensor<8x8xf32> -> tensor<8x16xf32>
// CHECK:         return %[[H]]
// CHECK-NOT:     msmlir.reshard
func.func @f(%x: tensor<8x16xf32> {mindir.strategy = array<i64: 1, 1>}) -> (tensor<8x16xf32> {mindir.strategy = array<i64: 1, 1>})
    attributes {mindir.device_num = 4 : i64} {
  %0 = mindir.relu %x {mindir.in_strategy = [array<i64: 2, 2>]} : tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}
