// RUN: rm -rf %t && ms-opt %s --pass-pipeline="builtin.module(msmlir-ascend-pipeline{emit-dir=%t})" 2>&1 | FileCheck %s --check-prefix=IR
// RUN: cat %t/op_kernel/ascend_conv_*_im2col.cpp | FileCheck %s --check-prefix=IM2COL
// RUN: cat %t/op_kernel/ascend_conv_*_bias.cpp | FileCheck %s --check-prefix=BIAS
// RUN: cat %t/op_kernel/ascend_conv_*_mm.cpp | FileCheck %s --check-prefix=CUBE
// RUN: cat %t/launch/ascend_conv_conv2d_reshape_add_??????????_launch.cpp | FileCheck %s --check-prefix=LAUNCH

// Conv2d (zero padding 1) + bias + ReLU: a group of four Ascend C kernels over
// GM workspaces (conv.py): the filter with the bias as a last column (vector
// core, DataCopyPad runs), the im2col of the input with a row of ones per
// image (vector core, GM -> UB -> GM through a TQueBind; the padding written
// from a UB buffer of zeros), the batched cube matmul y_n[O, OH*OW] =
// [W | b] @ [col_n; 1] (A shared by every image: batch stride 0), and the
// ReLU (and its mask) as a vector epilogue.

// IR: remark: mskernel-lower-to-ascend: ascend_conv_conv2d_reshape_add_{{[0-9a-f]+}}: soc=Ascend910B blockDim={{[0-9]+}} tiles=1+54+3+{{[0-9]+}} tile=4x18+9x7+16x64x24+{{.*}} L0A=3072B {{.*}} double-buffer=on {{.*}} (MTE (augment copies) then MTE (im2col copies) then MTE2 (GM->L1) (double-buffered) then {{.*}}

// IM2COL: col[b, (c, kh, kw), (oh, ow)] = x[b, c, oh * sh + kh' * dh - pt, ow + kw' * dw - pl]
// IM2COL: 54 items over 27 cores.
// IM2COL: pipe.InitBuffer(que, BUFFER_NUM, tileRows * pitch * sizeof(float));
// IM2COL-NEXT: pipe.InitBuffer(zeroBuf, zeroRows * pitch * sizeof(float));
// IM2COL-NEXT: Duplicate(zeroBuf.Get<float>(), 0.0f, zeroRows * pitch);
// IM2COL-NEXT: pipe.InitBuffer(oneBuf, zeroRows * pitch * sizeof(float));
// IM2COL-NEXT: Duplicate(oneBuf.Get<float>(), 1.0f, zeroRows * pitch);
// IM2COL-NEXT: SetFlag<HardEvent::V_MTE3>(0);
// IM2COL-NEXT: WaitFlag<HardEvent::V_MTE3>(0);
// IM2COL-LABEL: void Row(uint32_t item) {
// IM2COL: if (item % KK == KK - 1) Fill(oneBuf, dst + OH * OW, OH, OW);
// IM2COL-NEXT: kh *= dh; kw *= dw;
// IM2COL: Fill(zeroBuf, dst, ohLo, OW);
// IM2COL-NEXT: Fill(zeroBuf, dst + ohHi * OW, OH - ohHi, OW);
// IM2COL: LocalTensor<float> t = que.AllocTensor<float>();
// IM2COL: DataCopyPad(t, xGm[b / G * sb + b % G * sg + c * sc + (r0 * sh + kh - pt) * W + owLo + kw - pl],
// IM2COL-NEXT: DataCopyExtParams{(uint16_t)n, len * (uint32_t)sizeof(float), (sh * W - len) * (uint32_t)sizeof(float), 0, 0}
// IM2COL-NEXT: que.EnQue(t);
// IM2COL-NEXT: LocalTensor<float> u = que.DeQue<float>();
// IM2COL-NEXT: DataCopyPad(colGm[dst + r0 * OW + owLo], u,
// IM2COL: que.FreeTensor(u);
// IM2COL: TQueBind<QuePosition::VECIN, QuePosition::VECOUT, BUFFER_NUM> que;
// IM2COL-NEXT: TBuf<TPosition::VECCALC> zeroBuf;
// IM2COL-NEXT: TBuf<TPosition::VECCALC> oneBuf;

// BIAS: Move(aGm[o0 * K], yGm[o0 * (K + 1)], n, K);
// BIAS-NEXT: Move(biasGm[o0], yGm[o0 * (K + 1) + K], n, 1);

// CUBE: C_b[4, 63] = A_b[4, 19] * B_b[19, 63] for b < 3 (batch strides 0, 1197, 252) (f32)
// CUBE: Mmad(c1, a2, b2, mp);
// CUBE: Fixpipe(cGm[bo * sC + bi * gC + m0 * ldc + n0], c,
// CUBE: uint32_t t = tileBegin + s / kSteps, b = t / batchTiles, r = t % batchTiles;
// CUBE-NEXT: bo = b / bG; bi = b % bG;
// CUBE: CopyInA(bo * sA + bi * gA + m0 * lda + k0, mt, kt);

// LAUNCH: void* ws0 = nullptr;  // [4, 19] f32
// LAUNCH: void* ws1 = nullptr;  // [3, 19, 63] f32
// LAUNCH: void* ws2 = nullptr;  // [3, 4, 9, 7] f32
// LAUNCH: rc = launch_ascend_conv_conv2d_reshape_add_{{[0-9a-f]+}}_bias(stream, x1, x2, ws0);
// LAUNCH: rc = launch_ascend_conv_conv2d_reshape_add_{{[0-9a-f]+}}_im2col(stream, x0, ws1);
// LAUNCH: rc = launch_ascend_conv_conv2d_reshape_add_{{[0-9a-f]+}}_mm(stream, ws0, ws1, ws2);
// LAUNCH: rc = launch_ascend_conv_conv2d_reshape_add_{{[0-9a-f]+}}_ep(stream, x0, x1, x2, ws2, y0);

func.func @conv(%x: tensor<3x2x9x7xf32>, %w: tensor<4x2x3x3xf32>, %b: tensor<4xf32>) -> tensor<3x4x9x7xf32> {
  %y = mindir.conv2d %x, %w {pad_mode = #mindir.pad_mode<pad>, pad = array<i64: 1, 1, 1, 1>} : (tensor<3x2x9x7xf32>, tensor<4x2x3x3xf32>) -> tensor<3x4x9x7xf32>
  %z = mindir.bias_add %y, %b : (tensor<3x4x9x7xf32>, tensor<4xf32>) -> tensor<3x4x9x7xf32>
  %r = mindir.relu %z : tensor<3x4x9x7xf32>
  return %r : tensor<3x4x9x7xf32>
}
