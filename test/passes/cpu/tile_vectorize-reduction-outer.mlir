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
