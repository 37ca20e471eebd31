// RUN: ms-opt %s --mskernel-autodiff | FileCheck %s

// Kernel-level AD of compute kernels: each input gradient is one linalg.generic
// over the forward loop space accumulating dout * d(body)/d(read) into the input
// through the read's indexing map. Dims not a bare result of that map are
// reductions; a non-injective map (x[i + j], x[i floordiv 2]) is the output map
// itself: a scatter-accumulate.

// CHECK-DAG: #[[IK:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[KJ:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[IJ:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[SUM:.*]] = affine_map<(d0, d1) -> (d0 + d1)>
// CHECK-DAG: #[[HALF:.*]] = affine_map<(d0) -> (d0 floordiv 2)>

// dA[i, k] = sum_j dC[i, j] * B[k, j]; dB[k, j] = sum_i dC[i, j] * A[i, k]
// CHECK-LABEL: func.func @matmul_grad
// CHECK: mskernel.grad_wrt = array<i64: 0, 1>
// CHECK: linalg.generic {indexing_maps = [#[[IJ]], #[[KJ]], #[[IK]]], iterator_types = ["parallel", "reduction", "parallel"]}
// CHECK: arith.mulf
// CHECK-NEXT: arith.addf
// CHECK: linalg.generic {indexing_maps = [#[[IJ]], #[[IK]], #[[KJ]]], iterator_types = ["reduction", "parallel", "parallel"]}

// dx[p] += dout[i, j] * w[j] at p = i + j, for every (i, j): both dims are reductions.
// CHECK-LABEL: func.func @hankel_grad
// CHECK: mskernel.grad_wrt = array<i64: 0>
// CHECK: linalg.fill
// CHECK-NEXT: linalg.generic {indexing_maps = [{{.*}}, {{.*}}, #[[SUM]]], iterator_types = ["reduction", "reduction"]}
// CHECK-NOT: linalg.generic
// CHECK: return

// dx[i floordiv 2] += dout[i]
// CHECK-LABEL: func.func @upsample_grad
// CHECK: linalg.fill
// CHECK-NEXT: linalg.generic {indexing_maps = [{{.*}}, #[[HALF]]], iterator_types = ["reduction"]}
// CHECK-NEXT: ^bb0(%[[D:.*]]: f64, %[[ACC:.*]]: f64):
// CHECK-NEXT: arith.addf %[[ACC]], %[[D]] : f64

// max reduction: the gradient flows to the elements equal to the forward result,
// which the backward kernel reads from the forward kernel (%[[Y]]).
// CHECK-LABEL: func.func @rowmax_grad
// CHECK: %[[Y:.*]] = mskernel.fused
// CHECK: mskernel.fused(%{{.*}}, %{{.*}}, %[[Y]]) {kind = #mskernel.kind<compute>, mskernel.grad_wrt = array<i64: 0>}
// CHECK: ^bb0(%[[DY:.*]]: f64, %[[X:.*]]: f64, %[[YV:.*]]: f64, %{{.*}}: f64):
// CHECK-NEXT: %[[C:.*]] = arith.cmpf oeq, %[[X]], %[[YV]] : f64
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT: %[[S:.*]] = arith.select %[[C]], %[[DY]], %[[Z]] : f64
// CHECK-NEXT: linalg.yield %[[S]] : f64

// User-supplied derivative: dx = dout * y * (1 - y) with y the forward result;
// the backward kernel has no exp.
// CHECK-LABEL: func.func @sigmoid_grad
// CHECK: %[[SY:.*]] = mskernel.fused
// CHECK: mskernel.fused(%{{.*}}, %[[SY]]) {kind = #mskernel.kind<compute>, mskernel.grad_wrt = array<i64: 0>}
// CHECK: ^bb0(%[[SD:.*]]: f32, %[[SV:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[OMY:.*]] = arith.subf %[[ONE]], %[[SV]] : f32
// CHECK-NEXT: %[[DYDX:.*]] = arith.mulf %[[SV]], %[[OMY]] : f32
// CHECK-NEXT: %[[R:.*]] = arith.mulf %[[SD]], %[[DYDX]] : f32
// CHECK-NEXT: linalg.yield %[[R]] : f32
// CHECK-NOT: math.exp
// CHECK: return

// matmul as a compute definition: C[i, j] = sum_k A[i, k] * B[k, j]
func.func @matmul(%a: tensor<2x4xf64>, %b: tensor<4x3xf64>) -> tensor<2x3xf64>
    attributes {mskernel.grad = {name = "matmul_grad"}} {
  %r = mskernel.fused(%a, %b) {kind = #mskernel.kind<compute>} : (tensor<2x4xf64>, tensor<4x3xf64>) -> tensor<2x3xf64> {
  ^bb0(%aa: tensor<2x4xf64>, %bb: tensor<4x3xf64>):
    %z = arith.constant 0.0 : f64
    %e = tensor.empty() : tensor<2x3xf64>
    %i = linalg.fill ins(%z : f64) outs(%e : tensor<2x3xf64>) -> tensor<2x3xf64>
    %g = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>],
                         iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%aa, %bb : tensor<2x4xf64>, tensor<4x3xf64>) outs(%i : tensor<2x3xf64>) {
    ^bb0(%x: f64, %y: f64, %acc: f64):
      %m = arith.mulf %x, %y : f64
      %s = arith.addf %acc, %m : f64
      linalg.yield %s : f64
    } -> tensor<2x3xf64>
    mskernel.yield %g : tensor<2x3xf64>
  }
  return %r : tensor<2x3xf64>
}

