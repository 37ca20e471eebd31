"""The isl scheduler against the hand strategies, per kernel class (issue 10).

Each kernel (a mindir function per class below, and optionally the dumped
kernels of a bench/run.py train step with --bench B5|B6) is compiled by the CPU
pipelines of --modes, checked against the first one's result, and timed interleaved
(min over --runs calls, round-robin so that machine noise hits all alike):

  default msmlir-cpu-pipeline with its defaults
  hand    the same without mskernel-poly-claim (every op to the hand strategies)
  route   poly=true min-work=2^40: every op gated by min-work (elementwise,
          reductions, row fusion, pooling windows) left to the plain path and
          scheduled by isl; pack-matmul and conv-to-matmul still run
  plain   codegen=false (scalar loops, LLVM's vectorizer only)
  hand2/default2/...  any mode with a digit suffix: the same at threads=N
          (timed by wall clock: --clock thread counts the calling thread only)
  sched   the scheduler alone: codegen=false's pipeline with the poly stage
          (convert-linalg-to-affine-loops, mskernel-poly-schedule{nests=true},
          mskernel-promote-buffers) before the LLVM lowering (matmul and conv
          included); scalar exp/tanh/erf as polynomials (fast-math min-lanes=1)

    python bench/poly_classes.py [--only softmax,matmul256] [--bench B6] [--runs 30]
                                 [--clock thread|wall] [--placements 4]

--clock thread (the default) times the calling thread's CPU time
(time.thread_time: what a busy shared machine disturbs least); modes with
threads > 1 are timed by the wall clock whatever --clock says.

Not a test: timings on a shared machine are noisy; compare within one run.
"""
from __future__ import annotations

import argparse
import glob
import os
import re
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def _t(shape, dt="f32") -> str:
    return "tensor<" + "x".join(map(str, shape)) + f"x{dt}>"


def _fn(args: list, body: list[str], results: list) -> str:
    sig = ", ".join(f"%a{i}: {_t(s)}" for i, s in enumerate(args))
    res = ", ".join(_t(s) for s in results)
    return (f"func.func @f({sig}) -> ({res}) {{\n  " + "\n  ".join(body)
            + f"\n  return %r : {res}\n}}")


