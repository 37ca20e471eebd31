// RUN: rm -rf %t && ms-opt %s --pass-pipeline="builtin.module(msmlir-ascend-pipeline{emit-dir=%t})" 2>&1 | FileCheck %s --check-prefix=IR
// RUN: cat %t/op_kernel/ascend_reduce_*.cpp | FileCheck %s
// RUN: cat %t/op_host/*.cpp | FileCheck %s --check-prefix=HOST
// RUN: not ms-opt %s --pass-pipeline="builtin.module(msmlir-ascend-pipeline{fallback=false})" 2>&1 | FileCheck %s --check-prefix=OFF

// A sum over a middle axis (of an f16 product) is outside what the
// vector/cube planners express (f16 convolutions are on the cube now:
// pipeline-conv-f16.mlir): it becomes a scalar-loop Ascend C kernel on one
// core (named ops generalized by upstream linalg-generalize-named-ops),
// reported as "scalar fallback"; the intermediate results live in the GM
// workspace the host tiling function declares. fallback=false makes it an
// error instead.

// IR: remark: mskernel-lower-to-ascend: ascend_reduce_mul_reduce_sum_{{.*}}: soc=Ascend910B blockDim=1 tiles=1 tile=scalar UB=0B {{.*}} DataCopy=0 est-cycles={{[0-9]+}} (scalar fallback-bound)

// CHECK: SCALAR FALLBACK, one core
// CHECK-NEXT: // GlobalTensor GetValue/SetValue (no vector or cube instructions), because: reduction over dims [1] of [2, 5, 6]: only reductions over the innermost (last) or the outermost (first) axes are emitted
// CHECK: extern "C" __global__ __aicore__ void ascend_reduce_mul_reduce_sum_{{[0-9a-z_]+}}(GM_ADDR x0, GM_ADDR y0, GM_ADDR workspace, GM_ADDR tiling) {
// CHECK: if (GetBlockIdx() != 0 || tilingData.workspaceBytes == 0) return;
// CHECK: GlobalTensor<half> [[W:g[0-9]+]]; [[W]].SetGlobalBuffer((__gm__ half*)(workspace + 0), 60);
// CHECK: // linalg.generic over [2, 5, 6]
// CHECK-NEXT: for (int64_t [[N:i[0-9_]+]] = 0; [[N]] < 2; ++[[N]])
// CHECK-SAME: GetValue(

// HOST: workspace[0] = 256;

// OFF: error: mskernel-lower-to-ascend: kernel @cpu_reduce_mul_reduce_sum_{{.*}}: reduction over dims [1] of [2, 5, 6]

func.func @midsum(%x: tensor<2x5x6xf16>) -> tensor<2x6xf16> {
  %m = mindir.mul %x, %x : (tensor<2x5x6xf16>, tensor<2x5x6xf16>) -> tensor<2x5x6xf16>
  %r = mindir.reduce_sum %m {axes = array<i64: 1>} : (tensor<2x5x6xf16>) -> tensor<2x6xf16>
  return %r : tensor<2x6xf16>
}