// a non-injective read: out[i, j] = x[i + j] * w[j]
func.func @hankel(%x: tensor<6xf64>, %w: tensor<4xf64>) -> tensor<3x4xf64>
    attributes {mskernel.grad = {name = "hankel_grad", wrt = array<i64: 0>}} {
  %r = mskernel.fused(%x, %w) {kind = #mskernel.kind<compute>} : (tensor<6xf64>, tensor<4xf64>) -> tensor<3x4xf64> {
  ^bb0(%xa: tensor<6xf64>, %wa: tensor<4xf64>):
    %e = tensor.empty() : tensor<3x4xf64>
    %g = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i + j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                         iterator_types = ["parallel", "parallel"]}
        ins(%xa, %wa : tensor<6xf64>, tensor<4xf64>) outs(%e : tensor<3x4xf64>) {
    ^bb0(%xv: f64, %wv: f64, %o: f64):
      %m = arith.mulf %xv, %wv : f64
      linalg.yield %m : f64
    } -> tensor<3x4xf64>
    mskernel.yield %g : tensor<3x4xf64>
  }
  return %r : tensor<3x4xf64>
}

// upsampling: out[i] = x[i floordiv 2]
func.func @upsample(%x: tensor<4xf64>) -> tensor<8xf64>
    attributes {mskernel.grad = {name = "upsample_grad"}} {
  %r = mskernel.fused(%x) {kind = #mskernel.kind<compute>} : (tensor<4xf64>) -> tensor<8xf64> {
  ^bb0(%xa: tensor<4xf64>):
    %e = tensor.empty() : tensor<8xf64>
    %g = linalg.generic {indexing_maps = [affine_map<(i) -> (i floordiv 2)>, affine_map<(i) -> (i)>],
                         iterator_types = ["parallel"]}
        ins(%xa : tensor<4xf64>) outs(%e : tensor<8xf64>) {
    ^bb0(%xv: f64, %o: f64):
      linalg.yield %xv : f64
    } -> tensor<8xf64>
    mskernel.yield %g : tensor<8xf64>
  }
  return %r : tensor<8xf64>
}

// row max: the gradient goes to the elements equal to the maximum
func.func @rowmax(%x: tensor<2x5xf64>) -> tensor<2xf64>
    attributes {mskernel.grad = {name = "rowmax_grad"}} {
  %r = mskernel.fused(%x) {kind = #mskernel.kind<compute>} : (tensor<2x5xf64>) -> tensor<2xf64> {
  ^bb0(%xa: tensor<2x5xf64>):
    %ninf = arith.constant 0xFFF0000000000000 : f64
    %e = tensor.empty() : tensor<2xf64>
    %i = linalg.fill ins(%ninf : f64) outs(%e : tensor<2xf64>) -> tensor<2xf64>
    %g = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                         iterator_types = ["parallel", "reduction"]}
        ins(%xa : tensor<2x5xf64>) outs(%i : tensor<2xf64>) {
    ^bb0(%xv: f64, %acc: f64):
      %m = arith.maximumf %acc, %xv : f64
      linalg.yield %m : f64
    } -> tensor<2xf64>
    mskernel.yield %g : tensor<2xf64>
  }
  return %r : tensor<2xf64>
}

// sigmoid with a user-supplied derivative dy/dx = y * (1 - y)
func.func private @sigmoid_dx(%y: f32, %x: f32) -> f32 attributes {mskernel.fdiff_fn} {
  %one = arith.constant 1.0 : f32
  %d = arith.subf %one, %y : f32
  %r = arith.mulf %y, %d : f32
  return %r : f32
}
func.func @sigmoid(%x: tensor<8xf32>) -> tensor<8xf32>
    attributes {mskernel.grad = {name = "sigmoid_grad"}} {
  %r = mskernel.fused(%x) {kind = #mskernel.kind<compute>, mskernel.fdiff = {in0 = @sigmoid_dx}} : (tensor<8xf32>) -> tensor<8xf32> {
  ^bb0(%xa: tensor<8xf32>):
    %e = tensor.empty() : tensor<8xf32>
    %g = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                         iterator_types = ["parallel"]}
        ins(%xa : tensor<8xf32>) outs(%e : tensor<8xf32>) {
    ^bb0(%xv: f32, %o: f32):
      %one = arith.constant 1.0 : f32
      %n = arith.negf %xv : f32
      %ex = math.exp %n : f32
      %den = arith.addf %one, %ex : f32
      %s = arith.divf %one, %den : f32
      linalg.yield %s : f32
    } -> tensor<8xf32>
    mskernel.yield %g : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}
