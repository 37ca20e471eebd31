// RUN: env MSMLIR_MM_KERNEL=4,16,16,8,256 ms-opt %s --msmlir-cpu-pack-matmul | FileCheck %s

// A big f32 matmul: A and B are packed (A: 4-row panels, B: 16-column panels
// contiguous along k), cache-blocked and register-tiled: a 4x16
// vector.contract over k=4 whose accumulator is an iter_arg of the k loop and
// is stored straight into the output (C is never packed, unpacked or copied).
// The pack of A (k contiguous) is a transpose of 4-row x 16-k blocks by two
// rounds of vector.shuffle zips (no element-by-element moves), into panels
// [64, 256*4] viewed as [64, 256, 4]; the pack of B ([k, n]) copies 16-wide
// rows. Nothing stays in linalg.

// CHECK-LABEL: func.func @mm
// CHECK-NOT:     linalg.matmul
// CHECK:         tensor.empty() : tensor<64x1024xf32>
// CHECK:         scf.for
// CHECK:           scf.for {{.*}} step %c16
// CHECK-COUNT-4:     vector.transfer_read {{.*}} {in_bounds = [true]} : tensor<256x256xf32>, vector<16xf32>
// CHECK:             vector.shuffle {{.*}} [0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23] : vector<16xf32>, vector<16xf32>
// CHECK-COUNT-7:     vector.shuffle
// CHECK-NOT:         vector.shuffle
// CHECK-COUNT-4:     vector.transfer_write {{.*}} : vector<16xf32>, tensor<64x1024xf32>
// CHECK:         tensor.expand_shape {{.*}} output_shape [64, 256, 4] : tensor<64x1024xf32> into tensor<64x256x4xf32>
// CHECK:         vector.transfer_read {{.*}} : tensor<256x256xf32>, vector<16xf32>
// CHECK:         vector.transfer_write {{.*}} : vector<16xf32>, tensor<16x4096xf32>
// CHECK:         tensor.expand_shape {{.*}} into tensor<16x256x16xf32>
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK:             scf.for
// CHECK:               vector.transfer_read {{.*}} : tensor<64x256x4xf32>, vector<4x4xf32>
// CHECK:               vector.transfer_read {{.*}} : tensor<16x256x16xf32>, vector<4x16xf32>
// CHECK:               vector.contract {{.*}} : vector<4x4xf32>, vector<4x16xf32> into vector<4x16xf32>
// CHECK:             vector.transfer_write {{.*}} {in_bounds = [true, true]} : vector<4x16xf32>, tensor<256x256xf32>
// CHECK-NOT:     linalg.
// CHECK:         return
func.func @mm(%a: tensor<256x256xf32>, %b: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x256xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
  %r = linalg.matmul ins(%a, %b : tensor<256x256xf32>, tensor<256x256xf32>)
                     outs(%f : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %r : tensor<256x256xf32>
}
