// Diagnostics of mindir-vmap: at the declaration for a bad mindir.vmap
// attribute, at the op whose batching rule cannot handle its operands.
// RUN: ms-opt %s --mindir-vmap --split-input-file --verify-diagnostics

func.func private @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
// expected-error @+1 {{mindir-vmap: in_axes/out_axes must have one entry per argument/result}}
func.func private @f_vmap(tensor<3x4xf32>) -> tensor<3x4xf32>
    attributes {mindir.vmap = {callee = @f, in_axes = [0 : i64, 0 : i64], out_axes = [0 : i64]}}

// -----

func.func private @f(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %0 = mindir.add %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
// expected-error @+1 {{mindir-vmap: batched arguments have different sizes (3 and 5) along their in_axes}}
func.func private @f_vmap(tensor<3x4xf32>, tensor<5x4xf32>) -> tensor<3x4xf32>
    attributes {mindir.vmap = {callee = @f, in_axes = [0 : i64, 0 : i64], out_axes = [0 : i64]}}

// -----

func.func private @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
// expected-error @+1 {{vmap: in_axes entry 2 out of range for rank 2}}
func.func private @f_vmap(tensor<3x4xf32>) -> tensor<3x4xf32>
    attributes {mindir.vmap = {callee = @f, in_axes = [2 : i64], out_axes = [0 : i64]}}

// -----

func.func private @f(%x: tensor<4xf32>) -> tensor<4xf32>
// expected-error @+1 {{vmap: @f is not a function with a body in this module}}
func.func private @f_vmap(tensor<3x4xf32>) -> tensor<3x4xf32>
    attributes {mindir.vmap = {callee = @f, in_axes = [0 : i64], out_axes = [0 : i64]}}

// -----

func.func private @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
// expected-error @+1 {{mindir-vmap: the batched results have types (tensor<3x4xf32>), the declaration (tensor<4x3xf32>)}}
func.func private @f_vmap(tensor<3x4xf32>) -> tensor<4x3xf32>
    attributes {mindir.vmap = {callee = @f, in_axes = [0 : i64], out_axes = [0 : i64]}}

// -----

func.func private @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = mindir.exp %x : tensor<4xf32>
  // expected-error @+1 {{vmap: out_axes is None for output 0, but it depends on the batched inputs}}
  return %0 : tensor<4xf32>
}
func.func private @f_vmap(tensor<3x4xf32>) -> tensor<4xf32>
    attributes {mindir.vmap = {callee = @f, in_axes = [0 : i64], out_axes = [unit]}}

// -----

func.func private @f(%p: tensor<5x4xf32>, %i: tensor<2xi32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{vmap: no batching rule for 'mindir.gather' with both the params and the indices batched}}
  %0 = "mindir.gather"(%p, %i) {axis = 0 : i64} : (tensor<5x4xf32>, tensor<2xi32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}
func.func private @f_vmap(tensor<3x5x4xf32>, tensor<3x2xi32>) -> tensor<3x2x4xf32>
    attributes {mindir.vmap = {callee = @f, in_axes = [0 : i64, 0 : i64], out_axes = [0 : i64]}}

// -----

func.func private @f(%x: tensor<4x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{vmap: no batching rule for 'mindir.layer_norm' with batched gamma/beta}}
  %0:3 = mindir.layer_norm %x, %g, %b {begin_norm_axis = 1 : i64, begin_params_axis = 1 : i64} : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4x1xf32>, tensor<4x1xf32>)
  return %0#0 : tensor<4x8xf32>
}
func.func private @f_vmap(tensor<4x8xf32>, tensor<3x8xf32>, tensor<8xf32>) -> tensor<3x4x8xf32>
    attributes {mindir.vmap = {callee = @f, in_axes = [unit, 0 : i64, unit], out_axes = [0 : i64]}}

// -----

