// Round trip of the mskernel ops and of the memory-scope attribute.
// RUN: ms-opt %s | ms-opt | FileCheck %s
// RUN: ms-opt %s --mlir-print-op-generic | ms-opt | FileCheck %s

// CHECK-LABEL: func.func @fused
// CHECK-SAME: (%[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>)
func.func @fused(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: %[[R:.*]] = mskernel.fused(%[[A]], %[[B]]) {kind = #mskernel.kind<elemwise>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
  // CHECK-NEXT: ^bb0(%[[X:.*]]: tensor<4xf32>, %[[Y:.*]]: tensor<4xf32>):
  // CHECK-NEXT:   %[[S:.*]] = mindir.add %[[X]], %[[Y]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // CHECK-NEXT:   %[[E:.*]] = mindir.exp %[[S]] : tensor<4xf32>
  // CHECK-NEXT:   mskernel.yield %[[E]] : tensor<4xf32>
  // CHECK-NEXT: }
  %r = mskernel.fused(%a, %b) {kind = #mskernel.kind<elemwise>, target = #mskernel.target<cpu>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>, %y: tensor<4xf32>):
    %s = mindir.add %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %e = mindir.exp %s : tensor<4xf32>
    mskernel.yield %e : tensor<4xf32>
  }
  // CHECK: return %[[R]]
  return %r : tensor<4xf32>
}

// Several results, a non-default target; a reduction kernel.
// CHECK-LABEL: func.func @fused_multi
func.func @fused_multi(%a: tensor<2x8xf16>) -> (tensor<2xf16>, tensor<2x8xf16>) {
  // CHECK: mskernel.fused(%{{.*}}) {kind = #mskernel.kind<reduce>, target = #mskernel.target<gpu>} : (tensor<2x8xf16>) -> (tensor<2xf16>, tensor<2x8xf16>) {
  // CHECK: mskernel.yield %{{.*}}, %{{.*}} : tensor<2xf16>, tensor<2x8xf16>
  %r:2 = mskernel.fused(%a) {kind = #mskernel.kind<reduce>, target = #mskernel.target<gpu>} : (tensor<2x8xf16>) -> (tensor<2xf16>, tensor<2x8xf16>) {
  ^bb0(%x: tensor<2x8xf16>):
    %s = mindir.reduce_sum %x {axes = array<i64: 1>} : (tensor<2x8xf16>) -> tensor<2xf16>
    %n = mindir.neg %x : tensor<2x8xf16>
    mskernel.yield %s, %n : tensor<2xf16>, tensor<2x8xf16>
  }
  return %r#0, %r#1 : tensor<2xf16>, tensor<2x8xf16>
}

// A kernel on buffers with no results: the terminator is implicit.
// CHECK-LABEL: func.func @fused_no_results
func.func @fused_no_results(%m: memref<4xf32>) {
  // CHECK: mskernel.fused(%{{.*}}) {target = #mskernel.target<ascend>} : (memref<4xf32>) -> () {
  // CHECK-NEXT: ^bb0(%{{.*}}: memref<4xf32>):
  // CHECK-NEXT: }
  mskernel.fused(%m) {target = #mskernel.target<ascend>} : (memref<4xf32>) -> () {
  ^bb0(%x: memref<4xf32>):
    mskernel.yield
  }
  return
}

// Every kernel kind round-trips; the default kind (opaque) is elided.
// CHECK-LABEL: func.func @kinds
// CHECK: mskernel.fused(%{{.*}}) {kind = #mskernel.kind<compute>}
// CHECK: mskernel.fused(%{{.*}}) {kind = #mskernel.kind<elemwise>}
// CHECK: mskernel.fused(%{{.*}}) {kind = #mskernel.kind<broadcast>}
// CHECK: mskernel.fused(%{{.*}}) {kind = #mskernel.kind<reduce>}
// CHECK: mskernel.fused(%{{.*}}) {kind = #mskernel.kind<matmul>}
// CHECK: mskernel.fused(%{{.*}}) {kind = #mskernel.kind<conv>}
// CHECK: mskernel.fused(%{{.*}}) : (memref<4xf32>) -> ()
func.func @kinds(%m: memref<4xf32>) {
  mskernel.fused(%m) {kind = #mskernel.kind<compute>} : (memref<4xf32>) -> () {
  ^bb0(%x: memref<4xf32>):
  }
  mskernel.fused(%m) {kind = #mskernel.kind<elemwise>} : (memref<4xf32>) -> () {
  ^bb0(%x: memref<4xf32>):
  }
  mskernel.fused(%m) {kind = #mskernel.kind<broadcast>} : (memref<4xf32>) -> () {
  ^bb0(%x: memref<4xf32>):
  }
  mskernel.fused(%m) {kind = #mskernel.kind<reduce>} : (memref<4xf32>) -> () {
  ^bb0(%x: memref<4xf32>):
  }
  mskernel.fused(%m) {kind = #mskernel.kind<matmul>} : (memref<4xf32>) -> () {
  ^bb0(%x: memref<4xf32>):
  }
  mskernel.fused(%m) {kind = #mskernel.kind<conv>} : (memref<4xf32>) -> () {
  ^bb0(%x: memref<4xf32>):
  }
  mskernel.fused(%m) {kind = #mskernel.kind<opaque>} : (memref<4xf32>) -> () {
  ^bb0(%x: memref<4xf32>):
  }
  return
}

// Memory scopes as memref memory spaces, every level.
// CHECK-LABEL: func.func @scopes
// CHECK-SAME: memref<4xf32, #mskernel.scope<global>>
// CHECK-SAME: memref<4xf32, #mskernel.scope<ub>>
// CHECK-SAME: memref<16x16xf16, #mskernel.scope<l1>>
// CHECK-SAME: memref<16x16xf16, #mskernel.scope<l0a>>
// CHECK-SAME: memref<16x16xf16, #mskernel.scope<l0b>>
// CHECK-SAME: memref<16x16xf32, #mskernel.scope<l0c>>
// CHECK-SAME: memref<32xf32, #mskernel.scope<shared>>
// CHECK-SAME: memref<1xf32, #mskernel.scope<local>>
func.func @scopes(%g: memref<4xf32, #mskernel.scope<global>>, %u: memref<4xf32, #mskernel.scope<ub>>,
                  %l1: memref<16x16xf16, #mskernel.scope<l1>>, %a: memref<16x16xf16, #mskernel.scope<l0a>>,
                  %b: memref<16x16xf16, #mskernel.scope<l0b>>, %c: memref<16x16xf32, #mskernel.scope<l0c>>,
                  %s: memref<32xf32, #mskernel.scope<shared>>, %r: memref<1xf32, #mskernel.scope<local>>) {
  // CHECK: memref.alloc() : memref<4xf32, #mskernel.scope<ub>>
  %0 = memref.alloc() : memref<4xf32, #mskernel.scope<ub>>
  // CHECK: memref.copy %{{.*}}, %{{.*}} : memref<4xf32, #mskernel.scope<global>> to memref<4xf32, #mskernel.scope<ub>>
  memref.copy %g, %0 : memref<4xf32, #mskernel.scope<global>> to memref<4xf32, #mskernel.scope<ub>>
  // CHECK: memref.dealloc %{{.*}} : memref<4xf32, #mskernel.scope<ub>>
  memref.dealloc %0 : memref<4xf32, #mskernel.scope<ub>>
  return
}

// The scope is an ordinary attribute as well.
// CHECK-LABEL: func.func @scope_attr
// CHECK-SAME: attributes {scope = #mskernel.scope<shared>}
func.func @scope_attr() attributes {scope = #mskernel.scope<shared>} {
  return
}
