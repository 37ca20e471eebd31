"""msmlir vs numpy (and PyTorch / JAX when importable) on B1-B7.

B1 gelu_tanh(x*1.5+0.5)*sigmoid(x), 4M f32;  B2 softmax(last axis) 4096x1024;
B3 layernorm(last axis, gamma, beta, eps 1e-5) 4096x1024;  B4 matmul 1024^3;
B5 MLP 784-512-512-10 train step (batch 128, ReLU, softmax cross-entropy, SGD lr 0.01);
B6 LeNet5 train step (batch 64; conv 5x5 'valid' with bias, relu, maxpool 2, x2; dense
400-120-84-10);  B6nb the same without the conv biases (--b6-no-bias runs it instead of B6);
B7 grad(grad(grad(tanh)))(2.0), per call.

Same data (seed 0), models, initial parameters, references and timing as
../../shared/anchors/common.py: min over >= 10 timed runs after 3 warm-up calls.
Every system's result is checked first and a wrong one is reported as FAIL (not
timed): B1-B4 against a float64 numpy reference, B5/B6 by the losses of the first
CHECK_STEPS steps from the shared init against a float64 numpy train step (and
msmlir's against each peer's; |diff| <= 1e-4), B7 against TANH_D.

msmlir runs first (before any peer has started a thread pool), one subprocess per
benchmark and msmlir column: a compile that hangs is reported as TIMEOUT after
--compile-timeout seconds instead of blocking the run. B1-B4 are mindir MLIR text
compiled with msmlir.compiler.compile_mlir (msmlir-cpu-pipeline); B5/B6 are nn.Cells
(nn.Dense / nn.Conv2d, WithLossCell + TrainOneStepCell + SGD) in GRAPH_MODE; B7 is
ms.jit(ms.grad(ms.grad(ms.grad(ops.tanh)))).

    python bench/run.py [--quick] [--only B1,B5] [--threads 1,2] [--graph-kernel on,off]
                        [--no-peers] [--b6-no-bias] [--compile-timeout 120] [--json PATH]
                        [--pipeline "codegen=true globalize=false"]

Memory floor (issue 10): in each msmlir column's B2/B3 worker, after the timing,
two STREAM-style kernels compiled by msmlir on 4096x1024 f32 arrays (B2/B3's
size) are timed interleaved with the benchmark's own kernel (rounds of each, min
per kernel: the same process, threads and machine load): "copy" y = 1.5 * x
(STREAM's scale: a copy's bytes) and "triad" y = a + 1.5 * b; numpy's copy
(np.copyto, one thread) runs in this process. B2/B3's least traffic (input read
once, output written once) over their interleaved time is printed in GB/s and as a
fraction of the copy's rate in a second table, and is in the JSON ("floor" of each
msmlir result, "stream_numpy"). Bytes count as STREAM counts them (no
read-for-ownership).

The table: time in ms per system (one msmlir column per threads x graph-kernel value),
the best peer (the fastest of numpy / PyTorch / JAX in this run), the ratio
best-peer time / msmlir time (> 1: msmlir is faster), and the first-call times of
msmlir (build + parse/trace + pipeline + JIT + one call) and JAX (trace + XLA compile
+ one call).
"""
from __future__ import annotations

import argparse
import json
import math
import os
import platform
import signal
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

SEED = 0
N_ELEM = 4 * 1024 * 1024
ROWS, COLS = 4096, 1024
MM = 1024
MLP_BATCH = 128
LENET_BATCH = 64
LR = 0.01
LN_EPS = 1e-5
TANH_D = (0.070650816, -0.13621868, 0.25265405)   # B7: 1st/2nd/3rd derivative of tanh at 2.0
CHECK_STEPS = 5
LOSS_TOL = 1e-4          # B5/B6: max |loss - reference loss| over the first CHECK_STEPS steps

ALL_KEYS = ["B1", "B2", "B3", "B4", "B5", "B6", "B6nb", "B7"]
WHAT = {"B1": "gelu_tanh(x*1.5+0.5)*sigmoid(x), 4M", "B2": "softmax 4096x1024",
        "B3": "layernorm 4096x1024", "B4": "matmul 1024^3",
        "B5": "MLP 784-512-512-10 train step, b128", "B6": "LeNet5 train step, b64",
        "B6nb": "LeNet5 (conv has_bias=False) train step, b64",
        "B7": "grad^3 tanh(2.0), per call"}
KIND = {"B1": "array", "B2": "array", "B3": "array", "B4": "array",
        "B5": "train", "B6": "train", "B6nb": "train", "B7": "b7"}


# ----------------------------------------------------------------------------- data / refs
def make_data():
    """Exactly the arrays of shared/anchors/common.py (same rng call order)."""
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

    def lin(o, i):  # torch-style (out, in) weight and bias, uniform(-1/sqrt(in), 1/sqrt(in))
        k = 1.0 / math.sqrt(i)
        return rng.uniform(-k, k, (o, i)).astype(f32), rng.uniform(-k, k, (o,)).astype(f32)

    def conv(o, i, kh, kw):
        k = 1.0 / math.sqrt(i * kh * kw)
        return rng.uniform(-k, k, (o, i, kh, kw)).astype(f32), rng.uniform(-k, k, (o,)).astype(f32)

    d["mlp_x"] = rng.standard_normal((MLP_BATCH, 784)).astype(f32)
    d["mlp_y"] = rng.integers(0, 10, MLP_BATCH).astype(np.int32)
    d["mlp_params"] = [*lin(512, 784), *lin(512, 512), *lin(10, 512)]      # W1,b1,W2,b2,W3,b3
    d["lenet_x"] = rng.standard_normal((LENET_BATCH, 1, 32, 32)).astype(f32)
    d["lenet_y"] = rng.integers(0, 10, LENET_BATCH).astype(np.int32)
    d["lenet_params"] = [*conv(6, 1, 5, 5), *conv(16, 6, 5, 5),
                         *lin(120, 400), *lin(84, 120), *lin(10, 84)]      # c1w,c1b,c2w,c2b,f1w,...
    return d


