// RUN: ms-opt %s --split-input-file --mindir-hoist-assigns | FileCheck %s
// RUN: ms-opt %s --split-input-file --mindir-hoist-assigns --mindir-functionalize-assign | FileCheck %s --check-prefix=FUNC

// An assign in a loop body: the parameter becomes an iter_arg, reads inside
// see the carried value, the yield carries the assigned value, one assign after.
// CHECK-LABEL: func.func @for_loop
// CHECK:         %[[R:.*]]:2 = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[S:.*]] = %{{.*}}, %[[P:.*]] = %arg0)
// CHECK:           %[[N:.*]] = mindir.sub %[[P]], %arg1
// CHECK:           %[[T:.*]] = mindir.reduce_sum %[[N]]
// CHECK:           scf.yield %[[T]], %[[N]]
// CHECK:         mindir.assign %arg0, %[[R]]#1
// FUNC-LABEL: func.func @for_loop
// FUNC-SAME: msmlir.writeback = {{\[}}[1, 0]]
// FUNC-NOT: mindir.assign
func.func @for_loop(%p: tensor<4xf32>, %g: tensor<4xf32>) -> tensor<f32> {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c1 = arith.constant 1 : index
  %z = mindir.constant dense<0.0> : tensor<f32>
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%s = %z) -> (tensor<f32>) {
    %n = mindir.sub %p, %g : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %a = mindir.assign %p, %n : tensor<4xf32>
    %t = mindir.reduce_sum %p : (tensor<4xf32>) -> tensor<f32>
    scf.yield %t : tensor<f32>
  }
  return %r : tensor<f32>
}

// -----

// scf.while: carried through the condition region and the body.
// CHECK-LABEL: func.func @while_loop
// CHECK:         %[[W:.*]]:2 = scf.while (%[[I:.*]] = %{{.*}}, %[[PB:.*]] = %arg0)
// CHECK:           mindir.less
// CHECK:           scf.condition(%{{.*}}) %[[I]], %[[PB]]
// CHECK:         } do {
// CHECK:         ^bb0(%{{.*}}: tensor<i32>, %[[PA:.*]]: tensor<4xf32>):
// CHECK:           %[[N:.*]] = mindir.mul %[[PA]], %arg1
// CHECK:           scf.yield %{{.*}}, %[[N]]
// CHECK:         mindir.assign %arg0, %[[W]]#1
func.func @while_loop(%p: tensor<4xf32>, %g: tensor<4xf32>) -> tensor<i32> {
  %zero = mindir.constant dense<0> : tensor<i32>
  %one = mindir.constant dense<1> : tensor<i32>
  %n3 = mindir.constant dense<3> : tensor<i32>
  %r = scf.while (%i = %zero) : (tensor<i32>) -> tensor<i32> {
    %c = mindir.less %i, %n3 : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %b = tensor.extract %c[] : tensor<i1>
    scf.condition(%b) %i : tensor<i32>
  } do {
  ^bb0(%j: tensor<i32>):
    %n = mindir.mul %p, %g : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %a = mindir.assign %p, %n : tensor<4xf32>
    %k = mindir.add %j, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
    scf.yield %k : tensor<i32>
  }
  return %r : tensor<i32>
}

// -----

// scf.if without else (and so without results): each branch yields its value,
// the missing else yields the parameter; nested in a loop, it is hoisted first.
// CHECK-LABEL: func.func @if_in_loop
// CHECK:         scf.for {{.*}} iter_args(%[[P:.*]] = %arg0)
// CHECK:           %[[IF:.*]] = scf.if %{{.*}} -> (tensor<4xf32>) {
// CHECK:             %[[N:.*]] = mindir.add %[[P]], %arg1
// CHECK:             scf.yield %[[N]]
// CHECK:           } else {
// CHECK:             scf.yield %[[P]]
// CHECK:           scf.yield %[[IF]]
// CHECK-NOT:     mindir.assign %arg0, %[[P]]
// CHECK:         mindir.assign %arg0
func.func @if_in_loop(%p: tensor<4xf32>, %g: tensor<4xf32>, %flag: i1) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %c2 step %c1 {
    scf.if %flag {
      %n = mindir.add %p, %g : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      %a = mindir.assign %p, %n : tensor<4xf32>
    }
  }
  return
}
