// RUN: ms-opt %s --msmlir-fuse-rows | FileCheck %s
// RUN: ms-opt %s --msmlir-fuse-rows --msmlir-cpu-tile-vectorize --msmlir-cpu-fast-math --canonicalize | FileCheck %s --check-prefix=FAST

// Softmax as the expander writes it (m = max, e = exp(x - m), s = sum of e,
// e / s): in the row loop the max is marked shift-only (its NaN semantics do
// not matter: a NaN in the row makes s, so every e / s, NaN either way) and
// the exp nonpositive (x - m <= 0 or NaN).
// CHECK-LABEL: func.func @softmax
// CHECK:         scf.for
// CHECK:           arith.maximumf %{{.*}}, %{{.*}} {msmlir.shift_only} : f32
// CHECK:           arith.subf
// CHECK-NEXT:      math.exp %{{.*}} {msmlir.nonpositive} : f32
// CHECK:           arith.addf
// CHECK:           arith.divf
// Then fast-math: the partial maxima are compare-and-select (one vmaxps),
// the exp has only its lower clamp (one select after the subtraction).
// FAST-LABEL: func.func @softmax
// FAST:         scf.for
// FAST:           %[[C:.*]] = arith.cmpf ogt, %[[ACC:.*]], %[[X:.*]] : vector<64xf32>
// FAST-NEXT:      arith.select %[[C]], %[[ACC]], %[[X]] : vector<64xi1>, vector<64xf32>
// FAST:           arith.maximumf {{.*}} : vector<32xf32>
// FAST:           %[[D:.*]] = arith.subf {{.*}} : vector<16xf32>
// FAST-NEXT:      %[[LO:.*]] = arith.cmpf olt, %[[D]], %{{.*}} : vector<16xf32>
// FAST-NEXT:      %[[XC:.*]] = arith.select %[[LO]], %{{.*}}, %[[D]] : vector<16xi1>, vector<16xf32>
// FAST-NEXT:      math.fma %[[XC]]
// FAST-COUNT-8:   math.fma
// FAST-NOT:       arith.select
// FAST:           arith.bitcast
// FAST-NOT:       msmlir.shift_only
// FAST-NOT:       msmlir.nonpositive
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
  %e2 = tensor.empty() : tensor<512x1024xf32>
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %m : tensor<512x1024xf32>, tensor<512xf32>) outs(%e2 : tensor<512x1024xf32>) {
  ^bb0(%a: f32, %mm: f32, %o: f32):
    %d = arith.subf %a, %mm : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<512x1024xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e : tensor<512xf32>) -> tensor<512xf32>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%ex : tensor<512x1024xf32>) outs(%f1 : tensor<512xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<512xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%ex, %s : tensor<512x1024xf32>, tensor<512xf32>) outs(%e2 : tensor<512x1024xf32>) {
  ^bb0(%a: f32, %ss: f32, %o: f32):
    %r = arith.divf %a, %ss : f32
    linalg.yield %r : f32
  } -> tensor<512x1024xf32>
  return %y : tensor<512x1024xf32>
}

// The max is also returned: its NaN is visible, no mark.
// CHECK-LABEL: func.func @max_returned
// CHECK-NOT:     msmlir.shift_only
// CHECK-NOT:     msmlir.nonpositive
// CHECK:         return
func.func @max_returned(%x: tensor<512x1024xf32>) -> (tensor<512x1024xf32>, tensor<512xf32>) {
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
  %e2 = tensor.empty() : tensor<512x1024xf32>
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %m : tensor<512x1024xf32>, tensor<512xf32>) outs(%e2 : tensor<512x1024xf32>) {
  ^bb0(%a: f32, %mm: f32, %o: f32):
    %d = arith.subf %a, %mm : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<512x1024xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e : tensor<512xf32>) -> tensor<512xf32>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%ex : tensor<512x1024xf32>) outs(%f1 : tensor<512xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<512xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%ex, %s : tensor<512x1024xf32>, tensor<512xf32>) outs(%e2 : tensor<512x1024xf32>) {
  ^bb0(%a: f32, %ss: f32, %o: f32):
    %r = arith.divf %a, %ss : f32
    linalg.yield %r : f32
  } -> tensor<512x1024xf32>
  return %y, %m : tensor<512x1024xf32>, tensor<512xf32>
}

// exp(x - m) is used beside its division by the sum (e + e / s): with a NaN
// in the row e's other lanes would differ, no mark.
// CHECK-LABEL: func.func @exp_used_twice
// CHECK-NOT:     msmlir.shift_only
// CHECK-NOT:     msmlir.nonpositive
// CHECK:         return
func.func @exp_used_twice(%x: tensor<512x1024xf32>) -> tensor<512x1024xf32> {
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
  %e2 = tensor.empty() : tensor<512x1024xf32>
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %m : tensor<512x1024xf32>, tensor<512xf32>) outs(%e2 : tensor<512x1024xf32>) {
  ^bb0(%a: f32, %mm: f32, %o: f32):
    %d = arith.subf %a, %mm : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<512x1024xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e : tensor<512xf32>) -> tensor<512xf32>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%ex : tensor<512x1024xf32>) outs(%f1 : tensor<512xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<512xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%ex, %s : tensor<512x1024xf32>, tensor<512xf32>) outs(%e2 : tensor<512x1024xf32>) {
  ^bb0(%a: f32, %ss: f32, %o: f32):
    %q = arith.divf %a, %ss : f32
    %r = arith.addf %q, %a : f32
    linalg.yield %r : f32
  } -> tensor<512x1024xf32>
  return %y : tensor<512x1024xf32>
}

// exp(x[j, i] - m[i]): m is not the max of the elements it shifts (x - m
// may be positive), no mark.
// CHECK-LABEL: func.func @exp_of_transpose
// CHECK-NOT:     msmlir.shift_only
// CHECK-NOT:     msmlir.nonpositive
// CHECK:         return
#tr = affine_map<(d0, d1) -> (d1, d0)>
func.func @exp_of_transpose(%x: tensor<512x512xf32>) -> tensor<512x512xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<512xf32>
  %f0 = linalg.fill ins(%ninf : f32) outs(%e : tensor<512xf32>) -> tensor<512xf32>
  %m = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<512x512xf32>) outs(%f0 : tensor<512xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<512xf32>
  %e2 = tensor.empty() : tensor<512x512xf32>
  %ex = linalg.generic {indexing_maps = [#tr, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %m : tensor<512x512xf32>, tensor<512xf32>) outs(%e2 : tensor<512x512xf32>) {
  ^bb0(%a: f32, %mm: f32, %o: f32):
    %d = arith.subf %a, %mm : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<512x512xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e : tensor<512xf32>) -> tensor<512xf32>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%ex : tensor<512x512xf32>) outs(%f1 : tensor<512xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<512xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%ex, %s : tensor<512x512xf32>, tensor<512xf32>) outs(%e2 : tensor<512x512xf32>) {
  ^bb0(%a: f32, %ss: f32, %o: f32):
    %r = arith.divf %a, %ss : f32
    linalg.yield %r : f32
  } -> tensor<512x512xf32>
  return %y : tensor<512x512xf32>
}
