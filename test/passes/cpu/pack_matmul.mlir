// RUN: env MSMLIR_MM_KERNEL=4,16,16,8,256 ms-opt %s --msmlir-cpu-pack-matmul | FileCheck %s

// A big f32 matmul: B is packed into 16-column panels contiguous along k (a
// copy of 16-wide rows, B being [k, n]), cache-blocked and register-tiled: a
// 4x16 vector.contract over k=4 whose accumulator is an iter_arg of the k
// loop and is stored straight into the output (C is never packed, unpacked
// or copied). A ([m, k], a function argument) is not packed: the contract's
// left operand is built from its scalars (tensor.extract of 4 rows), which
// LLVM loads as broadcasts. One k block of 256 (16 panels of 16 columns fit
// the L2 budget). Nothing stays in linalg.

// CHECK-LABEL: func.func @mm
// CHECK-NOT:     linalg.matmul
// CHECK-NOT:     vector.shuffle
// CHECK:         tensor.empty() : tensor<16x4096xf32>
// CHECK:         vector.transfer_read {{.*}} : tensor<256x256xf32>, vector<16xf32>
// CHECK:         vector.transfer_write {{.*}} : vector<16xf32>, tensor<16x4096xf32>
// CHECK:         tensor.expand_shape {{.*}} into tensor<16x256x16xf32>
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK:             scf.for
// CHECK-COUNT-16:      tensor.extract %arg0[{{.*}}] : tensor<256x256xf32>
// CHECK:               vector.from_elements {{.*}} : vector<4x4xf32>
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

// A that is a view of another tensor is packed: k contiguous, so the pack is
// a transpose of 4-row x 16-k blocks by two rounds of vector.shuffle zips (no
// element-by-element moves), into panels [64, 256*4] viewed as [64, 256, 4].

// CHECK-LABEL: func.func @mm_view
// CHECK:         tensor.empty() : tensor<64x1024xf32>
// CHECK:         scf.for
// CHECK:           scf.for {{.*}} step %c16
// CHECK-COUNT-4:     vector.transfer_read {{.*}} {in_bounds = [true]} : tensor<256x256xf32>, vector<16xf32>
// CHECK:             vector.shuffle {{.*}} [0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23] : vector<16xf32>, vector<16xf32>
// CHECK-COUNT-7:     vector.shuffle
// CHECK-NOT:         vector.shuffle
// CHECK-COUNT-4:     vector.transfer_write {{.*}} : vector<16xf32>, tensor<64x1024xf32>
// CHECK:         tensor.expand_shape {{.*}} output_shape [64, 256, 4] : tensor<64x1024xf32> into tensor<64x256x4xf32>
// CHECK:         tensor.expand_shape {{.*}} into tensor<16x256x16xf32>
// CHECK:               vector.transfer_read {{.*}} : tensor<64x256x4xf32>, vector<4x4xf32>
// CHECK:               vector.contract {{.*}} : vector<4x4xf32>, vector<4x16xf32> into vector<4x16xf32>
// CHECK:         return
func.func @mm_view(%big: tensor<256x512xf32>, %b: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %a = tensor.extract_slice %big[0, 0] [256, 256] [1, 1] : tensor<256x512xf32> to tensor<256x256xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x256xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
  %r = linalg.matmul ins(%a, %b : tensor<256x256xf32>, tensor<256x256xf32>)
                     outs(%f : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %r : tensor<256x256xf32>
}

// x @ W^T with W stored [n, k] (a dense layer's weight, (out, in)) and the
// smaller A: the kernel computes C^T = W x^T. A is packed (transposed by
// shuffles) into 4 panels of 16 rows, W is read in place as the broadcast
// operand (no per-call repack of the weight), and each 4x16 tile of C^T is
// transposed in registers (two rounds of zips of its 4 rows) and stored as
// four 4x4 pieces of C (each zipped vector is four rows of C: no 16x4 tile
// is assembled).

// CHECK-LABEL: func.func @mm_bt
// CHECK:         tensor.empty() : tensor<4x2048xf32>
// CHECK-COUNT-16:    vector.transfer_read {{.*}} : tensor<64x128xf32>, vector<16xf32>
// CHECK:         tensor.expand_shape {{.*}} into tensor<4x128x16xf32>
// CHECK:             scf.for {{.*}} -> (vector<4x16xf32>)
// CHECK-COUNT-16:      tensor.extract %arg1[{{.*}}] : tensor<256x128xf32>
// CHECK:               vector.transfer_read {{.*}} : tensor<4x128x16xf32>, vector<4x16xf32>
// CHECK:               vector.contract {{.*}} : vector<4x4xf32>, vector<4x16xf32> into vector<4x16xf32>
// CHECK-COUNT-4:     vector.extract %{{.*}}[{{[0-3]}}] : vector<16xf32> from vector<4x16xf32>
// CHECK-COUNT-8:     vector.shuffle
// CHECK-NOT:         vector.shuffle
// CHECK-NOT:         vector.insert
// CHECK:           vector.shape_cast {{.*}} : vector<16xf32> to vector<4x4xf32>
// CHECK-NEXT:        vector.transfer_write {{.*}} {in_bounds = [true, true]} : vector<4x4xf32>, tensor<64x256xf32>
// CHECK:           vector.shape_cast {{.*}} : vector<16xf32> to vector<4x4xf32>
// CHECK-NEXT:        vector.transfer_write {{.*}} {in_bounds = [true, true]} : vector<4x4xf32>, tensor<64x256xf32>
// CHECK:           vector.shape_cast {{.*}} : vector<16xf32> to vector<4x4xf32>
// CHECK-NEXT:        vector.transfer_write {{.*}} {in_bounds = [true, true]} : vector<4x4xf32>, tensor<64x256xf32>
// CHECK:           vector.shape_cast {{.*}} : vector<16xf32> to vector<4x4xf32>
// CHECK-NEXT:        vector.transfer_write {{.*}} {in_bounds = [true, true]} : vector<4x4xf32>, tensor<64x256xf32>
// CHECK-NOT:         vector.transfer_write
// CHECK:         return
#mk = affine_map<(m, n, k) -> (m, k)>
#nk = affine_map<(m, n, k) -> (n, k)>
#mn = affine_map<(m, n, k) -> (m, n)>
func.func @mm_bt(%a: tensor<64x128xf32>, %b: tensor<256x128xf32>) -> tensor<64x256xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x256xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<64x256xf32>) -> tensor<64x256xf32>
  %r = linalg.generic {indexing_maps = [#mk, #nk, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<64x128xf32>, tensor<256x128xf32>) outs(%f : tensor<64x256xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<64x256xf32>
  return %r : tensor<64x256xf32>
}
