// RUN: ms-opt %s --convert-mskernel-to-gpu='launch=false' | FileCheck %s
// RUN: ms-opt %s --convert-mskernel-to-gpu | FileCheck %s --check-prefix=LAUNCH
// RUN: ms-opt %s --convert-mskernel-to-gpu='tile-matmul=false launch=false' | FileCheck %s --check-prefix=PLAIN
// RUN: ms-opt %s --convert-mskernel-to-gpu='fma=false' | FileCheck %s --check-prefix=NOFMA

// x @ w^T (1024x64 times 512x64, a generic with the transposed-B maps, k the
// innermost index of both inputs): 64x64 output tiles (128 blocks, x over
// the N tiles, y over the M tiles), 256 threads of 4x4 outputs each, K in
// steps of 16 through two shared tiles [16, 64 + 1] (k-fast loads: padded
// against bank conflicts). Phases, sibling thread loops in the block loop:
// init (the register tile, a `local` [256, 4, 4] buffer, from the output),
// per K step load A and B / compute (16 x 4x4 multiply-adds), store.
// The K-step loop is kept a loop (LLVM would unroll it fully at O3, and
// ptxas then spends up to 255 registers on small tiles).
// CHECK:       #[[UNROLL:.+]] = #llvm.loop_unroll<disable = true>
// CHECK:       #[[NOUNROLL:.+]] = #llvm.loop_annotation<unroll = #[[UNROLL]]>
// CHECK-LABEL: func.func private @xwt
// CHECK:         scf.parallel (%[[BN:.+]], %[[BM:.+]]) = (%{{.*}}, %{{.*}}) to (%c8, %c16)
// CHECK-DAG:       %[[SA:.+]] = memref.alloc() {msmlir.gpu_shared} : memref<16x65xf32>
// CHECK-DAG:       %[[SB:.+]] = memref.alloc() {msmlir.gpu_shared} : memref<16x65xf32>
// CHECK-DAG:       %[[ACC:.+]] = memref.alloc() {msmlir.gpu_local} : memref<256x4x4xf32>
// CHECK:           scf.parallel (%[[T0:.+]]) = (%{{.*}}) to (%c256)
// CHECK-COUNT-16:    memref.store %{{.*}}, %[[ACC]][%[[T0]], %{{.*}}, %{{.*}}]
// CHECK:           } {mapping = [#gpu.loop_dim_map<processor = thread_x{{.*}}>]}
// CHECK:           scf.for %[[KT:.+]] = %c0 to %c4 step %c1 {
// CHECK:             scf.parallel (%[[T1:.+]]) = (%{{.*}}) to (%c256)
// CHECK-COUNT-4:       memref.store %{{.*}}, %[[SA]][%{{.*}}, %{{.*}}] : memref<16x65xf32>
// CHECK-COUNT-4:       memref.store %{{.*}}, %[[SB]][%{{.*}}, %{{.*}}] : memref<16x65xf32>
// CHECK:             } {mapping = [#gpu.loop_dim_map<processor = thread_x{{.*}}>]}
// CHECK:             scf.parallel (%[[T2:.+]]) = (%{{.*}}) to (%c256)
// CHECK:               scf.for %[[KK:.+]] = %c0 to %c16 step %c1 {
// CHECK-COUNT-4:         memref.load %[[SA]][%[[KK]], %{{.*}}]
// CHECK-COUNT-4:         memref.load %[[SB]][%[[KK]], %{{.*}}]
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
// 4 x 16 + 6) shortened by a min.
// CHECK-LABEL: func.func private @mm
// CHECK:         scf.parallel (%{{.*}}, %{{.*}}) = (%{{.*}}, %{{.*}}) to (%c3, %c7)
// CHECK:           memref.alloc() {msmlir.gpu_local} : memref<256x1x1xf32>
// CHECK:           scf.for %[[KT:.+]] = %c0 to %c5 step %c1 {
// CHECK-NEXT:          %[[K0:.+]] = arith.muli %[[KT]], %c16
// CHECK:             %[[LEFT:.+]] = arith.subi %c70, %[[K0]]
// CHECK-NEXT:        %[[UB:.+]] = arith.minsi %c16, %[[LEFT]]
// CHECK:             scf.for %{{.*}} = %c0 to %[[UB]] step %c1

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
// private alloca of each thread; float ops contractible (fma).
// LAUNCH-LABEL: func.func private @xwt
// LAUNCH:         gpu.launch blocks({{[^)]*}}) in ({{%[a-z0-9]+}} = %c8, {{%[a-z0-9]+}} = %c16, {{%[a-z0-9]+}} = %c1)
// LAUNCH-SAME:      threads({{[^)]*}}) in ({{%[a-z0-9]+}} = %c256, {{%[a-z0-9]+}} = %c1, {{%[a-z0-9]+}} = %c1)
// LAUNCH-SAME:      workgroup(%[[WA:.+]] : memref<16x65xf32, #gpu.address_space<workgroup>>, %[[WB:.+]] : memref<16x65xf32, #gpu.address_space<workgroup>>)
// LAUNCH:           %[[PRIV:.+]] = memref.alloca() : memref<4x4xf32>
// LAUNCH:           gpu.barrier
// LAUNCH-NEXT:      scf.for
// LAUNCH:             memref.store %{{.*}}, %[[WA]]
// LAUNCH:             memref.store %{{.*}}, %[[WB]]
// LAUNCH:             gpu.barrier
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
