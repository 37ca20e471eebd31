"""MindSpore Tensor methods added by msmlir/ops/tensor_extra.py (stubs in the
tensor-method table): each against numpy with MindSpore's documented semantics,
in PyNative mode and inside jit (the same table entry)."""
import numpy as np
import pytest

import msmlir as ms
from msmlir.ops import tensor_methods
from msmlir.ops.tensor_extra import TENSOR_METHODS

RS = np.random.RandomState(5)


def f32(*shape):
    return RS.randn(*shape).astype(np.float32)


X = f32(3, 4)
Y = f32(3, 4)
U = (RS.rand(3, 4) * 0.8 + 0.1).astype(np.float32)
P = (RS.rand(3, 4) + 0.5).astype(np.float32)
SQ = f32(3, 3)
B1, B2 = f32(2, 3, 4), f32(2, 4, 5)
V3, W3 = f32(4, 3), f32(4, 3)
IDS = np.array([0, 2, 0], np.int32)


def _sinc(x):
    return np.sinc(x)


def _resize(x, shape):
    flat = x.reshape(-1)
    n = int(np.prod(shape))
    flat = np.concatenate([flat, np.zeros(max(0, n - flat.size), x.dtype)])[:n]
    return flat.reshape(shape)


def _seg(x, ids, n, fn, fill):
    out = np.full((n,) + x.shape[1:], fill, np.float64)
    for s in range(n):
        rows = x[ids == s]
        if len(rows):
            out[s] = fn(rows, 0)
    return out


