// RUN: ms-opt %s --msmlir-inplace-writeback --split-input-file --verify-diagnostics

// expected-error @+1 {{msmlir-inplace-writeback: expected msmlir.writeback = [[result, argument], ...] and msmlir.num_inputs = the argument count before the results (at most 2)}}
func.func @bad_pairs(%w: memref<4xf32>, %nw: memref<4xf32>)
    attributes {msmlir.num_inputs = 1 : i64, msmlir.writeback = [[0]]} {
  return
}

// -----

// expected-error @+1 {{msmlir.num_inputs = the argument count before the results (at most 2), got [[0, 0]] and 5 : i64}}
func.func @bad_count(%w: memref<4xf32>, %nw: memref<4xf32>)
    attributes {msmlir.num_inputs = 5 : i64, msmlir.writeback = [[0, 0]]} {
  return
}

// -----

// expected-error @+1 {{got 1 : i64 and 1 : i64}}
func.func @not_pairs(%w: memref<4xf32>, %nw: memref<4xf32>)
    attributes {msmlir.num_inputs = 1 : i64, msmlir.writeback = 1 : i64} {
  return
}
