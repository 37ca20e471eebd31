// RUN: ms-opt %s --split-input-file --mskernel-poly-schedule="tile-sizes=32" --canonicalize | FileCheck %s

// A transpose written to C, then C += B (two nests isl fuses into one):
// the full 32x32 tiles become 8x8 vector blocks (vectorize.transposes): A
// read through a transposing permutation map, the block stored to C and
// read back forwarded, the first store (overwritten) dropped: one write.
// The partial tiles (100 = 3 x 32 + 4) stay scalar.
// CHECK-LABEL: func.func @transpose_then_add
// CHECK:         affine.for %{{.*}} = 0 to 32 step 8 {
// CHECK-NEXT:      affine.for %{{.*}} = 0 to 32 step 8 {
// CHECK:             %[[A:.*]] = vector.transfer_read %arg0[%[[J:.*]], %[[I:.*]]], %{{.*}} {in_bounds = [true, true], permutation_map = #[[T:.*]]} : memref<100x100xf32>, vector<8x8xf32>
// CHECK-NOT:         vector.transfer_write
// CHECK-NOT:         vector.transfer_read %arg2
// CHECK:             %[[B:.*]] = vector.transfer_read %arg1[
// CHECK-NEXT:        %[[S:.*]] = arith.addf %[[A]], %[[B]] : vector<8x8xf32>
// CHECK-NEXT:        vector.transfer_write %[[S]], %arg2[
// CHECK-NEXT:      } {mskernel.vector_transpose = "8x8"}
// CHECK:         affine.load %arg0
func.func @transpose_then_add(%A: memref<100x100xf32>, %B: memref<100x100xf32>, %C: memref<100x100xf32>) {
  affine.for %i = 0 to 100 {
    affine.for %j = 0 to 100 {
      %a = affine.load %A[%j, %i] : memref<100x100xf32>
      affine.store %a, %C[%i, %j] : memref<100x100xf32>
    }
  }
  affine.for %i = 0 to 100 {
    affine.for %j = 0 to 100 {
      %c = affine.load %C[%i, %j] : memref<100x100xf32>
      %b = affine.load %B[%i, %j] : memref<100x100xf32>
      %s = arith.addf %c, %b : f32
      affine.store %s, %C[%i, %j] : memref<100x100xf32>
    }
  }
  return
}

// -----

// Not rewritten: C is read at a cell it does not write in that iteration
// (C[i][j + 1]: a value would cross between the cells of a block), and a
// nest without a transposed read (LLVM's loop vectorizer takes those).
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:     vector.transfer_read
// CHECK:         return
func.func @left_alone(%A: memref<64x64xf32>, %B: memref<64x64xf32>, %C: memref<64x65xf32>) {
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 64 {
      %a = affine.load %A[%j, %i] : memref<64x64xf32>
      %c = affine.load %C[%i, %j + 1] : memref<64x65xf32>
      %s = arith.addf %a, %c : f32
      affine.store %s, %C[%i, %j] : memref<64x65xf32>
    }
  }
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 64 {
      %a = affine.load %A[%i, %j] : memref<64x64xf32>
      %b = affine.load %B[%i, %j] : memref<64x64xf32>
      %s = arith.addf %a, %b : f32
      affine.store %s, %B[%i, %j] : memref<64x64xf32>
    }
  }
  return
}
