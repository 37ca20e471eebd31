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

--peak also measures the machine's FMA peak (fma_peak: the clock from a
chain of dependent register adds, 1 cycle each, in inline assembly; the
vector FMAs per cycle from 16 independent vector<16xf32> FMA chains, both
JIT-compiled by MLIR, best of 20, thread CPU time) and prints the 1024^3
matmul's GFLOP/s against it (peak per core x threads; 2 FMA ports of 16
f32 lanes at ~3.9 GHz: ~250 GFLOP/s per core on the session-9 VM).

    python bench/tails.py [--threads 1] [--peak]
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


def fma_peak(adds: int = 200, chains: int = 16) -> dict:
    """{ghz, fma_per_cycle, lanes, gflops}: the clock and the vector FMA
    throughput of one core, measured (see the module docstring)."""
    import ctypes

    from mlir import ir
    from mlir.execution_engine import ExecutionEngine

    from msmlir.passes.registry import run_pipeline
    from msmlir.passes.cpu.tiling import lanes
    n = lanes(32)
    vt = f"vector<{n}xf32>"
    asm = "\\0A".join(["add $0, $0"] * adds)  # reg-reg: not folded at rename as add-immediate is
    accs = ", ".join(f"%x{k} = %z" for k in range(chains))
    fmas = "\n    ".join(f"%y{k} = vector.fma %a, %b, %x{k} : {vt}" for k in range(chains))
    ys = ", ".join(f"%y{k}" for k in range(chains))
    vts = ", ".join([vt] * chains)
    sums = "\n  ".join(f"%s{k} = arith.addf %s{k - 1}, %r#{k} : {vt}" for k in range(1, chains))
    text = f"""
func.func @chain(%n: index) -> i64 attributes {{llvm.emit_c_interface}} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 1 : i64
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%x = %z) -> (i64) {{
    %y = llvm.inline_asm has_side_effects "{asm}", "=r,0" %x : (i64) -> i64
    scf.yield %y : i64
  }}
  return %r : i64
}}
func.func @fma(%n: index) -> f32 attributes {{llvm.emit_c_interface}} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant dense<0.0> : {vt}
  %a = arith.constant dense<0.999> : {vt}
  %b = arith.constant dense<0.5> : {vt}
  %r:{chains} = scf.for %i = %c0 to %n step %c1 iter_args({accs}) -> ({vts}) {{
    {fmas}
    scf.yield {ys} : {vts}
  }}
  %s0 = arith.addf %r#0, %z : {vt}
  {sums}
  %e = vector.extract %s{chains - 1}[0] : f32 from {vt}
  return %e : f32
}}"""
    with ir.Context():
        m = ir.Module.parse(text)
        run_pipeline(m, "builtin.module(convert-scf-to-cf,convert-vector-to-llvm,convert-arith-to-llvm,"
                        "convert-func-to-llvm,convert-cf-to-llvm,reconcile-unrealized-casts)")
        engine = ExecutionEngine(m, opt_level=3)

    def best(name, iters, restype):
        out = float("inf")
        for _ in range(20):
            res, arg = restype(), ctypes.c_int64(iters)
            t0 = time.thread_time()
            engine.invoke(name, ctypes.pointer(arg), ctypes.pointer(res))
            out = min(out, time.thread_time() - t0)
        return out
    hz = 200_000 * adds / best("chain", 200_000, ctypes.c_int64)
    fma_s = 2_000_000 * chains / best("fma", 2_000_000, ctypes.c_float)
    return {"ghz": hz / 1e9, "fma_per_cycle": fma_s / hz, "lanes": n, "gflops": fma_s * 2 * n / 1e9}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--threads", type=int, default=1, help="msmlir-cpu-pipeline threads=")
    p.add_argument("--peak", action="store_true", help="also the FMA peak and matmul 1024^3 against it")
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
        if name == "matmul":
            mm = rates[0]
    if a.peak:
        pk = fma_peak()
        total = pk["gflops"] * a.threads
        print(f"\nFMA peak: clock {pk['ghz']:.2f} GHz x {pk['fma_per_cycle']:.2f} vector FMAs/cycle x "
              f"{pk['lanes']} f32 lanes x 2 = {pk['gflops']:.0f} GFLOP/s per core; matmul 1024^3 "
              f"{mm:.1f} GFLOP/s = {mm / total:.2f} of {a.threads} core(s)' peak ({total:.0f})")


if __name__ == "__main__":
    main()