def cases() -> dict[str, tuple[str, list]]:
    """{name: (mindir text of @f, input shapes)}, one or more per kernel class."""
    c = {}
    n = (1024, 1024)
    t = _t(n)
    c["ew_add_1M"] = (_fn([n, n], [f"%r = mindir.add %a0, %a1 : ({t}, {t}) -> {t}"], [n]), [n, n])
    big4 = (4096, 4096)   # 64 MiB per array: msmlir-cpu-streaming-stores' size
    c["ew_add_16M"] = (_fn([big4, big4], [f"%r = mindir.add %a0, %a1 : ({_t(big4)}, {_t(big4)}) -> {_t(big4)}"],
                           [big4]), [big4, big4])
    c["softmax_1024"] = (_fn([n], [f"%r = mindir.softmax %a0 {{axis = -1 : i64}} : {t}"], [n]), [n])
    c["row_sum_4096"] = (_fn([(4096, 1024)], [
        f"%r = mindir.reduce_sum %a0 {{axes = array<i64: 1>}} : ({_t((4096, 1024))}) -> {_t((4096,))}"],
        [(4096,)]), [(4096, 1024)])
    for r, w in ((1000, 1000), (256, 1024), (4096, 100), (8192, 12), (4096, 24), (16384, 6), (8192, 10)):
        c[f"row_sum_{r}x{w}"] = (_fn([(r, w)], [
            f"%r = mindir.reduce_sum %a0 {{axes = array<i64: 1>}} : ({_t((r, w))}) -> {_t((r,))}"],
            [(r,)]), [(r, w)])
    for r, w in ((4096, 1024), (4096, 100), (8192, 12), (16384, 6)):
        c[f"row_max_{r}" + ("" if w == 1024 else f"x{w}")] = (_fn([(r, w)], [
            f"%r = mindir.reduce_max %a0 {{axes = array<i64: 1>}} : ({_t((r, w))}) -> {_t((r,))}"],
            [(r,)]), [(r, w)])
    c["row_sumsq_1000x1000"] = (_fn([(1000, 1000)], [
        f"%s = mindir.mul %a0, %a0 : ({_t((1000, 1000))}, {_t((1000, 1000))}) -> {_t((1000, 1000))}",
        f"%r = mindir.reduce_sum %s {{axes = array<i64: 1>}} : ({_t((1000, 1000))}) -> {_t((1000,))}"],
        [(1000,)]), [(1000, 1000)])
    c["col_sum_4096"] = (_fn([(4096, 1024)], [
        f"%r = mindir.reduce_sum %a0 {{axes = array<i64: 0>}} : ({_t((4096, 1024))}) -> {_t((1024,))}"],
        [(1024,)]), [(4096, 1024)])
    for r, w in ((1000, 1000), (64, 500), (128, 84), (256, 10)):  # bias gradients: sums over the batch
        c[f"col_sum_{r}x{w}"] = (_fn([(r, w)], [
            f"%r = mindir.reduce_sum %a0 {{axes = array<i64: 0>}} : ({_t((r, w))}) -> {_t((w,))}"],
            [(w,)]), [(r, w)])
    c["mid_sum_64x256x64"] = (_fn([(64, 256, 64)], [
        f"%r = mindir.reduce_sum %a0 {{axes = array<i64: 1>}} : ({_t((64, 256, 64))}) -> {_t((64, 64))}"],
        [(64, 64)]), [(64, 256, 64)])
    for m, k, nn in ((17, 23, 19), (64, 64, 64), (256, 256, 256), (128, 784, 512)):
        a, b, o = (m, k), (k, nn), (m, nn)
        c[f"matmul_{m}x{k}x{nn}"] = (_fn([a, b], [
            f"%r = mindir.matmul %a0, %a1 : ({_t(a)}, {_t(b)}) -> {_t(o)}"], [o]), [a, b])
    big = (2048, 2048)
    c["transpose_2048"] = (_fn([big], [
        f"%r = mindir.transpose %a0 {{perm = array<i64: 1, 0>}} : ({_t(big)}) -> {_t(big)}"], [big]), [big])
    for sq in ((1000, 1000), (512, 768), (1024, 1024), (768, 512), (500, 700), (256, 384),
               (2000, 1500), (300, 77), (129, 4000)):
        c[f"transpose_{sq[0]}x{sq[1]}"] = (_fn([sq], [
            f"%r = mindir.transpose %a0 {{perm = array<i64: 1, 0>}} : ({_t(sq)}) -> {_t(sq[::-1])}"],
            [sq[::-1]]), [sq])
    c["transpose_add_1024"] = (_fn([n, n], [
        f"%u = mindir.transpose %a0 {{perm = array<i64: 1, 0>}} : ({t}) -> {t}",
        f"%r = mindir.add %u, %a1 : ({t}, {t}) -> {t}"], [n]), [n, n])
    q = (1000, 1000)
    c["transpose_add_1000"] = (_fn([q, q], [
        f"%u = mindir.transpose %a0 {{perm = array<i64: 1, 0>}} : ({_t(q)}) -> {_t(q)}",
        f"%r = mindir.add %u, %a1 : ({_t(q)}, {_t(q)}) -> {_t(q)}"], [q]), [q, q])
    a, b = (512, 768), (768, 512)
    c["transpose_mul_add_512x768"] = (_fn([a, b, (512,)], [
        f"%u = mindir.transpose %a0 {{perm = array<i64: 1, 0>}} : ({_t(a)}) -> {_t(b)}",
        f"%v = mindir.mul %u, %a1 : ({_t(b)}, {_t(b)}) -> {_t(b)}",
        f"%r = mindir.add %v, %a2 : ({_t(b)}, {_t((512,))}) -> {_t(b)}"], [b]), [a, b, (512,)])
    c["bcast_add_1024"] = (_fn([n, (1024,)], [
        f"%r = mindir.add %a0, %a1 : ({t}, {_t((1024,))}) -> {t}"], [n]), [n, (1024,)])
    c.update(_jitted())
    return c


