// RUN: ms-opt %s --allow-unregistered-dialect --msmlir-cpu-globalize-allocs | FileCheck %s
// RUN: ms-opt %s --allow-unregistered-dialect --msmlir-cpu-globalize-allocs="min-bytes=0" | FileCheck %s --check-prefix=ALL

// Big static allocations of the entry block become private globals (the
// function is then not reentrant); small ones, dynamic ones and ones inside
// loops stay.
// CHECK:       memref.global "private" @__msmlir_buf0 : memref<256x1024xf32> = uninitialized {alignment = 64 : i64}
// CHECK-LABEL: func.func @f
// CHECK:         memref.get_global @__msmlir_buf0 : memref<256x1024xf32>
// CHECK:         memref.alloc() : memref<4xf32>
// CHECK:         memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK-NOT:     memref.dealloc %{{.*}} : memref<256x1024xf32>
// ALL-COUNT-2: memref.global "private"
func.func @f(%n: index) {
  %big = memref.alloc() : memref<256x1024xf32>
  %small = memref.alloc() : memref<4xf32>
  %dyn = memref.alloc(%n) : memref<?xf32>
  "test.use"(%big, %small, %dyn) : (memref<256x1024xf32>, memref<4xf32>, memref<?xf32>) -> ()
  memref.dealloc %big : memref<256x1024xf32>
  memref.dealloc %small : memref<4xf32>
  memref.dealloc %dyn : memref<?xf32>
  return
}
