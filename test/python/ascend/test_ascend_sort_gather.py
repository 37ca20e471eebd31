"""Sort and gather on the Ascend target (scalar fallback, passes/ascend/scalar.py).

sort: mindir.sort lowers to a bitonic network, scf.for stages over linalg
bodies; the scalar fallback emits them as C++ for loops whose carried tensors
live in the GM workspace. Compared bit for bit with the CPU target and with
numpy's stable argsort (NaN last ascending / first descending, -0 == +0, ties
by index).

gather: the CPU lowering checks the indices with a host callback
(msmlir_check_failed); an Ascend kernel cannot call the host, so the kernel
writes the first failure to a status output and the host runner raises the
CPU's IndexError (same message, the op's location) after the launch.
"""
from __future__ import annotations

import numpy as np
import pytest

import msmlir.ascend as A

pytestmark = [pytest.mark.filterwarnings("ignore::msmlir.ascend.AscendEmulationWarning")]

_ET = {np.dtype(np.float32): "f32", np.dtype(np.float16): "f16", np.dtype(np.int32): "i32"}


def _t(shape, et):
    return "tensor<" + "".join(f"{d}x" for d in shape) + et + ">"


def _sort_text(x, axis, descending):
    t, ti = _t(x.shape, _ET[x.dtype]), _t(x.shape, "i32")
    return (f"func.func @f(%x: {t}) -> ({t}, {ti}) {{\n"
            f"  %v, %i = mindir.sort %x {{axis = {axis} : i64, descending = {str(descending).lower()}}} "
            f": ({t}) -> ({t}, {ti})\n  return %v, %i : {t}, {ti}\n}}")


def _np_sort(x, axis, descending):
    """numpy's stable order under mindir.sort's rules: NaN above +inf, -0 == +0."""
    key = np.where(x == 0, np.zeros_like(x), x) if x.dtype.kind == "f" else x
    if descending:
        key = -key.astype(np.float64) if x.dtype.kind == "f" else -key.astype(np.int64)
        if x.dtype.kind == "f":
            key = np.where(np.isnan(key), -np.inf, key)      # NaN first descending
            key = np.where(np.isneginf(key) & ~np.isnan(x), np.nextafter(-np.inf, 0), key)
    idx = np.argsort(key, axis=axis, kind="stable").astype(np.int32)
    return np.take_along_axis(x, idx, axis=axis), idx


R = np.random.default_rng(1414)
V = R.standard_normal(13).astype(np.float32)
V[[0, 3, 5, 8, 11]] = [np.nan, np.inf, -0.0, 0.0, -np.inf]
V[[1, 6]] = V[9]                                               # ties
SORTS = {
    "1d-special": (V, -1, False),
    "1d-special-desc": (V, 0, True),
    "rows-desc": (np.round(R.standard_normal((5, 37)) * 3).astype(np.float32), -1, True),   # many ties
    "axis0": (R.standard_normal((6, 4)).astype(np.float32), 0, False),
    "i32": (R.integers(-9, 9, 21).astype(np.int32), -1, False),
    "pow2": (R.standard_normal((3, 64)).astype(np.float32), 1, False),
    "middle-axis-desc": (R.standard_normal((3, 5, 7)).astype(np.float32), 1, True),
    "f16": (R.standard_normal(19).astype(np.float16), -1, False),
}


def _same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape and a.dtype == b.dtype
    if a.dtype.kind == "f":
        ok = ((a == b) & (np.signbit(a) == np.signbit(b))) | (np.isnan(a) & np.isnan(b))
        assert ok.all(), (a[~ok], b[~ok])
    else:
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("case", sorted(SORTS))
def test_sort_equals_cpu_and_numpy(case):
    from msmlir.compiler import compile_mlir
    x, axis, desc = SORTS[case]
    text = _sort_text(x, axis, desc)
    cpu = compile_mlir(text).call("f", x.copy())
    prog = A.compile(text)
    got = prog.call("f", x.copy())
    for g, c in zip(got, cpu):
        _same(g, c)
    ev, ei = _np_sort(x, axis, desc)
    np.testing.assert_array_equal(got[1], ei)
    _same(got[0], ev)
    (k,) = prog.kernels.values()
    assert k.report["bound"] == "scalar fallback"
    assert "for (int64_t k" in k.source                       # the network's stages as C++ loops


def test_sort_cost_counts_every_stage():
    """The cost model counts each scf.for iteration: a 64-element sort has
    21 compare-exchange stages of 64 elements, a 16-element one 10 of 16."""
    c = {n: A.compile(_sort_text(np.zeros(n, np.float32), -1, False)).kernels for n in (16, 64)}
    cyc = {n: next(iter(k.values())).report["cycles"] for n, k in c.items()}
    assert 6 < cyc[64] / cyc[16] < 12, cyc


def _gather_text(xs, ishape, axis):
    oshape = list(xs[:axis]) + list(ishape) + list(xs[axis + 1:])
    tx, ti, to = _t(xs, "f32"), _t(ishape, "i32"), _t(oshape, "f32")
    return (f"func.func @f(%x: {tx}, %i: {ti}) -> {to} {{\n"
            f"  %r = mindir.gather %x, %i {{axis = {axis} : i64}} : ({tx}, {ti}) -> {to}\n"
            f"  return %r : {to}\n}}")


