// RUN: ms-opt %s --mindir-insert-shardings --split-input-file --verify-diagnostics

func.func @not_divisible(%x: tensor<5x8xf32>, %w: tensor<8x4xf32>) -> tensor<5x4xf32>
    attributes {mindir.device_num = 2 : i64} {
  // expected-error @+1 {{bad sharding strategy: strategy (2, 1) of input 0: dim 0 (size 5) is not divisible by its cut 2}}
  %0 = mindir.matmul %x, %w {mindir.in_strategy = [array<i64: 2, 1>, array<i64: 1, 1>]} : (tensor<5x8xf32>, tensor<8x4xf32>) -> tensor<5x4xf32>
  return %0 : tensor<5x4xf32>
}

// -----

func.func @rank_mismatch(%x: tensor<4x8xf32>, %w: tensor<8x4xf32>) -> tensor<4x4xf32>
    attributes {mindir.device_num = 2 : i64} {
  // expected-error @+1 {{bad sharding strategy: strategy (1, 2, 1) of input 1 has 3 cut(s), but the tensor has rank 2 (tensor<8x4xf32>)}}
  %0 = mindir.matmul %x, %w {mindir.in_strategy = [array<i64: 1, 2>, array<i64: 1, 2, 1>]} : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

func.func @count_mismatch(%x: tensor<4x8xf32>, %w: tensor<8x4xf32>) -> tensor<4x4xf32>
    attributes {mindir.device_num = 2 : i64} {
  // expected-error @+1 {{bad sharding strategy: in_strategy has 1 tuple(s) but 'mindir.matmul' has 2 input(s)}}
  %0 = mindir.matmul %x, %w {mindir.in_strategy = [array<i64: 1, 2>]} : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

func.func @bad_cut(%x: tensor<6x8xf32>) -> tensor<6x8xf32>
    attributes {mindir.device_num = 4 : i64} {
  // expected-error @+1 {{strategy (3, 1) of input 0: cut 3 of dim 0 does not divide device_num (4)}}
  %0 = mindir.exp %x {mindir.in_strategy = [array<i64: 3, 1>]} : tensor<6x8xf32>
  return %0 : tensor<6x8xf32>
}

// -----

func.func @two_split_dims(%x: tensor<8x8xf32>) -> tensor<8x8xf32>
    attributes {mindir.device_num = 2 : i64} {
  // expected-error @+1 {{splits dims [0, 1] with cuts [2, 2]: needs 4 devices, which does not divide device_num (2)}}
  %0 = mindir.exp %x {mindir.in_strategy = [array<i64: 2, 2>]} : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

// expected-error @+1 {{bad sharding strategy: strategy (3,) of argument 0: dim 0 (size 4) is not divisible by its cut 3}}
func.func @arg(%x: tensor<4xf32> {mindir.strategy = array<i64: 3>}) -> tensor<4xf32>
    attributes {mindir.device_num = 3 : i64} {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{strategies given but no device_num}}
func.func @no_device_num(%x: tensor<4xf32> {mindir.strategy = array<i64: 2>}) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

func.func @hint_not_divisible(%x: tensor<5x4xf32>) -> tensor<5x4xf32>
    attributes {mindir.device_num = 2 : i64} {
  // expected-error @+1 {{bad sharding strategy: strategy (2, 1) of the hinted value: dim 0 (size 5) is not divisible by its cut 2}}
  %0 = mindir.sharding_hint %x {strategy = array<i64: 2, 1>} : tensor<5x4xf32>
  return %0 : tensor<5x4xf32>
}

// -----

func.func @hint_rank(%x: tensor<4x4xf32>) -> tensor<4x4xf32>
    attributes {mindir.device_num = 2 : i64} {
  // expected-error @+1 {{bad sharding strategy: strategy (2,) of the hinted value has 1 cut(s), but the tensor has rank 2 (tensor<4x4xf32>)}}
  %0 = mindir.sharding_hint %x {strategy = array<i64: 2>} : tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}
