// RUN: env MSMLIR_MM_KERNEL=0,16,16,8,256 ms-opt %s --msmlir-cpu-pack-matmul --verify-diagnostics | FileCheck %s

// When the packed recipe cannot be built (here: a register tile of 0 rows
// forced through MSMLIR_MM_KERNEL), the matmul is left as it was for the
// generic path, and a remark at the function says so.
// CHECK-LABEL: func.func @mm
// CHECK:         linalg.matmul
// CHECK-NOT:     linalg.pack
// expected-remark @below {{msmlir-cpu-pack-matmul: internal error, the remaining matmuls keep the generic path: ZeroDivisionError}}
func.func @mm(%a: tensor<256x256xf32>, %b: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x256xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
  %r = linalg.matmul ins(%a, %b : tensor<256x256xf32>, tensor<256x256xf32>)
                     outs(%f : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %r : tensor<256x256xf32>
}
