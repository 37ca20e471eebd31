// RUN: rm -rf %t && ms-opt %s --pass-pipeline="builtin.module(msmlir-ascend-pipeline{emit-dir=%t fallback=false})" 2>&1 | FileCheck %s --check-prefix=IR
// RUN: cat %t/op_kernel/ascend_conv_*_bias.cpp | FileCheck %s --check-prefix=BIAS
// RUN: cat %t/op_kernel/ascend_conv_*_im2col.cpp | FileCheck %s --check-prefix=IM2COL
// RUN: cat %t/op_kernel/ascend_conv_*_mm.cpp | FileCheck %s --check-prefix=MM

// An f16 convolution (width stride 2, a bias) on the cube, as an f32 one
// but in half: the bias as the filter's last column (f16 runs), the im2col
// by Gather over rows of halves (16 per 32-byte block, a 16-half zero
// margin), the cube's f16 Mmad accumulating in f32 in L0C and Fixpipe's
// F322F16 rounding once. Not the scalar fallback (fallback=false).

// IR: remark: mskernel-lower-to-ascend: ascend_conv_conv2d_{{.*}} tile=2x27+7x4+16x32x32 {{.*}} double-buffer=on {{.*}}(MTE (augment copies) then MTE (im2col copies) then MTE2 (GM->L1) (double-buffered)-bound)

// BIAS: yGm.SetGlobalBuffer((__gm__ half*)y0, 56);
// BIAS: pipe.InitBuffer(que, BUFFER_NUM, tileRows * ((K + 15) / 16 * 16) * sizeof(half));
// BIAS: DataCopyPadExtParams<half>{false, 0, 0, (half)0.0f}

// IM2COL: pitch = (OW + 15) / 16 * 16;
// IM2COL-NEXT: rowPitch = 16 + (W + 15) / 16 * 16;
// IM2COL: colGm.SetGlobalBuffer((__gm__ half*)y0, 784);
// IM2COL: if (ow < OW && v >= 0 && v % (int32_t)rx == 0 && v / (int32_t)rx < (int32_t)W) src = 16 + v / rx;
// IM2COL-NEXT: tab.SetValue(kw * pitch + ow, src * (uint32_t)sizeof(half));
// IM2COL: Duplicate(oneBuf.Get<half>(), (half)1.0f, zeroRows * pitch);
// IM2COL: DataCopyPad(s[16], xGm[
// IM2COL: Gather(o[r * pitch], u, tab, r * rowPitch * (uint32_t)sizeof(half), pitch);
// IM2COL-NOT: float

// MM: C[2, 28] = A[2, 28] * B[28, 28] (f16 inputs, f32 accumulation in L0C, f16 (Fixpipe F322F16) result)
// MM: cGm.SetGlobalBuffer((__gm__ half*)y0, 56);
// MM: Mmad(c1, a2, b2, mp);
// MM: QuantMode_t::F322F16
// MM: LoadData(a2[i * kf * 256], a1,

func.func @conv(%x: tensor<1x3x9x9xf16>, %w: tensor<2x3x3x3xf16>, %b: tensor<2xf16>) -> tensor<1x2x7x4xf16> {
  %y = mindir.conv2d %x, %w {stride = array<i64: 1, 2>} : (tensor<1x3x9x9xf16>, tensor<2x3x3x3xf16>) -> tensor<1x2x7x4xf16>
  %z = mindir.bias_add %y, %b : (tensor<1x2x7x4xf16>, tensor<2xf16>) -> tensor<1x2x7x4xf16>
  return %z : tensor<1x2x7x4xf16>
}
