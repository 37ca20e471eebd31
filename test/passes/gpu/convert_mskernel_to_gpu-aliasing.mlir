// RUN: ms-opt %s --convert-mskernel-to-gpu='launch=false' | FileCheck %s

// A kernel that some call passes two views of one buffer (its input rows and
// its output) keeps the plain mapping: no block reduction, no accumulator in
// a register (both would reorder its reads and writes of that buffer).
// CHECK-LABEL: func.func private @rowsum
// CHECK-NOT:     msmlir.gpu_shared
// CHECK-NOT:     iter_args
// CHECK:         scf.for %[[K:.+]] = %c0 to %c300 step %c1 {
// CHECK-NEXT:      memref.load %{{.*}}[%{{.*}}, %[[K]]] : memref<64x300xf32>
// CHECK-NEXT:      memref.load
// CHECK-NEXT:      arith.addf
// CHECK-NEXT:      memref.store
func.func @host(%buf: memref<19200xf32>) {
  %x = memref.expand_shape %buf [[0, 1]] output_shape [64, 300] : memref<19200xf32> into memref<64x300xf32>
  %o = memref.reinterpret_cast %buf to offset: [0], sizes: [64], strides: [1] : memref<19200xf32> to memref<64xf32>
  call @rowsum(%x, %o) : (memref<64x300xf32>, memref<64xf32>) -> ()
  return
}
#row = affine_map<(d0, d1) -> (d0, d1)>
#red = affine_map<(d0, d1) -> (d0)>
func.func private @rowsum(%x: memref<64x300xf32>, %out: memref<64xf32>) attributes {mskernel.kind = #mskernel.kind<reduce>} {
  linalg.generic {indexing_maps = [#row, #red], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<64x300xf32>) outs(%out : memref<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  }
  return
}
