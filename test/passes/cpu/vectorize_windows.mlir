// RUN: ms-opt %s --msmlir-cpu-vectorize-windows --split-input-file | FileCheck %s

// max_pool2d (2x2, stride 2): generalized, then loops over N, C, OH with a
// vector of 16 lanes (a power of two; the 14 outputs of a row, masked
// tail) along the output width, the window loops (2x2) inside. Each window
// row is one contiguous read of 32 elements whose even lanes the shuffle
// keeps (no vector.gather); the -inf fill becomes a splat (not read back).
// CHECK-LABEL: func.func @maxpool
// CHECK-NOT:     linalg.pooling
// CHECK-NOT:     linalg.fill
// CHECK:         %[[NINF:.*]] = vector.broadcast %{{.*}} : f32 to vector<16xf32>
// CHECK:         scf.for {{.*}} to %c4
// CHECK:           scf.for {{.*}} to %c6
// CHECK:             scf.for {{.*}} to %c14
// CHECK:               scf.for {{.*}} to %c2 {{.*}} iter_args(%{{.*}} = %[[NINF]])
// CHECK:                 scf.for {{.*}} to %c2
// CHECK:                   %[[R:.*]] = vector.transfer_read %arg0{{.*}} : tensor<4x6x28x28xf32>, vector<32xf32>
// CHECK:                   %[[S:.*]] = vector.shuffle %[[R]], %[[R]] [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30] : vector<32xf32>, vector<32xf32>
// CHECK:                   arith.maximumf {{.*}}, %[[S]] : vector<16xf32>
// CHECK:               vector.transfer_write {{.*}} : vector<16xf32>, tensor<4x6x14x14xf32>
// CHECK-NOT:     vector.gather
// CHECK-NOT:     linalg.generic
func.func @maxpool(%x: tensor<4x6x28x28xf32>) -> tensor<4x6x14x14xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<4x6x14x14xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<4x6x14x14xf32>) -> tensor<4x6x14x14xf32>
  %k = tensor.empty() : tensor<2x2xf32>
  %r = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %k : tensor<4x6x28x28xf32>, tensor<2x2xf32>) outs(%f : tensor<4x6x14x14xf32>) -> tensor<4x6x14x14xf32>
  return %r : tensor<4x6x14x14xf32>
}

// -----

// A pooling-gradient gather (each input position reads the window that
// contains it: `w floordiv 2`): a vector of 32 lanes along the input width
// (28, masked tail), each lane pair one element of a contiguous read of 16
// (the shuffle repeats each twice). The window is one element (kernel ==
// stride), so the zero fill it accumulated into is dropped: the value is
// stored as is (no fill, no re-read).
// CHECK-LABEL: func.func @pool_grad
// CHECK-NOT:     linalg.fill
// CHECK:         %[[R:.*]] = vector.transfer_read %arg0{{.*}} : tensor<4x6x14x14xf32>, vector<16xf32>
// CHECK:         %[[G:.*]] = vector.shuffle %[[R]], %[[R]] [0, 0, 1, 1, 2, 2, {{.*}}, 15, 15] : vector<16xf32>, vector<16xf32>
// CHECK-NOT:     arith.addf
// CHECK:         vector.transfer_write %[[G]], {{.*}} : vector<32xf32>, tensor<4x6x28x28xf32>
// CHECK-NOT:     vector.gather
// CHECK-NOT:     linalg.generic
func.func @pool_grad(%d: tensor<4x6x14x14xf32>) -> tensor<4x6x28x28xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x6x28x28xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x6x28x28xf32>) -> tensor<4x6x28x28xf32>
  %t = tensor.empty() : tensor<1x1xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 floordiv 2 + d4, d3 floordiv 2 + d5)>,
                                        affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>,
                                        affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%d, %t : tensor<4x6x14x14xf32>, tensor<1x1xf32>) outs(%f : tensor<4x6x28x28xf32>) {
  ^bb0(%a: f32, %u: f32, %o: f32):
    %s = arith.addf %o, %a : f32
    linalg.yield %s : f32
  } -> tensor<4x6x28x28xf32>
  return %r : tensor<4x6x28x28xf32>
}

// -----

