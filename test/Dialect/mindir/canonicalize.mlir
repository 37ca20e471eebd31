// Folders and canonicalizations of the mindir dialect, with the
// non-identities that must NOT fold.
// RUN: ms-opt %s --canonicalize --split-input-file | FileCheck %s

// CHECK-LABEL: func.func @constant_dedup
// CHECK-NEXT: %[[C:.*]] = mindir.constant dense<1.000000e+00> : tensor<2xf32>
// CHECK-NEXT: return %[[C]], %[[C]]
func.func @constant_dedup() -> (tensor<2xf32>, tensor<2xf32>) {
  %0 = mindir.constant dense<1.0> : tensor<2xf32>
  %1 = mindir.constant dense<1.0> : tensor<2xf32>
  return %0, %1 : tensor<2xf32>, tensor<2xf32>
}

// -----

// CHECK-LABEL: func.func @fill_and_like
// CHECK-DAG: %[[F:.*]] = mindir.constant dense<2.500000e+00> : tensor<2x3xf32>
// CHECK-DAG: %[[Z:.*]] = mindir.constant dense<0> : tensor<4xi32>
// CHECK-DAG: %[[O:.*]] = mindir.constant dense<true> : tensor<3xi1>
// CHECK-NOT: mindir.fill
// CHECK-NOT: _like
// CHECK: return %[[F]], %[[Z]], %[[O]]
func.func @fill_and_like(%i: tensor<4xi32>, %b: tensor<3xi1>) -> (tensor<2x3xf32>, tensor<4xi32>, tensor<3xi1>) {
  %0 = mindir.fill 2.5 : f32 : tensor<2x3xf32>
  %1 = mindir.zeros_like %i : tensor<4xi32>
  %2 = mindir.ones_like %b : tensor<3xi1>
  return %0, %1, %2 : tensor<2x3xf32>, tensor<4xi32>, tensor<3xi1>
}

// -----

