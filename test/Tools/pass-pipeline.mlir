// --pass-pipeline mixes upstream passes (also nested ones) with ours.
// RUN: ms-opt %s --pass-pipeline='builtin.module(convert-mindir-to-linalg,canonicalize,func.func(cse))' | FileCheck %s
// -p is the short spelling.
// RUN: ms-opt %s -p 'builtin.module(convert-mindir-to-linalg,canonicalize,func.func(cse))' | FileCheck %s
// The passes run in the order given (IR printing names them).
// RUN: ms-opt %s --pass-pipeline='builtin.module(convert-mindir-to-linalg,canonicalize,func.func(cse))' --mlir-print-ir-after-all 2>&1 >/dev/null | FileCheck %s --check-prefix=ORDER
// Flags and a pipeline combine in command-line order.
// RUN: ms-opt %s --pass-pipeline='builtin.module(convert-mindir-to-linalg)' --cse --mlir-print-ir-after-all 2>&1 >/dev/null | FileCheck %s --check-prefix=MIXED

// CHECK-LABEL: func.func @f(
// CHECK-NOT:     mindir.
// CHECK:         %[[E0:.*]] = tensor.empty() : tensor<2x3xf32>
// CHECK:         linalg.generic
// CHECK:           arith.addf
// CHECK-NOT:     tensor.empty
// CHECK:         linalg.generic
// CHECK:           math.exp
// CHECK-NOT:     mindir.
// ORDER:      IR Dump After convert-mindir-to-linalg
// ORDER:      IR Dump After Canonicalizer (canonicalize)
// ORDER:      IR Dump After CSE (cse)
// MIXED:      IR Dump After convert-mindir-to-linalg
// MIXED:      IR Dump After CSE (cse)
func.func @f(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = mindir.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = mindir.exp %0 : tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}
