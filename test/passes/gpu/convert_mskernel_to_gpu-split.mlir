// RUN: ms-opt %s --convert-mskernel-to-gpu='launch=false' | FileCheck %s
// RUN: ms-opt %s --convert-mskernel-to-gpu | FileCheck %s --check-prefix=LAUNCH

// Few long rows (8 sums of 65536): one block per row would keep 8 SMs busy.
// Split reduction: 32 blocks per row (block_x the row, block_y the chunk),
// block s folding the balanced chunk [s*65536/32, (s+1)*65536/32) as a block
// reduction (strided partial sums from the chunk's start, the shared-memory
// tree), thread 0 storing the chunk's result into partial[row, s] (a global
// buffer); then a second kernel, one thread per row, folds the output's
// initial value with partial[row, 0 .. 32) in order.
// CHECK-LABEL: func.func private @rowsum
// CHECK:         %[[PART:.+]] = memref.alloc() : memref<8x32xf32>
// CHECK:         scf.parallel (%[[ROW:.+]], %[[S:.+]]) = (%{{.*}}, %{{.*}}) to (%c8, %c32)
// CHECK:           %[[SK:.+]] = arith.muli %[[S]], %c65536
// CHECK:           %[[START:.+]] = arith.divui %[[SK]], %c32
// CHECK:           %[[S1:.+]] = arith.addi %[[S]], %c1
// CHECK:           %[[S1K:.+]] = arith.muli %[[S1]], %c65536
// CHECK:           %[[END:.+]] = arith.divui %[[S1K]], %c32
// CHECK:           %[[SH:.+]] = memref.alloc() {msmlir.gpu_shared} : memref<256xf32>
// CHECK:           scf.parallel (%[[T:.+]]) = (%{{.*}}) to (%c256)
// CHECK:             %[[K0:.+]] = arith.addi %[[START]], %[[T]]
// CHECK:             memref.load %{{.*}}[%[[ROW]], %[[K0]]] : memref<8x65536xf32>
// CHECK:             %[[K1:.+]] = arith.addi %[[K0]], %c256
// CHECK:             scf.for %{{.*}} = %[[K1]] to %[[END]] step %c256 iter_args
// CHECK:           } {mapping = [#gpu.loop_dim_map<processor = thread_x{{.*}}>]}
// CHECK:           scf.parallel (%[[TL:.+]]) = (%{{.*}}) to (%c256)
// CHECK:             %[[FIRST:.+]] = arith.cmpi eq, %[[TL]], %c0
// CHECK:             scf.if %[[FIRST]] {
// CHECK:               %[[R:.+]] = memref.load %[[SH]][%c0]
// CHECK-NEXT:          memref.store %[[R]], %[[PART]][%[[ROW]], %[[S]]] : memref<8x32xf32>
// CHECK:         } {mapping = [#gpu.loop_dim_map<processor = block_x{{.*}}>, #gpu.loop_dim_map<processor = block_y{{.*}}>], msmlir.gpu_phases}
// CHECK:         scf.parallel (%{{.*}}) = (%{{.*}}) to (%c1)
// CHECK:           scf.parallel (%[[R2:.+]]) = (%{{.*}}) to (%c8)
// CHECK:             %[[INIT:.+]] = memref.load %[[OUT:.+]][%[[R2]]] : memref<8xf32>
// CHECK:             %[[SUM:.+]] = scf.for %[[I:.+]] = %c0 to %c32 step %c1 iter_args(%[[ACC:.+]] = %[[INIT]]) -> (f32)
// CHECK:               %[[P:.+]] = memref.load %[[PART]][%[[R2]], %[[I]]]
// CHECK:               arith.addf %[[P]], %[[ACC]]
// CHECK:             memref.store %[[SUM]], %[[OUT]][%[[R2]]]
// CHECK:         memref.dealloc %[[PART]]

// Rows long enough for one block each, but many of them (256 x 4096): no split.
// CHECK-LABEL: func.func private @many
// CHECK-NOT:     memref.alloc() : memref<256x
// CHECK:         scf.parallel (%{{.*}}) = (%{{.*}}) to (%c256)
// CHECK:         msmlir.gpu_phases

// launch=true: two kernels, the chunks' (a workgroup tree ending in warp
// shuffles) and the fold's; the partial buffer between them stays on the host
// side of the launches (a device buffer once msmlir-gpu-device-buffers runs).
// LAUNCH-LABEL: func.func private @rowsum
// LAUNCH:         %[[PART:.+]] = memref.alloc() : memref<8x32xf32>
// LAUNCH:         gpu.launch blocks({{[^)]*}}) in ({{%[a-z0-9]+}} = %c8, {{%[a-z0-9]+}} = %c32, {{%[a-z0-9]+}} = %c1)
// LAUNCH-SAME:      workgroup(%{{.*}} : memref<256xf32, #gpu.address_space<workgroup>>)
// LAUNCH:           gpu.shuffle  down
// LAUNCH:           memref.store %{{.*}}, %[[PART]]
// LAUNCH:           gpu.terminator
// LAUNCH:         gpu.launch
// LAUNCH:           memref.load %[[PART]]
// LAUNCH:           gpu.terminator
// LAUNCH:         memref.dealloc %[[PART]]

#row = affine_map<(d0, d1) -> (d0, d1)>
#red = affine_map<(d0, d1) -> (d0)>
func.func @host(%x: tensor<8x65536xf32>, %y: tensor<256x4096xf32>) -> (tensor<8xf32>, tensor<256xf32>) {
  %a = call @rowsum(%x) : (tensor<8x65536xf32>) -> tensor<8xf32>
  %b = call @many(%y) : (tensor<256x4096xf32>) -> tensor<256xf32>
  return %a, %b : tensor<8xf32>, tensor<256xf32>
}
func.func private @rowsum(%x: tensor<8x65536xf32>) -> tensor<8xf32> attributes {mskernel.kind = #mskernel.kind<reduce>} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %r = linalg.generic {indexing_maps = [#row, #red], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x65536xf32>) outs(%f : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}
func.func private @many(%y: tensor<256x4096xf32>) -> tensor<256xf32> attributes {mskernel.kind = #mskernel.kind<reduce>} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256xf32>) -> tensor<256xf32>
  %r = linalg.generic {indexing_maps = [#row, #red], iterator_types = ["parallel", "reduction"]}
      ins(%y : tensor<256x4096xf32>) outs(%f : tensor<256xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<256xf32>
  return %r : tensor<256xf32>
}
