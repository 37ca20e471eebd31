// RUN: ms-opt %s --split-input-file --msmlir-gpu-device-buffers | FileCheck %s

// Inputs (msmlir.gpu_inputs = 1: %a) are copied to their device twins at
// entry, the out-parameter (%o) copied back before the return; the constant
// moves to the device; the temporary %t, computed and then copied whole into
// the out-parameter, is replaced by the out-parameter's twin (no
// device-to-device copy).
// CHECK-LABEL: func.func @f(
// CHECK-SAME:    %[[A:.+]]: memref<16xf32>, %[[O:.+]]: memref<16xf32>)
// CHECK:         %[[DA:.+]] = gpu.alloc () : memref<16xf32>
// CHECK-NEXT:    gpu.memcpy %[[DA]], %[[A]] : memref<16xf32>, memref<16xf32>
// CHECK-NEXT:    %[[DO:.+]] = gpu.alloc () : memref<16xf32>
// CHECK-NOT:     gpu.memcpy %[[DO]], %[[O]]
// CHECK:         %[[DG:.+]] = gpu.alloc () : memref<16xf32>
// CHECK:         %[[G:.+]] = memref.get_global @cst : memref<16xf32>
// CHECK:         gpu.memcpy %[[DG]], %[[G]]
// CHECK-NEXT:    gpu.launch_func @k::@k blocks in ({{.*}}) threads in ({{.*}}) args(%[[DA]] : memref<16xf32>, %[[DG]] : memref<16xf32>, %[[DO]] : memref<16xf32>)
// CHECK-NEXT:    gpu.memcpy %[[O]], %[[DO]]
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

// -----

// msmlir.gpu_resident: %p (a Parameter) and %np (its update's out-parameter)
// are device buffers the caller keeps across calls: no twin, no copy; the
// batch %x is copied in and the loss %l out as before.
// CHECK-LABEL: func.func @step(
// CHECK-SAME:    %[[X:[^:]+]]: memref<8xf32>, %[[P:[^:]+]]: memref<8xf32>, %[[L:[^:]+]]: memref<f32>, %[[NP:[^:]+]]: memref<8xf32>)
// CHECK:         %[[DX:.+]] = gpu.alloc () : memref<8xf32>
// CHECK-NEXT:    gpu.memcpy %[[DX]], %[[X]]
// CHECK-NEXT:    %[[DL:.+]] = gpu.alloc () : memref<f32>
// CHECK:         gpu.launch_func @k::@k {{.*}} args(%[[DX]] : memref<8xf32>, %[[P]] : memref<8xf32>, %[[DL]] : memref<f32>, %[[NP]] : memref<8xf32>)
// CHECK-NEXT:    gpu.memcpy %[[L]], %[[DL]]
// CHECK-NEXT:    gpu.dealloc %[[DX]]
// CHECK-NEXT:    gpu.dealloc %[[DL]]
// CHECK-NEXT:    return
// CHECK-NOT:     gpu.memcpy
module attributes {gpu.container_module} {
  func.func @step(%x: memref<8xf32>, %p: memref<8xf32>, %l: memref<f32>, %np: memref<8xf32>)
      attributes {msmlir.gpu_inputs = 2 : i64, msmlir.gpu_resident = [1 : i64, 3 : i64]} {
    %c1 = arith.constant 1 : index
    gpu.launch_func @k::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<8xf32>, %p : memref<8xf32>, %l : memref<f32>, %np : memref<8xf32>)
    return
  }
  gpu.module @k {
    gpu.func @k(%x: memref<8xf32>, %p: memref<8xf32>, %l: memref<f32>, %np: memref<8xf32>) kernel {
      gpu.return
    }
  }
}

// -----

// The copy stays when the temporary is read after it (%t feeds a second
// launch), or when the out-parameter is used while %t is live.
// CHECK-LABEL: func.func @keep(
// CHECK:         gpu.launch_func @k::@k {{.*}} args(%[[T:[^ ]+]] : memref<4xf32>)
// CHECK-NEXT:    gpu.memcpy %{{.+}}, %[[T]]
// CHECK-NEXT:    gpu.launch_func @k::@k {{.*}} args(%[[T]] : memref<4xf32>)
// CHECK-LABEL: func.func @busy(
// CHECK:         %[[T:.+]] = gpu.alloc () : memref<4xf32>
// CHECK:         gpu.launch_func @k::@k {{.*}} args(%[[T]] : memref<4xf32>)
// CHECK-NEXT:    gpu.launch_func @k::@k {{.*}} args(%arg0 : memref<4xf32>)
// CHECK-NEXT:    gpu.memcpy %arg0, %[[T]]
module attributes {gpu.container_module} {
  func.func @keep(%o: memref<4xf32>) attributes {msmlir.gpu_inputs = 0 : i64, msmlir.gpu_resident = [0 : i64]} {
    %c1 = arith.constant 1 : index
    %t = memref.alloc() : memref<4xf32>
    gpu.launch_func @k::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%t : memref<4xf32>)
    memref.copy %t, %o : memref<4xf32> to memref<4xf32>
    gpu.launch_func @k::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%t : memref<4xf32>)
    memref.dealloc %t : memref<4xf32>
    return
  }
  func.func @busy(%o: memref<4xf32>) attributes {msmlir.gpu_inputs = 0 : i64, msmlir.gpu_resident = [0 : i64]} {
    %c1 = arith.constant 1 : index
    %t = memref.alloc() : memref<4xf32>
    gpu.launch_func @k::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%t : memref<4xf32>)
    gpu.launch_func @k::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%o : memref<4xf32>)
    memref.copy %t, %o : memref<4xf32> to memref<4xf32>
    memref.dealloc %t : memref<4xf32>
    return
  }
  gpu.module @k {
    gpu.func @k(%x: memref<4xf32>) kernel {
      gpu.return
    }
  }
}
