// RUN: env MSMLIR_MM_KERNEL=8,32,16,16,256 ms-opt %s --msmlir-cpu-pack-matmul | FileCheck %s

// k blocks need not divide k: a prime k = 1009 (8 panels of 32: blocks of
// about 512 fit L2) takes 2 blocks, 508 and 501 long (multiples of 4 but the
// last), each a k loop of steps of 4 (contract 4 x MR, 4 x NR); the last block
// ends with one step of the single k left. Never a k block of 1 (the divisor
// of a prime k).

// CHECK-LABEL: func.func @prime_k
// CHECK-NOT:     vector<1x8xf32>
// CHECK:         scf.for %{{.*}} = %c0 to %{{.*}} step %c4 iter_args
// CHECK:           vector.contract {{.*}} : vector<4x8xf32>, vector<4x32xf32> into vector<8x32xf32>
// CHECK-NOT:     vector<1x8xf32>
// CHECK:         scf.for %{{.*}} = %c508 to %{{.*}} step %c4 iter_args
// CHECK:           vector.contract {{.*}} : vector<4x8xf32>, vector<4x32xf32> into vector<8x32xf32>
// CHECK:         vector.contract {{.*}} : vector<1x8xf32>, vector<1x32xf32> into vector<8x32xf32>
// CHECK-NOT:     vector.contract
// CHECK:         return
func.func @prime_k(%a: tensor<256x1009xf32>, %b: tensor<1009x256xf32>) -> tensor<256x256xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x256xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
  %r = linalg.matmul ins(%a, %b : tensor<256x1009xf32>, tensor<1009x256xf32>)
                     outs(%f : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %r : tensor<256x256xf32>
}
