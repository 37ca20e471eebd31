"""The functional ops of MindSpore's `ops` that msmlir composes in
msmlir/ops/functional.py (found as `ops.<name>` through providers.py): each
against numpy with MindSpore's documented semantics, eagerly and inside jit."""
import math

import numpy as np
import pytest

import msmlir as ms
from msmlir import ops
from support.numpy_refs import adaptive_avg_pool2d

RS = np.random.RandomState(3)


def f32(*shape):
    return RS.randn(*shape).astype(np.float32)


def T(a):
    return ms.Tensor(a)


X, Y = f32(3, 4), f32(3, 4)
U = (RS.rand(3, 4) * 0.8 + 0.1).astype(np.float32)    # in (0, 1)
P = (RS.rand(3, 4) + 0.5).astype(np.float32)
V, W = f32(4), f32(5)
IMG = f32(1, 2, 5, 6)


def _nearest(x, size):
    h, w = x.shape[2:]
    hi = np.minimum(np.floor(np.arange(size[0]) * h / size[0]), h - 1).astype(int)
    wi = np.minimum(np.floor(np.arange(size[1]) * w / size[1]), w - 1).astype(int)
    return x[:, :, hi][:, :, :, wi]


def _kl(x, y, red):
    loss = np.where(y == 0, 0, y * np.log(np.where(y == 0, 1, y))) - y * x
    return {"none": loss, "sum": loss.sum(), "mean": loss.mean(),
            "batchmean": loss.sum() / x.shape[0]}[red]


SELU_A, SELU_S = 1.67326324, 1.05070098

