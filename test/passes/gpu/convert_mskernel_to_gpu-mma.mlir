// RUN: ms-opt %s --convert-mskernel-to-gpu='launch=false' | FileCheck %s
// RUN: ms-opt %s --convert-mskernel-to-gpu | FileCheck %s --check-prefix=LAUNCH
// RUN: ms-opt %s --convert-mskernel-to-gpu='tensor-cores=false launch=false' | FileCheck %s --check-prefix=FMA
// RUN: ms-opt %s --convert-mskernel-to-gpu='tf32=true' | FileCheck %s --check-prefix=TF32

// Tensor cores (passes/gpu/mma.py). @mm16: f16 inputs accumulated in f32
// (1024x64 @ 64x1024): 64x128 output tiles (8 x 16 = 128 blocks) of 8 warps
// (2 x 4), each warp 32x32 = 2 x 4 fragments of 16x8; K in steps of 32
// through two stages of shared tiles A [2][64][32 + 8] (k contiguous) and
// B [2][32][128 + 8] (n contiguous, as in memory; rows padded by 16 bytes). Each thread owns 2 x 4 x 4
// accumulators (the C fragment elements of its lane). The prologue loads
// step 0 into stage 0; the K-step loop loads step kt+1 into stage (kt+1)%2
// (past K: zeros), then computes step kt from stage kt%2, summing each owned
// element over the step where the ldmatrix lanes point. A, k contiguous,
// goes in 8-element (16-byte) chunks, an scf.for each carrying its first
// element's indices, stage, row, column and valid count (what becomes a
// cp.async with launch=true); B likewise, in chunks along n.
// CHECK-LABEL: func.func private @mm16
// CHECK:         scf.parallel (%{{.*}}, %{{.*}}) = (%{{.*}}, %{{.*}}) to (%c8, %c16)
// CHECK-DAG:       %[[SA:.+]] = memref.alloc() {msmlir.gpu_shared} : memref<2x64x40xf16>
// CHECK-DAG:       %[[SB:.+]] = memref.alloc() {msmlir.gpu_shared} : memref<2x32x136xf16>
// CHECK-DAG:       %[[ACC:.+]] = memref.alloc() {msmlir.gpu_local} : memref<256x2x4x4xf32>
// CHECK:           scf.parallel (%{{.*}}) = (%{{.*}}) to (%c256)
// CHECK-COUNT-32:    memref.store %{{.*}}, %[[ACC]]
// CHECK:           scf.parallel (%{{.*}}) = (%{{.*}}) to (%c256)
// CHECK:             scf.for %{{.*}} = %c0 to %c8 step %c1 iter_args({{.*}}) -> (index, index, index, index, index, index)
// CHECK:               memref.load %arg0
// CHECK:               memref.store %{{.*}}, %[[SA]][
// CHECK:             scf.for %{{.*}} = %c0 to %c8 step %c1 iter_args({{.*}}) -> (index, index, index, index, index, index)
// CHECK:               memref.load %arg1
// CHECK:               memref.store %{{.*}}, %[[SB]][
// CHECK:           scf.for %[[KT:.+]] = %c0 to %c2 step %c1 {
// CHECK:             %[[NXT:.+]] = arith.addi %[[KT]], %c1
// CHECK:             %[[STAGE:.+]] = arith.remui %[[NXT]], %c2
// CHECK:             scf.parallel
// CHECK:               scf.for %{{.*}} = %c0 to %c8 step %c1 iter_args({{.*}} = %[[STAGE]],
// CHECK:                 memref.load %arg0
// CHECK:                 arith.select
// CHECK:                 memref.store %{{.*}}, %[[SA]][
// CHECK:               scf.for %{{.*}} = %c0 to %c8 step %c1 iter_args({{.*}} = %[[STAGE]],
// CHECK:                 memref.load %arg1
// CHECK:                 arith.select
// CHECK:                 memref.store %{{.*}}, %[[SB]][
// CHECK:             scf.parallel
// CHECK:               %[[CUR:.+]] = arith.remui %[[KT]], %c2
// CHECK-NEXT:          scf.for %{{.*}} = %c0 to %c32 step %c1 iter_args({{.*}} = %[[CUR]])
// CHECK:                 memref.load %[[SA]]
// CHECK:                 memref.load %[[SB]]
// CHECK:                 arith.extf
// CHECK:                 arith.extf
// CHECK:                 arith.mulf
// CHECK-NOT:         nvgpu.
// CHECK:           } {loop_annotation
// CHECK-LABEL: func.func private @mm32
// CHECK-NOT:     x4xf32>
// CHECK:         memref.alloc() {msmlir.gpu_local} : memref<256x2x2xf32>

