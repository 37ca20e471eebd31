// --mlir-print-ir-after-all prints the IR after every pass (ours and upstream)
// on stderr; stdout keeps only the final IR.
// RUN: ms-opt %s --convert-mindir-to-linalg --canonicalize --mlir-print-ir-after-all 2>&1 >/dev/null | FileCheck %s
// RUN: ms-opt %s --convert-mindir-to-linalg --canonicalize --mlir-print-ir-after-all 2>/dev/null | FileCheck %s --check-prefix=STDOUT
// RUN: ms-opt %s --canonicalize --mlir-print-ir-before-all 2>&1 >/dev/null | FileCheck %s --check-prefix=BEFORE
// --mlir-timing reports each pass.
// RUN: ms-opt %s --convert-mindir-to-linalg --cse --mlir-timing 2>&1 >/dev/null | FileCheck %s --check-prefix=TIMING

// CHECK:      // -----// IR Dump After convert-mindir-to-linalg (convert-mindir-to-linalg) //----- //
// CHECK:      func.func @f(
// CHECK:        linalg.generic
// CHECK:        math.exp
// CHECK:      // -----// IR Dump After Canonicalizer (canonicalize) //----- //
// CHECK:      func.func @f(
// CHECK-NOT:  IR Dump

// STDOUT-NOT: IR Dump
// STDOUT:     func.func @f(
// STDOUT:       linalg.generic

// BEFORE:      // -----// IR Dump Before Canonicalizer (canonicalize) //----- //
// BEFORE-NEXT: module {
// BEFORE-NEXT:   func.func @f(
// BEFORE-NEXT:     mindir.exp

// TIMING:      Execution time report
// TIMING:      Total Execution Time:
// TIMING:      convert-mindir-to-linalg
// TIMING:      CSE
// TIMING:      Total
func.func @f(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = mindir.exp %a : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