# (name, inputs, kwargs, numpy reference)
CASES = [
    ("acos", (U,), {}, np.arccos), ("acosh", (P + 1,), {}, np.arccosh),
    ("asin", (U,), {}, np.arcsin), ("asinh", (X,), {}, np.arcsinh),
    ("atan", (X,), {}, np.arctan), ("atanh", (U,), {}, np.arctanh),
    ("atan2", (X, Y), {}, np.arctan2), ("cosh", (X,), {}, np.cosh),
    ("sinh", (X,), {}, np.sinh), ("tan", (U,), {}, np.tan),
    ("arccos", (U,), {}, np.arccos), ("arcsin", (U,), {}, np.arcsin),
    ("arctan", (X,), {}, np.arctan), ("arctan2", (X, Y), {}, np.arctan2),
    ("inv", (P,), {}, np.reciprocal),
    ("lerp", (X, Y, U), {}, lambda a, b, w: a + w * (b - a)),
    ("logit", (U,), {}, lambda x: np.log(x / (1 - x))),
    ("logit", (U,), {"eps": 0.3}, lambda x, eps: np.log(np.clip(x, .3, .7) / (1 - np.clip(x, .3, .7)))),
    ("xlogy", (np.float32([0, 1, 2]), np.float32([0.5, 2, 3])), {},
     lambda x, y: np.where(x == 0, 0, x * np.log(y))),
    ("xdivy", (np.float32([0, 1, 2]), np.float32([0.0, 2, 4])), {},
     lambda x, y: np.where(x == 0, 0, x / np.where(y == 0, 1, y))),
    ("truncate_div", (X * 5, P), {}, lambda x, y: np.trunc(x / y)),
    ("truncate_mod", (X * 5, P), {}, np.fmod),
    ("approximate_equal", (X, X + np.float32(1e-6) * (RS.rand(3, 4) > 0.5)), {"tolerance": 1e-5},
     lambda x, y, tolerance: np.abs(x - y) < 1e-5),
    ("isclose", (X, X + 1e-3 * (RS.rand(3, 4) > 0.5).astype(np.float32)), {},
     lambda a, b: np.isclose(a, b)),
    ("std", (X,), {"axis": 1, "ddof": 1}, lambda x, axis, ddof: x.std(1, ddof=1)),
    ("var", (X,), {"axis": 0, "keepdims": True}, lambda x, axis, keepdims: x.var(0, keepdims=True)),
    ("norm", (X,), {}, lambda x: np.sqrt((x ** 2).sum())),
    ("norm", (X,), {"ord": 1.0, "dim": 1}, lambda x, ord, dim: np.abs(x).sum(1)),
    ("norm", (X,), {"ord": float("inf"), "dim": 0}, lambda x, ord, dim: np.abs(x).max(0)),
    ("dot", (X, f32(4, 2)), {}, np.dot),
    ("tensor_dot", (f32(2, 3, 4), f32(4, 3, 5), ((1, 2), (1, 0))), {},
     lambda a, b, ax: np.tensordot(a, b, ax)),
    ("ger", (V, W), {}, np.outer),
    ("narrow", (X, 1, 1, 2), {}, lambda x, a, s, n: x[:, 1:3]),
    ("count_nonzero", (np.float32([[0, 1, 2], [0, 0, 3]]),), {"axis": 1},
     lambda x, axis: np.count_nonzero(x, 1)),
    ("diag", (V,), {}, np.diag),
    ("repeat_elements", (X, 2), {"axis": 1}, lambda x, r, axis: np.repeat(x, 2, 1)),
    ("inplace_update", (X, Y[:2], (2, 0)), {},
     lambda x, v, i: np.stack([v[1], x[1], v[0]])),
    ("inplace_add", (X, Y[:2], (2, 0)), {},
     lambda x, v, i: np.stack([x[0] + v[1], x[1], x[2] + v[0]])),
    ("inplace_sub", (X, Y[:1], (1,)), {}, lambda x, v, i: np.stack([x[0], x[1] - v[0], x[2]])),
    ("matrix_band_part", (f32(2, 4, 5), 1, 2), {},
     lambda x, lo, up: x * ((np.arange(4)[:, None] - np.arange(5)[None] <= 1) &
                            (np.arange(5)[None] - np.arange(4)[:, None] <= 2))),
    ("celu", (X,), {"alpha": 0.5}, lambda x, alpha: np.maximum(x, 0) + np.minimum(0.5 * np.expm1(x / 0.5), 0)),
    ("selu", (X,), {}, lambda x: SELU_S * (np.maximum(x, 0) + np.minimum(SELU_A * np.expm1(x), 0))),
    ("fast_gelu", (X,), {}, lambda x: x / (1 + np.exp(-1.702 * x))),
    ("hardswish", (X * 4,), {}, lambda x: x * np.clip(x + 3, 0, 6) / 6),
    ("hardsigmoid", (X * 4,), {}, lambda x: np.clip(x + 3, 0, 6) / 6),
    ("hardshrink", (X,), {"lambd": 0.6}, lambda x, lambd: np.where(np.abs(x) > 0.6, x, 0)),
    ("soft_shrink", (X,), {}, lambda x: np.where(np.abs(x) > 0.5, x - 0.5 * np.sign(x), 0)),
    ("mish", (X,), {}, lambda x: x * np.tanh(np.log1p(np.exp(x)))),
    ("softsign", (X,), {}, lambda x: x / (1 + np.abs(x))),
    ("prelu", (IMG, np.float32([0.1, 0.3])), {},
     lambda x, w: np.maximum(x, 0) + w[None, :, None, None] * np.minimum(x, 0)),
    ("kl_div", (np.log(U), U[::-1].copy()), {"reduction": "batchmean"},
     lambda x, y, reduction: _kl(x, y, "batchmean")),
    ("kl_div", (X, np.float32([[0, .5, .5, 0]] * 3)), {"reduction": "none"},
     lambda x, y, reduction: _kl(x, y, "none")),
    ("cdist", (f32(2, 3, 4), f32(2, 5, 4)), {},
     lambda a, b: np.sqrt(((a[:, :, None] - b[:, None]) ** 2).sum(-1))),
    ("cdist", (f32(3, 4), f32(5, 4)), {"p": 1.0},
     lambda a, b, p: np.abs(a[:, None] - b[None]).sum(-1)),
    ("adaptive_avg_pool2d", (IMG, (3, 4)), {}, lambda x, s: adaptive_avg_pool2d(x, 3, 4)),
    ("adaptive_avg_pool2d", (IMG, (None, 2)), {}, lambda x, s: adaptive_avg_pool2d(x, 5, 2)),
    ("adaptive_avg_pool1d", (f32(2, 3, 7), 3), {},
     lambda x, n: adaptive_avg_pool2d(x[:, :, None, :], 1, 3)[:, :, 0]),
    ("interpolate", (IMG,), {"size": (7, 9)}, lambda x, size: _nearest(x, (7, 9))),
    ("interpolate", (IMG,), {"scale_factor": 2.0}, lambda x, scale_factor: _nearest(x, (10, 12))),
    ("fills", (X, 2.5), {}, lambda x, v: np.full_like(x, 2.5)),
    ("expand", (V, (3, 4)), {}, lambda v, s: np.broadcast_to(v, (3, 4))),
    ("top_k", (X, 2), {}, lambda x, k: (-np.sort(-x, 1)[:, :2], np.argsort(-x, 1, kind="stable")[:, :2])),
    ("accumulate_n", ([X, Y, X],), {}, lambda xs: xs[0] + xs[1] + xs[2]),
    ("dyn_shape", (X,), {}, lambda x: np.array([3, 4])),
    ("tensor_scatter_elements", (X, np.array([[1, 0], [3, -3], [0, 2]], np.int32), Y[:, :2], 1),
     {}, lambda x, i, u, a: _scatter_elements(x, i, u, 1, "none")),
    ("tensor_scatter_elements", (X, np.array([[2, 0, 1, 1], [0, 0, 0, 0]], np.int32), Y[:2], 0),
     {"reduction": "add"}, lambda x, i, u, a, reduction: _scatter_elements(x, i, u, 0, "add")),
    ("unsorted_segment_sum", (X, np.array([1, 0, 1], np.int32), 3), {},
     lambda x, i, n: np.stack([x[1], x[0] + x[2], np.zeros(4)])),
    ("erfc", (X,), {}, lambda x: 1 - np.vectorize(math.erf)(x)),
    ("tensor_scatter_add", (X, np.array([[2], [2]], np.int32), Y[:2]), {},
     lambda x, i, u: np.stack([x[0], x[1], x[2] + u[0] + u[1]])),
    ("tensor_scatter_sub", (X, np.array([[0, 1]], np.int32), np.float32([3])), {},
     lambda x, i, u: x - 3 * (np.arange(12).reshape(3, 4) == 1)),
    ("index_add", (X, np.array([1, 1], np.int32), Y[:2], 0), {},
     lambda x, i, y, a: np.stack([x[0], x[1] + y[0] + y[1], x[2]])),
    ("index_fill", (X, 1, np.array([3, 0], np.int32), -2.0), {},
     lambda x, a, i, v: np.where(np.isin(np.arange(4), [0, 3])[None], -2.0, x)),
    ("avg_pool1d", (f32(2, 3, 9), 3, 2), {},
     lambda x, k, s: np.stack([x[..., i:i + 3].mean(-1) for i in range(0, 7, 2)], -1)),
    ("max_pool1d", (f32(2, 3, 9), 2), {"ceil_mode": True},
     lambda x, k, ceil_mode: np.stack([x[..., i:i + 2].max(-1) for i in range(0, 9, 2)], -1)),
    ("blackman_window", (6,), {}, lambda n: np.blackman(7)[:6]),
]


