// RUN: ms-opt %s --convert-mskernel-to-gpu='launch=false' | FileCheck %s
// RUN: ms-opt %s --convert-mskernel-to-gpu | FileCheck %s --check-prefix=LAUNCH
// RUN: ms-opt %s --convert-mskernel-to-gpu='tile-matmul=false launch=false' | FileCheck %s --check-prefix=PLAIN
// RUN: ms-opt %s --convert-mskernel-to-gpu='fma=false' | FileCheck %s --check-prefix=NOFMA
// RUN: ms-opt %s --convert-mskernel-to-gpu='cp-async=false launch=false' | FileCheck %s --check-prefix=NOASYNC

// x @ w^T (1024x64 times 512x64, a generic with the transposed-B maps, k the
// innermost index of both inputs): 64x64 output tiles (128 blocks, x over
// the N tiles, y over the M tiles), 256 threads of 4x4 outputs each, K in
// steps of 16 through two stages of two shared tiles. Both operands have k
// contiguous in rows of 16-byte multiples: their tiles keep that layout
// ([2, 64 rows, 16 k + 4 pad]) and are copied in 16-byte chunks (an scf.for
// over 4 floats carrying indices, stage, row, column, valid count: cp.async
// with launch=true). Phases, sibling thread loops in the block loop: init
// (the register tile, a `local` [256, 4, 4] buffer, from the output), the
// prologue's loads of K step 0 into stage 0, then per K step kt the loads of
// step kt+1 into stage (kt+1)%2 (past K: valid count 0, zero-filled) and the
// compute of step kt from stage kt%2 (16 x 4x4 multiply-adds), then store.
// The K-step loop is kept a loop (LLVM would unroll it fully at O3, and
// ptxas then spends up to 255 registers on small tiles).
// CHECK:       #[[UNROLL:.+]] = #llvm.loop_unroll<disable = true>
// CHECK:       #[[NOUNROLL:.+]] = #llvm.loop_annotation<unroll = #[[UNROLL]]>
// CHECK-LABEL: func.func private @xwt
// CHECK:         scf.parallel (%[[BN:.+]], %[[BM:.+]]) = (%{{.*}}, %{{.*}}) to (%c8, %c16)
// CHECK-DAG:       %[[SA:.+]] = memref.alloc() {msmlir.gpu_shared} : memref<2x64x20xf32>
// CHECK-DAG:       %[[SB:.+]] = memref.alloc() {msmlir.gpu_shared} : memref<2x64x20xf32>
// CHECK-DAG:       %[[ACC:.+]] = memref.alloc() {msmlir.gpu_local} : memref<256x4x4xf32>
// CHECK:           scf.parallel (%[[T0:.+]]) = (%{{.*}}) to (%c256)
// CHECK-COUNT-16:    memref.store %{{.*}}, %[[ACC]][%[[T0]], %{{.*}}, %{{.*}}]
// CHECK:           } {mapping = [#gpu.loop_dim_map<processor = thread_x{{.*}}>]}
// CHECK:           scf.parallel (%{{.*}}) = (%{{.*}}) to (%c256)
// CHECK:             scf.for %{{.*}} = %c0 to %[[C4:.+]] step %c1 iter_args(%{{.*}}, %{{.*}}, %{{.*}} = %c0, %{{.*}}, %{{.*}}, %{{.*}} = %[[C4]])
// CHECK:               memref.load %arg0
// CHECK:               arith.select
// CHECK:               memref.store %{{.*}}, %[[SA]][
// CHECK:             scf.for %{{.*}} = %c0 to %[[C4]] step %c1 iter_args(%{{.*}}, %{{.*}}, %{{.*}} = %c0,
// CHECK:               memref.load %arg1
// CHECK:               memref.store %{{.*}}, %[[SB]][
// CHECK:           } {mapping = [#gpu.loop_dim_map<processor = thread_x{{.*}}>]}
// CHECK:           scf.for %[[KT:.+]] = %c0 to %c4 step %c1 {
// CHECK:             %[[NXT:.+]] = arith.addi %[[KT]], %c1
// CHECK:             %[[NSTAGE:.+]] = arith.remui %[[NXT]], %c2
// CHECK:             scf.parallel (%{{.*}}) = (%{{.*}}) to (%c256)
// CHECK:               %[[INK:.+]] = arith.cmpi ult, %{{.*}}, %c64
// CHECK:               arith.select %[[INK]], %c4, %c0
// CHECK:               scf.for {{.*}} iter_args(%{{.*}}, %{{.*}}, %{{.*}} = %[[NSTAGE]],
// CHECK:               scf.for {{.*}} iter_args(%{{.*}}, %{{.*}}, %{{.*}} = %[[NSTAGE]],
// CHECK:             } {mapping = [#gpu.loop_dim_map<processor = thread_x{{.*}}>]}
// CHECK:             scf.parallel (%[[T2:.+]]) = (%{{.*}}) to (%c256)
// CHECK:               %[[STAGE:.+]] = arith.remui %[[KT]], %c2
// CHECK:               scf.for %[[KK:.+]] = %c0 to %c16 step %c1 {
// CHECK-COUNT-4:         memref.load %[[SA]][%[[STAGE]], %{{.*}}, %[[KK]]]
// CHECK-COUNT-4:         memref.load %[[SB]][%[[STAGE]], %{{.*}}, %[[KK]]]
// CHECK:                 arith.mulf
// CHECK-NEXT:            memref.load %[[ACC]][%[[T2]], %c0, %c0]
// CHECK-NEXT:            arith.addf
// CHECK-NEXT:            memref.store %{{.*}}, %[[ACC]][%[[T2]], %c0, %c0]
// CHECK-COUNT-15:        arith.mulf
// CHECK:             } {mapping = [#gpu.loop_dim_map<processor = thread_x{{.*}}>]}
// CHECK:           } {loop_annotation = #[[NOUNROLL]]}
// CHECK:           scf.parallel (%[[T3:.+]]) = (%{{.*}}) to (%c256)
// CHECK-COUNT-16:    memref.store %{{.*}}, %{{.*}} : memref<1024x512xf32>
// CHECK:           } {mapping = [#gpu.loop_dim_map<processor = thread_x{{.*}}>]}
// CHECK:         } {mapping = [#gpu.loop_dim_map<processor = block_x{{.*}}>, #gpu.loop_dim_map<processor = block_y{{.*}}>], msmlir.gpu_phases}

