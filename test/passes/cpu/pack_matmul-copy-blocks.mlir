// RUN: env MSMLIR_MM_KERNEL=8,32,16,16,256 ms-opt %s --msmlir-cpu-pack-matmul --split-input-file | FileCheck %s

// A^T B (A stored [k, m]): both operands packed by copies (no transposes),
// in blocks of 16 rows of the source, panel by panel, then the block's rows:
// each panel gets 16 x 8 (A) or 16 x 32 (B) contiguous floats while the
// block's rows stay in L1 (row by row, one row's 8-float pieces went to
// panels 4 KiB apart).

// CHECK-LABEL: func.func @mm_at
// CHECK:         tensor.empty() : tensor<16x1024xf32>
// CHECK:         scf.for %[[K0:.*]] = %c0 to %c128 step %c16
// CHECK:           %[[K1:.*]] = arith.addi %[[K0]], %c16 : index
// CHECK:           scf.for %[[P:.*]] = %c0 to %c16 step %c1
// CHECK:             %[[COL:.*]] = arith.muli %[[P]], %c8 : index
// CHECK:             scf.for %[[K:.*]] = %[[K0]] to %[[K1]] step %c1
// CHECK:               %[[R:.*]] = vector.transfer_read %arg0[%[[K]], %[[COL]]], {{.*}} : tensor<128x128xf32>, vector<8xf32>
// CHECK:               %[[KR:.*]] = arith.muli %[[K]], %c8 : index
// CHECK:               vector.transfer_write %[[R]], %{{.*}}[%[[P]], %[[KR]]] {{.*}} : vector<8xf32>, tensor<16x1024xf32>
// CHECK:         tensor.expand_shape {{.*}} into tensor<16x128x8xf32>
// CHECK:         tensor.empty() : tensor<4x4096xf32>
// CHECK:         scf.for {{.*}} = %c0 to %c128 step %c16
// CHECK:           scf.for {{.*}} = %c0 to %c4 step %c1
// CHECK:             scf.for
// CHECK:               vector.transfer_read %arg1{{.*}} : tensor<128x128xf32>, vector<32xf32>
// CHECK:               vector.transfer_write {{.*}} : vector<32xf32>, tensor<4x4096xf32>
// CHECK:         vector.contract
func.func @mm_at(%a: tensor<128x128xf32>, %b: tensor<128x128xf32>) -> tensor<128x128xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x128xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<128x128xf32>) -> tensor<128x128xf32>
  %r = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%a, %b : tensor<128x128xf32>, tensor<128x128xf32>) outs(%c : tensor<128x128xf32>) -> tensor<128x128xf32>
  return %r : tensor<128x128xf32>
}

// -----

// k = 100 (the last block of 4 rows ends at k: minsi) and m = 130 (16 whole
// panels of 8 rows, then the partial 17th, zero-padded, row by row after them).

// CHECK-LABEL: func.func @mm_at_tails
// CHECK:         tensor.empty() : tensor<17x800xf32>
// CHECK:         scf.for %[[K0:.*]] = %c0 to %c100 step %c16
// CHECK:           %[[E:.*]] = arith.addi %[[K0]], %c16 : index
// CHECK:           %[[K1:.*]] = arith.minsi %[[E]], %c100 : index
// CHECK:           scf.for {{.*}} = %c0 to %c16 step %c1
// CHECK:             scf.for {{.*}} = %[[K0]] to %[[K1]] step %c1
// CHECK:         scf.for %[[K:.*]] = %c0 to %c100 step %c1
// CHECK:           %[[T:.*]] = vector.transfer_read %arg0[%[[K]], %c128], {{.*}} : tensor<100x130xf32>, vector<2xf32>
// CHECK:           vector.insert_strided_slice %[[T]], {{.*}} : vector<2xf32> into vector<8xf32>
// CHECK:           vector.transfer_write {{.*}}[%c16, {{.*}}] {{.*}} : vector<8xf32>, tensor<17x800xf32>
// CHECK:         tensor.expand_shape {{.*}} into tensor<17x100x8xf32>
func.func @mm_at_tails(%a: tensor<100x130xf32>, %b: tensor<100x64xf32>) -> tensor<130x64xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<130x64xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<130x64xf32>) -> tensor<130x64xf32>
  %r = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%a, %b : tensor<100x130xf32>, tensor<100x64xf32>) outs(%c : tensor<130x64xf32>) -> tensor<130x64xf32>
  return %r : tensor<130x64xf32>
}
