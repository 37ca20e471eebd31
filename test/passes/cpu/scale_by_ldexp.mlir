// RUN: ms-opt %s --msmlir-cpu-scale-by-ldexp --split-input-file | FileCheck %s

// The fast exp's scaling y * 2^(n>>1) * 2^(n - (n>>1)) becomes one llvm.ldexp
// (vscalefps on AVX-512); the exponent-bit arithmetic is gone.
// CHECK-LABEL: llvm.func @scale
// CHECK-SAME:    (%[[Y:.*]]: vector<16xf32>, %[[N:.*]]: vector<16xi32>)
// CHECK-NOT:     llvm.ashr
// CHECK-NOT:     llvm.shl
// CHECK:         %[[R:.*]] = llvm.call_intrinsic "llvm.ldexp"(%[[Y]], %[[N]]) : (vector<16xf32>, vector<16xi32>) -> vector<16xf32>
// CHECK-NOT:     llvm.fmul
// CHECK:         llvm.return %[[R]]
llvm.func @scale(%y: vector<16xf32>, %n: vector<16xi32>) -> vector<16xf32> {
  %c1 = llvm.mlir.constant(dense<1> : vector<16xi32>) : vector<16xi32>
  %c23 = llvm.mlir.constant(dense<23> : vector<16xi32>) : vector<16xi32>
  %c127 = llvm.mlir.constant(dense<127> : vector<16xi32>) : vector<16xi32>
  %n1 = llvm.ashr %n, %c1 : vector<16xi32>
  %n2 = llvm.sub %n, %n1 : vector<16xi32>
  %a1 = llvm.add %n1, %c127 : vector<16xi32>
  %b1 = llvm.shl %a1, %c23 : vector<16xi32>
  %s1 = llvm.bitcast %b1 : vector<16xi32> to vector<16xf32>
  %a2 = llvm.add %c127, %n2 : vector<16xi32>
  %b2 = llvm.shl %a2, %c23 : vector<16xi32>
  %s2 = llvm.bitcast %b2 : vector<16xi32> to vector<16xf32>
  %p = llvm.fmul %y, %s1 : vector<16xf32>
  %r = llvm.fmul %s2, %p : vector<16xf32>
  llvm.return %r : vector<16xf32>
}

// -----

// Not the two halves of one exponent (n2 = m - n1): left alone.
// CHECK-LABEL: llvm.func @not_halves
// CHECK-NOT:     llvm.ldexp
// CHECK:         llvm.ashr
// CHECK-COUNT-2: llvm.fmul
llvm.func @not_halves(%y: vector<16xf32>, %n: vector<16xi32>, %m: vector<16xi32>) -> vector<16xf32> {
  %c1 = llvm.mlir.constant(dense<1> : vector<16xi32>) : vector<16xi32>
  %c23 = llvm.mlir.constant(dense<23> : vector<16xi32>) : vector<16xi32>
  %c127 = llvm.mlir.constant(dense<127> : vector<16xi32>) : vector<16xi32>
  %n1 = llvm.ashr %n, %c1 : vector<16xi32>
  %n2 = llvm.sub %m, %n1 : vector<16xi32>
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

// A scale that is not an exponent field (shift by 22): left alone.
// CHECK-LABEL: llvm.func @other_shift
// CHECK-NOT:     llvm.ldexp
// CHECK-COUNT-2: llvm.fmul
llvm.func @other_shift(%y: vector<16xf32>, %n: vector<16xi32>) -> vector<16xf32> {
  %c1 = llvm.mlir.constant(dense<1> : vector<16xi32>) : vector<16xi32>
  %c22 = llvm.mlir.constant(dense<22> : vector<16xi32>) : vector<16xi32>
  %c23 = llvm.mlir.constant(dense<23> : vector<16xi32>) : vector<16xi32>
  %c127 = llvm.mlir.constant(dense<127> : vector<16xi32>) : vector<16xi32>
  %n1 = llvm.ashr %n, %c1 : vector<16xi32>
  %n2 = llvm.sub %n, %n1 : vector<16xi32>
  %a1 = llvm.add %n1, %c127 : vector<16xi32>
  %b1 = llvm.shl %a1, %c22 : vector<16xi32>
  %s1 = llvm.bitcast %b1 : vector<16xi32> to vector<16xf32>
  %a2 = llvm.add %n2, %c127 : vector<16xi32>
  %b2 = llvm.shl %a2, %c23 : vector<16xi32>
  %s2 = llvm.bitcast %b2 : vector<16xi32> to vector<16xf32>
  %p = llvm.fmul %y, %s1 : vector<16xf32>
  %r = llvm.fmul %p, %s2 : vector<16xf32>
  llvm.return %r : vector<16xf32>
}

// -----

// The intermediate product has another use: the call replaces the final
// product only, the first multiplication stays for its other user.
// CHECK-LABEL: llvm.func @shared_product
// CHECK:         %[[P:.*]] = llvm.fmul
// CHECK:         %[[R:.*]] = llvm.call_intrinsic "llvm.ldexp"
// CHECK:         llvm.fadd %[[R]], %[[P]]
llvm.func @shared_product(%y: vector<16xf32>, %n: vector<16xi32>) -> vector<16xf32> {
  %c1 = llvm.mlir.constant(dense<1> : vector<16xi32>) : vector<16xi32>
  %c23 = llvm.mlir.constant(dense<23> : vector<16xi32>) : vector<16xi32>
  %c127 = llvm.mlir.constant(dense<127> : vector<16xi32>) : vector<16xi32>
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
  %s = llvm.fadd %r, %p : vector<16xf32>
  llvm.return %s : vector<16xf32>
}
