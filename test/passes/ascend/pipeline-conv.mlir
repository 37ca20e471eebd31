// RUN: rm -rf %t && ms-opt %s --pass-pipeline="builtin.module(msmlir-ascend-pipeline{emit-dir=%t})" 2>&1 | FileCheck %s --check-prefix=IR
// RUN: cat %t/op_kernel/ascend_conv_*_mm.cpp | FileCheck %s --check-prefix=CUBE
// RUN: cat %t/op_host/ascend_conv_*_mm.cpp | FileCheck %s --check-prefix=HOST
// RUN: cat %t/launch/ascend_conv_conv2d_reshape_add_??????????_launch.cpp | FileCheck %s --check-prefix=LAUNCH

// Conv2d (zero padding 1) + bias + ReLU with the img2col formed on chip by
// Load3D (conv.py): no im2col workspace in GM. A group of four kernels: the
// filter [O, C, KK] -> [KK, O*C] and the input NCHW -> [H*W, N*C] (pixel-major:
// one Nd2Nz per block of C0 channels brings a band of the map into L1 in 5HD)
// by vector transposes, the cube kernel (per K step: the filter's K columns
// reordered to Load3D's (c1, kh, kw, c0) order by an Nd2Nz of ndNum matrices,
// the band of input rows the output tile reads into L1 with the padded
// channels zeroed by InitConstValue, one Load3D into L0B with the H/W padding
// as its pads; the bias as a first Mmad per tile, bias column x a row of
// ones), and the ReLU (and its mask) as a vector epilogue.

// IR: remark: mskernel-lower-to-ascend: ascend_conv_conv2d_reshape_add_{{[0-9a-f]+}}: soc=Ascend910B blockDim={{[0-9]+}} tiles=1+1+3+{{[0-9]+}} tile={{[0-9]+}}x9+{{[0-9]+}}x63+16x64x{{[0-9]+}} Load3D+{{.*}} double-buffer=on {{.*}} launches=4

// CUBE: convolution C_b[4, 63] = W[4, 72] * img2col(x_b)[72, 63] for b < 3, the img2col formed in L0B by Load3D (f32),
// CUBE-LABEL: void Process() {
// CUBE: if (k0 == 0) {
// CUBE-NEXT: c1 = c1Que.AllocTensor<float>();
// CUBE-NEXT: BiasMmad(c1);
// CUBE: mp.cmatrixInitVal = false;
// CUBE-NEXT: Mmad(c1, a2, b2, mp);
// CUBE-LABEL: void CopyInA(uint32_t off, uint32_t mt, uint32_t kt) {
// CUBE: if (Cg % 8) InitConstValue(a1, InitConstValueParams<float>{1, (uint16_t)(m16 * kt / 8), 0, (float)0});
// CUBE: DataCopy(a1[(j - j0) * m16 * 8], aGm[off + kk * aK + c1 * 8],
// CUBE-NEXT: Nd2NzParams{(uint16_t)n, (uint16_t)mt, (uint16_t)cw, (uint16_t)aK, (uint16_t)lda, (uint16_t)m16, 1, (uint16_t)(m16 * 8)});
// CUBE-LABEL: void Band(uint32_t kt, uint32_t nt) {
// CUBE: r0 = lo > 0 ? lo : 0; rows = r1 - r0; padT = r0 - lo; padB = hi - r1; mOff = n0 - oh0 * OW;
// CUBE-LABEL: void CopyInB(uint32_t kt, uint32_t nt) {
// CUBE: InitConstValue(b1[(nc1 - 1) * pix * 8], InitConstValueParams<float>{1, (uint16_t)pix, 0, (float)0});
// CUBE: DataCopy(b1[j * pix * 8], bGm[bo * fb + bi * fg + r0 * W * ps + c1 * 8], Nd2NzParams{1, (uint16_t)pix, (uint16_t)cw, 0, (uint16_t)ps,
// CUBE-LABEL: void SplitB(uint32_t kt, uint32_t nt) {
// CUBE: const uint8_t pad[4] = {(uint8_t)pl, (uint8_t)pr, (uint8_t)padT, (uint8_t)padB};
// CUBE-NEXT: LoadData(b2, b1, LoadData3DParamsV2<float>(pad, (uint16_t)rows, (uint16_t)W, (uint16_t)(nc1 * 8), (uint16_t)kt,
// CUBE-LABEL: void BiasMmad(const LocalTensor<float>& c1) {
// CUBE: InitConstValue(b, InitConstValueParams<float>{1, (uint16_t)nf, 0, (float)1});
// CUBE: MmadParams mp{(uint16_t)mt, (uint16_t)nt, 1, false, 0, false, false, false};
// CUBE-NOT: colGm

// HOST: tiling.set_K(72);
// HOST: tiling.set_pt(1);
// HOST-NEXT: tiling.set_pl(1);
// HOST-NEXT: tiling.set_pr(1);
// HOST-NEXT: tiling.set_Cg(2);
// HOST-NEXT: tiling.set_KK(9);
// HOST-NEXT: tiling.set_ps(6);

// LAUNCH: void* ws0 = nullptr;  // [9, 8] f32
// LAUNCH: void* ws1 = nullptr;  // [63, 6] f32
// LAUNCH: void* ws2 = nullptr;  // [3, 4, 9, 7] f32
// LAUNCH-NOT: ws3
// LAUNCH: rc = launch_ascend_conv_conv2d_reshape_add_{{[0-9a-f]+}}_wt(stream, x1, ws0);
// LAUNCH: rc = launch_ascend_conv_conv2d_reshape_add_{{[0-9a-f]+}}_x(stream, x0, ws1);
// LAUNCH: rc = launch_ascend_conv_conv2d_reshape_add_{{[0-9a-f]+}}_mm(stream, ws0, ws1, x2, ws2);
// LAUNCH: rc = launch_ascend_conv_conv2d_reshape_add_{{[0-9a-f]+}}_ep(stream, x0, x1, x2, ws2, y0);

func.func @conv(%x: tensor<3x2x9x7xf32>, %w: tensor<4x2x3x3xf32>, %b: tensor<4xf32>) -> tensor<3x4x9x7xf32> {
  %y = mindir.conv2d %x, %w {pad_mode = #mindir.pad_mode<pad>, pad = array<i64: 1, 1, 1, 1>} : (tensor<3x2x9x7xf32>, tensor<4x2x3x3xf32>) -> tensor<3x4x9x7xf32>
  %z = mindir.bias_add %y, %b : (tensor<3x4x9x7xf32>, tensor<4xf32>) -> tensor<3x4x9x7xf32>
  %r = mindir.relu %z : tensor<3x4x9x7xf32>
  return %r : tensor<3x4x9x7xf32>
}
