"""Vector accumulators (passes/poly/vectorize.py) and task splits
(schedule.split_tasks) of mskernel-poly-schedule, run through the JIT
against the unscheduled loops and numpy on random shapes with tails; and
the kernel classes mskernel-poly-claim now gives the scheduler (row
reductions, a transpose with its elementwise consumer) through the whole
CPU pipeline."""
from __future__ import annotations

import re

import numpy as np
import pytest

import kernels as K
from msmlir.compiler import compile_mlir
from msmlir.passes.poly.vectorize import MIN_LANES
from msmlir.passes.registry import option_defaults

FLOAT_KINDS = {"arith.addf": np.sum, "arith.maximumf": np.max, "arith.minimumf": np.min,
               "arith.mulf": np.prod}
INT_KINDS = {"arith.addi": np.sum, "arith.maxsi": np.max, "arith.minsi": np.min}


def row_reduce(rows: int, cols: int, comb: str, et: str = "f32", scale: bool = False) -> str:
    """Y[i] = comb(Y[i], X[i, j] (* S[i] + W[i, j] when `scale`)) over j."""
    x, y = K.ty((rows, cols), et), K.ty((rows,), et)
    expr = "%x"
    extra = ""
    if scale:
        extra = (f"      %w = affine.load %W[%i, %j] : {x}\n"
                 f"      %s = affine.load %S[%i] : {y}\n"
                 f"      %p = arith.mulf %x, %s : {et}\n"
                 f"      %e = arith.addf %p, %w : {et}\n")
        expr = "%e"
    return f"""func.func @k(%X: {x}, %W: {x}, %S: {y}, %Y: {y}) {{
  affine.for %i = 0 to {rows} {{
    affine.for %j = 0 to {cols} {{
      %x = affine.load %X[%i, %j] : {x}
{extra}      %y = affine.load %Y[%i] : {y}
      %r = {comb} %y, {expr} : {et}
      affine.store %r, %Y[%i] : {y}
    }}
  }}
  return
}}"""


def _run(text, arrays, schedule):
    engine, out, ctx = K.compile_kernel(text, schedule)
    got = [a.copy() for a in arrays]
    K.call(engine, got)
    return got, out


def _shapes(seed, n=6):
    rng = np.random.default_rng(seed)
    # rows x cols with every tail: < 1 vector, between 1 and 4 vectors, long rows off 64
    return [(int(rng.integers(1, 40)), int(c)) for c in
            [rng.integers(1, 16), rng.integers(16, 64), rng.integers(64, 700), 1000, 16, 64][:n]]


@pytest.mark.parametrize("comb", sorted(FLOAT_KINDS))
@pytest.mark.parametrize("seed", [0, 1])
def test_float_row_reductions_match(comb, seed):
    for rows, cols in _shapes(seed):
        rng = np.random.default_rng(seed * 100 + cols)
        if comb == "arith.mulf":  # products near 1: no overflow
            x = (1 + 0.01 * rng.standard_normal((rows, cols))).astype(np.float32)
        else:
            x = rng.standard_normal((rows, cols)).astype(np.float32)
        y0 = rng.standard_normal(rows).astype(np.float32)
        arrays = [x, np.zeros_like(x), np.zeros(rows, np.float32), y0]
        text = row_reduce(rows, cols, comb)
        ref, _ = _run(text, arrays, None)
        got, out = _run(text, arrays, "")
        assert ("mskernel.vector_reduction" in out) == (cols >= MIN_LANES), (rows, cols, out)
        ref64 = FLOAT_KINDS[comb](np.concatenate([y0[:, None], x], 1).astype(np.float64), axis=1)
        if comb in ("arith.maximumf", "arith.minimumf"):
            np.testing.assert_array_equal(got[3], ref[3])  # exact in any order
        else:
            # reassociated: within the rounding error bound of an n-term sum / product
            tol = 1e-6 * (cols + 1) * (np.abs(np.concatenate([y0[:, None], x], 1)).sum(1)
                                       if comb == "arith.addf" else np.abs(ref64))
            assert np.all(np.abs(got[3] - ref64) <= tol + 1e-30), (rows, cols)
            assert np.all(np.abs(ref[3] - ref64) <= tol + 1e-30), (rows, cols)


