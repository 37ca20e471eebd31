// RUN: ms-opt %s --msmlir-cpu-bufferize | FileCheck %s --check-prefix=BUF
// RUN: ms-opt %s --msmlir-cpu-pipeline | FileCheck %s --check-prefix=LLVM

// The chain add -> exp -> add fuses into one loop nest; results become
// caller-allocated out-parameters written in place.
// BUF-LABEL: func.func @chain
// BUF-SAME: (%[[A:.*]]: memref<2x3xf32>, %[[B:.*]]: memref<3xf32>, %[[OUT:.*]]: memref<2x3xf32>)
// BUF-NOT: memref.alloc
// BUF: linalg.generic
// BUF-SAME: ins(%[[A]], %[[B]] : memref<2x3xf32>, memref<3xf32>) outs(%[[OUT]] : memref<2x3xf32>)
// BUF: arith.addf
// BUF: math.exp
// BUF: arith.addf
// BUF-NOT: linalg.generic
// BUF: return
func.func @chain(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = mindir.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = mindir.exp %0 : tensor<2x3xf32>
  %2 = mindir.add %1, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %2 : tensor<2x3xf32>
}

// Fully lowered: only LLVM-dialect ops remain.
// LLVM-LABEL: llvm.func @chain
// LLVM-NOT: mindir.
// LLVM-NOT: linalg.
// LLVM-NOT: memref.
// LLVM-NOT: scf.
// LLVM: llvm.fadd
// LLVM: llvm.intr.exp
// LLVM: llvm.return
