// Diagnostics that match their expected-* comments pass (exit 0), with every
// designator form; chunks without errors still print.
// RUN: ms-opt %s --split-input-file --verify-diagnostics | FileCheck %s
// The same file without --verify-diagnostics fails and shows the errors.
// RUN: not ms-opt %s --split-input-file 2>&1 >/dev/null | FileCheck %s --check-prefix=PLAIN

// PLAIN: verify-diagnostics.mlir:[[# @LINE + 5]]:8: error: cannot reshape [2, 3] (6 elements) to [4, 2] (8 elements)
// PLAIN: verify-diagnostics.mlir:[[# @LINE + 4]]:8: error: 'mindir.reshape' op failed to infer returned types
func.func @reshape_plus(%a: tensor<2x3xf32>) -> tensor<4x2xf32> {
  // expected-error @+2 {{cannot reshape [2, 3] (6 elements) to [4, 2] (8 elements)}}
  // expected-error @+1 {{'mindir.reshape' op failed to infer returned types}}
  %0 = mindir.reshape %a {shape = array<i64: 4, 2>} : (tensor<2x3xf32>) -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// -----

func.func @reshape_above(%a: tensor<2x3xf32>) -> tensor<4x2xf32> {
  %0 = mindir.reshape %a {shape = array<i64: 4, 2>} : (tensor<2x3xf32>) -> tensor<4x2xf32>
  // expected-error @above {{cannot reshape}}
  // expected-error @-2 {{failed to infer returned types}}
  return %0 : tensor<4x2xf32>
}

// -----

func.func @reshape_below(%a: tensor<2x3xf32>) -> tensor<4x2xf32> {
  // expected-error @below {{(6 elements) to [4, 2] (8 elements)}}
  // expected-error @below {{op failed to infer}}
  %0 = mindir.reshape %a {shape = array<i64: 4, 2>} : (tensor<2x3xf32>) -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// -----

// Same line (no designator), and an -re expectation with a regex block.
func.func @same_line(%a: tensor<2x3xf32>) -> tensor<4x2xf32> {
  // expected-error-re @+1 {{op failed to {{[a-z]+}} returned types}}
  %0 = mindir.reshape %a {shape = array<i64: 4, 2>} : (tensor<2x3xf32>) -> tensor<4x2xf32> // expected-error {{cannot reshape}}
  return %0 : tensor<4x2xf32>
}

// -----

// Notes are matched too.
// expected-note @below {{see existing symbol definition here}}
func.func @twice() {
  return
}
// expected-error @below {{redefinition of symbol named 'twice'}}
func.func @twice() {
  return
}

// -----

// A chunk without diagnostics is printed.
// CHECK-LABEL: func.func @fine
// CHECK-NEXT:    mindir.exp
func.func @fine(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = mindir.exp %a : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
