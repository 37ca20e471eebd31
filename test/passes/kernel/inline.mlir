// RUN: ms-opt %s --mskernel-inline-kernels | FileCheck %s
// RUN: ms-opt %s --mskernel-inline-kernels='target=gpu' | FileCheck %s --check-prefix=GPU
// RUN: ms-opt %s --mskernel-inline-kernels='kinds=elemwise' | FileCheck %s --check-prefix=KIND
// Option values are case names of #mskernel.target / #mskernel.kind.
// RUN: not ms-opt %s --mskernel-inline-kernels='kinds=elemwise,injective' 2>&1 | FileCheck %s --check-prefix=BADKIND
// RUN: not ms-opt %s --mskernel-inline-kernels='target=tpu' 2>&1 | FileCheck %s --check-prefix=BADTARGET
// BADKIND: error: mskernel-inline-kernels: kind must be 'compute', 'elemwise', 'broadcast', 'reduce', 'matmul', 'conv' or 'opaque', got 'injective'
// BADTARGET: error: mskernel-inline-kernels: target must be 'cpu', 'gpu' or 'ascend', got 'tpu'

// Kernels dissolve into the enclosing function: body arguments become the
// kernel operands, the yielded values its results.

// CHECK-NOT: func.func private @k_fdiff_x
// GPU: func.func private @k_fdiff_x
// KIND: func.func private @k_fdiff_x
func.func private @k_fdiff_x(%y: f32, %x: f32) -> f32 attributes {mskernel.fdiff_fn} {
  return %y : f32
}

// CHECK-LABEL: func.func @compute(
// CHECK-SAME: %[[X:.*]]: tensor<4xf32>
// CHECK-NOT: mskernel.fused
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4xf32>
// CHECK: %[[G:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<4xf32>) outs(%[[E]] : tensor<4xf32>)
// CHECK: math.tanh
// CHECK: %[[R:.*]] = mindir.neg %[[G]]
// CHECK: return %[[R]]
// GPU-LABEL: func.func @compute(
// GPU: mskernel.fused
// KIND-LABEL: func.func @compute(
// KIND: mskernel.fused
func.func @compute(%x: tensor<4xf32>) -> tensor<4xf32> {
  %k = mskernel.fused(%x) {kind = #mskernel.kind<compute>, mskernel.fdiff = {in0 = @k_fdiff_x}} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %e = tensor.empty() : tensor<4xf32>
    %g = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
        ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
    ^bb0(%u: f32, %o: f32):
      %t = math.tanh %u : f32
      linalg.yield %t : f32
    } -> tensor<4xf32>
    mskernel.yield %g : tensor<4xf32>
  }
  %r = mindir.neg %k : tensor<4xf32>
  return %r : tensor<4xf32>
}

// A graph kernel of mindir ops (convert-mindir-to-linalg lowers them afterwards).
// CHECK-LABEL: func.func @graph_kernel(
// CHECK-SAME: %[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>
// CHECK-NEXT: %[[S:.*]] = mindir.add %[[A]], %[[B]]
// CHECK-NEXT: %[[T:.*]] = mindir.exp %[[S]]
// CHECK-NEXT: return %[[T]], %[[S]]
// KIND-LABEL: func.func @graph_kernel(
// KIND-NOT: mskernel.fused
// KIND: return
func.func @graph_kernel(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %r:2 = mskernel.fused(%a, %b) {kind = #mskernel.kind<elemwise>} : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  ^bb0(%x: tensor<4xf32>, %y: tensor<4xf32>):
    %s = mindir.add %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %t = mindir.exp %s : tensor<4xf32>
    mskernel.yield %t, %s : tensor<4xf32>, tensor<4xf32>
  }
  return %r#0, %r#1 : tensor<4xf32>, tensor<4xf32>
}

// Kernels for another target stay.
// CHECK-LABEL: func.func @gpu_kernel(
// CHECK: mskernel.fused
// GPU-LABEL: func.func @gpu_kernel(
// GPU-NOT: mskernel.fused
// GPU: math.exp
func.func @gpu_kernel(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = mskernel.fused(%a) {kind = #mskernel.kind<compute>, target = #mskernel.target<gpu>} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    %e = tensor.empty() : tensor<4xf32>
    %g = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
        ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
    ^bb0(%u: f32, %o: f32):
      %t = math.exp %u : f32
      linalg.yield %t : f32
    } -> tensor<4xf32>
    mskernel.yield %g : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
