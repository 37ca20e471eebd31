// RUN: ms-opt %s --msmlir-cpu-streaming-stores="min-output-bytes=4096 min-footprint-bytes=8192" --split-input-file | FileCheck %s

// A write-only output written by 64-byte vector stores at offsets that are
// multiples of 16 elements (row * 1024 + a multiple of 16, and through an
// affine.apply) in OpenMP-bound tasks: the task is versioned on the base's
// 64-byte alignment; its copy stores non-temporally and fences (sfence) before
// the task ends; the original stays in the else branch. The input is read:
// its loads are untouched.
// CHECK-LABEL: func.func @rows
// CHECK:         %[[P:.*]] = memref.extract_aligned_pointer_as_index %arg1
// CHECK:         %[[LOW:.*]] = arith.andi %[[P]], %c63
// CHECK:         %[[OK:.*]] = arith.cmpi eq, %[[LOW]], %c0
// CHECK:         scf.if %[[OK]] {
// CHECK:           scf.parallel
// CHECK:             vector.load %arg0
// CHECK:             vector.store %{{.*}}, %arg1[%{{.*}}, %{{.*}}] {alignment = 64 : i64, nontemporal = true}
// CHECK:             llvm.call_intrinsic "llvm.x86.sse.sfence"() : () -> ()
// CHECK-NEXT:        scf.reduce
// CHECK:         } else {
// CHECK:           scf.parallel
// CHECK:             vector.store %{{.*}}, %arg1[%{{.*}}, %{{.*}}] : memref<4x1024xf32>, vector<16xf32>
// CHECK-NOT:         sfence
// CHECK:             scf.reduce
func.func @rows(%in: memref<4x1024xf32>, %out: memref<4x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %c1024 = arith.constant 1024 : index
  scf.parallel (%t) = (%c0) to (%c2) step (%c1) {
    scf.for %r = %c0 to %c2 step %c1 {
      %row = arith.addi %r, %r : index
      scf.for %j = %c0 to %c1024 step %c16 {
        %v = vector.load %in[%row, %j] : memref<4x1024xf32>, vector<16xf32>
        vector.store %v, %out[%row, %j] : memref<4x1024xf32>, vector<16xf32>
      }
    }
    scf.reduce
  }
  return
}

// -----

// An offset through affine.apply (task * 2048 + j, j a multiple of 16).
// CHECK-LABEL: func.func @flat
// CHECK:         scf.if
// CHECK:           vector.store %{{.*}}, %arg1[%{{.*}}] {alignment = 64 : i64, nontemporal = true}
// CHECK:           llvm.call_intrinsic "llvm.x86.sse.sfence"
// CHECK:         } else {
#map = affine_map<(d0)[s0] -> (d0 * 2048 + s0)>
func.func @flat(%in: memref<4096xf32>, %out: memref<4096xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %c2048 = arith.constant 2048 : index
  scf.parallel (%t) = (%c0) to (%c2) step (%c1) {
    scf.for %j = %c0 to %c2048 step %c16 {
      %i = affine.apply #map(%t)[%j]
      %v = vector.load %in[%i] : memref<4096xf32>, vector<16xf32>
      vector.store %v, %out[%i] : memref<4096xf32>, vector<16xf32>
    }
    scf.reduce
  }
  return
}

// -----

// A serial nest (threads=1): one fence after the nest. Two outputs: both
// bases are checked.
// CHECK-LABEL: func.func @serial
// CHECK-DAG:     %[[P0:.*]] = memref.extract_aligned_pointer_as_index %arg1
// CHECK-DAG:     %[[P1:.*]] = memref.extract_aligned_pointer_as_index %arg2
// CHECK:         %[[BOTH:.*]] = arith.andi %{{.*}}, %{{.*}} : i1
// CHECK:         scf.if %[[BOTH]] {
// CHECK:           scf.for
// CHECK:             vector.store %{{.*}}, %arg1[%{{.*}}] {alignment = 32 : i64, nontemporal = true} : memref<2048xf32>, vector<8xf32>
// CHECK:             vector.store %{{.*}}, %arg2[%{{.*}}] {alignment = 64 : i64, nontemporal = true} : memref<2048xf32>, vector<16xf32>
// CHECK:           }
// CHECK-NEXT:      llvm.call_intrinsic "llvm.x86.sse.sfence"
// CHECK-NEXT:    } else {
func.func @serial(%in: memref<2048xf32>, %a: memref<2048xf32>, %b: memref<2048xf32>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c2048 = arith.constant 2048 : index
  scf.for %j = %c0 to %c2048 step %c16 {
    %v = vector.load %in[%j] : memref<2048xf32>, vector<16xf32>
    %h = vector.extract_strided_slice %v {offsets = [0], sizes = [8], strides = [1]} : vector<16xf32> to vector<8xf32>
    vector.store %h, %a[%j] : memref<2048xf32>, vector<8xf32>
    %j8 = arith.addi %j, %c8 : index
    vector.store %h, %a[%j8] : memref<2048xf32>, vector<8xf32>
    vector.store %v, %b[%j] : memref<2048xf32>, vector<16xf32>
  }
  return
}

// -----

// An in-bounds, unmasked 1-D transfer_write along the last dim is a store:
// the streaming copy has the non-temporal vector.store it stands for. A masked
// one (a tail) stays as it is, in both copies.
// CHECK-LABEL: func.func @transfer
// CHECK:         scf.if
// CHECK:           vector.store %{{.*}}, %arg1[%{{.*}}, %{{.*}}] {alignment = 64 : i64, nontemporal = true} : memref<64x256xf32>, vector<16xf32>
// CHECK:           vector.transfer_write %{{.*}}, %arg1[%{{.*}}, %{{.*}}], %{{.*}} {in_bounds = [true]}
// CHECK:           llvm.call_intrinsic "llvm.x86.sse.sfence"
// CHECK:         } else {
// CHECK:           vector.transfer_write %{{.*}}, %arg1[%{{.*}}, %{{.*}}] {in_bounds = [true]} : vector<16xf32>, memref<64x256xf32>
func.func @transfer(%in: memref<64x256xf32>, %out: memref<64x256xf32>, %m: vector<16xi1>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c240 = arith.constant 240 : index
  %c256 = arith.constant 256 : index
  %f0 = arith.constant 0.0 : f32
  scf.for %r = %c0 to %c64 step %c1 {
    scf.for %j = %c0 to %c240 step %c16 {
      %v = vector.transfer_read %in[%r, %j], %f0 {in_bounds = [true]} : memref<64x256xf32>, vector<16xf32>
      vector.transfer_write %v, %out[%r, %j] {in_bounds = [true]} : vector<16xf32>, memref<64x256xf32>
    }
    %t = vector.transfer_read %in[%r, %c240], %f0 {in_bounds = [true]} : memref<64x256xf32>, vector<16xf32>
    vector.transfer_write %t, %out[%r, %c240], %m {in_bounds = [true]} : vector<16xf32>, memref<64x256xf32>
  }
  return
}
