// RUN: ms-opt %s --msmlir-cpu-generalize | FileCheck %s

// Named linalg ops become linalg.generic (the form row fusion and
// tile+vectorize read); fills and convolutions keep their named form.
// CHECK-LABEL: func.func @named
// CHECK:         linalg.fill
// CHECK-NOT:     linalg.matmul
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]
// CHECK:           arith.mulf
// CHECK:           arith.addf
// CHECK-NOT:     linalg.transpose
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]
// CHECK:         linalg.conv_1d
// CHECK:         return
func.func @named(%a: tensor<8x4xf32>, %b: tensor<4x16xf32>, %x: tensor<18xf32>, %w: tensor<3xf32>)
    -> (tensor<16x8xf32>, tensor<16xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<8x4xf32>, tensor<4x16xf32>) outs(%f : tensor<8x16xf32>) -> tensor<8x16xf32>
  %et = tensor.empty() : tensor<16x8xf32>
  %t = linalg.transpose ins(%mm : tensor<8x16xf32>) outs(%et : tensor<16x8xf32>) permutation = [1, 0]
  %ec = tensor.empty() : tensor<16xf32>
  %fc = linalg.fill ins(%z : f32) outs(%ec : tensor<16xf32>) -> tensor<16xf32>
  %c = linalg.conv_1d ins(%x, %w : tensor<18xf32>, tensor<3xf32>) outs(%fc : tensor<16xf32>) -> tensor<16xf32>
  return %t, %c : tensor<16x8xf32>, tensor<16xf32>
}
