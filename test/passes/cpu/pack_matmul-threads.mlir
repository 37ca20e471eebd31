// RUN: env MSMLIR_MM_KERNEL=8,32,16,16,256 ms-opt %s --msmlir-cpu-pack-matmul="threads=2" | FileCheck %s
// RUN: env MSMLIR_MM_KERNEL=8,32,16,16,256 ms-opt %s --msmlir-cpu-pack-matmul="threads=1" | FileCheck %s --check-prefix=SERIAL

// With threads, a mid-size matmul (one cache block of rows: M=128 is 16 row
// panels of 8) is split into 2 tasks over its column panels (8 of the 16
// panels of 32 each), each writing its slice of the (unpacked) output; the
// packing copies stay serial (a parallel region of their own costs more than
// it saves). A small matmul is never split.

// CHECK-LABEL: func.func @mid
// CHECK-NOT:     scf.forall
// CHECK:         scf.forall (%{{.*}}) in (2) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<128x512xf32>)
// CHECK:           tensor.extract_slice {{.*}} [128, 256] [1, 1] : tensor<128x512xf32> to tensor<128x256xf32>
// CHECK:           scf.for
// CHECK:             scf.for
// CHECK:               scf.for
// CHECK:                 vector.contract {{.*}} : vector<4x8xf32>, vector<4x32xf32> into vector<8x32xf32>
// CHECK:           scf.forall.in_parallel
// CHECK-NOT:     scf.forall
// CHECK:         return
// SERIAL-LABEL: func.func @mid
// SERIAL-NOT:    scf.forall
// SERIAL:        vector.contract
func.func @mid(%a: tensor<128x256xf32>, %b: tensor<256x512xf32>) -> tensor<128x512xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x512xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<128x512xf32>) -> tensor<128x512xf32>
  %r = linalg.matmul ins(%a, %b : tensor<128x256xf32>, tensor<256x512xf32>)
                     outs(%f : tensor<128x512xf32>) -> tensor<128x512xf32>
  return %r : tensor<128x512xf32>
}

// CHECK-LABEL: func.func @small
// CHECK-NOT:     scf.forall
// CHECK:         vector.contract
// CHECK-NOT:     scf.forall
// CHECK:         return
func.func @small(%a: tensor<64x64xf32>, %b: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x128xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<64x128xf32>) -> tensor<64x128xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x128xf32>)
                     outs(%f : tensor<64x128xf32>) -> tensor<64x128xf32>
  return %r : tensor<64x128xf32>
}
