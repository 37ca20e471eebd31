// RUN: ms-opt %s --convert-mskernel-to-gpu='launch=false' | FileCheck %s
// RUN: ms-opt %s --convert-mskernel-to-gpu | FileCheck %s --check-prefix=LAUNCH
// RUN: ms-opt %s --convert-mskernel-to-gpu='block-reductions=false launch=false' | FileCheck %s --check-prefix=THREAD
// RUN: ms-opt %s --convert-mskernel-to-gpu='threads=16' | FileCheck %s --check-prefix=T16

// Row sums (64 rows of 300, contiguous along the reduced dim): one block per
// row. Phase 1: each of the 256 threads folds a strided part of the row
// (k = t, t + 256, ...); then a tree in a 256-element shared buffer (8 phases,
// the first guarded to the 256 partial results), then thread 0 adds the row's
// result to the output's initial value. The phases are sibling thread loops
// (what the CPU runs); launch=true fuses them with gpu.barrier and the buffer
// becomes a workgroup attribution.
// CHECK-LABEL: func.func private @rowsum
// CHECK:         scf.parallel (%[[ROW:.+]]) = (%{{.*}}) to (%c64)
// CHECK:           %[[SH:.+]] = memref.alloc() {msmlir.gpu_shared} : memref<256xf32>
// CHECK:           scf.parallel (%[[T:.+]]) = (%{{.*}}) to (%c256)
// CHECK:             %[[X0:.+]] = memref.load %{{.*}}[%[[ROW]], %[[T]]] : memref<64x300xf32>
// CHECK:             %[[K0:.+]] = arith.addi %[[T]], %c256
// CHECK:             %[[P:.+]] = scf.for %[[K:.+]] = %[[K0]] to %c300 step %c256 iter_args(%[[ACC:.+]] = %[[X0]]) -> (f32)
// CHECK:               %[[X:.+]] = memref.load %{{.*}}[%[[ROW]], %[[K]]]
// CHECK:               %[[S:.+]] = arith.addf %[[X]], %[[ACC]] : f32
// CHECK:               scf.yield %[[S]] : f32
// CHECK:             memref.store %[[P]], %[[SH]][%[[T]]]
// CHECK:           } {mapping = [#gpu.loop_dim_map<processor = thread_x{{.*}}>]}
// CHECK:           scf.parallel (%[[T1:.+]]) = (%{{.*}}) to (%c256)
// CHECK:             %[[U:.+]] = arith.addi %[[T1]], %c128
// CHECK:             %[[LOW:.+]] = arith.cmpi ult, %[[T1]], %c128
// CHECK:             scf.if %[[LOW]] {
// CHECK:               memref.load %[[SH]][%[[T1]]]
// CHECK:               memref.load %[[SH]][%[[U]]]
// CHECK:               arith.addf
// CHECK:               memref.store {{.*}}, %[[SH]][%[[T1]]]
// CHECK-COUNT-2:   } {mapping = [#gpu.loop_dim_map<processor = thread_x{{.*}}>]}
// The phases within one warp (s = 16 .. 1 of 256 partial results) are tagged:
// launch=true turns them into warp shuffles.
// CHECK:           } {mapping = [#gpu.loop_dim_map<processor = thread_x{{.*}}>], msmlir.gpu_warp = array<i64: 16, 256>}
// CHECK:           } {mapping = [#gpu.loop_dim_map<processor = thread_x{{.*}}>], msmlir.gpu_warp = array<i64: 8, 256>}
// CHECK:           } {mapping = [#gpu.loop_dim_map<processor = thread_x{{.*}}>], msmlir.gpu_warp = array<i64: 4, 256>}
// CHECK:           } {mapping = [#gpu.loop_dim_map<processor = thread_x{{.*}}>], msmlir.gpu_warp = array<i64: 2, 256>}
// CHECK:           } {mapping = [#gpu.loop_dim_map<processor = thread_x{{.*}}>], msmlir.gpu_warp = array<i64: 1, 256>}
// CHECK:           scf.parallel (%[[T8:.+]]) = (%{{.*}}) to (%c256)
// CHECK:             %[[FIRST:.+]] = arith.cmpi eq, %[[T8]], %c0
// CHECK:             scf.if %[[FIRST]] {
// CHECK:               %[[INIT:.+]] = memref.load %{{.*}}[%[[ROW]]] : memref<64xf32>
// CHECK:               %[[R:.+]] = memref.load %[[SH]][%c0]
// CHECK:               arith.addf %[[R]], %[[INIT]]
// CHECK:           memref.dealloc %[[SH]]
// CHECK:         } {mapping = [#gpu.loop_dim_map<processor = block_x{{.*}}>], msmlir.gpu_phases}

// Column maxima (300 rows of 37, reduced along the strided dim): one thread
// per output column, a serial loop over the rows (coalesced across threads),
// the accumulator carried in a register (one load before, one store after).
// CHECK-LABEL: func.func private @colmax
// CHECK:         scf.parallel (%{{.*}}) = (%{{.*}}) to (%c1)
// CHECK:           scf.parallel (%[[C:.+]]) = (%{{.*}}) to (%c37)
// CHECK:             %[[INIT:.+]] = memref.load %[[OUT:.+]][%[[C]]] : memref<37xf32>
// CHECK:             %[[M:.+]] = scf.for %[[R:.+]] = %c0 to %c300 step %c1 iter_args(%[[ACC:.+]] = %[[INIT]]) -> (f32) {
// CHECK-NEXT:          %[[X:.+]] = memref.load %{{.*}}[%[[R]], %[[C]]] : memref<300x37xf32>
// CHECK-NEXT:          %[[Y:.+]] = arith.maximumf %[[X]], %[[ACC]]
// CHECK-NEXT:          scf.yield %[[Y]]
// CHECK:             memref.store %[[M]], %[[OUT]][%[[C]]]
// CHECK-NOT:     gpu_shared

