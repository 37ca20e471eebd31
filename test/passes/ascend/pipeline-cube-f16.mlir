// RUN: rm -rf %t && ms-opt %s --pass-pipeline="builtin.module(msmlir-ascend-pipeline{emit-dir=%t fallback=false})" 2>&1 | FileCheck %s --check-prefix=IR
// RUN: cat %t/op_kernel/ascend_matmul_matmul_*.cpp | FileCheck %s --check-prefix=F16
// RUN: cat %t/op_kernel/ascend_matmul_batch_matmul_*.cpp | FileCheck %s --check-prefix=BATCH

// The cube's native mode: f16 operands (fractals of 16 x 16, C0 = 16),
// products accumulated in f32 in L0C, the f16 result converted by Fixpipe
// (F322F16); and a batched matmul: one cube kernel looping over the batch
// (the batch index from the tile index, batch strides on A, B and C). Both
// double-buffered (two buffers per queue: the reported bytes are both).

// IR-DAG: remark: mskernel-lower-to-ascend: ascend_matmul_matmul_{{[0-9a-f]+}}: soc=Ascend910B blockDim=2 tiles=2 tile=128x32x128 UB=0B L1=81920B L0A=65536B L0B=16384B L0C=32768B double-buffer=on
// IR-DAG: remark: mskernel-lower-to-ascend: ascend_matmul_batch_matmul_{{[0-9a-f]+}}: soc=Ascend910B blockDim=3 tiles=3 tile=80x48x56 UB=0B L1=60416B L0A=35840B L0B=24576B L0C=30720B double-buffer=on

// F16: f16 inputs, f32 accumulation in L0C, f16 (Fixpipe F322F16) result
// F16: aGm.SetGlobalBuffer((__gm__ half*)x0, 39000);
// F16: cGm.SetGlobalBuffer((__gm__ half*)y0, 3900);
// F16: uint32_t kc = (baseK + 15) / 16 * 16, k16 = (baseK + 15) / 16 * 16, nc = (baseN + 15) / 16 * 16;
// F16: if (k0 == 0) c1 = c1Que.AllocTensor<float>();
// F16: LocalTensor<half> a2 = a2Que.DeQue<half>();
// F16: Mmad(c1, a2, b2, mp);
// F16: Fixpipe(cGm[bo * sC + bi * gC + m0 * ldc + n0], c, FixpipeParamsV220{(uint16_t)nt, (uint16_t)mt, (uint16_t)((mt + 15) / 16 * 16), ldc, true, QuantMode_t::F322F16});
// F16: uint32_t mf = (mt + 15) / 16, kf = (kt + 15) / 16;
// F16-NEXT: for (uint32_t i = 0; i < mf; ++i)
// F16-NEXT: LoadData(a2[i * kf * 256], a1, LoadData2DParams{(uint16_t)i, (uint8_t)kf, (uint16_t)mf, 0, 0, false, 0});
// F16: TQue<QuePosition::CO1, L0C_NUM> c1Que;
// F16-NEXT: GlobalTensor<half> aGm, bGm;
// F16-NEXT: GlobalTensor<half> cGm;

// BATCH: C_b[70, 40] = A_b[70, 50] * B_b[50, 40] for b < 3 (batch strides 3500, 2000, 2800) (f32)
// BATCH: uint32_t t = tileBegin + s / kSteps, b = t / batchTiles, r = t % batchTiles;
// BATCH: CopyInB(bo * sB + bi * gB + k0 * ldb + n0, kt, nt);
// BATCH: LoadData(a2[i * kf * 128], a1,

func.func @h(%a: tensor<130x300xf16>, %b: tensor<300x30xf16>) -> tensor<130x30xf16> {
  %m = mindir.matmul %a, %b : (tensor<130x300xf16>, tensor<300x30xf16>) -> tensor<130x30xf16>
  return %m : tensor<130x30xf16>
}
func.func @bmm(%a: tensor<3x70x50xf32>, %b: tensor<3x50x40xf32>) -> tensor<3x70x40xf32> {
  %m = mindir.batch_matmul %a, %b : (tensor<3x70x50xf32>, tensor<3x50x40xf32>) -> tensor<3x70x40xf32>
  return %m : tensor<3x70x40xf32>
}
