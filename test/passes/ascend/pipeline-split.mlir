// RUN: rm -rf %t && ms-opt %s --pass-pipeline="builtin.module(msmlir-ascend-pipeline{emit-dir=%t fallback=false})" 2>&1 | FileCheck %s --check-prefix=IR
// RUN: cat %t/launch/ascend_reduce_*_??????????_launch.cpp | FileCheck %s --check-prefix=LAUNCH
// RUN: cat %t/op_kernel/ascend_reduce_*_rows.cpp | FileCheck %s --check-prefix=ROWS

// A bias gradient (sum over N, H and W, not C) with an SGD update: split.py
// makes it a row-mode vector kernel (the masked gradient, and partial sums
// over H*W for every (n, c)) and a column-mode vector kernel (the sum over N
// of the partial sums, then the update), exchanging a [4, 6] GM workspace.

// IR: remark: mskernel-lower-to-ascend: ascend_reduce_{{[a-z_]+}}_{{[0-9a-f]+}}: soc=Ascend910B {{.*}} (MTE2 (GM->UB) then {{.*}}

// LAUNCH: void* ws0 = nullptr;  // [4, 6] f32
// LAUNCH: rc = launch_ascend_reduce_{{[a-z_]+}}_{{[0-9a-f]+}}_rows(stream, x0, x1, x2, x3, y0, ws0);
// LAUNCH: rc = launch_ascend_reduce_{{[a-z_]+}}_{{[0-9a-f]+}}_cols(stream, x0, x1, x2, x3, ws0, y1);

// ROWS: 24 rows x 63 elements
// ROWS: ReduceSum(

func.func @db(%dy: tensor<4x6x7x9xf32>, %m: tensor<4x6x7x9xf32>, %lr: tensor<f32>, %b: tensor<6xf32>) -> (tensor<4x6x7x9xf32>, tensor<6xf32>) {
  %g = mindir.mul %dy, %m : (tensor<4x6x7x9xf32>, tensor<4x6x7x9xf32>) -> tensor<4x6x7x9xf32>
  %s = mindir.reduce_sum %g {axes = array<i64: 0, 2, 3>} : (tensor<4x6x7x9xf32>) -> tensor<6xf32>
  %u = mindir.mul %s, %lr : (tensor<6xf32>, tensor<f32>) -> tensor<6xf32>
  %r = mindir.sub %b, %u : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xf32>
  return %g, %r : tensor<4x6x7x9xf32>, tensor<6xf32>
}