X = R.standard_normal((7, 13)).astype(np.float32)


@pytest.mark.parametrize("axis", [0, 1])
def test_gather_negative_indices_equal_cpu(axis):
    from msmlir.compiler import compile_mlir
    n = X.shape[axis]
    idx = np.array([[0, -1, n - 1], [-n, 2, -3]], np.int32)
    text = _gather_text(X.shape, idx.shape, axis)
    cpu = compile_mlir(text).call("f", X, idx)
    prog = A.compile(text)
    got = prog.call("f", X, idx)
    _same(got[0], cpu[0])
    _same(got[0], np.take(X, idx, axis=axis))
    (k,) = prog.kernels.values()
    assert "GM_ADDR y1" in k.source and ".GetValue(3) == 0" in k.source      # the check's status output
    assert k.plan.shapes["out"][-1] == [4]


@pytest.mark.parametrize("bad", [[[0, 13, 2]], [[-14, 1, 99]]])
def test_gather_bad_index_raises_as_cpu(bad):
    """A bad index on the Ascend path is the CPU's IndexError, word for word
    (location of the op, the index, the valid range, how many)."""
    from msmlir.compiler import compile_mlir
    idx = np.array(bad, np.int32)
    text = _gather_text(X.shape, idx.shape, 1)
    with pytest.raises(IndexError) as cpu:
        compile_mlir(text).call("f", X, idx)
    with pytest.raises(IndexError) as asc:
        A.compile(text).call("f", X, idx)
    assert str(asc.value) == str(cpu.value)
    assert "mindir.gather" in str(asc.value) and str(asc.value).startswith("-:2:8: ")
    # the program still runs good indices afterwards (no stale status)
    prog = A.compile(text)
    ok = np.array([[0, 12, -13]], np.int32)
    with pytest.raises(IndexError):
        prog.call("f", X, idx)
    _same(prog.call("f", X, ok)[0], np.take(X, ok, axis=1))


def test_frontend_gather_and_sort_on_ascend_as_cpu():
    """Through set_context(device_target="Ascend"): the same results and the
    same IndexError (at the user's line) as on the CPU."""
    import warnings

    import msmlir as ms
    from msmlir import Tensor, ops
    previous = ms.get_context("mode"), ms.get_context("device_target")
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    seen = {}
    try:
        ms.set_context(mode=ms.GRAPH_MODE)
        for target in ("CPU", "Ascend"):
            ms.set_context(device_target=target)

            @ms.jit
            def f(x, i):
                return ops.gather(x, i, 1)

            @ms.jit
            def g(x):
                return ops.sort(x, descending=True)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                good = f(Tensor(x), Tensor(np.array([1, -1], np.int32))).asnumpy()
                with pytest.raises(IndexError) as bad:
                    f(Tensor(x), Tensor(np.array([1, 7], np.int32)))
                srt = [a.asnumpy() for a in g(Tensor(np.array([3, 1, np.nan, 2, 1], np.float32)))]
            seen[target] = (good, str(bad.value), srt)
    finally:
        ms.set_context(mode=previous[0], device_target=previous[1])
    np.testing.assert_array_equal(seen["Ascend"][0], x[:, [1, 3]])
    assert seen["Ascend"][1] == seen["CPU"][1] and "test_ascend_sort_gather.py:" in seen["Ascend"][1]
    assert "index 7 is out of range for an axis of size 4" in seen["Ascend"][1]
    for a, c in zip(seen["Ascend"][2], seen["CPU"][2]):
        _same(a, c)
    np.testing.assert_array_equal(seen["Ascend"][2][1], [2, 0, 3, 1, 4])


LOOP_KERNEL = """
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func private @cpu_opaque_rows(%x: tensor<4x3xf32>) -> tensor<4x3xf32> attributes {mskernel.kind = #mskernel.kind<opaque>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %two = arith.constant 2.0 : f32
  %e = tensor.empty() : tensor<4x3xf32>
  %c = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x3xf32>) outs(%e : tensor<4x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %two : f32
    linalg.yield %m : f32
  } -> tensor<4x3xf32>
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %x) -> (tensor<4x3xf32>) {
    %s = tensor.extract_slice %acc[%i, 0] [1, 3] [1, 1] : tensor<4x3xf32> to tensor<3xf32>
    %n = tensor.insert_slice %s into %c[%i, 0] [1, 3] [1, 1] : tensor<3xf32> into tensor<4x3xf32>
    scf.yield %n : tensor<4x3xf32>
  }
  return %r : tensor<4x3xf32>
}
"""


def test_loop_does_not_update_a_value_from_outside_in_place():
    """%c is defined before the loop and read by every iteration: inserting
    into it in place would leak iteration 0's row into the result (row 0 =
    x[0]); each iteration inserts into a fresh copy, so the result is 2x."""
    from mlir import ir

    from msmlir.compiler import context
    from msmlir.passes.ascend.lower_to_ascend import plan_kernel
    with context(), ir.Location.unknown():
        m = ir.Module.parse(LOOP_KERNEL)
        plan = plan_kernel(m.body.operations[0].operation, "ascend_rows_test")
        x = R.standard_normal((4, 3)).astype(np.float32)
        (got,) = A.AscendKernel(plan).run(x)
    np.testing.assert_array_equal(got, 2 * x)
