// RUN: rm -rf %t && ms-opt %s --pass-pipeline="builtin.module(msmlir-ascend-pipeline{emit-dir=%t fallback=false})" 2>&1 | FileCheck %s --check-prefix=IR
// RUN: cat %t/op_kernel/ascend_conv_conv2d_backprop_input_*_im2col.cpp | FileCheck %s --check-prefix=GATHER
// RUN: cat %t/op_kernel/ascend_conv_conv2d_??????????_mm.cpp | FileCheck %s --check-prefix=CUBE
// RUN: cat %t/op_host/ascend_conv_conv2d_??????????_mm.cpp | FileCheck %s --check-prefix=FWDHOST
// RUN: cat %t/op_kernel/ascend_conv_conv2d_backprop_input_*_im2col.cpp | FileCheck %s --check-prefix=DX
// RUN: cat %t/op_kernel/ascend_conv_conv2d_backprop_input_*_wt.cpp | FileCheck %s --check-prefix=DXWT
// RUN: cat %t/op_host/ascend_conv_conv2d_backprop_input_*_im2col.cpp | FileCheck %s --check-prefix=DXHOST
// RUN: cat %t/op_host/ascend_conv_conv2d_backprop_filter_*_mm.cpp | FileCheck %s --check-prefix=DWHOST

// A grouped (2 groups), width-strided (2) and dilated (2, 1) convolution and
// its gradients, all on the cube with fallback=false (conv.py):
//  * forward: Load3D (no im2col workspace): the width stride and the height
//    dilation are Load3D's strideW / dilationFilterH; the cube batches over
//    (image, group), the filter of group g at g * O * C (bi * gA), the
//    input's group g at g * C channels of the pixel-major copy (bi * fg);
//  * input gradient: dout interleaved with stride - 1 zeros (a strided
//    tensor.insert_slice into zeros, which Load3D cannot express) is never
//    built: a Gather im2col (the source rows of one (b, c, kh) into UB once
//    by DataCopyPad, every kw's columns picked by one Gather per row with a
//    table per kw; the borders and gaps read a zero margin) reads dout's rows
//    at a GM stride of ry output rows; the rotated filter is a per-group
//    permute;
//  * filter gradient: a convolution dilated by the forward stride (the
//    DataCopyPad-only im2col with dilated window offsets), its result
//    written transposed per group by Fixpipe (sC, gC, ldc).

// IR-DAG: remark: mskernel-lower-to-ascend: ascend_conv_conv2d_{{[0-9a-f]+}}: {{.*}} Load3D {{.*}}then MTE2 (GM->L1) (double-buffered)-bound) launches=3
// IR-DAG: remark: mskernel-lower-to-ascend: ascend_conv_conv2d_backprop_input_{{[0-9a-f]+}}: {{.*}} (MTE (permute copies) then MTE (im2col copies) then MTE2 (GM->L1) (double-buffered)-bound)
// IR-DAG: remark: mskernel-lower-to-ascend: ascend_conv_conv2d_backprop_filter_{{[0-9a-f]+}}: {{.*}} (MTE (permute copies) then MTE (im2col copies) then MTE2 (GM->L1) (double-buffered)-bound)

