// RUN: ms-opt %s --mindir-insert-shardings --split-input-file --verify-diagnostics

// Strategies implying two different meshes (2x4 and 4x2 on 8 devices)
// cannot share the module's one grid.
func.func @two_meshes(%x: tensor<8x8xf32>, %w: tensor<8x8xf32>) -> tensor<8x8xf32>
    attributes {mindir.device_num = 8 : i64} {
  %a = mindir.relu %x {mindir.in_strategy = [array<i64: 2, 4>]} : tensor<8x8xf32>
  // expected-error @+1 {{strategy (4, 2) of input 0 implies the device matrix (4, 2), but strategy (2, 4) of input 0 implies (2, 4): all strategies must cut the same multi-dimensional mesh}}
  %b = mindir.exp %a {mindir.in_strategy = [array<i64: 4, 2>]} : tensor<8x8xf32>
  return %b : tensor<8x8xf32>
}

// -----

// The product of the cuts must divide device_num...
func.func @not_dividing(%x: tensor<8x8xf32>) -> tensor<8x8xf32>
    attributes {mindir.device_num = 4 : i64} {
  // expected-error @+1 {{strategy (2, 4) of input 0 splits dims [0, 1] with cuts [2, 4]: needs 8 devices, which does not divide device_num (4)}}
  %a = mindir.relu %x {mindir.in_strategy = [array<i64: 2, 4>]} : tensor<8x8xf32>
  return %a : tensor<8x8xf32>
}

// -----

// ... and the cuts of every strategy must nest (the leading axes of one
// mesh): 4 and 6 of 12 devices do not (4 does not divide 6 nor 6 4).
func.func @not_nesting(%x: tensor<12x12xf32>) -> tensor<12x12xf32>
    attributes {mindir.device_num = 12 : i64} {
  %a = mindir.relu %x {mindir.in_strategy = [array<i64: 4, 1>]} : tensor<12x12xf32>
  // expected-error @+1 {{strategy (6, 1) of input 0 uses 6 devices for its leading cuts, which does not nest with 4 (strategy (4, 1) of input 0 uses 4): every strategy's cuts must be leading axes of one device mesh}}
  %b = mindir.exp %a {mindir.in_strategy = [array<i64: 6, 1>]} : tensor<12x12xf32>
  return %b : tensor<12x12xf32>
}

// -----

// A MatMul's contracted dim is cut alike in both inputs.
func.func @contracted(%x: tensor<8x16xf32>, %w: tensor<16x8xf32>) -> tensor<8x8xf32>
    attributes {mindir.device_num = 4 : i64} {
  // expected-error @+1 {{the contracted dim is cut 2 in input 0 but 1 in input 1; they must agree}}
  %y = mindir.matmul %x, %w {mindir.in_strategy = [array<i64: 2, 2>, array<i64: 1, 2>]} : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}