@pytest.mark.parametrize("comb", sorted(INT_KINDS))
def test_int_row_reductions_exact(comb):
    for rows, cols in _shapes(7):
        rng = np.random.default_rng(cols)
        x = rng.integers(-1000, 1000, (rows, cols)).astype(np.int32)
        y0 = rng.integers(-1000, 1000, rows).astype(np.int32)
        arrays = [x, np.zeros_like(x), np.zeros(rows, np.int32), y0]
        text = row_reduce(rows, cols, comb, et="i32")
        ref, _ = _run(text, arrays, None)
        got, out = _run(text, arrays, "")
        assert ("vector.multi_reduction" in out) == (cols >= MIN_LANES)
        np.testing.assert_array_equal(got[3], ref[3])
        np.testing.assert_array_equal(got[3], INT_KINDS[comb](np.concatenate([y0[:, None], x], 1), axis=1))


def test_expression_with_invariant_operand():
    # Y[i] += X[i, j] * S[i] + W[i, j]: S[i] is invariant along the row
    # (computed once, broadcast), X and W are read as vectors
    for rows, cols in [(5, 1000), (33, 77), (8, 16), (3, 200)]:
        rng = np.random.default_rng(rows * cols)
        x, w = (rng.integers(-8, 9, (rows, cols)).astype(np.float32) for _ in range(2))
        s = rng.integers(-3, 4, rows).astype(np.float32)
        y0 = rng.integers(-8, 9, rows).astype(np.float32)
        text = row_reduce(rows, cols, "arith.addf", scale=True)
        ref, _ = _run(text, [x, w, s, y0], None)
        got, out = _run(text, [x, w, s, y0], "")
        assert "vector.broadcast" in out and "mskernel.vector_reduction" in out, out
        # integer-valued data: exact in any order
        np.testing.assert_array_equal(got[3], ref[3])
        np.testing.assert_array_equal(got[3], y0 + (x * s[:, None] + w).sum(1))


@pytest.mark.parametrize("threads", [2, 3])
@pytest.mark.parametrize("text_of,shapes", [
    (lambda: row_reduce(700, 201, "arith.addf"), [(700, 201), (700, 201), (700,), (700,)]),
    (lambda: K.reduce_axis((40, 90, 37), 1), [(40, 90, 37), (40, 37)]),
    (lambda: K.reduce_axis((40, 90, 37), 0), [(40, 90, 37), (90, 37)]),
    (lambda: K.transposed_chain(301, 257), [(301, 257), (301, 257), (257, 301)]),
])
def test_task_split_same_results(threads, text_of, shapes):
    # cpu-threads=N: the outermost parallel member cut into N chunks
    # (affine.parallel, run here serially after lower-affine); every chunk
    # boundary and tail covered exactly once
    text = text_of()
    rng = np.random.default_rng(threads)
    arrays = [rng.integers(-8, 9, s).astype(np.float32) for s in shapes]
    ref, _ = _run(text, arrays, None)
    got, out = _run(text, arrays, f"{{cpu-threads={threads}}}")
    assert f"affine.parallel (%arg{len(shapes)}) = (0) to ({threads})" in out, out
    for r, g in zip(ref, got):
        np.testing.assert_array_equal(g, r)


# --- the claimed classes through the CPU pipeline -----------------------------------

def _t(shape) -> str:
    return "tensor<" + "x".join(map(str, shape)) + "xf32>"


