// Round trip of the unary and binary elementwise ops, select, clamp and cast.
// RUN: ms-opt %s | ms-opt | FileCheck %s
// RUN: ms-opt %s --mlir-print-op-generic | ms-opt | FileCheck %s

// Float-only unary ops, on every float type.
// CHECK-LABEL: func.func @float_unary
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>, %[[H:.*]]: tensor<4xf16>, %[[B:.*]]: tensor<4xbf16>, %[[D:.*]]: tensor<f64>)
func.func @float_unary(%x: tensor<2x3xf32>, %h: tensor<4xf16>, %b: tensor<4xbf16>, %d: tensor<f64>) {
  // CHECK: %{{.*}} = mindir.exp %[[X]] : tensor<2x3xf32>
  %0 = mindir.exp %x : tensor<2x3xf32>
  // CHECK: %{{.*}} = mindir.log %[[H]] : tensor<4xf16>
  %1 = mindir.log %h : tensor<4xf16>
  // CHECK: %{{.*}} = mindir.log1p %[[B]] : tensor<4xbf16>
  %2 = mindir.log1p %b : tensor<4xbf16>
  // CHECK: %{{.*}} = mindir.expm1 %[[D]] : tensor<f64>
  %3 = mindir.expm1 %d : tensor<f64>
  // CHECK: %{{.*}} = mindir.sqrt %[[X]] : tensor<2x3xf32>
  %4 = mindir.sqrt %x : tensor<2x3xf32>
  // CHECK: %{{.*}} = mindir.rsqrt %[[H]] : tensor<4xf16>
  %5 = mindir.rsqrt %h : tensor<4xf16>
  // CHECK: %{{.*}} = mindir.reciprocal %[[B]] : tensor<4xbf16>
  %6 = mindir.reciprocal %b : tensor<4xbf16>
  // CHECK: %{{.*}} = mindir.sin %[[D]] : tensor<f64>
  %7 = mindir.sin %d : tensor<f64>
  // CHECK: %{{.*}} = mindir.cos %[[X]] : tensor<2x3xf32>
  %8 = mindir.cos %x : tensor<2x3xf32>
  // CHECK: %{{.*}} = mindir.tanh %[[H]] : tensor<4xf16>
  %9 = mindir.tanh %h : tensor<4xf16>
  // CHECK: %{{.*}} = mindir.sigmoid %[[B]] : tensor<4xbf16>
  %10 = mindir.sigmoid %b : tensor<4xbf16>
  // CHECK: %{{.*}} = mindir.erf %[[D]] : tensor<f64>
  %11 = mindir.erf %d : tensor<f64>
  // CHECK: %{{.*}} = mindir.softplus %[[X]] : tensor<2x3xf32>
  %12 = mindir.softplus %x : tensor<2x3xf32>
  // CHECK: %{{.*}} = mindir.silu %[[H]] : tensor<4xf16>
  %13 = mindir.silu %h : tensor<4xf16>
  // CHECK: %{{.*}} = mindir.floor %[[B]] : tensor<4xbf16>
  %14 = mindir.floor %b : tensor<4xbf16>
  // CHECK: %{{.*}} = mindir.ceil %[[D]] : tensor<f64>
  %15 = mindir.ceil %d : tensor<f64>
  // CHECK: %{{.*}} = mindir.round %[[X]] : tensor<2x3xf32>
  %16 = mindir.round %x : tensor<2x3xf32>
  return
}