// CHECK-LABEL: func.func @involutions
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xi1>)
// CHECK-NEXT: %[[R:.*]] = mindir.relu %[[X]] : tensor<4xf32>
// CHECK-NEXT: %[[A:.*]] = mindir.abs %[[X]] : tensor<4xf32>
// CHECK-NEXT: %[[A2:.*]] = mindir.abs %[[X]] : tensor<4xf32>
// CHECK-NEXT: return %[[X]], %[[B]], %[[R]], %[[A]], %[[A2]]
func.func @involutions(%x: tensor<4xf32>, %b: tensor<4xi1>) -> (tensor<4xf32>, tensor<4xi1>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = mindir.neg %x : tensor<4xf32>
  %1 = mindir.neg %0 : tensor<4xf32>
  %2 = mindir.logical_not %b : tensor<4xi1>
  %3 = mindir.logical_not %2 : tensor<4xi1>
  %4 = mindir.relu %x : tensor<4xf32>
  %5 = mindir.relu %4 : tensor<4xf32>
  // abs(abs(x)) = abs(x), abs(neg(x)) = abs(x).
  %6 = mindir.abs %x : tensor<4xf32>
  %7 = mindir.abs %6 : tensor<4xf32>
  %8 = mindir.abs %0 : tensor<4xf32>
  return %1, %3, %5, %7, %8 : tensor<4xf32>, tensor<4xi1>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// stop_gradient is an identity that autodiff needs: never folded.
// CHECK-LABEL: func.func @stop_gradient_kept
// CHECK: mindir.stop_gradient
func.func @stop_gradient_kept(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = mindir.stop_gradient %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @unary_splats
// CHECK-DAG: %[[NEG:.*]] = mindir.constant dense<-1.500000e+00> : tensor<4xf32>
// CHECK-DAG: %[[ABS:.*]] = mindir.constant dense<1.500000e+00> : tensor<4xf32>
// CHECK-DAG: %[[SQ:.*]] = mindir.constant dense<2.250000e+00> : tensor<4xf32>
// CHECK-DAG: %[[FL:.*]] = mindir.constant dense<-2.000000e+00> : tensor<4xf32>
// CHECK-DAG: %[[CE:.*]] = mindir.constant dense<-1.000000e+00> : tensor<4xf32>
// CHECK-DAG: %[[RE:.*]] = mindir.constant dense<2.000000e+00> : tensor<4xf32>
// CHECK-DAG: %[[RO:.*]] = mindir.constant dense<4.000000e+00> : tensor<4xf32>
// CHECK-DAG: %[[RL:.*]] = mindir.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK-DAG: %[[NOT:.*]] = mindir.constant dense<false> : tensor<4xi1>
// CHECK: return %[[NEG]], %[[ABS]], %[[SQ]], %[[FL]], %[[CE]], %[[RE]], %[[RO]], %[[RL]], %[[NOT]]
func.func @unary_splats() -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi1>) {
  %p = mindir.constant dense<1.5> : tensor<4xf32>
  %m = mindir.constant dense<-1.5> : tensor<4xf32>
  %h = mindir.constant dense<2.5> : tensor<4xf32>
  %k = mindir.constant dense<3.5> : tensor<4xf32>
  %t = mindir.constant dense<true> : tensor<4xi1>
  %0 = mindir.neg %p : tensor<4xf32>
  %1 = mindir.abs %m : tensor<4xf32>
  %2 = mindir.square %m : tensor<4xf32>
  %3 = mindir.floor %m : tensor<4xf32>
  %4 = mindir.ceil %m : tensor<4xf32>
  // round is half to even: 2.5 -> 2, 3.5 -> 4.
  %5 = mindir.round %h : tensor<4xf32>
  %6 = mindir.round %k : tensor<4xf32>
  %7 = mindir.relu %m : tensor<4xf32>
  %8 = mindir.logical_not %t : tensor<4xi1>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi1>
}

// -----

// CHECK-LABEL: func.func @unary_splats_int
// CHECK-DAG: %[[NEG:.*]] = mindir.constant dense<-7> : tensor<3xi32>
// CHECK-DAG: %[[SQ:.*]] = mindir.constant dense<49> : tensor<3xi32>
// CHECK-DAG: %[[RL:.*]] = mindir.constant dense<0> : tensor<3xi32>
// CHECK-DAG: %[[ABS:.*]] = mindir.constant dense<7> : tensor<3xi32>
// CHECK: return %[[NEG]], %[[SQ]], %[[RL]], %[[ABS]]
func.func @unary_splats_int() -> (tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>) {
  %c = mindir.constant dense<7> : tensor<3xi32>
  %0 = mindir.neg %c : tensor<3xi32>
  %1 = mindir.square %0 : tensor<3xi32>
  %2 = mindir.relu %0 : tensor<3xi32>
  %3 = mindir.abs %0 : tensor<3xi32>
  return %0, %1, %2, %3 : tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>
}

// -----

// Not folded: relu(-0.0) (sign of the zero is target specific), abs(INT_MIN)
// (overflows), anything of a NaN, and transcendental functions.
// CHECK-LABEL: func.func @unary_not_folded
// CHECK: mindir.relu
// CHECK: mindir.abs
// CHECK: mindir.neg
// CHECK: mindir.exp
// CHECK: mindir.sqrt
func.func @unary_not_folded() -> (tensor<4xf32>, tensor<2xi32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %nz = mindir.constant dense<-0.0> : tensor<4xf32>
  %min = mindir.constant dense<-2147483648> : tensor<2xi32>
  %nan = mindir.constant dense<0x7FC00000> : tensor<4xf32>
  %one = mindir.constant dense<1.0> : tensor<4xf32>
  %0 = mindir.relu %nz : tensor<4xf32>
  %1 = mindir.abs %min : tensor<2xi32>
  %2 = mindir.neg %nan : tensor<4xf32>
  %3 = mindir.exp %one : tensor<4xf32>
  %4 = mindir.sqrt %one : tensor<4xf32>
  return %0, %1, %2, %3, %4 : tensor<4xf32>, tensor<2xi32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @cast_identity
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT: %[[C:.*]] = mindir.cast %[[X]] : tensor<4xf32> to tensor<4xf16>
// CHECK-NEXT: return %[[X]], %[[C]]
func.func @cast_identity(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf16>) {
  %0 = mindir.cast %x : tensor<4xf32> to tensor<4xf32>
  %1 = mindir.cast %x : tensor<4xf32> to tensor<4xf16>
  return %0, %1 : tensor<4xf32>, tensor<4xf16>
}

// -----

// CHECK-LABEL: func.func @cast_splats
// CHECK-DAG: %[[A:.*]] = mindir.constant dense<2> : tensor<2xi32>
// CHECK-DAG: %[[B:.*]] = mindir.constant dense<-2> : tensor<2xi32>
// CHECK-DAG: %[[C:.*]] = mindir.constant dense<-1.000000e+00> : tensor<2xf32>
// CHECK-DAG: %[[D:.*]] = mindir.constant dense<1.000000e+00> : tensor<2xf32>
// CHECK-DAG: %[[E:.*]] = mindir.constant dense<1> : tensor<2xi32>
// CHECK-DAG: %[[F:.*]] = mindir.constant dense<44> : tensor<2xi8>
// CHECK-DAG: %[[G:.*]] = mindir.constant dense<true> : tensor<2xi1>
// CHECK-DAG: %[[H:.*]] = mindir.constant dense<false> : tensor<2xi1>
// CHECK-DAG: %[[I:.*]] = mindir.constant dense<9.997550e-02> : tensor<2xf16>
// CHECK-DAG: %[[J:.*]] = mindir.constant dense<-1> : tensor<2xi64>
// CHECK: return %[[A]], %[[B]], %[[C]], %[[D]], %[[E]], %[[F]], %[[G]], %[[H]], %[[I]], %[[J]]
func.func @cast_splats() -> (tensor<2xi32>, tensor<2xi32>, tensor<2xf32>, tensor<2xf32>, tensor<2xi32>, tensor<2xi8>, tensor<2xi1>, tensor<2xi1>, tensor<2xf16>, tensor<2xi64>) {
  %p = mindir.constant dense<2.7> : tensor<2xf32>
  %m = mindir.constant dense<-2.7> : tensor<2xf32>
  %i = mindir.constant dense<-1> : tensor<2xi32>
  %t = mindir.constant dense<true> : tensor<2xi1>
  %big = mindir.constant dense<300> : tensor<2xi32>
  %half = mindir.constant dense<0.5> : tensor<2xf32>
  %z = mindir.constant dense<0> : tensor<2xi32>
  %tenth = mindir.constant dense<0.1> : tensor<2xf32>
  // float -> int truncates toward zero.
  %0 = mindir.cast %p : tensor<2xf32> to tensor<2xi32>
  %1 = mindir.cast %m : tensor<2xf32> to tensor<2xi32>
  // int -> float is signed; bool -> float is 0/1.
  %2 = mindir.cast %i : tensor<2xi32> to tensor<2xf32>
  %3 = mindir.cast %t : tensor<2xi1> to tensor<2xf32>
  // bool -> int zero-extends; wider -> narrower int truncates (300 -> 44).
  %4 = mindir.cast %t : tensor<2xi1> to tensor<2xi32>
  %5 = mindir.cast %big : tensor<2xi32> to tensor<2xi8>
  // -> bool is x != 0.
  %6 = mindir.cast %half : tensor<2xf32> to tensor<2xi1>
  %7 = mindir.cast %z : tensor<2xi32> to tensor<2xi1>
  // float -> float rounds to nearest even.
  %8 = mindir.cast %tenth : tensor<2xf32> to tensor<2xf16>
  // int -> wider int sign-extends.
  %9 = mindir.cast %i : tensor<2xi32> to tensor<2xi64>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9 : tensor<2xi32>, tensor<2xi32>, tensor<2xf32>, tensor<2xf32>, tensor<2xi32>, tensor<2xi8>, tensor<2xi1>, tensor<2xi1>, tensor<2xf16>, tensor<2xi64>
}

// -----

// Out-of-range float -> int and NaN -> anything are left alone.
// CHECK-LABEL: func.func @cast_not_folded
// CHECK: mindir.cast %{{.*}} : tensor<2xf32> to tensor<2xi32>
// CHECK: mindir.cast %{{.*}} : tensor<2xf32> to tensor<2xi1>
func.func @cast_not_folded() -> (tensor<2xi32>, tensor<2xi1>) {
  %big = mindir.constant dense<1.0e10> : tensor<2xf32>
  %nan = mindir.constant dense<0x7FC00000> : tensor<2xf32>
  %0 = mindir.cast %big : tensor<2xf32> to tensor<2xi32>
  %1 = mindir.cast %nan : tensor<2xf32> to tensor<2xi1>
  return %0, %1 : tensor<2xi32>, tensor<2xi1>
}

// -----

// x + (-0.0) == x for every x, so it folds; x + 0.0 does NOT fold, since
// -0.0 + 0.0 = +0.0.
// CHECK-LABEL: func.func @add_zero
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[I:.*]]: tensor<4xi32>)
// CHECK-DAG: %[[PZ:.*]] = mindir.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK: %[[A:.*]] = mindir.add %[[X]], %[[PZ]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: %[[B:.*]] = mindir.add %[[X]], %[[PZ]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: return %[[X]], %[[X]], %[[A]], %[[B]], %[[I]], %[[I]]
func.func @add_zero(%x: tensor<4xf32>, %i: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi32>, tensor<4xi32>) {
  %nz = mindir.constant dense<-0.0> : tensor<4xf32>
  %pz = mindir.constant dense<0.0> : tensor<4xf32>
  %iz = mindir.constant dense<0> : tensor<4xi32>
  %0 = mindir.add %x, %nz : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = mindir.add %nz, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = mindir.add %x, %pz : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %3 = mindir.add %pz, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %4 = mindir.add %i, %iz : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %5 = mindir.add %iz, %i : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0, %1, %2, %3, %4, %5 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi32>, tensor<4xi32>
}

