// Input of verify-diagnostics-errors.mlir: expectations that do not hold.
func.func @unexpected(%a: tensor<2x3xf32>) -> tensor<4x2xf32> {
  // expected-error @+1 {{cannot reshape}}
  %0 = mindir.reshape %a {shape = array<i64: 4, 2>} : (tensor<2x3xf32>) -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// -----

func.func @missing(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-warning @+1 {{no such warning}}
  %0 = mindir.exp %a : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// expected-note @below {{see existing symbol definition here}}
func.func @dup() {
  return
}
// expected-warning @below {{redefinition of symbol named 'dup'}}
func.func @dup() {
  return
}

// -----

func.func @literal_braces(%a: tensor<2x3xf32>) -> tensor<4x2xf32> {
  // Without -re, {{...}} is literal text.
  // expected-error @+2 {{cannot reshape {{.*}} elements}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mindir.reshape %a {shape = array<i64: 4, 2>} : (tensor<2x3xf32>) -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}