# (method, self, args, kwargs, numpy reference of (self, *args))
CASES = [
    ("acos", U, (), {}, np.arccos), ("arccos", U, (), {}, np.arccos),
    ("asin", U, (), {}, np.arcsin), ("arcsin", U, (), {}, np.arcsin),
    ("atan", X, (), {}, np.arctan), ("arctan", X, (), {}, np.arctan),
    ("asinh", X, (), {}, np.arcsinh), ("arcsinh", X, (), {}, np.arcsinh),
    ("atanh", U, (), {}, np.arctanh), ("arctanh", U, (), {}, np.arctanh),
    ("arccosh", P + 1, (), {}, np.arccosh), ("cosh", X, (), {}, np.cosh),
    ("tan", U, (), {}, np.tan), ("atan2", X, (Y,), {}, np.arctan2),
    ("arctan2", X, (Y,), {}, np.arctan2), ("inv", P, (), {}, np.reciprocal),
    ("logit", U, (), {}, lambda x: np.log(x / (1 - x))),
    ("xdivy", np.float32([0, 1, 2]), (np.float32([1, 2, 4]),), {}, lambda x, y: x / y),
    ("xlogy", np.float32([0, 1, 2]), (np.float32([1, 2, 4]),), {}, lambda x, y: x * np.log(y)),
    ("lerp", X, (Y, 0.25), {}, lambda x, y, w: x + w * (y - x)),
    ("hardshrink", X, (), {}, lambda x: np.where(np.abs(x) > 0.5, x, 0)),
    ("soft_shrink", X, (0.3,), {}, lambda x, l: np.where(np.abs(x) > l, x - l * np.sign(x), 0)),
    ("approximate_equal", X, (X,), {}, lambda x, y: np.ones(x.shape, bool)),
    ("isclose", X, (X + 1e-9,), {}, np.isclose),
    ("erfc", np.float32([0, 0.5, -1]), (), {}, lambda x: 1 - np.array([0, 0.5204999, -0.8427008])),
    ("sgn", X, (), {}, np.sign), ("positive", X, (), {}, lambda x: x),
    ("sinc", np.float32([0, 0.5, 1.5, -2.25]), (), {}, _sinc),
    ("nan_to_num", np.float32([np.nan, np.inf, -np.inf, 1]), (), {"nan": 2.0},
     lambda x, nan: np.nan_to_num(x, nan=2.0)),
    ("deg2rad", X, (), {}, np.deg2rad), ("rad2deg", X, (), {}, np.rad2deg),
    ("float_power", P, (2,), {}, lambda x, e: np.float_power(x, e)),
    ("fmod", X * 4, (P,), {}, np.fmod), ("heaviside", X, (np.float32(0.5),), {}, np.heaviside),
    ("hypot", X, (Y,), {}, np.hypot), ("isneginf", np.float32([-np.inf, 1]), (), {}, np.isneginf),
    ("isposinf", np.float32([np.inf, 1]), (), {}, np.isposinf),
    ("log10", P, (), {}, np.log10), ("log2", P, (), {}, np.log2),
    ("logaddexp", X, (Y,), {}, np.logaddexp), ("logaddexp2", X, (Y,), {}, np.logaddexp2),
    ("signbit", X, (), {}, np.signbit), ("copysign", X, (Y,), {}, np.copysign),
    ("addcdiv", X, (Y, P), {"value": 0.5}, lambda x, a, b, value: x + 0.5 * a / b),
    ("addcmul", X, (Y, P), {"value": 2}, lambda x, a, b, value: x + 2 * a * b),
    ("logsumexp", X, (1,), {}, lambda x, a: np.log(np.exp(x).sum(1))),
    ("norm", X, (), {}, lambda x: np.sqrt((x ** 2).sum())),
    ("cumsum", X, (), {}, lambda x: np.cumsum(x)), ("cumsum", X, (1,), {}, np.cumsum),
    ("cumprod", P, (0,), {}, np.cumprod),
    ("ptp", X, (1,), {}, lambda x, a: np.ptp(x, 1)),
    ("argmax_with_value", X, (1,), {}, lambda x, a: (x.argmax(1), x.max(1))),
    ("argmin_with_value", X, (), {}, lambda x: (x.argmin(0), x.min(0))),
    ("trace", SQ, (), {}, np.trace), ("msort", X, (), {}, lambda x: np.sort(x, 0)),
    ("unsorted_segment_max", X, (IDS, 3), {}, lambda x, i, n: _seg(x, IDS, 3, np.max, np.finfo(np.float32).min)),
    ("unsorted_segment_min", X, (IDS, 3), {}, lambda x, i, n: _seg(x, IDS, 3, np.min, np.finfo(np.float32).max)),
    ("unsorted_segment_prod", X, (IDS, 3), {}, lambda x, i, n: _seg(x, IDS, 3, np.prod, 1.0)),
    ("bmm", B1, (B2,), {}, np.matmul), ("mm", X, (f32(4, 2),), {}, np.matmul),
    ("ger", f32(3), (f32(4),), {}, np.outer), ("inner", X, (Y,), {}, np.inner),
    ("cross", V3, (W3,), {}, lambda a, b: np.cross(a, b)),
    ("addmm", f32(3, 2), (X, f32(4, 2)), {"beta": 0.5, "alpha": 2},
     lambda x, a, b, beta, alpha: 0.5 * x + 2 * a @ b),
    ("addmv", f32(3), (X, f32(4)), {}, lambda x, a, v: x + a @ v),
    ("addr", X, (f32(3), f32(4)), {}, lambda x, a, b: x + np.outer(a, b)),
    ("baddbmm", f32(2, 3, 5), (B1, B2), {}, lambda x, a, b: x + a @ b),
    ("addbmm", f32(3, 5), (B1, B2), {}, lambda x, a, b: x + (a @ b).sum(0)),
    ("expand", f32(4), ((3, 4),), {}, lambda x, s: np.broadcast_to(x, s)),
    ("flip", X, ((0, 1),), {}, lambda x, d: x[::-1, ::-1]),
    ("fliplr", X, (), {}, np.fliplr), ("flipud", X, (), {}, np.flipud),
    ("rot90", X, (), {}, np.rot90), ("roll", X, (1, 1), {}, lambda x, s, d: np.roll(x, 1, 1)),
    ("diag", f32(3), (), {}, np.diag), ("diagflat", f32(3), (1,), {}, np.diagflat),
    ("diagonal", SQ, (1,), {}, lambda x, o: np.diagonal(x, 1)),
    ("tril", X, (), {}, np.tril), ("triu", X, (1,), {}, np.triu),
    ("narrow", X, (1, 1, 2), {}, lambda x, a, s, n: x[:, 1:3]),
    ("gather_elements", X, (1, np.array([[0], [3], [1]], np.int32)), {},
     lambda x, d, i: np.take_along_axis(x, i, 1)),
    ("gather_nd", X, (np.array([[0, 1], [2, 3]], np.int32),), {}, lambda x, i: x[[0, 2], [1, 3]]),
    ("masked_fill", X, (X > 0, 0.0), {}, lambda x, m, v: np.where(m, 0, x)),
    ("inplace_update", X, (Y[:1], (1,)), {}, lambda x, v, i: np.stack([x[0], v[0], x[2]])),
    ("take", X, (np.array([0, 5, 11], np.int32),), {}, lambda x, i: np.take(x, i)),
    ("repeat", X, (2, 0), {}, lambda x, r, a: np.repeat(x, 2, 0)),
    ("repeat_interleave", X, (2,), {}, lambda x, r: np.repeat(x, 2)),
    ("select", X, (X > 0, Y), {}, lambda x, c, y: np.where(c, x, y)),
    ("where", X, (X > 0, Y), {}, lambda x, c, y: np.where(c, x, y)),
    ("split", X, (2, 1), {}, lambda x, s, a: tuple(np.split(x, 2, 1))),
    ("chunk", f32(5, 2), (2,), {}, lambda x, c: (x[:3], x[3:])),
    ("tensor_split", f32(5, 2), (3,), {}, lambda x, n: tuple(np.array_split(x, 3))),
    ("hsplit", X, (2,), {}, lambda x, n: tuple(np.hsplit(x, 2))),
    ("vsplit", f32(4, 2), (2,), {}, lambda x, n: tuple(np.vsplit(x, 2))),
    ("dsplit", f32(2, 2, 4), (2,), {}, lambda x, n: tuple(np.dsplit(x, 2))),
    ("unbind", X, (), {}, lambda x: tuple(x)),
    ("top_k", X, (2,), {}, lambda x, k: (-np.sort(-x, 1)[:, :2], np.argsort(-x, 1, kind="stable")[:, :2])),
    ("reshape_as", X, (f32(2, 6),), {}, lambda x, o: x.reshape(2, 6)),
    ("resize", X, ((2, 7),), {}, lambda x, s: _resize(x, s)),
    ("resize", X, ((2, 3),), {}, lambda x, s: _resize(x, s)),
    ("t", X, (), {}, lambda x: x.T),
    ("choose", np.array([[0, 1], [2, 0]], np.int32), ((f32(2, 2), f32(2, 2), f32(2, 2)),), {},
     None),
    ("fill", X, (1.5,), {}, lambda x, v: np.full_like(x, 1.5)),
    ("fills", X, (2.0,), {}, lambda x, v: np.full_like(x, 2.0)),
    ("new_ones", X, ((2, 2),), {}, lambda x, s: np.ones(s)),
    ("new_zeros", X, ((3,),), {}, lambda x, s: np.zeros(s)),
    ("searchsorted", np.float32([1, 3, 5, 7]), (np.float32([0, 3, 6]),), {},
     lambda x, v: np.searchsorted(x, v)),
    ("reverse", X, ((1,),), {}, lambda x, a: x[:, ::-1]),
    ("index_add", X, (np.array([0, 2], np.int32), Y[:, :2], 1), {},
     lambda x, i, y, a: x + np.stack([y[:, 0], 0 * y[:, 0], y[:, 1], 0 * y[:, 0]], 1)),
    ("index_fill", X, (0, np.array([1], np.int32), 2.5), {},
     lambda x, a, i, v: np.stack([x[0], np.full(4, 2.5), x[2]])),
    ("scatter_add", X, (np.array([[0], [0]], np.int32), Y[:2]), {},
     lambda x, i, u: np.stack([x[0] + u[0] + u[1], x[1], x[2]])),
    ("scatter_sub", X, (np.array([[1, 2]], np.int32), np.float32([5])), {},
     lambda x, i, u: x - 5 * (np.arange(12).reshape(3, 4) == 6)),
    ("sum_to_size", f32(2, 3, 4), (3, 1), {}, lambda x, a, b: x.sum((0, 2))[:, None]),
    ("isreal", X, (), {}, lambda x: np.ones(x.shape, bool)),
    ("real", X, (), {}, lambda x: x), ("conj", X, (), {}, lambda x: x),
    ("angle", X, (), {}, np.angle),
    ("ldexp", X, (np.int32([1, 2, 0, -1]),), {}, lambda x, e: np.ldexp(x, e)),
]


