// RUN: ms-opt %s --convert-mindir-to-linalg | FileCheck %s

// Every mindir op is replaced by its lowering (per-op tests:
// mindir_to_linalg/*.mlir); the rest of the IR is left as it is.
// CHECK-LABEL: func.func @f
// CHECK-NOT:     mindir.
// CHECK:         linalg.generic
// CHECK:           math.exp
// CHECK:         return
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = mindir.exp %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
