// RUN: ms-opt %s --mindir-vmap --split-input-file --verify-diagnostics

func.func private @f(%x: tensor<4xf32>, %p: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{vmap: no batching rule for 'mindir.assign'}}
  %a = mindir.assign %p, %x : tensor<4xf32>
  return %a : tensor<4xf32>
}
func.func private @f_vmap(tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
    attributes {mindir.vmap = {callee = @f, in_axes = [0 : i64, unit], out_axes = [0 : i64]}}

// -----

func.func private @g(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = mindir.exp %x : tensor<3xf32>
  return %0 : tensor<3xf32>
}
// expected-error @+1 {{mindir-vmap: no argument is batched}}
func.func private @g_vmap(tensor<3xf32>) -> tensor<3xf32>
    attributes {mindir.vmap = {callee = @g, in_axes = [unit], out_axes = [unit]}}
