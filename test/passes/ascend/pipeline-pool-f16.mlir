// RUN: rm -rf %t && ms-opt %s --pass-pipeline="builtin.module(msmlir-ascend-pipeline{emit-dir=%t fallback=false})" 2>&1 | FileCheck %s --check-prefix=IR
// RUN: cat %t/op_kernel/ascend_opaque_avg_pool2d_*.cpp | FileCheck %s --check-prefix=AVG
// RUN: cat %t/op_kernel/ascend_opaque_max_pool2d_grad_*.cpp | FileCheck %s --check-prefix=GRAD

// f16 pooling on the vector path (pool.py), fallback=false: half in GM and
// in the copy queues (32-byte UB rows of half: Wp a multiple of 16), each
// tile Cast to an f32 image on chip, the f32 Gather tables, the result Cast
// back to half. The average rounds every Add and the Div to f16 at once (as
// the CPU target's f16 arithmetic does); the max-pool gradient's routing is
// exact, its overlapping windows' sums rounded.

// IR-DAG: remark: mskernel-lower-to-ascend: ascend_opaque_avg_pool2d_{{[0-9a-f]+}}: {{.*}} double-buffer=on
// IR-DAG: remark: mskernel-lower-to-ascend: ascend_opaque_max_pool2d_grad_{{[0-9a-f]+}}: {{.*}} double-buffer=on

// AVG: Wp = (W + 15) / 16 * 16;  // 32-byte UB rows of half
// AVG: xGm.SetGlobalBuffer((__gm__ half*)x0, 220);
// AVG: pipe.InitBuffer(xQue, BUFFER_NUM, (inElems + 8) * sizeof(half));
// AVG-NEXT: pipe.InitBuffer(xfBuf, (inElems + 8) * sizeof(float));  // its f32 image
// AVG-NEXT: pipe.InitBuffer(rBuf, (inElems > cnt ? inElems : cnt) * sizeof(half));  // f16 rounding
// AVG-LABEL: void CopyIn() {
// AVG-NEXT: LocalTensor<half> x = xQue.AllocTensor<half>();
// AVG-NEXT: DataCopyPad(x, xGm[plane0 * H * W], DataCopyExtParams{(uint16_t)(n * H), W * (uint32_t)sizeof(half), 0, 0, 0},
// AVG-NEXT: DataCopyPadExtParams<half>{false, 0, 0, (half)0});
// AVG-LABEL: void Compute() {
// AVG-NEXT: LocalTensor<half> xh = xQue.DeQue<half>();
// AVG-NEXT: LocalTensor<float> x = xfBuf.Get<float>();
// AVG-NEXT: Cast(x, xh, RoundMode::CAST_NONE, inElems);  // exact
// AVG-NEXT: xQue.FreeTensor(xh);
// AVG: Add(y, y, g, cnt);
// AVG-NEXT: Cast(rBuf.Get<half>(), y, RoundMode::CAST_NONE, cnt);  // f16 arithmetic: round now
// AVG-NEXT: Cast(y, rBuf.Get<half>(), RoundMode::CAST_NONE, cnt);
// AVG: Div(y, y, divBuf.Get<float>(), cnt);
// AVG-NEXT: Cast(rBuf.Get<half>(), y, RoundMode::CAST_NONE, cnt);
// AVG: LocalTensor<half> yh = yQue.AllocTensor<half>();
// AVG-NEXT: Cast(yh, y, RoundMode::CAST_NONE, cnt);  // to f16 (round to nearest even)
// AVG-NEXT: yQue.EnQue(yh);
// AVG: TBuf<TPosition::VECCALC> xfBuf, yfBuf, rBuf;
// AVG: GlobalTensor<half> xGm, yGm;

// GRAD: LocalTensor<half> dyh = dyQue.DeQue<half>();
// GRAD-NEXT: LocalTensor<float> dy = dyfBuf.Get<float>();
// GRAD-NEXT: Cast(dy, dyh, RoundMode::CAST_NONE, cnt);  // exact
// GRAD: Add(y, y, dBuf.Get<float>(), inElems);
// GRAD-NEXT: Cast(rBuf.Get<half>(), y, RoundMode::CAST_NONE, inElems);  // f16 arithmetic: round now
// GRAD: Cast(yh, y, RoundMode::CAST_NONE, inElems);
// GRAD: TBuf<TPosition::VECCALC> xfBuf, yfBuf, rBuf, dyfBuf;
// GRAD: GlobalTensor<half> xGm, yGm, dyGm;

func.func @avg(%x: tensor<1x2x11x10xf16>) -> tensor<1x2x6x5xf16> {
  %y = mindir.avg_pool2d %x {kernel_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, pad_mode = #mindir.pad_mode<pad>, pad = array<i64: 1, 1, 1, 1>} : (tensor<1x2x11x10xf16>) -> tensor<1x2x6x5xf16>
  return %y : tensor<1x2x6x5xf16>
}
func.func @grad(%x: tensor<1x2x11x10xf16>, %dy: tensor<1x2x6x5xf16>) -> tensor<1x2x11x10xf16> {
  %d = mindir.max_pool2d_grad %x, %dy {kernel_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, pad_mode = #mindir.pad_mode<pad>, pad = array<i64: 1, 1, 1, 1>} : (tensor<1x2x11x10xf16>, tensor<1x2x6x5xf16>) -> tensor<1x2x11x10xf16>
  return %d : tensor<1x2x11x10xf16>
}