// A sum to a scalar (129 values): the 0-d fill is a single-thread launch, the
// sum one block of 256 threads, phase 1 guarded to the 129 values.
// CHECK-LABEL: func.func private @total
// CHECK:         scf.parallel (%{{.*}}) = (%c0) to (%c1) step (%c1) {
// CHECK-NEXT:      scf.parallel (%{{.*}}) = (%c0) to (%c1) step (%c1) {
// CHECK-NEXT:        memref.store %{{.*}}, %{{.*}}[] : memref<f32>
// CHECK:         scf.parallel (%{{.*}}) = (%c0) to (%c1) step (%c1) {
// CHECK-NEXT:      memref.alloc() {msmlir.gpu_shared} : memref<256xf32>
// CHECK:           scf.parallel (%[[T:.+]]) = (%c0) to (%c256)
// CHECK:             %[[IN:.+]] = arith.cmpi ult, %[[T]], %c129
// CHECK:             scf.if %[[IN]] {
// CHECK:               memref.load %{{.*}}[%[[T]]] : memref<129xf32>

// LAUNCH-LABEL: func.func private @rowsum
// LAUNCH:         gpu.launch blocks({{[^)]*}}) in ({{%[a-z0-9]+}} = %c64, {{.*}} threads({{[^)]*}}) in ({{%[a-z0-9]+}} = %c256,
// LAUNCH-SAME:      workgroup(%[[WG:.+]] : memref<256xf32, #gpu.address_space<workgroup>>)
// LAUNCH:           scf.for
// LAUNCH:           memref.store %{{.*}}, %[[WG]]
// LAUNCH-NEXT:      gpu.barrier
// LAUNCH-COUNT-3:   gpu.barrier
// LAUNCH:           scf.if %{{.*}} {
// LAUNCH-NEXT:        %[[V:.+]] = memref.load %[[WG]]
// LAUNCH:             %[[S16:.+]], %{{.*}} = gpu.shuffle  down %[[V]], %c16_i32, %c32_i32 : f32
// LAUNCH-NEXT:        %[[V1:.+]] = arith.addf %[[V]], %[[S16]]
// LAUNCH-NEXT:        %[[S8:.+]], %{{.*}} = gpu.shuffle  down %[[V1]], %c8_i32, %c32_i32 : f32
// LAUNCH-COUNT-3:     gpu.shuffle  down
// LAUNCH:             scf.if
// LAUNCH-NEXT:          memref.store %{{.*}}, %[[WG]][%c0]
// LAUNCH:           gpu.barrier
// LAUNCH-NOT:       gpu.barrier
// LAUNCH:           gpu.terminator
// LAUNCH-NOT:     memref.alloc() {msmlir.gpu_shared}
// LAUNCH-LABEL: func.func private @colmax
// LAUNCH-NOT:       gpu.barrier
// LAUNCH:           gpu.terminator

// threads=16 (a block smaller than a warp): no shuffles.
// T16-LABEL: func.func private @rowsum
// T16-NOT:     gpu.shuffle
// T16:         gpu.terminator

// THREAD-LABEL: func.func private @rowsum
// THREAD:         scf.parallel (%{{.*}}) = (%{{.*}}) to (%c1)
// THREAD:           scf.parallel (%[[R:.+]]) = (%{{.*}}) to (%c64)
// THREAD:             scf.for %[[K:.+]] = %c0 to %c300 step %c1 iter_args
// THREAD:               memref.load %{{.*}}[%[[R]], %[[K]]] : memref<64x300xf32>
// THREAD-NOT:     gpu_shared

#row = affine_map<(d0, d1) -> (d0, d1)>
#red = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
#all = affine_map<(d0) -> (d0)>
#none = affine_map<(d0) -> ()>
func.func @host(%x: tensor<64x300xf32>, %z: tensor<300x37xf32>, %v: tensor<129xf32>)
    -> (tensor<64xf32>, tensor<37xf32>, tensor<f32>) {
  %a = call @rowsum(%x) : (tensor<64x300xf32>) -> tensor<64xf32>
  %b = call @colmax(%z) : (tensor<300x37xf32>) -> tensor<37xf32>
  %c = call @total(%v) : (tensor<129xf32>) -> tensor<f32>
  return %a, %b, %c : tensor<64xf32>, tensor<37xf32>, tensor<f32>
}
func.func private @rowsum(%x: tensor<64x300xf32>) -> tensor<64xf32> attributes {mskernel.kind = #mskernel.kind<reduce>} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %r = linalg.generic {indexing_maps = [#row, #red], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<64x300xf32>) outs(%f : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %r : tensor<64xf32>
}
func.func private @colmax(%z: tensor<300x37xf32>) -> tensor<37xf32> attributes {mskernel.kind = #mskernel.kind<reduce>} {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<37xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<37xf32>) -> tensor<37xf32>
  %r = linalg.generic {indexing_maps = [#row, #col], iterator_types = ["reduction", "parallel"]}
      ins(%z : tensor<300x37xf32>) outs(%f : tensor<37xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %o : f32
    linalg.yield %m : f32
  } -> tensor<37xf32>
  return %r : tensor<37xf32>
}
func.func private @total(%v: tensor<129xf32>) -> tensor<f32> attributes {mskernel.kind = #mskernel.kind<reduce>} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.generic {indexing_maps = [#all, #none], iterator_types = ["reduction"]}
      ins(%v : tensor<129xf32>) outs(%f : tensor<f32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}