def _jitted() -> dict[str, tuple[str, list]]:
    """Cases written with msmlir's frontend (composites as the frontend emits them)."""
    import msmlir as ms
    from msmlir import nn, ops

    def text_of(fn, *shapes):
        xs = [np.zeros(s, np.float32) for s in shapes]
        t = ms.jit(fn).mlir(*xs)
        name = re.search(r"func\.func (?:public )?@(\w+)", t).group(1)
        return t.replace(f"@{name}(", "@f(", 1), list(shapes)

    ln = nn.LayerNorm((1024,))
    x, w = (16, 32, 32, 32), (32, 32, 3, 3)
    return {
        "ew_chain_1M": text_of(lambda x: ops.gelu(x * 1.5 + 0.5, approximate="tanh") * ops.sigmoid(x),
                               (1024, 1024)),
        "layernorm_1024": text_of(lambda x: ln(x), (1024, 1024)),
        "conv3x3_16x32x32x32": text_of(lambda x, w: ops.conv2d(x, w, pad_mode="same"), x, w),
        "maxpool2_16x32x32x32": text_of(lambda x: ops.max_pool2d(x, 2, 2), x),
        "avgpool2_16x32x32x32": text_of(lambda x: ops.avg_pool2d(x, 2, 2), x),
    }


def stages(mode: str):
    """The named stages of `mode`, a name above with an optional thread count
    suffix ("default2": threads=2; the claimed functions' schedule is given
    cpu-threads=2 here while msmlir-cpu-pipeline does not pass its threads
    on to it: a no-op once it does)."""
    from msmlir.passes.pipelines import cpu
    m = re.fullmatch(r"([a-z]+)(\d*)", mode)
    mode, threads = m.group(1), int(m.group(2) or 1)
    kw = {"threads": threads}
    if mode == "default":
        st = cpu.cpu_lowering_stages(**kw)
    elif mode == "hand":  # nothing claimed by the scheduler
        st = [(n, re.sub(r"mskernel-poly-claim\{[^}]*\},", "", t))
              for n, t in cpu.cpu_lowering_stages(**kw)]
    elif mode == "route":
        st = cpu.cpu_lowering_stages(poly=True, **{"min-work": 1 << 40}, **kw)
    elif mode == "sched":
        s = dict(cpu.cpu_lowering_stages(codegen=False, **{"inline-kernels": True}, **kw))
        st = [("kernels", s["kernels"]), ("linalg", s["linalg"]),
              ("bufferized", s["bufferized"]), ("poly", cpu._POLY),
              # (the vector lowering: the scheduler's reduction loops are vector code)
              ("llvm", "inline,symbol-dce,msmlir-cpu-fast-math{min-lanes=1 row-ops=false},"
               + cpu._VECTOR_TO_LLVM)]
    elif mode == "plain":
        st = cpu.cpu_lowering_stages(codegen=False, **kw)
    else:
        raise ValueError(mode)
    if threads > 1:
        st = [(n, t.replace("mskernel-poly-schedule{target=cpu claimed=true}",
                            f"mskernel-poly-schedule{{target=cpu claimed=true cpu-threads={threads}}}"))
              for n, t in st]
    return st


def _threads(mode: str) -> int:
    return int(re.fullmatch(r"[a-z]+(\d*)", mode).group(1) or 1)


def compile_as(text: str, mode: str):
    from msmlir import compiler
    saved = compiler._lowering_stages
    compiler._lowering_stages = lambda: stages(mode)
    try:
        t0 = time.perf_counter()
        cm = compiler.compile_mlir(text)
        return cm, time.perf_counter() - t0
    finally:
        compiler._lowering_stages = saved


