// RUN: rm -rf %t && ms-opt %s --pass-pipeline="builtin.module(msmlir-ascend-pipeline{emit-dir=%t fallback=false})" 2>&1 | FileCheck %s --check-prefix=IR
// RUN: cat %t/op_kernel/ascend_conv_*_mm.cpp | FileCheck %s --check-prefix=MM
// RUN: cat %t/op_host/ascend_conv_*_mm.cpp | FileCheck %s --check-prefix=HOST
// RUN: cat %t/op_kernel/ascend_conv_*_ksum.cpp | FileCheck %s --check-prefix=SUM

// LeNet5's conv1 filter gradient (batch 4): one 6 x 25 output tile over
// K = 4 * 28 * 28 = 3136. Split-K (the cost model's choice, each launch and
// block charged: cost.LAUNCH_CYCLES, BLOCK_CYCLES): 7 K slices of two
// 256-deep steps each, on 7 cube cores, each Fixpipe-ing its f32 partial to
// slice j of a GM workspace; a second launch (the vector column sum, "ksum")
// adds the 7 partials. (Without the per-block cost it was 13 slices of one.)

// IR: remark: mskernel-lower-to-ascend: ascend_conv_conv2d_backprop_filter_{{.*}} tile=6x784+5x5+16x32x256 split-K 7+7x64 {{.*}}then MTE2 (GM->L1) (double-buffered) then MTE2 (GM->UB)-bound) launches=4

// MM: 7 (tile, K slice) items (split-K: 7 slices of 2 K steps) over 7 cube cores.
// MM: cGm.SetGlobalBuffer((__gm__ float*)y0, 1050);
// MM: uint32_t nItem = item, nk = kk + 1, n = Steps(item);
// MM: mp.cmatrixInitVal = kk == 0;
// MM: if (kk + 1 == n) {
// MM: Fixpipe(cGm[slice * sS + bo * sC + bi * gC + m0 * ldc + n0], c,
// MM: slice = item % kSplit;
// MM: k0 = (slice * kPer + kk) * baseK;

// HOST: tiling.set_blockDim(7);
// HOST: tiling.set_kSplit(7);
// HOST-NEXT: tiling.set_kPer(2);
// HOST-NEXT: tiling.set_sS(150);

// SUM: extern "C" __global__ __aicore__ void ascend_conv_conv2d_backprop_filter_{{[0-9a-z]+}}_ksum(GM_ADDR x0, GM_ADDR y0, GM_ADDR workspace, GM_ADDR tiling)

func.func @dw(%dy: tensor<4x6x28x28xf32>, %x: tensor<4x1x32x32xf32>) -> tensor<6x1x5x5xf32> {
  %g = mindir.conv2d_backprop_filter %dy, %x {filter_shape = array<i64: 6, 1, 5, 5>} : (tensor<4x6x28x28xf32>, tensor<4x1x32x32xf32>) -> tensor<6x1x5x5xf32>
  return %g : tensor<6x1x5x5xf32>
}
