// RUN: rm -rf %t && ms-opt %s --pass-pipeline="builtin.module(msmlir-ascend-pipeline{emit-dir=%t})" 2>&1 | FileCheck %s --check-prefix=IR
// RUN: cat %t/op_kernel/ascend_opaque_sort_*.cpp | FileCheck %s --check-prefix=SORT
// RUN: cat %t/op_kernel/ascend_opaque_gather_*.cpp | FileCheck %s --check-prefix=GATHER
// RUN: cat %t/op_host/ascend_opaque_gather_*[0-9a-f].cpp | FileCheck %s --check-prefix=HOST

// mindir.sort (a bitonic network: scf.for stages over linalg bodies) and
// mindir.gather (its index check calls the host runtime on the CPU) on the
// scalar fallback. Sort: the stages are C++ for loops (the inner bound is the
// outer loop's variable), the carried tensors workspace buffers updated in
// place (no copy of the initial values). Gather: the check writes the first
// failure (site, index, bound, count) to a status output, zeroed first; the
// host runner raises it (test_ascend_sort_gather.py).

// IR: remark: mskernel-lower-to-ascend: ascend_opaque_sort_{{[0-9a-f]+}}: {{.*}} tile=scalar {{.*}} (scalar fallback-bound)
// IR: remark: mskernel-lower-to-ascend: ascend_opaque_gather_{{[0-9a-f]+}}: {{.*}} tile=scalar {{.*}} (scalar fallback-bound)

// SORT: void ascend_opaque_sort_{{[0-9a-f]+}}(GM_ADDR x0, GM_ADDR y0, GM_ADDR y1, GM_ADDR workspace, GM_ADDR tiling) {
// SORT: GlobalTensor<float> [[Y0:g[0-9]+]]; [[Y0]].SetGlobalBuffer((__gm__ float*)(y0), 13);
// SORT: for (int64_t [[O:k[0-9]+]] = int64_t(1); [[O]] < int64_t(5); [[O]] += int64_t(1)) {
// SORT-NEXT: int64_t {{s[0-9]+}} = (int64_t)((uint64_t)(int64_t(1)) << (uint64_t)([[O]]));
// SORT-NEXT: for (int64_t [[I:k[0-9]+]] = int64_t(0); [[I]] < [[O]]; [[I]] += int64_t(1)) {
// SORT: // linalg.generic over [16]
// SORT-NEXT: for (int64_t [[E:i[0-9_]+]] = 0; {{.*}} ^ {{.*}} ? a0 : {{.*}}
// SORT-NEXT: for (int64_t [[C:c[0-9_]+]] = 0; [[C]] < 16; ++[[C]]) {{g[0-9]+}}.SetValue(([[C]]), {{g[0-9]+}}.GetValue(([[C]])));
// SORT-NEXT: for (int64_t [[D:c[0-9_]+]] = 0; [[D]] < 16; ++[[D]]) {{g[0-9]+}}.SetValue(([[D]]), {{g[0-9]+}}.GetValue(([[D]])));
// SORT-NEXT: {{^ *}$}}
// SORT-NEXT: {{^ *}$}}
// SORT-NEXT: // tensor.extract_slice
// SORT-NEXT: for (int64_t [[Q:q[0-9_]+]] = 0; [[Q]] < 13; ++[[Q]]) [[Y0]].SetValue(([[Q]]), 

// GATHER: void ascend_opaque_gather_{{[0-9a-f]+}}(GM_ADDR x0, GM_ADDR x1, GM_ADDR y0, GM_ADDR y1, GM_ADDR workspace, GM_ADDR tiling) {
// GATHER: GlobalTensor<int64_t> [[S:g[0-9]+]]; [[S]].SetGlobalBuffer((__gm__ int64_t*)(y1), 4);
// GATHER-NEXT: for (int64_t k = 0; k < 4; ++k) [[S]].SetValue(k, 0);  // no failed check
// GATHER: if ({{s[0-9]+}}) {
// GATHER-NEXT: int64_t [[V:e[0-9]+]] = {{g[0-9]+}}.GetValue(0);
// GATHER-NEXT: if ([[S]].GetValue(3) == 0) { [[S]].SetValue(0, (int64_t)(int64_t(0))); [[S]].SetValue(1, (int64_t)([[V]])); [[S]].SetValue(2, (int64_t)(int64_t(13))); [[S]].SetValue(3,
// GATHER-NEXT: {{^ *}$}}

// HOST: this->Input("x1").ParamType(REQUIRED).DataType({ge::DT_INT32})
// HOST: this->Output("y1").ParamType(REQUIRED).DataType({ge::DT_INT64})

func.func @sort(%x: tensor<13xf32>) -> (tensor<13xf32>, tensor<13xi32>) {
  %v, %i = mindir.sort %x : (tensor<13xf32>) -> (tensor<13xf32>, tensor<13xi32>)
  return %v, %i : tensor<13xf32>, tensor<13xi32>
}

func.func @gather(%x: tensor<7x13xf32>, %i: tensor<2x3xi32>) -> tensor<7x2x3xf32> {
  %r = mindir.gather %x, %i {axis = 1 : i64} : (tensor<7x13xf32>, tensor<2x3xi32>) -> tensor<7x2x3xf32>
  return %r : tensor<7x2x3xf32>
}
