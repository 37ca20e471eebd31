"""CPU code generation for msmlir-cpu-pipeline (see passes/pipelines/cpu.py).

Passes (all Python; the heavy lifting is upstream MLIR driven through the
transform dialect interpreter and upstream passes):

  msmlir-cpu-tile-vectorize   (strategy.py)  on tensors, before bufferization:
      packed + register-tiled f32 matmul, row fusion of reduction chains
      (softmax, layernorm, ...), tiling + vectorization of every other linalg
      op; optional scf.forall tasks (threads=N)
  msmlir-cpu-fast-math        (fast_math.py) f32 exp/tanh/erf -> polynomials
  msmlir-cpu-globalize-allocs (lower.py)     optional: static temporaries -> globals
  msmlir-cpu-unroll-transfers (lower.py)     n-D transfers -> 1-D before
                                             fold-memref-alias-ops (upstream bug)
  msmlir-cpu-lower-vectors    (lower.py)     after bufferization: forall ->
      parallel/for, hoisting of loop-invariant transfers, vector lowering

Helpers: analysis.py (loop ranges, matmul detection, tile sizes, host ISA),
script.py (transform script builder + cached interpreter calls), parallel.py
(async runtime loading, glibc malloc tuning).
"""
from . import fast_math, lower, strategy  # noqa: F401
