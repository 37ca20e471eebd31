"""msmlir-cpu-streaming-stores (passes/cpu/streaming_stores.py) end to end:
the elementwise chain, softmax and layernorm kernels (B1/B2/B3's, smaller)
compiled with the pass's size thresholds at 0 (and no op limit) are
bit-identical to the kernels without it, and close to numpy, whether the
runtime's output buffers are 64-byte aligned (the streaming copy runs) or
not (the original nest runs), at 1 and 2 threads, in process and through
mlir-translate | opt | llc; the kernels are versioned, marked and fenced
(the compute-bound chain not, under the default op limit); the x86 code has
vmovntps and sfence. Also bench/run.py's memory floor (STREAM-style copy /
triad timed interleaved with a kernel)."""
from __future__ import annotations

import platform
import re
import subprocess
import types

import numpy as np
import pytest
from mlir import ir

import msmlir.runtime.compiled_module as compiled_module
from msmlir.compiler import context
from msmlir.passes import run_pipeline
from msmlir.passes.pipelines.cpu import GRAPH_PREPARE, cpu_lowering
from msmlir.passes.registry import option_defaults
from msmlir.runtime import parallel_compile

from cg_helpers import compile_with, ttype
from support.llvm_tools import llvm_tools

pytestmark = pytest.mark.skipif(platform.machine().lower() not in ("x86_64", "amd64"),
                                reason="streaming stores: x86-64 only")

ALWAYS = {"min-output-bytes": 0, "min-footprint-bytes": 0, "max-ops-per-store": 1000}
ROWS, COLS = 64, 1024


def chain_text(n):
    t, s = ttype([n]), "tensor<f32>"
    return f"""
func.func @f(%x: {t}) -> {t} {{
  %c = "mindir.constant"() {{value = dense<1.5> : {s}}} : () -> {s}
  %a = "mindir.mul"(%x, %c) : ({t}, {s}) -> {t}
  %g = "mindir.gelu"(%a) {{approximate = #mindir.approximate<tanh>}} : ({t}) -> {t}
  %sg = "mindir.sigmoid"(%x) : ({t}) -> {t}
  %r = "mindir.mul"(%g, %sg) : ({t}, {t}) -> {t}
  return %r : {t}
}}"""


def softmax_text(rows, cols):
    t = ttype([rows, cols])
    return f"""
func.func @f(%x: {t}) -> {t} {{
  %r = "mindir.softmax"(%x) {{axis = -1 : i64}} : ({t}) -> {t}
  return %r : {t}
}}"""


def layernorm_text(rows, cols):
    t, v, st = ttype([rows, cols]), ttype([cols]), ttype([rows, 1])
    return f"""
func.func @f(%x: {t}, %g: {v}, %b: {v}) -> {t} {{
  %y, %m, %r = "mindir.layer_norm"(%x, %g, %b) {{begin_norm_axis = -1 : i64, begin_params_axis = -1 : i64, epsilon = 1.0e-05 : f64}} : ({t}, {v}, {v}) -> ({t}, {st}, {st})
  return %y : {t}
}}"""


def ref_chain(x):
    x = x.astype(np.float64)
    z = 1.5 * x
    g = 0.5 * z * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (z + 0.044715 * z ** 3)))
    return g / (1.0 + np.exp(-x))


