// RUN: ms-opt %s --msmlir-fuse-rows --canonicalize | FileCheck %s --check-prefix=FUSED
// RUN: ms-opt %s --msmlir-fuse-rows --msmlir-cpu-tile-vectorize | FileCheck %s
// RUN: ms-opt %s --msmlir-fuse-rows="threads=2" --msmlir-cpu-tile-vectorize="threads=2" | FileCheck %s --check-prefix=THREADS
// RUN: ms-opt %s --msmlir-fuse-rows="min-work=1000000" | FileCheck %s --check-prefix=SMALL

// Softmax as the mindir lowering writes it (max, sum of exp, normalize): the
// sink (normalize) is tiled by rows and its producers, fills included, are
// fused into the row loop (the max twice: it has two users in the cluster).
// FUSED-LABEL: func.func @softmax
// FUSED-NOT:     linalg.generic
// FUSED:         scf.for %{{.*}} = %c0 to %c512 step %c1
// FUSED:           linalg.fill {{.*}} -> tensor<1xf32>
// FUSED:           linalg.generic {{.*}} ins(%{{.*}} : tensor<1x1024xf32>) outs(%{{.*}} : tensor<1xf32>)
// FUSED:             arith.maximumf
// FUSED:           linalg.generic {{.*}} outs(%{{.*}} : tensor<1xf32>)
// FUSED:             math.exp
// FUSED:             arith.addf
// FUSED:           linalg.generic {{.*}} outs(%{{.*}} : tensor<1x1024xf32>)
// FUSED:             arith.divf
// FUSED:           tensor.insert_slice
// FUSED:         return

// Then msmlir-cpu-tile-vectorize vectorizes each op along the row (the
// reductions into four partial vectors of 16: a vector<64>).
// CHECK-LABEL: func.func @softmax
// CHECK:         scf.for %[[ROW:.*]] = %c0 to %c512 step %c1
// CHECK:           scf.for {{.*}} to %c1024 step %c64
// CHECK:             arith.maximumf {{.*}} : vector<64xf32>
// CHECK:           vector.multi_reduction <maximumf>
// CHECK:           scf.for {{.*}} to %c1024 step %c64
// CHECK:             math.exp {{.*}} : vector<64xf32>
// CHECK:           vector.multi_reduction <add>
// CHECK:           scf.for {{.*}} to %c1024 step %c16
// CHECK:             math.exp {{.*}} : vector<16xf32>
// CHECK:             arith.divf {{.*}} : vector<16xf32>
// CHECK-NOT:     linalg.


// With threads, rows are first split across tasks.
// THREADS-LABEL: func.func @softmax
// THREADS:         scf.forall (%{{.*}}) in (2)
// THREADS:           scf.for {{.*}} to %c256 step %c1
// THREADS:         scf.forall.in_parallel

// Clusters smaller than min-work are left alone.
// SMALL-LABEL: func.func @softmax
// SMALL-NOT:     scf.for
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @softmax(%x: tensor<512x1024xf32>) -> tensor<512x1024xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<512xf32>
  %f0 = linalg.fill ins(%ninf : f32) outs(%e : tensor<512xf32>) -> tensor<512xf32>
  %m = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<512x1024xf32>) outs(%f0 : tensor<512xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<512xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e : tensor<512xf32>) -> tensor<512xf32>
  %s = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x, %m : tensor<512x1024xf32>, tensor<512xf32>) outs(%f1 : tensor<512xf32>) {
  ^bb0(%a: f32, %mm: f32, %o: f32):
    %d = arith.subf %a, %mm : f32
    %x2 = math.exp %d : f32
    %r = arith.addf %o, %x2 : f32
    linalg.yield %r : f32
  } -> tensor<512xf32>
  %e2 = tensor.empty() : tensor<512x1024xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %m, %s : tensor<512x1024xf32>, tensor<512xf32>, tensor<512xf32>) outs(%e2 : tensor<512x1024xf32>) {
  ^bb0(%a: f32, %mm: f32, %ss: f32, %o: f32):
    %d = arith.subf %a, %mm : f32
    %x2 = math.exp %d : f32
    %r = arith.divf %x2, %ss : f32
    linalg.yield %r : f32
  } -> tensor<512x1024xf32>
  return %y : tensor<512x1024xf32>
}
