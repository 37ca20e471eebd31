// RUN: rm -rf %t && ms-opt %s --pass-pipeline="builtin.module(msmlir-ascend-pipeline{emit-dir=%t fallback=false})" 2>&1 | FileCheck %s --check-prefix=IR
// RUN: cat %t/op_kernel/ascend_matmul_matmul_cast_add_*_tb.cpp | FileCheck %s --check-prefix=TB
// RUN: cat %t/op_kernel/ascend_matmul_matmul_cast_add_*_ep.cpp | FileCheck %s --check-prefix=EP
// RUN: cat %t/op_kernel/ascend_reduce_reduce_sum_reshape_cast_*.cpp | FileCheck %s --check-prefix=COL
// RUN: cat %t/op_kernel/ascend_reduce_reduce_sum_isfinite_logical_and_*.cpp | FileCheck %s --check-prefix=FIN

// AMP O2's Dense layer and bias gradient, without the scalar fallback
// (fallback=false): nn.Dense's f16 weight stored [N, K] is transposed by a
// vector kernel of halves (one Gather per tile, rows padded to 16 halves),
// the cube multiplies f16 accumulating in f32, and the epilogue (the f32 bias
// cast to f16 -- fused into the add by upstream linalg-fuse-elementwise-ops --
// the f16 add, the cast to f32) rounds each f16 op; the bias gradient sums an
// f16 tensor over the batch in column mode: half rows in the queue, Cast to
// f32 per row, the f32 sum rounded to half once (Cast CAST_RINT and back).
// The dynamic loss scale's "all gradients finite": a vector ReduceSum, then
// isfinite (|s| one inf: LT or GT, false on NaN) and the AND with the
// previous flag on the scalar unit, the i1 flag read as a scalar and written
// as one byte.

// IR-DAG: remark: mskernel-lower-to-ascend: ascend_matmul_matmul_cast_add_{{[0-9a-f]+}}: soc=Ascend910B blockDim=4 tiles=1+1+4 tile=16x84+16x16x96+1x10 {{.*}}double-buffer=on
// IR-DAG: remark: mskernel-lower-to-ascend: ascend_reduce_reduce_sum_reshape_cast_{{[0-9a-f]+}}: soc=Ascend910B blockDim=2 tiles=2 tile=4x64 {{.*}}double-buffer=on
// IR-DAG: remark: mskernel-lower-to-ascend: ascend_reduce_reduce_sum_isfinite_logical_and_{{[0-9a-f]+}}: soc=Ascend910B blockDim=1 tiles=1 tile=1x703 UB=5888B
// IR-NOT: scalar fallback

// TB: (rows of half through UB, transposed by one Gather per tile).
// TB: colsPitch = (cols + 15) / 16 * 16;
// TB: xGm.SetGlobalBuffer((__gm__ half*)x0, rows * cols);
// TB: Gather(y, x, tabBuf.Get<uint32_t>(), 0, cols * rowsPitch);
// TB: DataCopyPad(yGm[row0], y, DataCopyExtParams{(uint16_t)cols, n * (uint32_t)sizeof(half),
// TB-NEXT: (rowsPitch - (n + 15) / 16 * 16) / 16, (rows - n) * (uint32_t)sizeof(half), 0});

// EP: Cast(rnd, {{tF[0-9]}}, RoundMode::CAST_RINT, cntF);
// EP: Cast(rnd, in3, RoundMode::CAST_RINT, cntF);
// EP: Add(

// COL: in0Gm.SetGlobalBuffer((__gm__ half*)x0, 336);
// COL: pipe.InitBuffer(in0Que, BUFFER_NUM, tileRows * pitchH * sizeof(half));
// COL-LABEL: void CopyIn() {
// COL: DataCopyPad(x0, in0Gm[row0 * rowLen + col0], DataCopyExtParams{(uint16_t)rows, cols * (uint32_t)sizeof(half), (rowLen - cols) * (uint32_t)sizeof(half), (pitchH - (cols + 15) / 16 * 16) / 16, 0}, DataCopyPadExtParams<half>{false, 0, 0, 0});
// COL-LABEL: void Compute() {
// COL: for (uint32_t r = 0; r < rows; ++r) { Cast(tF0[r * pitch], in0[r * pitchH], RoundMode::CAST_NONE, colsAl); }
// COL-LABEL: void Finish() {
// COL: Cast(rnd, {{tC[0-9]}}, RoundMode::CAST_RINT, colsAl);
// COL-NEXT: Cast({{tC[0-9]}}, rnd, RoundMode::CAST_NONE, colsAl);
// COL: GlobalTensor<half> in0Gm;

// FIN: in1Gm.SetGlobalBuffer((__gm__ uint8_t*)x1, 1);
// FIN-NEXT: s1 = (float)in1Gm.GetValue(0);
// FIN: ReduceSum(red, in0[r * pitch], work, cols);
// FIN: for (uint32_t r = 0; r < rows; ++r) { [[OK:tR[0-9]]].SetValue(r, (([[S:tR[0-9]]].GetValue(r) < (INFINITY) || [[S]].GetValue(r) > (INFINITY))) ? 1.0f : 0.0f); }
// FIN: Muls([[AND:tR[0-9]]], [[OK]], s1, cntR);
// FIN: for (uint32_t r = 0; r < rows; ++r) { out0.SetValue(r, (uint8_t)([[AND]].GetValue(r) != 0.0f)); }
// FIN: SetFlag<HardEvent::S_MTE3>(0); WaitFlag<HardEvent::S_MTE3>(0);
// FIN-NEXT: DataCopyPad(out0Gm[row0], y0, DataCopyExtParams{1, rows * (uint32_t)sizeof(uint8_t), 0, 0, 0});

func.func @dense(%a: tensor<4x84xf16>, %b: tensor<10x84xf16>, %bias: tensor<10xf32>) -> tensor<4x10xf32> {
  %m = mindir.matmul %a, %b {transpose_b = true} : (tensor<4x84xf16>, tensor<10x84xf16>) -> tensor<4x10xf16>
  %c = mindir.cast %bias : tensor<10xf32> to tensor<10xf16>
  %s = mindir.add %m, %c : (tensor<4x10xf16>, tensor<10xf16>) -> tensor<4x10xf16>
  %r = mindir.cast %s : tensor<4x10xf16> to tensor<4x10xf32>
  return %r : tensor<4x10xf32>
}
func.func @bias_grad(%x: tensor<4x84xf16>, %s: tensor<f32>) -> tensor<84xf32> {
  %r = mindir.reduce_sum %x {axes = array<i64: 0>, keep_dims = true} : (tensor<4x84xf16>) -> tensor<1x84xf16>
  %q = mindir.reshape %r {shape = array<i64: 84>} : (tensor<1x84xf16>) -> tensor<84xf16>
  %c = mindir.cast %q : tensor<84xf16> to tensor<84xf32>
  %d = mindir.div %c, %s : (tensor<84xf32>, tensor<f32>) -> tensor<84xf32>
  return %d : tensor<84xf32>
}
func.func @all_finite(%x: tensor<37x19xf32>, %flag: tensor<i1>) -> tensor<i1> {
  %s = mindir.reduce_sum %x : (tensor<37x19xf32>) -> tensor<f32>
  %ok = mindir.isfinite %s : (tensor<f32>) -> tensor<i1>
  %r = mindir.logical_and %flag, %ok : (tensor<i1>, tensor<i1>) -> tensor<i1>
  return %r : tensor<i1>
}
