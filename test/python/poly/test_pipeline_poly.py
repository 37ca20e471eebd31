"""msmlir-cpu-pipeline{poly=true}: the plain path (linalg ops the tensor
codegen left alone) scheduled by mskernel-poly-schedule{nests=true} after
bufferization. Results match poly=false (and numpy) on plain-path ops (small
matmul, middle-axis reduction, transposed elementwise, a gather next to
vector code), the stage list names the "poly" stage, and its dump shows the
schedule of each outlined nest group (mskernel.schedule). With the defaults
(poly=false) only the kernel classes mskernel-poly-claim gives the scheduler
(transposes whose rows are 4 KiB multiples apart, a transpose with its
elementwise consumer, row reductions) are scheduled: claimed or not as the
rule says, equal to numpy, through jit and gradients."""
from __future__ import annotations

import re

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
    """The module after the "poly" stage (poly=true) or after "bufferized"
    (where the claimed functions are scheduled)."""
    want = "poly" if options.get("poly") else "bufferized"
    with compiler.context():
        m = ir.Module.parse(text)
        run_pipeline(m, f"builtin.module({GRAPH_PREPARE})")
        for name, stage in cpu_lowering_stages(**options):
            run_pipeline(m, f"builtin.module({stage})")
            if name == want:
                return str(m)
    return None


def test_stages_and_dump_show_the_schedule():
    names = [n for n, _ in cpu_lowering_stages(poly=True, codegen=True)]
    assert names == ["kernels", "linalg", "codegen", "bufferized", "poly", "llvm"]
    # poly=false: no stage of its own; what mskernel-poly-claim outlined is
    # scheduled at the end of "bufferized"
    off = dict(cpu_lowering_stages(poly=False, codegen=True))
    assert list(off) == ["kernels", "linalg", "codegen", "bufferized", "llvm"]
    # (cpu-threads=N: the claimed functions' task split, when the pipeline passes its threads)
    # (then the in-place write-back analysis, last on bufferized code)
    assert re.search(r"mskernel-poly-schedule\{target=cpu claimed=true cpu-threads=\d+\}"
                     r",msmlir-inplace-writeback$", off["bufferized"]), off["bufferized"]
    assert "mskernel-poly-claim" in off["codegen"]
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
    # (the exp is claimed and vectorized by the scheduler's codegen: vector<16xf32> loads)
    assert out is not None and "vector<16xf32>" in out and "memref.load" in out, out
    rng = np.random.default_rng(0)
    x = rng.standard_normal(4096).astype(np.float32)
    i = rng.integers(0, 4096, 16).astype(np.int32)
    for poly in (True, False):
        with option_defaults("msmlir-cpu-pipeline", {"poly": poly, "min-work": 1024}):
            e, g = compile_mlir(text).call("f", x, i)
        np.testing.assert_allclose(e, np.exp(x), rtol=1e-5)
        np.testing.assert_array_equal(g, x[i])


@pytest.mark.parametrize("n", [1024, 1000])
def test_claimed_transposes(n):
    # the default pipeline gives the scheduler a transpose with its one
    # elementwise consumer at any row stride (a transpose alone only when its
    # rows are a multiple of 4 KiB apart: test_claimed_transpose_alone); equal
    # to numpy
    text, shapes, ref = _transposed_add(n, n)
    out = _poly_stage(text)
    assert out.count("mskernel.poly") == 1, out
    assert "mskernel.schedule" in out and "affine.for" in out, out
    xs, got = _run(text, shapes, False)
    np.testing.assert_array_equal(got, ref(*xs))


@pytest.mark.parametrize("n", [1024, 1000])
def test_claimed_transpose_alone(n):
    # a transpose whose result is returned: claimed only with 4 KiB rows
    t, o = f"tensor<64x{n}xf32>", f"tensor<{n}x64xf32>"
    text = (f"func.func @f(%x: {t}) -> {o} {{\n"
            f"  %r = mindir.transpose %x {{perm = array<i64: 1, 0>}} : ({t}) -> {o}\n"
            f"  return %r : {o}\n}}")
    assert ("mskernel.poly" in _poly_stage(text)) == (n == 1024)
    x = np.random.default_rng(n).standard_normal((64, n)).astype(np.float32)
    np.testing.assert_array_equal(compile_mlir(text).call("f", x)[0], x.T)


def test_claimed_transpose_in_a_train_step_shape():
    # a transposed 1024-wide operand feeding exp (scalar exp -> polynomial in the
    # claimed function) and a row reduction: same numbers as numpy
    t, o = "tensor<256x1024xf32>", "tensor<1024x256xf32>"
    text = f"""func.func @f(%x: {t}) -> (tensor<1024xf32>) {{
  %u = mindir.transpose %x {{perm = array<i64: 1, 0>}} : ({t}) -> {o}
  %e = mindir.exp %u : {o}
  %r = mindir.reduce_sum %e {{axes = array<i64: 1>}} : ({o}) -> tensor<1024xf32>
  return %r : tensor<1024xf32>
}}"""
    assert "mskernel.poly" in _poly_stage(text)
    x = np.random.default_rng(1).standard_normal((256, 1024)).astype(np.float32)
    got = compile_mlir(text).call("f", x)[0]
    np.testing.assert_allclose(got, np.exp(x.astype(np.float64)).sum(0), rtol=2e-5)


@pytest.mark.parametrize("threads", [1, 2])
def test_claimed_transpose_jit_gradient(threads):
    # through the frontend: a claimed transpose (x's rows are 4 KiB) in a
    # value_and_grad, serial and with OpenMP threads for the other kernels
    import msmlir as ms
    from msmlir import ops

    def f(x, y):
        return (ops.exp(ops.transpose(x, (1, 0))) * y).sum()

    step = ms.jit(ms.value_and_grad(f, grad_position=(0, 1)))
    rng = np.random.default_rng(2)
    x = (rng.standard_normal((16, 1024)) * 0.5).astype(np.float32)
    y = rng.standard_normal((1024, 16)).astype(np.float32)
    with option_defaults("msmlir-cpu-pipeline", {"threads": threads}):
        loss, (dx, dy) = step(x, y)
    e = np.exp(x.astype(np.float64).T)
    np.testing.assert_allclose(float(np.asarray(loss)), (e * y).sum(), rtol=1e-4)
    np.testing.assert_allclose(np.asarray(dx), (e * y).T, rtol=2e-5, atol=1e-5)
    np.testing.assert_allclose(np.asarray(dy), e, rtol=2e-5)


def test_inline_kernels_claims_nothing():
    # inline-kernels=true would inline a claimed function back before it is
    # scheduled: the hand strategies keep the op then (same numbers)
    text, shapes, ref = _transposed_add(1024, 1024)
    stages = dict(cpu_lowering_stages(**{"inline-kernels": True}))
    assert "mskernel-poly-claim" not in stages["codegen"]
    assert "mskernel-poly-claim" in dict(cpu_lowering_stages(poly=True, **{"inline-kernels": True}))["codegen"]
    with option_defaults("msmlir-cpu-pipeline", {"inline-kernels": True}):
        xs, got = _run(text, shapes, False)
    np.testing.assert_array_equal(got, ref(*xs))
