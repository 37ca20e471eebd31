// RUN: rm -rf %t && ms-opt %s --pass-pipeline="builtin.module(msmlir-ascend-pipeline{emit-dir=%t fallback=false})" 2>&1 | FileCheck %s --check-prefix=IR
// RUN: cat %t/op_kernel/ascend_conv_*_x.cpp | FileCheck %s --check-prefix=X
// RUN: cat %t/op_kernel/ascend_conv_*_mm.cpp | FileCheck %s --check-prefix=MM

// An f16 convolution (width stride 2, a bias) on the cube, as an f32 one
// but in half with C0 = 16: the input's pixel-major copy in half, the feature
// map band in L1 with 16-channel blocks (3 channels, 13 of them zeroed by
// InitConstValue), Load3D<half> into L0B (stride 2 as its strideW), the f16
// Mmad accumulating in f32 in L0C on top of the bias Mmad (f16 bias x ones),
// Fixpipe's F322F16 rounding once. Not the scalar fallback (fallback=false).

// IR: remark: mskernel-lower-to-ascend: ascend_conv_conv2d_{{.*}} tile={{[0-9]+}}x9+{{[0-9]+}}x81+16x32x144 Load3D {{.*}} double-buffer=on {{.*}} launches=3

// X: xGm.SetGlobalBuffer((__gm__ half*)x0, rows * cols);

// MM: convolution C_b[2, 28] = W[2, 144] * img2col(x_b)[144, 28] for b < 1, the img2col formed in L0B by Load3D (f16 inputs, f32 accumulation in L0C, f16 (Fixpipe F322F16) result)
// MM: cGm.SetGlobalBuffer((__gm__ half*)y0, 56);
// MM: biasGm.SetGlobalBuffer((__gm__ half*)x2, bG * M);
// MM: Mmad(c1, a2, b2, mp);
// MM: QuantMode_t::F322F16
// MM: if (Cg % 16) InitConstValue(a1, InitConstValueParams<half>{1, (uint16_t)(m16 * kt / 16), 0, (half)0});
// MM: LoadData(a2[i * kf * 256], a1,
// MM: LoadData(b2, b1, LoadData3DParamsV2<half>(pad,
// MM: InitConstValue(b, InitConstValueParams<half>{1, (uint16_t)nf, 0, (half)1});

func.func @conv(%x: tensor<1x3x9x9xf16>, %w: tensor<2x3x3x3xf16>, %b: tensor<2xf16>) -> tensor<1x2x7x4xf16> {
  %y = mindir.conv2d %x, %w {stride = array<i64: 1, 2>} : (tensor<1x3x9x9xf16>, tensor<2x3x3x3xf16>) -> tensor<1x2x7x4xf16>
  %z = mindir.bias_add %y, %b : (tensor<1x2x7x4xf16>, tensor<2xf16>) -> tensor<1x2x7x4xf16>
  return %z : tensor<1x2x7x4xf16>
}
