// RUN: ms-opt %s --convert-mindir-to-linalg --verify-diagnostics

// A collective's `group` names a group: anything but a non-empty string is an
// error at the op.
func.func @f(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // expected-error @below {{mindir.all_reduce: `group` must be a non-empty string (a group name given to create_group), got 3 : i64}}
  %a = mindir.all_reduce %x {group = 3 : i64, op = #mindir.reduce_op<sum>} : tensor<4xf32>
  // expected-error @below {{mindir.broadcast: `group` must be a non-empty string}}
  %b = mindir.broadcast %x {group = "", root = 0 : i64} : tensor<4xf32>
  return %a, %b : tensor<4xf32>, tensor<4xf32>
}
