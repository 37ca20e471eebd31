"""msmlir vs numpy (and PyTorch / JAX when importable) on B1-B4, in one process.

B1 gelu_tanh(x*1.5+0.5)*sigmoid(x), 4M f32;  B2 softmax(last axis) 4096x1024;
B3 layernorm(last axis, gamma, beta, eps 1e-5) 4096x1024;  B4 matmul 1024^3.

Same data (seed 0), references and timing as ../../shared/anchors/common.py:
min over >= 10 timed runs after 3 warm-up calls; every system's result is
first checked against a float64 numpy reference, and a wrong result is
reported as FAIL (not timed). The msmlir functions are written as mindir MLIR
text and compiled with msmlir.compiler.compile_mlir (msmlir-cpu-pipeline).

    python bench/run.py [--quick] [--only B1,B4] [--threads 1,2] [--no-peers]
                        [--pipeline "codegen=true globalize=false"]

The table: time in ms per system (one msmlir column per threads value), the
best peer (the fastest of numpy / PyTorch / JAX in this run), the ratio
best-peer time / msmlir time (> 1: msmlir is faster), and the msmlir
first-call time (parse + pipeline + JIT + one call).
"""
from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import time

import numpy as np

SEED = 0
N_ELEM = 4 * 1024 * 1024
ROWS, COLS = 4096, 1024
MM = 1024
LN_EPS = 1e-5


# ----------------------------------------------------------------------------- data / refs
def make_data():
    """Exactly the B1-B4 arrays of shared/anchors/common.py (same rng call order)."""
    rng = np.random.default_rng(SEED)
    f32 = np.float32
    d = {}
    d["b1_x"] = rng.standard_normal(N_ELEM).astype(f32)
    d["b2_x"] = rng.standard_normal((ROWS, COLS)).astype(f32)
    d["b3_x"] = rng.standard_normal((ROWS, COLS)).astype(f32)
    d["b3_g"] = (1.0 + 0.1 * rng.standard_normal(COLS)).astype(f32)
    d["b3_b"] = (0.1 * rng.standard_normal(COLS)).astype(f32)
    d["b4_a"] = rng.standard_normal((MM, MM)).astype(f32)
    d["b4_b"] = rng.standard_normal((MM, MM)).astype(f32)
    return d


def ref_b1(x):
    x = x.astype(np.float64)
    z = x * 1.5 + 0.5
    g = 0.5 * z * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (z + 0.044715 * z ** 3)))
    return g * (1.0 / (1.0 + np.exp(-x)))


def ref_b2(x):
    x = x.astype(np.float64)
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def ref_b3(x, g, b):
    x = x.astype(np.float64)
    m = x.mean(-1, keepdims=True)
    v = ((x - m) ** 2).mean(-1, keepdims=True)
    return (x - m) / np.sqrt(v + LN_EPS) * g + b


def ref_b4(a, b):
    return a.astype(np.float64) @ b.astype(np.float64)


# Acceptance: max |out - ref| <= ATOL + RTOL * max|ref| (float32 results).
TOL = {"B1": (1e-5, 1e-5), "B2": (1e-6, 1e-4), "B3": (1e-4, 1e-4), "B4": (1e-3, 1e-4)}


def check(key, out, ref):
    out = np.asarray(out, dtype=np.float64)
    if out.shape != ref.shape:
        return False, float("inf")
    err = float(np.max(np.abs(out - ref)))
    atol, rtol = TOL[key]
    return bool(np.isfinite(err) and err <= atol + rtol * float(np.max(np.abs(ref)))), err


# ----------------------------------------------------------------------------- machine noise
_HZ = os.sysconf("SC_CLK_TCK")


def _busy_and_own():
    """(seconds of busy CPU on the machine, CPU seconds of this process)."""
    with open("/proc/stat") as f:
        v = [int(t) for t in f.readline().split()[1:]]
    busy = v[0] + v[1] + v[2] + v[5] + v[6] + (v[7] if len(v) > 7 else 0)
    t = os.times()
    return busy / _HZ, t.user + t.system + t.children_user + t.children_system


