// Several top-level ops go into one implicit module, whatever their layout
// (an op on line 1, an alias between ops), and locations stay exact.
// RUN: ms-opt %s | FileCheck %s
// RUN: ms-opt %S/Inputs/top-level-ops.mlir | FileCheck %s --check-prefix=LAYOUT
// RUN: ms-opt %S/Inputs/top-level-ops.mlir --mlir-print-debuginfo | FileCheck %s --check-prefix=LOCS
// RUN: not ms-opt %S/Inputs/top-level-ops-invalid.mlir 2>&1 | FileCheck %s --check-prefix=ERR
// The printed output (one explicit module) parses back without a second wrapper.
// RUN: ms-opt %S/Inputs/top-level-ops.mlir | ms-opt | FileCheck %s --check-prefix=LAYOUT
// The thin entry of the source tree behaves the same.
// RUN: %python %S/../../tools/ms-opt %S/Inputs/top-level-ops.mlir | FileCheck %s --check-prefix=LAYOUT

// CHECK:      #map = affine_map<(d0) -> (d0 + 2)>
// CHECK-NEXT: module {
// CHECK-NEXT:   func.func @x() attributes {m = #map} {
// CHECK:        func.func @y() {
// CHECK:      }
// CHECK-NOT:  module

// LAYOUT:      #map = affine_map<(d0) -> (d0 + 1)>
// LAYOUT-NEXT: module {
// LAYOUT-NEXT:   func.func @a() {
// LAYOUT:        func.func @b() attributes {m = #map} {
// LAYOUT-NOT:  module

// LOCS:      } loc(#[[A:loc[0-9]*]])
// LOCS:      } loc(#[[B:loc[0-9]*]])
// LOCS:      } loc(#[[M:loc[0-9]*]])
// LOCS-DAG:  #[[M]] = loc("{{.*}}top-level-ops.mlir":0:0)
// LOCS-DAG:  #[[A]] = loc("{{.*}}top-level-ops.mlir":1:1)
// LOCS-DAG:  #[[B]] = loc("{{.*}}top-level-ops.mlir":3:1)
// LOCS-NOT:  loc("-"

// ERR: top-level-ops-invalid.mlir:4:3: error: 'func.return' op has 0 operands, but enclosing function (@b) returns 1

#map = affine_map<(d0) -> (d0 + 2)>
func.func @x() attributes {m = #map} {
  return
}
func.func @y() {
  return
}