def _scatter_elements(x, idx, upd, axis, reduction):
    out = x.astype(np.float64).copy()
    n = x.shape[axis]
    for pos in np.ndindex(*idx.shape):
        tgt = list(pos)
        tgt[axis] = idx[pos] % n
        if reduction == "add":
            out[tuple(tgt)] += upd[pos]
        else:
            out[tuple(tgt)] = upd[pos]
    return out


def _cmp(got, ref):
    if isinstance(ref, tuple):
        for g, r in zip(got, ref):
            _cmp(g, r)
        return
    got = got.asnumpy() if hasattr(got, "asnumpy") else np.asarray(got)
    ref = np.asarray(ref)
    assert got.shape == ref.shape, (got.shape, ref.shape)
    if ref.dtype == bool:
        np.testing.assert_array_equal(got, ref)
    else:
        np.testing.assert_allclose(got, ref, rtol=2e-5, atol=2e-5)


def _to(a):
    if isinstance(a, np.ndarray):
        return T(a)
    if isinstance(a, list):
        return [T(e) for e in a]
    return a


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_functional_op(case):
    name, args, kwargs, ref = case
    fn = getattr(ops, name)
    expected = ref(*args, *kwargs.values())
    _cmp(fn(*[_to(a) for a in args], **kwargs), expected)
    tensors = [i for i, a in enumerate(args) if isinstance(a, np.ndarray)]

    def jitted(*ts):
        full = list(args)
        for i, t in zip(tensors, ts):
            full[i] = t
        return fn(*[_to(a) if not hasattr(a, "asnumpy") else a for a in full], **kwargs)
    _cmp(ms.jit(jitted)(*[T(args[i]) for i in tensors]), expected)


