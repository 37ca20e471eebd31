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
// a dead op is not claimed either. An elementwise op on its own (identity
// maps) is claimed (codegen's vector loops tie or beat tile-vectorize).
// CHECK-LABEL: func.func private @not_claimed_poly0(%{{.*}}: tensor<8x1024xf32>) -> tensor<8x1024xf32> attributes {mskernel.poly}
// CHECK-LABEL: func.func @not_claimed
// CHECK-COUNT-2: linalg.generic
// CHECK-NOT:     linalg.generic
// CHECK:         call @not_claimed_poly0
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

// -----

// A transpose at any row stride (1000 x 4 B here) whose one consumer is an
// elementwise op: the pair is claimed as one function, kept as two generics
// there (the isl scheduler fuses their nests: one fused generic ran 15-30%
// slower, claim.py); the call takes the consumer's place.
// CHECK-LABEL: func.func private @transpose_then_add_poly0(%{{.*}}: tensor<8x1000xf32>, %{{.*}}: tensor<1000x8xf32>) -> tensor<1000x8xf32> attributes {mskernel.poly}
// CHECK:         %[[T:.*]] = linalg.generic
// CHECK-SAME:      ins(%arg0 : tensor<8x1000xf32>)
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%[[T]], %arg1 : tensor<1000x8xf32>, tensor<1000x8xf32>)
// CHECK:           arith.addf
// CHECK-NOT:     linalg.generic
// CHECK:         return
// CHECK-LABEL: func.func @transpose_then_add
// CHECK:         %[[R:.*]] = call @transpose_then_add_poly0(%arg0, %arg1)
// CHECK-NEXT:    return %[[R]]
#t5 = affine_map<(d0, d1) -> (d1, d0)>
#id5 = affine_map<(d0, d1) -> (d0, d1)>
func.func @transpose_then_add(%x: tensor<8x1000xf32>, %y: tensor<1000x8xf32>) -> tensor<1000x8xf32> {
  %e = tensor.empty() : tensor<1000x8xf32>
  %t = linalg.generic {indexing_maps = [#t5, #id5], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x1000xf32>) outs(%e : tensor<1000x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<1000x8xf32>
  %r = linalg.generic {indexing_maps = [#id5, #id5, #id5], iterator_types = ["parallel", "parallel"]}
      ins(%t, %y : tensor<1000x8xf32>, tensor<1000x8xf32>) outs(%e : tensor<1000x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<1000x8xf32>
  return %r : tensor<1000x8xf32>
}

// -----

// A transpose read by two ops, or whose result is also returned: not a
// pair, and its rows are not 4 KiB apart: the hand strategies keep both.
// CHECK-LABEL: func.func @transpose_two_uses
// CHECK-NOT:     call
#t6 = affine_map<(d0, d1) -> (d1, d0)>
#id6 = affine_map<(d0, d1) -> (d0, d1)>
func.func @transpose_two_uses(%x: tensor<8x1000xf32>, %y: tensor<1000x8xf32>) -> (tensor<1000x8xf32>, tensor<1000x8xf32>) {
  %e = tensor.empty() : tensor<1000x8xf32>
  %t = linalg.generic {indexing_maps = [#t6, #id6], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x1000xf32>) outs(%e : tensor<1000x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<1000x8xf32>
  %r = linalg.generic {indexing_maps = [#id6, #id6, #id6], iterator_types = ["parallel", "parallel"]}
      ins(%t, %y : tensor<1000x8xf32>, tensor<1000x8xf32>) outs(%e : tensor<1000x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<1000x8xf32>
  return %r, %t : tensor<1000x8xf32>, tensor<1000x8xf32>
}

// -----

// A row reduction on its own (reads an argument, its result returned):
// claimed, its filled init passed in (the fill stays with the hand path).
// CHECK-LABEL: func.func private @row_sum_poly0(%{{.*}}: tensor<64x1000xf32>, %{{.*}}: tensor<64xf32>) -> tensor<64xf32> attributes {mskernel.poly}
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK-LABEL: func.func @row_sum
// CHECK:         %[[F:.*]] = linalg.fill
// CHECK-NEXT:    call @row_sum_poly0(%arg0, %[[F]])
#id7 = affine_map<(d0, d1) -> (d0, d1)>
#row7 = affine_map<(d0, d1) -> (d0)>
func.func @row_sum(%x: tensor<64x1000xf32>) -> tensor<64xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %r = linalg.generic {indexing_maps = [#id7, #row7], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<64x1000xf32>) outs(%f : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %r : tensor<64xf32>
}

// -----

// A row reduction whose input comes from another linalg op (a softmax's
// row sum): msmlir-fuse-rows' row loop keeps it, with a remark.
#id8 = affine_map<(d0, d1) -> (d0, d1)>
#row8 = affine_map<(d0, d1) -> (d0)>
func.func @row_sum_of_exp(%x: tensor<64x1000xf32>, %init: tensor<64xf32>) -> tensor<64xf32> {
  %e = tensor.empty() : tensor<64x1000xf32>
  %x2 = linalg.generic {indexing_maps = [#id8, #id8], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<64x1000xf32>) outs(%e : tensor<64x1000xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = math.exp %a : f32
    linalg.yield %s : f32
  } -> tensor<64x1000xf32>
  // expected-remark @below {{mskernel-poly-claim: keeps the hand strategy: a row reduction next to other linalg ops (msmlir-fuse-rows' row loops)}}
  %r = linalg.generic {indexing_maps = [#id8, #row8], iterator_types = ["parallel", "reduction"]}
      ins(%x2 : tensor<64x1000xf32>) outs(%init : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %r : tensor<64xf32>
}

// -----

// Rows shorter than one vector (12 f32 < 16 lanes) are claimed (the
// scheduler's 8-lane vector + a masked step: 1.2-1.4x, claim.py); rows of 3
// (< MIN_LANES) are not, the hand strategy keeps them (no remark: not a
// candidate).
// CHECK-LABEL: func.func private @short_rows_poly0
// CHECK-SAME:    attributes {mskernel.poly}
// CHECK-LABEL: func.func @short_rows
// CHECK:         call @short_rows_poly0
// CHECK-LABEL: func.func @rows_of_3
// CHECK-NOT:     call
#id9 = affine_map<(d0, d1) -> (d0, d1)>
#row9 = affine_map<(d0, d1) -> (d0)>
func.func @short_rows(%x: tensor<1024x12xf32>, %init: tensor<1024xf32>) -> tensor<1024xf32> {
  %r = linalg.generic {indexing_maps = [#id9, #row9], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<1024x12xf32>) outs(%init : tensor<1024xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<1024xf32>
  return %r : tensor<1024xf32>
}
func.func @rows_of_3(%x: tensor<4096x3xf32>, %init: tensor<4096xf32>) -> tensor<4096xf32> {
  %r = linalg.generic {indexing_maps = [#id9, #row9], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4096x3xf32>) outs(%init : tensor<4096xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<4096xf32>
  return %r : tensor<4096xf32>
}

// -----

// An elementwise chain member (its input another linalg op's result) stays
// with the hand strategies (fusion / msmlir-fuse-rows keep chains whole);
// so does an elementwise op on bools (i1 memrefs: no vector loads). No
// remark: not candidates.
// CHECK-LABEL: func.func @chain_member
// CHECK-NOT:     call
#id10 = affine_map<(d0, d1) -> (d0, d1)>
func.func @chain_member(%x: tensor<64x256xf32>) -> tensor<64x256xf32> {
  %e = tensor.empty() : tensor<64x256xf32>
  %a = linalg.generic {indexing_maps = [#id10, #id10], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<64x256xf32>) outs(%e : tensor<64x256xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = math.exp %v : f32
    linalg.yield %s : f32
  } -> tensor<64x256xf32>
  %b = linalg.generic {indexing_maps = [#id10, #id10, #id10], iterator_types = ["parallel", "parallel"]}
      ins(%a, %x : tensor<64x256xf32>, tensor<64x256xf32>) outs(%e : tensor<64x256xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %s = arith.mulf %v, %w : f32
    linalg.yield %s : f32
  } -> tensor<64x256xf32>
  return %b : tensor<64x256xf32>
}
// CHECK-LABEL: func.func @bools
// CHECK-NOT:     call
// CHECK-LABEL: func.func @rank0
// CHECK-NOT:     call
func.func @bools(%x: tensor<64x256xi1>, %y: tensor<64x256xi1>) -> tensor<64x256xi1> {
  %e = tensor.empty() : tensor<64x256xi1>
  %r = linalg.generic {indexing_maps = [#id10, #id10, #id10], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<64x256xi1>, tensor<64x256xi1>) outs(%e : tensor<64x256xi1>) {
  ^bb0(%a: i1, %b: i1, %o: i1):
    %s = arith.andi %a, %b : i1
    linalg.yield %s : i1
  } -> tensor<64x256xi1>
  return %r : tensor<64x256xi1>
}
func.func @rank0(%x: tensor<f32>) -> tensor<f32> {
  %e = tensor.empty() : tensor<f32>
  %r = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []}
      ins(%x : tensor<f32>) outs(%e : tensor<f32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %a : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// A reduction over outer loops only (a column sum / bias gradient, its
// innermost loop parallel) is claimed: codegen keeps blocks of the result
// row in vector registers across the reduced rows (vectorize.columns).
// A sum over a middle axis too; a column sum reading its input transposed
// is no such candidate (and a transposed read with a reduction: remark).
// CHECK-LABEL: func.func private @col_sum_poly0(%{{.*}}: tensor<64x500xf32>, %{{.*}}: tensor<500xf32>) -> tensor<500xf32> attributes {mskernel.poly}
// CHECK:         linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]
// CHECK-LABEL: func.func @col_sum
// CHECK:         call @col_sum_poly0
// CHECK-LABEL: func.func private @mid_sum_poly0
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "reduction", "parallel"]
#id11 = affine_map<(d0, d1) -> (d0, d1)>
#col11 = affine_map<(d0, d1) -> (d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#mid = affine_map<(d0, d1, d2) -> (d0, d2)>
func.func @col_sum(%x: tensor<64x500xf32>, %init: tensor<500xf32>) -> tensor<500xf32> {
  %r = linalg.generic {indexing_maps = [#id11, #col11], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<64x500xf32>) outs(%init : tensor<500xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<500xf32>
  return %r : tensor<500xf32>
}
func.func @mid_sum(%x: tensor<8x64x32xf32>, %init: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %r = linalg.generic {indexing_maps = [#id3, #mid], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%x : tensor<8x64x32xf32>) outs(%init : tensor<8x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<8x32xf32>
  return %r : tensor<8x32xf32>
}