def wait_idle(max_wait: float, threshold: float = 0.10, window: float = 1.0) -> float:
    """Waits (at most max_wait s) until other processes use < threshold of the
    machine over `window` s, as shared/anchors/common.py does. Returns the wait."""
    t0 = time.perf_counter()
    ncpu = os.cpu_count() or 1
    while max_wait > 0:
        b0, o0 = _busy_and_own()
        time.sleep(window)
        b1, o1 = _busy_and_own()
        if max(0.0, (b1 - b0) - (o1 - o0)) / (window * ncpu) < threshold:
            break
        if time.perf_counter() - t0 > max_wait:
            break
    return time.perf_counter() - t0


_MAX_WAIT = [0.0]


# ----------------------------------------------------------------------------- timing
def bench(fn, warmup=3, min_runs=10, target_s=1.0, max_runs=300):
    """As shared/anchors/common.py: min/median over >= min_runs after warm-up."""
    wait_idle(_MAX_WAIT[0])
    for _ in range(warmup):
        fn()
    t0 = time.perf_counter()
    fn()
    est = max(time.perf_counter() - t0, 1e-7)
    n = max(min_runs, min(max(max_runs, int(0.5 / est)), int(target_s / est), 200000))
    ts = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return {"min_ms": min(ts) * 1e3, "median_ms": statistics.median(ts) * 1e3, "runs": n}


# ----------------------------------------------------------------------------- msmlir
def _t(shape):
    return "tensor<" + "".join(f"{d}x" for d in shape) + "f32>"


def mindir_b1():
    t = _t([N_ELEM])
    s = "tensor<f32>"
    return f"""
func.func @b1(%x: {t}) -> {t} {{
  %c15 = "mindir.constant"() {{value = dense<1.5> : {s}}} : () -> {s}
  %c05 = "mindir.constant"() {{value = dense<0.5> : {s}}} : () -> {s}
  %a = "mindir.mul"(%x, %c15) : ({t}, {s}) -> {t}
  %z = "mindir.add"(%a, %c05) : ({t}, {s}) -> {t}
  %g = "mindir.gelu"(%z) {{approximate = "tanh"}} : ({t}) -> {t}
  %sg = "mindir.sigmoid"(%x) : ({t}) -> {t}
  %r = "mindir.mul"(%g, %sg) : ({t}, {t}) -> {t}
  return %r : {t}
}}"""


def mindir_b2():
    t = _t([ROWS, COLS])
    return f"""
func.func @b2(%x: {t}) -> {t} {{
  %r = "mindir.softmax"(%x) {{axis = -1 : i64}} : ({t}) -> {t}
  return %r : {t}
}}"""


def mindir_b3():
    t, v, st = _t([ROWS, COLS]), _t([COLS]), _t([ROWS, 1])
    return f"""
func.func @b3(%x: {t}, %g: {v}, %b: {v}) -> {t} {{
  %y, %m, %r = "mindir.layer_norm"(%x, %g, %b) {{begin_norm_axis = -1 : i64, begin_params_axis = -1 : i64, epsilon = {LN_EPS:e} : f64}} : ({t}, {v}, {v}) -> ({t}, {st}, {st})
  return %y : {t}
}}"""


def mindir_b4():
    t = _t([MM, MM])
    return f"""
func.func @b4(%a: {t}, %b: {t}) -> {t} {{
  %r = "mindir.matmul"(%a, %b) : ({t}, {t}) -> {t}
  return %r : {t}
}}"""


MSMLIR_CASES = {"B1": (mindir_b1, "b1", ["b1_x"]), "B2": (mindir_b2, "b2", ["b2_x"]),
                "B3": (mindir_b3, "b3", ["b3_x", "b3_g", "b3_b"]),
                "B4": (mindir_b4, "b4", ["b4_a", "b4_b"])}


def msmlir_fns(keys, data, pipeline_opts):
    """{key: (fn, first_call_ms)}; compiles each benchmark in its own module."""
    from msmlir.compiler import compile_mlir
    from msmlir.passes.registry import get_pass
    if pipeline_opts:
        _set_pipeline_defaults(get_pass, pipeline_opts)
    out = {}
    for k in keys:
        make, name, args = MSMLIR_CASES[k]
        arrays = [data[a] for a in args]
        t0 = time.perf_counter()
        try:
            cm = compile_mlir(make())
            cm.call(name, *arrays)
        except Exception as e:  # noqa: BLE001 - reported in the table
            out[k] = (None, f"{type(e).__name__}: {str(e).strip().splitlines()[0][:200]}")
            continue
        first = (time.perf_counter() - t0) * 1e3
        out[k] = ((lambda cm=cm, name=name, arrays=arrays: cm.call(name, *arrays)[0]), first)
    return out


