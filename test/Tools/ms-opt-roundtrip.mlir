// RUN: ms-opt %s | FileCheck %s
// Printed output parses back to the same IR.
// RUN: ms-opt %s | ms-opt | FileCheck %s
// Input from stdin.
// RUN: ms-opt < %s | FileCheck %s
// RUN: ms-opt - < %s | FileCheck %s

// CHECK-LABEL: module {
// CHECK-LABEL:   func.func @f(
// CHECK-SAME:        %[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<3xf32>) -> tensor<2x3xf32> {
// CHECK-NEXT:      %[[ADD:.*]] = mindir.add %[[A]], %[[B]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:      %[[EXP:.*]] = mindir.exp %[[ADD]] : tensor<2x3xf32>
// CHECK-NEXT:      return %[[EXP]] : tensor<2x3xf32>
// CHECK-NEXT:    }
func.func @f(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = mindir.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = mindir.exp %0 : tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// A second top-level op: both end up in one implicit module.
// CHECK-LABEL:   func.func @g(
// CHECK-NEXT:      return
// CHECK-NEXT:    }
// CHECK-NEXT:  }
func.func @g() {
  return
}
