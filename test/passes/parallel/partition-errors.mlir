// RUN: ms-opt %s "--msmlir-shard-partition=traversal=forward" --verify-diagnostics

// traversal=forward on a row-split elementwise op feeding a row reduction
// whose result is replicated for its users: MLIR 22's shard-partition asserts
// (`Assertion 'gridOp'`, docs/known-issues.md §9). Run in its own process,
// that is an error at the function, not an abort of ms-opt.
module {
  shard.grid @grid(shape = 2)
  // expected-error @+1 {{upstream sharding-propagation/shard-partition crashed on these shardings}}
  func.func @f(%arg0: tensor<4x8xf32>) -> tensor<4xf32> {
    %s_row = shard.sharding @grid split_axes = [[0]] : !shard.sharding
    %s_rep = shard.sharding @grid split_axes = [[]] : !shard.sharding
    %b = shard.shard %arg0 to %s_row annotate_for_users : tensor<4x8xf32>
    %0 = tensor.empty() : tensor<4x8xf32>
    %1 = linalg.generic {indexing_maps = [affine_map<(i,j)->(i,j)>, affine_map<(i,j)->(i,j)>], iterator_types = ["parallel", "parallel"]} ins(%b : tensor<4x8xf32>) outs(%0 : tensor<4x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %5 = math.exp %in : f32
      linalg.yield %5 : f32
    } -> tensor<4x8xf32>
    %cst = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<4xf32>
    %z = linalg.fill ins(%cst : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    %2 = linalg.generic {indexing_maps = [affine_map<(i,j)->(i,j)>, affine_map<(i,j)->(i)>], iterator_types = ["parallel", "reduction"]} ins(%1 : tensor<4x8xf32>) outs(%z : tensor<4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %5 = arith.addf %in, %out : f32
      linalg.yield %5 : f32
    } -> tensor<4xf32>
    %f = shard.shard %2 to %s_rep annotate_for_users : tensor<4xf32>
    return %f : tensor<4xf32>
  }
}
