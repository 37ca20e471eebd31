// RUN: ms-opt %s --msmlir-cpu-cast-collapses --split-input-file | FileCheck %s
// RUN: ms-opt %s --msmlir-cpu-cast-collapses --fold-memref-alias-ops --split-input-file | FileCheck %s --check-prefix=FOLD

// A collapse_shape of a contiguous buffer becomes a reinterpret_cast to the
// same type: fold-memref-alias-ops leaves the load on the 2-D view (affine
// index) instead of splitting %k with affine.delinearize_index (div/rem).
// CHECK-LABEL: func.func @im2col_rows
// CHECK-NOT:     memref.collapse_shape
// CHECK:         %[[V:.*]] = memref.reinterpret_cast %arg0 to offset: [0], sizes: [150, 800], strides: [800, 1] : memref<6x5x5x8x10x1x10xf32> to memref<150x800xf32>
// CHECK:         memref.load %[[V]][%arg1, %arg2] : memref<150x800xf32>
// FOLD-LABEL: func.func @im2col_rows
// FOLD-NOT:     affine.delinearize_index
// FOLD:         memref.load %{{.*}}[%arg1, %arg2] : memref<150x800xf32>
func.func @im2col_rows(%col: memref<6x5x5x8x10x1x10xf32>, %i: index, %k: index) -> f32 {
  %v = memref.collapse_shape %col [[0, 1, 2], [3, 4, 5, 6]] : memref<6x5x5x8x10x1x10xf32> into memref<150x800xf32>
  %x = memref.load %v[%i, %k] : memref<150x800xf32>
  return %x : f32
}

// -----

// Any static result layout is the same view as a cast of the source's
// buffer: a static offset and strided (not contiguous) sources too. A dynamic
// offset keeps the collapse_shape.
// CHECK-LABEL: func.func @views
// CHECK:         memref.reinterpret_cast %arg0 to offset: [20], sizes: [20], strides: [1] : memref<4x5xf32, strided<[5, 1], offset: 20>> to memref<20xf32, strided<[1], offset: 20>>
// CHECK:         memref.reinterpret_cast %arg1 to offset: [0], sizes: [4, 10], strides: [20, 1] : memref<4x5x2xf32, strided<[20, 2, 1]>> to memref<4x10xf32, strided<[20, 1]>>
// CHECK:         memref.collapse_shape %arg2 {{\[}}[0, 1]] : memref<4x5xf32, strided<[5, 1], offset: ?>>
func.func @views(%a: memref<4x5xf32, strided<[5, 1], offset: 20>>, %b: memref<4x5x2xf32, strided<[20, 2, 1]>>,
                 %c: memref<4x5xf32, strided<[5, 1], offset: ?>>, %i: index) -> (f32, f32, f32) {
  %va = memref.collapse_shape %a [[0, 1]] : memref<4x5xf32, strided<[5, 1], offset: 20>> into memref<20xf32, strided<[1], offset: 20>>
  %vb = memref.collapse_shape %b [[0], [1, 2]] : memref<4x5x2xf32, strided<[20, 2, 1]>> into memref<4x10xf32, strided<[20, 1]>>
  %vc = memref.collapse_shape %c [[0, 1]] : memref<4x5xf32, strided<[5, 1], offset: ?>> into memref<20xf32, strided<[1], offset: ?>>
  %x = memref.load %va[%i] : memref<20xf32, strided<[1], offset: 20>>
  %y = memref.load %vb[%i, %i] : memref<4x10xf32, strided<[20, 1]>>
  %z = memref.load %vc[%i] : memref<20xf32, strided<[1], offset: ?>>
  return %x, %y, %z : f32, f32, f32
}
