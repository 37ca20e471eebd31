// When upstream MLIR aborts on an input (docs/known-issues.md: the parser on
// `array<index: ...>`), ms-opt says what it was doing and on which input
// before the process dies, as mlir-opt's stack dump does.
// RUN: not --crash ms-opt %s --split-input-file --canonicalize 2>&1 | FileCheck %s

func.func @fine() { return }

// -----

func.func @f() attributes {a = array<index: 1>} { return }

// CHECK: ms-opt: crashed while parsing, verifying and running the passes on {{.*}}crash-context.mlir, lines 8-14 (chunk 2 of 2 of --split-input-file).
// CHECK: ms-opt: reproduce with: ms-opt {{.*}}crash-context.mlir --split-input-file --canonicalize
