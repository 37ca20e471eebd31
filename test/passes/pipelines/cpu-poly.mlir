// RUN: ms-opt %s --split-input-file --pass-pipeline="builtin.module(mskernel-poly-schedule{nests=true},mskernel-promote-buffers)" --verify-diagnostics | FileCheck %s
// RUN: ms-opt %s --split-input-file --pass-pipeline="builtin.module(msmlir-cpu-pipeline{poly=true})" | FileCheck %s --check-prefix=PIPE
// RUN: ms-opt %s --split-input-file --pass-pipeline="builtin.module(msmlir-cpu-pipeline{poly=false})" | FileCheck %s --check-prefix=PIPE

// mskernel-poly-schedule{nests=true} (what msmlir-cpu-pipeline runs on the
// plain path after bufferization): in a function that mixes vector code and
// scf loops with affine nests, each run of consecutive nests (the alloc
// between them hoisted, the dealloc sunk) is outlined into a private function
// that carries the schedule and is called in place; the nest the model cannot
// represent (a gather: memref.load with a computed index) stays where it was,
// silently (no remark: verify-diagnostics). In the full pipeline the
// outlined functions are inlined back (no call, no private function left).

// CHECK-LABEL: func.func private @mixed_poly0(
// CHECK-SAME:      mskernel.schedule = "tile-sizes:
// CHECK:           arith.constant 0.0
// CHECK:           affine.for
// CHECK:             affine.vector_store
// CHECK:             affine.for
// CHECK:               arith.mulf
// CHECK:           return
// CHECK-LABEL: func.func @mixed(
// CHECK-NOT:       mskernel.schedule
// CHECK:           scf.for
// CHECK:             vector.load
// CHECK:           memref.alloc
// CHECK-NEXT:      call @mixed_poly0(
// CHECK-NEXT:      memref.dealloc
// CHECK:           scf.for
// CHECK:           affine.for
// CHECK-NEXT:        affine.load
// CHECK-NEXT:        memref.load
// CHECK-NOT:       call
// CHECK:           return
func.func @mixed(%a: memref<16x32xf32>, %b: memref<32x16xf32>, %c: memref<16x16xf32>, %v: memref<64xf32>,
                 %idx: memref<8xindex>, %g: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c16 = arith.constant 16 : index
  %cst = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c64 step %c16 {
    %x = vector.load %v[%i] : memref<64xf32>, vector<16xf32>
    %y = arith.addf %x, %x : vector<16xf32>
    vector.store %y, %v[%i] : memref<64xf32>, vector<16xf32>
  }
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to 16 {
      affine.store %cst, %c[%i, %j] : memref<16x16xf32>
    }
  }
  %t = memref.alloc() : memref<16x16xf32>
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to 16 {
      affine.for %k = 0 to 32 {
        %0 = affine.load %a[%i, %k] : memref<16x32xf32>
        %1 = affine.load %b[%k, %j] : memref<32x16xf32>
        %2 = affine.load %c[%i, %j] : memref<16x16xf32>
        %3 = arith.mulf %0, %1 : f32
        %4 = arith.addf %2, %3 : f32
        affine.store %4, %c[%i, %j] : memref<16x16xf32>
      }
    }
  }
  memref.dealloc %t : memref<16x16xf32>
  scf.for %i = %c0 to %c64 step %c16 {
    %x = vector.load %v[%i] : memref<64xf32>, vector<16xf32>
    vector.store %x, %v[%i] : memref<64xf32>, vector<16xf32>
  }
  affine.for %i = 0 to 8 {
    %j = affine.load %idx[%i] : memref<8xindex>
    %x = memref.load %v[%j] : memref<64xf32>
    affine.store %x, %g[%i] : memref<8xf32>
  }
  return
}

// PIPE-LABEL:  llvm.func @mixed(
// PIPE-NOT:    llvm.call @mixed_poly
// PIPE-NOT:    llvm.func @mixed_poly

// -----

// A plain-path op of the pipeline (a matmul below pack-matmul's and
// tile-vectorize's thresholds): scheduled, then inlined back.

// CHECK-LABEL: func.func @small_matmul(
// CHECK-NOT:     mskernel.schedule
// CHECK:         mindir.matmul
// PIPE-LABEL:  llvm.func @small_matmul(
// PIPE:          llvm.fmul
// PIPE-NOT:      llvm.call
// PIPE:          llvm.return
// PIPE-NOT:    llvm.func @small_matmul_poly
func.func @small_matmul(%a: tensor<7x13xf32>, %b: tensor<13x5xf32>) -> tensor<7x5xf32> {
  %r = mindir.matmul %a, %b : (tensor<7x13xf32>, tensor<13x5xf32>) -> tensor<7x5xf32>
  return %r : tensor<7x5xf32>
}
