// RUN: ms-opt %s --mskernel-poly-schedule="tile-sizes=8,4" --mskernel-print-schedule 2>&1 >/dev/null | FileCheck %s
// RUN: ms-opt %s --mskernel-print-schedule --verify-diagnostics | FileCheck %s --check-prefix=NONE

// The schedule chosen by mskernel-poly-schedule (isl schedule tree, tile
// sizes, cache sizes, reductions), reported as a remark at each function.
// CHECK: remark: mskernel-print-schedule: tile-sizes: l1 8x4 | target: cpu l1={{[0-9]+}} l2={{[0-9]+}} l3={{[0-9]+}} vector={{[0-9]+}}B | reductions: S0: dims [1] | schedule: { domain: "{ S0[i0, i1] : 0 <= i0 <= 15 and 0 <= i1 <= 31 }", child: { mark: "band:l1", child: { mark: "parallel", child: { schedule: "[{ S0[i0, i1] -> [(i0 - (i0) mod 8)] }, { S0[i0, i1] -> [(i1 - (i1) mod 4)] }]", permutable: 1, coincident: [ 1, 0 ]

// Without mskernel-poly-schedule first there is nothing to report.
// NONE-LABEL: func.func @rowsum
// NONE-NOT:     mskernel.schedule
func.func @rowsum(%X: memref<16x32xf32>, %R: memref<16xf32>) {
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to 32 {
      %x = affine.load %X[%i, %j] : memref<16x32xf32>
      %r = affine.load %R[%i] : memref<16xf32>
      %s = arith.addf %r, %x : f32
      affine.store %s, %R[%i] : memref<16xf32>
    }
  }
  return
}