def train_setup(key, d):
    """(model kind, x, y, initial parameters, conv bias?) of B5 / B6 / B6nb."""
    if key == "B5":
        return "mlp", d["mlp_x"], d["mlp_y"], d["mlp_params"], True
    bias = key == "B6"
    params = d["lenet_params"] if bias else [p for i, p in enumerate(d["lenet_params"])
                                             if i not in (1, 3)]
    return "lenet", d["lenet_x"], d["lenet_y"], params, bias


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


def ref_losses(key, d):
    """The first CHECK_STEPS losses of the numpy train step in float64."""
    kind, x, y, params, bias = train_setup(key, d)
    step = np_train_step(kind, x.astype(np.float64), y, [p.astype(np.float64) for p in params], bias)
    return np.array([step() for _ in range(CHECK_STEPS)])


def reference(key, d):
    if key == "B1":
        return ref_b1(d["b1_x"])
    if key == "B2":
        return ref_b2(d["b2_x"])
    if key == "B3":
        return ref_b3(d["b3_x"], d["b3_g"], d["b3_b"])
    if key == "B4":
        return ref_b4(d["b4_a"], d["b4_b"])
    if KIND[key] == "train":
        return ref_losses(key, d)
    return np.array(TANH_D, dtype=np.float64)


# Acceptance (arrays): max |out - ref| <= ATOL + RTOL * max|ref| (float32 results).
TOL = {"B1": (1e-5, 1e-5), "B2": (1e-6, 1e-4), "B3": (1e-4, 1e-4), "B4": (1e-3, 1e-4),
       "B7": (1e-5, 1e-4)}


def check(key, out, ref):
    """(ok, max abs error). B5/B6: out = the first CHECK_STEPS losses; B7: the 3 derivatives."""
    out = np.asarray(out, dtype=np.float64)
    if out.shape != ref.shape:
        return False, float("inf")
    err = float(np.max(np.abs(out - ref)))
    if KIND[key] == "train":
        return bool(np.isfinite(err) and err <= LOSS_TOL), err
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


def run_case(key, case, ref, bench_kw, on_first_call=None):
    """Runs one system on one benchmark; a dict for the results.

    case: {"make": () -> fn, "values": () -> 3 derivatives (B7), "obj": () -> object whose
    kernel_summary() is asked for (msmlir)}. first_call_ms = make() + the first fn() call.
    B1-B4: fn() returns the result array; B5/B6: one train step, returns the loss; B7: fn()
    computes the third derivative."""
    r = {}
    t0 = time.perf_counter()
    fn = case["make"]()
    out = fn()
    r["first_call_ms"] = (time.perf_counter() - t0) * 1e3
    if on_first_call:
        on_first_call(r)
    kind = KIND[key]
    if kind == "array":
        got = out
    elif kind == "train":
        got = [float(out)] + [float(fn()) for _ in range(CHECK_STEPS - 1)]
        r["losses"] = got
    else:
        got = [float(v) for v in case["values"]()]
        r["values"] = got
    ok, err = check(key, got, ref)
    r["max_err"] = err
    if ok:
        r["check"] = "ok"
        r.update(bench(fn, **bench_kw))
    else:
        r["check"] = (f"FAIL (loss diff {err:.3g} vs float64 ref)" if kind == "train"
                      else f"FAIL (max err {err:.3g})")
    return r


# ----------------------------------------------------------------------------- numpy train steps
def _softmax_ce_grad(z, y):
    z = z - z.max(1, keepdims=True)
    e = np.exp(z)
    p = e / e.sum(1, keepdims=True)
    n = z.shape[0]
    loss = -np.mean(np.log(p[np.arange(n), y]))
    p[np.arange(n), y] -= 1.0
    return float(loss), p / n


_swv = np.lib.stride_tricks.sliding_window_view


def _conv_fwd(x, w, b):
    k = w.shape[-1]
    cols = _swv(x, (k, k), axis=(2, 3))                        # N,C,Ho,Wo,k,k (view)
    out = np.tensordot(cols, w, axes=([1, 4, 5], [1, 2, 3])).transpose(0, 3, 1, 2)  # N,O,Ho,Wo
    return (out + b[None, :, None, None] if b is not None else out), cols


def _conv_bwd(dout, cols, w, need_dx):
    gw = np.tensordot(dout, cols, axes=([0, 2, 3], [0, 2, 3]))  # O,C,k,k
    gb = dout.sum((0, 2, 3))
    dx = None
    if need_dx:
        k = w.shape[-1]
        dp = np.pad(dout, ((0, 0), (0, 0), (k - 1, k - 1), (k - 1, k - 1)))
        dcols = _swv(dp, (k, k), axis=(2, 3))                   # N,O,H,W,k,k
        dx = np.tensordot(dcols, w[:, :, ::-1, ::-1], axes=([1, 4, 5], [0, 2, 3])).transpose(0, 3, 1, 2)
    return gw, gb, dx


