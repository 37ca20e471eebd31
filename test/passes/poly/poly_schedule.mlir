// RUN: ms-opt %s --mskernel-poly-schedule="l1-bytes=49152 l2-bytes=1048576" --canonicalize | FileCheck %s
// RUN: ms-opt %s --mskernel-poly-schedule="tile-sizes=16" --canonicalize | FileCheck %s --check-prefix=T16
// RUN: ms-opt %s --mskernel-poly-schedule="l1-bytes=4096 l2-bytes=1048576 vector-bytes=16" --canonicalize | FileCheck %s --check-prefix=SMALL

// A[i][j] = A[i-1][j+1] + 1: the dependence (1, -1) forbids interchanging i
// and j. isl skews instead: the outer loop runs over the anti-diagonals
// d = i + j (parallel: the dependence stays on one diagonal), the inner one
// over i in increasing order, so A[i-1][j+1] is written before it is read.
// CHECK-LABEL: func.func @carried
// CHECK-SAME:    mskernel.schedule = "tile-sizes: none
// CHECK:         affine.for %[[D:.*]] = 1 to 126 {
// CHECK-NEXT:      affine.for %[[I:.*]] = max #{{.*}}(%[[D]]) to min #{{.*}}(%[[D]]) {
// CHECK-NEXT:        affine.load %{{.*}}[%[[I]] - 1, -%[[I]] + %[[D]] + 1]
// CHECK-NEXT:        arith.addf
// CHECK-NEXT:        affine.store %{{.*}}, %{{.*}}[%[[I]], -%[[I]] + %[[D]]]
// CHECK-NEXT:      }
// CHECK-NEXT:    } {{{.*}}mskernel.parallel}
func.func @carried(%A: memref<64x64xf32>) {
  %one = arith.constant 1.0 : f32
  affine.for %i = 1 to 64 {
    affine.for %j = 0 to 63 {
      %a = affine.load %A[%i - 1, %j + 1] : memref<64x64xf32>
      %s = arith.addf %a, %one : f32
      affine.store %s, %A[%i, %j] : memref<64x64xf32>
    }
  }
  return
}

// An elementwise producer/consumer pair of nests over the same domain is
// fused into one nest (the small nest is not tiled: it fits in L1); its
// innermost loop (independent iterations, every access contiguous) becomes
// 16-lane vector code (vectorize.elementwise: the hand strategies' width).
// CHECK-LABEL: func.func @chain
// CHECK:         affine.for %[[I:.*]] = 0 to 32 {
// CHECK-NEXT:      affine.for %[[J:.*]] = 0 to 48 step 16 {
// CHECK-NEXT:        affine.vector_load %arg0[%[[I]], %[[J]]] : memref<32x48xf32>, vector<16xf32>
// CHECK-NEXT:        math.exp %{{.*}} : vector<16xf32>
// CHECK-NEXT:        affine.vector_store %{{.*}}, %arg1[%[[I]], %[[J]]]
// CHECK-NEXT:        affine.vector_load %arg1[%[[I]], %[[J]]]
// CHECK-NEXT:        arith.mulf %{{.*}} : vector<16xf32>
// CHECK-NEXT:        affine.vector_store %{{.*}}, %arg2[%[[I]], %[[J]]]
// CHECK-NEXT:      } {mskernel.vector_elementwise = "16"}
// CHECK-NEXT:    } {{{.*}}mskernel.parallel}
// CHECK-NEXT:    return
func.func @chain(%X: memref<32x48xf32>, %T: memref<32x48xf32>, %Y: memref<32x48xf32>) {
  affine.for %i = 0 to 32 {
    affine.for %j = 0 to 48 {
      %x = affine.load %X[%i, %j] : memref<32x48xf32>
      %e = math.exp %x : f32
      affine.store %e, %T[%i, %j] : memref<32x48xf32>
    }
  }
  affine.for %i = 0 to 32 {
    affine.for %j = 0 to 48 {
      %t = affine.load %T[%i, %j] : memref<32x48xf32>
      %s = arith.mulf %t, %t : f32
      affine.store %s, %Y[%i, %j] : memref<32x48xf32>
    }
  }
  return
}