// A small matmul with partial tiles everywhere (100x70 @ 70x40): 16x16 tiles
// of one output per thread, guards on M and N, and the last K step (70 =
// 4 x 16 + 6) shortened by a min. A (k contiguous, but K = 70 is no
// multiple of a 16-byte chunk) is loaded element by element, transposed
// into k rows padded by one column; B (n contiguous, N = 40 a multiple of
// 4) in chunks, in its own k rows padded by 16 bytes.
// CHECK-LABEL: func.func private @mm
// CHECK:         scf.parallel (%{{.*}}, %{{.*}}) = (%{{.*}}, %{{.*}}) to (%c3, %c7)
// CHECK-DAG:       %[[MA:.+]] = memref.alloc() {msmlir.gpu_shared} : memref<2x16x17xf32>
// CHECK-DAG:       %[[MB:.+]] = memref.alloc() {msmlir.gpu_shared} : memref<2x16x20xf32>
// CHECK-DAG:       memref.alloc() {msmlir.gpu_local} : memref<256x1x1xf32>
// CHECK:           memref.store %{{.*}}, %[[MA]][%c0, %{{.*}}, %{{.*}}] : memref<2x16x17xf32>
// CHECK:           scf.for %{{.*}} iter_args
// CHECK:             memref.store %{{.*}}, %[[MB]]
// CHECK:           scf.for %[[KT:.+]] = %c0 to %c5 step %c1 {
// CHECK:             %[[NXT:.+]] = arith.addi %[[KT]], %c1
// CHECK:             %[[LEFT:.+]] = arith.subi %c70, %{{.*}}
// CHECK-NEXT:        %[[UB:.+]] = arith.minsi %c16, %[[LEFT]]
// CHECK:             scf.for %[[KK:.+]] = %c0 to %[[UB]] step %c1
// CHECK:               memref.load %[[MA]][%{{.*}}, %[[KK]], %{{.*}}]
// CHECK:               memref.load %[[MB]][%{{.*}}, %[[KK]], %{{.*}}]