def _pool_fwd(x):
    n, c, h, w = x.shape
    xr = x.reshape(n, c, h // 2, 2, w // 2, 2)
    m = xr.max((3, 5))
    return m, xr == m[:, :, :, None, :, None]


def _pool_bwd(dm, mask):
    n, c, h2, w2 = dm.shape
    return (mask * dm[:, :, :, None, :, None]).reshape(n, c, h2 * 2, w2 * 2)


def np_train_step(kind, x, y, P, bias=True):
    """shared/anchors/bench_numpy.py's hand-written forward + backward + SGD step on the
    parameter list P (updated in place; float32 or float64). Returns step() -> loss."""
    lr = P[0].dtype.type(LR)

    def update(grads):
        for p, g in zip(P, grads):
            p -= lr * g.astype(p.dtype)

    if kind == "mlp":
        def step():
            W1, b1, W2, b2, W3, b3 = P
            h1 = x @ W1.T + b1
            a1 = np.maximum(h1, 0)
            h2 = a1 @ W2.T + b2
            a2 = np.maximum(h2, 0)
            z = a2 @ W3.T + b3
            loss, dz = _softmax_ce_grad(z, y)
            dh2 = (dz @ W3) * (h2 > 0)
            dh1 = (dh2 @ W2) * (h1 > 0)
            update((dh1.T @ x, dh1.sum(0), dh2.T @ a1, dh2.sum(0), dz.T @ a2, dz.sum(0)))
            return loss
        return step

    def step():
        if bias:
            c1w, c1b, c2w, c2b, f1w, f1b, f2w, f2b, f3w, f3b = P
        else:
            (c1w, c2w, f1w, f1b, f2w, f2b, f3w, f3b), c1b, c2b = P, None, None
        h1, cols1 = _conv_fwd(x, c1w, c1b)
        a1 = np.maximum(h1, 0)
        p1, m1 = _pool_fwd(a1)
        h2, cols2 = _conv_fwd(p1, c2w, c2b)
        a2 = np.maximum(h2, 0)
        p2, m2 = _pool_fwd(a2)
        f = p2.reshape(p2.shape[0], -1)
        h3 = f @ f1w.T + f1b
        a3 = np.maximum(h3, 0)
        h4 = a3 @ f2w.T + f2b
        a4 = np.maximum(h4, 0)
        z = a4 @ f3w.T + f3b
        loss, dz = _softmax_ce_grad(z, y)
        dh4 = (dz @ f3w) * (h4 > 0)
        dh3 = (dh4 @ f2w) * (h3 > 0)
        dp2 = (dh3 @ f1w).reshape(p2.shape)
        dh2 = _pool_bwd(dp2, m2) * (h2 > 0)
        g_c2w, g_c2b, dp1 = _conv_bwd(dh2, cols2, c2w, True)
        dh1 = _pool_bwd(dp1, m1) * (h1 > 0)
        g_c1w, g_c1b, _ = _conv_bwd(dh1, cols1, c1w, False)
        dense = (dh3.T @ f, dh3.sum(0), dh4.T @ a3, dh4.sum(0), dz.T @ a4, dz.sum(0))
        update(((g_c1w, g_c1b, g_c2w, g_c2b) if bias else (g_c1w, g_c2w)) + dense)
        return loss
    return step


# ----------------------------------------------------------------------------- msmlir
def _t(shape):
    return "tensor<" + "".join(f"{d}x" for d in shape) + "f32>"


def mindir_b1(approx="#mindir.approximate<tanh>"):
    t = _t([N_ELEM])
    s = "tensor<f32>"
    return f"""
func.func @b1(%x: {t}) -> {t} {{
  %c15 = "mindir.constant"() {{value = dense<1.5> : {s}}} : () -> {s}
  %c05 = "mindir.constant"() {{value = dense<0.5> : {s}}} : () -> {s}
  %a = "mindir.mul"(%x, %c15) : ({t}, {s}) -> {t}
  %z = "mindir.add"(%a, %c05) : ({t}, {s}) -> {t}
  %g = "mindir.gelu"(%z) {{approximate = {approx}}} : ({t}) -> {t}
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


MINDIR_CASES = {"B1": (mindir_b1, "b1", ["b1_x"]), "B2": (mindir_b2, "b2", ["b2_x"]),
                "B3": (mindir_b3, "b3", ["b3_x", "b3_g", "b3_b"]),
                "B4": (mindir_b4, "b4", ["b4_a", "b4_b"])}


def mindir_stream():
    """STREAM-style kernels on B2/B3's shape: copy (as STREAM's scale, y = 1.5 x)
    and triad (y = a + 1.5 b)."""
    t, s = _t([ROWS, COLS]), "tensor<f32>"
    c = f'%c = "mindir.constant"() {{value = dense<1.5> : {s}}} : () -> {s}'
    return f"""
