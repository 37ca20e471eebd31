// RUN: ms-opt %s --msmlir-cpu-generalize --msmlir-cpu-tile-vectorize | FileCheck %s

// Without the packed recipe (msmlir-cpu-pack-matmul) a matmul is generalized
// and tiled as a reduction.

// CHECK-LABEL: func.func @mm
// CHECK-NOT:     linalg.matmul
// CHECK-NOT:     vector.contract
// CHECK:         vector.multi_reduction <add>
func.func @mm(%a: tensor<256x256xf32>, %b: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x256xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
  %r = linalg.matmul ins(%a, %b : tensor<256x256xf32>, tensor<256x256xf32>)
                     outs(%f : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %r : tensor<256x256xf32>
}
