// RUN: ms-opt %s --mskernel-poly-schedule="target=cpu l1-bytes=4096 l2-bytes=32768 vector-bytes=16" --mskernel-promote-buffers --canonicalize | FileCheck %s --check-prefix=CPU
// RUN: ms-opt %s --mskernel-poly-schedule="target=gpu" --mskernel-promote-buffers --canonicalize | FileCheck %s --check-prefix=GPU
// RUN: ms-opt %s --mskernel-poly-schedule="target=ascend tile-sizes=16" --mskernel-promote-buffers --canonicalize | FileCheck %s --check-prefix=ASCEND
// RUN: ms-opt %s --mskernel-poly-schedule="target=gpu" --mskernel-promote-buffers --mskernel-print-schedule 2>&1 >/dev/null | FileCheck %s --check-prefix=PRINT

// Memory promotion of tile footprints (100 is not a multiple of any tile
// size: the copy loops of the last tiles end at min(...), the buffers keep
// the full tile size).

// C = A^T B. cpu: the band is permuted to (i, k, j): along j, A[k, i] is
// invariant and B[k, j], C[i, j] are contiguous, so nothing is strided and
// nothing is promoted (see @matmul_att for a promoted tile).
// CPU-LABEL: func.func @matmul_at
// CPU-NOT:     mskernel.promoted
// CPU-NOT:     memref.alloc
// CPU:         affine.load %arg0[%[[K:.*]], %[[I:.*]]]
// CPU-NEXT:    affine.load %arg1[%[[K]], %[[J:.*]]]
// CPU-NEXT:    affine.load %arg2[%[[I]], %[[J]]]
// CPU:         } {mskernel.band = "point"}

// gpu: every reused footprint goes to shared memory: A and B tiles (k is
// tiled beyond 100: one k tile) are copied in, the C tile in and out around the
// point band, inside the block loops.
// GPU-LABEL: func.func @matmul_at
// GPU:         %[[AS:.*]] = memref.alloc() : memref<100x32xf32, #mskernel.scope<shared>>
// GPU-NEXT:    %[[BS:.*]] = memref.alloc() : memref<100x32xf32, #mskernel.scope<shared>>
// GPU-NEXT:    %[[CS:.*]] = memref.alloc() : memref<32x32xf32, #mskernel.scope<shared>>
// GPU:         affine.for %[[I0:.*]] = 0 to 100 step 32 {
// GPU-NEXT:      affine.for %[[J0:.*]] = 0 to 100 step 32 {
// GPU:               affine.store %{{.*}}, %[[AS]][%{{.*}}, %{{.*}} - %[[I0]]]
// GPU:               affine.store %{{.*}}, %[[BS]][%{{.*}}, %{{.*}} - %[[J0]]]
// GPU:               affine.load %arg2
// GPU-NEXT:          affine.store %{{.*}}, %[[CS]][%{{.*}} - %[[I0]], %{{.*}} - %[[J0]]]
// GPU:           affine.for %[[I:.*]] = 0 to min
// GPU-NEXT:        affine.for %[[J:.*]] = 0 to min
// GPU-NEXT:          affine.for %[[K:.*]] = 0 to 100 {
// GPU-NEXT:            affine.load %[[AS]][%[[K]], %[[I]]]
// GPU-NEXT:            affine.load %[[BS]][%[[K]], %[[J]]]
// GPU-NEXT:            affine.load %[[CS]][%[[I]], %[[J]]]
// GPU:                 affine.store %{{.*}}, %[[CS]][%[[I]], %[[J]]]
// GPU:             } {mskernel.gpu = "threads"}
// GPU-NEXT:      } {mskernel.band = "point", mskernel.gpu = "threads"}
// GPU-NEXT:      affine.for
// GPU-NEXT:        affine.for
// GPU-NEXT:          affine.load %[[CS]]
// GPU-NEXT:          affine.store %{{.*}}, %arg2
// GPU:         } {mskernel.gpu = "blocks"}
// GPU-NEXT:  } {mskernel.band = "shared", mskernel.gpu = "blocks", mskernel.parallel}
// PRINT: remark: mskernel-print-schedule: tile-sizes: shared 32x32x{{[0-9]+}} | target: gpu {{.*}} | promoted: %arg0 [0, +100) x [p0, +32) -> memref<100x32xf32, #mskernel.scope<shared>> at shared (in); %arg1 {{.*}}; %arg2 [p0, +32) x [p1, +32) -> memref<32x32xf32, #mskernel.scope<shared>> at shared (in+out)

// ascend (a cube kernel, tile-sizes given: the L0 level): A -> l0a, B -> l0b,
// the accumulator C -> l0c (copied back out after the point band).
// ASCEND-LABEL: func.func @matmul_at
// ASCEND:         memref.alloc() : memref<16x16xf32, #mskernel.scope<l0a>>
// ASCEND-NEXT:    memref.alloc() : memref<16x16xf32, #mskernel.scope<l0b>>
// ASCEND-NEXT:    %[[C0:.*]] = memref.alloc() : memref<16x16xf32, #mskernel.scope<l0c>>
// ASCEND:         } {mskernel.band = "point"}
// ASCEND-NEXT:    affine.for
// ASCEND-NEXT:      affine.for
// ASCEND-NEXT:        affine.load %[[C0]]
// ASCEND-NEXT:        affine.store %{{.*}}, %arg2
func.func @matmul_at(%A: memref<100x100xf32>, %B: memref<100x100xf32>, %C: memref<100x100xf32>) {
  affine.for %i = 0 to 100 {
    affine.for %j = 0 to 100 {
      affine.for %k = 0 to 100 {
        %a = affine.load %A[%k, %i] : memref<100x100xf32>
        %b = affine.load %B[%k, %j] : memref<100x100xf32>
        %c = affine.load %C[%i, %j] : memref<100x100xf32>
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %c, %p : f32
        affine.store %s, %C[%i, %j] : memref<100x100xf32>
      }
    }
  }
  return
}

