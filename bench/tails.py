"""Shapes that do not divide the tiles vs shapes that do (issue 10's goal:
"correct and within 10% of the divisible case's GFLOP/s").

Pairs, each compiled by msmlir (ms.jit, graph mode) and checked against a
float64 numpy reference before timing:
  matmul      1024^3             vs 1000^3
  matmul      1024x1024x1024     vs 1024x1009x1024 (m x k x n; a prime k)
  conv2d 3x3  16x32x32x32 'same' vs 16x32x31x31
  row sum     4096x1024          vs 4000x1000
  column sum  4096x1024          vs 4000x1000

Prints GFLOP/s (GB/s for the sums) of both shapes and tail / divisible.
Times are the best of 20 calls, interleaved (divisible, tail, divisible, ...);
with --threads 1 they are the calling thread's CPU time, which other
processes on a shared machine do not inflate (a 2-core machine under load
gave wall-clock ratios anywhere from 0.84 to 1.0 for the same code).

    python bench/tails.py [--threads 1]
"""
from __future__ import annotations

import argparse
import os
import time

import numpy as np


def _best(cases, clock, runs=20):
    """Best time of each (fn, args), the calls interleaved."""
    for fn, args in cases:
        fn(*args)
    best = [float("inf")] * len(cases)
    for _ in range(runs):
        for i, (fn, args) in enumerate(cases):
            t0 = clock()
            fn(*args)
            best[i] = min(best[i], clock() - t0)
    return best


def _conv_ref(x, w):
    n, c, h, wd = x.shape
    f, _, kh, kw = w.shape
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (kh // 2, kh // 2), (kw // 2, kw // 2)))
    out = np.zeros((n, f, h, wd))
    for i in range(kh):
        for j in range(kw):
            out += np.einsum("nchw,fc->nfhw", xp[:, :, i:i + h, j:j + wd], w[:, :, i, j].astype(np.float64))
    return out


def cases():
    import msmlir as ms
    from msmlir import ops
    rng = np.random.default_rng(0)
    f32 = np.float32

    def mm(n):
        a, b = rng.standard_normal((n, n)).astype(f32), rng.standard_normal((n, n)).astype(f32)
        return (ms.jit(lambda a, b: ops.matmul(a, b)), (a, b), a.astype(np.float64) @ b, 2.0 * n ** 3, "GF/s")

    def mm_k(k):  # 1024 x k x 1024: only k is a tail (1009, a prime: k blocks 3 x 256 + 241 with AVX-512)
        a, b = rng.standard_normal((1024, k)).astype(f32), rng.standard_normal((k, 1024)).astype(f32)
        return (ms.jit(lambda a, b: ops.matmul(a, b)), (a, b), a.astype(np.float64) @ b, 2.0 * 1024 ** 2 * k,
                "GF/s")

    def conv(hw):
        x = rng.standard_normal((16, 32, hw, hw)).astype(f32)
        w = rng.standard_normal((32, 32, 3, 3)).astype(f32)
        fn = ms.jit(lambda x, w: ops.conv2d(x, w, pad_mode="same"))
        return fn, (x, w), _conv_ref(x, w), 2.0 * 16 * 32 * 32 * 9 * hw * hw, "GF/s"

    def rsum(r, c, axis):
        x = rng.standard_normal((r, c)).astype(f32)
        return (ms.jit(lambda x: ops.sum(x, axis)), (x,), x.astype(np.float64).sum(axis), 4.0 * r * c, "GB/s")

    yield "matmul", mm(1024), mm(1000)
    yield "matmul, prime k", mm_k(1024), mm_k(1009)
    yield "conv2d 3x3 same", conv(32), conv(31)
    yield "row sum", rsum(4096, 1024, 1), rsum(4000, 1000, 1)
    yield "column sum", rsum(4096, 1024, 0), rsum(4000, 1000, 0)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--threads", type=int, default=1, help="msmlir-cpu-pipeline threads=")
    a = p.parse_args(argv)
    os.environ["MSMLIR_CPU_THREADS"] = str(a.threads)   # read when msmlir is imported
    import msmlir as ms
    ms.set_context(mode=ms.GRAPH_MODE)
    clock = time.thread_time if a.threads == 1 else time.perf_counter
    print(f"| op | divisible | tail | tail / divisible |\n|---|---|---|---|")
    for name, div, tail in cases():
        for fn, args, ref, work, unit in (div, tail):
            out = np.asarray(fn(*args))
            err = np.max(np.abs(out - ref)) / max(1.0, np.max(np.abs(ref)))
            if err > 1e-4:
                raise SystemExit(f"{name} {args[0].shape}: wrong result (max relative error {err:.2e})")
        times = _best([(div[0], div[1]), (tail[0], tail[1])], clock)
        rates = [c[3] / t / 1e9 for c, t in zip((div, tail), times)]
        unit = div[4]
        print(f"| {name} | {rates[0]:.1f} {unit} | {rates[1]:.1f} {unit} | {rates[1] / rates[0]:.2f} |")


if __name__ == "__main__":
    main()