@pytest.mark.parametrize("shape", [(37, 1000), (4096, 100), (300, 33), (3, 7, 1500), (999, 12), (4000, 5)])
@pytest.mark.parametrize("op", ["reduce_sum", "reduce_max"])
def test_claimed_row_reductions(shape, op):
    out = shape[:-1]
    ax = len(shape) - 1
    text = (f"func.func @f(%x: {_t(shape)}) -> {_t(out)} {{\n"
            f"  %r = mindir.{op} %x {{axes = array<i64: {ax}>}} : ({_t(shape)}) -> {_t(out)}\n"
            f"  return %r : {_t(out)}\n}}")
    from test_pipeline_poly import _poly_stage
    staged = _poly_stage(text)
    assert "mskernel.poly" in staged and "mskernel.vector_reduction" in staged, staged
    x = np.random.default_rng(len(shape)).standard_normal(shape).astype(np.float32)
    got = compile_mlir(text).call("f", x)[0]
    if op == "reduce_max":
        np.testing.assert_array_equal(got, x.max(-1))
    else:
        ref = x.astype(np.float64).sum(-1)
        tol = 1e-6 * shape[-1] * np.abs(x).astype(np.float64).sum(-1)
        assert np.all(np.abs(got - ref) <= tol), np.abs(got - ref).max()


@pytest.mark.parametrize("m,n", [(300, 77), (1000, 1000), (129, 4096)])
def test_claimed_transpose_with_consumer(m, n):
    # any row stride: the transpose and its elementwise consumer, one claimed
    # function holding one fused generic
    text = (f"func.func @f(%x: {_t((m, n))}, %y: {_t((n, m))}) -> {_t((n, m))} {{\n"
            f"  %t = mindir.transpose %x {{perm = array<i64: 1, 0>}} : ({_t((m, n))}) -> {_t((n, m))}\n"
            f"  %r = mindir.mul %t, %y : ({_t((n, m))}, {_t((n, m))}) -> {_t((n, m))}\n"
            f"  return %r : {_t((n, m))}\n}}")
    from test_pipeline_poly import _poly_stage
    staged = _poly_stage(text)
    assert staged.count("mskernel.poly") == 1 and "mskernel.schedule" in staged, staged
    rng = np.random.default_rng(m)
    x = rng.standard_normal((m, n)).astype(np.float32)
    y = rng.standard_normal((n, m)).astype(np.float32)
    got = compile_mlir(text).call("f", x, y)[0]
    np.testing.assert_array_equal(got, x.T * y)


@pytest.mark.parametrize("threads", [1, 2])
def test_claimed_row_sum_threads(threads):
    # the pipeline at threads=N (the claimed functions' schedule split into
    # tasks when msmlir-cpu-pipeline passes cpu-threads on; OpenMP at N > 1)
    shape = (2048, 333)
    text = (f"func.func @f(%x: {_t(shape)}) -> {_t((2048,))} {{\n"
            f"  %r = mindir.reduce_sum %x {{axes = array<i64: 1>}} : ({_t(shape)}) -> {_t((2048,))}\n"
            f"  return %r : {_t((2048,))}\n}}")
    x = np.random.default_rng(5).integers(-8, 9, shape).astype(np.float32)
    with option_defaults("msmlir-cpu-pipeline", {"threads": threads}):
        got = compile_mlir(text).call("f", x)[0]
    np.testing.assert_array_equal(got, x.sum(1))


@pytest.mark.parametrize("shape,op", [((2048, 333), "reduce_sum"), ((1000, 4096), "reduce_max"),
                                      ((1000, 999), "transpose_mul")])
