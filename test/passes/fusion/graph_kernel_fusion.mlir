// RUN: ms-opt %s --split-input-file --mindir-graph-kernel-fusion | FileCheck %s
// RUN: ms-opt %s --split-input-file --mindir-graph-kernel-fusion=enable=false | FileCheck %s --check-prefix=OFF

// An elementwise chain with a broadcast is one kernel; its intermediate
// values stay inside.
// CHECK-LABEL: func.func @chain
// CHECK:         %[[K:.+]] = mskernel.fused(%arg0, %arg1) {kind = #mskernel.kind<broadcast>}
// CHECK-NEXT:    ^bb0(%[[X:.+]]: tensor<4x8xf32>, %[[B:.+]]: tensor<8xf32>):
// CHECK-NEXT:      %[[A:.+]] = mindir.add %[[X]], %[[B]]
// CHECK-NEXT:      %[[T:.+]] = mindir.tanh %[[A]]
// CHECK-NEXT:      %[[M:.+]] = mindir.mul %[[T]], %[[X]]
// CHECK-NEXT:      mskernel.yield %[[M]] : tensor<4x8xf32>
// CHECK:         return %[[K]]
// Without fusion every op is its own kernel.
// OFF-LABEL: func.func @chain
// OFF-COUNT-3: mskernel.fused
// OFF-NOT:     mskernel.fused
// OFF:         return
func.func @chain(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = mindir.add %x, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %1 = mindir.tanh %0 : tensor<4x8xf32>
  %2 = mindir.mul %1, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}

// -----

// softmax expanded: the two reductions over the same rows, their producers
// and their consumers are one reduce kernel; the small constant is copied in.
// CHECK-LABEL: func.func @softmax
// CHECK:         mskernel.fused(%arg0) {kind = #mskernel.kind<reduce>}
// CHECK:           mindir.constant
// CHECK:           mindir.reduce_max
// CHECK:           mindir.sub
// CHECK:           mindir.exp
// CHECK:           mindir.reduce_sum
// CHECK:           mindir.div
// CHECK:           mskernel.yield
// CHECK-NOT:     mskernel.fused
// CHECK:         return
func.func @softmax(%x: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %c = mindir.constant dense<1.0> : tensor<f32>
  %s = mindir.mul %x, %c : (tensor<16x32xf32>, tensor<f32>) -> tensor<16x32xf32>
  %m = mindir.reduce_max %s {axes = array<i64: 1>, keep_dims = true} : (tensor<16x32xf32>) -> tensor<16x1xf32>
  %d = mindir.sub %s, %m : (tensor<16x32xf32>, tensor<16x1xf32>) -> tensor<16x32xf32>
  %e = mindir.exp %d : tensor<16x32xf32>
  %z = mindir.reduce_sum %e {axes = array<i64: 1>, keep_dims = true} : (tensor<16x32xf32>) -> tensor<16x1xf32>
  %r = mindir.div %e, %z : (tensor<16x32xf32>, tensor<16x1xf32>) -> tensor<16x32xf32>
  return %r : tensor<16x32xf32>
}

// -----

// Reductions over different axes do not share a kernel.
// CHECK-LABEL: func.func @two_reductions
// CHECK:         mskernel.fused(%arg0) {kind = #mskernel.kind<reduce>}
// CHECK:           mindir.reduce_sum {{.*}}axes = array<i64: 0>
// CHECK:         mskernel.fused(%arg0) {kind = #mskernel.kind<reduce>}
// CHECK:           mindir.reduce_sum {{.*}}axes = array<i64: 1>
func.func @two_reductions(%x: tensor<16x32xf32>) -> (tensor<32xf32>, tensor<16xf32>) {
  %a = mindir.reduce_sum %x {axes = array<i64: 0>} : (tensor<16x32xf32>) -> tensor<32xf32>
  %b = mindir.reduce_sum %x {axes = array<i64: 1>} : (tensor<16x32xf32>) -> tensor<16xf32>
  return %a, %b : tensor<32xf32>, tensor<16xf32>
}

// -----