// GATHER: col[b, (c, kh, kw), (oh, ow)] = V[b, c, oh * sh + kh' * dh, ow * sw + kw' * dw]
// GATHER: one item per (b, c, kh), 24 items over
// GATHER-NEXT: // 12 cores.
// GATHER: rowPitch = 8 + (W + 7) / 8 * 8;
// GATHER: pipe.InitBuffer(inQue, BUFFER_NUM, tileRows * rowPitch * sizeof(float));
// GATHER-NEXT: pipe.InitBuffer(outQue, BUFFER_NUM, tileRows * pitch * sizeof(float));
// GATHER-NEXT: pipe.InitBuffer(tabBuf, KW * pitch * sizeof(uint32_t));
// GATHER-LABEL: void BuildTables() {
// GATHER: if (ow < OW && v >= 0 && v % (int32_t)rx == 0 && v / (int32_t)rx < (int32_t)W) src = 8 + v / rx;
// GATHER: Duplicate(m0, 0.0f, tileRows * rowPitch);
// GATHER-NEXT: Duplicate(m1, 0.0f, tileRows * rowPitch);
// GATHER: SetFlag<HardEvent::V_MTE2>(0);
// GATHER-LABEL: void Rows(uint32_t item) {
// GATHER: uint32_t khs = flip ? KH - 1 - kh : kh;
// GATHER: while (hLo < (int32_t)OH && (hLo * (int32_t)sh + base) % (int32_t)ry != 0) ++hLo;
// GATHER: DataCopyPad(s[8], xGm[b / G * sb + b % G * sg + c * sc + (y0 + j0 * sh) * W],
// GATHER-NEXT: DataCopyExtParams{(uint16_t)n, W * (uint32_t)sizeof(float), (sh * W - W) * (uint32_t)sizeof(float), 1, 0}
// GATHER: inQue.EnQue(s);
// GATHER-NEXT: LocalTensor<float> u = inQue.DeQue<float>();
// GATHER-NEXT: for (uint32_t kw = 0; kw < KW; ++kw) {
// GATHER-NEXT: LocalTensor<uint32_t> tab = tabBuf.Get<uint32_t>()[(flip ? KW - 1 - kw : kw) * pitch];
// GATHER: for (uint32_t r = 0; r < n; ++r) Gather(o[r * pitch], u, tab, r * rowPitch * (uint32_t)sizeof(float), pitch);
// GATHER: DataCopyPad(colGm[dst0 + kw * OH * OW + (hLo + j0 * ry) * OW], v,
// GATHER: inQue.FreeTensor(u);

// CUBE: convolution C_b[2, 25] = W[2, 48] * img2col(x_b)[48, 25] for b < 4, the img2col formed in L0B by Load3D (f32),
// CUBE: CopyInA(bo * sA + bi * gA + m0 * lda, mt, kt);
// CUBE: LoadData(b2, b1, LoadData3DParamsV2<float>(pad,
// FWDHOST: tiling.set_bG(2);
// FWDHOST-NEXT: tiling.set_gA(6);
// FWDHOST: tiling.set_sw(2);
// FWDHOST-NEXT: tiling.set_dh(2);
// FWDHOST: tiling.set_Cg(3);
// FWDHOST: tiling.set_fg(3);

// DX: V[b, c, y, v] = x[b, c, (y - pt) / ry, (v - pl) / rx]
// DX: for (uint32_t kw = 0; kw < KW; ++kw) {
// DX-NEXT: uint32_t dst = dst0 + kw * OH * OW;
// DX-NEXT: if (nv == 0 || ry > 1) {
// DX-NEXT: Fill(zeroBuf, dst, OH);
// DXWT: y[g, Bd, A, inner] = x[g, A, Bd, inner]
// DXWT: uint32_t a = item % A, base = item / A * A * Bd * inner;
// DXHOST: tiling.set_sw(1);
// DXHOST: tiling.set_ry(2);
// DXHOST-NEXT: tiling.set_rx(2);
// DWHOST: tiling.set_ldc(18);
// DWHOST: tiling.set_bG(2);
// DWHOST: tiling.set_gC(36);

func.func @fwd(%x: tensor<2x6x9x11xf32>, %w: tensor<4x3x3x2xf32>) -> tensor<2x4x5x5xf32> {
  %y = mindir.conv2d %x, %w {group = 2, stride = array<i64: 1, 2>, dilation = array<i64: 2, 1>} : (tensor<2x6x9x11xf32>, tensor<4x3x3x2xf32>) -> tensor<2x4x5x5xf32>
  return %y : tensor<2x4x5x5xf32>
}
func.func @dx(%dy: tensor<2x4x5x5xf32>, %w: tensor<4x3x3x2xf32>) -> tensor<2x6x11x11xf32> {
  %r = mindir.conv2d_backprop_input %dy, %w {input_shape = array<i64: 2, 6, 11, 11>, group = 2, stride = array<i64: 2, 2>} : (tensor<2x4x5x5xf32>, tensor<4x3x3x2xf32>) -> tensor<2x6x11x11xf32>
  return %r : tensor<2x6x11x11xf32>
}
func.func @dw(%dy: tensor<2x4x5x5xf32>, %x: tensor<2x6x11x11xf32>) -> tensor<4x3x3x2xf32> {
  %g = mindir.conv2d_backprop_filter %dy, %x {filter_shape = array<i64: 4, 3, 3, 2>, group = 2, stride = array<i64: 2, 2>} : (tensor<2x4x5x5xf32>, tensor<2x6x11x11xf32>) -> tensor<4x3x3x2xf32>
  return %g : tensor<4x3x3x2xf32>
}
