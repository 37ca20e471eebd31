// RUN: ms-opt %s --split-input-file --verify-diagnostics --mindir-functionalize-assign | FileCheck %s

// The assign disappears; the new value becomes an extra result written back
// into argument 0 by the runtime; later reads of the parameter see it.
// CHECK-LABEL: func.func @step
// CHECK-SAME: -> (tensor<f32>, tensor<4xf32>)
// CHECK-SAME: msmlir.writeback = {{\[}}[1, 0]]
// CHECK-NOT: mindir.assign
// CHECK: %[[NEW:.*]] = mindir.sub %arg0, %{{.*}}
// CHECK: %[[S:.*]] = mindir.reduce_sum %[[NEW]]
// CHECK: %[[D:.*]] = mindir.depend %[[S]]
// CHECK: return %[[D]], %[[NEW]] : tensor<f32>, tensor<4xf32>
func.func @step(%p: tensor<4xf32>, %g: tensor<4xf32>) -> tensor<f32> {
  %n = mindir.sub %p, %g : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %a = mindir.assign %p, %n : tensor<4xf32>
  %s = mindir.reduce_sum %p : (tensor<4xf32>) -> tensor<f32>
  %r = mindir.depend %s after %a : tensor<4xf32> : tensor<f32>
  return %r : tensor<f32>
}

// -----

func.func private @helper(%p: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{mindir.assign in a function that was not inlined into its caller}}
  %a = mindir.assign %p, %p : tensor<4xf32>
  return %a : tensor<4xf32>
}

// -----

func.func @not_a_param(%p: tensor<4xf32>) -> tensor<4xf32> {
  %n = mindir.exp %p : tensor<4xf32>
  // expected-error @+1 {{mindir.assign must update a parameter}}
  %a = mindir.assign %n, %p : tensor<4xf32>
  return %a : tensor<4xf32>
}

// -----

// Two assigns to one parameter (a forward clamp, then the optimizer update):
// reads between them see the first value, the second reads it too, the last
// value is written back once.
// CHECK-LABEL: func.func @two_writes
// CHECK-SAME: -> (tensor<f32>, tensor<2xf32>)
// CHECK-SAME: msmlir.writeback = {{\[}}[1, 0]]
// CHECK-NOT: mindir.assign
// CHECK: %[[C:.*]] = mindir.relu %arg0
// CHECK: %[[M:.*]] = mindir.mul %[[C]], %arg1
// CHECK: %[[L:.*]] = mindir.reduce_sum %[[M]]
// CHECK: %[[U:.*]] = mindir.sub %[[C]], %arg1
// CHECK: return %[[L]], %[[U]] : tensor<f32>, tensor<2xf32>
func.func @two_writes(%w: tensor<2xf32>, %x: tensor<2xf32>) -> tensor<f32> {
  %c = mindir.relu %w : tensor<2xf32>
  %a = mindir.assign %w, %c : tensor<2xf32>
  %m = mindir.mul %w, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %l = mindir.reduce_sum %m : (tensor<2xf32>) -> tensor<f32>
  %u = mindir.sub %w, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %b = mindir.assign %w, %u : tensor<2xf32>
  return %l : tensor<f32>
}