// C = A^T B^T. cpu: no order makes every access contiguous; k stays
// innermost, where A[k, i] is strided: its L1 tiles (8x8) are copied
// transposed into a buffer in the default memory space, indexed [i, k]:
// contiguous along k. B[j, k] and C are contiguous or invariant and stay.
// The copy sits inside the L1 tile loops, before the point band.
// CPU-LABEL: func.func @matmul_att
// CPU-SAME:    mskernel.promoted = "%arg0 {{.*}} -> memref<8x8xf32> at l1 (in)"
// CPU:         %[[AB:.*]] = memref.alloc() : memref<8x8xf32>
// CPU:         affine.for %[[I2:.*]] = 0 to 100 step 32 {
// CPU-NEXT:      affine.for %[[J2:.*]] = 0 to 100 step 32 {
// CPU-NEXT:        affine.for %[[K2:.*]] = 0 to 100 step 32 {
// CPU-NEXT:          affine.for %[[I1:.*]] = 0 to min #{{.*}}(%[[I2]]) step 8 {
// CPU-NEXT:            affine.for %[[J1:.*]] = 0 to min #{{.*}}(%[[J2]]) step 8 {
// CPU-NEXT:              affine.for %[[K1:.*]] = 0 to min #{{.*}}(%[[K2]]) step 8 {
// CPU-NEXT:                affine.for %[[CK:.*]] = #{{.*}}(%[[K2]], %[[K1]]) to min #{{.*}}(%[[K2]], %[[K1]]) {
// CPU-NEXT:                  affine.for %[[CI:.*]] = #{{.*}}(%[[I2]], %[[I1]]) to min #{{.*}}(%[[I2]], %[[I1]]) {
// CPU-NEXT:                    %[[V:.*]] = affine.load %arg0[%[[CK]], %[[CI]]]
// CPU-NEXT:                    affine.store %[[V]], %[[AB]][%[[CI]] - %[[I2]] - %[[I1]], %[[CK]] - %[[K2]] - %[[K1]]]
// CPU:                   affine.for %[[I:.*]] = 0 to min
// CPU-NEXT:                affine.for %[[J:.*]] = 0 to min
// CPU-NEXT:                  affine.for %[[K:.*]] = 0 to min
// CPU-NEXT:                    affine.load %[[AB]][%[[I]], %[[K]]] : memref<8x8xf32>
// CPU-NEXT:                    affine.load %arg1[
// CPU-NEXT:                    affine.load %arg2[
// CPU:                   } {mskernel.band = "point"}
// CPU:           memref.dealloc %[[AB]]
// CPU-NEXT:      return
func.func @matmul_att(%A: memref<100x100xf32>, %B: memref<100x100xf32>, %C: memref<100x100xf32>) {
  affine.for %i = 0 to 100 {
    affine.for %j = 0 to 100 {
      affine.for %k = 0 to 100 {
        %a = affine.load %A[%k, %i] : memref<100x100xf32>
        %b = affine.load %B[%j, %k] : memref<100x100xf32>
        %c = affine.load %C[%i, %j] : memref<100x100xf32>
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %c, %p : f32
        affine.store %s, %C[%i, %j] : memref<100x100xf32>
      }
    }
  }
  return
}

// An elementwise f16 kernel: contiguous, no reuse: nothing on cpu and gpu.
// On ascend every operand goes to UB (the vector unit reads only UB); the
// 16x16 f16 tiles (given) have 32-byte rows. The partial tile of j (20 = 16 +
// 4) copies only its 4 columns.
// CPU-LABEL: func.func @add
// CPU-NOT:     memref.alloc
// CPU:         return
// GPU-LABEL: func.func @add
// GPU-NOT:     memref.alloc
// GPU:         return
// ASCEND-LABEL: func.func @add
// ASCEND:         %[[X:.*]] = memref.alloc() : memref<16x16xf16, #mskernel.scope<ub>>
// ASCEND-NEXT:    %[[Y:.*]] = memref.alloc() : memref<16x16xf16, #mskernel.scope<ub>>
// ASCEND:         affine.for %{{.*}} = 0 to 40 step 16 {
// ASCEND-NEXT:      affine.for %{{.*}} = 0 to 20 step 16 {
// ASCEND:             affine.store %{{.*}}, %[[X]]
// ASCEND:             affine.store %{{.*}}, %[[Y]]
// ASCEND:             affine.load %[[X]]
// ASCEND-NEXT:        affine.load %[[Y]]
// ASCEND-NEXT:        arith.addf
// ASCEND-NEXT:        affine.store %{{.*}}, %[[Y]]
// ASCEND:           } {mskernel.band = "point"}
// ASCEND-NEXT:      affine.for
// ASCEND-NEXT:        affine.for
// ASCEND-NEXT:          affine.load %[[Y]]
// ASCEND-NEXT:          affine.store %{{.*}}, %arg1
func.func @add(%X: memref<40x20xf16>, %Y: memref<40x20xf16>) {
  affine.for %i = 0 to 40 {
    affine.for %j = 0 to 20 {
      %x = affine.load %X[%i, %j] : memref<40x20xf16>
      %y = affine.load %Y[%i, %j] : memref<40x20xf16>
      %s = arith.addf %x, %y : f16
      affine.store %s, %Y[%i, %j] : memref<40x20xf16>
    }
  }
  return
}
