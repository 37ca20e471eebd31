// RUN: ms-opt %s --msmlir-distinct-return-buffers | FileCheck %s
// RUN: ms-opt %s --msmlir-distinct-return-buffers --buffer-results-to-out-params='hoist-static-allocs=true modify-public-functions=true' | FileCheck %s --check-prefix=OUT

// CHECK-LABEL: func.func @f
// CHECK: %[[A:.*]] = memref.alloc() : memref<4xf32>
// CHECK: %[[B:.*]] = memref.alloc() : memref<4xf32>
// CHECK: memref.copy %[[A]], %[[B]]
// CHECK: return %[[A]], %[[B]], %arg0
// OUT-LABEL: func.func @f(%arg0: memref<4xf32>, %arg1: memref<4xf32>, %arg2: memref<4xf32>, %arg3: memref<4xf32>)
// OUT: memref.copy %arg1, %arg2
func.func @f(%x: memref<4xf32>) -> (memref<4xf32>, memref<4xf32>, memref<4xf32>) {
  %a = memref.alloc() : memref<4xf32>
  memref.copy %x, %a : memref<4xf32> to memref<4xf32>
  return %a, %a, %x : memref<4xf32>, memref<4xf32>, memref<4xf32>
}
