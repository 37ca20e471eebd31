// RUN: ms-opt %s --msmlir-shard-partition --verify-diagnostics

// A value resharded from a row split to a column split and back: MLIR 22's
// sharding-propagation asserts ("only support all shard ops have the same
// grid sharding attr", docs/known-issues.md §9). Run in its own process, that
// is an error at the function, not an abort of ms-opt.
module {
  shard.grid @grid(shape = 2)
  // expected-error @+1 {{upstream sharding-propagation/shard-partition crashed on these shardings}}
  func.func @f(%arg0: tensor<4x8xf32>) -> tensor<4x8xf32> {
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