def test_meshgrid_range_and_random_forms():
    a, b = f32(3), f32(4)
    for got, ref in zip(ops.meshgrid(T(a), T(b), indexing="ij"), np.meshgrid(a, b, indexing="ij")):
        np.testing.assert_array_equal(got.asnumpy(), ref)
    for got, ref in zip(ops.meshgrid((T(a), T(b))), np.meshgrid(a, b)):
        np.testing.assert_array_equal(got.asnumpy(), ref)
    np.testing.assert_array_equal(ops.range(1, 9, 3).asnumpy(), [1, 4, 7])
    n = ops.normal((4000,), 2.0, 0.5, seed=3).asnumpy()
    assert abs(n.mean() - 2) < 0.05 and abs(n.std() - 0.5) < 0.05
    m = ops.sequence_mask(T(np.array([1, 3], np.int32)), 4).asnumpy()
    np.testing.assert_array_equal(m, [[1, 0, 0, 0], [1, 1, 1, 0]])
    v = ms.Parameter(T(np.float32([1, 2])), name="v")
    ops.assign_add(v, T(np.float32([1, 1])))
    ops.assign_sub(v, T(np.float32([0.5, 0.5])))
    np.testing.assert_allclose(v.asnumpy(), [1.5, 2.5])


def test_errors_of_composed_ops():
    with pytest.raises(ValueError, match="ord"):
        ops.norm(T(X), ord=-2)
    with pytest.raises(ValueError, match="exactly one"):
        ops.interpolate(T(IMG))
    with pytest.raises(ValueError, match="reduction"):
        ops.kl_div(T(X), T(U), "avg")
    with pytest.raises(ValueError, match="mode"):
        ops.interpolate(T(IMG), size=3, mode="bicubic")
    assert math.isfinite(float(ops.norm(T(X)).asnumpy()))


def test_multinomial():
    p = T(np.float32([0, 9, 4, 0]))
    r = ops.multinomial(p, 6000).asnumpy()
    assert r.shape == (6000,) and r.dtype == np.int32
    freq = np.bincount(r, minlength=4) / 6000
    np.testing.assert_allclose(freq, [0, 9 / 13, 4 / 13, 0], atol=0.03)
    rows = ops.multinomial(T(np.float32([[0, 9, 4, 0], [1, 1, 1, 1]])), 4, False).asnumpy()
    assert rows.shape == (2, 4)
    assert sorted(rows[1].tolist()) == [0, 1, 2, 3]          # without replacement: a permutation
    assert set(rows[0, :2].tolist()) == {1, 2}               # the non-zero weights come first
    with pytest.raises(ValueError, match="at most"):
        ops.multinomial(p, 5, False)


def test_parameter_scatters_dropout2d_bernoulli_laplace():
    def par(a):
        return ms.Parameter(T(a.copy()), name="p")
    v = par(X)
    ops.scatter_nd_add(v, T(np.array([[1, 1]], np.int32)), T(np.float32([2])))
    assert v.asnumpy()[1, 1] == np.float32(X[1, 1] + 2)
    v = par(X)
    ops.scatter_nd_sub(v, T(np.array([[0]], np.int32)), T(Y[:1]))
    np.testing.assert_allclose(v.asnumpy()[0], X[0] - Y[0], rtol=1e-6)
    v = par(X)
    ops.scatter_add(v, T(np.array([2, 2], np.int32)), T(Y[:2]))
    np.testing.assert_allclose(v.asnumpy()[2], X[2] + Y[0] + Y[1], rtol=1e-6)
    v = par(X)
    ops.scatter_sub(v, T(np.array([0], np.int32)), T(Y[:1]))
    np.testing.assert_allclose(v.asnumpy()[0], X[0] - Y[0], rtol=1e-6)
    v = par(X)
    ops.scatter_update(v, T(np.array([1], np.int32)), T(Y[:1]))
    np.testing.assert_allclose(v.asnumpy()[1], Y[0])
    x = T(np.ones((4, 50, 2, 2), np.float32))
    out = ops.dropout2d(x, 0.4).asnumpy()
    per_channel = out.reshape(4, 50, 4)
    assert np.all((per_channel == 0).all(-1) | (np.abs(per_channel - 1 / 0.6) < 1e-6).all(-1))
    assert 0.45 < (per_channel[..., 0] > 0).mean() < 0.75
    np.testing.assert_array_equal(ops.dropout2d(x, 0.4, False).asnumpy(), x.asnumpy())
    assert ops.dropout3d(T(np.ones((2, 3, 2, 2, 2), np.float32)), 0.5).shape == (2, 3, 2, 2, 2)
    b = ops.bernoulli(T(np.zeros(5000, np.float32)), 0.3).asnumpy()
    assert set(np.unique(b)) <= {0.0, 1.0} and abs(b.mean() - 0.3) < 0.03
    lap = ops.standard_laplace((6000,), 4).asnumpy()
    assert abs(np.abs(lap).mean() - 1) < 0.08
    with pytest.raises(ValueError, match="p must be"):
        ops.dropout2d(x, 1.5)