def test_claimed_tasks_under_openmp(monkeypatch, shape, op):
    # the claimed row reduction / transpose pair split into 2 tasks
    # (scf.parallel), run as an OpenMP region by the pipeline at threads=2;
    # the schedule gets cpu-threads here as msmlir-cpu-pipeline{threads=2} is
    # to pass it
    from mlir import ir

    from msmlir import compiler
    from msmlir.passes import run_pipeline
    from msmlir.passes.pipelines import cpu
    from msmlir.passes.pipelines.cpu import GRAPH_PREPARE

    def stages():
        return [(n, re.sub(r"claimed=true\}", "claimed=true cpu-threads=2}", t))
                for n, t in cpu.cpu_lowering_stages(threads=2)]
    rng = np.random.default_rng(9)
    if op == "transpose_mul":
        m, n = shape
        text = (f"func.func @f(%x: {_t((m, n))}, %y: {_t((n, m))}) -> {_t((n, m))} {{\n"
                f"  %t = mindir.transpose %x {{perm = array<i64: 1, 0>}} : ({_t((m, n))}) -> {_t((n, m))}\n"
                f"  %r = mindir.mul %t, %y : ({_t((n, m))}, {_t((n, m))}) -> {_t((n, m))}\n"
                f"  return %r : {_t((n, m))}\n}}")
        args = [rng.standard_normal((m, n)).astype(np.float32), rng.standard_normal((n, m)).astype(np.float32)]
        ref = args[0].T * args[1]
    else:
        out = shape[:-1]
        text = (f"func.func @f(%x: {_t(shape)}) -> {_t(out)} {{\n"
                f"  %r = mindir.{op} %x {{axes = array<i64: 1>}} : ({_t(shape)}) -> {_t(out)}\n"
                f"  return %r : {_t(out)}\n}}")
        args = [rng.integers(-8, 9, shape).astype(np.float32)]
        ref = args[0].sum(1) if op == "reduce_sum" else args[0].max(1)
    with compiler.context():
        m_ = ir.Module.parse(text)
        run_pipeline(m_, f"builtin.module({GRAPH_PREPARE})")
        seen = []
        for name, stage in stages():
            run_pipeline(m_, f"builtin.module({stage})")
            seen.append(str(m_))
    assert "scf.parallel" in seen[3] and "mskernel.poly" in seen[3], seen[3]
    assert "omp.parallel" in seen[-1] or "__kmpc_fork_call" in seen[-1]
    monkeypatch.setattr(compiler, "_lowering_stages", stages)
    got = compile_mlir(text).call("f", *args)[0]
    np.testing.assert_array_equal(got, ref)


@pytest.mark.parametrize("name,text_of,make", [
    ("stencil", lambda: K.stencil(300), lambda r: [r.integers(-4, 5, (300, 300)).astype(np.float32),
                                                   r.integers(-4, 5, (300, 300)).astype(np.float32),
                                                   np.zeros((300, 300), np.float32)]),
    ("triangular", lambda: K.triangular(80), lambda r: [r.integers(-4, 5, (80, 80)).astype(np.float32),
                                                        np.zeros((80, 80), np.float32)]),
    ("matmul", lambda: K.matmul(70, 65, 33), lambda r: [r.integers(-4, 5, (70, 33)).astype(np.float32),
                                                        r.integers(-4, 5, (33, 65)).astype(np.float32),
                                                        np.zeros((70, 65), np.float32)]),
])
def test_task_split_respects_dependences(name, text_of, make):
    # loop-carried dependences (a skewed stencil, triangular bounds, a
    # matmul's k loop): tasks only where every dependence has distance 0 on
    # the split member; same results as unscheduled (exact: integer data)
    text = text_of()
    arrays = make(np.random.default_rng(3))
    ref, _ = _run(text, arrays, None)
    got, out = _run(text, arrays, "{cpu-threads=3}")
    for r, g in zip(ref, got):
        np.testing.assert_array_equal(g, r)
    if name == "matmul":  # rows are parallel: split
        assert "affine.parallel" in out, out


@pytest.mark.parametrize("et,dt,lanes", [("f64", np.float64, 8), ("f16", np.float16, 32)])
@pytest.mark.parametrize("comb", ["arith.addf", "arith.maxnumf"])
def test_other_float_widths(et, dt, lanes, comb):
    # lanes follow the element width (cpu/tiling.lanes: 8 x f64, 32 x f16);
    # integer-valued data small enough to be exact in f16 sums
    for rows, cols in [(7, 300), (3, lanes * 4 + 5), (5, lanes)]:
        rng = np.random.default_rng(cols)
        x = rng.integers(-3, 4, (rows, cols)).astype(dt)
        y0 = rng.integers(-3, 4, rows).astype(dt)
        text = row_reduce(rows, cols, comb, et=et)
        got, out = _run(text, [x, np.zeros_like(x), np.zeros(rows, dt), y0], "")
        assert f"vector<{lanes}x{et}>" in out, out
        full = np.concatenate([y0[:, None], x], 1).astype(np.float64)
        np.testing.assert_array_equal(got[3], (full.sum(1) if comb == "arith.addf" else full.max(1)).astype(dt))