// A window of 2 x 2 elements per output (overlapping windows): the sum over
// the window accumulates in a vector that starts as the zero fill's splat.
// CHECK-LABEL: func.func @pool_grad_overlap
// CHECK-NOT:     linalg.fill
// CHECK:         vector.transfer_read %arg0{{.*}} : tensor<4x6x15x15xf32>, vector<16xf32>
// CHECK:         vector.shuffle {{.*}} : vector<16xf32>, vector<16xf32>
// CHECK:         arith.addf {{.*}} : vector<32xf32>
// CHECK-NOT:     vector.gather
// CHECK-NOT:     linalg.generic
func.func @pool_grad_overlap(%d: tensor<4x6x15x15xf32>) -> tensor<4x6x28x28xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x6x28x28xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x6x28x28xf32>) -> tensor<4x6x28x28xf32>
  %t = tensor.empty() : tensor<2x2xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 floordiv 2 + d4, d3 floordiv 2 + d5)>,
                                        affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>,
                                        affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%d, %t : tensor<4x6x15x15xf32>, tensor<2x2xf32>) outs(%f : tensor<4x6x28x28xf32>) {
  ^bb0(%a: f32, %u: f32, %o: f32):
    %s = arith.addf %o, %a : f32
    linalg.yield %s : f32
  } -> tensor<4x6x28x28xf32>
  return %r : tensor<4x6x28x28xf32>
}

// -----

// Below min-work (top level): the plain path, unchanged.
// CHECK-LABEL: func.func @tiny
// CHECK:         linalg.pooling_nchw_max
func.func @tiny(%x: tensor<1x2x8x8xf32>, %o: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %k = tensor.empty() : tensor<2x2xf32>
  %r = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %k : tensor<1x2x8x8xf32>, tensor<2x2xf32>) outs(%o : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %r : tensor<1x2x4x4xf32>
}

// -----

// Stride 3 along a width of 40 (15 outputs): a read of 64 elements, every
// third kept; with threads=2 the batch dim is split into two scf.forall tasks.
// RUN: ms-opt %s --msmlir-cpu-vectorize-windows="threads=2" --split-input-file | FileCheck %s --check-prefix=T2
// T2-LABEL: func.func @stride3
// T2:         scf.forall (%{{.*}}) in (2) shared_outs
// T2:           vector.transfer_read %arg0{{.*}} : tensor<16x4x30x40xf32>, vector<64xf32>
// T2:           vector.shuffle {{.*}} [0, 3, 6, 9, 12, 15, 18, 21, 24, 27, 30, 33, 36, 39, 42, 45] : vector<64xf32>, vector<64xf32>
// T2:           tensor.parallel_insert_slice
// T2-NOT:     vector.gather
// CHECK-LABEL: func.func @stride3
// CHECK-NOT:     scf.forall
// CHECK-NOT:     vector.gather
func.func @stride3(%x: tensor<16x4x30x40xf32>) -> tensor<16x4x10x13xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x4x10x13xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<16x4x10x13xf32>) -> tensor<16x4x10x13xf32>
  %k = tensor.empty() : tensor<3x3xf32>
  %r = linalg.pooling_nchw_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<3> : tensor<2xi64>}
      ins(%x, %k : tensor<16x4x30x40xf32>, tensor<3x3xf32>) outs(%f : tensor<16x4x10x13xf32>) -> tensor<16x4x10x13xf32>
  return %r : tensor<16x4x10x13xf32>
}

// -----

// The vector dim (the output width) indexes an outer dim of the window input
// (a transposed read): no contiguous row to read, so the gather path stays.
// CHECK-LABEL: func.func @transposed_window
// CHECK:         vector.gather
// CHECK-NOT:     linalg.generic
// T2-LABEL: func.func @transposed_window
func.func @transposed_window(%x: tensor<4x6x28x28xf32>) -> tensor<4x6x14x14xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<4x6x14x14xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<4x6x14x14xf32>) -> tensor<4x6x14x14xf32>
  %t = tensor.empty() : tensor<2x2xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d3 * 2 + d5, d2 * 2 + d4)>,
                                        affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>,
                                        affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%x, %t : tensor<4x6x28x28xf32>, tensor<2x2xf32>) outs(%f : tensor<4x6x14x14xf32>) {
  ^bb0(%a: f32, %u: f32, %o: f32):
    %m = arith.maximumf %o, %a : f32
    linalg.yield %m : f32
  } -> tensor<4x6x14x14xf32>
  return %r : tensor<4x6x14x14xf32>
}