// Matmul 64x64x64: one permutable band (i, j, k). With a 48 KiB L1 it is
// not tiled: one row of A and C with all of B (16.5 KiB) fits in L1/2, so
// the reuse of B across rows is kept (schedule.reuse_lost); the member
// along which most accesses are contiguous (j: B and C) is moved innermost
// (i, k, j). The k loop reduces into C's row, which moves with j only:
// vectorize.columns keeps that row in 4 vector<16xf32> accumulators across
// k (loaded before, stored after). tile-sizes=16 given; a 4 KiB L1
// loses the reuse and gives 8 (3 x 8x8 x 4 B <= 2 KiB).
// i and j are parallel (the outer loop is marked), k is the reduction.
// CHECK-LABEL: func.func @matmul
// CHECK-SAME:    tile-sizes: none | target: cpu l1=49152 l2=1048576 {{.*}} | reductions: S0: dims [2]
// Rows of i in blocks of 4 (C's cell moves with i: each row its own
// accumulators, 16 in all; B's row k is loaded once for the 4 rows), the
// multiply-add contracted into an FMA (as pack-matmul computes it).
// CHECK:         affine.for %[[I:.*]] = 0 to 64 step 4 {
// CHECK-NEXT:      %[[C0:.*]] = affine.vector_load %arg2[%[[I]], 0] : memref<64x64xf32>, vector<16xf32>
// CHECK:           %[[C15:.*]] = affine.vector_load %arg2[%[[I]] + 3, 48]
// CHECK-NEXT:      %[[R:.*]]:16 = affine.for %[[K:.*]] = 0 to 64 iter_args(%[[A0:.*]] = %[[C0]], {{.*}}, %{{.*}} = %[[C15]])
// CHECK-NEXT:        %[[A:.*]] = affine.load %arg0[%[[I]], %[[K]]]
// CHECK:             affine.load %arg0[%[[I]] + 3, %[[K]]]
// CHECK-NEXT:        %[[B0:.*]] = affine.vector_load %arg1[%[[K]], 0]
// CHECK-NEXT:        %[[AV:.*]] = vector.broadcast %[[A]] : f32 to vector<16xf32>
// CHECK-NEXT:        %[[P:.*]] = arith.mulf %[[AV]], %[[B0]] fastmath<contract>
// CHECK-NEXT:        arith.addf %[[A0]], %[[P]] fastmath<contract>
// CHECK:             affine.vector_load %arg1[%[[K]], 48]
// CHECK:             affine.yield
// CHECK-NEXT:      } {mskernel.vector_columns = "4x16 rows 4"}
// CHECK-NEXT:      affine.vector_store %[[R]]#0, %arg2[%[[I]], 0]
// CHECK:           affine.vector_store %[[R]]#15, %arg2[%[[I]] + 3, 48]
// CHECK-NEXT:    } {mskernel.parallel}
func.func @matmul(%A: memref<64x64xf32>, %B: memref<64x64xf32>, %C: memref<64x64xf32>) {
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 64 {
      affine.for %k = 0 to 64 {
        %a = affine.load %A[%i, %k] : memref<64x64xf32>
        %b = affine.load %B[%k, %j] : memref<64x64xf32>
        %c = affine.load %C[%i, %j] : memref<64x64xf32>
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %c, %p : f32
        affine.store %s, %C[%i, %j] : memref<64x64xf32>
      }
    }
  }
  return
}

