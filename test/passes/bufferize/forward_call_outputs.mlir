// RUN: ms-opt %s --msmlir-forward-call-outputs | FileCheck %s

func.func private @k(%x: memref<4xf32>, %out: memref<4xf32>)

// The call writes the out-parameter itself: no temporary, no copy.
// CHECK-LABEL: func.func @forwarded(
// CHECK-SAME:    %[[X:.*]]: memref<4xf32>, %[[OUT:.*]]: memref<4xf32>)
// CHECK-NOT:     memref.alloc
// CHECK:         call @k(%[[X]], %[[OUT]])
// CHECK-NOT:     memref.copy
// CHECK:         return
func.func @forwarded(%x: memref<4xf32>, %out: memref<4xf32>) {
  %t = memref.alloc() : memref<4xf32>
  call @k(%x, %t) : (memref<4xf32>, memref<4xf32>) -> ()
  memref.copy %t, %out : memref<4xf32> to memref<4xf32>
  return
}

// The temporary is read by something else as well: kept.
// CHECK-LABEL: func.func @other_use(
// CHECK:         %[[T:[a-z0-9_]+]] = memref.alloc()
// CHECK:         call @k(%{{.*}}, %[[T]])
// CHECK:         call @k(%[[T]], %{{.*}})
// CHECK:         memref.copy %[[T]], %{{.*}}
func.func @other_use(%x: memref<4xf32>, %out: memref<4xf32>, %out2: memref<4xf32>) {
  %t = memref.alloc() : memref<4xf32>
  call @k(%x, %t) : (memref<4xf32>, memref<4xf32>) -> ()
  call @k(%t, %out2) : (memref<4xf32>, memref<4xf32>) -> ()
  memref.copy %t, %out : memref<4xf32> to memref<4xf32>
  return
}

// The out-parameter is read between the call and the copy: kept (the read
// must see the old value).
// CHECK-LABEL: func.func @read_in_between(
// CHECK:         %[[T:[a-z0-9_]+]] = memref.alloc()
// CHECK:         call @k(%{{.*}}, %[[T]])
// CHECK:         memref.load
// CHECK:         memref.copy %[[T]], %{{.*}}
func.func @read_in_between(%x: memref<4xf32>, %out: memref<4xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %t = memref.alloc() : memref<4xf32>
  call @k(%x, %t) : (memref<4xf32>, memref<4xf32>) -> ()
  %v = memref.load %out[%c0] : memref<4xf32>
  memref.copy %t, %out : memref<4xf32> to memref<4xf32>
  return %v : f32
}

// The out-parameter is also an input of the call: kept (in place would alias).
// CHECK-LABEL: func.func @aliased(
// CHECK:         %[[T:[a-z0-9_]+]] = memref.alloc()
// CHECK:         call @k(%{{.*}}, %[[T]])
// CHECK:         memref.copy %[[T]], %{{.*}}
func.func @aliased(%out: memref<4xf32>) {
  %t = memref.alloc() : memref<4xf32>
  call @k(%out, %t) : (memref<4xf32>, memref<4xf32>) -> ()
  memref.copy %t, %out : memref<4xf32> to memref<4xf32>
  return
}

// Not a fresh allocation: kept.
// CHECK-LABEL: func.func @not_alloc(
// CHECK:         call @k(%{{.*}}, %[[S:[a-z0-9]+]])
// CHECK:         memref.copy %[[S]], %{{.*}}
func.func @not_alloc(%x: memref<4xf32>, %s: memref<4xf32>, %out: memref<4xf32>) {
  call @k(%x, %s) : (memref<4xf32>, memref<4xf32>) -> ()
  memref.copy %s, %out : memref<4xf32> to memref<4xf32>
  return
}
