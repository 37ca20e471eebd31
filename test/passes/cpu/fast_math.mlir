// RUN: ms-opt %s --msmlir-cpu-fast-math="min-lanes=1" | FileCheck %s
// RUN: ms-opt %s --msmlir-cpu-fast-math="ops=tanh min-lanes=1" | FileCheck %s --check-prefix=ONLY-TANH
// RUN: ms-opt %s --msmlir-cpu-fast-math | FileCheck %s --check-prefix=DEFAULT

// By default only vector ops of >= 8 lanes are rewritten (scalar code keeps
// the accurate intrinsic / libm call).
// DEFAULT-LABEL: func.func @exp_vec
// DEFAULT-NOT:     math.exp
// DEFAULT-LABEL: func.func @tanh_scalar
// DEFAULT:         math.tanh {{.*}} : f32

// f32 exp: Cody-Waite reduction with FMAs, a degree-6 polynomial and a
// 2^n scale built from exponent bits (two factors, for subnormal results).
// CHECK-LABEL: func.func @exp_vec
// CHECK-NOT:     math.exp
// CHECK:         arith.cmpf uno
// CHECK:         math.floor {{.*}} : vector<16xf32>
// CHECK:         math.fma
// CHECK:         arith.fptosi {{.*}} : vector<16xf32> to vector<16xi32>
// CHECK:         arith.shli
// CHECK:         arith.bitcast {{.*}} : vector<16xi32> to vector<16xf32>
// CHECK:         arith.select
// ONLY-TANH-LABEL: func.func @exp_vec
// ONLY-TANH:       math.exp
func.func @exp_vec(%x: vector<16xf32>) -> vector<16xf32> {
  %y = math.exp %x : vector<16xf32>
  return %y : vector<16xf32>
}

// tanh: rational x*P(x^2)/Q(x^2) on the clamped input.
// CHECK-LABEL: func.func @tanh_scalar
// CHECK-NOT:     math.tanh
// CHECK:         arith.divf
// CHECK:         math.copysign
// ONLY-TANH-LABEL: func.func @tanh_scalar
// ONLY-TANH-NOT:   math.tanh
// ONLY-TANH:       arith.divf
// ONLY-TANH:       return
func.func @tanh_scalar(%x: f32) -> f32 {
  %y = math.tanh %x : f32
  return %y : f32
}

// erf, on a 2-D vector.
// CHECK-LABEL: func.func @erf_2d
// CHECK-NOT:     math.erf
// CHECK:         arith.divf {{.*}} : vector<2x8xf32>
func.func @erf_2d(%x: vector<2x8xf32>) -> vector<2x8xf32> {
  %y = math.erf %x : vector<2x8xf32>
  return %y : vector<2x8xf32>
}

// Other element types keep their math ops (libm / LLVM intrinsics).
// CHECK-LABEL: func.func @f64_untouched
// CHECK:         math.exp {{.*}} : f64
// CHECK:         math.tanh {{.*}} : vector<4xf16>
func.func @f64_untouched(%x: f64, %h: vector<4xf16>) -> (f64, vector<4xf16>) {
  %y = math.exp %x : f64
  %t = math.tanh %h : vector<4xf16>
  return %y, %t : f64, vector<4xf16>
}