func.func @copy(%x: {t}) -> {t} {{
  {c}
  %y = "mindir.mul"(%x, %c) : ({t}, {s}) -> {t}
  return %y : {t}
}}
func.func @triad(%a: {t}, %b: {t}) -> {t} {{
  {c}
  %m = "mindir.mul"(%b, %c) : ({t}, {s}) -> {t}
  %y = "mindir.add"(%a, %m) : ({t}, {t}) -> {t}
  return %y : {t}
}}"""


STREAM_BYTES = {"copy": 2 * ROWS * COLS * 4, "triad": 3 * ROWS * COLS * 4}
# B2/B3's least traffic: the input read once, the output written once (+ gamma, beta)
BYTES_MOVED = {"B2": 2 * ROWS * COLS * 4, "B3": 2 * ROWS * COLS * 4 + 2 * COLS * 4}


def stream_case(d, bench_kw, compile_mlir=None, kernel=None, bytes_moved=0, rounds=4):
    """The STREAM-style kernels: {name: {"min_ms", "gb_per_s"}}. compile_mlir
    (msmlir's): copy and triad compiled by msmlir and checked, then timed in
    `rounds` alternating rounds with `kernel` ("kernel": bytes_moved over its
    time, "of_stream_copy": its rate over the copy's), min per kernel;
    None: numpy's copy (np.copyto)."""
    a, b = d["b2_x"], d["b3_x"]
    if compile_mlir is None:
        dst = np.empty_like(a)
        fns = {"copy": lambda: np.copyto(dst, a)}
    else:
        cm = compile_mlir(mindir_stream())
        fns = {"copy": lambda: cm.call("copy", a)[0], "triad": lambda: cm.call("triad", a, b)[0]}
        refs = {"copy": a * np.float32(1.5), "triad": a + np.float32(1.5) * b}
        for k, f in fns.items():
            if not np.allclose(f(), refs[k], rtol=1e-6, atol=1e-6):
                return {"check": f"FAIL (STREAM {k}: wrong result)"}
        if kernel is not None:
            fns = {"kernel": kernel, **fns}
    per = dict(bench_kw, target_s=bench_kw.get("target_s", 1.0) / rounds)
    out = {}
    wait = _MAX_WAIT[0]
    wait_idle(wait)                  # once: the rounds run back to back
    _MAX_WAIT[0] = 0.0
    try:
        for _ in range(rounds if kernel is not None else 1):
            for k, f in fns.items():
                r = bench(f, **per)
                if k not in out or r["min_ms"] < out[k]["min_ms"]:
                    out[k] = r
    finally:
        _MAX_WAIT[0] = wait
    for k, r in out.items():
        moved = bytes_moved if k == "kernel" else STREAM_BYTES[k]
        r["gb_per_s"] = moved / (r["min_ms"] * 1e-3) / 1e9
    if "kernel" in out:
        out["of_stream_copy"] = out["kernel"]["gb_per_s"] / out["copy"]["gb_per_s"]
    return out


def msmlir_case(key, d):
    """The msmlir case of one benchmark (see run_case)."""
    import msmlir as ms
    held = {}
    if key in MINDIR_CASES:
        from msmlir.compiler import compile_mlir
        make_text, name, args = MINDIR_CASES[key]
        arrays = [d[a] for a in args]

        def make():
            try:
                cm = compile_mlir(make_text())
            except Exception as e:  # noqa: BLE001
                if key != "B1" or "approximate" not in str(e):
                    raise
                cm = compile_mlir(mindir_b1('"tanh"'))   # the attribute's older string form
            held["obj"] = cm
            return lambda: cm.call(name, *arrays)[0]
        return {"make": make, "obj": lambda: held.get("obj")}

    from msmlir import Tensor, nn, ops
    if key == "B7":
        def make():
            g1 = ms.grad(ops.tanh)
            g2 = ms.grad(g1)
            g3 = ms.grad(g2)
            held["j"] = [ms.jit(g) for g in (g1, g2, g3)]
            held["obj"] = held["j"][2]
            x = held["x"] = Tensor(np.float32(2.0))
            j3 = held["j"][2]
            return lambda: j3(x).asnumpy()
        return {"make": make, "obj": lambda: held.get("obj"),
                "values": lambda: [float(j(held["x"]).asnumpy()) for j in held["j"]]}

    kind, x, y, params, bias = train_setup(key, d)

    class LeNet5(nn.Cell):
        def __init__(self):
            super().__init__()
            self.c1 = nn.Conv2d(1, 6, 5, pad_mode="valid", has_bias=bias)
            self.c2 = nn.Conv2d(6, 16, 5, pad_mode="valid", has_bias=bias)
            self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
            self.relu = nn.ReLU()
            self.flatten = nn.Flatten()
            self.f1 = nn.Dense(400, 120)
            self.f2 = nn.Dense(120, 84)
            self.f3 = nn.Dense(84, 10)

        def construct(self, x):
            x = self.pool(self.relu(self.c1(x)))
            x = self.pool(self.relu(self.c2(x)))
            x = self.flatten(x)
            x = self.relu(self.f1(x))
            x = self.relu(self.f2(x))
            return self.f3(x)

    def make():
        if kind == "mlp":
            net = nn.SequentialCell([nn.Dense(784, 512), nn.ReLU(), nn.Dense(512, 512), nn.ReLU(),
                                     nn.Dense(512, 10)])
        else:
            net = LeNet5()
        ps = net.trainable_params()
        assert len(ps) == len(params), (len(ps), len(params))
        for p, v in zip(ps, params):     # nn.Dense weight: (out, in), as torch's
            assert tuple(p.shape) == v.shape, (p.name, p.shape, v.shape)
            p.set_data(Tensor(v.copy()))
        loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        opt = nn.SGD(net.trainable_params(), learning_rate=LR)
        train = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn), opt)
        train.set_train()
        held["train"] = train
        xt, yt = Tensor(x), Tensor(y.astype(np.int32))
        return lambda: float(train(xt, yt).asnumpy())

    def obj():
        t = held.get("train")
        return t._graph_fn() if t is not None and hasattr(t, "_graph_fn") else None
    return {"make": make, "obj": obj}


def kernel_summary(obj):
    """obj.kernel_summary() or msmlir.compiler.last_kernel_summary(), when either exists."""
    f = getattr(obj, "kernel_summary", None)
    if not callable(f):
        try:
            import msmlir.compiler as mc
            f = getattr(mc, "last_kernel_summary", None)
        except Exception:  # noqa: BLE001
            f = None
    if not callable(f):
        return None
    try:
        s = f()
    except Exception as e:  # noqa: BLE001
        s = f"({type(e).__name__}: {e})"
    return " ".join(str(s).split()) if s else None


def _write_json(path, obj):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(obj, f)
    os.replace(tmp, path)


