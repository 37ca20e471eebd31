// RUN: ms-opt %s --mskernel-poly-schedule="target=cpu l1-bytes=49152 l2-bytes=1048576 vector-bytes=64" --canonicalize | FileCheck %s --check-prefix=CPU
// RUN: ms-opt %s --mskernel-poly-schedule="target=gpu" --canonicalize | FileCheck %s --check-prefix=GPU
// RUN: ms-opt %s --mskernel-poly-schedule="target=ascend" --canonicalize | FileCheck %s --check-prefix=ASCEND
// RUN: ms-opt %s --mskernel-poly-schedule="target=ascend tile-sizes=4" --canonicalize | FileCheck %s --check-prefix=GIVEN
// RUN: not ms-opt %s --mskernel-poly-schedule="target=tpu" 2>&1 | FileCheck %s --check-prefix=BAD

// Tile sizes solved per target memory model (passes/poly/targets.py).
// BAD: mskernel-poly-schedule: unknown target 'tpu' (one of cpu, gpu, ascend)

// Matmul 512^3 f32.
// cpu, two levels: L1 tiles of 32 (3 x 32x32x4 B = 12 KiB <= 24 KiB = L1/2)
// inside L2 tiles of 128 (3 x 64 KiB = 192 KiB <= 512 KiB = L2/2); the point
// loops run 0..32 inside the L1 tile loops (0..128 step 32).
// CPU-LABEL: func.func @matmul
// CPU-SAME:    tile-sizes: l2 128x128x128 > l1 32x32x32 | target: cpu l1=49152 l2=1048576 {{.*}} vector=64B
// CPU:         affine.for %[[I2:.*]] = 0 to 512 step 128 {
// CPU-NEXT:      affine.for %{{.*}} = 0 to 512 step 128 {
// CPU-NEXT:        affine.for %{{.*}} = 0 to 512 step 128 {
// CPU-NEXT:          affine.for %[[I1:.*]] = 0 to 128 step 32 {
// CPU-NEXT:            affine.for %{{.*}} = 0 to 128 step 32 {
// CPU-NEXT:              affine.for %{{.*}} = 0 to 128 step 32 {
// (the point loops i, k, j: j, contiguous, as 2 vector<16xf32> accumulators
// of C's row held across k, for 4 rows of i at a time: vectorize.columns)
// CPU-NEXT:                affine.for %[[I:.*]] = 0 to 32 step 4 {
// CPU:                       affine.for %{{.*}} = 0 to 32 iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>) {
// CPU-NEXT:                    affine.load %arg0[%[[I2]] + %[[I1]] + %[[I]], {{.*}}]
// CPU:                       } {mskernel.vector_columns = "2x16 rows 4"}
// CPU:                     } {mskernel.band = "point"}
// CPU:                   } {mskernel.band = "l1"}
// CPU:             } {mskernel.band = "l2", mskernel.parallel}
// gpu: one level, the i/j tile loops are blocks, the i/j point loops threads
// (32 x 32 = 1024 threads per block), k tiled by 128 (A 16 KiB + B 16 KiB +
// C 4 KiB <= 48 KiB shared).
// GPU-LABEL: func.func @matmul
// GPU-SAME:    tile-sizes: shared 32x32x128 | target: gpu shared=49152 threads=1024
// GPU:         affine.for %{{.*}} = 0 to 512 step 32 {
// GPU-NEXT:      affine.for %{{.*}} = 0 to 512 step 32 {
// GPU-NEXT:        affine.for %{{.*}} = 0 to 512 step 128 {
// GPU-NEXT:          affine.for %{{.*}} = 0 to 32 {
// GPU-NEXT:            affine.for %{{.*}} = 0 to 32 {
// GPU-NEXT:              affine.for %{{.*}} = 0 to 128 {
// GPU:                   } {mskernel.gpu = "threads"}
// GPU-NEXT:            } {mskernel.band = "point", mskernel.gpu = "threads"}
// GPU-NEXT:          }
// GPU-NEXT:        } {mskernel.gpu = "blocks"}
// GPU-NEXT:      } {mskernel.band = "shared", mskernel.gpu = "blocks", mskernel.parallel}
// ascend: a cube kernel: L0 tiles (A 64 KiB <= L0A, B <= L0B, C <= L0C); the
// L1 tile would not be larger (A + B of 256^2 f32 = 512 KiB > L1/2): one level.
// ASCEND-LABEL: func.func @matmul
// ASCEND-SAME:    tile-sizes: l0 128x128x128 | target: ascend ub=196608 l1=524288 l0a=65536 l0b=65536 l0c=131072 align=32B
// GIVEN-LABEL: func.func @matmul
// GIVEN-SAME:    tile-sizes: l0 4x4x8
func.func @matmul(%A: memref<512x512xf32>, %B: memref<512x512xf32>, %C: memref<512x512xf32>) {
  affine.for %i = 0 to 512 {
    affine.for %j = 0 to 512 {
      affine.for %k = 0 to 512 {
        %a = affine.load %A[%i, %k] : memref<512x512xf32>
        %b = affine.load %B[%k, %j] : memref<512x512xf32>
        %c = affine.load %C[%i, %j] : memref<512x512xf32>
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %c, %p : f32
        affine.store %s, %C[%i, %j] : memref<512x512xf32>
      }
    }
  }
  return
}

