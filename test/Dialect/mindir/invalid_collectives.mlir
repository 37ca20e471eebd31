// RUN: ms-opt %s --split-input-file --verify-diagnostics

func.func @gather_type(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{result type must be 'tensor<8x3xf32>', got 'tensor<4x3xf32>'}}
  %g = mindir.all_gather %x {group_size = 2 : i64} : tensor<4x3xf32> -> tensor<4x3xf32>
  return %g : tensor<4x3xf32>
}

// -----

func.func @scatter_divisible(%x: tensor<5x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{dim 0 (5) is not divisible by group_size (2)}}
  %s = mindir.reduce_scatter %x {group_size = 2 : i64} : tensor<5x3xf32> -> tensor<2x3xf32>
  return %s : tensor<2x3xf32>
}

// -----

func.func @gather_scalar(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{needs a tensor of rank >= 1}}
  %g = mindir.all_gather %x {group_size = 1 : i64} : tensor<f32> -> tensor<f32>
  return %g : tensor<f32>
}

// -----

func.func @group_size(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{group_size must be at least 1, got 0}}
  %g = mindir.all_gather %x {group_size = 0 : i64} : tensor<4xf32> -> tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

func.func @root(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{root must be a rank (>= 0), got -1}}
  %b = mindir.broadcast %x {root = -1 : i64} : tensor<4xf32>
  return %b : tensor<4xf32>
}

// -----

func.func @bool_elements(%x: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{operand #0 must be}}
  %a = mindir.all_reduce %x : tensor<4xi1>
  return %a : tensor<4xi1>
}

// -----

func.func @bad_reduction(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{expected ::msmlir::mindir::ReduceOp to be one of: sum, max, min, prod}}
  // expected-error @+1 {{failed to parse MindIR_ReduceOpAttr parameter 'value'}}
  %a = mindir.all_reduce %x {op = #mindir.reduce_op<mean>} : tensor<4xf32>
  return %a : tensor<4xf32>
}