def worker(spec):
    """One msmlir benchmark in this (child) process; results go to spec['out'] as JSON,
    first {'stage': 'compiling'}, then 'first_call' once the first call returned, then 'done'."""
    out = spec["out"]
    key = spec["key"]
    _MAX_WAIT[0] = spec["wait_idle"]
    _write_json(out, {"stage": "compiling"})
    try:
        import msmlir as ms
        ms.set_context(mode=ms.GRAPH_MODE, enable_graph_kernel=spec["graph_kernel"])
        if spec["pipeline"]:
            from msmlir.passes.registry import get_pass, parse_options, set_option_defaults
            info = get_pass("msmlir-cpu-pipeline")
            set_option_defaults(info.name, parse_options(info, spec["pipeline"]))
        d = make_data()
        ref = reference(key, d)
        case = msmlir_case(key, d)
        r = run_case(key, case, ref, spec["bench_kw"],
                     on_first_call=lambda r: _write_json(out, {"stage": "first_call", **r}))
        r["kernel_summary"] = kernel_summary(case["obj"]())
        if spec.get("stream") and key in BYTES_MOVED and r["check"] == "ok":
            from msmlir.compiler import compile_mlir
            _, name, args = MINDIR_CASES[key]
            cm, arrays = case["obj"](), [d[a] for a in args]
            r["floor"] = stream_case(d, spec["bench_kw"], compile_mlir,
                                     bytes_moved=BYTES_MOVED[key],
                                     kernel=lambda: cm.call(name, *arrays)[0])
    except Exception as e:  # noqa: BLE001 - reported in the table
        msg = str(e).strip().splitlines()
        r = {"check": f"FAIL ({type(e).__name__}: {(msg[0] if msg else '')[:200]})"}
        import traceback
        traceback.print_exc()
    _write_json(out, {"stage": "done", **r})


def run_msmlir(key, spec, compile_timeout, run_timeout):
    """Runs worker() in a subprocess; TIMEOUT when its first call (compile) takes more than
    compile_timeout s, or the whole benchmark more than compile_timeout + run_timeout s."""
    fd, out = tempfile.mkstemp(prefix="msmlir_bench_", suffix=".json")
    os.close(fd)
    spec = dict(spec, key=key, out=out)
    cmd = [sys.executable, os.path.abspath(__file__), "--_worker", json.dumps(spec)]
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=sys.stderr, start_new_session=True)
    res, timeout = None, None
    try:
        while True:
            try:
                p.wait(timeout=0.2)
                break
            except subprocess.TimeoutExpired:
                pass
            el = time.perf_counter() - t0
            try:
                with open(out) as f:
                    stage = json.load(f).get("stage")
            except (OSError, ValueError):
                stage = None
            if stage in (None, "compiling") and el > compile_timeout:
                timeout = f"TIMEOUT (first call > {compile_timeout:.0f} s)"
            elif el > compile_timeout + run_timeout:
                timeout = f"TIMEOUT (run > {compile_timeout + run_timeout:.0f} s)"
            if timeout:
                os.killpg(p.pid, signal.SIGKILL)   # the worker's own session: it and its children
                p.wait()
                break
        try:
            with open(out) as f:
                res = json.load(f)
        except (OSError, ValueError):
            res = {}
    finally:
        for f in (out, out + ".tmp"):
            if os.path.exists(f):
                os.remove(f)
    if timeout:
        return {"check": timeout, **({"first_call_ms": res["first_call_ms"]}
                                     if "first_call_ms" in res else {})}
    if res.get("stage") != "done":
        return {"check": f"FAIL (worker exited with status {p.returncode})"}
    res.pop("stage")
    return res


# ----------------------------------------------------------------------------- peers
SQ2PI = np.float32(math.sqrt(2.0 / math.pi))


def numpy_cases(d):
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
    cases = {"B1": {"make": lambda: b1}, "B2": {"make": lambda: b2}, "B3": {"make": lambda: b3},
             "B4": {"make": lambda: (lambda: a4 @ b4_)}}
    for key in ("B5", "B6", "B6nb"):
        kind, x, y, params, bias = train_setup(key, d)
        cases[key] = {"make": (lambda kind=kind, x=x, y=y, params=params, bias=bias:
                               np_train_step(kind, x, y, [p.copy() for p in params], bias))}
    return cases, f"numpy {np.__version__}"   # B7: numpy has no autodiff


def torch_cases(d):
    try:
        import torch
    except Exception:  # noqa: BLE001 - optional peer
        return None, None
    t = {k: torch.from_numpy(v) for k, v in d.items() if isinstance(v, np.ndarray)}
    F = torch.nn.functional
    nn = torch.nn

    def no_grad(f):
        def g():
            with torch.no_grad():
                return f()
        return g

    def b1():
        z = t["b1_x"] * 1.5 + 0.5
        return F.gelu(z, approximate="tanh") * torch.sigmoid(t["b1_x"])

    cases = {"B1": b1, "B2": lambda: torch.softmax(t["b2_x"], -1),
             "B3": lambda: F.layer_norm(t["b3_x"], (COLS,), t["b3_g"], t["b3_b"], LN_EPS),
             "B4": lambda: t["b4_a"] @ t["b4_b"]}
    cases = {k: {"make": (lambda f=f: no_grad(f))} for k, f in cases.items()}

    class LeNet5(nn.Module):
        def __init__(self, bias):
            super().__init__()
            self.c1 = nn.Conv2d(1, 6, 5, bias=bias)
            self.c2 = nn.Conv2d(6, 16, 5, bias=bias)
            self.f1 = nn.Linear(400, 120)
            self.f2 = nn.Linear(120, 84)
            self.f3 = nn.Linear(84, 10)

        def forward(self, x):
            x = F.max_pool2d(F.relu(self.c1(x)), 2)
            x = F.max_pool2d(F.relu(self.c2(x)), 2)
            x = torch.flatten(x, 1)
            x = F.relu(self.f1(x))
            x = F.relu(self.f2(x))
            return self.f3(x)

    def make_train(key):   # shared/anchors/bench_torch.py, mode "eager"
        kind, x, y, params, bias = train_setup(key, d)
        if kind == "mlp":
            m = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                              nn.Linear(512, 10))
        else:
            m = LeNet5(bias)
        with torch.no_grad():
            for p, v in zip(m.parameters(), params):
                p.copy_(torch.from_numpy(v))
        xt, yt = torch.from_numpy(x), torch.from_numpy(y).long()
        opt = torch.optim.SGD(m.parameters(), lr=LR)

        def step():
            opt.zero_grad(set_to_none=True)
            loss = F.cross_entropy(m(xt), yt)
            loss.backward()
            opt.step()
            return loss.item()
        return step

    for key in ("B5", "B6", "B6nb"):
        cases[key] = {"make": (lambda key=key: make_train(key))}

    from torch.func import grad
    x0 = torch.tensor(2.0)
    g1 = grad(torch.tanh)
    g2 = grad(g1)
    g3 = grad(g2)
    cases["B7"] = {"make": lambda: (lambda: g3(x0).item()),
                   "values": lambda: [g(x0).item() for g in (g1, g2, g3)]}
    return cases, f"torch {torch.__version__}"


