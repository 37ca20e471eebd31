// Printing flags: generic form, locations (file:line:col of this file), and
// unregistered dialects.
// RUN: ms-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// RUN: ms-opt %s --mlir-print-debuginfo | FileCheck %s --check-prefix=DEBUG
// RUN: ms-opt %s --split-input-file --mlir-print-debuginfo | FileCheck %s --check-prefix=DEBUG
// Generic output parses back.
// RUN: ms-opt %s --mlir-print-op-generic | ms-opt | FileCheck %s --check-prefix=PRETTY

// GENERIC:      "builtin.module"() ({
// GENERIC-NEXT:   "func.func"() <{function_type = (tensor<2x3xf32>) -> tensor<2x3xf32>, sym_name = "f"}> ({
// GENERIC-NEXT:   ^bb0(%[[A:.*]]: tensor<2x3xf32>):
// GENERIC-NEXT:     %[[E:.*]] = "mindir.exp"(%[[A]]) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GENERIC-NEXT:     "func.return"(%[[E]]) : (tensor<2x3xf32>) -> ()

// DEBUG:     mindir.exp %{{.*}} : tensor<2x3xf32> loc(#[[L:loc[0-9]*]])
// DEBUG:     #[[L]] = loc("{{.*}}print-flags.mlir":[[# @LINE + 5]]:8)

// PRETTY:      func.func @f(%[[A:.*]]: tensor<2x3xf32>) -> tensor<2x3xf32> {
// PRETTY-NEXT:   mindir.exp %[[A]] : tensor<2x3xf32>
func.func @f(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = mindir.exp %a : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
