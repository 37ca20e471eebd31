// RUN: ms-opt %s --msmlir-cpu-fast-math --canonicalize | FileCheck %s
// RUN: ms-opt %s --msmlir-cpu-fast-math="row-ops=false" | FileCheck %s --check-prefix=NOROW

// exp: two clamps, the reduction (t = x/ln2 + magic, n = t - magic, r in
// two FMAs), the degree-6 polynomial as six FMAs, the 2^n scale.
// CHECK-LABEL: func.func @exp
// CHECK-COUNT-2: arith.select
// CHECK:         %[[T:.*]] = math.fma
// CHECK-NEXT:    arith.subf %[[T]]
// CHECK-COUNT-8: math.fma
// CHECK-NOT:     math.fma
// CHECK:         arith.bitcast %[[T]]
// CHECK-NOT:     math.fma
// CHECK:         return
func.func @exp(%x: vector<16xf32>) -> vector<16xf32> {
  %y = math.exp %x : vector<16xf32>
  return %y : vector<16xf32>
}

// A softmax's exp (msmlir-fuse-rows marks x - max nonpositive): the lower
// clamp only.
// CHECK-LABEL: func.func @exp_nonpositive
// CHECK:         %[[LO:.*]] = arith.cmpf olt, %arg0
// CHECK-NEXT:    %[[XC:.*]] = arith.select %[[LO]], %{{.*}}, %arg0
// CHECK-NEXT:    math.fma %[[XC]]
// CHECK-NOT:     arith.select
// CHECK-NOT:     arith.cmpf
// CHECK-NOT:     msmlir.nonpositive
// CHECK:         return
func.func @exp_nonpositive(%x: vector<16xf32>) -> vector<16xf32> {
  %y = math.exp %x {msmlir.nonpositive} : vector<16xf32>
  return %y : vector<16xf32>
}

// A softmax's row max (marked shift-only): compare and select, the
// accumulator (second operand) first; an unmarked maximumf (NaN-propagating
// semantics observable) stays. row-ops=false keeps both.
// CHECK-LABEL: func.func @max
// CHECK:         %[[C:.*]] = arith.cmpf ogt, %arg1, %arg0 : vector<16xf32>
// CHECK-NEXT:    %[[S:.*]] = arith.select %[[C]], %arg1, %arg0
// CHECK-NEXT:    %[[M:.*]] = arith.maximumf %arg0, %arg1 : vector<16xf32>
// CHECK-NEXT:    return %[[S]], %[[M]]
// NOROW-LABEL: func.func @max
// NOROW:         arith.maximumf %arg0, %arg1 {msmlir.shift_only}
// NOROW:         arith.maximumf %arg0, %arg1 : vector<16xf32>
func.func @max(%x: vector<16xf32>, %acc: vector<16xf32>) -> (vector<16xf32>, vector<16xf32>) {
  %a = arith.maximumf %x, %acc {msmlir.shift_only} : vector<16xf32>
  %b = arith.maximumf %x, %acc : vector<16xf32>
  return %a, %b : vector<16xf32>, vector<16xf32>
}
