// RUN: rm -rf %t && ms-opt %s --pass-pipeline="builtin.module(msmlir-ascend-pipeline{emit-dir=%t})" 2>&1 | FileCheck %s --check-prefix=IR
// RUN: cat %t/op_kernel/ascend_conv_*.cpp | FileCheck %s
// RUN: cat %t/op_host/*.cpp | FileCheck %s --check-prefix=HOST
// RUN: not ms-opt %s --pass-pipeline="builtin.module(msmlir-ascend-pipeline{fallback=false})" 2>&1 | FileCheck %s --check-prefix=OFF

// An f16 convolution is outside what the vector/cube planners express
// (conv.py maps f32 convolutions onto the cube): it becomes a scalar-loop
// Ascend C kernel on one core (named ops generalized by upstream
// linalg-generalize-named-ops), reported as "scalar fallback"; the
// intermediate results live in the GM workspace the host tiling function
// declares. fallback=false makes it an error instead.

// IR: remark: mskernel-lower-to-ascend: ascend_conv_conv2d_{{.*}}: soc=Ascend910B blockDim=1 tiles=1 tile=scalar UB=0B {{.*}} DataCopy=0 est-cycles={{[0-9]+}} (scalar fallback-bound)

// CHECK: SCALAR FALLBACK, one core
// CHECK-NEXT: // GlobalTensor GetValue/SetValue (no vector or cube instructions), because: a convolution that is not f32
// CHECK: extern "C" __global__ __aicore__ void ascend_conv_conv2d_{{[0-9a-z_]+}}(GM_ADDR x0, GM_ADDR x1, GM_ADDR x2, GM_ADDR y0, GM_ADDR workspace, GM_ADDR tiling) {
// CHECK: if (GetBlockIdx() != 0 || tilingData.workspaceBytes == 0) return;
// CHECK: GlobalTensor<half> [[W:g[0-9]+]]; [[W]].SetGlobalBuffer((__gm__ half*)(workspace + 0), 56);
// CHECK: // linalg.generic over [1, 2, 7, 4, 3, 3, 3]
// CHECK-NEXT: for (int64_t [[N:i[0-9_]+]] = 0; [[N]] < 1; ++[[N]])
// CHECK-SAME: GetValue(

// HOST: workspace[0] = 256;

// OFF: error: mskernel-lower-to-ascend: kernel @cpu_conv_conv2d_{{.*}}: a convolution that is not f32

func.func @conv(%x: tensor<1x3x9x9xf16>, %w: tensor<2x3x3x3xf16>, %b: tensor<2xf16>) -> tensor<1x2x7x4xf16> {
  %y = mindir.conv2d %x, %w {stride = array<i64: 1, 2>} : (tensor<1x3x9x9xf16>, tensor<2x3x3x3xf16>) -> tensor<1x2x7x4xf16>
  %z = mindir.bias_add %y, %b : (tensor<1x2x7x4xf16>, tensor<2xf16>) -> tensor<1x2x7x4xf16>
  return %z : tensor<1x2x7x4xf16>
}