// launch=true: A's chunks as cp.async (nvgpu.device_async_copy, 16 bytes,
// zero-filled past the valid count) with a commit and a wait for all but
// the newest group before the barrier that ends each load phase; the K
// step's two 16-deep slices as ldmatrix x4 (A: one per 16-row fragment) and
// x2 .trans (B: one per 8-column fragment) from the workgroup buffers'
// current stage, then one mma.sync per fragment pair (2 x 4 per slice).
// LAUNCH-LABEL: func.func private @mm16
// LAUNCH:         gpu.launch blocks({{.*}}) in ({{.*}} = %c8, {{.*}} = %c16, {{.*}}) threads({{.*}}) in ({{.*}} = %c256, {{.*}}) workgroup(%[[WA:.+]] : memref<2x64x40xf16, #gpu.address_space<workgroup>>, %[[WB:.+]] : memref<2x32x136xf16, #gpu.address_space<workgroup>>)
// LAUNCH:           memref.alloca() : memref<2x4x4xf32>
// LAUNCH:           nvgpu.device_async_copy %arg0[{{.*}}], %[[WA]][%c0, {{.*}}], 8, %c8 {bypassL1}
// LAUNCH:           %[[G0:.+]] = nvgpu.device_async_create_group
// LAUNCH-NEXT:      nvgpu.device_async_wait %[[G0]] {numGroups = 1 : i32}
// LAUNCH-NEXT:      gpu.barrier
// LAUNCH:           scf.for
// LAUNCH:             nvgpu.device_async_copy %arg0[{{.*}}], %[[WA]][{{.*}}], 8, %{{.*}} {bypassL1}
// LAUNCH:             %[[G:.+]] = nvgpu.device_async_create_group
// LAUNCH-NEXT:        nvgpu.device_async_wait %[[G]] {numGroups = 1 : i32}
// LAUNCH-NEXT:        gpu.barrier
// LAUNCH-COUNT-2:     nvgpu.ldmatrix %[[WA]][{{.*}}] {numTiles = 4 : i32, transpose = false} : memref<2x64x40xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// LAUNCH-COUNT-4:     nvgpu.ldmatrix %[[WB]][{{.*}}] {numTiles = 2 : i32, transpose = true} : memref<2x32x136xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
// LAUNCH-COUNT-8:     nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
// LAUNCH-COUNT-2:     nvgpu.ldmatrix %[[WA]]
// LAUNCH-COUNT-4:     nvgpu.ldmatrix %[[WB]]
// LAUNCH-COUNT-8:     nvgpu.mma.sync
// LAUNCH:             gpu.barrier
// LAUNCH-LABEL: func.func private @mm32
// LAUNCH-NOT:     nvgpu.ldmatrix
// LAUNCH-NOT:     nvgpu.mma.sync

// tensor-cores=false: f16 keeps the FMA tiles of the register-tiled matmul.
// FMA-LABEL: func.func private @mm16
// FMA:         memref.alloc() {msmlir.gpu_local} : memref<256x4x8xf32>

// tf32=true: the f32 matmul on the tensor cores too (512x256: 32x32 tiles,
// 4 warps of 16x16, K in steps of 16), fragments loaded element-wise.
// TF32-LABEL: func.func private @mm32
// TF32:         gpu.launch blocks({{.*}}) in ({{.*}} = %c8, {{.*}} = %c16, {{.*}}) threads({{.*}}) in ({{.*}} = %c128, {{.*}}) workgroup({{.*}} : memref<2x32x20xf32, #gpu.address_space<workgroup>>, {{.*}} : memref<2x32x20xf32, #gpu.address_space<workgroup>>)
// TF32:           nvgpu.device_async_copy %arg0[{{.*}}], {{.*}}, 4, %c4 {bypassL1}
// TF32-NOT:       nvgpu.ldmatrix
// TF32:           nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 8], tf32Enabled} : (vector<4x1xf32>, vector<2x1xf32>, vector<2x2xf32>) -> vector<2x2xf32>

func.func @host(%a: tensor<1024x64xf16>, %b: tensor<64x1024xf16>, %x: tensor<512x64xf32>,
                %w: tensor<64x256xf32>) -> (tensor<1024x1024xf32>, tensor<512x256xf32>) {
  %r0 = call @mm16(%a, %b) : (tensor<1024x64xf16>, tensor<64x1024xf16>) -> tensor<1024x1024xf32>
  %r1 = call @mm32(%x, %w) : (tensor<512x64xf32>, tensor<64x256xf32>) -> tensor<512x256xf32>
  return %r0, %r1 : tensor<1024x1024xf32>, tensor<512x256xf32>
}
func.func private @mm16(%a: tensor<1024x64xf16>, %b: tensor<64x1024xf16>) -> tensor<1024x1024xf32> attributes {mskernel.kind = #mskernel.kind<matmul>} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1024x1024xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %r = linalg.matmul ins(%a, %b : tensor<1024x64xf16>, tensor<64x1024xf16>) outs(%f : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %r : tensor<1024x1024xf32>
}
func.func private @mm32(%x: tensor<512x64xf32>, %w: tensor<64x256xf32>) -> tensor<512x256xf32> attributes {mskernel.kind = #mskernel.kind<matmul>} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<512x256xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<512x256xf32>) -> tensor<512x256xf32>
  %r = linalg.matmul ins(%x, %w : tensor<512x64xf32>, tensor<64x256xf32>) outs(%f : tensor<512x256xf32>) -> tensor<512x256xf32>
  return %r : tensor<512x256xf32>
}
