// RUN: ms-opt %s --msmlir-bound-elementwise-fusion='max-ops=2' | FileCheck %s
// RUN: ms-opt %s --msmlir-bound-elementwise-fusion='max-ops=2' --linalg-fuse-elementwise-ops --msmlir-drop-fusion-barriers | FileCheck %s --check-prefix=FUSED
// RUN: ms-opt %s --linalg-fuse-elementwise-ops | FileCheck %s --check-prefix=UNBOUNDED

// A chain of 5 single-use elementwise generics with max-ops=2: every second
// link gets a barrier call (a second use), so upstream fusion makes kernels of
// at most 2 ops: [1,2] [3,4] [5]; the barriers are gone afterwards.
// CHECK-LABEL: func.func @chain
// CHECK-COUNT-2: call @msmlir_fusion_barrier_0(%{{.+}}) : (tensor<4xf32>) -> ()
// CHECK-NOT:     call @
// CHECK:       func.func private @msmlir_fusion_barrier_0(tensor<4xf32>)

// FUSED-LABEL: func.func @chain
// FUSED-COUNT-3: linalg.generic
// FUSED-NOT:     linalg.generic
// FUSED-NOT:     msmlir_fusion_barrier

// Without the bound, the whole chain is one generic.
// UNBOUNDED-LABEL: func.func @chain
// UNBOUNDED-COUNT-1: linalg.generic
// UNBOUNDED-NOT:     linalg.generic
#id = affine_map<(d0) -> (d0)>
func.func @chain(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%i: f32, %o: f32):
    %r = arith.addf %i, %i : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%i: f32, %o: f32):
    %r = arith.mulf %i, %i : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%b : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%i: f32, %o: f32):
    %r = arith.addf %i, %i : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %d = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%c : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%i: f32, %o: f32):
    %r = arith.mulf %i, %i : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %f = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%d : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%i: f32, %o: f32):
    %r = arith.addf %i, %i : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  return %f : tensor<4xf32>
}
