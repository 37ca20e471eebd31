// Diagnostics of mindir-autodiff, at the location of the offending op.
// RUN: ms-opt %s --mindir-autodiff --split-input-file --verify-diagnostics

func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  // expected-error @+1 {{mindir-autodiff: no gradient rule (bprop) for 'math.exp'}}
  %e = math.exp %x : tensor<3xf64>
  return %e : tensor<3xf64>
}
func.func @main(%x: tensor<3xf64>) -> tensor<3xf64> {
  %g = mindir.grad @f(%x) {grad_position = array<i64: 0>} : (tensor<3xf64>) -> tensor<3xf64>
  return %g : tensor<3xf64>
}

// -----

// expected-error @+1 {{mindir-autodiff: recursive function @r cannot be differentiated}}
func.func @r(%x: tensor<f64>) -> tensor<f64> {
  %y = call @r(%x) : (tensor<f64>) -> tensor<f64>
  return %y : tensor<f64>
}
func.func @main(%x: tensor<f64>) -> tensor<f64> {
  %g = mindir.grad @r(%x) {grad_position = array<i64: 0>} : (tensor<f64>) -> tensor<f64>
  return %g : tensor<f64>
}

// -----

// An op without a rule that no gradient reaches is fine (math.exp of a
// non-differentiated argument).
func.func @h(%x: tensor<3xf64>, %y: tensor<3xf64>) -> tensor<3xf64> {
  %e = math.exp %y : tensor<3xf64>
  %m = mindir.mul %x, %e : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  return %m : tensor<3xf64>
}
func.func @main(%x: tensor<3xf64>, %y: tensor<3xf64>) -> tensor<3xf64> {
  %g = mindir.grad @h(%x, %y) {grad_position = array<i64: 0>} : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  return %g : tensor<3xf64>
}
