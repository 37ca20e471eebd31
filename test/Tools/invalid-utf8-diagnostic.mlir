// A diagnostic whose message quotes bytes that are not valid UTF-8 is still
// reported at its location (it used to be dropped: exit 1, nothing printed).
// Here: the callee symbol @"\ff" quoted by "'...' does not reference a function".
// RUN: not ms-opt %s 2>&1 | FileCheck %s

// CHECK: invalid-utf8-diagnostic.mlir:[[@LINE+2]]:8: error: (message not shown: it holds bytes that are not valid UTF-8
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = mindir.grad @"\ff"(%x) {grad_position = array<i64: 0>} : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