def jax_cases(d):
    try:
        import jax
        import jax.numpy as jnp
        from jax import lax
    except Exception:  # noqa: BLE001 - optional peer
        return None, None
    j = {k: jax.device_put(v) for k, v in d.items() if isinstance(v, np.ndarray)}

    def b1(x):
        z = x * 1.5 + 0.5
        return jax.nn.gelu(z, approximate=True) * jax.nn.sigmoid(x)

    def b3(x, g, b):
        m = x.mean(-1, keepdims=True)
        v = ((x - m) ** 2).mean(-1, keepdims=True)
        return (x - m) * jax.lax.rsqrt(v + LN_EPS) * g + b

    def simple(f, *names):
        def make():
            jf = jax.jit(f)
            args = [j[n] for n in names]
            return lambda: jf(*args).block_until_ready()
        return {"make": make}

    cases = {"B1": simple(b1, "b1_x"), "B2": simple(lambda x: jax.nn.softmax(x, axis=-1), "b2_x"),
             "B3": simple(b3, "b3_x", "b3_g", "b3_b"), "B4": simple(lambda a, b: a @ b, "b4_a", "b4_b")}

    # B5/B6: shared/anchors/bench_jax.py
    def dense(x, w, b):
        return x @ w.T + b

    def mlp(P, x):
        W1, b1_, W2, b2_, W3, b3_ = P
        h = jax.nn.relu(dense(x, W1, b1_))
        h = jax.nn.relu(dense(h, W2, b2_))
        return dense(h, W3, b3_)

    def conv(x, w, b):
        y = lax.conv_general_dilated(x, w, (1, 1), "VALID", dimension_numbers=("NCHW", "OIHW", "NCHW"))
        return y if b is None else y + b[None, :, None, None]

    def maxpool2(x):
        return lax.reduce_window(x, -jnp.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")

    def lenet(P, x):
        if len(P) == 10:
            c1w, c1b, c2w, c2b, f1w, f1b, f2w, f2b, f3w, f3b = P
        else:
            (c1w, c2w, f1w, f1b, f2w, f2b, f3w, f3b), c1b, c2b = P, None, None
        h = maxpool2(jax.nn.relu(conv(x, c1w, c1b)))
        h = maxpool2(jax.nn.relu(conv(h, c2w, c2b)))
        h = h.reshape(h.shape[0], -1)
        h = jax.nn.relu(dense(h, f1w, f1b))
        h = jax.nn.relu(dense(h, f2w, f2b))
        return dense(h, f3w, f3b)

    def make_train(key):
        kind, x, y, params, _ = train_setup(key, d)
        model = mlp if kind == "mlp" else lenet

        def loss_fn(P, x, y):
            logp = jax.nn.log_softmax(model(P, x), axis=-1)
            return -jnp.mean(jnp.take_along_axis(logp, y[:, None], axis=1))

        def step(P, x, y):
            loss, g = jax.value_and_grad(loss_fn)(P, x, y)
            return [p - LR * gi for p, gi in zip(P, g)], loss

        jstep = jax.jit(step, donate_argnums=(0,))
        xj, yj = jnp.asarray(x), jnp.asarray(y)
        state = {"P": [jnp.asarray(p.copy()) for p in params]}

        def call():
            state["P"], loss = jstep(state["P"], xj, yj)
            jax.block_until_ready((state["P"], loss))
            return float(loss)
        return call

    for key in ("B5", "B6", "B6nb"):
        cases[key] = {"make": (lambda key=key: make_train(key))}

    g1 = jax.grad(jnp.tanh)
    g2 = jax.grad(g1)
    g3 = jax.grad(g2)
    jg = [jax.jit(g) for g in (g1, g2, g3)]
    x7 = jnp.float32(2.0)
    cases["B7"] = {"make": lambda: (lambda: jg[2](x7).block_until_ready()),
                   "values": lambda: [float(g(x7)) for g in jg]}
    return cases, f"jax {jax.__version__}"


# ----------------------------------------------------------------------------- main
def machine_info():
    info = {"platform": platform.platform(), "python": sys.version.split()[0],
            "cpus": os.cpu_count(), "affinity": len(os.sched_getaffinity(0))}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    info["cpu"] = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return info


def _on_off(s):
    v = s.strip().lower()
    if v in ("on", "true", "1", "yes"):
        return True
    if v in ("off", "false", "0", "no"):
        return False
    raise argparse.ArgumentTypeError(f"--graph-kernel: expected on/off, got {s!r}")


def _fmt(v):
    return v if isinstance(v, str) else f"{v:.2f}" if v >= 0.1 else f"{v:.4f}"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default="B1,B2,B3,B4,B5,B6,B7",
                    help="comma list of " + ",".join(ALL_KEYS))
    ap.add_argument("--quick", action="store_true", help="fewer timed runs")
    ap.add_argument("--threads", default="1,2",
                    help="comma list: one msmlir column per msmlir-cpu-pipeline threads= value "
                         "(OpenMP threads per big op)")
    ap.add_argument("--graph-kernel", default="on",
                    help="comma list of on/off: one msmlir column per value, run with "
                         "set_context(enable_graph_kernel=True/False) (times --threads values)")
    ap.add_argument("--pipeline", default="codegen=true",
                    help="msmlir-cpu-pipeline option defaults, e.g. 'codegen=true threads=2'")
    ap.add_argument("--no-peers", action="store_true", help="skip PyTorch / JAX")
    ap.add_argument("--no-stream", action="store_true",
                    help="skip the STREAM-style copy/triad (the memory floor of B2/B3)")
    ap.add_argument("--b6-no-bias", action="store_true",
                    help="run B6 with conv has_bias=False (B6nb) instead of B6")
    ap.add_argument("--compile-timeout", type=float, default=120.0,
                    help="seconds an msmlir benchmark's first call (compile) may take before "
                         "it is reported as TIMEOUT")
    ap.add_argument("--run-timeout", type=float, default=600.0,
                    help="seconds the rest of an msmlir benchmark (checks, timing) may take")
    ap.add_argument("--json", default=None, metavar="PATH",
                    help="write all results to this JSON file (default: none)")
    ap.add_argument("--wait-idle", type=float, default=30.0,
                    help="before each timing wait up to this many seconds for other processes "
                         "to use < 10%% of the machine (0: do not wait)")
    ap.add_argument("--_worker", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args._worker:
        return worker(json.loads(args._worker))
    t_start = time.perf_counter()
    _MAX_WAIT[0] = args.wait_idle
    keys = []
    for k in args.only.split(","):
        k = {kk.upper(): kk for kk in ALL_KEYS}.get(k.strip().upper())
        if k is None:
            continue
        if k == "B6" and args.b6_no_bias:
            k = "B6nb"
        if k not in keys:
            keys.append(k)
    thread_list = [int(t) for t in str(args.threads).split(",") if t.strip()]
    gk_list = [_on_off(g) for g in args.graph_kernel.split(",") if g.strip()]
    kw = dict(min_runs=5, target_s=0.3) if args.quick else {}

    d = make_data()
    refs = {k: reference(k, d) for k in keys}
    results = {k: {} for k in keys}     # key -> system -> run_case dict
    # msmlir first, for every benchmark, before any peer has run: the peers'
    # thread pools (OpenMP in torch, XLA's) keep spinning for a while after
    # their own runs and would slow whatever is timed next.
    ms_names = []
    want_stream = not args.no_stream and any(k in BYTES_MOVED for k in keys)
    for gk in gk_list:
        for th in thread_list:
            col = f"msmlir t={th}"
            if len(gk_list) > 1 or gk:
                col += " gk=" + ("on" if gk else "off")
            ms_names.append(col)
            spec = {"pipeline": f"{args.pipeline} threads={th}", "graph_kernel": gk,
                    "bench_kw": kw, "wait_idle": args.wait_idle, "stream": want_stream}
            for k in keys:
                r = run_msmlir(k, spec, args.compile_timeout, args.run_timeout)
                results[k][col] = r
                print(f"[{k}] {col}: {_brief(r)}", file=sys.stderr, flush=True)
    stream_numpy = stream_case(d, kw) if want_stream else None
    if stream_numpy:
        print(f"[STREAM] numpy: {_brief_stream(stream_numpy)}", file=sys.stderr, flush=True)

    systems = []
    versions = {}
    peers = [("numpy", numpy_cases)] + ([] if args.no_peers else
                                         [("torch", torch_cases), ("jax", jax_cases)])
    for name, make in peers:
        cases, ver = make(d)
        if cases is None:
            continue
        systems.append(name)
        versions[name] = ver
        for k in keys:
            if k not in cases:
                results[k][name] = {"check": "n/a"}
                continue
            try:
                results[k][name] = run_case(k, cases[k], refs[k], kw)
            except Exception as e:  # noqa: BLE001
                results[k][name] = {"check": f"FAIL ({type(e).__name__}: {str(e)[:100]})"}
            print(f"[{k}] {name}: {_brief(results[k][name])}", file=sys.stderr, flush=True)

    # B5/B6: msmlir's losses against each peer's
    for k in keys:
        if KIND[k] != "train":
            continue
        for c in ms_names:
            lm = results[k][c].get("losses")
            if lm is None:
                continue
            diffs = {}
            for s in systems:
                lp = results[k][s].get("losses")
                if lp is not None:
                    diffs[s] = float(np.max(np.abs(np.array(lm) - np.array(lp))))
            results[k][c]["loss_diff_vs_peer"] = diffs
            bad = {s: v for s, v in diffs.items() if not v <= LOSS_TOL}
            if bad:
                print(f"FAIL [{k}] {c}: first {CHECK_STEPS} losses differ from "
                      + ", ".join(f"{s} by {v:.3g}" for s, v in bad.items()), file=sys.stderr)

    names = ms_names + systems
    first_cols = ms_names + (["jax"] if "jax" in systems else [])
    print(f"\nmsmlir-cpu-pipeline{{{args.pipeline}}} with threads={args.threads}, "
          f"enable_graph_kernel={args.graph_kernel}; {', '.join(versions.values())}; "
          f"{os.cpu_count()} CPUs; min over repeats, ms\n")
    print("| bench | " + " | ".join(names) + " | "
          + "best peer | " + " | ".join(f"best peer / {c}" for c in ms_names) + " | "
          + " | ".join(f"first call {c} (ms)" for c in first_cols) + " |")
    print("|---|" + "---|" * (len(names) + 1 + len(ms_names) + len(first_cols)))
    summary = {}
    for k in keys:
        cells = []
        for n in names:
            r = results[k].get(n, {})
            cells.append(_fmt(r["min_ms"]) if "min_ms" in r else _cell(r.get("check", "-")))
        peer_times = {n: results[k][n]["min_ms"] for n in systems if "min_ms" in results[k][n]}
        best = min(peer_times, key=peer_times.get) if peer_times else None
        cells.append(best or "-")
        ratios = {}
        for c in ms_names:
            m = results[k][c].get("min_ms")
            if best and m:
                ratios[c] = peer_times[best] / m
            cells.append(f"{ratios[c]:.2f}" if c in ratios else "-")
        for c in first_cols:
            fc = results[k][c].get("first_call_ms")
            cells.append(f"{fc:.0f}" if isinstance(fc, float) else "-")
        print(f"| {k} {WHAT[k]} | " + " | ".join(cells) + " |")
        summary[k] = {"what": WHAT[k], "systems": results[k], "best_peer": best,
                      "best_peer_ms": peer_times.get(best),
                      "best_peer_over_msmlir": ratios,
                      "reference": refs[k].tolist() if KIND[k] != "array" else "float64 numpy"}
    if want_stream:
        print("\n" + memory_floor_table(keys, ms_names, results, stream_numpy))
        for k in keys:
            if k in BYTES_MOVED:
                summary[k]["bytes_moved"] = BYTES_MOVED[k]
    below = []
    for k in keys:
        for c in ms_names:
            r = results[k][c]
            if r.get("kernel_summary"):
                below.append(f"{k} {c} kernels: {r['kernel_summary']}")
    for k in keys:
        for n in names:
            chk = str(results[k].get(n, {}).get("check", ""))
            if chk.startswith(("FAIL", "TIMEOUT")):
                below.append(f"{k} {n}: {chk}")
    total = time.perf_counter() - t_start
    below.append(f"total {total:.0f} s")
    print("\n" + "\n".join(below))
    if args.json:
        versions_all = {"numpy": np.__version__}
        for mod in ("torch", "jax", "jaxlib"):
            if mod in sys.modules:
                versions_all[mod] = getattr(sys.modules[mod], "__version__", "?")
        try:
            import importlib.metadata as md
            versions_all["msmlir"] = md.version("msmlir")
        except Exception:  # noqa: BLE001
            pass
        out = {"args": vars(args), "machine": machine_info(), "versions": versions_all,
               "msmlir_columns": ms_names, "peers": systems, "check_steps": CHECK_STEPS,
               "loss_tol": LOSS_TOL, "tol": TOL, "total_s": total, "results": summary,
               "stream_bytes": STREAM_BYTES, "stream_numpy": stream_numpy}
        out["args"].pop("_worker", None)
        os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1, default=float)
        print(f"wrote {args.json}")
    return results


