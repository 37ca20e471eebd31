// Diagnostics of assign, depend and grad.
// RUN: ms-opt %s --split-input-file --verify-diagnostics

func.func @assign_types(%w: tensor<4xf32>, %v: tensor<4xf16>) -> tensor<4xf32> {
  // expected-error @+1 {{'mindir.assign' op failed to verify that all of {variable, value, result} have same type}}
  %0 = "mindir.assign"(%w, %v) : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @assign_dynamic(%w: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{'mindir.assign' op operand #0 must be statically shaped tensor}}
  %0 = mindir.assign %w, %w : tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

func.func @depend_types(%x: tensor<4xf32>) -> tensor<4xi32> {
  // expected-error @+1 {{'mindir.depend' op failed to verify that all of {value, result} have same type}}
  %0 = "mindir.depend"(%x) : (tensor<4xf32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @grad_not_a_function(%x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'mindir.grad' op 'nope' does not reference a function}}
  %0 = mindir.grad @nope(%x) {grad_position = array<i64: 0>} : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func private @f(%x: tensor<3xf32>) -> tensor<f32>

func.func @grad_inputs(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'mindir.grad' op inputs 'tensor<4xf32>' do not match the parameters 'tensor<3xf32>' of @f}}
  %0 = mindir.grad @f(%x) {grad_position = array<i64: 0>} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func private @f(%x: tensor<3xf32>) -> tensor<f32>

func.func @grad_position(%x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'mindir.grad' op grad_position 1 is out of range for @f with 1 parameters}}
  %0 = mindir.grad @f(%x) {grad_position = array<i64: 1>} : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func private @f(%x: tensor<3xf32>) -> tensor<f32>

func.func @grad_results(%x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'mindir.grad' op result types 'tensor<3xf32>' do not match 'tensor<f32>', 'tensor<3xf32>'}}
  %0 = mindir.grad @f(%x) {grad_position = array<i64: 0>, return_value} : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func private @f(%x: tensor<3xf32>) -> tensor<f32>

func.func @grad_sens(%x: tensor<3xf32>, %s: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'mindir.grad' op sens 'tensor<3xf32>' must match the differentiated results 'tensor<f32>'}}
  %0 = mindir.grad @f(%x) sens(%s : tensor<3xf32>) {grad_position = array<i64: 0>} : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func private @g(%x: tensor<3xf32>)

func.func @grad_has_aux_no_results(%x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'mindir.grad' op has_aux needs a callee with at least one result}}
  %0 = mindir.grad @g(%x) {grad_position = array<i64: 0>, has_aux} : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @host_callback_dynamic(%x: tensor<?xf32>) {
  // expected-error @+1 {{'mindir.host_callback' op operand #0 must be variadic of statically shaped tensor}}
  mindir.host_callback @cb "f" (%x) : (tensor<?xf32>) -> ()
  return
}

// -----

func.func @host_callback_origin(%x: tensor<2xf32>) {
  // expected-error @+1 {{'mindir.host_callback' op requires attribute 'origin'}}
  "mindir.host_callback"(%x) {callee = @cb} : (tensor<2xf32>) -> ()
  return
}

// -----

// Element types the compiler cannot handle are rejected by the verifier.
func.func @f(%x: tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>> {
  return %x : tensor<2xcomplex<f32>>
}
func.func @grad_of_complex(%x: tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>> {
  // expected-error @+1 {{'mindir.grad' op operand #0 must be variadic of statically shaped tensor (at most 2^63-1 bytes) of f16, bf16, f32, f64, i1, i8, i32 or i64 values, but got 'tensor<2xcomplex<f32>>'}}
  %d = mindir.grad @f(%x) {grad_position = array<i64: 0>} : (tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>>
  return %d : tensor<2xcomplex<f32>>
}
