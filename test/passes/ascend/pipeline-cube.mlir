// RUN: rm -rf %t && ms-opt %s --pass-pipeline="builtin.module(msmlir-ascend-pipeline{emit-dir=%t})" 2>&1 | FileCheck %s --check-prefix=IR
// RUN: cat %t/op_kernel/ascend_matmul_*_mm.cpp | FileCheck %s --check-prefix=CUBE
// RUN: cat %t/op_kernel/ascend_matmul_*_tb.cpp | FileCheck %s --check-prefix=TRANS
// RUN: cat %t/launch/ascend_matmul_matmul_add_relu_??????????_launch.cpp | FileCheck %s --check-prefix=LAUNCH

// nn.Dense + ReLU (weight stored [out, in]): a group of three Ascend C kernels
// over GM workspaces: the transpose of the weight (vector core), the cube
// kernel (ND -> NZ into L1, LoadData into L0A/L0B, Mmad into L0C, Fixpipe
// NZ -> ND), the bias + relu epilogue (vector core).

// IR: remark: mskernel-lower-to-ascend: ascend_matmul_matmul_add_relu_{{[0-9a-f]+}}: soc=Ascend910B blockDim={{[0-9]+}} tiles=1+1+37 tile=24x70+48x32x64+1x20 UB={{[0-9]+}}B L1=20480B L0A=12288B L0B=8192B L0C=6144B

// CUBE-LABEL: void Process() {
// CUBE: LocalTensor<float> c1 = c1Que.AllocTensor<float>();
// CUBE: for (uint32_t k0 = 0; k0 < K; k0 += baseK) {
// CUBE: mp.cmatrixInitVal = k0 == 0;
// CUBE: Mmad(c1, a2, b2, mp);
// CUBE: Fixpipe(cGm[b * sC + m0 * ldc + n0], c, FixpipeParamsV220{(uint16_t)nt, (uint16_t)mt, (uint16_t)((mt + 15) / 16 * 16), ldc, true});
// CUBE-LABEL: void CopyInA(
// CUBE: DataCopy(a1, aGm[off], Nd2NzParams{1, (uint16_t)mt, (uint16_t)kt, 0, (uint16_t)lda, (uint16_t)((mt + 15) / 16 * 16), 1, 0});
// CUBE-LABEL: void SplitA(
// CUBE: LoadData(a2[i * kf * 128], a1, LoadData2DParams{(uint16_t)i, (uint8_t)kf, (uint16_t)mf, 0, 0, false, 0});
// CUBE: TQue<QuePosition::A2, 1> a2Que;
// CUBE: TQue<QuePosition::CO1, 1> c1Que;

// TRANS: y[70, 20] = x[20, 70]^T
// TRANS: for (uint32_t c = 1; c < cols; ++c) Adds(tab[c * rowsPitch], tab, (int32_t)(c * sizeof(float)), rowsPitch);
// TRANS: Gather(y, x, tabBuf.Get<uint32_t>(), 0, cols * rowsPitch);

// LAUNCH: void* ws0 = nullptr;  // [70, 20] f32
// LAUNCH: void* ws1 = nullptr;  // [37, 20] f32
// LAUNCH: rc = launch_ascend_matmul_matmul_add_relu_{{[0-9a-f]+}}_tb(stream, x1, ws0);
// LAUNCH: rc = launch_ascend_matmul_matmul_add_relu_{{[0-9a-f]+}}_mm(stream, x0, ws0, ws1);
// LAUNCH: rc = launch_ascend_matmul_matmul_add_relu_{{[0-9a-f]+}}_ep(stream, x0, x1, x2, ws1, y0);

func.func @dense(%x: tensor<37x70xf32>, %w: tensor<20x70xf32>, %b: tensor<20xf32>) -> tensor<37x20xf32> {
  %m = mindir.matmul %x, %w {transpose_b = true} : (tensor<37x70xf32>, tensor<20x70xf32>) -> tensor<37x20xf32>
  %a = mindir.add %m, %b : (tensor<37x20xf32>, tensor<20xf32>) -> tensor<37x20xf32>
  %r = mindir.relu %a : tensor<37x20xf32>
  return %r : tensor<37x20xf32>
}