def _set_pipeline_defaults(get_pass, text):
    """'codegen=true threads=2' -> new defaults of msmlir-cpu-pipeline's options."""
    from msmlir.passes.registry import parse_options, set_option_defaults
    info = get_pass("msmlir-cpu-pipeline")
    set_option_defaults(info.name, parse_options(info, text))


# ----------------------------------------------------------------------------- peers
SQ2PI = np.float32(math.sqrt(2.0 / math.pi))


def numpy_fns(d):
    x1 = d["b1_x"]

    def b1():
        z = x1 * np.float32(1.5) + np.float32(0.5)
        g = np.float32(0.5) * z * (np.float32(1.0) + np.tanh(SQ2PI * (z + np.float32(0.044715) * z * z * z)))
        return g * (np.float32(1.0) / (np.float32(1.0) + np.exp(-x1)))

    x2 = d["b2_x"]

    def b2():
        e = np.exp(x2 - x2.max(-1, keepdims=True))
        e /= e.sum(-1, keepdims=True)
        return e

    x3, g3, b3_ = d["b3_x"], d["b3_g"], d["b3_b"]

    def b3():
        m = x3.mean(-1, keepdims=True)
        xc = x3 - m
        v = (xc * xc).mean(-1, keepdims=True)
        return xc * (1.0 / np.sqrt(v + np.float32(LN_EPS))) * g3 + b3_

    a4, b4_ = d["b4_a"], d["b4_b"]
    return {"B1": b1, "B2": b2, "B3": b3, "B4": lambda: a4 @ b4_}


def torch_fns(d):
    try:
        import torch
    except Exception:  # noqa: BLE001 - optional peer
        return None, None
    t = {k: torch.from_numpy(v) for k, v in d.items()}
    F = torch.nn.functional

    def b1():
        z = t["b1_x"] * 1.5 + 0.5
        return F.gelu(z, approximate="tanh") * torch.sigmoid(t["b1_x"])

    fns = {"B1": b1, "B2": lambda: torch.softmax(t["b2_x"], -1),
           "B3": lambda: F.layer_norm(t["b3_x"], (COLS,), t["b3_g"], t["b3_b"], LN_EPS),
           "B4": lambda: t["b4_a"] @ t["b4_b"]}

    def wrap(f):
        def g():
            with torch.no_grad():
                return f()
        return g
    return {k: wrap(f) for k, f in fns.items()}, f"torch {torch.__version__}"


def jax_fns(d):
    try:
        import jax
        import jax.numpy as jnp
    except Exception:  # noqa: BLE001 - optional peer
        return None, None
    j = {k: jax.device_put(v) for k, v in d.items()}

    @jax.jit
    def b1(x):
        z = x * 1.5 + 0.5
        return jax.nn.gelu(z, approximate=True) * jax.nn.sigmoid(x)

    @jax.jit
    def b3(x, g, b):
        m = x.mean(-1, keepdims=True)
        v = ((x - m) ** 2).mean(-1, keepdims=True)
        return (x - m) * jax.lax.rsqrt(v + LN_EPS) * g + b

    sm = jax.jit(lambda x: jax.nn.softmax(x, axis=-1))
    mm = jax.jit(lambda a, b: a @ b)
    fns = {"B1": lambda: b1(j["b1_x"]).block_until_ready(),
           "B2": lambda: sm(j["b2_x"]).block_until_ready(),
           "B3": lambda: b3(j["b3_x"], j["b3_g"], j["b3_b"]).block_until_ready(),
           "B4": lambda: mm(j["b4_a"], j["b4_b"]).block_until_ready()}
    return fns, f"jax {jax.__version__}"


