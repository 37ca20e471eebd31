// RUN: ms-opt %s --split-input-file --mskernel-poly-schedule="cpu-threads=2" --canonicalize | FileCheck %s
// RUN: ms-opt %s --split-input-file --mskernel-poly-schedule="cpu-threads=1" --canonicalize | FileCheck %s --check-prefix=ONE
// RUN: ms-opt %s --split-input-file --mskernel-poly-schedule="claimed=true cpu-threads=2" | FileCheck %s --check-prefix=CLAIMED

// cpu-threads=2: the outermost band's first parallel (coincident) member,
// the rows of a row sum (512 x 1000 = 2^19 instances >= 2^17, the
// reduction break-even), strip-mined into 2 chunks of 256 rows; the chunk
// loop is an affine.parallel of its own (one task per thread), the rows of
// each chunk inside it, the reduction loop vectorized as without threads.
// CHECK-LABEL: func.func private @row_sum
// CHECK-SAME:    mark: \22tasks\22
// CHECK:         affine.parallel (%[[T:.*]]) = (0) to (2) {
// CHECK-NEXT:      affine.for %[[I:.*]] = #{{.*}}(%[[T]]) to #{{.*}}(%[[T]]) {
// CHECK:             mskernel.vector_reduction = "add 4x16"
// CHECK:         } {mskernel.parallel}
// ONE-LABEL:   func.func private @row_sum
// ONE-NOT:       affine.parallel
// ONE:           affine.for %{{.*}} = 0 to 512 {
// CLAIMED-LABEL: func.func private @row_sum
// CLAIMED-NOT:     affine.parallel
// CLAIMED:         scf.parallel
func.func private @row_sum(%X: memref<512x1000xf32>, %Y: memref<512xf32>) attributes {mskernel.poly} {
  %z = arith.constant 0.0 : f32
  affine.for %i = 0 to 512 {
    affine.store %z, %Y[%i] : memref<512xf32>
  }
  affine.for %i = 0 to 512 {
    affine.for %j = 0 to 1000 {
      %x = affine.load %X[%i, %j] : memref<512x1000xf32>
      %y = affine.load %Y[%i] : memref<512xf32>
      %s = arith.addf %y, %x : f32
      affine.store %s, %Y[%i] : memref<512xf32>
    }
  }
  return
}

// -----

// A column sum: its parallel member (the columns) is the inner one (rows
// outermost, streamed in order); the band is permutable, so the columns
// are split: each task sums all rows over its half of the columns, in
// strips of 8 rows, each strip's 128-column blocks held in 8 vector
// accumulators across the strip (vectorize.columns), then the 7 rows left.
// CHECK-LABEL: func.func @col_sum
// CHECK:         affine.parallel (%[[T:.*]]) = (0) to (2) {
// CHECK:           affine.for %[[S:.*]] = 1 to 993 step 8 {
// CHECK-NEXT:        affine.for %{{.*}} = #{{.*}}(%[[T]]) to #{{.*}}(%[[T]]) step 128 {
// CHECK:               affine.for %{{.*}} = #{{.*}}(%[[S]]) to #{{.*}}(%[[S]]) iter_args(
// CHECK:               } {mskernel.vector_columns = "8x16"}
// CHECK:           affine.for %{{.*}} = #{{.*}}(%[[T]]) to #{{.*}}(%[[T]]) step 128 {
// CHECK:             affine.for %{{.*}} = 993 to 1000 iter_args(
func.func @col_sum(%X: memref<1000x512xf32>, %Y: memref<512xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %i = 0 to 512 {
    affine.store %z, %Y[%i] : memref<512xf32>
  }
  affine.for %i = 0 to 512 {
    affine.for %j = 0 to 1000 {
      %x = affine.load %X[%j, %i] : memref<1000x512xf32>
      %y = affine.load %Y[%i] : memref<512xf32>
      %s = arith.addf %y, %x : f32
      affine.store %s, %Y[%i] : memref<512xf32>
    }
  }
  return
}

// -----

// Below the break-even (an elementwise 128 x 256 = 2^15 < 2^16 instances):
// serial.
// CHECK-LABEL: func.func @small
// CHECK-NOT:     affine.parallel
// CHECK:         return
func.func @small(%X: memref<128x256xf32>, %Y: memref<128x256xf32>) {
  %two = arith.constant 2.0 : f32
  affine.for %i = 0 to 128 {
    affine.for %j = 0 to 256 {
      %x = affine.load %X[%i, %j] : memref<128x256xf32>
      %s = arith.mulf %x, %two : f32
      affine.store %s, %Y[%i, %j] : memref<128x256xf32>
    }
  }
  return
}

// -----

// A loop-carried dependence on every member (a prefix sum along the rows,
// then along the columns is a wavefront): no coincident member in the
// outermost band, no tasks.
// CHECK-LABEL: func.func @prefix
// CHECK-NOT:     affine.parallel
// CHECK:         return
func.func @prefix(%A: memref<512x512xf32>) {
  affine.for %i = 1 to 512 {
    affine.for %j = 1 to 512 {
      %a = affine.load %A[%i - 1, %j] : memref<512x512xf32>
      %b = affine.load %A[%i, %j - 1] : memref<512x512xf32>
      %s = arith.addf %a, %b : f32
      affine.store %s, %A[%i, %j] : memref<512x512xf32>
    }
  }
  return
}