// 100x100 transposed copy-add: with a 48 KiB L1 a column of A (100 cache
// lines, 6.4 KiB) stays in L1/2 between rows, so it is not tiled; with a
// 4 KiB L1 (SMALL) it is, by 16: 100 is not a multiple. The full tiles
// (isl's isolate option, schedule.isolate_full_tiles) are loops of their
// own with constant bounds, vectorized as 8x8 transposed blocks
// (vectorize.transposes: a transfer_read with a transposing permutation
// map); the partial tiles of the last columns (4 wide) have constant
// bounds too: 4x4 blocks; only the corner keeps a min(...) bound (scalar).
// Every piece of the tile band keeps its marks. tile-sizes=16 likewise.
// Untiled (48 KiB L1), 100 is a multiple of 4, not 8: 4x4 blocks.
// CHECK-LABEL: func.func @tails
// CHECK-SAME:    tile-sizes: none
// CHECK:         affine.for %{{.*}} = 0 to 100 step 4 {
// CHECK-NEXT:      affine.for %{{.*}} = 0 to 100 step 4 {
// CHECK:             vector.transfer_read %arg0{{.*}} : memref<100x100xf32>, vector<4x4xf32>
// CHECK:           } {mskernel.vector_transpose = "4x4"}
// SMALL-LABEL: func.func @tails
// SMALL-SAME:    options: {{.*}}isolate{{.*}}(i0) mod 16 = 0 and (i1) mod 16 = 0
// SMALL:         affine.for %[[I0:.*]] = 0 to 85 step 16 {
// SMALL-NEXT:      affine.for %[[J0:.*]] = 0 to 85 step 16 {
// SMALL-NEXT:        affine.for %[[I:.*]] = 0 to 16 step 8 {
// SMALL-NEXT:          affine.for %[[J:.*]] = 0 to 16 step 8 {
// SMALL:                 vector.transfer_read %arg0[%{{.*}}, %{{.*}}], %{{.*}} {in_bounds = [true, true], permutation_map = #{{.*}}} : memref<100x100xf32>, vector<8x8xf32>
// SMALL-NEXT:            vector.transfer_read %arg1
// SMALL-NEXT:            arith.addf %{{.*}}, %{{.*}} : vector<8x8xf32>
// SMALL-NEXT:            vector.transfer_write
// SMALL-NEXT:          } {mskernel.vector_transpose = "8x8"}
// SMALL-NEXT:        } {mskernel.band = "point"}
// SMALL-NEXT:      }
// SMALL-NEXT:      affine.for %{{.*}} = 0 to 16 step 4 {
// SMALL-NEXT:        affine.for %[[J:.*]] = 0 to 4 step 4 {
// SMALL:               vector.transfer_read %arg0{{.*}} : memref<100x100xf32>, vector<4x4xf32>
// SMALL:             } {mskernel.vector_transpose = "4x4"}
// SMALL-NEXT:      } {mskernel.band = "point"}
// SMALL-NEXT:    } {mskernel.band = "l1", mskernel.parallel}
// SMALL-NEXT:    affine.for %[[J0:.*]] = 0 to 100 step 16 {
// SMALL-NEXT:      affine.for %{{.*}} = 0 to 4 {
// SMALL-NEXT:        affine.for %{{.*}} = 0 to min #{{.*}}(%[[J0]]) {
// SMALL:           } {mskernel.band = "point"}
// SMALL-NEXT:    } {mskernel.band = "l1", mskernel.parallel}
// T16-LABEL: func.func @tails
// T16:         affine.for %{{.*}} = 0 to 85 step 16 {
// T16:             affine.for %{{.*}} = 0 to 16 step 8 {
// T16:             } {mskernel.vector_transpose = "8x8"}
// T16:         affine.for %{{.*}} = 0 to 100 step 16 {
// T16:             affine.for %{{.*}} = 0 to min
func.func @tails(%A: memref<100x100xf32>, %B: memref<100x100xf32>) {
  affine.for %i = 0 to 100 {
    affine.for %j = 0 to 100 {
      %a = affine.load %A[%j, %i] : memref<100x100xf32>
      %b = affine.load %B[%i, %j] : memref<100x100xf32>
      %s = arith.addf %a, %b : f32
      affine.store %s, %B[%i, %j] : memref<100x100xf32>
    }
  }
  return
}
