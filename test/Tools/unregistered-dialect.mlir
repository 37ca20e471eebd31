// Unregistered dialects are an error unless --allow-unregistered-dialect.
// RUN: not ms-opt %s 2>&1 | FileCheck %s --check-prefix=ERR
// RUN: ms-opt %s --allow-unregistered-dialect | FileCheck %s
// RUN: ms-opt %s --allow-unregistered-dialect --mlir-print-op-generic | ms-opt --allow-unregistered-dialect | FileCheck %s

// ERR: unregistered-dialect.mlir:[[# @LINE + 5]]:17: error: operation being parsed with an unregistered dialect
// CHECK-LABEL: func.func @f(
// CHECK-NEXT:    %[[R:.*]] = "foo.bar"(%{{.*}}) {attr = 1 : i64} : (i32) -> i32
// CHECK-NEXT:    return %[[R]] : i32
func.func @f(%x: i32) -> i32 {
  %0 = "foo.bar"(%x) {attr = 1} : (i32) -> i32
  return %0 : i32
}
