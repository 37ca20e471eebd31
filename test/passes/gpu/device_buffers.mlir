// RUN: ms-opt %s --split-input-file --msmlir-gpu-device-buffers | FileCheck %s

// Inputs (msmlir.gpu_inputs = 1: %a) are copied to their device twins at
// entry, the out-parameter (%o) copied back before the return; the
// temporary, the constant and the copy between buffers move to the device.
// CHECK-LABEL: func.func @f(
// CHECK-SAME:    %[[A:.+]]: memref<16xf32>, %[[O:.+]]: memref<16xf32>)
// CHECK:         %[[DA:.+]] = gpu.alloc () : memref<16xf32>
// CHECK-NEXT:    gpu.memcpy %[[DA]], %[[A]] : memref<16xf32>, memref<16xf32>
// CHECK-NEXT:    %[[DO:.+]] = gpu.alloc () : memref<16xf32>
// CHECK-NOT:     gpu.memcpy %[[DO]], %[[O]]
// CHECK:         %[[T:.+]] = gpu.alloc () : memref<16xf32>
// CHECK:         %[[DG:.+]] = gpu.alloc () : memref<16xf32>
// CHECK:         %[[G:.+]] = memref.get_global @cst : memref<16xf32>
// CHECK:         gpu.memcpy %[[DG]], %[[G]]
// CHECK:         gpu.launch_func @k::@k blocks in ({{.*}}) threads in ({{.*}}) args(%[[DA]] : memref<16xf32>, %[[DG]] : memref<16xf32>, %[[T]] : memref<16xf32>)
// CHECK:         gpu.memcpy %[[DO]], %[[T]]
// CHECK:         gpu.dealloc %[[T]]
// CHECK:         gpu.memcpy %[[O]], %[[DO]]
// CHECK-DAG:     gpu.dealloc %[[DA]]
// CHECK-DAG:     gpu.dealloc %[[DO]]
// CHECK-DAG:     gpu.dealloc %[[DG]]
// CHECK:         return
// CHECK-NOT:     memref.alloc
// CHECK-NOT:     memref.copy
module attributes {gpu.container_module} {
  memref.global "private" constant @cst : memref<16xf32> = dense<1.0>
  func.func @f(%a: memref<16xf32>, %o: memref<16xf32>) attributes {msmlir.gpu_inputs = 1 : i64} {
    %c1 = arith.constant 1 : index
    %t = memref.alloc() : memref<16xf32>
    %g = memref.get_global @cst : memref<16xf32>
    gpu.launch_func @k::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>, %g : memref<16xf32>, %t : memref<16xf32>)
    memref.copy %t, %o : memref<16xf32> to memref<16xf32>
    memref.dealloc %t : memref<16xf32>
    return
  }
  gpu.module @k {
    gpu.func @k(%x: memref<16xf32>, %y: memref<16xf32>, %z: memref<16xf32>) kernel {
      gpu.return
    }
  }
}

// -----

// Without msmlir.gpu_inputs every argument is copied in and back out.
// CHECK-LABEL: func.func @g(
// CHECK-SAME:    %[[A:.+]]: memref<4xf32>)
// CHECK:         %[[D:.+]] = gpu.alloc () : memref<4xf32>
// CHECK-NEXT:    gpu.memcpy %[[D]], %[[A]]
// CHECK:         gpu.memcpy %[[A]], %[[D]]
// CHECK-NEXT:    gpu.dealloc %[[D]]
module attributes {gpu.container_module} {
  func.func @g(%a: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @k::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<4xf32>)
    return
  }
  gpu.module @k {
    gpu.func @k(%x: memref<4xf32>) kernel {
      gpu.return
    }
  }
}