# ----------------------------------------------------------------------------- main
def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default="B1,B2,B3,B4")
    ap.add_argument("--quick", action="store_true", help="fewer timed runs")
    ap.add_argument("--threads", default="1,2",
                    help="comma list: one msmlir column per msmlir-cpu-pipeline threads= value "
                         "(async runtime tasks per big op)")
    ap.add_argument("--pipeline", default="codegen=true",
                    help="msmlir-cpu-pipeline option defaults, e.g. 'codegen=true threads=2'")
    ap.add_argument("--no-peers", action="store_true", help="skip PyTorch / JAX")
    ap.add_argument("--wait-idle", type=float, default=30.0,
                    help="before each timing wait up to this many seconds for other processes "
                         "to use < 10%% of the machine (0: do not wait)")
    args = ap.parse_args(argv)
    _MAX_WAIT[0] = args.wait_idle
    keys = [k.strip().upper() for k in args.only.split(",") if k.strip()]
    thread_list = [int(t) for t in str(args.threads).split(",") if t.strip()]
    kw = dict(min_runs=5, target_s=0.3) if args.quick else {}

    d = make_data()
    refs = {"B1": lambda: ref_b1(d["b1_x"]), "B2": lambda: ref_b2(d["b2_x"]),
            "B3": lambda: ref_b3(d["b3_x"], d["b3_g"], d["b3_b"]),
            "B4": lambda: ref_b4(d["b4_a"], d["b4_b"])}
    # msmlir first, for every benchmark, before any peer has run: the peers'
    # thread pools (OpenMP in torch, XLA's) keep spinning for a while after
    # their own runs and would slow whatever is timed next.
    results = {k: {} for k in keys}
    first_call = {k: {} for k in keys}
    ref_cache = {k: refs[k]() for k in keys}
    ms_names = []
    for th in thread_list:
        col = f"msmlir t={th}"
        ms_names.append(col)
        ms = msmlir_fns(keys, d, f"{args.pipeline} threads={th}")
        for k in keys:
            fn, info = ms[k]
            if fn is None:
                results[k][col] = f"FAIL ({info})"
                continue
            first_call[k][col] = info
            ok, err = check(k, fn(), ref_cache[k])
            results[k][col] = bench(fn, **kw)["min_ms"] if ok else f"FAIL (max err {err:.3g})"
    systems = {"numpy": numpy_fns(d)}
    versions = {"numpy": f"numpy {np.__version__}"}
    peers = [] if args.no_peers else [("torch", torch_fns), ("jax", jax_fns)]
    for name, make in [("numpy", None)] + peers:
        if make is not None:
            fns, ver = make(d)
            if fns is None:
                continue
            systems[name] = fns
            versions[name] = ver
        fns = systems[name]
        for k in keys:
            try:
                ok, err = check(k, fns[k](), ref_cache[k])
                results[k][name] = bench(fns[k], **kw)["min_ms"] if ok else f"FAIL (max err {err:.3g})"
            except Exception as e:  # noqa: BLE001
                results[k][name] = f"FAIL ({type(e).__name__})"
    for k in keys:
        print(f"[{k}] " + ", ".join(f"{n}: {v if isinstance(v, str) else f'{v:.3f} ms'}"
                                    for n, v in results[k].items()), file=sys.stderr, flush=True)

    names = ms_names + list(systems)
    print(f"\nmsmlir-cpu-pipeline{{{args.pipeline}}} with threads={args.threads}; "
          f"{', '.join(versions.values())}; {os.cpu_count()} CPUs; min over repeats, ms\n")
    print("| bench | " + " | ".join(names) + " | "
          + "best peer | " + " | ".join(f"best peer / {c}" for c in ms_names) + " | "
          + " | ".join(f"first call {c} (ms)" for c in ms_names) + " |")
    print("|---|" + "---|" * (len(names) + 1 + 2 * len(ms_names)))
    what = {"B1": "gelu_tanh(x*1.5+0.5)*sigmoid(x), 4M", "B2": "softmax 4096x1024",
            "B3": "layernorm 4096x1024", "B4": "matmul 1024^3"}
    for k in keys:
        cells = []
        for n in names:
            v = results[k].get(n, "-")
            cells.append(v if isinstance(v, str) else f"{v:.2f}")
        peer_times = {n: results[k][n] for n in systems if isinstance(results[k].get(n), float)}
        best = min(peer_times, key=peer_times.get) if peer_times else None
        cells.append(best or "-")
        for c in ms_names:
            m = results[k].get(c)
            cells.append(f"{peer_times[best] / m:.2f}" if best and isinstance(m, float) else "-")
        for c in ms_names:
            fc = first_call[k].get(c)
            cells.append(f"{fc:.0f}" if isinstance(fc, float) else "-")
        print(f"| {k} {what[k]} | " + " | ".join(cells) + " |")
    return results


if __name__ == "__main__":
    main()