// Unary ops on floats and integers.
// CHECK-LABEL: func.func @num_unary
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>, %[[I:.*]]: tensor<5xi32>, %[[L:.*]]: tensor<1x2xi64>, %[[C:.*]]: tensor<3xi8>)
func.func @num_unary(%x: tensor<2x3xf32>, %i: tensor<5xi32>, %l: tensor<1x2xi64>, %c: tensor<3xi8>) {
  // CHECK: mindir.neg %[[X]] : tensor<2x3xf32>
  %0 = mindir.neg %x : tensor<2x3xf32>
  // CHECK: mindir.neg %[[I]] : tensor<5xi32>
  %1 = mindir.neg %i : tensor<5xi32>
  // CHECK: mindir.neg %[[L]] : tensor<1x2xi64>
  %2 = mindir.neg %l : tensor<1x2xi64>
  // CHECK: mindir.neg %[[C]] : tensor<3xi8>
  %3 = mindir.neg %c : tensor<3xi8>
  // CHECK: mindir.abs %[[X]] : tensor<2x3xf32>
  %4 = mindir.abs %x : tensor<2x3xf32>
  // CHECK: mindir.abs %[[I]] : tensor<5xi32>
  %5 = mindir.abs %i : tensor<5xi32>
  // CHECK: mindir.abs %[[L]] : tensor<1x2xi64>
  %6 = mindir.abs %l : tensor<1x2xi64>
  // CHECK: mindir.abs %[[C]] : tensor<3xi8>
  %7 = mindir.abs %c : tensor<3xi8>
  // CHECK: mindir.sign %[[X]] : tensor<2x3xf32>
  %8 = mindir.sign %x : tensor<2x3xf32>
  // CHECK: mindir.sign %[[I]] : tensor<5xi32>
  %9 = mindir.sign %i : tensor<5xi32>
  // CHECK: mindir.sign %[[L]] : tensor<1x2xi64>
  %10 = mindir.sign %l : tensor<1x2xi64>
  // CHECK: mindir.sign %[[C]] : tensor<3xi8>
  %11 = mindir.sign %c : tensor<3xi8>
  // CHECK: mindir.square %[[X]] : tensor<2x3xf32>
  %12 = mindir.square %x : tensor<2x3xf32>
  // CHECK: mindir.square %[[I]] : tensor<5xi32>
  %13 = mindir.square %i : tensor<5xi32>
  // CHECK: mindir.square %[[L]] : tensor<1x2xi64>
  %14 = mindir.square %l : tensor<1x2xi64>
  // CHECK: mindir.square %[[C]] : tensor<3xi8>
  %15 = mindir.square %c : tensor<3xi8>
  // CHECK: mindir.relu %[[X]] : tensor<2x3xf32>
  %16 = mindir.relu %x : tensor<2x3xf32>
  // CHECK: mindir.relu %[[I]] : tensor<5xi32>
  %17 = mindir.relu %i : tensor<5xi32>
  // CHECK: mindir.relu %[[L]] : tensor<1x2xi64>
  %18 = mindir.relu %l : tensor<1x2xi64>
  // CHECK: mindir.relu %[[C]] : tensor<3xi8>
  %19 = mindir.relu %c : tensor<3xi8>
  return
}
// CHECK-LABEL: func.func @activations
// CHECK-SAME: (%[[X:.*]]: tensor<8xf32>)
func.func @activations(%x: tensor<8xf32>) {
  // Default alpha (0.2) and approximate ("tanh") are elided.
  // CHECK: mindir.leaky_relu %[[X]] : tensor<8xf32>
  %0 = mindir.leaky_relu %x : tensor<8xf32>
  // CHECK: mindir.leaky_relu %[[X]] {alpha = 0.000000e+00 : f64} : tensor<8xf32>
  %1 = mindir.leaky_relu %x {alpha = 0.0 : f64} : tensor<8xf32>
  // CHECK: mindir.leaky_relu %[[X]] : tensor<8xf32>
  %2 = mindir.leaky_relu %x {alpha = 0.2 : f64} : tensor<8xf32>
  // CHECK: mindir.gelu %[[X]] : tensor<8xf32>
  %3 = mindir.gelu %x : tensor<8xf32>
  // CHECK: mindir.gelu %[[X]] : tensor<8xf32>
  %4 = mindir.gelu %x {approximate = #mindir.approximate<tanh>} : tensor<8xf32>
  // CHECK: mindir.gelu %[[X]] {approximate = #mindir.approximate<none>} : tensor<8xf32>
  %5 = mindir.gelu %x {approximate = #mindir.approximate<none>} : tensor<8xf32>
  // CHECK: mindir.stop_gradient %[[X]] : tensor<8xf32>
  %6 = mindir.stop_gradient %x : tensor<8xf32>
  return
}

// CHECK-LABEL: func.func @predicates
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>, %[[H:.*]]: tensor<f16>, %[[B:.*]]: tensor<4xi1>)
func.func @predicates(%x: tensor<2x3xf32>, %h: tensor<f16>, %b: tensor<4xi1>) {
  // CHECK: mindir.isnan %[[X]] : (tensor<2x3xf32>) -> tensor<2x3xi1>
  %0 = mindir.isnan %x : (tensor<2x3xf32>) -> tensor<2x3xi1>
  // CHECK: mindir.isfinite %[[H]] : (tensor<f16>) -> tensor<i1>
  %1 = mindir.isfinite %h : (tensor<f16>) -> tensor<i1>
  // CHECK: mindir.logical_not %[[B]] : tensor<4xi1>
  %2 = mindir.logical_not %b : tensor<4xi1>
  return
}

// CHECK-LABEL: func.func @casts
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[I:.*]]: tensor<4xi32>, %[[B:.*]]: tensor<4xi1>)
func.func @casts(%x: tensor<4xf32>, %i: tensor<4xi32>, %b: tensor<4xi1>) {
  // CHECK: mindir.cast %[[X]] : tensor<4xf32> to tensor<4xf16>
  %0 = mindir.cast %x : tensor<4xf32> to tensor<4xf16>
  // CHECK: mindir.cast %[[X]] : tensor<4xf32> to tensor<4xbf16>
  %1 = mindir.cast %x : tensor<4xf32> to tensor<4xbf16>
  // CHECK: mindir.cast %[[X]] : tensor<4xf32> to tensor<4xf64>
  %2 = mindir.cast %x : tensor<4xf32> to tensor<4xf64>
  // CHECK: mindir.cast %[[X]] : tensor<4xf32> to tensor<4xi32>
  %3 = mindir.cast %x : tensor<4xf32> to tensor<4xi32>
  // CHECK: mindir.cast %[[I]] : tensor<4xi32> to tensor<4xf32>
  %4 = mindir.cast %i : tensor<4xi32> to tensor<4xf32>
  // CHECK: mindir.cast %[[I]] : tensor<4xi32> to tensor<4xi64>
  %5 = mindir.cast %i : tensor<4xi32> to tensor<4xi64>
  // CHECK: mindir.cast %[[I]] : tensor<4xi32> to tensor<4xi8>
  %6 = mindir.cast %i : tensor<4xi32> to tensor<4xi8>
  // CHECK: mindir.cast %[[B]] : tensor<4xi1> to tensor<4xf32>
  %7 = mindir.cast %b : tensor<4xi1> to tensor<4xf32>
  // CHECK: mindir.cast %[[X]] : tensor<4xf32> to tensor<4xi1>
  %8 = mindir.cast %x : tensor<4xf32> to tensor<4xi1>
  // An identity cast parses and prints (it folds away under canonicalize).
  // CHECK: mindir.cast %[[X]] : tensor<4xf32> to tensor<4xf32>
  %9 = mindir.cast %x : tensor<4xf32> to tensor<4xf32>
  return
}

