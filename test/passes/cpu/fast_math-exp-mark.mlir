// RUN: ms-opt %s --msmlir-cpu-fast-math | FileCheck %s

// A function that gets a polynomial exp is marked msmlir.fast_exp (the only
// functions msmlir-cpu-scale-by-ldexp{marked-only=true} looks at); one with
// only a tanh, or an exp too narrow to rewrite (< min-lanes), is not.
// CHECK-LABEL: func.func @exp_vec
// CHECK-SAME:    attributes {msmlir.fast_exp}
// CHECK-NOT:     math.exp
func.func @exp_vec(%x: vector<16xf32>) -> vector<16xf32> {
  %r = math.exp %x : vector<16xf32>
  return %r : vector<16xf32>
}

// CHECK-LABEL: func.func @exp_in_loop
// CHECK-SAME:    attributes {msmlir.fast_exp}
// CHECK:         scf.for
// CHECK-NOT:     math.exp
func.func @exp_in_loop(%x: vector<16xf32>, %n: index) -> vector<16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> (vector<16xf32>) {
    %e = math.exp %a : vector<16xf32>
    scf.yield %e : vector<16xf32>
  }
  return %r : vector<16xf32>
}

// CHECK-LABEL: func.func @tanh_only
// CHECK-NOT:     msmlir.fast_exp
// CHECK:         return
func.func @tanh_only(%x: vector<16xf32>) -> vector<16xf32> {
  %r = math.tanh %x : vector<16xf32>
  return %r : vector<16xf32>
}

// CHECK-LABEL: func.func @narrow_exp
// CHECK-NOT:     msmlir.fast_exp
// CHECK:         math.exp {{.*}} : vector<4xf32>
func.func @narrow_exp(%x: vector<4xf32>) -> vector<4xf32> {
  %r = math.exp %x : vector<4xf32>
  return %r : vector<4xf32>
}
