// RUN: ms-opt %s --split-input-file --mskernel-poly-schedule="target=cpu l1-bytes=4096 l2-bytes=32768" --canonicalize | FileCheck %s

// Reductions in the tails of tiles (schedule.isolate_full_tiles,
// vectorize.py). y[i] += A[i, k] * x[k] with rows sharing x is tiled (L2
// 32x32 around L1 16x16 here); 1000 = 31 x 32 + 8. The full L1 tiles are
// generated on their own (isl's isolate option) with constant point loops:
// one 16-lane vector step per row; the last 8 columns are a loop of their
// own with constant bounds: one 8-lane step.
// CHECK-LABEL: func.func @matvec
// CHECK-SAME:    options: {{.*}}isolate
// CHECK:         affine.if
// CHECK:           iter_args(%{{.*}} = %{{.*}}) -> (vector<16xf32>)
// CHECK:           } {mskernel.vector_reduction = "add 1x16"}
// CHECK:         } else {
// CHECK:           iter_args(%{{.*}} = %{{.*}}) -> (vector<8xf32>)
// CHECK:           } {mskernel.vector_reduction = "add 1x8"}
// CHECK-NOT:     affine.load %arg0
// CHECK:         return
func.func @matvec(%A: memref<64x1000xf32>, %x: memref<1000xf32>, %y: memref<64xf32>) {
  affine.for %i = 0 to 64 {
    affine.for %k = 0 to 1000 {
      %a = affine.load %A[%i, %k] : memref<64x1000xf32>
      %b = affine.load %x[%k] : memref<1000xf32>
      %c = affine.load %y[%i] : memref<64xf32>
      %p = arith.mulf %a, %b : f32
      %s = arith.addf %c, %p : f32
      affine.store %s, %y[%i] : memref<64xf32>
    }
  }
  return
}

// -----

// 40 rows: the L1 tiles inside the last L2 tiles are not isolated (their
// point loops end at min(16, 1000 - k0)): each step of the reduction loads
// under a mask of the lanes left (vector.create_mask of an affine.min), none
// stays scalar.
// CHECK-LABEL: func.func @matvec_rows40
// CHECK:         affine.for %[[K:.*]] = 0 to min #{{.*}}(%{{.*}}, %{{.*}}) step 16 iter_args(
// CHECK-NEXT:      %[[N:.*]] = affine.min #{{.*}}(%{{.*}}, %{{.*}}, %[[K]])
// CHECK-NEXT:      %[[M:.*]] = vector.create_mask %[[N]] : vector<16xi1>
// CHECK:           vector.maskedload %arg0[%{{.*}}, %{{.*}}], %[[M]]
// CHECK:           vector.maskedload %arg1[%{{.*}}], %[[M]]
// CHECK:           arith.select %[[M]]
// CHECK:         } {mskernel.vector_reduction = "add masked x16"}
// CHECK-NOT:     affine.load %arg0
// CHECK:         return
func.func @matvec_rows40(%A: memref<40x1000xf32>, %x: memref<1000xf32>, %y: memref<40xf32>) {
  affine.for %i = 0 to 40 {
    affine.for %k = 0 to 1000 {
      %a = affine.load %A[%i, %k] : memref<40x1000xf32>
      %b = affine.load %x[%k] : memref<1000xf32>
      %c = affine.load %y[%i] : memref<40xf32>
      %p = arith.mulf %a, %b : f32
      %s = arith.addf %c, %p : f32
      affine.store %s, %y[%i] : memref<40xf32>
    }
  }
  return
}
