// RUN: ms-opt %s --verify-diagnostics -split-input-file

// The ascendc verifiers (lib/AscendCDialect.cpp): the Ascend C rules the IR
// knows statically, each an error at the op.

// expected-error @+1 {{buffers need 200704 bytes of UB, which holds 196608 bytes}}
ascendc.kernel "k" from @f soc "Ascend910B" mode "row" block_dim 1 tiling {} {
  ascendc.queue @in0Que <VECIN> depth 2 bytes 100352 : f32 size "n"
}

// -----

// expected-error @+1 {{buffers need 524800 bytes of L1, which holds 524288 bytes}}
ascendc.kernel "k" from @f soc "Ascend910B" mode "row" block_dim 1 tiling {} {
  ascendc.queue @a1 <A1> depth 2 bytes 131072 : f16 size "n"
  ascendc.queue @b1 <B1> depth 2 bytes 131072 : f16 size "n"
  ascendc.tbuf @x <A1> bytes 512 : f16 size "n"
}

// -----

// expected-error @+1 {{buffers need 131072 bytes of L0A, which holds 65536 bytes}}
ascendc.kernel "k" from @f soc "Ascend910B" mode "row" block_dim 1 tiling {} {
  ascendc.queue @a2 <A2> depth 2 bytes 65536 : f16 size "n"
}

// -----

ascendc.kernel "k" from @f soc "Ascend910B" mode "row" block_dim 1 tiling {} {
  // expected-error @+1 {{buffer of 100 bytes in UB is not a multiple of 32 bytes}}
  ascendc.queue @in0Que <VECIN> depth 2 bytes 100 : f32 size "n"
}

// -----

ascendc.kernel "k" from @f soc "Ascend910B" mode "row" block_dim 1 tiling {} {
  // expected-error @+1 {{buffer of 1000 bytes in L0B is not a multiple of 512 bytes}}
  ascendc.tbuf @b2 <B2> bytes 1000 : f16 size "n"
}

// -----

ascendc.kernel "k" from @f soc "Ascend910B" mode "row" block_dim 1 tiling {} {
  // expected-error @+1 {{buffer of 96 bytes in L0C is not a multiple of 64 bytes}}
  ascendc.queue @co1 <CO1> depth 1 bytes 96 : f32 size "n"
}

// -----

ascendc.kernel "k" from @f soc "Ascend910B" mode "row" block_dim 1 tiling {} {
  // expected-error @+1 {{queue depth must be in [1, 8], got 0}}
  ascendc.queue @in0Que <VECIN> depth 0 bytes 32 : f32 size "n"
}

// -----

ascendc.kernel "k" from @f soc "Ascend910B" mode "row" block_dim 1 tiling {} {
  // expected-error @+1 {{VECCALC is a TBuf position, not a queue's}}
  ascendc.queue @in0Que <VECCALC> depth 1 bytes 32 : f32 size "n"
}

// -----

ascendc.kernel "k" from @f soc "Ascend910B" mode "row" block_dim 1 tiling {} {
  // expected-error @+1 {{a local buffer cannot be in GM}}
  ascendc.tbuf @t <GM> bytes 32 : f32 size "n"
}

// -----

ascendc.kernel "k" from @f soc "Ascend910B" mode "row" block_dim 1 tiling {} {
  ascendc.stage <CopyIn> {
    // expected-error @+1 {{DataCopy of a 400-byte block: not a multiple of 32 bytes (use ascendc.data_copy_pad)}}
    ascendc.data_copy "x0", "in0Gm[row0]" {block_bytes = array<i64: 512, 400>, count = "rows * cols"}
  }
}

// -----

ascendc.kernel "k" from @f soc "Ascend910B" mode "row" block_dim 1 tiling {} {
  ascendc.stage <CopyIn> {
    // expected-error @+1 {{needs either a count or DataCopyParams}}
    ascendc.data_copy "x0", "in0Gm[row0]" {block_bytes = array<i64: 512>, count = "n", params = ["1", "2", "0", "0"]}
  }
}

// -----

ascendc.kernel "k" from @f soc "Ascend910B" mode "row" block_dim 1 tiling {} {
  ascendc.stage <CopyIn> {
    // expected-error @+1 {{DataCopyExtParams has 5 fields (blockCount, blockLen, srcStride, dstStride, rsv), got 2}}
    ascendc.data_copy_pad "x0", "in0Gm[row0]" {block_bytes = array<i64: 400>, params = ["1", "2"]}
  }
}

// -----

// expected-error @+1 {{block_dim must be at least 1, got 0}}
ascendc.kernel "k" from @f soc "Ascend910B" mode "row" block_dim 0 tiling {} {
}

// -----

// expected-error @+1 {{tiling blockDim 4 differs from block_dim 2}}
ascendc.kernel "k" from @f soc "Ascend910B" mode "row" block_dim 2 tiling {blockDim = 4 : i64} {
}

// -----

