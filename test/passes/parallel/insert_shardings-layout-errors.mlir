// RUN: ms-opt %s --mindir-insert-shardings --split-input-file --verify-diagnostics

// Two Layouts on different device matrices cannot share the module's grid.
func.func @two_matrices(%x: tensor<8x8xf32>) -> tensor<8x8xf32>
    attributes {mindir.device_num = 4 : i64} {
  %a = mindir.relu %x {mindir.device_matrix = array<i64: 2, 2>, mindir.in_layout = [[array<i64: 0>, array<i64: 1>]],
         mindir.in_strategy = [array<i64: 2, 2>]} : tensor<8x8xf32>
  // expected-error @+1 {{the device matrix (4,) of the layouts of 'mindir.exp' differs from (2, 2) of the layouts of 'mindir.relu'}}
  %b = mindir.exp %a {mindir.device_matrix = array<i64: 4>, mindir.in_layout = [[array<i64: 0>, array<i64>]],
         mindir.in_strategy = [array<i64: 4, 1>]} : tensor<8x8xf32>
  return %b : tensor<8x8xf32>
}

// -----

// The matrix must cover device_num.
func.func @too_small(%x: tensor<8x8xf32>) -> tensor<8x8xf32>
    attributes {mindir.device_num = 4 : i64} {
  // expected-error @+1 {{the device matrix (2,) of the layouts of 'mindir.relu' covers 2 devices, not device_num (4)}}
  %a = mindir.relu %x {mindir.device_matrix = array<i64: 2>, mindir.in_layout = [[array<i64: 0>, array<i64>]],
         mindir.in_strategy = [array<i64: 2, 1>]} : tensor<8x8xf32>
  return %a : tensor<8x8xf32>
}

// -----

// A dim not divisible by the size of its axes.
func.func @not_divisible(%x: tensor<6x8xf32>) -> tensor<6x8xf32>
    attributes {mindir.device_num = 4 : i64} {
  // expected-error @+1 {{layout [[0, 1], []] of input 0: dim 0 (size 6) is not divisible by 4, the size of its axes [0, 1] of the device matrix (2, 2)}}
  %a = mindir.relu %x {mindir.device_matrix = array<i64: 2, 2>, mindir.in_layout = [[array<i64: 0, 1>, array<i64>]],
         mindir.in_strategy = [array<i64: 4, 1>]} : tensor<6x8xf32>
  return %a : tensor<6x8xf32>
}

// -----

// An axis the matrix does not have, or one used twice.
func.func @bad_axis(%x: tensor<8x8xf32>) -> tensor<8x8xf32>
    attributes {mindir.device_num = 4 : i64} {
  // expected-error @+1 {{layout [[1], [1]] of input 0: each axis must be one of the device matrix (2, 2)'s (0..1), once}}
  %a = mindir.relu %x {mindir.device_matrix = array<i64: 2, 2>, mindir.in_layout = [[array<i64: 1>, array<i64: 1>]],
         mindir.in_strategy = [array<i64: 2, 2>]} : tensor<8x8xf32>
  return %a : tensor<8x8xf32>
}

// -----

// A tuple strategy next to a Layout must be products of the matrix's leading axes.
func.func @tuple_does_not_fit(%x: tensor<8x8xf32>) -> tensor<8x8xf32>
    attributes {mindir.device_num = 8 : i64} {
  %a = mindir.relu %x {mindir.device_matrix = array<i64: 2, 4>, mindir.in_layout = [[array<i64: 0>, array<i64: 1>]],
         mindir.in_strategy = [array<i64: 2, 4>]} : tensor<8x8xf32>
  // expected-error @+1 {{strategy (4, 1) of input 0 cuts (4,), but the device matrix given by the Layouts is (2, 4): the cuts of a tuple strategy must be products of its leading axes (or give a Layout)}}
  %b = mindir.exp %a {mindir.in_strategy = [array<i64: 4, 1>]} : tensor<8x8xf32>
  return %b : tensor<8x8xf32>
}

// -----

// The strategy's cuts and the layout's axes must agree.
func.func @cuts_disagree(%x: tensor<8x8xf32> {mindir.strategy = array<i64: 2, 1>,
                                              mindir.layout = [array<i64: 0, 1>, array<i64>]}) -> tensor<8x8xf32>
    // expected-error @-2 {{layout [[0, 1], []] of argument 0: dim 0 is cut 4 by its axes but 2 by the strategy}}
    attributes {mindir.device_num = 4 : i64, mindir.device_matrix = array<i64: 2, 2>} {
  %a = mindir.relu %x : tensor<8x8xf32>
  return %a : tensor<8x8xf32>
}

// -----

// One mesh axis on two dims of a matmul's iteration space (x's rows and w's
// columns both over axis 0): an error at the matmul (upstream propagation
// asserts on it).
func.func @axis_twice(%x: tensor<8x16xf32> {mindir.strategy = array<i64: 2, 1>,
                                            mindir.layout = [array<i64: 0>, array<i64>]},
                      %w: tensor<16x8xf32> {mindir.strategy = array<i64: 1, 2>,
                                            mindir.layout = [array<i64>, array<i64: 0>]}) -> tensor<8x8xf32>
    attributes {mindir.device_num = 4 : i64, mindir.device_matrix = array<i64: 2, 2>} {
  // expected-error @+1 {{the rows of input 0 and the columns of input 1 of 'mindir.matmul' are both split over mesh axis 0: a mesh axis can cut only one dim of an op}}
  %y = mindir.matmul %x, %w : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}
