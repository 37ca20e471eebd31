// RUN: ms-opt %s --msmlir-cpu-scale-by-ldexp --split-input-file | FileCheck %s

// The fast exp's scale, n read from the magic-number sum t (n = bitcast(t) -
// 0x4B400000), on 16 lanes: one vscalefps by the float n = t - 1.5*2^23 (all
// lanes, current rounding); the integer exponent arithmetic is gone.
// CHECK-LABEL: llvm.func @exp_scale
// CHECK-SAME:    (%[[Y:.*]]: vector<16xf32>, %[[T:.*]]: vector<16xf32>)
// CHECK-DAG:     %[[MAGIC:.*]] = llvm.mlir.constant(dense<0x4B400000> : vector<16xf32>)
// CHECK-DAG:     %[[NF:.*]] = llvm.fsub %[[T]], %[[MAGIC]] : vector<16xf32>
// CHECK-DAG:     %[[ALL:.*]] = llvm.mlir.constant(-1 : i16) : i16
// CHECK-DAG:     %[[CUR:.*]] = llvm.mlir.constant(4 : i32) : i32
// CHECK:         %[[R:.*]] = llvm.call_intrinsic "llvm.x86.avx512.mask.scalef.ps.512"(%[[Y]], %[[NF]], %[[Y]], %[[ALL]], %[[CUR]])
// CHECK-NOT:     llvm.shl
// CHECK-NOT:     llvm.bitcast
// CHECK:         llvm.return %[[R]]
llvm.func @exp_scale(%y: vector<16xf32>, %t: vector<16xf32>) -> vector<16xf32> {
  %magic = llvm.mlir.constant(dense<1262485504> : vector<16xi32>) : vector<16xi32>
  %c1 = llvm.mlir.constant(dense<1> : vector<16xi32>) : vector<16xi32>
  %c23 = llvm.mlir.constant(dense<23> : vector<16xi32>) : vector<16xi32>
  %c127 = llvm.mlir.constant(dense<127> : vector<16xi32>) : vector<16xi32>
  %tb = llvm.bitcast %t : vector<16xf32> to vector<16xi32>
  %n = llvm.sub %tb, %magic : vector<16xi32>
  %n1 = llvm.ashr %n, %c1 : vector<16xi32>
  %n2 = llvm.sub %n, %n1 : vector<16xi32>
  %a1 = llvm.add %n1, %c127 : vector<16xi32>
  %b1 = llvm.shl %a1, %c23 : vector<16xi32>
  %s1 = llvm.bitcast %b1 : vector<16xi32> to vector<16xf32>
  %a2 = llvm.add %n2, %c127 : vector<16xi32>
  %b2 = llvm.shl %a2, %c23 : vector<16xi32>
  %s2 = llvm.bitcast %b2 : vector<16xi32> to vector<16xf32>
  %p = llvm.fmul %y, %s1 : vector<16xf32>
  %r = llvm.fmul %p, %s2 : vector<16xf32>
  llvm.return %r : vector<16xf32>
}

// -----

// The same on 8 lanes (no 512-bit scalef): llvm.ldexp of the integer n.
// CHECK-LABEL: llvm.func @exp_scale_8
// CHECK-NOT:     scalef
// CHECK:         llvm.call_intrinsic "llvm.ldexp"
llvm.func @exp_scale_8(%y: vector<8xf32>, %t: vector<8xf32>) -> vector<8xf32> {
  %magic = llvm.mlir.constant(dense<1262485504> : vector<8xi32>) : vector<8xi32>
  %c1 = llvm.mlir.constant(dense<1> : vector<8xi32>) : vector<8xi32>
  %c23 = llvm.mlir.constant(dense<23> : vector<8xi32>) : vector<8xi32>
  %c127 = llvm.mlir.constant(dense<127> : vector<8xi32>) : vector<8xi32>
  %tb = llvm.bitcast %t : vector<8xf32> to vector<8xi32>
  %n = llvm.sub %tb, %magic : vector<8xi32>
  %n1 = llvm.ashr %n, %c1 : vector<8xi32>
  %n2 = llvm.sub %n, %n1 : vector<8xi32>
  %a1 = llvm.add %n1, %c127 : vector<8xi32>
  %b1 = llvm.shl %a1, %c23 : vector<8xi32>
  %s1 = llvm.bitcast %b1 : vector<8xi32> to vector<8xf32>
  %a2 = llvm.add %n2, %c127 : vector<8xi32>
  %b2 = llvm.shl %a2, %c23 : vector<8xi32>
  %s2 = llvm.bitcast %b2 : vector<8xi32> to vector<8xf32>
  %p = llvm.fmul %y, %s1 : vector<8xf32>
  %r = llvm.fmul %p, %s2 : vector<8xf32>
  llvm.return %r : vector<8xf32>
}

// -----

// n not from a magic-number sum (another constant subtracted): llvm.ldexp.
// CHECK-LABEL: llvm.func @other_n
// CHECK-NOT:     scalef
// CHECK:         llvm.call_intrinsic "llvm.ldexp"
llvm.func @other_n(%y: vector<16xf32>, %t: vector<16xf32>) -> vector<16xf32> {
  %other = llvm.mlir.constant(dense<1262485505> : vector<16xi32>) : vector<16xi32>
  %c1 = llvm.mlir.constant(dense<1> : vector<16xi32>) : vector<16xi32>
  %c23 = llvm.mlir.constant(dense<23> : vector<16xi32>) : vector<16xi32>
  %c127 = llvm.mlir.constant(dense<127> : vector<16xi32>) : vector<16xi32>
  %tb = llvm.bitcast %t : vector<16xf32> to vector<16xi32>
  %n = llvm.sub %tb, %other : vector<16xi32>
  %n1 = llvm.ashr %n, %c1 : vector<16xi32>
  %n2 = llvm.sub %n, %n1 : vector<16xi32>
  %a1 = llvm.add %n1, %c127 : vector<16xi32>
  %b1 = llvm.shl %a1, %c23 : vector<16xi32>
  %s1 = llvm.bitcast %b1 : vector<16xi32> to vector<16xf32>
  %a2 = llvm.add %n2, %c127 : vector<16xi32>
  %b2 = llvm.shl %a2, %c23 : vector<16xi32>
  %s2 = llvm.bitcast %b2 : vector<16xi32> to vector<16xf32>
  %p = llvm.fmul %y, %s1 : vector<16xf32>
  %r = llvm.fmul %p, %s2 : vector<16xf32>
  llvm.return %r : vector<16xf32>
}
