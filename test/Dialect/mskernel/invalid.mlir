// Diagnostics of the mskernel dialect.
// RUN: ms-opt %s --split-input-file --verify-diagnostics

func.func @arg_count(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'mskernel.fused' op kernel body has 1 arguments but the kernel has 2 inputs}}
  %r = mskernel.fused(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    mskernel.yield %x : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @arg_type(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'mskernel.fused' op kernel body argument #0 has type 'tensor<4xf16>' but input #0 has type 'tensor<4xf32>'}}
  %r = mskernel.fused(%a) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf16>):
    %y = mindir.cast %x : tensor<4xf16> to tensor<4xf32>
    mskernel.yield %y : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @yield_types(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'mskernel.fused' op yielded types 'tensor<4xi1>' do not match the kernel results 'tensor<4xf32>'}}
  %r = mskernel.fused(%a) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    %n = mindir.isnan %x : (tensor<4xf32>) -> tensor<4xi1>
    mskernel.yield %n : tensor<4xi1>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @yield_count(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'mskernel.fused' op yielded types 'tensor<4xf32>', 'tensor<4xf32>' do not match the kernel results 'tensor<4xf32>'}}
  %r = mskernel.fused(%a) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    mskernel.yield %x, %x : tensor<4xf32>, tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @bad_target(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{expected ::msmlir::mskernel::KernelTarget to be one of: cpu, gpu, ascend}}
  // expected-error @+1 {{failed to parse MSKernel_TargetAttr parameter 'value'}}
  %r = mskernel.fused(%a) {target = #mskernel.target<tpu>} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    mskernel.yield %x : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @target_string(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'mskernel.fused' op attribute 'target' failed to satisfy constraint: device of a kernel: cpu, gpu or ascend}}
  %r = mskernel.fused(%a) {target = "gpu"} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    mskernel.yield %x : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @bad_kind(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{expected ::msmlir::mskernel::FusionKind to be one of: compute, elemwise, broadcast, reduce, matmul, conv, opaque}}
  // expected-error @+1 {{failed to parse MSKernel_KindAttr parameter 'value'}}
  %r = mskernel.fused(%a) {kind = #mskernel.kind<injective>} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    mskernel.yield %x : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @kind_string(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'mskernel.fused' op attribute 'kind' failed to satisfy constraint: kind of a fused kernel, read by the kernel scheduler}}
  %r = mskernel.fused(%a) {kind = "elemwise"} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    mskernel.yield %x : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @isolated(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-note @+1 {{required by region isolation constraints}}
  %r = mskernel.fused() : () -> tensor<4xf32> {
    // expected-error @+1 {{'mindir.neg' op using value defined outside the region}}
    %n = mindir.neg %a : tensor<4xf32>
    mskernel.yield %n : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @yield_outside(%a: tensor<4xf32>) {
  // expected-error @+1 {{'mskernel.yield' op expects parent op 'mskernel.fused'}}
  mskernel.yield %a : tensor<4xf32>
}

// -----

// expected-error @+2 {{expected ::msmlir::mskernel::MemoryScope to be one of: global, ub, l1, l0a, l0b, l0c, shared, local}}
// expected-error @+1 {{failed to parse MSKernel_ScopeAttr parameter 'value' which is to be a `::msmlir::mskernel::MemoryScope`}}
func.func @bad_scope(%m: memref<4xf32, #mskernel.scope<hbm>>) {
  return
}
