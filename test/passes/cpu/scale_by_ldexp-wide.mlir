// RUN: ms-opt %s --msmlir-cpu-scale-by-ldexp --split-input-file | FileCheck %s

// The fast exp's scale on 64 lanes (an exp inside a 64-wide reduction loop,
// e.g. log_softmax's sum of exp(x - m)): four 16-lane vscalefps by the float
// n = t - 1.5*2^23, on 16-lane slices of y and n taken by shuffles and joined
// pairwise (the X86 back end folds the shuffles: each slice is one zmm);
// no integer exponent arithmetic (vpaddd + vcvtdq2ps of llvm.ldexp) left.
// CHECK-LABEL: llvm.func @exp_scale_64
// CHECK-SAME:    (%[[Y:.*]]: vector<64xf32>, %[[T:.*]]: vector<64xf32>)
// CHECK:         %[[NF:.*]] = llvm.fsub %[[T]], %{{.*}} : vector<64xf32>
// CHECK:         %[[Y0:.*]] = llvm.shufflevector %[[Y]], %[[Y]] [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15] : vector<64xf32>
// CHECK:         %[[N0:.*]] = llvm.shufflevector %[[NF]], %[[NF]] [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15] : vector<64xf32>
// CHECK:         %[[R0:.*]] = llvm.call_intrinsic "llvm.x86.avx512.mask.scalef.ps.512"(%[[Y0]], %[[N0]], %[[Y0]], %{{.*}}, %{{.*}}) : (vector<16xf32>
// CHECK:         llvm.shufflevector %[[Y]], %[[Y]] [48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63]
// CHECK:         %[[R3:.*]] = llvm.call_intrinsic "llvm.x86.avx512.mask.scalef.ps.512"
// CHECK-NOT:     llvm.call_intrinsic
// CHECK:         llvm.shufflevector %[[R0]], %{{.*}} [0, 1, {{.*}}, 31] : vector<16xf32>
// CHECK:         llvm.shufflevector %{{.*}}, %[[R3]] [0, 1, {{.*}}, 31] : vector<16xf32>
// CHECK:         %[[R:.*]] = llvm.shufflevector %{{.*}}, %{{.*}} [0, 1, {{.*}}, 63] : vector<32xf32>
// CHECK-NOT:     llvm.shl
// CHECK-NOT:     llvm.bitcast
// CHECK:         llvm.return %[[R]] : vector<64xf32>
llvm.func @exp_scale_64(%y: vector<64xf32>, %t: vector<64xf32>) -> vector<64xf32> {
  %magic = llvm.mlir.constant(dense<1262485504> : vector<64xi32>) : vector<64xi32>
  %c1 = llvm.mlir.constant(dense<1> : vector<64xi32>) : vector<64xi32>
  %c23 = llvm.mlir.constant(dense<23> : vector<64xi32>) : vector<64xi32>
  %c127 = llvm.mlir.constant(dense<127> : vector<64xi32>) : vector<64xi32>
  %tb = llvm.bitcast %t : vector<64xf32> to vector<64xi32>
  %n = llvm.sub %tb, %magic : vector<64xi32>
  %n1 = llvm.ashr %n, %c1 : vector<64xi32>
  %n2 = llvm.sub %n, %n1 : vector<64xi32>
  %a1 = llvm.add %n1, %c127 : vector<64xi32>
  %b1 = llvm.shl %a1, %c23 : vector<64xi32>
  %s1 = llvm.bitcast %b1 : vector<64xi32> to vector<64xf32>
  %a2 = llvm.add %n2, %c127 : vector<64xi32>
  %b2 = llvm.shl %a2, %c23 : vector<64xi32>
  %s2 = llvm.bitcast %b2 : vector<64xi32> to vector<64xf32>
  %p = llvm.fmul %y, %s1 : vector<64xf32>
  %r = llvm.fmul %p, %s2 : vector<64xf32>
  llvm.return %r : vector<64xf32>
}

// -----

// 48 lanes (not 16 * 2^k): llvm.ldexp of the integer n, as for 8 lanes.
// CHECK-LABEL: llvm.func @exp_scale_48
// CHECK-NOT:     scalef
// CHECK:         llvm.call_intrinsic "llvm.ldexp"
llvm.func @exp_scale_48(%y: vector<48xf32>, %t: vector<48xf32>) -> vector<48xf32> {
  %magic = llvm.mlir.constant(dense<1262485504> : vector<48xi32>) : vector<48xi32>
  %c1 = llvm.mlir.constant(dense<1> : vector<48xi32>) : vector<48xi32>
  %c23 = llvm.mlir.constant(dense<23> : vector<48xi32>) : vector<48xi32>
  %c127 = llvm.mlir.constant(dense<127> : vector<48xi32>) : vector<48xi32>
  %tb = llvm.bitcast %t : vector<48xf32> to vector<48xi32>
  %n = llvm.sub %tb, %magic : vector<48xi32>
  %n1 = llvm.ashr %n, %c1 : vector<48xi32>
  %n2 = llvm.sub %n, %n1 : vector<48xi32>
  %a1 = llvm.add %n1, %c127 : vector<48xi32>
  %b1 = llvm.shl %a1, %c23 : vector<48xi32>
  %s1 = llvm.bitcast %b1 : vector<48xi32> to vector<48xf32>
  %a2 = llvm.add %n2, %c127 : vector<48xi32>
  %b2 = llvm.shl %a2, %c23 : vector<48xi32>
  %s2 = llvm.bitcast %b2 : vector<48xi32> to vector<48xf32>
  %p = llvm.fmul %y, %s1 : vector<48xf32>
  %r = llvm.fmul %p, %s2 : vector<48xf32>
  llvm.return %r : vector<48xf32>
}