// Broadcasting arithmetic: same shapes, scalar (rank 0), right-aligned
// broadcasting and broadcasting on both sides.
// CHECK-LABEL: func.func @arith
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<3xf32>, %[[S:.*]]: tensor<f32>, %[[C:.*]]: tensor<4x1xi32>, %[[D:.*]]: tensor<1x5xi32>)
func.func @arith(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %s: tensor<f32>, %c: tensor<4x1xi32>, %d: tensor<1x5xi32>) {
  // CHECK: mindir.add %[[A]], %[[A]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %0 = mindir.add %a, %a : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: mindir.sub %[[A]], %[[B]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = mindir.sub %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: mindir.mul %[[S]], %[[A]] : (tensor<f32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = mindir.mul %s, %a : (tensor<f32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: mindir.div %[[B]], %[[S]] : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  %3 = mindir.div %b, %s : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  // CHECK: mindir.floordiv %[[C]], %[[D]] : (tensor<4x1xi32>, tensor<1x5xi32>) -> tensor<4x5xi32>
  %4 = mindir.floordiv %c, %d : (tensor<4x1xi32>, tensor<1x5xi32>) -> tensor<4x5xi32>
  // CHECK: mindir.mod %[[D]], %[[C]] : (tensor<1x5xi32>, tensor<4x1xi32>) -> tensor<4x5xi32>
  %5 = mindir.mod %d, %c : (tensor<1x5xi32>, tensor<4x1xi32>) -> tensor<4x5xi32>
  // CHECK: mindir.pow %[[A]], %[[S]] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %6 = mindir.pow %a, %s : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  // CHECK: mindir.maximum %[[A]], %[[B]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %7 = mindir.maximum %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: mindir.minimum %[[C]], %[[C]] : (tensor<4x1xi32>, tensor<4x1xi32>) -> tensor<4x1xi32>
  %8 = mindir.minimum %c, %c : (tensor<4x1xi32>, tensor<4x1xi32>) -> tensor<4x1xi32>
  return
}