def dumped(bench: str) -> dict[str, tuple[str, list]]:
    sys.path.insert(0, HERE)
    import kernels as K
    kdir = K.dump_step(bench, tempfile.mkdtemp(prefix="msmlir_poly_"))
    out = {}
    for path in sorted(glob.glob(os.path.join(kdir, "*.mlir"))):
        text = open(path).read()
        name = re.search(r"func\.func (?:private )?@(\w+)", text).group(1)
        text = text.replace(f"func.func private @{name}", f"func.func @{name}", 1)
        text = re.sub(r" attributes \{mskernel\.kind = [^{}]*\}", "", text, count=1)
        text = text.replace(f"@{name}(", "@f(", 1)
        out[f"{bench}:{name[:40]}:{K.main_ops(text)}"] = (text, None)
    return out


def _placed(x: np.ndarray, offset: int) -> np.ndarray:
    """A copy of `x` whose data starts `offset` bytes past a page boundary."""
    buf = np.empty(x.nbytes + 8192, np.uint8)
    start = (-buf.ctypes.data) % 4096 + offset
    y = buf[start:start + x.nbytes].view(x.dtype).reshape(x.shape)
    y[...] = x
    return y


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="", help="comma list of substrings of case names")
    ap.add_argument("--bench", default="", help="also the dumped kernels of B5 / B6")
    ap.add_argument("--modes", default="hand,default,route,sched")
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--clock", choices=("thread", "wall"), default="thread")
    ap.add_argument("--placements", type=int, default=1,
                    help="time each mode with the inputs copied to this many random offsets "
                         "within a page (min over all): transposes vary up to 2x with the "
                         "arrays' relative addresses (4 KiB aliasing)")
    args = ap.parse_args()
    allc = {} if args.bench and not args.only else cases()
    if args.bench:
        allc.update(dumped(args.bench))
    if args.only:
        allc = {k: v for k, v in allc.items() if any(s in k for s in args.only.split(","))}
    modes = args.modes.split(",")
    rng = np.random.default_rng(0)
    print(f"{'case':58s} " + " ".join(f"{m + ' us':>10s}" for m in modes) + "   compile s")
    for name, (text, shapes) in allc.items():
        fns, comp = {}, {}
        for m in modes:
            try:
                cm, dt = compile_as(text, m)
                fns[m], comp[m] = cm.dispatcher("f"), dt
            except Exception as e:  # noqa: BLE001 - reported, the row goes on
                print(f"{name}: {m} failed: {type(e).__name__}: {str(e)[:200]}")
        first = next((m for m in modes if m in fns), None)
        if first is None:
            continue
        sys.path.insert(0, HERE)
        import kernels as K
        xs = [K.random_input(sh, np.dtype(dt), rng) for sh, dt in fns[first].sig.inputs]
        ref = fns[first](xs)
        ref = ref if isinstance(ref, tuple) else (ref,)
        for m, f in list(fns.items()):
            out = f(xs)
            out = out if isinstance(out, tuple) else (out,)
            for a, b in zip(out, ref):
                if not np.allclose(np.asarray(a, np.float64), np.asarray(b, np.float64),
                                   rtol=2e-4, atol=2e-4 * (1 + float(np.abs(np.asarray(b, np.float64)).max()))):
                    print(f"{name}: {m} WRONG (max abs diff "
                          f"{np.abs(np.asarray(a, np.float64) - np.asarray(b, np.float64)).max():.3g})")
                    fns.pop(m)
                    break
        best = {m: float("inf") for m in fns}
        for f in fns.values():
            f(xs)
        clock = {m: time.thread_time if args.clock == "thread" and _threads(m) == 1
                 else time.perf_counter for m in fns}
        sets = [xs] + [[_placed(x, int(rng.integers(0, 64)) * 64) for x in xs]
                       for _ in range(args.placements - 1)]
        for ys in sets:
            for _ in range(args.runs):
                for m, f in fns.items():
                    t0 = clock[m]()
                    f(ys)
                    best[m] = min(best[m], clock[m]() - t0)
        print(f"{name:58s} " + " ".join(f"{best[m] * 1e6:10.1f}" if m in best else f"{'-':>10s}"
                                        for m in modes)
              + "   " + " ".join(f"{comp.get(m, 0):.2f}" for m in modes), flush=True)


if __name__ == "__main__":
    main()
