// RUN: ms-opt %s --split-input-file --mskernel-poly-schedule --canonicalize | FileCheck %s

// An elementwise nest (independent iterations, every access contiguous along
// j): the innermost loop becomes vector<16xf32> steps (the hand strategies'
// width for f32) to 32, the last 37 mod 16 = 5 elements one step under a
// constant mask (masked loads and store); S[i] (invariant along j) is
// loaded once per row and broadcast (vectorize.elementwise).
// CHECK-LABEL: func.func @scale_rows
// CHECK:         affine.for %[[I:.*]] = 0 to 3 {
// CHECK:           %[[S:.*]] = affine.load %arg1[%[[I]]] : memref<3xf32>
// CHECK:           %[[SV:.*]] = vector.broadcast %[[S]] : f32 to vector<16xf32>
// CHECK:           affine.for %[[J:.*]] = 0 to 32 step 16 {
// CHECK-NEXT:        %[[X:.*]] = affine.vector_load %arg0[%[[I]], %[[J]]] : memref<3x37xf32>, vector<16xf32>
// CHECK-NEXT:        %[[P:.*]] = arith.mulf %[[X]], %[[SV]] : vector<16xf32>
// CHECK-NEXT:        affine.vector_store %[[P]], %arg2[%[[I]], %[[J]]] : memref<3x37xf32>, vector<16xf32>
// CHECK-NEXT:      } {mskernel.vector_elementwise = "16"}
// CHECK:           %[[M:.*]] = vector.constant_mask [5] : vector<16xi1>
// CHECK:           vector.maskedload %arg0[%[[I]], %{{.*}}], %[[M]]
// CHECK:           vector.maskedstore %arg2[%[[I]], %{{.*}}], %[[M]]
func.func @scale_rows(%X: memref<3x37xf32>, %S: memref<3xf32>, %Y: memref<3x37xf32>) {
  affine.for %i = 0 to 3 {
    affine.for %j = 0 to 37 {
      %x = affine.load %X[%i, %j] : memref<3x37xf32>
      %s = affine.load %S[%i] : memref<3xf32>
      %p = arith.mulf %x, %s : f32
      affine.store %p, %Y[%i, %j] : memref<3x37xf32>
    }
  }
  return
}

// -----

// Not vectorized: a write to the array read at another cell (Y[j + 1] from
// Y[j]: a loop-carried dependence); an integer division whose masked tail
// lanes (padded with 0) could trap; bools (vector<i1> loads are bit-packed).
// CHECK-LABEL: func.func @carried
// CHECK-NOT:     vector<
// CHECK:         affine.store %{{.*}}, %arg0[%{{.*}} + 1] : memref<100xf32>
// CHECK-LABEL: func.func @divide_with_tail
// CHECK-NOT:     vector<
// CHECK:         arith.divsi %{{.*}} : i32
// CHECK-LABEL: func.func @bools
// CHECK-NOT:     vector<
// CHECK:         arith.xori %{{.*}} : i1
func.func @carried(%Y: memref<100xf32>) {
  %c = arith.constant 2.0 : f32
  affine.for %j = 0 to 99 {
    %a = affine.load %Y[%j] : memref<100xf32>
    %b = arith.mulf %a, %c : f32
    affine.store %b, %Y[%j + 1] : memref<100xf32>
  }
  return
}
func.func @divide_with_tail(%X: memref<70xi32>, %D: memref<70xi32>, %Y: memref<70xi32>) {
  affine.for %j = 0 to 70 {
    %a = affine.load %X[%j] : memref<70xi32>
    %d = affine.load %D[%j] : memref<70xi32>
    %q = arith.divsi %a, %d : i32
    affine.store %q, %Y[%j] : memref<70xi32>
  }
  return
}
func.func @bools(%X: memref<8x64xi1>, %Y: memref<8x64xi1>) {
  %t = arith.constant true
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 64 {
      %a = affine.load %X[%i, %j] : memref<8x64xi1>
      %b = arith.xori %a, %t : i1
      affine.store %b, %Y[%i, %j] : memref<8x64xi1>
    }
  }
  return
}

// -----

// A column sum Y[j] += X[i, j], 64 x 500 f32 (125 KiB of rows > 32 KiB):
// rows in strips of 8; per strip, Y in blocks of 8 vector<16xf32> loaded
// once, accumulated over the strip's rows in registers (iter_args), stored
// once: three blocks in a loop (0..384 step 128), then one block of the 7
// vectors left and the 4-element tail under a mask (vectorize.columns).
// CHECK-LABEL: func.func @col_sum
// CHECK:         affine.for %[[S:.*]] = 0 to 64 step 8 {
// CHECK-NEXT:      affine.for %[[B:.*]] = 0 to 384 step 128 {
// CHECK-NEXT:        %[[Y0:.*]] = affine.vector_load %arg1[%[[B]]] : memref<500xf32>, vector<16xf32>
// CHECK:             %[[R:.*]]:8 = affine.for %[[I:.*]] = #{{.*}}(%[[S]]) to #{{.*}}(%[[S]]) iter_args(%[[A0:.*]] = %[[Y0]],
// CHECK-NEXT:          %[[X0:.*]] = affine.vector_load %arg0[%[[I]], %[[B]]] : memref<64x500xf32>, vector<16xf32>
// CHECK-NEXT:          arith.addf %[[A0]], %[[X0]] : vector<16xf32>
// CHECK:             } {mskernel.vector_columns = "8x16"}
// CHECK-NEXT:        affine.vector_store %[[R]]#0, %arg1[%[[B]]] : memref<500xf32>, vector<16xf32>
// CHECK:           %[[M:.*]] = vector.constant_mask [4] : vector<16xi1>
// CHECK:           vector.maskedload %arg1[%{{.*}}], %[[M]]
// CHECK:           affine.for %{{.*}} = #{{.*}}(%[[S]]) to #{{.*}}(%[[S]]) iter_args(
// CHECK:             vector.maskedload %arg0
// CHECK:           } {mskernel.vector_columns = "8x16"}
// CHECK:           vector.maskedstore %arg1[%{{.*}}], %[[M]]
// CHECK-NOT:     affine.for
// CHECK:         return
func.func @col_sum(%X: memref<64x500xf32>, %Y: memref<500xf32>) {
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 500 {
      %x = affine.load %X[%i, %j] : memref<64x500xf32>
      %y = affine.load %Y[%j] : memref<500xf32>
      %s = arith.addf %y, %x : f32
      affine.store %s, %Y[%j] : memref<500xf32>
    }
  }
  return
}
