"""The CPU back end's passes, in pipeline order (see pipelines/cpu.py).

On tensors, before bufferization (upstream tiling, packing and vectorization
driven through the transform dialect; these modules choose the strategy per
op and write the transform script):

  conv_to_matmul.py    msmlir-cpu-conv-to-matmul: f32 NCHW convolutions (forward,
                       both gradients) -> vectorized im2col + 2-D matmul + transpose,
                       or direct kernels (short reductions over long rows: per
                       output row, a block of filters in register accumulators)
  pack_matmul.py       msmlir-cpu-pack-matmul: big f32 matmuls -> packed,
                       register-tiled vector.contract micro-kernels
  generalize.py        msmlir-cpu-generalize: other named linalg ops -> generic
  vectorize_arg_reductions.py msmlir-cpu-vectorize-arg-reductions: argmax/argmin
                       -> vector compare-select loops (row: lane combine; column:
                       lane-wise across rows)
  vectorize_windows.py msmlir-cpu-vectorize-windows: pooling ops and pooling
                       gradients -> gathers vectorized along the output width
  (then ../fusion/row_fusion.py, msmlir-fuse-rows: row-wise chains -> one loop)
  tile_vectorize.py    msmlir-cpu-tile-vectorize: every other linalg op tiled to
                       vector-sized pieces and vectorized; optional scf.forall tasks
  fast_math.py         msmlir-cpu-fast-math: f32 exp/tanh/erf -> polynomials

After bufferization:

  globalize_allocs.py  msmlir-cpu-globalize-allocs: optional, static
                       temporaries -> globals (non-reentrant functions)
  unroll_transfers.py  msmlir-cpu-unroll-transfers: n-D transfers -> 1-D before
                       fold-memref-alias-ops (upstream bug)
  cast_collapses.py    msmlir-cpu-cast-collapses: contiguous collapse_shape ->
                       reinterpret_cast before fold-memref-alias-ops (affine loads)
  lower_vectors.py     msmlir-cpu-lower-vectors: forall -> parallel/for, hoisting
                       of loop-invariant transfers, vector lowering
  prefetch_rows.py     msmlir-cpu-prefetch-rows: the next row prefetched in
                       multi-pass row loops (softmax, layernorm)
  streaming_stores.py  msmlir-cpu-streaming-stores: big write-only outputs ->
                       non-temporal stores (versioned on alignment, sfence per task)

In the LLVM dialect (AVX-512 hosts):

  scale_by_ldexp.py    msmlir-cpu-scale-by-ldexp: the fast exp's scaling by two
                       exponent-bit multiplications -> llvm.ldexp, or one
                       vscalefps of the float exponent on 16-lane vectors

Helper: tiling.py (divisors, vector lengths, host ISA). Shared with other
phases: ../common/ (linalg facts, transform scripts, remarks).

A strategy that fails leaves its ops on the plain path
(convert-linalg-to-loops) and says so with a remark at the op or function.
"""
from . import (cast_collapses, conv_to_matmul, fast_math, generalize, globalize_allocs, lower_vectors, pack_matmul,  # noqa: F401
               prefetch_rows, scale_by_ldexp, streaming_stores, tile_vectorize, unroll_transfers,
               vectorize_arg_reductions, vectorize_windows)
