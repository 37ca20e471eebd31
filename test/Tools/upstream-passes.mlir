// Upstream MLIR passes as flags, with options in both spellings, mixed with
// ours and applied in command-line order.
// RUN: ms-opt %s --canonicalize --cse | FileCheck %s
// RUN: ms-opt %s -canonicalize -cse | FileCheck %s
// RUN: ms-opt %s --canonicalize='max-iterations=3 region-simplify=disabled' --cse | FileCheck %s
// RUN: ms-opt %s '--canonicalize{max-iterations=3 region-simplify=disabled}' --cse | FileCheck %s
// Without the passes the duplicates stay.
// RUN: ms-opt %s | FileCheck %s --check-prefix=NONE

// CHECK-LABEL: func.func @g(
// CHECK-SAME:      %[[X:.*]]: i32) -> i32 {
// CHECK-NEXT:    %[[S:.*]] = arith.muli %[[X]], %[[X]] : i32
// CHECK-NEXT:    %[[R:.*]] = arith.addi %[[S]], %[[S]] : i32
// CHECK-NEXT:    return %[[R]] : i32
// NONE-LABEL: func.func @g(
// NONE-COUNT-2: arith.muli
func.func @g(%x: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %0 = arith.addi %x, %c0 : i32
  %1 = arith.muli %0, %0 : i32
  %2 = arith.muli %x, %x : i32
  %3 = arith.addi %1, %2 : i32
  return %3 : i32
}

// Order matters: --convert-mindir-to-linalg then --canonicalize folds the
// lowered IR; the other order leaves canonicalize nothing to do on linalg.
// RUN: ms-opt %s --mlir-print-ir-after-all --convert-mindir-to-linalg --canonicalize 2>&1 >/dev/null | FileCheck %s --check-prefix=ORDER1
// ORDER1:      IR Dump After convert-mindir-to-linalg
// ORDER1:      module {
// ORDER1:      IR Dump After Canonicalizer (canonicalize)
// RUN: ms-opt %s --mlir-print-ir-after-all --canonicalize --convert-mindir-to-linalg 2>&1 >/dev/null | FileCheck %s --check-prefix=ORDER2
// ORDER2:      IR Dump After Canonicalizer (canonicalize)
// ORDER2:      IR Dump After convert-mindir-to-linalg
// RUN: ms-opt %s --convert-mindir-to-linalg --canonicalize --cse | FileCheck %s --check-prefix=LOWERED
// LOWERED-LABEL: func.func @f(
// LOWERED-NOT:     mindir.
// LOWERED:         linalg.generic
// LOWERED:         arith.addf
// LOWERED:         linalg.generic
// LOWERED:         math.exp
// LOWERED-NOT:     mindir.
func.func @f(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = mindir.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = mindir.exp %0 : tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}