// -----

// An identity operand that broadcasts the other one changes the shape: kept.
// CHECK-LABEL: func.func @add_zero_broadcast
// CHECK: mindir.add %{{.*}}, %{{.*}} : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
func.func @add_zero_broadcast(%x: tensor<3xf32>) -> tensor<2x3xf32> {
  %nz = mindir.constant dense<-0.0> : tensor<2x3xf32>
  %0 = mindir.add %x, %nz : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// x - 0.0 == x (also for x = -0.0); x - (-0.0) and x - x do NOT fold.
// CHECK-LABEL: func.func @sub
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK: %[[A:.*]] = mindir.sub %[[X]], %{{.*}}
// CHECK-NEXT: %[[B:.*]] = mindir.sub %[[X]], %[[X]]
// CHECK-NEXT: %[[C:.*]] = mindir.sub %{{.*}}, %[[X]]
// CHECK-NEXT: return %[[X]], %[[A]], %[[B]], %[[C]]
func.func @sub(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %pz = mindir.constant dense<0.0> : tensor<4xf32>
  %nz = mindir.constant dense<-0.0> : tensor<4xf32>
  %0 = mindir.sub %x, %pz : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = mindir.sub %x, %nz : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = mindir.sub %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %3 = mindir.sub %pz, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2, %3 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// x * 1 == x and 1 * x == x; x * 0 does NOT fold (NaN, inf, -0.0).
// CHECK-LABEL: func.func @mul
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[I:.*]]: tensor<4xi64>)
// CHECK: %[[Z:.*]] = mindir.mul %[[X]], %{{.*}}
// CHECK-NEXT: return %[[X]], %[[X]], %[[Z]], %[[I]]
func.func @mul(%x: tensor<4xf32>, %i: tensor<4xi64>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi64>) {
  %one = mindir.constant dense<1.0> : tensor<4xf32>
  %zero = mindir.constant dense<0.0> : tensor<4xf32>
  %ione = mindir.constant dense<1> : tensor<4xi64>
  %0 = mindir.mul %x, %one : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = mindir.mul %one, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = mindir.mul %x, %zero : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %3 = mindir.mul %ione, %i : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  return %0, %1, %2, %3 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi64>
}

