// Diagnostics of mindir-autodiff about the differentiated function: at the
// mindir.grad (an external callee), at the function (gradient recursion), at the
// op a gradient cannot flow through (host callbacks).
// RUN: ms-opt %s --mindir-autodiff --split-input-file --verify-diagnostics

func.func private @ext(%x: tensor<3xf64>) -> tensor<3xf64>
func.func @main(%x: tensor<3xf64>) -> tensor<3xf64> {
  // expected-error @+1 {{mindir-autodiff: cannot differentiate the external function @ext (it has no body)}}
  %g = mindir.grad @ext(%x) {grad_position = array<i64: 0>} : (tensor<3xf64>) -> tensor<3xf64>
  return %g : tensor<3xf64>
}

// -----

// expected-error @+1 {{mindir-autodiff: @self takes its own gradient (recursion through mindir.grad)}}
func.func @self(%x: tensor<f64>) -> tensor<f64> {
  %g = mindir.grad @self(%x) {grad_position = array<i64: 0>} : (tensor<f64>) -> tensor<f64>
  return %g : tensor<f64>
}
func.func @main(%x: tensor<f64>) -> tensor<f64> {
  %g = mindir.grad @self(%x) {grad_position = array<i64: 0>} : (tensor<f64>) -> tensor<f64>
  return %g : tensor<f64>
}

// -----

func.func @cb(%x: tensor<3xf64>) -> tensor<3xf64> {
  // expected-error @+1 {{mindir-autodiff: no gradient through np.sort: it runs in the Python interpreter at run time (JIT Fallback)}}
  %y = "mindir.host_callback"(%x) {callee = @msmlir_host_0, origin = "np.sort"} : (tensor<3xf64>) -> tensor<3xf64>
  return %y : tensor<3xf64>
}
func.func @main(%x: tensor<3xf64>) -> tensor<3xf64> {
  %g = mindir.grad @cb(%x) {grad_position = array<i64: 0>} : (tensor<3xf64>) -> tensor<3xf64>
  return %g : tensor<3xf64>
}

// -----

// A loop whose static trip count does not fit in int64 cannot keep each
// iteration's values (it was a Python TypeError).
func.func @long_loop(%x: tensor<f32>) -> tensor<f32> {
  %lb = arith.constant -9223372036854775808 : index
  %ub = arith.constant 4 : index
  %st = arith.constant 1 : index
  // expected-error @+1 {{mindir-autodiff: the scf.for from -9223372036854775808 to 4 step 1 runs 9223372036854775812 times, too many to keep each iteration's values for the gradient}}
  %r = scf.for %i = %lb to %ub step %st iter_args(%a = %x) -> (tensor<f32>) {
    %s = mindir.sin %a : tensor<f32>
    scf.yield %s : tensor<f32>
  }
  return %r : tensor<f32>
}
func.func @grad_long_loop(%x: tensor<f32>) -> tensor<f32> {
  %d = mindir.grad @long_loop(%x) {grad_position = array<i64: 0>} : (tensor<f32>) -> tensor<f32>
  return %d : tensor<f32>
}
