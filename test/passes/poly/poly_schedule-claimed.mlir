// RUN: ms-opt %s --mskernel-poly-schedule="claimed=true l1-bytes=49152 l2-bytes=1048576" --verify-diagnostics | FileCheck %s

// claimed=true: only the functions mskernel-poly-claim marked (mskernel.poly)
// are scheduled; their linalg ops become affine loops first. A 2048x2048
// transpose loses the reuse of each cache line of a column (2048 lines
// between two uses): tiled for L2 and L1.
// CHECK-LABEL: func.func private @transpose
// CHECK-SAME:    mskernel.schedule = "tile-sizes: l2 {{[0-9x]+}} > l1 {{[0-9x]+}}
// CHECK-NOT:     linalg.generic
// CHECK:         affine.for
#t = affine_map<(d0, d1) -> (d1, d0)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func private @transpose(%x: memref<2048x2048xf32>, %y: memref<2048x2048xf32>) attributes {mskernel.poly} {
  linalg.generic {indexing_maps = [#t, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<2048x2048xf32>) outs(%y : memref<2048x2048xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  return
}

// A claimed function the model cannot represent keeps its plain loops, with
// a remark saying why.
// CHECK-LABEL: func.func private @gather
// CHECK-NOT:     mskernel.schedule
// CHECK:         memref.load
// expected-remark @below {{mskernel-poly-schedule: not representable: memref.load with computed indices (non-affine index); the claimed function keeps its plain loops}}
func.func private @gather(%A: memref<16xf32>, %I: memref<16xindex>, %B: memref<16xf32>) attributes {mskernel.poly} {
  affine.for %i = 0 to 16 {
    %k = affine.load %I[%i] : memref<16xindex>
    %a = memref.load %A[%k] : memref<16xf32>
    affine.store %a, %B[%i] : memref<16xf32>
  }
  return
}

// Not claimed: left alone, silently.
// CHECK-LABEL: func.func @unclaimed
// CHECK-NOT:     mskernel.schedule
// CHECK:         linalg.generic
func.func @unclaimed(%x: memref<64x64xf32>, %y: memref<64x64xf32>) {
  linalg.generic {indexing_maps = [#t, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<64x64xf32>) outs(%y : memref<64x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  return
}
