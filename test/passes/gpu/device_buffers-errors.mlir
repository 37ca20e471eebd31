// RUN: ms-opt %s --split-input-file --verify-diagnostics --msmlir-gpu-device-buffers

// The host reading a tensor's element (control flow on a tensor value)
// cannot work on device buffers.
func.func @f(%a: memref<4xf32>, %o: memref<f32>) attributes {msmlir.gpu_inputs = 1 : i64} {
  %c0 = arith.constant 0 : index
  // expected-error @below {{msmlir-gpu-device-buffers: host op 'memref.load' cannot work on device buffers}}
  %v = memref.load %a[%c0] : memref<4xf32>
  memref.store %v, %o[] : memref<f32>
  return
}

// -----

// A kernel function that was not inlined: the call is rejected at its location.
func.func private @k(%a: memref<4xf32>)
func.func @g(%a: memref<4xf32>) {
  // expected-error @below {{host op 'func.call' cannot work on device buffers (inline the kernel functions first}}
  call @k(%a) : (memref<4xf32>) -> ()
  return
}

// -----

// A strided argument has no contiguous device twin.
// expected-error @below {{msmlir-gpu-device-buffers: a public function's argument 0 has a strided layout}}
func.func @h(%a: memref<4xf32, strided<[2]>>) {
  return
}

// -----

// msmlir.gpu_resident must name memref arguments.
// expected-error @below {{msmlir-gpu-device-buffers: 'msmlir.gpu_resident' names argument 2, which is not a memref argument of the function}}
func.func @r(%a: memref<4xf32>, %b: memref<4xf32>) attributes {msmlir.gpu_resident = [2 : i64]} {
  return
}

// -----

// expected-error @below {{msmlir-gpu-device-buffers: 'msmlir.gpu_resident' must be an array of argument indices}}
func.func @s(%a: memref<4xf32>) attributes {msmlir.gpu_resident = 1 : i64} {
  return
}
