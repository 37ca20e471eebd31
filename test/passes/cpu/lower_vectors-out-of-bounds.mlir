// RUN: timeout 120 ms-opt %s --msmlir-cpu-lower-vectors --split-input-file | FileCheck %s

// Out-of-bounds transfers that used to hang the pass (docs/known-issues.md
// §19: upstream split_transfer_full_partial never returned on a 1-D
// out-of-bounds transfer of a rank-2 memref). `timeout` turns a hang into a
// failure. The 1-D ones go through a rank-reducing subview at their leading
// index and are split there: a full vector is read/written in place when it
// is in bounds, else through a stack buffer, with a masked (out-of-bounds)
// 1-D transfer inside the scf.if (never split again). Writes use the
// "vector-transfer" strategy: upstream's "linalg-copy" one copies the buffer
// back at swapped offsets (test/python/runtime/test_vector_views_exec.py runs
// these functions against numpy). The in-bounds 1-D transfers stay transfers
// (convert-vector-to-llvm makes them loads and stores).

// CHECK-LABEL: func.func @read_1d
// CHECK-SAME:    (%[[M:.*]]: memref<5x7xf32>, %[[I:.*]]: index, %[[J:.*]]: index
// CHECK:         %[[ROW:.*]] = memref.subview %[[M]][%[[I]], 0] [1, 7] [1, 1] : memref<5x7xf32> to memref<7xf32, strided<[1], offset: ?>>
// CHECK:         scf.if
// CHECK:           memref.cast %[[ROW]]
// CHECK:         } else {
// CHECK:           vector.transfer_read %[[ROW]][%[[J]]]
// CHECK:         vector.transfer_read {{.*}} {in_bounds = [true]}
func.func @read_1d(%m: memref<5x7xf32>, %i: index, %j: index, %o: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %p = arith.constant 0.0 : f32
  %v = vector.transfer_read %m[%i, %j], %p {in_bounds = [false]} : memref<5x7xf32>, vector<8xf32>
  vector.transfer_write %v, %o[%c0] {in_bounds = [true]} : vector<8xf32>, memref<8xf32>
  return
}

// -----

// CHECK-LABEL: func.func @write_1d
// CHECK:         %[[ROW:.*]] = memref.subview %arg0[%arg1, 0] [1, 7] [1, 1] : memref<5x7xf32> to memref<7xf32, strided<[1], offset: ?>>
// CHECK:         scf.if
// CHECK:         vector.transfer_write {{.*}} {in_bounds = [true]}
// CHECK:         scf.if
// CHECK:           vector.transfer_write %{{.*}}, %[[ROW]][%arg2] : vector<8xf32>, memref<7xf32, strided<[1], offset: ?>>
func.func @write_1d(%m: memref<5x7xf32>, %i: index, %j: index, %v: vector<8xf32>) {
  vector.transfer_write %v, %m[%i, %j] {in_bounds = [false]} : vector<8xf32>, memref<5x7xf32>
  return
}

// -----

// A 2-D [true, false] read: split as a whole before transfer_to_scf could
// unroll it into the 1-D form.
// CHECK-LABEL: func.func @read_2d
// CHECK-NOT:     memref.subview %arg0[%arg1, 0] [1, 7]
// CHECK:         scf.if
// CHECK:         } else {
// CHECK-COUNT-2:   vector.transfer_read %arg0
// CHECK:         }
// CHECK-COUNT-2: vector.transfer_read {{.*}} {in_bounds = [true]}
func.func @read_2d(%m: memref<5x7xf32>, %i: index, %j: index, %o: memref<2x8xf32>) {
  %c0 = arith.constant 0 : index
  %p = arith.constant 0.0 : f32
  %v = vector.transfer_read %m[%i, %j], %p {in_bounds = [true, false]} : memref<5x7xf32>, vector<2x8xf32>
  vector.transfer_write %v, %o[%c0, %c0] {in_bounds = [true, true]} : vector<2x8xf32>, memref<2x8xf32>
  return
}

// -----

// A rank-3 dynamic memref with a rank-2 transfer: the view keeps the
// source's dynamic trailing size and strides.
// CHECK-LABEL: func.func @read_dynamic
// CHECK:         %[[D:.*]] = memref.dim %arg0, %c2
// CHECK:         %[[V:.*]] = memref.subview %arg0[%arg1, 0, 0] [1, 4, %[[D]]] [1, 1, 1] : memref<3x4x?xf32> to memref<4x?xf32, strided<[?, 1], offset: ?>>
// CHECK:         vector.transfer_read %[[V]][%c0, %arg2]
// CHECK:         vector.transfer_read %[[V]][%c1, %arg2]
func.func @read_dynamic(%m: memref<3x4x?xf32>, %i: index, %j: index, %o: memref<2x8xf32>) {
  %c0 = arith.constant 0 : index
  %p = arith.constant 0.0 : f32
  %v = vector.transfer_read %m[%i, %c0, %j], %p {in_bounds = [true, false]} : memref<3x4x?xf32>, vector<2x8xf32>
  vector.transfer_write %v, %o[%c0, %c0] {in_bounds = [true, true]} : vector<2x8xf32>, memref<2x8xf32>
  return
}
