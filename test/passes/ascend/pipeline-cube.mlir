// RUN: rm -rf %t && ms-opt %s --pass-pipeline="builtin.module(msmlir-ascend-pipeline{emit-dir=%t})" 2>&1 | FileCheck %s --check-prefix=IR
// RUN: cat %t/op_kernel/ascend_matmul_*_mm.cpp | FileCheck %s --check-prefix=CUBE
// RUN: cat %t/op_kernel/ascend_matmul_*_tb.cpp | FileCheck %s --check-prefix=TRANS
// RUN: cat %t/launch/ascend_matmul_matmul_add_relu_??????????_launch.cpp | FileCheck %s --check-prefix=LAUNCH

// nn.Dense + ReLU (weight stored [out, in]): a group of three Ascend C kernels
// over GM workspaces: the transpose of the weight (vector core), the cube
// kernel (ND -> NZ into L1, LoadData into L0A/L0B, Mmad into L0C, Fixpipe
// NZ -> ND), the bias + relu epilogue (vector core). The cube kernel is
// double-buffered: two buffers per queue (the reported L1/L0 bytes are both),
// the next K step's A and B copied in before this step's Split/Mmad; its
// baseK (72: all of K) is the cost model's cheapest candidate.

// IR: remark: mskernel-lower-to-ascend: ascend_matmul_matmul_add_relu_{{[0-9a-f]+}}: soc=Ascend910B blockDim={{[0-9]+}} tiles=1+1+37 tile=24x70+48x32x72+1x20 UB={{[0-9]+}}B L1=48128B L0A=27648B L0B=20480B L0C=12288B double-buffer=on {{.*}} then MTE2 (GM->L1) (double-buffered) then

// CUBE: constexpr int32_t BUFFER_NUM = 2;  // L1 and L0A/L0B buffers per queue (double buffering: MTE2 of step s + 1 runs under step s)
// CUBE-NEXT: constexpr int32_t L0C_NUM = 2;
// CUBE: pipe.InitBuffer(a1Que, BUFFER_NUM, baseM * kc * sizeof(float));
// CUBE: pipe.InitBuffer(c1Que, L0C_NUM, baseM * baseN * sizeof(float));
// CUBE-LABEL: void Process() {
// CUBE: uint32_t steps = (tileEnd - tileBegin) * kSteps;
// CUBE-NEXT: CopyIn(0);
// CUBE: for (uint32_t s = 0; s < steps; ++s) {
// CUBE-NEXT: if (s + 1 < steps) CopyIn(s + 1);
// CUBE-NEXT: Locate(s);
// CUBE-NEXT: if (k0 == 0) c1 = c1Que.AllocTensor<float>();
// CUBE-NEXT: SplitA(mt, kt);
// CUBE: mp.cmatrixInitVal = k0 == 0;
// CUBE: Mmad(c1, a2, b2, mp);
// CUBE: if (k0 + kt == K) {
// CUBE: Fixpipe(cGm[bo * sC + bi * gC + m0 * ldc + n0], c, FixpipeParamsV220{(uint16_t)nt, (uint16_t)mt, (uint16_t)((mt + 15) / 16 * 16), ldc, true});
// CUBE-LABEL: void CopyIn(uint32_t s) {
// CUBE-NEXT: Locate(s);
// CUBE-NEXT: CopyInA(bo * sA + bi * gA + m0 * lda + k0, mt, kt);
// CUBE-LABEL: void CopyInA(
// CUBE: DataCopy(a1, aGm[off], Nd2NzParams{1, (uint16_t)mt, (uint16_t)kt, 0, (uint16_t)lda, (uint16_t)((mt + 15) / 16 * 16), 1, 0});
// CUBE-LABEL: void SplitA(
// CUBE: LoadData(a2[i * kf * 128], a1, LoadData2DParams{(uint16_t)i, (uint8_t)kf, (uint16_t)mf, 0, 0, false, 0});
// CUBE: TQue<QuePosition::A2, BUFFER_NUM> a2Que;
// CUBE: TQue<QuePosition::CO1, L0C_NUM> c1Que;

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