func.func private @f(%i: tensor<4xi32>, %on: tensor<f32>, %off: tensor<f32>) -> tensor<4x10xf32> {
  // expected-error @+1 {{vmap: no batching rule for 'mindir.one_hot' with batched on/off values}}
  %0 = mindir.one_hot %i, %on, %off {depth = 10 : i64} : (tensor<4xi32>, tensor<f32>, tensor<f32>) -> tensor<4x10xf32>
  return %0 : tensor<4x10xf32>
}
func.func private @f_vmap(tensor<4xi32>, tensor<3xf32>, tensor<f32>) -> tensor<3x4x10xf32>
    attributes {mindir.vmap = {callee = @f, in_axes = [unit, 0 : i64, unit], out_axes = [0 : i64]}}

// -----

func.func private @f(%x: tensor<1x3x8x8xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<1x8x6x6xf32> {
  // expected-error @+1 {{vmap: no batching rule for 'mindir.conv2d' with operand 1 batched}}
  %0 = mindir.conv2d %x, %w : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x6x6xf32>
  return %0 : tensor<1x8x6x6xf32>
}
func.func private @f_vmap(tensor<1x3x8x8xf32>, tensor<2x8x3x3x3xf32>) -> tensor<2x1x8x6x6xf32>
    attributes {mindir.vmap = {callee = @f, in_axes = [unit, 0 : i64], out_axes = [0 : i64]}}

// -----

func.func private @f(%x: tensor<3xf32>, %i: index) -> f32 {
  // expected-error @+1 {{vmap: no batching rule for 'tensor.extract' of a batched tensor with more than one element per example}}
  %0 = tensor.extract %x[%i] : tensor<3xf32>
  return %0 : f32
}
func.func private @f_vmap(tensor<2x3xf32>, index) -> tensor<2xf32>
    attributes {mindir.vmap = {callee = @f, in_axes = [0 : i64, unit], out_axes = [0 : i64]}}

// -----

func.func private @f(%c: tensor<i1>) -> tensor<f32> {
  %b = tensor.extract %c[] : tensor<i1>
  // expected-error @+1 {{vmap: scf.if on a batched condition yielding a scalar}}
  %r = scf.if %b -> f32 {
    %one = arith.constant 1.0 : f32
    scf.yield %one : f32
  } else {
    %two = arith.constant 2.0 : f32
    scf.yield %two : f32
  }
  %t = tensor.from_elements %r : tensor<f32>
  return %t : tensor<f32>
}
func.func private @f_vmap(tensor<4xi1>) -> tensor<4xf32>
    attributes {mindir.vmap = {callee = @f, in_axes = [0 : i64], out_axes = [0 : i64]}}

// -----

func.func private @f(%c: tensor<i1>) -> i1 {
  %b = tensor.extract %c[] : tensor<i1>
  // expected-error @+1 {{vmap: a function returns a batched scalar}}
  return %b : i1
}
func.func private @f_vmap(tensor<4xi1>) -> tensor<4xi1>
    attributes {mindir.vmap = {callee = @f, in_axes = [0 : i64], out_axes = [0 : i64]}}

// -----

func.func private @f(%c: tensor<i1>) -> i1 {
  %b = tensor.extract %c[] : tensor<i1>
  %lb = arith.constant 0 : index
  %ub = arith.constant 2 : index
  %st = arith.constant 1 : index
  // expected-error @+1 {{vmap: a loop carrying a batched scalar}}
  %r = scf.for %i = %lb to %ub step %st iter_args(%a = %b) -> (i1) {
    scf.yield %a : i1
  }
  return %r : i1
}
func.func private @f_vmap(tensor<4xi1>) -> tensor<4xi1>
    attributes {mindir.vmap = {callee = @f, in_axes = [0 : i64], out_axes = [0 : i64]}}

// -----

func.func private @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{vmap: host callback @msmlir_host_unknown is not registered in this process}}
  %0 = "mindir.host_callback"(%x) {callee = @msmlir_host_unknown, origin = "f"} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @f_vmap(tensor<3x4xf32>) -> tensor<3x4xf32>
    attributes {mindir.vmap = {callee = @f, in_axes = [0 : i64], out_axes = [0 : i64]}}