// A matmul takes its epilogue (bias, relu) and its transposed operand as a
// flag; the relu mask of the backward is a second result of the same kernel.
// CHECK-LABEL: func.func @dense
// CHECK-NOT:     mindir.transpose
// CHECK:         %[[K:.+]]:2 = mskernel.fused(%arg0, %arg1, %arg2) {kind = #mskernel.kind<matmul>}
// CHECK:           mindir.matmul %{{.+}}, %{{.+}} {transpose_b = true}
// CHECK:           mindir.add
// CHECK:           mindir.relu
// CHECK:           mindir.greater
// CHECK:           mskernel.yield
// CHECK:         return %[[K]]#0, %[[K]]#1
func.func @dense(%x: tensor<8x16xf32>, %w: tensor<4x16xf32>, %b: tensor<4xf32>) -> (tensor<8x4xf32>, tensor<8x4xi1>) {
  %zero = mindir.constant dense<0.0> : tensor<f32>
  %wt = mindir.transpose %w {perm = array<i64: 1, 0>} : (tensor<4x16xf32>) -> tensor<16x4xf32>
  %m = mindir.matmul %x, %wt : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  %a = mindir.add %m, %b : (tensor<8x4xf32>, tensor<4xf32>) -> tensor<8x4xf32>
  %r = mindir.relu %a : tensor<8x4xf32>
  %g = mindir.greater %a, %zero : (tensor<8x4xf32>, tensor<f32>) -> tensor<8x4xi1>
  return %r, %g : tensor<8x4xf32>, tensor<8x4xi1>
}

// -----

// transpose(matmul(a, b)) is matmul(b, a) with the flags swapped and flipped.
// CHECK-LABEL: func.func @transposed_result
// CHECK:         mindir.matmul %{{.+}}, %{{.+}} {transpose_a = true} : (tensor<8x4xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
// CHECK-NOT:     mindir.transpose
func.func @transposed_result(%x: tensor<8x16xf32>, %d: tensor<8x4xf32>) -> tensor<4x16xf32> {
  %m = mindir.matmul %x, %d {transpose_a = true} : (tensor<8x16xf32>, tensor<8x4xf32>) -> tensor<16x4xf32>
  %t = mindir.transpose %m {perm = array<i64: 1, 0>} : (tensor<16x4xf32>) -> tensor<4x16xf32>
  return %t : tensor<4x16xf32>
}

// -----

// Merging %a and %c would make a cycle through the tile (an opaque op:
// %a -> tile -> %c): the clusterer refuses, so %a and %c are in different
// kernels, ordered a, tile, c.
// CHECK-LABEL: func.func @no_cycle
// CHECK:         %[[A:.+]] = mskernel.fused(%arg0) {kind = #mskernel.kind<elemwise>}
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      mindir.exp
// CHECK-NEXT:      mskernel.yield
// CHECK:         %[[T:.+]] = mskernel.fused(%[[A]]) : {{.*}} {
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      mindir.tile
// CHECK:         mskernel.fused(%[[A]], %[[T]]) {kind = #mskernel.kind<elemwise>}
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      mindir.add
// The matmul takes the elementwise op before it (a prologue): no cycle there.
// CHECK-LABEL: func.func @prologue
// CHECK:         mskernel.fused(%arg0, %arg1) {kind = #mskernel.kind<matmul>}
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      mindir.exp
// CHECK-NEXT:      mindir.matmul
// CHECK-NEXT:      mindir.add
// CHECK-NEXT:      mskernel.yield
func.func @no_cycle(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %a = mindir.exp %x : tensor<4x4xf32>
  %t = mindir.tile %a {multiples = array<i64: 1, 1>} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %c = mindir.add %a, %t : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %c : tensor<4x4xf32>
}
func.func @prologue(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %a = mindir.exp %x : tensor<4x4xf32>
  %m = mindir.matmul %a, %w : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %c = mindir.add %a, %m : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %c : tensor<4x4xf32>
}

// -----

// Independent elementwise updates (one per parameter, sharing the learning
// rate) are fused horizontally into one kernel with two results.
// CHECK-LABEL: func.func @updates
// CHECK:         %[[K:.+]]:2 = mskernel.fused(%arg1, %arg4, %arg0, %arg3, %arg2) {kind = #mskernel.kind<broadcast>}
// CHECK-COUNT-2:   mindir.sub
// CHECK:         return %[[K]]#0, %[[K]]#1
func.func @updates(%p: tensor<8xf32>, %g: tensor<8xf32>, %q: tensor<4x4xf32>, %h: tensor<4x4xf32>, %lr: tensor<f32>) -> (tensor<8xf32>, tensor<4x4xf32>) {
  %a = mindir.mul %g, %lr : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %b = mindir.sub %p, %a : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %c = mindir.mul %h, %lr : (tensor<4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
  %d = mindir.sub %q, %c : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %b, %d : tensor<8xf32>, tensor<4x4xf32>
}

// -----

// Ops inside scf regions are clustered within their block; effectful host
// ops (the callback) keep their order and stay outside kernels.
// CHECK-LABEL: func.func @loop
// CHECK:         scf.for
// CHECK:           mskernel.fused
// CHECK:             mindir.mul
// CHECK:             mindir.add
// CHECK:           scf.yield
func.func @loop(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %x) -> (tensor<4xf32>) {
    %m = mindir.mul %acc, %acc : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %a = mindir.add %m, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    scf.yield %a : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
