// RUN: ms-opt %s --msmlir-cpu-tile-vectorize | FileCheck %s
// RUN: ms-opt %s --msmlir-cpu-tile-vectorize="threads=2" | FileCheck %s --check-prefix=THREADS

// Softmax as the mindir lowering writes it (max, sum of exp, normalize): the
// three ops are fused into one loop over rows, each vectorized along the row.
// CHECK-LABEL: func.func @softmax
// CHECK:         scf.for %[[ROW:.*]] = %c0 to %c256 step %c1
// CHECK:           scf.for {{.*}} to %c1024 step %c16
// CHECK:             arith.maximumf {{.*}} : vector<16xf32>
// CHECK:           vector.multi_reduction <maximumf>
// CHECK:           scf.for {{.*}} to %c1024 step %c16
// CHECK:             math.exp {{.*}} : vector<16xf32>
// CHECK:           vector.multi_reduction <add>
// CHECK:           scf.for {{.*}} to %c1024 step %c16
// CHECK:             math.exp {{.*}} : vector<16xf32>
// CHECK:             arith.divf {{.*}} : vector<16xf32>
// CHECK-NOT:     linalg.

// With threads, rows are first split across tasks.
// THREADS-LABEL: func.func @softmax
// THREADS:         scf.forall (%{{.*}}) in (2)
// THREADS:           scf.for {{.*}} to %c128 step %c1
// THREADS:         scf.forall.in_parallel
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @softmax(%x: tensor<256x1024xf32>) -> tensor<256x1024xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256xf32>
  %f0 = linalg.fill ins(%ninf : f32) outs(%e : tensor<256xf32>) -> tensor<256xf32>
  %m = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<256x1024xf32>) outs(%f0 : tensor<256xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<256xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e : tensor<256xf32>) -> tensor<256xf32>
  %s = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x, %m : tensor<256x1024xf32>, tensor<256xf32>) outs(%f1 : tensor<256xf32>) {
  ^bb0(%a: f32, %mm: f32, %o: f32):
    %d = arith.subf %a, %mm : f32
    %x2 = math.exp %d : f32
    %r = arith.addf %o, %x2 : f32
    linalg.yield %r : f32
  } -> tensor<256xf32>
  %e2 = tensor.empty() : tensor<256x1024xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %m, %s : tensor<256x1024xf32>, tensor<256xf32>, tensor<256xf32>) outs(%e2 : tensor<256x1024xf32>) {
  ^bb0(%a: f32, %mm: f32, %ss: f32, %o: f32):
    %d = arith.subf %a, %mm : f32
    %x2 = math.exp %d : f32
    %r = arith.divf %x2, %ss : f32
    linalg.yield %r : f32
  } -> tensor<256x1024xf32>
  return %y : tensor<256x1024xf32>
}
