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

// ... and equal it (no repeated calculation).
func.func @repeated(%x: tensor<8x8x8xf32>) -> tensor<8x8x8xf32>
    attributes {mindir.device_num = 8 : i64} {
  // expected-error @+1 {{strategy (2, 2, 1) of input 0 splits dims [0, 1] with cuts [2, 2]: uses 4 of the 8 devices (repeated calculation is not supported}}
  %a = mindir.relu %x {mindir.in_strategy = [array<i64: 2, 2, 1>]} : tensor<8x8x8xf32>
  return %a : tensor<8x8x8xf32>
}

// -----

// A MatMul's contracted dim is cut alike in both inputs.
func.func @contracted(%x: tensor<8x16xf32>, %w: tensor<16x8xf32>) -> tensor<8x8xf32>
    attributes {mindir.device_num = 4 : i64} {
  // expected-error @+1 {{the contracted dim is cut 2 in input 0 but 1 in input 1; they must agree}}
  %y = mindir.matmul %x, %w {mindir.in_strategy = [array<i64: 2, 2>, array<i64: 1, 2>]} : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}

// -----

// A tensor's own strategy (an argument's) names no op to infer a device
// matrix from: its cuts must be the mesh's shape (or one cut of device_num).
// expected-error @+1 {{strategy (2, 1) of argument 0: cut 2 of dim 0 is neither 1 nor device_num (4); it uses 2 of the 4 devices}}
func.func @partial_argument(%x: tensor<8x16xf32> {mindir.strategy = array<i64: 2, 1>}, %w: tensor<16x32xf32>) -> tensor<8x32xf32>
    attributes {mindir.device_num = 4 : i64} {
  %h = mindir.matmul %x, %w {mindir.in_strategy = [array<i64: 2, 1>, array<i64: 1, 2>]} : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  return %h : tensor<8x32xf32>
}
