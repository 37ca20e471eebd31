// RUN: ms-opt %s --split-input-file --mskernel-poly-schedule --canonicalize | FileCheck %s
// RUN: ms-opt %s --split-input-file --mskernel-poly-schedule="vector-reductions=false" --canonicalize | FileCheck %s --check-prefix=SERIAL

// A row sum (reduced dim innermost, the row read contiguously): the
// accumulator Y[i] is loaded once before the row and stored once after it
// (scalar replacement); the row runs as 4 independent vector<16xf32> partial
// sums (step 64), the partial sums added pairwise, a one-vector loop for
// the whole vectors left (960..992), the 8-element tail as one more vector
// step under a constant mask (masked loads, the other lanes select the
// neutral element), then a vector.multi_reduction with Y[i]'s old value as
// accumulator, which msmlir-cpu-fast-math's row-ops make the hand path's
// halving tree (16 -> 8 -> ... -> 1 lanes, then + Y[i]).
// CHECK-LABEL: func.func @row_sum
// CHECK:         affine.for %[[I:.*]] = 0 to 64 {
// CHECK:           %[[OLD:.*]] = affine.load %{{.*}}[%[[I]]] : memref<64xf32>
// CHECK:           %[[ACC:.*]]:4 = affine.for %[[J:.*]] = 0 to 960 step 64 iter_args(%[[A0:.*]] = %[[Z:.*]], %[[A1:.*]] = %[[Z]], %[[A2:.*]] = %[[Z]], %[[A3:.*]] = %[[Z]]) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>) {
// CHECK:             %[[V0:.*]] = affine.vector_load %{{.*}}[%[[I]], %[[J]]] : memref<64x1000xf32>, vector<16xf32>
// CHECK:             arith.addf %[[A0]], %[[V0]] : vector<16xf32>
// CHECK:             affine.vector_load %{{.*}}[%[[I]], %[[J]] + 16]
// CHECK:             affine.vector_load %{{.*}}[%[[I]], %[[J]] + 32]
// CHECK:             affine.vector_load %{{.*}}[%[[I]], %[[J]] + 48]
// CHECK:             affine.yield
// CHECK-NEXT:      } {mskernel.vector_reduction = "add 4x16"}
// CHECK:           %[[P01:.*]] = arith.addf %[[ACC]]#0, %[[ACC]]#1 : vector<16xf32>
// CHECK:           %[[P23:.*]] = arith.addf %[[ACC]]#2, %[[ACC]]#3 : vector<16xf32>
// CHECK:           %[[P:.*]] = arith.addf %[[P01]], %[[P23]] : vector<16xf32>
// CHECK:           %[[W:.*]] = affine.for %{{.*}} = 960 to 992 step 16 iter_args(%{{.*}} = %[[P]]) -> (vector<16xf32>)
// CHECK:           %[[M:.*]] = vector.constant_mask [8] : vector<16xi1>
// CHECK:           %[[TV:.*]] = vector.maskedload %{{.*}}[%[[I]], %{{.*}}], %[[M]], %{{.*}} : memref<64x1000xf32>, vector<16xi1>, vector<16xf32> into vector<16xf32>
// CHECK:           %[[TS:.*]] = arith.select %[[M]], %[[TV]], %[[Z]] : vector<16xi1>, vector<16xf32>
// CHECK:           %[[ALL:.*]] = arith.addf %[[W]], %[[TS]] : vector<16xf32>
// CHECK:           vector.extract_strided_slice %[[ALL]] {offsets = [0], sizes = [8], strides = [1]}
// CHECK:           vector.extract_strided_slice %[[ALL]] {offsets = [8], sizes = [8], strides = [1]}
// CHECK:           %[[LANE:.*]] = vector.extract %{{.*}}[0] : f32 from vector<1xf32>
// CHECK-NEXT:      %[[R:.*]] = arith.addf %[[LANE]], %[[OLD]] : f32
// CHECK-NOT:       affine.for
// CHECK:           affine.store %[[R]], %{{.*}}[%[[I]]] : memref<64xf32>
// SERIAL-LABEL: func.func @row_sum
// SERIAL-NOT:     {{vector[<.]}}
// SERIAL:         affine.load %{{.*}} : memref<64xf32>
// SERIAL-NOT:     {{vector[<.]}}
func.func @row_sum(%X: memref<64x1000xf32>, %Y: memref<64xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %i = 0 to 64 {
    affine.store %z, %Y[%i] : memref<64xf32>
  }
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 1000 {
      %x = affine.load %X[%i, %j] : memref<64x1000xf32>
      %y = affine.load %Y[%i] : memref<64xf32>
      %s = arith.addf %y, %x : f32
      affine.store %s, %Y[%i] : memref<64xf32>
    }
  }
  return
}