// -----

// x / 1 == x; 1 / x does NOT fold.
// CHECK-LABEL: func.func @div
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[I:.*]]: tensor<4xi32>)
// CHECK: %[[R:.*]] = mindir.div %{{.*}}, %[[X]]
// CHECK-NEXT: return %[[X]], %[[R]], %[[I]]
func.func @div(%x: tensor<4xf32>, %i: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xi32>) {
  %one = mindir.constant dense<1.0> : tensor<4xf32>
  %ione = mindir.constant dense<1> : tensor<4xi32>
  %0 = mindir.div %x, %one : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = mindir.div %one, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = mindir.div %i, %ione : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xi32>
}

// -----

// Splat (op) splat folds, with broadcasting, to a splat of the result type.
// CHECK-LABEL: func.func @binary_splats
// CHECK-DAG: %[[ADD:.*]] = mindir.constant dense<3.000000e+00> : tensor<2x3xf32>
// CHECK-DAG: %[[SUB:.*]] = mindir.constant dense<-1.000000e+00> : tensor<3xf32>
// CHECK-DAG: %[[MUL:.*]] = mindir.constant dense<2.000000e+00> : tensor<3xf32>
// CHECK-DAG: %[[DIV:.*]] = mindir.constant dense<5.000000e-01> : tensor<3xf32>
// CHECK-DAG: %[[INF:.*]] = mindir.constant dense<0x7F800000> : tensor<3xf32>
// CHECK-DAG: %[[MAX:.*]] = mindir.constant dense<2.000000e+00> : tensor<2x3xf32>
// CHECK-DAG: %[[MIN:.*]] = mindir.constant dense<1.000000e+00> : tensor<2x3xf32>
// CHECK: return %[[ADD]], %[[SUB]], %[[MUL]], %[[DIV]], %[[INF]], %[[MAX]], %[[MIN]]
func.func @binary_splats() -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %one = mindir.constant dense<1.0> : tensor<3xf32>
  %two = mindir.constant dense<2.0> : tensor<2x1xf32>
  %two3 = mindir.constant dense<2.0> : tensor<3xf32>
  %zero = mindir.constant dense<0.0> : tensor<f32>
  %0 = mindir.add %one, %two : (tensor<3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
  %1 = mindir.sub %one, %two3 : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %2 = mindir.mul %one, %two3 : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %3 = mindir.div %one, %two3 : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  // 1 / 0 = +inf exactly.
  %4 = mindir.div %one, %zero : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  %5 = mindir.maximum %one, %two : (tensor<3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
  %6 = mindir.minimum %two, %one : (tensor<2x1xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// Integer arithmetic wraps (two's complement); division truncates.
// CHECK-LABEL: func.func @binary_splats_int
// CHECK-DAG: %[[ADD:.*]] = mindir.constant dense<-128> : tensor<2xi8>
// CHECK-DAG: %[[DIV:.*]] = mindir.constant dense<-3> : tensor<2xi32>
// CHECK-DAG: %[[MUL:.*]] = mindir.constant dense<-14> : tensor<2xi32>
// CHECK-DAG: %[[MAX:.*]] = mindir.constant dense<7> : tensor<2xi32>
// CHECK-DAG: %[[MIN:.*]] = mindir.constant dense<-2> : tensor<2xi32>
// CHECK: return %[[ADD]], %[[DIV]], %[[MUL]], %[[MAX]], %[[MIN]]
func.func @binary_splats_int() -> (tensor<2xi8>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) {
  %a = mindir.constant dense<127> : tensor<2xi8>
  %b = mindir.constant dense<1> : tensor<2xi8>
  %seven = mindir.constant dense<7> : tensor<2xi32>
  %mtwo = mindir.constant dense<-2> : tensor<2xi32>
  %0 = mindir.add %a, %b : (tensor<2xi8>, tensor<2xi8>) -> tensor<2xi8>
  %1 = mindir.div %seven, %mtwo : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  %2 = mindir.mul %seven, %mtwo : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  %3 = mindir.maximum %seven, %mtwo : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  %4 = mindir.minimum %seven, %mtwo : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  return %0, %1, %2, %3, %4 : tensor<2xi8>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>
}

// -----

// Not folded: integer division by zero, INT_MIN / -1, a NaN result
// (0 / 0, inf - inf) and a NaN operand; floordiv/mod/pow never.
// CHECK-LABEL: func.func @binary_not_folded
// CHECK: mindir.div
// CHECK: mindir.div
// CHECK: mindir.div
// CHECK: mindir.sub
// CHECK: mindir.maximum
// CHECK: mindir.floordiv
// CHECK: mindir.mod
// CHECK: mindir.pow
func.func @binary_not_folded() -> (tensor<2xi32>, tensor<2xi32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xi32>, tensor<2xi32>, tensor<2xf32>) {
  %seven = mindir.constant dense<7> : tensor<2xi32>
  %izero = mindir.constant dense<0> : tensor<2xi32>
  %min = mindir.constant dense<-2147483648> : tensor<2xi32>
  %mone = mindir.constant dense<-1> : tensor<2xi32>
  %zero = mindir.constant dense<0.0> : tensor<2xf32>
  %inf = mindir.constant dense<0x7F800000> : tensor<2xf32>
  %nan = mindir.constant dense<0x7FC00000> : tensor<2xf32>
  %two = mindir.constant dense<2.0> : tensor<2xf32>
  %0 = mindir.div %seven, %izero : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  %1 = mindir.div %min, %mone : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  %2 = mindir.div %zero, %zero : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %3 = mindir.sub %inf, %inf : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %4 = mindir.maximum %nan, %two : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %5 = mindir.floordiv %seven, %mone : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  %6 = mindir.mod %seven, %mone : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  %7 = mindir.pow %two, %two : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<2xi32>, tensor<2xi32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xi32>, tensor<2xi32>, tensor<2xf32>
}

// -----

// maximum(x, x) = minimum(x, x) = x.
// CHECK-LABEL: func.func @max_min_same
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT: return %[[X]], %[[X]]
func.func @max_min_same(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = mindir.maximum %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = mindir.minimum %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Comparisons of splats: IEEE for floats (NaN is unordered), signed for
// integers, unsigned for i1.
// CHECK-LABEL: func.func @compare_splats
// CHECK-DAG: %[[T:.*]] = mindir.constant dense<true> : tensor<2xi1>
// CHECK-DAG: %[[F:.*]] = mindir.constant dense<false> : tensor<2xi1>
// CHECK-DAG: %[[T3:.*]] = mindir.constant dense<true> : tensor<2x3xi1>
// CHECK: return %[[T]], %[[F]], %[[T]], %[[F]], %[[T]], %[[T]], %[[F]], %[[T]], %[[F]], %[[T3]]
func.func @compare_splats() -> (tensor<2xi1>, tensor<2xi1>, tensor<2xi1>, tensor<2xi1>, tensor<2xi1>, tensor<2xi1>, tensor<2xi1>, tensor<2xi1>, tensor<2xi1>, tensor<2x3xi1>) {
  %one = mindir.constant dense<1.0> : tensor<2xf32>
  %two = mindir.constant dense<2.0> : tensor<2xf32>
  %nan = mindir.constant dense<0x7FC00000> : tensor<2xf32>
  %pz = mindir.constant dense<0.0> : tensor<2xf32>
  %nz = mindir.constant dense<-0.0> : tensor<2xf32>
  %im = mindir.constant dense<-1> : tensor<2xi32>
  %ip = mindir.constant dense<1> : tensor<2xi32>
  %bf = mindir.constant dense<false> : tensor<2xi1>
  %bt = mindir.constant dense<true> : tensor<2xi1>
  %row = mindir.constant dense<1.0> : tensor<3xf32>
  %col = mindir.constant dense<2.0> : tensor<2x1xf32>
  %0 = mindir.less %one, %two : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
  %1 = mindir.equal %nan, %nan : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
  %2 = mindir.not_equal %nan, %nan : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
  %3 = mindir.greater_equal %nan, %one : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
  // +0.0 == -0.0.
  %4 = mindir.equal %pz, %nz : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
  %5 = mindir.less_equal %im, %ip : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
  %6 = mindir.greater %im, %ip : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
  // false < true.
  %7 = mindir.less %bf, %bt : (tensor<2xi1>, tensor<2xi1>) -> tensor<2xi1>
  %8 = mindir.greater %bf, %bt : (tensor<2xi1>, tensor<2xi1>) -> tensor<2xi1>
  %9 = mindir.less %row, %col : (tensor<3xf32>, tensor<2x1xf32>) -> tensor<2x3xi1>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9 : tensor<2xi1>, tensor<2xi1>, tensor<2xi1>, tensor<2xi1>, tensor<2xi1>, tensor<2xi1>, tensor<2xi1>, tensor<2xi1>, tensor<2xi1>, tensor<2x3xi1>
}

// -----

// Comparing a value with itself does not fold (x == x is false for NaN).
// CHECK-LABEL: func.func @compare_self_not_folded
// CHECK: mindir.equal
func.func @compare_self_not_folded(%x: tensor<4xf32>) -> tensor<4xi1> {
  %0 = mindir.equal %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// CHECK-LABEL: func.func @logical
// CHECK-SAME: (%[[P:.*]]: tensor<4xi1>)
// CHECK-DAG: %[[T:.*]] = mindir.constant dense<true> : tensor<4xi1>
// CHECK-DAG: %[[F:.*]] = mindir.constant dense<false> : tensor<4xi1>
// CHECK-NOT: mindir.logical_
// CHECK: return %[[P]], %[[P]], %[[F]], %[[P]], %[[T]], %[[P]], %[[F]]
func.func @logical(%p: tensor<4xi1>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %t = mindir.constant dense<true> : tensor<4xi1>
  %f = mindir.constant dense<false> : tensor<4xi1>
  %0 = mindir.logical_and %p, %p : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %1 = mindir.logical_and %t, %p : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %2 = mindir.logical_and %p, %f : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %3 = mindir.logical_or %p, %f : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %4 = mindir.logical_or %t, %p : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %5 = mindir.logical_or %p, %p : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %6 = mindir.logical_and %t, %f : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}

// -----

// An absorbing/identity operand that would change the shape is kept.
// CHECK-LABEL: func.func @logical_broadcast
// CHECK: mindir.logical_and
func.func @logical_broadcast(%p: tensor<4xi1>) -> tensor<2x4xi1> {
  %t = mindir.constant dense<true> : tensor<2x4xi1>
  %0 = mindir.logical_and %p, %t : (tensor<4xi1>, tensor<2x4xi1>) -> tensor<2x4xi1>
  return %0 : tensor<2x4xi1>
}

// -----

// CHECK-LABEL: func.func @select
// CHECK-SAME: (%[[C:.*]]: tensor<4xi1>, %[[X:.*]]: tensor<4xf32>, %[[Y:.*]]: tensor<4xf32>, %[[S:.*]]: tensor<f32>)
// CHECK: %[[B:.*]] = mindir.select %{{.*}}, %[[S]], %[[X]] : (tensor<4xi1>, tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: %[[K:.*]] = mindir.select %[[C]], %[[X]], %[[Y]]
// CHECK-NEXT: return %[[X]], %[[Y]], %[[X]], %[[B]], %[[K]]
func.func @select(%c: tensor<4xi1>, %x: tensor<4xf32>, %y: tensor<4xf32>, %s: tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %t = mindir.constant dense<true> : tensor<4xi1>
  %f = mindir.constant dense<false> : tensor<i1>
  %0 = mindir.select %t, %x, %y : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = mindir.select %f, %x, %y : (tensor<i1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = mindir.select %c, %x, %x : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // The picked operand would need broadcasting: kept.
  %3 = mindir.select %t, %s, %x : (tensor<4xi1>, tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
  %4 = mindir.select %c, %x, %y : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2, %3, %4 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// A reduction over unit dims with keep_dims (or of a 0-d tensor) is the
// identity; max/min of a splat is the splat; sum/mean/prod of a splat are not
// folded (they round).
// CHECK-LABEL: func.func @reductions
// CHECK-SAME: (%[[X:.*]]: tensor<2x1xf32>, %[[S:.*]]: tensor<f32>)
// CHECK-DAG: %[[MAX:.*]] = mindir.constant dense<3.000000e+00> : tensor<2xf32>
// CHECK: %[[SUM:.*]] = mindir.reduce_sum %{{.*}} {axes = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2xf32>
// CHECK: %[[K:.*]] = mindir.reduce_mean %[[X]] {axes = array<i64: 1>} : (tensor<2x1xf32>) -> tensor<2xf32>
// CHECK: return %[[X]], %[[S]], %[[MAX]], %[[MAX]], %[[SUM]], %[[K]]
func.func @reductions(%x: tensor<2x1xf32>, %s: tensor<f32>) -> (tensor<2x1xf32>, tensor<f32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %c = mindir.constant dense<3.0> : tensor<2x3xf32>
  %0 = mindir.reduce_sum %x {axes = array<i64: 1>, keep_dims = true} : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %1 = mindir.reduce_prod %s : (tensor<f32>) -> tensor<f32>
  %2 = mindir.reduce_max %c {axes = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2xf32>
  %3 = mindir.reduce_min %c {axes = array<i64: -1>} : (tensor<2x3xf32>) -> tensor<2xf32>
  %4 = mindir.reduce_sum %c {axes = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2xf32>
  // Without keep_dims the type changes: kept.
  %5 = mindir.reduce_mean %x {axes = array<i64: 1>} : (tensor<2x1xf32>) -> tensor<2xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<2x1xf32>, tensor<f32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}

// -----

// CHECK-LABEL: func.func @reshape
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-DAG: %[[C:.*]] = mindir.constant dense<{{\[}}[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
// CHECK: %[[R:.*]] = mindir.reshape %[[X]] {shape = array<i64: 4, -1>} : (tensor<2x3x4xf32>) -> tensor<4x6xf32>
// CHECK-NEXT: return %[[X]], %[[R]], %[[C]]
func.func @reshape(%x: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<4x6xf32>, tensor<2x3xi32>) {
  %0 = mindir.reshape %x {shape = array<i64: 2, 3, 4>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %1 = mindir.reshape %x {shape = array<i64: 24>} : (tensor<2x3x4xf32>) -> tensor<24xf32>
  %2 = mindir.reshape %1 {shape = array<i64: 4, -1>} : (tensor<24xf32>) -> tensor<4x6xf32>
  %c = mindir.constant dense<[1, 2, 3, 4, 5, 6]> : tensor<6xi32>
  %3 = mindir.reshape %c {shape = array<i64: 2, 3>} : (tensor<6xi32>) -> tensor<2x3xi32>
  return %0, %2, %3 : tensor<2x3x4xf32>, tensor<4x6xf32>, tensor<2x3xi32>
}

// -----

// CHECK-LABEL: func.func @transpose
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-DAG: %[[C:.*]] = mindir.constant dense<5.000000e-01> : tensor<3x2xf32>
// CHECK: %[[T:.*]] = mindir.transpose %[[X]] {perm = array<i64: 2, 1, 0>} : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
// CHECK-NEXT: return %[[X]], %[[X]], %[[T]], %[[C]]
func.func @transpose(%x: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<4x3x2xf32>, tensor<3x2xf32>) {
  %0 = mindir.transpose %x {perm = array<i64: 0, 1, 2>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  // A permutation and its inverse cancel.
  %1 = mindir.transpose %x {perm = array<i64: 1, 2, 0>} : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
  %2 = mindir.transpose %1 {perm = array<i64: 2, 0, 1>} : (tensor<3x4x2xf32>) -> tensor<2x3x4xf32>
  // Two permutations compose into one.
  %3 = mindir.transpose %1 {perm = array<i64: 1, 0, 2>} : (tensor<3x4x2xf32>) -> tensor<4x3x2xf32>
  %c = mindir.constant dense<0.5> : tensor<2x3xf32>
  %4 = mindir.transpose %c {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0, %2, %3, %4 : tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<4x3x2xf32>, tensor<3x2xf32>
}

// -----

// A non-splat constant is not transposed at compile time.
// CHECK-LABEL: func.func @transpose_dense_kept
// CHECK: mindir.transpose
func.func @transpose_dense_kept() -> tensor<2x1xf32> {
  %c = mindir.constant dense<[[1.0, 2.0]]> : tensor<1x2xf32>
  %0 = mindir.transpose %c {perm = array<i64: 1, 0>} : (tensor<1x2xf32>) -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}

// -----

// CHECK-LABEL: func.func @broadcast_to
// CHECK-SAME: (%[[X:.*]]: tensor<3xf32>)
// CHECK-DAG: %[[C:.*]] = mindir.constant dense<7> : tensor<2x3xi32>
// CHECK: %[[B:.*]] = mindir.broadcast_to %[[X]] {shape = array<i64: 4, 2, 3>} : (tensor<3xf32>) -> tensor<4x2x3xf32>
// CHECK-NEXT: return %[[X]], %[[B]], %[[C]]
func.func @broadcast_to(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<4x2x3xf32>, tensor<2x3xi32>) {
  %0 = mindir.broadcast_to %x {shape = array<i64: 3>} : (tensor<3xf32>) -> tensor<3xf32>
  %1 = mindir.broadcast_to %x {shape = array<i64: 2, -1>} : (tensor<3xf32>) -> tensor<2x3xf32>
  %2 = mindir.broadcast_to %1 {shape = array<i64: 4, -1, -1>} : (tensor<2x3xf32>) -> tensor<4x2x3xf32>
  %c = mindir.constant dense<7> : tensor<1x3xi32>
  %3 = mindir.broadcast_to %c {shape = array<i64: 2, 3>} : (tensor<1x3xi32>) -> tensor<2x3xi32>
  return %0, %2, %3 : tensor<3xf32>, tensor<4x2x3xf32>, tensor<2x3xi32>
}

// -----

// CHECK-LABEL: func.func @squeeze_expand_flatten
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>, %[[Y:.*]]: tensor<2x3x4xf32>)
// CHECK-DAG: %[[E:.*]] = mindir.constant dense<{{\[}}[1.000000e+00, 2.000000e+00]]> : tensor<1x2xf32>
// CHECK-DAG: %[[S:.*]] = mindir.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK: %[[F:.*]] = mindir.flatten %[[Y]]
// CHECK-NEXT: return %[[X]], %[[X]], %[[E]], %[[S]], %[[F]]
func.func @squeeze_expand_flatten(%x: tensor<2x3xf32>, %y: tensor<2x3x4xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<1x2xf32>, tensor<2xf32>, tensor<2x12xf32>) {
  // Nothing to squeeze, nothing to flatten: identities.
  %0 = mindir.squeeze %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = mindir.flatten %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %c = mindir.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %2 = mindir.expand_dims %c {axis = 0 : i64} : (tensor<2xf32>) -> tensor<1x2xf32>
  %3 = mindir.squeeze %2 : (tensor<1x2xf32>) -> tensor<2xf32>
  %4 = mindir.flatten %y : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
  return %0, %1, %2, %3, %4 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<1x2xf32>, tensor<2xf32>, tensor<2x12xf32>
}

// -----

// CHECK-LABEL: func.func @slices
// CHECK-SAME: (%[[X:.*]]: tensor<4x6xf32>)
// CHECK-DAG: %[[C:.*]] = mindir.constant dense<1> : tensor<2x2xi32>
// CHECK: %[[REV:.*]] = mindir.strided_slice %[[X]] {begin = array<i64: 3, 0>, end = array<i64: -1, 6>, strides = array<i64: -1, 1>} : (tensor<4x6xf32>) -> tensor<4x6xf32>
// CHECK-NEXT: %[[SUB:.*]] = mindir.slice %[[X]]
// CHECK-NEXT: return %[[X]], %[[X]], %[[REV]], %[[SUB]], %[[C]], %[[C]]
func.func @slices(%x: tensor<4x6xf32>) -> (tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<2x6xf32>, tensor<2x2xi32>, tensor<2x2xi32>) {
  %0 = mindir.slice %x {begin = array<i64: 0, 0>, size = array<i64: -1, 6>} : (tensor<4x6xf32>) -> tensor<4x6xf32>
  %1 = mindir.strided_slice %x {begin = array<i64: 0, 0>, end = array<i64: 4, 6>, strides = array<i64: 1, 1>} : (tensor<4x6xf32>) -> tensor<4x6xf32>
  // Same type but reversed: NOT an identity.
  %2 = mindir.strided_slice %x {begin = array<i64: 3, 0>, end = array<i64: -1, 6>, strides = array<i64: -1, 1>} : (tensor<4x6xf32>) -> tensor<4x6xf32>
  %3 = mindir.slice %x {begin = array<i64: 1, 0>, size = array<i64: 2, 6>} : (tensor<4x6xf32>) -> tensor<2x6xf32>
  %c = mindir.constant dense<1> : tensor<4x4xi32>
  %4 = mindir.slice %c {begin = array<i64: 1, 1>, size = array<i64: 2, 2>} : (tensor<4x4xi32>) -> tensor<2x2xi32>
  %5 = mindir.strided_slice %c {begin = array<i64: 0, 3>, end = array<i64: 4, -1>, strides = array<i64: 2, -2>} : (tensor<4x4xi32>) -> tensor<2x2xi32>
  return %0, %1, %2, %3, %4, %5 : tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<2x6xf32>, tensor<2x2xi32>, tensor<2x2xi32>
}

// -----

// CHECK-LABEL: func.func @tile_pad_concat
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-DAG: %[[C:.*]] = mindir.constant dense<2.000000e+00> : tensor<4x3xf32>
// CHECK: %[[T:.*]] = mindir.tile %[[X]]
// CHECK-NEXT: %[[P:.*]] = mindir.pad %[[X]]
// CHECK-NEXT: %[[K:.*]] = mindir.concat %[[X]], %[[X]]
// CHECK-NEXT: return %[[X]], %[[X]], %[[X]], %[[C]], %[[T]], %[[P]], %[[K]]
func.func @tile_pad_concat(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<2x5xf32>, tensor<4x3xf32>) {
  %0 = mindir.tile %x {multiples = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = mindir.pad %x {paddings = array<i64: 0, 0, 0, 0>, constant_value = 5.0 : f64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = mindir.concat %x {axis = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %c = mindir.constant dense<2.0> : tensor<1x3xf32>
  %3 = mindir.tile %c {multiples = array<i64: 4, 1>} : (tensor<1x3xf32>) -> tensor<4x3xf32>
  %4 = mindir.tile %x {multiples = array<i64: 2, 1>} : (tensor<2x3xf32>) -> tensor<4x3xf32>
  %5 = mindir.pad %x {paddings = array<i64: 0, 0, 1, 1>} : (tensor<2x3xf32>) -> tensor<2x5xf32>
  %6 = mindir.concat %x, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<2x5xf32>, tensor<4x3xf32>
}

// -----

// depend without deps is its value; with deps it is kept. An assign is kept
// even when its result is unused (it writes the variable).
// CHECK-LABEL: func.func @state
// CHECK-SAME: (%[[W:.*]]: tensor<4xf32>, %[[N:.*]]: tensor<4xf32>, %[[X:.*]]: tensor<2xf32>)
// CHECK-NEXT: %[[A:.*]] = mindir.assign %[[W]], %[[N]] : tensor<4xf32>
// CHECK-NEXT: mindir.assign %[[W]], %[[A]] : tensor<4xf32>
// CHECK-NEXT: %[[D:.*]] = mindir.depend %[[X]] after %[[A]] : tensor<4xf32> : tensor<2xf32>
// CHECK-NEXT: return %[[X]], %[[D]]
func.func @state(%w: tensor<4xf32>, %new: tensor<4xf32>, %x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %a = mindir.assign %w, %new : tensor<4xf32>
  %unused = mindir.assign %w, %a : tensor<4xf32>
  %0 = mindir.depend %x : tensor<2xf32>
  %1 = mindir.depend %x after %a : tensor<4xf32> : tensor<2xf32>
  return %0, %1 : tensor<2xf32>, tensor<2xf32>
}

// -----

// Unused pure ops are removed; random ops are pure (stateless, seeded).
// CHECK-LABEL: func.func @dead_code
// CHECK-NEXT: return
func.func @dead_code(%x: tensor<4xf32>) {
  %0 = mindir.exp %x : tensor<4xf32>
  %1 = mindir.random_uniform {seed = 1 : i64} : tensor<4xf32>
  %2:2 = mindir.dropout %x : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return
}
