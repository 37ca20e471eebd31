// RUN: ms-opt %s --msmlir-cpu-lower-vectors | FileCheck %s

// A copy into a padded buffer (a bufferized tensor.pad, e.g. a packed-matmul
// panel): a loop over the rows copying contiguous rows (LLVM memcpy), not
// one memref.copy of a strided memref (the element-wise memrefCopy runtime
// function). Contiguous copies are left as they are.
// CHECK-LABEL: func.func @pad_copy
// CHECK:         scf.for {{.*}} to %c64 step %c1
// CHECK:           memref.subview %arg0[%{{.*}}, 0] [1, 84] [1, 1] : memref<64x84xf32> to memref<84xf32, strided<[1], offset: ?>>
// CHECK:           memref.copy {{.*}} : memref<84xf32, strided<[1], offset: ?>> to memref<84xf32, strided<[1], offset: ?>>
// CHECK:         scf.for {{.*}} to %c4 step %c1
// CHECK:           scf.for {{.*}} to %c6 step %c1
// CHECK:             scf.for {{.*}} to %c28 step %c1
// CHECK:               memref.copy {{.*}} : memref<28xf32, strided<[1], offset: ?>> to memref<28xf32, strided<[1], offset: ?>>
// CHECK:         memref.copy %arg0, %arg0 : memref<64x84xf32> to memref<64x84xf32>
func.func @pad_copy(%a: memref<64x84xf32>, %b: memref<64x96xf32>, %c: memref<4x6x28x28xf32>, %d: memref<4x6x30x30xf32>) {
  %s = memref.subview %b[0, 0] [64, 84] [1, 1] : memref<64x96xf32> to memref<64x84xf32, strided<[96, 1]>>
  memref.copy %a, %s : memref<64x84xf32> to memref<64x84xf32, strided<[96, 1]>>
  %t = memref.subview %d[0, 0, 1, 1] [4, 6, 28, 28] [1, 1, 1, 1] : memref<4x6x30x30xf32> to memref<4x6x28x28xf32, strided<[5400, 900, 30, 1], offset: 31>>
  memref.copy %c, %t : memref<4x6x28x28xf32> to memref<4x6x28x28xf32, strided<[5400, 900, 30, 1], offset: 31>>
  memref.copy %a, %a : memref<64x84xf32> to memref<64x84xf32>
  return
}
