// RUN: rm -rf %t && ms-opt %s --pass-pipeline="builtin.module(msmlir-ascend-pipeline{emit-dir=%t})" 2>&1 | FileCheck %s --check-prefix=IR
// RUN: cat %t/op_kernel/ascend_opaque_max_pool2d_??????????.cpp | FileCheck %s --check-prefix=FWD
// RUN: cat %t/op_kernel/ascend_opaque_max_pool2d_grad_*.cpp | FileCheck %s --check-prefix=BWD

// Max pooling 2x2/2 and its gradient on the vector path (pool.py): whole
// planes per tile (one DataCopyPad of their rows at a 32-byte pitch), the
// window gathers as Gather instructions with offset tables built once per
// core, the gradient routing dout to the first maximum with Compare/Select.

// IR: remark: mskernel-lower-to-ascend: ascend_opaque_max_pool2d_{{[0-9a-f]+}}: soc=Ascend910B blockDim=24 tiles=24 tile=1x28x28 {{.*}} DataCopy=48 {{.*}}
// IR: remark: mskernel-lower-to-ascend: ascend_opaque_max_pool2d_grad_{{[0-9a-f]+}}: soc=Ascend910B blockDim=24 tiles=24 tile=1x28x28 {{.*}} DataCopy=72 {{.*}}

// FWD: window 2x2, stride 2x2,
// FWD: constexpr uint32_t KWIN = 4;
// FWD: CreateVecIndex(fi, 0.0f, cnt);
// FWD: Cast(ti[k * cnt], rr, RoundMode::CAST_RINT, cnt);
// FWD-LABEL: void CopyIn() {
// FWD: DataCopyPad(x, xGm[plane0 * H * W], DataCopyExtParams{(uint16_t)(n * H), W * (uint32_t)sizeof(float), 0, 0, 0},
// FWD-LABEL: void Compute() {
// FWD: LocalTensor<float> x = xQue.DeQue<float>();
// FWD: LocalTensor<float> m = yQue.AllocTensor<float>();
// FWD: Gather(m, x, tab, 0, cnt);
// FWD: Gather(g, x, tab[k * cnt], 0, cnt);
// FWD-NEXT: Max(m, m, g, cnt);
// FWD: yQue.EnQue(m);
// FWD-NEXT: xQue.FreeTensor(x);
// FWD-LABEL: void CopyOut() {
// FWD: DataCopyPad(yGm[plane0 * OH * OW], y, DataCopyExtParams{1, n * OH * OW * (uint32_t)sizeof(float), 0, 0, 0});
// FWD-NOT: GetValue

// BWD: inv.SetValue(i, src * sizeof(float));
// BWD: SetFlag<HardEvent::S_V>(0);
// BWD-LABEL: void Compute() {
// BWD: Compare(bits, g, m, CMPMODE::EQ, cnt);
// BWD-NEXT: Select(e, bits, onesBuf.Get<float>(), zerosBuf.Get<float>(), SELMODE::VSEL_TENSOR_TENSOR_MODE, cnt);
// BWD-NEXT: Mul(tmp, e, taken, cnt);
// BWD-NEXT: Sub(e, e, tmp, cnt);
// BWD-NEXT: Add(taken, taken, e, cnt);
// BWD-NEXT: Compare(bits, e, zerosBuf.Get<float>(), CMPMODE::NE, cnt);
// BWD-NEXT: Select(c[k * cnt], bits, dy, zerosBuf.Get<float>(), SELMODE::VSEL_TENSOR_TENSOR_MODE, cnt);
// BWD: Gather(y, c, invBuf.Get<uint32_t>(), 0, inElems);
// BWD-LABEL: void CopyOut() {
// BWD: DataCopyPad(yGm[plane0 * H * W], y, DataCopyExtParams{(uint16_t)(n * H), W * (uint32_t)sizeof(float), 0, 0, 0});

func.func @pool(%x: tensor<4x6x28x28xf32>) -> tensor<4x6x14x14xf32> {
  %y = mindir.max_pool2d %x {kernel_size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<4x6x28x28xf32>) -> tensor<4x6x14x14xf32>
  return %y : tensor<4x6x14x14xf32>
}
func.func @pool_grad(%x: tensor<4x6x28x28xf32>, %dy: tensor<4x6x14x14xf32>) -> tensor<4x6x28x28xf32> {
  %d = mindir.max_pool2d_grad %x, %dy {kernel_size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<4x6x28x28xf32>, tensor<4x6x14x14xf32>) -> tensor<4x6x28x28xf32>
  return %d : tensor<4x6x28x28xf32>
}
