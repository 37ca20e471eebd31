// Each chunk is parsed and processed on its own; the outputs are joined by
// the split marker line; diagnostics carry line numbers of the whole file.
// RUN: not ms-opt %s --split-input-file 2>/dev/null | FileCheck %s
// RUN: not ms-opt %s --split-input-file --mlir-print-ir-after-failure 2>&1 >/dev/null | FileCheck %s --check-prefix=ERR
// Without --split-input-file the whole file is one module, which fails: no output.
// RUN: not ms-opt %s 2>/dev/null | count 0
// From stdin the buffer is called <stdin>.
// RUN: not ms-opt --split-input-file < %s 2>&1 >/dev/null | FileCheck %s --check-prefix=STDIN

// CHECK:      module {
// CHECK-NEXT:   func.func @a() {
// CHECK-NEXT:     return
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-EMPTY:
// CHECK-NEXT: // {{-----}}
// CHECK-NEXT: module {
// CHECK-NEXT:   func.func @a(%arg0: i32) -> i32 {
// CHECK-NEXT:     return %arg0 : i32
// CHECK-NEXT:   }
// CHECK-NEXT:   func.func @b() {
// CHECK-NEXT:     return
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-EMPTY:
// CHECK-NEXT: // {{-----}}
// The failing chunk prints nothing.
// CHECK-NEXT: // {{-----}}
// CHECK-NEXT: module {
// CHECK-NEXT:   func.func @d() {
// CHECK-NOT:  func.func

// ERR-NOT:  error
// ERR:      split-input-file.mlir:[[# @LINE + 23]]:3: error: 'func.return' op has 0 operands, but enclosing function (@c) returns 1
// ERR-NEXT: {{^}}  return{{$}}
// ERR-NEXT: {{^}}  ^{{$}}
// ERR-NOT:  error

// STDIN: <stdin>:[[# @LINE + 18]]:3: error: 'func.return' op has 0 operands

func.func @a() {
  return
}

// -----

func.func @a(%x: i32) -> i32 {
  return %x : i32
}
func.func @b() {
  return
}

// -----

func.func @c() -> i32 {
  return
}

// -----

func.func @d() {
  return
}