// CHECK-LABEL: func.func @arith_types
func.func @arith_types(%h: tensor<2xf16>, %b: tensor<2xbf16>, %d: tensor<2xf64>, %l: tensor<2xi64>, %c: tensor<2xi8>) {
  // CHECK: mindir.add %{{.*}}, %{{.*}} : (tensor<2xf16>, tensor<2xf16>) -> tensor<2xf16>
  %0 = mindir.add %h, %h : (tensor<2xf16>, tensor<2xf16>) -> tensor<2xf16>
  // CHECK: mindir.mul %{{.*}}, %{{.*}} : (tensor<2xbf16>, tensor<2xbf16>) -> tensor<2xbf16>
  %1 = mindir.mul %b, %b : (tensor<2xbf16>, tensor<2xbf16>) -> tensor<2xbf16>
  // CHECK: mindir.pow %{{.*}}, %{{.*}} : (tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>
  %2 = mindir.pow %d, %d : (tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>
  // CHECK: mindir.sub %{{.*}}, %{{.*}} : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  %3 = mindir.sub %l, %l : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  // CHECK: mindir.div %{{.*}}, %{{.*}} : (tensor<2xi8>, tensor<2xi8>) -> tensor<2xi8>
  %4 = mindir.div %c, %c : (tensor<2xi8>, tensor<2xi8>) -> tensor<2xi8>
  return
}

// CHECK-LABEL: func.func @compare
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<3xf32>, %[[I:.*]]: tensor<4xi64>, %[[P:.*]]: tensor<4xi1>)
func.func @compare(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %i: tensor<4xi64>, %p: tensor<4xi1>) {
  // CHECK: mindir.equal %[[A]], %[[B]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %0 = mindir.equal %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  // CHECK: mindir.not_equal %[[P]], %[[P]] : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %1 = mindir.not_equal %p, %p : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  // CHECK: mindir.less %[[I]], %[[I]] : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi1>
  %2 = mindir.less %i, %i : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi1>
  // CHECK: mindir.less_equal %[[B]], %[[A]] : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %3 = mindir.less_equal %b, %a : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  // CHECK: mindir.greater %[[A]], %[[A]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %4 = mindir.greater %a, %a : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  // CHECK: mindir.greater_equal %[[I]], %[[I]] : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi1>
  %5 = mindir.greater_equal %i, %i : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi1>
  return
}

// CHECK-LABEL: func.func @logical
// CHECK-SAME: (%[[P:.*]]: tensor<4xi1>, %[[Q:.*]]: tensor<2x1xi1>)
func.func @logical(%p: tensor<4xi1>, %q: tensor<2x1xi1>) {
  // CHECK: mindir.logical_and %[[P]], %[[Q]] : (tensor<4xi1>, tensor<2x1xi1>) -> tensor<2x4xi1>
  %0 = mindir.logical_and %p, %q : (tensor<4xi1>, tensor<2x1xi1>) -> tensor<2x4xi1>
  // CHECK: mindir.logical_or %[[P]], %[[P]] : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %1 = mindir.logical_or %p, %p : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  return
}

// CHECK-LABEL: func.func @ternary
// CHECK-SAME: (%[[C:.*]]: tensor<4xi1>, %[[X:.*]]: tensor<2x4xf32>, %[[Y:.*]]: tensor<f32>, %[[I:.*]]: tensor<3xi32>, %[[LO:.*]]: tensor<i32>, %[[HI:.*]]: tensor<3xi32>)
func.func @ternary(%c: tensor<4xi1>, %x: tensor<2x4xf32>, %y: tensor<f32>, %i: tensor<3xi32>, %lo: tensor<i32>, %hi: tensor<3xi32>) {
  // CHECK: mindir.select %[[C]], %[[X]], %[[Y]] : (tensor<4xi1>, tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
  %0 = mindir.select %c, %x, %y : (tensor<4xi1>, tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
  // CHECK: mindir.clamp %[[I]], %[[LO]], %[[HI]] : (tensor<3xi32>, tensor<i32>, tensor<3xi32>) -> tensor<3xi32>
  %1 = mindir.clamp %i, %lo, %hi : (tensor<3xi32>, tensor<i32>, tensor<3xi32>) -> tensor<3xi32>
  // CHECK: mindir.clamp %[[Y]], %[[Y]], %[[X]] : (tensor<f32>, tensor<f32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %2 = mindir.clamp %y, %y, %x : (tensor<f32>, tensor<f32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return
}
