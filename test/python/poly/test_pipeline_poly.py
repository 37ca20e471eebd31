"""msmlir-cpu-pipeline{poly=true}: the plain path (linalg ops the tensor
codegen left alone) scheduled by mskernel-poly-schedule{nests=true} after
bufferization. Results match poly=false (and numpy) on plain-path ops (small
matmul, middle-axis reduction, transposed elementwise, a gather next to
vector code), the stage list names the "poly" stage, and its dump shows the
schedule of each outlined nest group (mskernel.schedule)."""
from __future__ import annotations

import numpy as np
import pytest
from mlir import ir

from msmlir import compiler
from msmlir.compiler import compile_mlir
from msmlir.passes import run_pipeline
from msmlir.passes.pipelines.cpu import GRAPH_PREPARE, cpu_lowering_stages
from msmlir.passes.registry import option_defaults


def _t(shape) -> str:
    return "tensor<" + "x".join(map(str, shape)) + "xf32>"


def _matmul(m, k, n):
    return (f"func.func @f(%a: {_t((m, k))}, %b: {_t((k, n))}) -> {_t((m, n))} {{\n"
            f"  %r = mindir.matmul %a, %b : ({_t((m, k))}, {_t((k, n))}) -> {_t((m, n))}\n"
            f"  return %r : {_t((m, n))}\n}}"), [(m, k), (k, n)], lambda a, b: a @ b


def _reduce_middle(s):
    o = (s[0], s[2])
    return (f"func.func @f(%x: {_t(s)}) -> {_t(o)} {{\n"
            f"  %r = mindir.reduce_sum %x {{axes = array<i64: 1>}} : ({_t(s)}) -> {_t(o)}\n"
            f"  return %r : {_t(o)}\n}}"), [s], lambda x: x.sum(1)


def _transposed_add(n, m):
    return (f"func.func @f(%x: {_t((m, n))}, %y: {_t((n, m))}) -> {_t((n, m))} {{\n"
            f"  %t = mindir.transpose %x {{perm = array<i64: 1, 0>}} : ({_t((m, n))}) -> {_t((n, m))}\n"
            f"  %r = mindir.add %t, %y : ({_t((n, m))}, {_t((n, m))}) -> {_t((n, m))}\n"
            f"  return %r : {_t((n, m))}\n}}"), [(m, n), (n, m)], lambda x, y: x.T + y


CASES = {"matmul": _matmul(17, 23, 19), "matmul_tiny": _matmul(7, 13, 5),
         "reduce_middle": _reduce_middle((8, 32, 24)), "transposed_add": _transposed_add(64, 96)}


def _run(text, shapes, poly, min_work=None):
    rng = np.random.default_rng(0)
    xs = [rng.integers(-4, 5, s).astype(np.float32) for s in shapes]
    opts = {"poly": poly} | ({} if min_work is None else {"min-work": min_work})
    with option_defaults("msmlir-cpu-pipeline", opts):
        out = compile_mlir(text).call("f", *xs)[0]
    return xs, out


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("min_work", [None, 1 << 40])  # 1 << 40: every op the plain path
def test_same_results(name, min_work):
    text, shapes, ref = CASES[name]
    xs, off = _run(text, shapes, False, min_work)
    _, on = _run(text, shapes, True, min_work)
    np.testing.assert_array_equal(on, off)  # integer-valued data: exact in any order
    np.testing.assert_array_equal(on, ref(*xs))


def _poly_stage(text, **options):
    with compiler.context():
        m = ir.Module.parse(text)
        run_pipeline(m, f"builtin.module({GRAPH_PREPARE})")
        for name, stage in cpu_lowering_stages(**options):
            run_pipeline(m, f"builtin.module({stage})")
            if name == "poly":
                return str(m)
    return None


def test_stages_and_dump_show_the_schedule():
    names = [n for n, _ in cpu_lowering_stages(poly=True, codegen=True)]
    assert names == ["kernels", "linalg", "codegen", "bufferized", "poly", "llvm"]
    assert "poly" not in [n for n, _ in cpu_lowering_stages(poly=False, codegen=True)]
    assert "poly" not in [n for n, _ in cpu_lowering_stages(poly=True, codegen=False)]
    out = _poly_stage(CASES["matmul"][0], poly=True)
    assert "func.func private @f_poly0" in out and "mskernel.schedule" in out, out
    assert "call @f_poly0" in out


def test_gather_next_to_vector_code_stays():
    # the gather nest cannot be represented (computed index): no group scheduled
    # for it, the vectorized op of the same function untouched
    text = """func.func @f(%x: tensor<4096xf32>, %i: tensor<16xi32>) -> (tensor<4096xf32>, tensor<16xf32>) {
  %e = mindir.exp %x : tensor<4096xf32>
  %g = mindir.gather %x, %i {axis = 0 : i64} : (tensor<4096xf32>, tensor<16xi32>) -> tensor<16xf32>
  return %e, %g : tensor<4096xf32>, tensor<16xf32>
}"""
    out = _poly_stage(text, poly=True, **{"min-work": 1024})
    assert out is not None and "vector." in out and "memref.load" in out, out
    rng = np.random.default_rng(0)
    x = rng.standard_normal(4096).astype(np.float32)
    i = rng.integers(0, 4096, 16).astype(np.int32)
    for poly in (True, False):
        with option_defaults("msmlir-cpu-pipeline", {"poly": poly, "min-work": 1024}):
            e, g = compile_mlir(text).call("f", x, i)
        np.testing.assert_allclose(e, np.exp(x), rtol=1e-5)
        np.testing.assert_array_equal(g, x[i])
