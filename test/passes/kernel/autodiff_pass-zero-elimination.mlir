// RUN: ms-opt %s --mskernel-autodiff | FileCheck %s
// RUN: ms-opt %s --mskernel-autodiff='zero-elimination=false' | FileCheck %s --check-prefix=NAIVE

// out[i, j] = x[i, j] * floor(t[i, j]) + exp(b[j])
//
// The chain rule gives d/dx = 1 * floor(t) + x * 0 + 0 * exp(b),
// d/dt = 0 * floor(t) + x * 0 + 0 * exp(b) (floor' = 0) and
// d/db = 0 * floor(t) + x * 0 + 1 * exp(b). Zero elimination keeps
// dx = dout * floor(t) and db = sum_i dout * exp(b), and emits no kernel at
// all for t: its gradient is a constant zero.

// CHECK-LABEL: func.func @k_grad
// No gradient needs the forward result, so @k_grad holds only the backward
// kernel, which computes gradients for inputs 0 (x) and 2 (b) only.
// CHECK-NEXT: %[[G:.*]]:2 = mskernel.fused({{.*}}) {kind = #mskernel.kind<compute>, mskernel.grad_wrt = array<i64: 0, 2>}
// dx: every element written once (no zero fill), dout * floor(t), nothing else.
// CHECK-NEXT: ^bb0
// CHECK-NEXT: tensor.empty() : tensor<2x3xf32>
// CHECK-NEXT: linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK-NEXT: ^bb0(%[[DY:.*]]: f32, %[[T:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[F:.*]] = math.floor %[[T]] : f32
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[DY]], %[[F]] : f32
// CHECK-NEXT: linalg.yield %[[P]] : f32
// db: a broadcast read, so the row dim i is a reduction; exp(b) times dout only.
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32)
// CHECK-NEXT: linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]{{.*}}outs(%[[INIT]] : tensor<3xf32>)
// CHECK-NEXT: ^bb0(%[[DY2:.*]]: f32, %[[B:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT: %[[E:.*]] = math.exp %[[B]] : f32
// CHECK-NEXT: %[[Q:.*]] = arith.mulf %[[DY2]], %[[E]] : f32
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[ACC]], %[[Q]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
// CHECK: mskernel.yield %{{.*}}, %{{.*}} : tensor<2x3xf32>, tensor<3xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[DT:.*]] = arith.constant dense<0.000000e+00> : tensor<2x3xf32>
// CHECK-NEXT: return %[[G]]#0, %[[DT]], %[[G]]#1

// Without zero elimination: three accumulating kernels, the zero terms computed.
// NAIVE-LABEL: func.func @k_grad
// NAIVE: mskernel.grad_wrt = array<i64: 0, 1, 2>
// NAIVE-COUNT-3: linalg.fill
// NAIVE: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// NAIVE-NEXT: %{{.*}} = math.floor
// NAIVE-NEXT: %{{.*}} = arith.mulf %[[Z]], %{{.*}} : f32
// NAIVE-NEXT: %{{.*}} = arith.mulf %{{.*}}, %[[Z]] : f32
// NAIVE-NOT: arith.constant dense<0.000000e+00>

#id = affine_map<(i, j) -> (i, j)>
#col = affine_map<(i, j) -> (j)>
func.func @k(%x: tensor<2x3xf32>, %t: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32>
    attributes {mskernel.grad = {name = "k_grad"}} {
  %r = mskernel.fused(%x, %t, %b) {kind = #mskernel.kind<compute>} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32> {
  ^bb0(%xa: tensor<2x3xf32>, %ta: tensor<2x3xf32>, %ba: tensor<3xf32>):
    %e = tensor.empty() : tensor<2x3xf32>
    %g = linalg.generic {indexing_maps = [#id, #id, #col, #id], iterator_types = ["parallel", "parallel"]}
        ins(%xa, %ta, %ba : tensor<2x3xf32>, tensor<2x3xf32>, tensor<3xf32>) outs(%e : tensor<2x3xf32>) {
    ^bb0(%xv: f32, %tv: f32, %bv: f32, %o: f32):
      %f = math.floor %tv : f32
      %m = arith.mulf %xv, %f : f32
      %eb = math.exp %bv : f32
      %s = arith.addf %m, %eb : f32
      linalg.yield %s : f32
    } -> tensor<2x3xf32>
    mskernel.yield %g : tensor<2x3xf32>
  }
  return %r : tensor<2x3xf32>
}
