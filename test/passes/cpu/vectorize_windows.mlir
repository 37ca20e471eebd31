// RUN: ms-opt %s --msmlir-cpu-vectorize-windows --split-input-file | FileCheck %s

// max_pool2d (2x2, stride 2): generalized, the window input read with
// tensor.extract, then a vector along the output width (14), the window
// loops (2x2) inside, the strided window reads a vector.gather.
// CHECK-LABEL: func.func @maxpool
// CHECK-NOT:     linalg.pooling
// CHECK:         scf.for {{.*}} to %c4
// CHECK:           scf.for {{.*}} to %c6
// CHECK:             scf.for {{.*}} to %c14
// CHECK:                 scf.for {{.*}} to %c2
// CHECK:                   scf.for {{.*}} to %c2
// CHECK:                     vector.gather %arg0{{.*}} : tensor<4x6x28x28xf32>, vector<14xindex>, vector<14xi1>, vector<14xf32> into vector<14xf32>
// CHECK:                     arith.maximumf {{.*}} : vector<14xf32>
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
// contains it: `w floordiv 2`): vectorized along the input width (28). The
// window is one element (kernel == stride), so the zero fill it accumulated
// into is dropped: the gathered value is stored as is (no fill, no re-read).
// CHECK-LABEL: func.func @pool_grad
// CHECK-NOT:     linalg.fill
// CHECK:         %[[G:.*]] = vector.gather %arg0{{.*}} : tensor<4x6x14x14xf32>, vector<28xindex>, vector<28xi1>, vector<28xf32> into vector<28xf32>
// CHECK-NOT:     arith.addf
// CHECK:         vector.transfer_write %[[G]], {{.*}} : vector<28xf32>, tensor<28xf32>
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
// the window still accumulates into the zero fill.
// CHECK-LABEL: func.func @pool_grad_overlap
// CHECK:         linalg.fill
// CHECK:         vector.gather %arg0{{.*}} : tensor<4x6x15x15xf32>, vector<28xindex>, vector<28xi1>, vector<28xf32> into vector<28xf32>
// CHECK:         arith.addf {{.*}} : vector<28xf32>
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
