// RUN: ms-opt %s --pass-pipeline="builtin.module(mindir-insert-shardings,convert-mindir-to-linalg,msmlir-shard-partition)" | filecheck %s

// An updated parameter (result 1 written back to argument 1, msmlir.writeback)
// is returned with its argument's sharding, not the replicated one its result
// annotation asks for: the rank returns its slice of w (8x8, w's columns).
// (Propagation leaves this mul replicated, so here the update is computed
// whole and sliced; the other result stays whole, all_gathered.)
// CHECK-LABEL: func.func @step(
// CHECK-SAME:      %[[X:[a-z0-9]+]]: tensor<4x8xf32>, %[[W:[a-z0-9]+]]: tensor<8x8xf32>) -> (tensor<4x16xf32>{{.*}}, tensor<8x8xf32>
// CHECK:         %[[Y:.*]] = linalg.matmul ins(%[[X]], %[[W]] : tensor<4x8xf32>, tensor<8x8xf32>)
// CHECK:         %[[YG:.*]] = shard.all_gather %[[Y]] on @msmlir_grid grid_axes = [0] gather_axis = 1 : tensor<4x8xf32> -> tensor<4x16xf32>
// CHECK:         %[[U:.*]] = linalg.generic
// CHECK:         %[[US:.*]] = shard.all_slice %[[U]] on @msmlir_grid grid_axes = [0] slice_axis = 1 : tensor<8x16xf32> -> tensor<8x8xf32>
// CHECK:         return %[[YG]], %[[US]] : tensor<4x16xf32>, tensor<8x8xf32>
func.func @step(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>)
    -> (tensor<4x16xf32> {mindir.strategy = array<i64: 1, 1>}, tensor<8x16xf32> {mindir.strategy = array<i64: 1, 1>})
    attributes {mindir.device_num = 2 : i64, msmlir.writeback = [[1, 1]]} {
  %y = mindir.matmul %x, %w {mindir.in_strategy = [array<i64: 1, 1>, array<i64: 1, 2>]} : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %u = mindir.mul %w, %w : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  return %y, %u : tensor<4x16xf32>, tensor<8x16xf32>
}
