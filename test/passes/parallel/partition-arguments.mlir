// RUN: ms-opt %s --pass-pipeline="builtin.module(mindir-insert-shardings,convert-mindir-to-linalg,msmlir-shard-partition)" | filecheck %s

// A parameter read by two ops (as in a train step: the forward matmul and
// the update): propagation annotates each use, and upstream shard-partition
// asserts that an argument has one use (known-issues §15). The argument gets
// one defining annotation (the split its users ask for: w's columns), the
// other uses reshard from it (here the mul, which propagation leaves
// replicated, gathers w), and the unused argument gets a replicated one.
// CHECK-LABEL: func.func @step(
// CHECK-SAME:      %[[X:[a-z0-9]+]]: tensor<4x8xf32>, %[[W:[a-z0-9]+]]: tensor<8x8xf32>, %{{.*}}: tensor<3xf32>) -> (tensor<4x16xf32>{{.*}}, tensor<8x16xf32>
// CHECK:         %[[WG:.*]] = shard.all_gather %[[W]] on @msmlir_grid grid_axes = [0] gather_axis = 1 : tensor<8x8xf32> -> tensor<8x16xf32>
// CHECK:         %[[Y:.*]] = linalg.matmul ins(%[[X]], %[[W]] : tensor<4x8xf32>, tensor<8x8xf32>)
// CHECK:         %[[YG:.*]] = shard.all_gather %[[Y]] on @msmlir_grid grid_axes = [0] gather_axis = 1 : tensor<4x8xf32> -> tensor<4x16xf32>
// CHECK:         %[[U:.*]] = linalg.generic {{.*}} ins(%[[WG]], %[[WG]] : tensor<8x16xf32>, tensor<8x16xf32>)
// CHECK:         return %[[YG]], %[[U]]
func.func @step(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %unused: tensor<3xf32>)
    -> (tensor<4x16xf32> {mindir.strategy = array<i64: 1, 1>}, tensor<8x16xf32> {mindir.strategy = array<i64: 1, 1>})
    attributes {mindir.device_num = 2 : i64} {
  %y = mindir.matmul %x, %w {mindir.in_strategy = [array<i64: 1, 1>, array<i64: 1, 2>]} : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %u = mindir.mul %w, %w : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  return %y, %u : tensor<4x16xf32>, tensor<8x16xf32>
}
