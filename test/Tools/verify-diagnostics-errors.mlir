// Unmatched expectations and unexpected diagnostics fail (exit 1) with
// mlir-opt's messages: unexpected ones as they come, missing ones at the end.
// RUN: not ms-opt %S/Inputs/verify-diagnostics-bad.mlir --split-input-file --verify-diagnostics 2>&1 | FileCheck %s
// Exit status alone: the same input fails.
// RUN: not ms-opt %S/Inputs/verify-diagnostics-bad.mlir --split-input-file --verify-diagnostics 2>/dev/null >/dev/null

// CHECK:      verify-diagnostics-bad.mlir:4:8: error: unexpected error: 'mindir.reshape' op failed to infer returned types
// CHECK-NEXT: {{^}}  %0 = mindir.reshape %a
// CHECK-NEXT: {{^}}       ^{{$}}
// CHECK-NOT:  see current operation
// Kind mismatch: a near miss, reported at the expectation.
// CHECK:      verify-diagnostics-bad.mlir:22:4: error: 'error' diagnostic emitted when expecting a 'warning'
// CHECK:      verify-diagnostics-bad.mlir:33:8: error: unexpected error: cannot reshape [2, 3] (6 elements) to [4, 2] (8 elements)
// Missing expectations come last, in file order, with the expected text underlined.
// CHECK:      verify-diagnostics-bad.mlir:11:6: error: expected warning "no such warning" was not produced
// CHECK-NEXT: {{^}}  // expected-warning @+1 {{[{][{]}}no such warning{{[}][}]}}
// CHECK-NEXT: {{^}}     ^~~~~~~~~~~~~~~{{$}}
// CHECK:      verify-diagnostics-bad.mlir:22:4: error: expected warning "redefinition of symbol named 'dup'" was not produced
// CHECK:      verify-diagnostics-bad.mlir:31:6: error: expected error "cannot reshape {{[{][{]}}.*{{[}][}]}} elements" was not produced
// CHECK-NOT:  error:

// --verify-diagnostics=only-expected ignores the unexpected ones (and near
// misses) but still fails on the missing ones.
// RUN: not ms-opt %S/Inputs/verify-diagnostics-bad.mlir --split-input-file --verify-diagnostics=only-expected 2>&1 | FileCheck %s --check-prefix=ONLY
// ONLY-NOT:  unexpected error
// ONLY-NOT:  diagnostic emitted when expecting
// ONLY:      verify-diagnostics-bad.mlir:11:6: error: expected warning "no such warning" was not produced