// A batch matmul (4 x 64x32 @ 32x48): the batch dim is a block dim (z).
// CHECK-LABEL: func.func private @bmm
// CHECK:         scf.parallel (%{{.*}}, %{{.*}}, %{{.*}}) = (%{{.*}}, %{{.*}}, %{{.*}}) to (%c3, %c4, %c4)
// CHECK:           memref.alloc() {msmlir.gpu_local}
// CHECK:         } {mapping = [#gpu.loop_dim_map<processor = block_x{{.*}}>, #gpu.loop_dim_map<processor = block_y{{.*}}>, #gpu.loop_dim_map<processor = block_z{{.*}}>], msmlir.gpu_phases}

// K = 4 (< 8): not worth staging; one thread per output, the accumulator in
// a register.
// CHECK-LABEL: func.func private @short
// CHECK-NOT:     msmlir.gpu_local
// CHECK:         scf.for %{{.*}} = %c0 to %c4 step %c1 iter_args
// CHECK-NOT:     msmlir.gpu_shared
// CHECK:         return

// launch=true: one thread loop per block, gpu.barrier after the load and the
// compute phases, the tiles workgroup attributions, the register tile a
// private alloca of each thread; the chunks cp.async (nvgpu.device_async_copy,
// 4 floats, zero-filled past the valid count) with a commit group and a wait
// for all but the newest before the barrier that ends each load phase; float
// ops contractible (fma).
// LAUNCH-LABEL: func.func private @xwt
// LAUNCH:         gpu.launch blocks({{[^)]*}}) in ({{%[a-z0-9]+}} = %c8, {{%[a-z0-9]+}} = %c16, {{%[a-z0-9]+}} = %c1)
// LAUNCH-SAME:      threads({{[^)]*}}) in ({{%[a-z0-9]+}} = %c256, {{%[a-z0-9]+}} = %c1, {{%[a-z0-9]+}} = %c1)
// LAUNCH-SAME:      workgroup(%[[WA:.+]] : memref<2x64x20xf32, #gpu.address_space<workgroup>>, %[[WB:.+]] : memref<2x64x20xf32, #gpu.address_space<workgroup>>)
// LAUNCH:           %[[PRIV:.+]] = memref.alloca() : memref<4x4xf32>
// LAUNCH:           gpu.barrier
// LAUNCH:           nvgpu.device_async_copy %arg{{.*}} %[[WA]][{{.*}}], 4, %{{.*}} {bypassL1}
// LAUNCH:           nvgpu.device_async_copy %arg{{.*}} %[[WB]][{{.*}}], 4, %{{.*}} {bypassL1}
// LAUNCH:           %[[G0:.+]] = nvgpu.device_async_create_group
// LAUNCH-NEXT:      nvgpu.device_async_wait %[[G0]] {numGroups = 1 : i32}
// LAUNCH-NEXT:      gpu.barrier
// LAUNCH-NEXT:      scf.for
// LAUNCH:             nvgpu.device_async_copy %arg{{.*}} %[[WA]]
// LAUNCH:             nvgpu.device_async_copy %arg{{.*}} %[[WB]]
// LAUNCH:             %[[G1:.+]] = nvgpu.device_async_create_group
// LAUNCH-NEXT:        nvgpu.device_async_wait %[[G1]] {numGroups = 1 : i32}
// LAUNCH-NEXT:        gpu.barrier
// LAUNCH:             scf.for
// LAUNCH:               memref.load %[[WA]]
// LAUNCH:               arith.mulf %{{.*}}, %{{.*}} fastmath<contract> : f32
// LAUNCH-NEXT:          memref.load %[[PRIV]]
// LAUNCH-NEXT:          arith.addf %{{.*}}, %{{.*}} fastmath<contract> : f32
// LAUNCH:             gpu.barrier
// LAUNCH-NEXT:      }
// LAUNCH-NOT:       gpu.barrier
// LAUNCH:           gpu.terminator
// LAUNCH-NOT:     msmlir.gpu_local
// LAUNCH-NOT:     msmlir.gpu_shared

