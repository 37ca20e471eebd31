// RUN: ms-opt %s --mskernel-poly-schedule="tile-sizes=0 nests=true" | FileCheck %s

// nests=true outlines each nest group into a private function: a view the
// loops use is cloned into it and its source passed, so the model sees one
// buffer (as two arguments the write through the view and the read through
// the source were independent and isl emitted the read first).
// CHECK-LABEL: func.func private @raw_poly0
// CHECK-SAME:    (%[[A:.*]]: memref<64xf32>, %[[C:.*]]: memref<64xf32>)
// CHECK:         %[[V:.*]] = memref.expand_shape %[[A]]
// CHECK:         affine.for
// CHECK:           affine.store %{{.*}}, %[[V]][
// CHECK:           affine.load %[[A]][
// CHECK-LABEL: func.func @raw
// CHECK:         call @raw_poly0(%arg0, %arg1) : (memref<64xf32>, memref<64xf32>) -> ()
func.func @raw(%A: memref<64xf32>, %C: memref<64xf32>) {
  %one = arith.constant 1.0 : f32
  %V = memref.expand_shape %A [[0, 1]] output_shape [8, 8] : memref<64xf32> into memref<8x8xf32>
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 8 {
      affine.store %one, %V[%i, %j] : memref<8x8xf32>
    }
  }
  affine.for %k = 0 to 64 {
    %a = affine.load %A[%k] : memref<64xf32>
    affine.store %a, %C[%k] : memref<64xf32>
  }
  return
}
