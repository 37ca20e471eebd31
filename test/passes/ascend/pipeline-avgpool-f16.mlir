// RUN: rm -rf %t && ms-opt %s --pass-pipeline="builtin.module(msmlir-ascend-pipeline{emit-dir=%t fallback=false})" 2>&1 | FileCheck %s --check-prefix=IR
// RUN: cat %t/op_kernel/ascend_opaque_avg_pool2d_??????????.cpp | FileCheck %s --check-prefix=AVG
// RUN: cat %t/op_kernel/ascend_opaque_avg_pool2d_grad_*.cpp | FileCheck %s --check-prefix=AVGB
// RUN: cat %t/op_kernel/ascend_opaque_max_pool2d_grad_*.cpp | FileCheck %s --check-prefix=MAXB
// RUN: cat %t/op_kernel/ascend_elemwise_cast_mul_*.cpp | FileCheck %s --check-prefix=F16

// Average pooling 3x3/2 with padding 1 (counts exclude the padding) and its
// gradient, the overlapping padded max-pool gradient, and an f16 elementwise
// kernel, all on the vector path (fallback=false: no scalar kernel).

// IR-DAG: remark: mskernel-lower-to-ascend: ascend_opaque_avg_pool2d_{{[0-9a-f]+}}: soc=Ascend910B blockDim=6 tiles=6 tile=1x9x10
// IR-DAG: remark: mskernel-lower-to-ascend: ascend_opaque_avg_pool2d_grad_{{[0-9a-f]+}}: soc=Ascend910B blockDim=6 tiles=6 tile=1x9x10
// IR-DAG: remark: mskernel-lower-to-ascend: ascend_opaque_max_pool2d_grad_{{[0-9a-f]+}}: soc=Ascend910B blockDim=6 tiles=6 tile=1x9x10
// IR-DAG: remark: mskernel-lower-to-ascend: ascend_elemwise_cast_mul_{{[0-9a-f]+}}: soc=Ascend910B
// IR-NOT: scalar fallback

// AVG: an average pooling, window 3x3, stride 2x2, padding [1, 1, 1, 1] (a zero slot),
// AVG: static const float kCountH[5] = {2.0f, 3.0f, 3.0f, 3.0f, 2.0f};
// AVG: pipe.InitBuffer(xQue, BUFFER_NUM, (inElems + 8) * sizeof(float));
// AVG: if (h >= 0 && w >= 0 && h < (int32_t)H && w < (int32_t)W) src = (p * H + h) * Wp + w;
// AVG-NEXT: tab.SetValue(k * cnt + i, src * sizeof(float));
// AVG: dv.SetValue(i, kCountH[j / OW % OH] * kCountW[j % OW]);
// AVG-LABEL: void Compute() {
// AVG: Duplicate(x[inElems], 0.0f, 8);
// AVG: Gather(y, x, tab, 0, cnt);
// AVG: Gather(g, x, tab[k * cnt], 0, cnt);
// AVG-NEXT: Add(y, y, g, cnt);
// AVG: Div(y, y, divBuf.Get<float>(), cnt);
// AVG-NOT: GetValue

// AVGB: constexpr uint32_t NTAB = 4;
// AVGB: tab.SetValue(j * inElems + i, src * sizeof(float));
// AVGB-LABEL: void Compute() {
// AVGB: Div(x, x, divBuf.Get<float>(), cnt);
// AVGB-NEXT: Duplicate(x[cnt], 0.0f, 8);
// AVGB-NEXT: Gather(y, x, tab, 0, inElems);
// AVGB: Gather(g, x, tab[j * inElems], 0, inElems);
// AVGB-NEXT: Add(y, y, g, inElems);
// AVGB: DataCopyPad(yGm[plane0 * H * W], y, DataCopyExtParams{(uint16_t)(n * H), W * (uint32_t)sizeof(float), 0, 0, 0});

// MAXB: constexpr uint32_t NINV = 4;  // candidate windows of an input element
// MAXB: pt = td.pt; pl = td.pl; an = td.an; bn = td.bn;
// MAXB: inv.SetValue(j * inElems + i, src * sizeof(float));
// MAXB-LABEL: void Compute() {
// MAXB: Duplicate(x[inElems], -INFINITY, 8);
// MAXB: Compare(bits, g, m, CMPMODE::EQ, cnt);
// MAXB: Gather(y, c, invBuf.Get<uint32_t>(), 0, inElems);
// MAXB-NEXT: for (uint32_t j = 1; j < NINV; ++j) {
// MAXB-NEXT: Gather(dBuf.Get<float>(), c, invBuf.Get<uint32_t>()[j * inElems], 0, inElems);
// MAXB-NEXT: Add(y, y, dBuf.Get<float>(), inElems);

// F16: pitchH = (tileCols + 15) / 16 * 16;
// F16: out0Gm.SetGlobalBuffer((__gm__ half*)y0, 561);
// F16: pipe.InitBuffer(out0Que, BUFFER_NUM, tileRows * pitchH * sizeof(half));
// F16: Cast(rnd, in0, RoundMode::CAST_RINT, cntF);
// F16-NEXT: Cast(tF0, rnd, RoundMode::CAST_NONE, cntF);
// F16: Mul(tF0, tF0, tF0, cntF);
// F16-NEXT: // f16 result 0: f32 -> half (round to nearest even)
// F16-NEXT: for (uint32_t r = 0; r < rows; ++r) { Cast(out0[r * pitchH], tF0[r * pitch], RoundMode::CAST_RINT, colsAl); }
// F16: DataCopyPad(out0Gm[row0 * rowLen + col0], y0, DataCopyExtParams{(uint16_t)rows, cols * (uint32_t)sizeof(half)
// F16: GlobalTensor<half> out0Gm;

func.func @avg(%x: tensor<2x3x9x10xf32>) -> tensor<2x3x5x5xf32> {
  %y = mindir.avg_pool2d %x {kernel_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, pad_mode = #mindir.pad_mode<pad>, pad = array<i64: 1, 1, 1, 1>} : (tensor<2x3x9x10xf32>) -> tensor<2x3x5x5xf32>
  return %y : tensor<2x3x5x5xf32>
}
func.func @avg_grad(%dy: tensor<2x3x5x5xf32>) -> tensor<2x3x9x10xf32> {
  %d = mindir.avg_pool2d_grad %dy {input_shape = array<i64: 2, 3, 9, 10>, kernel_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, pad_mode = #mindir.pad_mode<pad>, pad = array<i64: 1, 1, 1, 1>} : (tensor<2x3x5x5xf32>) -> tensor<2x3x9x10xf32>
  return %d : tensor<2x3x9x10xf32>
}
func.func @max_grad(%x: tensor<2x3x9x10xf32>, %dy: tensor<2x3x5x5xf32>) -> tensor<2x3x9x10xf32> {
  %d = mindir.max_pool2d_grad %x, %dy {kernel_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, pad_mode = #mindir.pad_mode<pad>, pad = array<i64: 1, 1, 1, 1>} : (tensor<2x3x9x10xf32>, tensor<2x3x5x5xf32>) -> tensor<2x3x9x10xf32>
  return %d : tensor<2x3x9x10xf32>
}
func.func @g(%a: tensor<33x17xf32>) -> tensor<33x17xf16> {
  %c = mindir.cast %a : tensor<33x17xf32> to tensor<33x17xf16>
  %d = mindir.mul %c, %c : (tensor<33x17xf16>, tensor<33x17xf16>) -> tensor<33x17xf16>
  return %d : tensor<33x17xf16>
}
