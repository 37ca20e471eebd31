// RUN: ms-opt %s --msmlir-cpu-scale-by-ldexp=marked-only=true | FileCheck %s
// RUN: ms-opt %s --msmlir-cpu-scale-by-ldexp | FileCheck %s --check-prefix=ALL

// marked-only (msmlir-cpu-pipeline): only the functions msmlir-cpu-fast-math
// marked msmlir.fast_exp are rewritten, and the mark is dropped; the others
// are not looked at. Without the option every function is.
// CHECK-LABEL: llvm.func @marked
// CHECK-NOT:     msmlir.fast_exp
// CHECK:         llvm.call_intrinsic "llvm.ldexp"
// CHECK-NOT:     llvm.fmul
// CHECK:         llvm.return
// CHECK-LABEL: llvm.func @unmarked
// CHECK-NOT:     llvm.call_intrinsic
// CHECK-COUNT-2: llvm.fmul
// CHECK:         llvm.return
// ALL-LABEL:   llvm.func @marked
// ALL:           llvm.call_intrinsic "llvm.ldexp"
// ALL-LABEL:   llvm.func @unmarked
// ALL:           llvm.call_intrinsic "llvm.ldexp"
// ALL-NOT:       llvm.fmul
llvm.func @marked(%y: vector<16xf32>, %n: vector<16xi32>) -> vector<16xf32> attributes {msmlir.fast_exp} {
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

llvm.func @unmarked(%y: vector<16xf32>, %n: vector<16xi32>) -> vector<16xf32> {
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