def _cmp(got, ref):
    if isinstance(ref, tuple):
        assert len(got) == len(ref)
        for g, r in zip(got, ref):
            _cmp(g, r)
        return
    got = got.asnumpy() if hasattr(got, "asnumpy") else np.asarray(got)
    ref = np.asarray(ref)
    assert got.shape == ref.shape, (got.shape, ref.shape)
    if ref.dtype == bool:
        np.testing.assert_array_equal(got, ref)
    else:
        np.testing.assert_allclose(got, ref.astype(np.float64), rtol=2e-5, atol=2e-5)


def _tensorize(a):
    if isinstance(a, np.ndarray):
        return ms.Tensor(a)
    if isinstance(a, tuple) and a and isinstance(a[0], np.ndarray):
        return tuple(ms.Tensor(e) for e in a)
    return a


def _call(name, x, *args, **kwargs):
    return getattr(x, name)(*args, **kwargs)


_jit_call = ms.jit(_call)


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_tensor_method(case):
    name, x, args, kwargs, ref = case
    if ref is None:     # choose: numpy's semantics through msmlir.numpy
        idx, choices = x, args[0]
        ref = lambda *_: np.choose(idx, choices)   # noqa: E731
    expected = ref(x, *args, *kwargs.values())
    targs = [_tensorize(a) for a in args]
    _cmp(_call(name, ms.Tensor(x), *targs, **kwargs), expected)
    _cmp(_jit_call(name, ms.Tensor(x), *targs, **kwargs), expected)