def memory_floor_table(keys, ms_names, results, stream_numpy):
    """Per B2/B3 and msmlir column: the kernel's least traffic over its time
    (GB/s), the STREAM-style copy and triad timed with it (same process,
    interleaved) and the kernel's fraction of the copy's rate."""
    lines = ["| memory floor (GB/s; timed interleaved in each column's process) | "
             + " | ".join(ms_names) + " |", "|---|" + "---|" * len(ms_names)]
    for k in keys:
        if k not in BYTES_MOVED:
            continue
        rows = {"kernel": [], "copy": [], "triad": []}
        for c in ms_names:
            f = results[k].get(c, {}).get("floor") or {}
            for kern, cells in rows.items():
                r = f.get(kern, {})
                cells.append(f"{r['gb_per_s']:.1f}" if "gb_per_s" in r else _cell(f.get("check", "-")))
            if "of_stream_copy" in f:
                rows["kernel"][-1] += f" ({f['of_stream_copy']:.2f} of copy)"
        lines.append(f"| {k} {WHAT[k]}, {BYTES_MOVED[k] >> 20} MiB | " + " | ".join(rows["kernel"]) + " |")
        lines.append(f"| STREAM copy y = 1.5 x, {STREAM_BYTES['copy'] >> 20} MiB (with {k}) | "
                     + " | ".join(rows["copy"]) + " |")
        lines.append(f"| STREAM triad y = a + 1.5 b, {STREAM_BYTES['triad'] >> 20} MiB (with {k}) | "
                     + " | ".join(rows["triad"]) + " |")
    if stream_numpy and "gb_per_s" in stream_numpy.get("copy", {}):
        lines.append(f"\nnumpy copy (np.copyto, 1 thread, {STREAM_BYTES['copy'] >> 20} MiB): "
                     f"{stream_numpy['copy']['gb_per_s']:.1f} GB/s")
    return "\n".join(lines)


def _brief_stream(r):
    if "check" in r:
        return r["check"]
    return ", ".join(f"{k} {v['min_ms']:.4g} ms = {v['gb_per_s']:.1f} GB/s"
                     for k, v in r.items() if isinstance(v, dict) and "min_ms" in v)


def _cell(s):
    """A short table cell for a FAIL / TIMEOUT message (the full text is under the table)."""
    s = str(s)
    return s.split(" (")[0] if s.startswith(("FAIL", "TIMEOUT")) else s


def _brief(r):
    if "min_ms" in r:
        s = f"{r['min_ms']:.4g} ms (median {r['median_ms']:.4g}, {r['runs']} runs)"
    else:
        s = r.get("check", "?")
    if "first_call_ms" in r:
        s += f", first call {r['first_call_ms']:.0f} ms"
    if "losses" in r:
        s += ", losses " + ", ".join(f"{v:.6f}" for v in r["losses"])
    if "values" in r:
        s += ", values " + ", ".join(f"{v:.8g}" for v in r["values"])
    if "floor" in r:
        s += "; floor: " + _brief_stream(r["floor"])
    return s


if __name__ == "__main__":
    main()
