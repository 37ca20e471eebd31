// RUN: ms-opt %s --msmlir-cpu-fast-math="min-lanes=1" | FileCheck %s
// RUN: ms-opt %s --msmlir-cpu-fast-math="ops=tanh min-lanes=1" | FileCheck %s --check-prefix=ONLY-TANH
// RUN: ms-opt %s --msmlir-cpu-fast-math | FileCheck %s --check-prefix=DEFAULT
// RUN: ms-opt %s --msmlir-cpu-fast-math="row-ops=false" | FileCheck %s --check-prefix=NOROW

// By default only vector ops of >= 8 lanes are rewritten (scalar code keeps
// the accurate intrinsic / libm call).
// DEFAULT-LABEL: func.func @exp_vec
// DEFAULT-NOT:     math.exp
// DEFAULT-LABEL: func.func @tanh_scalar
// DEFAULT:         math.tanh {{.*}} : f32

// f32 exp: Cody-Waite reduction with FMAs, a degree-6 polynomial and a
// 2^n scale built from exponent bits (two factors, for subnormal results);
// n = round(x/ln2) comes from the magic number 1.5*2^23 (0x4B400000) added by
// an FMA and is read back with a bitcast (no rounding op, no fptosi, no NaN
// select).
// CHECK-LABEL: func.func @exp_vec
// CHECK-NOT:     math.exp
// CHECK:         %[[MAGIC:.*]] = arith.constant dense<0x4B400000> : vector<16xf32>
// CHECK:         %[[T:.*]] = math.fma %{{.*}}, %{{.*}}, %[[MAGIC]] : vector<16xf32>
// CHECK:         arith.subf %[[T]], %[[MAGIC]] : vector<16xf32>
// CHECK:         math.fma
// CHECK:         arith.bitcast %[[T]] : vector<16xf32> to vector<16xi32>
// CHECK:         arith.shli
// CHECK:         arith.bitcast {{.*}} : vector<16xi32> to vector<16xf32>
// CHECK:         arith.mulf
// CHECK-NOT:     arith.select
// CHECK:         return
// ONLY-TANH-LABEL: func.func @exp_vec
// ONLY-TANH:       math.exp
func.func @exp_vec(%x: vector<16xf32>) -> vector<16xf32> {
  %y = math.exp %x : vector<16xf32>
  return %y : vector<16xf32>
}

// tanh: rational x*(P(x^2)/Q(x^2)) on the clamped input, no selects after
// the quotient (the clamp gives +-1 for big x, x * ~1 is right for tiny x).
// CHECK-LABEL: func.func @tanh_scalar
// CHECK-NOT:     math.tanh
// CHECK:         %[[Q:.*]] = arith.divf
// CHECK-NEXT:    %[[Y:.*]] = arith.mulf %{{.*}}, %[[Q]] : f32
// CHECK-NEXT:    return %[[Y]] : f32
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

// row-ops: an f32 vector divided by a broadcast value (softmax's x / sum)
// becomes a multiplication by the broadcast reciprocal; a division by a
// vector that is not a broadcast is kept.
// CHECK-LABEL: func.func @div_by_broadcast
// CHECK:         %[[ONE:.*]] = arith.constant dense<1.000000e+00> : vector<1xf32>
// CHECK:         %[[R:.*]] = arith.divf %[[ONE]], %arg1 : vector<1xf32>
// CHECK:         %[[B:.*]] = vector.broadcast %[[R]] : vector<1xf32> to vector<16xf32>
// CHECK:         arith.mulf %arg0, %[[B]] : vector<16xf32>
// CHECK:         arith.divf %arg0, %arg2 : vector<16xf32>
// NOROW-LABEL: func.func @div_by_broadcast
// NOROW:         arith.divf %arg0, %{{.*}} : vector<16xf32>
// NOROW-NOT:     arith.mulf
func.func @div_by_broadcast(%a: vector<16xf32>, %s: vector<1xf32>, %v: vector<16xf32>) -> (vector<16xf32>, vector<16xf32>) {
  %b = vector.broadcast %s : vector<1xf32> to vector<16xf32>
  %r = arith.divf %a, %b : vector<16xf32>
  %q = arith.divf %a, %v : vector<16xf32>
  return %r, %q : vector<16xf32>, vector<16xf32>
}

// row-ops: the max / sum of a row's partial vector is a halving tree of
// elementwise ops (LLVM would expand the reductions lane by lane); sizes
// with an odd factor end with a vector.reduction of that many lanes; integer
// and masked reductions are kept.
// CHECK-LABEL: func.func @row_reductions
// CHECK:         %[[V:.*]] = vector.shape_cast %arg0 : vector<1x16xf32> to vector<16xf32>
// CHECK:         %[[LO:.*]] = vector.extract_strided_slice %[[V]] {offsets = [0], sizes = [8], strides = [1]}
// CHECK:         %[[HI:.*]] = vector.extract_strided_slice %[[V]] {offsets = [8], sizes = [8], strides = [1]}
// CHECK:         arith.maximumf %[[LO]], %[[HI]] : vector<8xf32>
// CHECK:         arith.maximumf {{.*}} : vector<4xf32>
// CHECK:         arith.maximumf {{.*}} : vector<2xf32>
// CHECK:         arith.maximumf {{.*}} : vector<1xf32>
// CHECK:         arith.maximumf %{{.*}}, %arg1 : vector<1xf32>
// CHECK:         arith.addf {{.*}} : vector<24xf32>
// CHECK:         arith.addf {{.*}} : vector<12xf32>
// CHECK:         arith.addf {{.*}} : vector<6xf32>
// CHECK:         arith.addf {{.*}} : vector<3xf32>
// CHECK:         vector.reduction <add>, %{{.*}}, %arg3 : vector<3xf32> into f32
// CHECK:         vector.multi_reduction <add>, %arg4, %arg3 [0] : vector<7xf32> to f32
// CHECK:         vector.multi_reduction <maxsi>
// CHECK:         vector.mask %arg7 { vector.multi_reduction <add>
// NOROW-LABEL: func.func @row_reductions
// NOROW:         vector.multi_reduction <maximumf>
// NOROW:         vector.multi_reduction <add>
func.func @row_reductions(%a: vector<1x16xf32>, %acc: vector<1xf32>, %b: vector<48xf32>, %s: f32,
                          %c: vector<7xf32>, %i: vector<1x16xi32>, %iacc: vector<1xi32>,
                          %m: vector<1x16xi1>) -> (vector<1xf32>, f32, f32, vector<1xi32>, vector<1xf32>) {
  %r = vector.multi_reduction <maximumf>, %a, %acc [1] : vector<1x16xf32> to vector<1xf32>
  %t = vector.multi_reduction <add>, %b, %s [0] : vector<48xf32> to f32
  %u = vector.multi_reduction <add>, %c, %s [0] : vector<7xf32> to f32
  %w = vector.multi_reduction <maxsi>, %i, %iacc [1] : vector<1x16xi32> to vector<1xi32>
  // masked (a partial tile): kept, the masked-off lanes must not be combined
  %x = vector.mask %m { vector.multi_reduction <add>, %a, %acc [1] : vector<1x16xf32> to vector<1xf32> } : vector<1x16xi1> -> vector<1xf32>
  return %r, %t, %u, %w, %x : vector<1xf32>, f32, f32, vector<1xi32>, vector<1xf32>
}