// -----

// A row max of an expression of two rows and a value invariant along the
// row (B[i], broadcast once before the loop): the accumulators start at
// -inf; 48 elements: 2 accumulators (a step of 64 would not fit), no tail.
// CHECK-LABEL: func.func @row_max_expr
// CHECK-DAG:     arith.constant dense<0xFF800000> : vector<16xf32>
// CHECK:         affine.for %[[I:.*]] = 0 to 128 {
// CHECK:           %[[B:.*]] = affine.load %{{.*}}[%[[I]]] : memref<128xf32>
// CHECK:           %[[BV:.*]] = vector.broadcast %[[B]] : f32 to vector<16xf32>
// CHECK:           affine.for %{{.*}} = 0 to 32 step 32 iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>)
// CHECK:             arith.mulf %{{.*}}, %[[BV]] : vector<16xf32>
// CHECK:             arith.maximumf {{.*}} : vector<16xf32>
// CHECK:           } {mskernel.vector_reduction = "maximumf 2x16"}
// CHECK:           affine.for %{{.*}} = 32 to 48 step 16
// CHECK:           arith.maximumf {{.*}} : vector<8xf32>
// CHECK-NOT:       affine.for
// CHECK:           affine.store
func.func @row_max_expr(%X: memref<128x48xf32>, %W: memref<128x48xf32>, %B: memref<128xf32>, %Y: memref<128xf32>) {
  affine.for %i = 0 to 128 {
    affine.for %j = 0 to 48 {
      %x = affine.load %X[%i, %j] : memref<128x48xf32>
      %w = affine.load %W[%i, %j] : memref<128x48xf32>
      %b = affine.load %B[%i] : memref<128xf32>
      %p = arith.addf %x, %w : f32
      %q = arith.mulf %p, %b : f32
      %y = affine.load %Y[%i] : memref<128xf32>
      %m = arith.maximumf %y, %q : f32
      affine.store %m, %Y[%i] : memref<128xf32>
    }
  }
  return
}

// -----

// Integer sums are reassociated too (exact in any order).
// CHECK-LABEL: func.func @row_sum_i32
// CHECK:         vector.multi_reduction <add>, %{{.*}}, %{{.*}} [0] : vector<16xi32> to i32
func.func @row_sum_i32(%X: memref<8x256xi32>, %Y: memref<8xi32>) {
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 256 {
      %x = affine.load %X[%i, %j] : memref<8x256xi32>
      %y = affine.load %Y[%i] : memref<8xi32>
      %s = arith.addi %y, %x : i32
      affine.store %s, %Y[%i] : memref<8xi32>
    }
  }
  return
}

// -----

// A row shorter than one vector (12 elements, as the tail of a tiled
// reduction): the widest vector it fills (8 lanes), then a masked step of
// the last 4.
// CHECK-LABEL: func.func @short_row
// CHECK:         affine.for %{{.*}} = 0 to 8 step 8 iter_args(%{{.*}} = %{{.*}}) -> (vector<8xf32>)
// CHECK:         vector.constant_mask [4] : vector<8xi1>
// CHECK:         vector.maskedload
func.func @short_row(%X: memref<64x12xf32>, %Y: memref<64xf32>) {
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 12 {
      %x = affine.load %X[%i, %j] : memref<64x12xf32>
      %y = affine.load %Y[%i] : memref<64xf32>
      %s = arith.addf %y, %x : f32
      affine.store %s, %Y[%i] : memref<64xf32>
    }
  }
  return
}

// -----

// Not rewritten: a row shorter than MIN_LANES (3 elements), a row read
// with stride 2 (not contiguous), a reduction reading the iterator's
// value (index arithmetic, an iota).
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:     {{vector[<.]}}
// CHECK:         return
func.func @left_alone(%X: memref<64x3xf32>, %Z: memref<64x512xf32>, %Y: memref<64xf32>) {
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 3 {
      %x = affine.load %X[%i, %j] : memref<64x3xf32>
      %y = affine.load %Y[%i] : memref<64xf32>
      %s = arith.addf %y, %x : f32
      affine.store %s, %Y[%i] : memref<64xf32>
    }
  }
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 256 {
      %x = affine.load %Z[%i, 2 * %j] : memref<64x512xf32>
      %y = affine.load %Y[%i] : memref<64xf32>
      %s = arith.addf %y, %x : f32
      affine.store %s, %Y[%i] : memref<64xf32>
    }
  }
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 256 {
      %c = arith.index_cast %j : index to i32
      %f = arith.sitofp %c : i32 to f32
      %y = affine.load %Y[%i] : memref<64xf32>
      %s = arith.addf %y, %f : f32
      affine.store %s, %Y[%i] : memref<64xf32>
    }
  }
  return
}
