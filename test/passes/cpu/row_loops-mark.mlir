// RUN: ms-opt %s --msmlir-fuse-rows | FileCheck %s
// RUN: ms-opt %s --msmlir-fuse-rows="min-work=1000000" | FileCheck %s --check-prefix=SMALL

// msmlir-fuse-rows marks each function it built a row loop in
// (msmlir.row_loops: the only functions msmlir-cpu-prefetch-rows{marked-only=true}
// looks at); a function whose clusters it left alone is not marked.
// CHECK-LABEL: func.func @softmax
// CHECK-SAME:    attributes {msmlir.row_loops}
// CHECK:         scf.for
// CHECK-LABEL: func.func @no_rows
// CHECK-NOT:     msmlir.row_loops
// CHECK:         return
// SMALL-LABEL: func.func @softmax
// SMALL-NOT:     msmlir.row_loops
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

func.func @no_rows(%x: tensor<512x1024xf32>) -> tensor<512x1024xf32> {
  return %x : tensor<512x1024xf32>
}
