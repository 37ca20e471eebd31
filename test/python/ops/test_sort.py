"""mindir.sort and the sorting ops (ops.sort / ops.argsort / ops.topk and the
Tensor methods): numerics against numpy's stable sort through
msmlir-cpu-pipeline, the NaN order, gradients against finite differences,
vmap, graph vs PyNative, and the diagnostics."""
from __future__ import annotations

import numpy as np
import pytest

import msmlir as ms
from mindir_cases import Case, bf16_round, check_cases, rng
from msmlir import CompileError, ops


def ref_sort(x: np.ndarray, axis: int, descending: bool = False):
    """(values, int32 indices) of mindir.sort's order: stable; NaN above +inf
    (last ascending, first descending); -0.0 == +0.0."""
    x = np.asarray(x)
    if not descending:
        idx = np.argsort(x, axis=axis, kind="stable")
    else:
        xm = np.moveaxis(x, axis, -1)
        rows = xm.reshape(-1, xm.shape[-1])
        out = np.empty(rows.shape, np.int64)
        for r, row in enumerate(rows):
            if row.dtype.kind == "f":
                nan = np.isnan(row)
                key = -np.where(nan, 0.0, row.astype(np.float64))
            else:
                nan = np.zeros(row.shape, bool)
                key = -row.astype(np.float64)
            out[r] = np.lexsort((np.arange(len(row)), key, ~nan))
        idx = np.moveaxis(out.reshape(xm.shape), -1, axis)
    return np.take_along_axis(x, idx, axis), idx.astype(np.int32)


def _data(r, shape, dt, kind="rand"):
    if np.issubdtype(dt, np.integer):
        return np.asarray(r.integers(-4, 5, shape)).astype(dt)   # many ties
    x = np.asarray(r.standard_normal(shape))
    if kind == "ties":
        x = np.round(x * 2)
    if kind == "nan":
        x = np.round(x * 2)
        x[r.random(shape) < 0.2] = np.nan
        x.flat[0] = np.inf
        x.flat[-1] = -np.inf
        if x.size > 3:
            x.flat[1], x.flat[2] = -0.0, 0.0
    return x.astype(dt)


# (shape, axis): non-powers of two (padding), unit/empty axes, a 1-D sort (the
# gather network), rows of any width, and column blocks (R = 160: blocks of 32).
CONFIGS = [((13,), 0), ((7, 13), -1), ((7, 13), 0), ((2, 3, 5), 1), ((5, 1), 1), ((1,), 0),
           ((0, 4), 1), ((3, 160), 0), ((257,), 0), ((9, 2, 6), -3)]


def test_sort_op_numerics():
    r = rng(7)
    cases = []

    def add(x, axis, desc, **kw):
        cases.append(Case("mindir.sort", [x], list(ref_sort(x, axis, desc)),
                          {"axis": axis, "descending": desc}, **kw))

    for k, (shape, axis) in enumerate(CONFIGS):          # both directions over f32/i32
        add(_data(r, shape, np.float32), axis, k % 2 == 1)
        add(_data(r, shape, np.int32), axis, k % 2 == 0)
    for dt in [np.float64, np.float16, np.int64, np.int8]:
        add(_data(r, (7, 13), dt, "ties"), 1, False)
        add(_data(r, (2, 3, 5), dt, "ties"), 1, True)
    # NaN, +-inf, -0.0 / +0.0 (equal: ties keep their order)
    for dt, shape, axis, desc in [(np.float32, (6, 11), 1, False), (np.float32, (6, 11), 1, True),
                                  (np.float32, (37,), 0, True), (np.float64, (9, 4), 0, False),
                                  (np.float16, (6, 11), 1, True)]:
        add(_data(r, shape, dt, "nan"), axis, desc, label="nan", signed_zeros=False)
    add(bf16_round(_data(r, (5, 12), np.float32, "ties")), 1, True, via="bf16")
    check_cases(cases)


def test_stable_order_and_nan_convention():
    x = np.array([2.0, np.nan, 1.0, 2.0, -np.inf, np.nan, 0.0, -0.0, np.inf], np.float32)
    v, i = ops.sort(x)
    np.testing.assert_array_equal(i, [4, 6, 7, 2, 0, 3, 8, 1, 5])
    np.testing.assert_array_equal(v, x[[4, 6, 7, 2, 0, 3, 8, 1, 5]])
    v, i = ops.sort(x, descending=True)
    np.testing.assert_array_equal(i, [1, 5, 8, 0, 3, 2, 6, 7, 4])   # NaN first, ties in order
    assert i.dtype == np.int32


def test_ops_and_methods_graph_vs_eager():
    r = rng(3)
    x = r.standard_normal((4, 6)).astype(np.float32)
    x[1, :3] = x[1, 3:]                                   # ties
    xb = r.random((3, 5)) < 0.5

    def f(x, xb):
        v, i = ops.sort(x, axis=0, descending=True)
        t = ms.Tensor(x) if not ops.is_tensor(x) else x
        return (v, i, ops.argsort(x), ops.topk(x, 3)[0], ops.topk(x, 2, dim=0, largest=False)[1],
                t.sort()[0], t.argsort(axis=0, descending=True), t.topk(1)[1],
                ops.sort(xb)[0], ops.sort(xb)[1])

    eager = f(x, xb)
    graph = ms.jit(f)(x, xb)
    ev, ei = ref_sort(x, 0, True)
    want = [ev, ei, ref_sort(x, -1)[1], ref_sort(x, 1, True)[0][:, :3],
            ref_sort(x, 0)[1][:2], ref_sort(x, -1)[0], ref_sort(x, 0, True)[1],
            ref_sort(x, 1, True)[1][:, :1], np.sort(xb, axis=-1),
            ref_sort(xb.astype(np.int8), -1)[1]]
    for e, g, w in zip(eager, graph, want):
        np.testing.assert_array_equal(np.asarray(e), w)
        np.testing.assert_array_equal(np.asarray(g), w)
    # the msmlir.Tensor methods (PyNative)
    t = ms.Tensor(x)
    np.testing.assert_array_equal(t.sort(1, True)[1].asnumpy(), ref_sort(x, 1, True)[1])
    np.testing.assert_array_equal(t.argsort().asnumpy(), ref_sort(x, -1)[1])
    v, i = t.topk(2, largest=False)
    np.testing.assert_array_equal(v.asnumpy(), ref_sort(x, -1)[0][:, :2])
    assert i.dtype == ms.int32


