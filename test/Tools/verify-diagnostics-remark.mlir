// Remarks (here from the transform interpreter) and parse errors are verified.
// RUN: ms-opt %s --split-input-file --verify-diagnostics --transform-interpreter | FileCheck %s

// CHECK: func.func @k()
module attributes {transform.with_named_sequence} {
  func.func @k() -> i32 {
    // expected-remark @below {{found a constant}}
    %0 = arith.constant 1 : i32
    return %0 : i32
  }
  transform.named_sequence @__transform_main(%arg0: !transform.any_op) {
    %c = transform.structured.match ops{["arith.constant"]} in %arg0 : (!transform.any_op) -> !transform.any_op
    transform.debug.emit_remark_at %c, "found a constant" : !transform.any_op
    transform.yield
  }
}

// -----

func.func @parse_error() {
  // expected-error @+1 {{custom op 'mindir.bogus' is unknown}}
  %0 = mindir.bogus
}
