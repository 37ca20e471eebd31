// RUN: ms-opt %s --msmlir-cpu-tile-vectorize | FileCheck %s

// A bias gradient: [N, C, H, W] summed over N, H, W (innermost dim a
// reduction, other reduction dims outside it). The channel loop is tiled by
// 1; the row (W = 10) gets a vector of 10 partial sums, carried across the
// N and H loops (each tiled by 1), reduced into the channel's sum once at the
// end: neither one vector.multi_reduction of the whole N*H*W = 6400 (unrolled
// into megabytes of IR and minutes of LLVM codegen) nor one per image or row
// (a serial chain of dependent scalar adds).
// CHECK-LABEL: func.func @bias_grad
// CHECK:         scf.for {{.*}} to %c16 step %c1
// CHECK:           vector.transfer_write {{.*}} : vector<10xf32>, tensor<1x1x1x10xf32>
// CHECK:           scf.for {{.*}} to %c64 step %c1 {{.*}} -> (tensor<1x1x1x10xf32>)
// CHECK:             scf.for {{.*}} to %c10 step %c1 {{.*}} -> (tensor<1x1x1x10xf32>)
// CHECK-NOT:           vector.multi_reduction
// CHECK:               arith.addf {{.*}} : vector<10xf32>
// CHECK:           vector.multi_reduction <add>, {{.*}} : vector<1x1x1x10xf32> to vector<1xf32>
// CHECK-NOT:     vector<64x
// CHECK-NOT:     linalg.generic
func.func @bias_grad(%x: tensor<64x16x10x10xf32>) -> tensor<16xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<16xf32>) -> tensor<16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1)>],
                       iterator_types = ["reduction", "parallel", "reduction", "reduction"]}
      ins(%x : tensor<64x16x10x10xf32>) outs(%f : tensor<16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  return %r : tensor<16xf32>
}


// The same with 28-wide rows (LeNet's conv1 bias gradient): the partial sums
// are one masked vector<32xf32> (28 lanes live) instead of vector<28xf32>
// (lowered to 16 + 8 + 4 lane pieces) in the loop; the partial sums' zero
// fill and final reduction stay vector<28> (once per channel).
// CHECK-LABEL: func.func @bias_grad_28
// CHECK:         scf.for {{.*}} to %c6 step %c1
// CHECK:           scf.for {{.*}} to %c8 step %c1 {{.*}} -> (tensor<1x1x1x28xf32>)
// CHECK:             scf.for {{.*}} to %c28 step %c1 {{.*}} -> (tensor<1x1x1x28xf32>)
// CHECK:               %[[M:.*]] = vector.constant_mask [28] : vector<32xi1>
// CHECK:               vector.transfer_read {{.*}}, %[[M]] {{.*}} : tensor<1x1x1x28xf32>, vector<32xf32>
// CHECK:               arith.addf {{.*}} : vector<32xf32>
// CHECK:               vector.transfer_write {{.*}}, %[[M]] {{.*}} : vector<32xf32>, tensor<1x1x1x28xf32>
// CHECK:           vector.multi_reduction <add>, {{.*}} : vector<1x1x1x28xf32> to vector<1xf32>
// CHECK-NOT:     linalg.generic
func.func @bias_grad_28(%x: tensor<8x6x28x28xf32>) -> tensor<6xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<6xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<6xf32>) -> tensor<6xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1)>],
                       iterator_types = ["reduction", "parallel", "reduction", "reduction"]}
      ins(%x : tensor<8x6x28x28xf32>) outs(%f : tensor<6xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<6xf32>
  return %r : tensor<6xf32>
}
