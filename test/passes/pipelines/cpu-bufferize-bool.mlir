// RUN: ms-opt %s --msmlir-cpu-bufferize | FileCheck %s --check-prefix=BUF
// RUN: ms-opt %s --msmlir-cpu-pipeline | FileCheck %s --check-prefix=LLVM
// RUN: ms-opt %s --msmlir-cpu-pipeline=codegen=false | FileCheck %s --check-prefix=LLVM

// Booleans are stored as bytes as soon as bufferization ends
// (msmlir-widen-bool-memrefs closes it, on the small bufferized module rather
// than on the lowered one): no i1 memref is left for the LLVM lowering,
// which aborts on i1 loads and stores.
// BUF-LABEL: func.func @gt
// BUF-SAME: (%{{.*}}: memref<16xf32>, %{{.*}}: memref<16xf32>, %{{.*}}: memref<16xi8>)
// BUF-NOT: xi1>
// BUF: arith.cmpf ogt
// BUF: arith.extui %{{.*}} : i1 to i8
// BUF-NOT: xi1>
// BUF: return
func.func @gt(%a: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<16xi1> {
  %0 = mindir.greater %a, %b : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xi1>
  return %0 : tensor<16xi1>
}

// LLVM-LABEL: llvm.func @gt
// LLVM-NOT: memref.
// LLVM: llvm.fcmp "ogt"
// LLVM: llvm.zext
// LLVM: llvm.return
