// RUN: ms-opt %s --pass-pipeline="builtin.module(mindir-insert-shardings,convert-mindir-to-linalg,msmlir-make-shardable,msmlir-shard-partition)" --verify-diagnostics

// A non-splat constant that is not a ramp (msmlir-make-shardable leaves it):
// MLIR 22's shard-partition fails on it without a diagnostic
// (docs/known-issues.md §18); msmlir reports that at the function.
// expected-error @+1 {{shard partitioning failed: the pass failed without a diagnostic, e.g. on a non-splat constant}}
func.func @f(%x: tensor<4xf32> {mindir.strategy = array<i64: 2>}) -> (tensor<4xf32> {mindir.strategy = array<i64: 1>})
    attributes {mindir.device_num = 2 : i64} {
  %c = mindir.constant dense<[1.0, 5.0, 2.0, 3.0]> : tensor<4xf32>
  %y = mindir.mul %x, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
