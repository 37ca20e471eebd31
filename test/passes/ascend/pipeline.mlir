// RUN: rm -rf %t && ms-opt %s --pass-pipeline="builtin.module(msmlir-ascend-pipeline{soc=Ascend910B emit-dir=%t})" 2>&1 | FileCheck %s --check-prefix=IR
// RUN: cat %t/op_kernel/*.cpp | FileCheck %s
// RUN: FileCheck %s --check-prefix=REPORT --input-file=%t/report.txt

// msmlir-ascend-pipeline from mindir: graph stages of the CPU pipeline (the
// two ops fuse into one kernel), convert-mindir-to-linalg on the kernel, then
// the Ascend C kernel. The host function keeps its call. Rows of 64 f32 are
// 32-byte multiples: plain DataCopy, no DataCopyPad; the [64] bias is a
// column vector loaded once per core; the cost model spreads the 32 rows over
// 32 cores (per-core time beats per-copy latency at this size).

// IR: remark: mskernel-lower-to-ascend: ascend_broadcast_add_relu_{{[0-9a-f]+}}: soc=Ascend910B blockDim=32 tiles=32 tile=1x64
// IR-LABEL: func.func @f
// IR: call @cpu_broadcast_add_relu_{{[0-9a-f]+}}(%arg0, %arg1)

// CHECK-NOT: DataCopyPad
// CHECK: if (colTiles == 1) LoadCols(0, rowLen);
// CHECK: DataCopy(c1, in1Gm[c0], n);
// CHECK: SetFlag<HardEvent::MTE2_V>(0);
// CHECK: DataCopy(x0, in0Gm[row0 * rowLen + col0], rows * cols);
// CHECK: for (uint32_t r = 0; r < rows; ++r) { Add([[T:tF0]][r * pitch], in0[r * pitch], col1, colsAl); }
// CHECK: Maxs(out0, [[T]], 0.0f, cntF);
// CHECK: DataCopy(out0Gm[row0 * rowLen + col0], y0, rows * cols);
// CHECK: extern "C" __global__ __aicore__ void ascend_broadcast_add_relu_{{[0-9a-f]+}}(GM_ADDR x0, GM_ADDR x1, GM_ADDR y0, GM_ADDR workspace, GM_ADDR tiling)

// REPORT: ascend_broadcast_add_relu_{{[0-9a-f]+}}: soc=Ascend910B blockDim=32 tiles=32 tile=1x64 UB={{[0-9]+}}B {{.*}} double-buffer=on DataCopy=96 est-cycles={{[0-9]+}}

func.func @f(%x: tensor<32x64xf32>, %b: tensor<64xf32>) -> tensor<32x64xf32> {
  %a = mindir.add %x, %b : (tensor<32x64xf32>, tensor<64xf32>) -> tensor<32x64xf32>
  %r = mindir.relu %a : tensor<32x64xf32>
  return %r : tensor<32x64xf32>
}