def ref_softmax(x):
    e = np.exp(x.astype(np.float64) - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def ref_layernorm(x, g, b):
    x = x.astype(np.float64)
    m = x.mean(-1, keepdims=True)
    return (x - m) / np.sqrt(((x - m) ** 2).mean(-1, keepdims=True) + 1e-5) * g + b


def _empty_at(offset):
    """np.empty whose data starts `offset` bytes past a 64-byte boundary."""
    def empty(shape, dtype=np.float64):
        dtype = np.dtype(dtype)
        n = int(np.prod(shape)) * dtype.itemsize
        raw = np.empty(n + 128, np.uint8)
        start = (-raw.ctypes.data) % 64 + offset
        return raw[start:start + n].view(dtype).reshape(shape)
    return empty


def _runtime_outputs_at(monkeypatch, offset):
    """The runtime allocates its output buffers `offset` bytes past a 64-byte
    boundary (numpy's own big arrays are 16 past one)."""
    shim = types.SimpleNamespace(**{k: getattr(np, k) for k in dir(np) if not k.startswith("__")})
    shim.empty = _empty_at(offset)
    monkeypatch.setattr(compiled_module, "np", shim)


def _cases():
    rng = np.random.default_rng(0)
    x1 = rng.standard_normal(ROWS * COLS).astype(np.float32)
    x2 = (3 * rng.standard_normal((ROWS, COLS))).astype(np.float32)
    g = (1 + 0.1 * rng.standard_normal(COLS)).astype(np.float32)
    b = (0.1 * rng.standard_normal(COLS)).astype(np.float32)
    return {"chain": (chain_text(ROWS * COLS), [x1], ref_chain(x1), 2e-6),
            "softmax": (softmax_text(ROWS, COLS), [x2], ref_softmax(x2), 4e-7),
            "layernorm": (layernorm_text(ROWS, COLS), [x2, g, b], ref_layernorm(x2, g, b), 2e-6)}


CASES = _cases()


NEVER = {"min-footprint-bytes": 1 << 62}


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("offset", [0, 16])
@pytest.mark.parametrize("name", sorted(CASES))
def test_numerics_aligned_and_not(name, offset, threads, monkeypatch):
    """Bit-identical to the same kernel compiled without streaming stores
    (only how the stores reach memory differs), and close to float64 numpy."""
    text, args, ref, tol = CASES[name]
    with option_defaults("msmlir-cpu-streaming-stores", NEVER):
        plain = compile_with(text, threads=threads, min_work=8192).call("f", *args)[0].copy()
    with option_defaults("msmlir-cpu-streaming-stores", ALWAYS):
        cm = compile_with(text, threads=threads, min_work=8192)
    _runtime_outputs_at(monkeypatch, offset)
    for _ in range(2):                  # a second call reuses the output buffer
        out = cm.call("f", *args)[0]
        assert out.ctypes.data % 64 == offset
        np.testing.assert_array_equal(out, plain)
        err = float(np.max(np.abs(out - ref)))
        assert err <= tol * max(1.0, float(np.max(np.abs(ref)))), (name, offset, threads, err)


def test_parallel_compile_path(monkeypatch):
    """Through the in-process LLVM workers (runtime/parallel_compile.py, the
    path of big modules and of the disk cache) too: the same bits."""
    text, args, _, _ = CASES["layernorm"]
    with option_defaults("msmlir-cpu-streaming-stores", NEVER):
        plain = compile_with(text, threads=2, min_work=8192).call("f", *args)[0].copy()
    monkeypatch.setenv("MSMLIR_COMPILE_JOBS", "2")
    monkeypatch.setattr(parallel_compile, "MIN_OPS", 0)
    with option_defaults("msmlir-cpu-streaming-stores", ALWAYS):
        cm = compile_with(text, threads=2, min_work=8192)
    assert "llvm-parallel" in cm.timings, cm.timings
    for offset in (0, 16):
        _runtime_outputs_at(monkeypatch, offset)
        np.testing.assert_array_equal(cm.call("f", *args)[0], plain)


def _lowered(text, threads, **opts):
    """The module after msmlir-cpu-pipeline (LLVM dialect), the pass's options
    `opts` (ALWAYS by default)."""
    ctx = context()
    with ctx, option_defaults("msmlir-cpu-streaming-stores", opts or ALWAYS):
        m = ir.Module.parse(text)
        lowering = cpu_lowering(threads=threads, min_work=8192)
        run_pipeline(m, f"builtin.module({GRAPH_PREPARE},{lowering})")
        return str(m)


@pytest.mark.parametrize("name", sorted(CASES))
def test_kernels_marked_and_fenced(name):
    text = CASES[name][0]
    low = _lowered(text, 2)
    stores = re.findall(r"llvm\.store .*", low)
    nt = [s for s in stores if "nontemporal" in s]
    assert nt and all("alignment = 64" in s and "vector<16xf32>" in s for s in nt), nt
    assert low.count('"llvm.x86.sse.sfence"') >= 1
    # the default thresholds (96 MiB of arguments) leave these small kernels alone
    default = _lowered(text, 2, **{"min-output-bytes": 4 << 20})
    assert "nontemporal" not in default and "sfence" not in default
    # the default max-ops-per-store (32) leaves the compute-bound chain alone
    light = _lowered(text, 2, **{"min-output-bytes": 0, "min-footprint-bytes": 0})
    assert ("nontemporal" in light) == (name != "chain")


def test_x86_code_streams():
    """The layernorm kernel's x86 code (translated and compiled by the pinned
    mlir-translate / llc for AVX-512): vmovntps zmm stores and an sfence."""
    tools = llvm_tools()
    if tools is None:
        pytest.skip("mlir-translate / llc not installed")
    translate, _, llc = tools
    low = _lowered(CASES["layernorm"][0], 2)
    low = re.sub(r"mskernel\.[a-z_]+ = #mskernel\.[a-z_]+<[a-z_]+>,? ?", "", low)
    ll = subprocess.run([translate, "--mlir-to-llvmir"], input=low, capture_output=True,
                        text=True, check=True).stdout
    asm = subprocess.run([llc, "-O3", "-mtriple=x86_64-unknown-linux-gnu", "-mattr=+avx512f"],
                         input=ll, capture_output=True, text=True, check=True).stdout
    assert re.search(r"vmovntps\s+%zmm\d+, ", asm), "no streaming vector store"
    assert "sfence" in asm
    assert "movnti" not in asm          # no store split for want of alignment


def _bench_run():
    """bench/run.py as a module (not a package)."""
    import importlib.util
    import os
    path = os.path.join(os.path.dirname(__file__), "..", "..", "..", "bench", "run.py")
    spec = importlib.util.spec_from_file_location("msmlir_bench_run", os.path.abspath(path))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_bench_memory_floor():
    """bench/run.py's STREAM-style kernels compile and compute copy / triad,
    are timed interleaved with a benchmark's kernel, and the memory-floor
    table prints the kernel's rate over the copy's."""
    R = _bench_run()
    rng = np.random.default_rng(0)
    d = {"b2_x": rng.standard_normal((R.ROWS, R.COLS)).astype(np.float32),
         "b3_x": rng.standard_normal((R.ROWS, R.COLS)).astype(np.float32)}
    from msmlir.compiler import compile_mlir
    kw = dict(warmup=0, min_runs=1, target_s=0.0, max_runs=1)
    calls = []
    floor = R.stream_case(d, kw, compile_mlir, kernel=lambda: calls.append(1),
                          bytes_moved=R.BYTES_MOVED["B3"], rounds=3)
    assert len(calls) == 2 * 3          # 3 rounds of bench(): one estimate call + one timed
    assert set(floor) == {"kernel", "copy", "triad", "of_stream_copy"}, floor
    k, c = floor["kernel"], floor["copy"]
    assert abs(k["gb_per_s"] - R.BYTES_MOVED["B3"] / (k["min_ms"] * 1e-3) / 1e9) < 1e-9
    assert abs(floor["of_stream_copy"] - k["gb_per_s"] / c["gb_per_s"]) < 1e-12
    assert R.stream_case(d, kw)["copy"]["gb_per_s"] > 0          # numpy's copy
    results = {"B3": {"msmlir t=1": {"min_ms": 1.0, "floor": floor},
                      "msmlir t=2": {"check": "FAIL (x)"}}}
    table = R.memory_floor_table(["B3"], ["msmlir t=1", "msmlir t=2"], results, None)
    assert f"| {k['gb_per_s']:.1f} ({floor['of_stream_copy']:.2f} of copy) | - |" in table, table
    assert f"| {c['gb_per_s']:.1f} | - |" in table, table