def test_properties_and_python_valued_methods():
    x = ms.Tensor(f32(2, 3, 4))
    for p in ("mT", "mH", "H", "adjoint"):
        np.testing.assert_array_equal(getattr(x, p).asnumpy(), np.swapaxes(x.asnumpy(), -2, -1))

    @ms.jit
    def f(a):
        return a.mT
    assert f(x).shape == (2, 4, 3)
    assert x.is_floating_point() and x.is_signed() and not x.is_complex()
    i = ms.Tensor(np.array([1, 2], np.int32))
    assert not i.is_floating_point() and i.is_signed()
    assert ms.Tensor(np.array([1], np.uint8)).is_signed() is False
    s = ms.Tensor(np.float32([1.7, -2.5])).short()
    assert s.dtype == ms.int16 and s.asnumpy().tolist() == [1, -2]
    assert x.set_const_arg() is x and x.const_arg is True


def test_delegated_names_have_implementations():
    assert set(tensor_methods.DELEGATED) == set(TENSOR_METHODS)
    tested = {c[0] for c in CASES} | {"mT", "mH", "H", "adjoint", "is_floating_point",
                                      "is_signed", "is_complex", "short", "set_const_arg",
                                      # test/python/ops/test_usage_gap_ops.py
                                      "nonzero", "masked_select", "unique", "bincount",
                                      "reverse_sequence"}
    # test/python/ops/test_tensor_methods_more.py
    tested |= {"unfold", "fold", "col2im", "median", "as_strided", "renorm", "cummax", "cummin",
               "random_categorical", "bernoulli", "lcm", "det", "matrix_determinant", "slogdet",
               "log_matrix_determinant", "logdet", "inverse", "cholesky", "cholesky_inverse",
               "lgamma", "digamma", "erfinv", "scatter_mul", "scatter_div", "scatter_max",
               "scatter_min", "to_tensor", "flush_from_cache", "itemset", "unique_with_pad",
               "i0", "igamma", "igammac", "unique_consecutive", "svd",
               "to_coo", "to_csr"}
    # test/python/ops/test_tensor_methods_2x.py, test_tensor_inplace.py (MindSpore 2.x names)
    from msmlir.ops.tensor_extra import COMPUTE, INPLACE, PYTHON
    tested |= set(COMPUTE) | set(INPLACE) | set(PYTHON)
    assert set(TENSOR_METHODS) - tested == set()
