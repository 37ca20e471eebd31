// RUN: rm -rf %t && ms-opt %s --pass-pipeline="builtin.module(msmlir-ascend-pipeline{emit-dir=%t})" 2>&1 | FileCheck %s --check-prefix=IR
// RUN: cat %t/op_kernel/ascend_opaque_concat_*.cpp | FileCheck %s --check-prefix=COPY
// RUN: cat %t/op_host/ascend_opaque_concat_*.cpp | FileCheck %s --check-prefix=HOST

// A concatenation (two insert_slices into tensor.empty) is data movement
// only (movement.py): not the scalar fallback but an MTE copy kernel, one
// job per operand, each a DataCopyPad of rows GM -> UB (the source's row
// gap) and UB -> GM (the result's row gap, 18 - 13 and 18 - 5 elements)
// through a TQueBind of depth 2; no vector instruction.

// IR: remark: mskernel-lower-to-ascend: ascend_opaque_concat_{{[0-9a-f]+}}: soc=Ascend910B blockDim=2 tiles=2 tile=7x13 {{.*}} (MTE (copy copies)-bound) launches=1

// COPY: data movement only (2 copies of strided boxes)
// COPY: xGm0.SetGlobalBuffer((__gm__ float*)x0, 91);
// COPY: yGm0.SetGlobalBuffer((__gm__ float*)y0, 126);
// COPY: if (i < 1) Job0(i - 0);
// COPY-NEXT: else if (i < 2) Job1(i - 1);
// COPY: // x0 -> y0: 7 rows of 13 (row strides 13 -> 18), 7 rows per item
// COPY: Move(xGm0[so + r0 * 13], yGm0[dOff + r0 * 18], n, 13, 13, 18);
// COPY: // x1 -> y0: 7 rows of 5 (row strides 5 -> 18), 7 rows per item
// COPY: uint32_t so = 0, dOff = 13;
// COPY: DataCopyPad(t, src, DataCopyExtParams{(uint16_t)n, len * (uint32_t)sizeof(float), (ss - len) * (uint32_t)sizeof(float), 0, 0},
// COPY: DataCopyPad(dst, u, DataCopyExtParams{(uint16_t)n, len * (uint32_t)sizeof(float), 0, (ds - len) * (uint32_t)sizeof(float), 0});
// COPY: TQueBind<QuePosition::VECIN, QuePosition::VECOUT, BUFFER_NUM> que;
// COPY-NOT: SetValue

// HOST: tiling.set_items(2);
// HOST-NEXT: tiling.set_itemsPerCore(1);
// HOST-NEXT: tiling.set_blockDim(2);

func.func @f(%a: tensor<7x13xf32>, %b: tensor<7x5xf32>) -> tensor<7x18xf32> {
  %r = mindir.concat %a, %b {axis = -1 : i64} : (tensor<7x13xf32>, tensor<7x5xf32>) -> tensor<7x18xf32>
  return %r : tensor<7x18xf32>
}
