// RUN: env MSMLIR_MM_KERNEL=8,32,16,16,256 ms-opt %s --msmlir-cpu-pack-matmul="threads=2" | FileCheck %s
// RUN: env MSMLIR_MM_KERNEL=8,32,16,16,256 ms-opt %s --msmlir-cpu-pack-matmul="threads=1" | FileCheck %s --check-prefix=SERIAL

// With threads, a mid-size matmul (one cache block of rows: M=128 is 16 row
// panels of 8) is split into 2 tasks over its column panels (8 of the 16
// panels of 32 each), each writing its slice of the (unpacked) output; the
// packing of B runs before it in 2 tasks of its own (8 panels each). A small
// matmul is never split.

// CHECK-LABEL: func.func @mid
// CHECK:         scf.forall (%{{.*}}) in (2) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<16x8192xf32>)
// CHECK:           tensor.extract_slice {{.*}} [8, 8192] [1, 1] : tensor<16x8192xf32> to tensor<8x8192xf32>
// CHECK:             vector.transfer_read %arg1
// CHECK:           scf.forall.in_parallel
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

// x @ W^T (W stored [n, k], 500 x 784): the kernel computes C^T, so its row
// panels are W's (63 of 8 rows) and the 2 tasks split C's columns: 32 and 31
// panels, the last task's slice sized by affine.min and its cache blocks
// stopped at the last panel (arith.minsi). x is packed (transposed by
// shuffles) into its 4 panels of 32 rows first, in 2 tasks of 2.
// CHECK-LABEL: func.func @dense_fwd
// CHECK:         scf.forall (%{{.*}}) in (2) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<4x25088xf32>)
// CHECK:           vector.transfer_read %arg0
// CHECK:           vector.shuffle
// CHECK:           scf.forall.in_parallel
// CHECK:         scf.forall (%{{.*}}) in (2) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<128x500xf32>)
// CHECK:           affine.min
// CHECK:           tensor.extract_slice {{.*}} [128, %{{.*}}] [1, 1] : tensor<128x500xf32> to tensor<128x?xf32>
// CHECK:           arith.minsi %{{.*}}, %c63 : index
// CHECK:                 tensor.extract %arg1{{.*}} : tensor<500x784xf32>
// CHECK:                 vector.contract {{.*}} : vector<4x8xf32>, vector<4x32xf32> into vector<8x32xf32>
// CHECK:               vector.transfer_write {{.*}} : vector<2x8xf32>, tensor<128x?xf32>
// CHECK:           scf.forall.in_parallel
// SERIAL-LABEL: func.func @dense_fwd
// SERIAL-NOT:    scf.forall
// SERIAL:        vector.contract
#mk = affine_map<(m, n, k) -> (m, k)>
#nk = affine_map<(m, n, k) -> (n, k)>
#mn = affine_map<(m, n, k) -> (m, n)>
func.func @dense_fwd(%x: tensor<128x784xf32>, %w: tensor<500x784xf32>) -> tensor<128x500xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x500xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<128x500xf32>) -> tensor<128x500xf32>
  %r = linalg.generic {indexing_maps = [#mk, #nk, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<128x784xf32>, tensor<500x784xf32>) outs(%f : tensor<128x500xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<128x500xf32>
  return %r : tensor<128x500xf32>
}

// B's 10 panels (300 columns: 9 whole panels and one of 12) packed in 2
// tasks of 5 and 4 whole panels (affine.min, a dynamic slice), the partial
// panel after them, serially; then the matmul's 2 tasks.
// CHECK-LABEL: func.func @uneven_pack
// CHECK:         scf.forall (%{{.*}}) in (2) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<10x8192xf32>)
// CHECK:           %[[N:.*]] = affine.min
// CHECK:           tensor.extract_slice {{.*}} [%[[N]], 8192] [1, 1] : tensor<10x8192xf32> to tensor<?x8192xf32>
// CHECK:           tensor.parallel_insert_slice
// CHECK:         scf.for
// CHECK:           vector.insert_strided_slice {{.*}} : vector<12xf32> into vector<32xf32>
// CHECK:           vector.transfer_write {{.*}}[%c9, %{{.*}}] {{.*}} : vector<32xf32>, tensor<10x8192xf32>
// CHECK:         tensor.expand_shape
// CHECK:         scf.forall (%{{.*}}) in (2) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<128x300xf32>)
// SERIAL-LABEL: func.func @uneven_pack
// SERIAL-NOT:    scf.forall
// SERIAL:        return
func.func @uneven_pack(%a: tensor<128x256xf32>, %b: tensor<256x300xf32>) -> tensor<128x300xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x300xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<128x300xf32>) -> tensor<128x300xf32>
  %r = linalg.matmul ins(%a, %b : tensor<128x256xf32>, tensor<256x300xf32>)
                     outs(%f : tensor<128x300xf32>) -> tensor<128x300xf32>
  return %r : tensor<128x300xf32>
}
