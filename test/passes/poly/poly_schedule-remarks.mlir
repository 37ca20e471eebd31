// RUN: ms-opt %s --mskernel-poly-schedule --verify-diagnostics | FileCheck %s

// Nests the polyhedral model cannot represent are left unchanged, with a
// remark at the function saying why.

// CHECK-LABEL: func.func @computed_index
// CHECK-NOT:     mskernel.schedule
// CHECK:         memref.load
// expected-remark @below {{mskernel-poly-schedule: not representable: memref.load with computed indices (non-affine index); the function is unchanged}}
func.func @computed_index(%A: memref<16xf32>, %I: memref<16xindex>, %B: memref<16xf32>) {
  affine.for %i = 0 to 16 {
    %k = affine.load %I[%i] : memref<16xindex>
    %a = memref.load %A[%k] : memref<16xf32>
    affine.store %a, %B[%i] : memref<16xf32>
  }
  return
}

// CHECK-LABEL: func.func @scf_inside
// CHECK-NOT:     mskernel.schedule
// CHECK:         scf.if
// expected-remark @below {{mskernel-poly-schedule: not representable: control flow inside a loop nest ('scf.if'); the function is unchanged}}
func.func @scf_inside(%A: memref<16xf32>, %c: i1) {
  %one = arith.constant 1.0 : f32
  affine.for %i = 0 to 16 {
    scf.if %c {
      affine.store %one, %A[%i] : memref<16xf32>
    }
  }
  return
}

// CHECK-LABEL: func.func @dynamic
// CHECK-NOT:     mskernel.schedule
// expected-remark @below {{mskernel-poly-schedule: not representable: dynamic sizes (memref<?xf32>); the function is unchanged}}
func.func @dynamic(%A: memref<?xf32>) {
  %one = arith.constant 1.0 : f32
  affine.for %i = 0 to 16 {
    affine.store %one, %A[%i] : memref<?xf32>
  }
  return
}

// CHECK-LABEL: func.func @dynamic_bound
// expected-remark @below {{mskernel-poly-schedule: not representable: dynamic sizes (a loop bound operand that is neither an induction variable nor a constant); the function is unchanged}}
func.func @dynamic_bound(%A: memref<16xf32>, %n: index) {
  %one = arith.constant 1.0 : f32
  affine.for %i = 0 to %n {
    affine.store %one, %A[%i] : memref<16xf32>
  }
  return
}

// CHECK-LABEL: func.func @scalar_across
// expected-remark @below {{mskernel-poly-schedule: not representable: a scalar value flows between statements; the function is unchanged}}
func.func @scalar_across(%A: memref<16x16xf32>) {
  affine.for %i = 0 to 16 {
    %a = affine.load %A[%i, 0] : memref<16x16xf32>
    affine.for %j = 0 to 16 {
      affine.store %a, %A[%i, %j] : memref<16x16xf32>
    }
  }
  return
}

// A function without affine loops is skipped silently.
// CHECK-LABEL: func.func @no_loops
// CHECK-NOT:     mskernel.schedule
func.func @no_loops(%a: f32) -> f32 {
  return %a : f32
}