// A 4-operand i8 elementwise 3-d kernel.
// cpu: not tiled: no cell or cache line is used by two iterations of an
// outer loop (no reuse to keep), tiles would only cut its contiguous streams
// (schedule.reuse_lost).
// CPU-LABEL: func.func @add3d
// CPU-SAME:    tile-sizes: none
// The innermost loop: 32-lane vector steps of i8 (vectorize.elementwise).
// CPU:         affine.for %{{.*}} = 0 to 64 {
// CPU-NEXT:      affine.for %{{.*}} = 0 to 64 {
// CPU-NEXT:        affine.for %{{.*}} = 0 to 64 step 32 {
// CPU:               arith.addi %{{.*}} : vector<32xi8>
// CPU:             } {mskernel.vector_elementwise = "32"}
// ascend (UB/2 = 96 KiB): 32^3 x 4 = 128 KiB does not fit, 16^3 does; the
// innermost size is rounded up to 32 (32 bytes of i8): 16x16x32.
// ASCEND-LABEL: func.func @add3d
// ASCEND-SAME:    tile-sizes: ub 16x16x32
// ASCEND:         affine.for %{{.*}} = 0 to 64 step 16 {
// ASCEND-NEXT:      affine.for %{{.*}} = 0 to 64 step 16 {
// ASCEND-NEXT:        affine.for %{{.*}} = 0 to 64 step 32 {
// ASCEND-NEXT:          affine.for %{{.*}} = 0 to 16 {
// ASCEND-NEXT:            affine.for %{{.*}} = 0 to 16 {
// ASCEND-NEXT:              affine.for %{{.*}} = 0 to 32 {
// given sizes are rounded up the same way: 4 -> 32 for the innermost member.
// GIVEN-LABEL: func.func @add3d
// GIVEN-SAME:    tile-sizes: ub 4x4x32
// gpu: three coincident members, 8 x 8 x 16 = 1024 threads.
// GPU-LABEL: func.func @add3d
// GPU-SAME:    tile-sizes: shared 8x8x16
func.func @add3d(%X: memref<64x64x64xi8>, %Y: memref<64x64x64xi8>, %Z: memref<64x64x64xi8>, %W: memref<64x64x64xi8>) {
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 64 {
      affine.for %k = 0 to 64 {
        %x = affine.load %X[%i, %j, %k] : memref<64x64x64xi8>
        %y = affine.load %Y[%i, %j, %k] : memref<64x64x64xi8>
        %z = affine.load %Z[%i, %j, %k] : memref<64x64x64xi8>
        %s = arith.addi %x, %y : i8
        %t = arith.addi %s, %z : i8
        affine.store %t, %W[%i, %j, %k] : memref<64x64x64xi8>
      }
    }
  }
  return
}