// expected-error @+1 {{mode must be 'row' or 'col', got 'diag'}}
ascendc.kernel "k" from @f soc "Ascend910B" mode "diag" block_dim 1 tiling {} {
}

// -----

ascendc.kernel "k" from @f soc "Ascend910B" mode "row" block_dim 2 tiling {} {
  // expected-error @+1 {{2 cores x 3 tiles per core do not cover 10 tiles}}
  ascendc.for_tiles 10 per_core 3 {
  }
}

// -----

ascendc.kernel "k" from @f soc "Ascend910B" mode "row" block_dim 4 tiling {} {
  // expected-error @+1 {{core 3 of 4 has no tile (6 tiles, 2 per core)}}
  ascendc.for_tiles 6 per_core 2 {
  }
}

// -----

ascendc.kernel "k" from @f soc "Ascend910B" mode "row" block_dim 1 tiling {} {
  ascendc.tbuf @tF0 <VECCALC> bytes 32 : f32 size "n"
  ascendc.stage <CopyIn> {
    // expected-error @+1 {{'tF0' is not a queue of the kernel}}
    ascendc.alloc_tensor @tF0 -> "x0" : f32
  }
}

// -----

ascendc.kernel "k" from @f soc "Ascend910B" mode "row" block_dim 1 tiling {} {
  ascendc.queue @in0Que <VECIN> depth 2 bytes 32 : f32 size "n"
  ascendc.stage <Compute> {
    // expected-error @+1 {{'in0Que' is not a tbuf of the kernel}}
    ascendc.get_buf @in0Que
  }
}

// -----

ascendc.kernel "k" from @f soc "Ascend910B" mode "row" block_dim 1 tiling {} {
  ascendc.stage <Compute> {
    // expected-error @+1 {{a vector instruction over 0 elements}}
    ascendc.vec <Add> ["a", "b", "c"] count "cntF" elems 0
  }
}

// -----

ascendc.kernel "k" from @f soc "Ascend910B" mode "row" block_dim 1 tiling {} {
  // expected-error @+1 {{constant data of 9 elements exceeds 32 bytes}}
  ascendc.tbuf @kc <VECCALC> bytes 32 : f32 size "n" {data = array<f32: 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0>}
}

// -----

ascendc.kernel "k" from @f soc "Ascend910B" mode "row" block_dim 1 tiling {} {
  // expected-error @+1 {{GM tensor of 0 elements}}
  ascendc.global @in0Gm param "x0" : 0 x f32
}

// -----

// expected-error @+1 {{'ascendc.queue' op expects parent op 'ascendc.kernel'}}
ascendc.queue @in0Que <VECIN> depth 2 bytes 32 : f32 size "n"

// -----

// The emulator tests' planted missing-DeQue bug, as IR: Compute reads the
// tensor CopyIn enqueued without dequeuing it.
// expected-error @+1 {{queue 'in0Que': 1 EnQue but 0 DeQue (each tensor of a queue is allocated, enqueued, dequeued and freed)}}
ascendc.kernel "k" from @f soc "Ascend910B" mode "row" block_dim 1 tiling {} {
  ascendc.queue @in0Que <VECIN> depth 2 bytes 32 : f32 size "n"
  ascendc.for_tiles 1 per_core 1 {
    ascendc.stage <CopyIn> {
      ascendc.alloc_tensor @in0Que -> "x0" : f32
      ascendc.enque @in0Que, "x0"
    }
    ascendc.stage <Compute> {
      ascendc.free_tensor @in0Que, "x0"
    }
  }
}

// -----

// expected-error @+1 {{queue 'out0Que': 1 AllocTensor but 0 EnQue}}
ascendc.kernel "k" from @f soc "Ascend910B" mode "row" block_dim 1 tiling {} {
  ascendc.queue @out0Que <VECOUT> depth 2 bytes 32 : f32 size "n"
  ascendc.stage <Compute> {
    ascendc.alloc_tensor @out0Que -> "out0" : f32
  }
}

// -----

ascendc.kernel "k" from @f soc "Ascend910B" mode "row" block_dim 1 tiling {} {
  // expected-error @+1 {{buffer of 9223372036854775807 bytes is larger than any memory level}}
  ascendc.queue @in0Que <VECIN> depth 2 bytes 9223372036854775807 : f32 size "n"
}

// -----

ascendc.kernel "k" from @f soc "Ascend910B" mode "row" block_dim 9223372036854775807 tiling {} {
  // expected-error @+1 {{core 9223372036854775806 of 9223372036854775807 has no tile (1 tiles, 9223372036854775807 per core)}}
  ascendc.for_tiles 1 per_core 9223372036854775807 {
  }
}

// -----

// expected-error @+1 {{ub_scale must be in [1, 1024], got 9223372036854775807}}
ascendc.kernel "k" from @f soc "Ascend910B" mode "row" block_dim 1 tiling {} attributes {ub_scale = 9223372036854775807 : i64} {
}