// cp-async=false (chips before sm_80): the same two stages, every operand
// loaded element by element (k-fast ones transposed into padded k rows).
// NOASYNC-LABEL: func.func private @xwt
// NOASYNC-DAG:     memref.alloc() {msmlir.gpu_shared} : memref<2x16x65xf32>
// NOASYNC-DAG:     memref.alloc() {msmlir.gpu_shared} : memref<2x16x65xf32>
// NOASYNC-NOT:     nvgpu.device_async_copy
// NOASYNC:       func.func private @mm

// PLAIN-LABEL: func.func private @xwt
// PLAIN-NOT:     msmlir.gpu_local
// PLAIN:       func.func private @mm
// PLAIN-NOT:     msmlir.gpu_local
// PLAIN:         scf.for %{{.*}} = %c0 to %c70 step %c1 iter_args

// NOFMA-LABEL: func.func private @xwt
// NOFMA-NOT:     fastmath
// NOFMA:         gpu.terminator

#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#bt = affine_map<(d0, d1, d2) -> (d1, d2)>
#o = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @host(%x: tensor<1024x64xf32>, %w: tensor<512x64xf32>, %a: tensor<100x70xf32>,
                %b: tensor<70x40xf32>, %p: tensor<4x64x32xf32>, %q: tensor<4x32x48xf32>,
                %s: tensor<64x4xf32>, %t: tensor<4x64xf32>)
    -> (tensor<1024x512xf32>, tensor<100x40xf32>, tensor<4x64x48xf32>, tensor<64x64xf32>) {
  %r0 = call @xwt(%x, %w) : (tensor<1024x64xf32>, tensor<512x64xf32>) -> tensor<1024x512xf32>
  %r1 = call @mm(%a, %b) : (tensor<100x70xf32>, tensor<70x40xf32>) -> tensor<100x40xf32>
  %r2 = call @bmm(%p, %q) : (tensor<4x64x32xf32>, tensor<4x32x48xf32>) -> tensor<4x64x48xf32>
  %r3 = call @short(%s, %t) : (tensor<64x4xf32>, tensor<4x64xf32>) -> tensor<64x64xf32>
  return %r0, %r1, %r2, %r3 : tensor<1024x512xf32>, tensor<100x40xf32>, tensor<4x64x48xf32>, tensor<64x64xf32>
}
func.func private @xwt(%x: tensor<1024x64xf32>, %w: tensor<512x64xf32>) -> tensor<1024x512xf32> attributes {mskernel.kind = #mskernel.kind<matmul>} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1024x512xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1024x512xf32>) -> tensor<1024x512xf32>
  %r = linalg.generic {indexing_maps = [#a, #bt, #o], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<1024x64xf32>, tensor<512x64xf32>) outs(%f : tensor<1024x512xf32>) {
  ^bb0(%u: f32, %v: f32, %acc: f32):
    %m = arith.mulf %u, %v : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1024x512xf32>
  return %r : tensor<1024x512xf32>
}
func.func private @mm(%a: tensor<100x70xf32>, %b: tensor<70x40xf32>) -> tensor<100x40xf32> attributes {mskernel.kind = #mskernel.kind<matmul>} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<100x40xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<100x40xf32>) -> tensor<100x40xf32>
  %r = linalg.matmul ins(%a, %b : tensor<100x70xf32>, tensor<70x40xf32>) outs(%f : tensor<100x40xf32>) -> tensor<100x40xf32>
  return %r : tensor<100x40xf32>
}
func.func private @bmm(%p: tensor<4x64x32xf32>, %q: tensor<4x32x48xf32>) -> tensor<4x64x48xf32> attributes {mskernel.kind = #mskernel.kind<matmul>} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x64x48xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x64x48xf32>) -> tensor<4x64x48xf32>
  %r = linalg.batch_matmul ins(%p, %q : tensor<4x64x32xf32>, tensor<4x32x48xf32>) outs(%f : tensor<4x64x48xf32>) -> tensor<4x64x48xf32>
  return %r : tensor<4x64x48xf32>
}
func.func private @short(%s: tensor<64x4xf32>, %t: tensor<4x64xf32>) -> tensor<64x64xf32> attributes {mskernel.kind = #mskernel.kind<matmul>} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %r = linalg.matmul ins(%s, %t : tensor<64x4xf32>, tensor<4x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}