def test_topk():
    x = np.array([[0.5368, 0.2447, 0.4302, 0.9673],
                  [0.4388, 0.6525, 0.4685, 0.1868],
                  [0.3563, 0.5152, 0.9675, 0.8230]], np.float32)
    v, i = ops.topk(x, 2, dim=1)          # the MindSpore docs example
    np.testing.assert_array_equal(i, [[3, 0], [1, 2], [2, 3]])
    np.testing.assert_array_equal(v, np.take_along_axis(x, i, 1))
    ties = np.array([1, 3, 3, 2, 3], np.int32)
    np.testing.assert_array_equal(ops.topk(ties, 3)[1], [1, 2, 4])        # smaller index first
    np.testing.assert_array_equal(ops.topk(ties, 2, largest=False)[1], [0, 3])
    v, i = ops.topk(x, 3, dim=0)          # k == n: the whole sorted axis
    np.testing.assert_array_equal(i, ref_sort(x, 0, True)[1])
    assert ops.topk(x, 0)[0].shape == (3, 0)


@pytest.mark.parametrize("call,msg", [
    (lambda x: ops.sort(x, axis=2), "sort: axis 2 is out of range for a tensor of rank 2"),
    (lambda x: ops.argsort(x, axis=-3), "argsort: axis -3 is out of range"),
    (lambda x: ops.topk(x, 5), r"topk: k \(5\) must be in \[0, 4\], the size of dim 1"),
    (lambda x: ops.topk(x, 2, dim=3), "topk: dim 3 is out of range"),
    (lambda x: ops.topk(x, 1.5), "topk: k must be a Python int"),
    (lambda x: ops.sort(x[0, 0]), "sort: the input must have rank >= 1, got a 0-d tensor"),
])
def test_errors(call, msg):
    x = np.zeros((3, 4), np.float32)
    with pytest.raises(CompileError, match=msg):
        call(x)
    with pytest.raises(CompileError, match=msg):
        ms.jit(call)(x)


def _fd(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        xp, xm = x.copy(), x.copy()
        xp[i] += eps
        xm[i] -= eps
        g[i] = (f(xp) - f(xm)) / (2 * eps)
    return g


@pytest.mark.parametrize("shape,axis,desc", [((6,), 0, False), ((3, 5), 1, True),
                                             ((4, 3, 2), 1, False), ((4, 3, 2), 0, True)])
def test_sort_grad(shape, axis, desc):
    r = rng(11)
    x = r.standard_normal(shape)
    w = r.standard_normal(shape)

    def loss(x):
        v, i = ops.sort(x, axis, desc)
        return ops.reduce_sum(v * v * w + ops.cast(i, ms.float64))   # indices: no gradient

    def ref_loss(z):
        v, i = ref_sort(z, axis, desc)
        return float(np.sum(v * v * w + i))

    want = _fd(ref_loss, x)
    np.testing.assert_allclose(ms.grad(loss)(x), want, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(ms.jit(ms.grad(loss))(x), want, rtol=1e-6, atol=1e-7)


def test_topk_grad_scatters_to_the_selected_positions():
    r = rng(12)
    x = r.standard_normal((3, 7))
    w = r.standard_normal((3, 2))

    def loss(x):
        return ops.reduce_sum(ops.topk(x, 2)[0] * w)

    _, i = ref_sort(x, 1, True)
    want = np.zeros_like(x)
    np.put_along_axis(want, i[:, :2], w, 1)
    np.testing.assert_allclose(ms.jit(ms.grad(loss))(x), want, rtol=1e-12)


def test_vmap():
    r = rng(13)
    xs = r.standard_normal((3, 5, 4)).astype(np.float32)
    v, i = ms.vmap(lambda x: ops.sort(x, axis=0, descending=True))(xs)
    ev, ei = ref_sort(xs, 1, True)
    np.testing.assert_array_equal(v, ev)
    np.testing.assert_array_equal(i, ei)
    top = ms.vmap(lambda x: ops.topk(x, 2)[1], in_axes=1)(xs)       # batch over dim 1
    np.testing.assert_array_equal(top, np.stack([ref_sort(xs[:, b], 1, True)[1][:, :2]
                                                 for b in range(5)]))


def test_input_not_modified():
    """The network sorts a fresh buffer in place, never the caller's array."""
    x = rng(14).standard_normal((8, 3)).astype(np.float32)
    keep = x.copy()
    v, _ = ms.jit(lambda t: ops.sort(t, axis=0))(x)
    np.testing.assert_array_equal(x, keep)
    np.testing.assert_array_equal(v, np.sort(keep, axis=0))
