// RUN: ms-opt %s --msmlir-shard-partition | filecheck %s

// A value resharded row split -> column split -> replicated, both generics
// with the same tensor.empty as init: propagation asserted on the shared
// empty (known-issues §14) until msmlir-shard-partition gave each use its own
// copy. Now: exp on the local rows, all_to_all to columns, exp, all_gather.
// CHECK-LABEL: func.func @chain(
// CHECK-SAME:      %[[A:[a-z0-9]+]]: tensor<2x8xf32>) -> tensor<4x8xf32>
// CHECK:         %[[E:.*]] = linalg.generic {{.*}} ins(%[[A]] : tensor<2x8xf32>)
// CHECK:         %[[T:.*]] = shard.all_to_all %[[E]] on @grid grid_axes = [0] split_axis = 1 concat_axis = 0 : tensor<2x8xf32> -> tensor<4x4xf32>
// CHECK:         %[[F:.*]] = linalg.generic {{.*}} ins(%[[T]] : tensor<4x4xf32>)
// CHECK:         %[[G:.*]] = shard.all_gather %[[F]] on @grid grid_axes = [0] gather_axis = 1 : tensor<4x4xf32> -> tensor<4x8xf32>
// CHECK:         return %[[G]]
module {
  shard.grid @grid(shape = 2)
  func.func @chain(%arg0: tensor<4x8xf32>) -> tensor<4x8xf32> {
    %s_rep = shard.sharding @grid split_axes = [[]] : !shard.sharding
    %s_row = shard.sharding @grid split_axes = [[0]] : !shard.sharding
    %s_col = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
    %b = shard.shard %arg0 to %s_row annotate_for_users : tensor<4x8xf32>
    %0 = tensor.empty() : tensor<4x8xf32>
    %1 = linalg.generic {indexing_maps = [affine_map<(i,j)->(i,j)>, affine_map<(i,j)->(i,j)>], iterator_types = ["parallel", "parallel"]} ins(%b : tensor<4x8xf32>) outs(%0 : tensor<4x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %5 = math.exp %in : f32
      linalg.yield %5 : f32
    } -> tensor<4x8xf32>
    %d = shard.shard %1 to %s_col annotate_for_users : tensor<4x8xf32>
    %2 = linalg.generic {indexing_maps = [affine_map<(i,j)->(i,j)>, affine_map<(i,j)->(i,j)>], iterator_types = ["parallel", "parallel"]} ins(%d : tensor<4x8xf32>) outs(%0 : tensor<4x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %5 = math.exp %in : f32
      linalg.yield %5 : f32
    } -> tensor<4x8xf32>
    %f = shard.shard %2 to %s_rep annotate_for_users : tensor<4x8xf32>
    return %f : tensor<4x8xf32>
  }
}
