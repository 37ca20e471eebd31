// RUN: ms-opt %s --split-input-file --mskernel-poly-claim="min-work=0" --verify-diagnostics | FileCheck %s

// mskernel-poly-claim: a parallel linalg.generic reading an operand
// transposed whose rows are a multiple of 4 KiB apart (8x1024 f32: 4 KiB) is
// outlined into a private function marked mskernel.poly, for the isl
// scheduler; the empty init is made inside, captured constants cloned.
// CHECK-LABEL: func.func private @transpose_add_poly0(%{{.*}}: tensor<8x1024xf32>, %{{.*}}: tensor<1024x8xf32>) -> tensor<1024x8xf32> attributes {mskernel.poly}
// CHECK-NEXT:    tensor.empty() : tensor<1024x8xf32>
// CHECK-NEXT:    arith.constant 2.0
// CHECK-NEXT:    linalg.generic {{.*}} ins(%arg0, %arg1 :
// CHECK-LABEL: func.func @transpose_add
// CHECK:         %[[R:.*]] = call @transpose_add_poly0(%arg0, %arg1)
// CHECK-NEXT:    return %[[R]]
#t = affine_map<(d0, d1) -> (d1, d0)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @transpose_add(%x: tensor<8x1024xf32>, %y: tensor<1024x8xf32>) -> tensor<1024x8xf32> {
  %two = arith.constant 2.0 : f32
  %e = tensor.empty() : tensor<1024x8xf32>
  %r = linalg.generic {indexing_maps = [#t, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<8x1024xf32>, tensor<1024x8xf32>) outs(%e : tensor<1024x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %two : f32
    %s = arith.addf %m, %b : f32
    linalg.yield %s : f32
  } -> tensor<1024x8xf32>
  return %r : tensor<1024x8xf32>
}

// -----

// Rows 1000 x 4 B apart: the hand strategies are faster there, not claimed;
// a dead op is not claimed either; an identity-map op is no candidate.
// CHECK-LABEL: func.func @not_claimed
// CHECK-NOT:     call
// CHECK-NOT:     mskernel.poly
#t = affine_map<(d0, d1) -> (d1, d0)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @not_claimed(%x: tensor<8x1000xf32>, %z: tensor<8x1024xf32>) -> (tensor<1000x8xf32>, tensor<8x1024xf32>) {
  %e = tensor.empty() : tensor<1000x8xf32>
  %r = linalg.generic {indexing_maps = [#t, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x1000xf32>) outs(%e : tensor<1000x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<1000x8xf32>
  %e2 = tensor.empty() : tensor<1024x8xf32>
  %dead = linalg.generic {indexing_maps = [#t, #id], iterator_types = ["parallel", "parallel"]}
      ins(%z : tensor<8x1024xf32>) outs(%e2 : tensor<1024x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<1024x8xf32>
  %e3 = tensor.empty() : tensor<8x1024xf32>
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%z : tensor<8x1024xf32>) outs(%e3 : tensor<8x1024xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<8x1024xf32>
  return %r, %c : tensor<1000x8xf32>, tensor<8x1024xf32>
}

// -----

// Declined candidates keep the hand strategy, with a remark saying why.
#t3 = affine_map<(d0, d1) -> (d1, d0)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @with_reduction(%x: tensor<8x1024xf32>, %init: tensor<1024xf32>) -> tensor<1024xf32> {
  // expected-remark @below {{mskernel-poly-claim: keeps the hand strategy: a transposed read in an op with a reduction (not measured against the hand strategy)}}
  %r = linalg.generic {indexing_maps = [#t3, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x1024xf32>) outs(%init : tensor<1024xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<1024xf32>
  return %r : tensor<1024xf32>
}

// -----

#t4 = affine_map<(d0, d1) -> (d1, d0)>
#id4 = affine_map<(d0, d1) -> (d0, d1)>
func.func @captured(%x: tensor<8x1024xf32>, %s: f32) -> tensor<1024x8xf32> {
  %e = tensor.empty() : tensor<1024x8xf32>
  // expected-remark @below {{mskernel-poly-claim: keeps the hand strategy: its body uses a value defined outside the op that is not a constant}}
  %r = linalg.generic {indexing_maps = [#t4, #id4], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x1024xf32>) outs(%e : tensor<1024x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %s : f32
    linalg.yield %m : f32
  } -> tensor<1024x8xf32>
  return %r : tensor<1024x8xf32>
}
