"""msmlir.numpy reductions, cumulative ops and linear algebra vs numpy (eager)."""
import numpy as np
import pytest

import msmlir.numpy as mnp

RNG = np.random.default_rng(1)
X = RNG.uniform(-1, 1, (2, 3, 4)).astype(np.float32)
XN = X.copy()
XN[0, 1, 2] = XN[1, 0, 0] = XN[1, 2, 3] = np.nan
XI = RNG.integers(-5, 6, (2, 3, 4)).astype(np.int32)


def _close(got, want, rtol=1e-5, atol=1e-6):
    got = np.asarray(got)
    want = np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True)


AXES = [(None, False), (1, False), ((0, 2), True), (-1, True)]
FLOAT_RED = [
    ("sum", np.sum, X), ("mean", np.mean, X), ("prod", np.prod, X), ("amax", np.amax, X),
    ("amin", np.amin, X), ("ptp", np.ptp, X), ("var", np.var, X), ("std", np.std, X),
    ("nansum", np.nansum, XN), ("nanmean", np.nanmean, XN), ("nanmax", np.nanmax, XN),
    ("nanmin", np.nanmin, XN), ("nanvar", np.nanvar, XN), ("nanstd", np.nanstd, XN),
    ("amax", np.amax, XN),  # nan-propagating
]


@pytest.mark.parametrize("axis,keepdims", AXES, ids=[str(a) for a in AXES])
@pytest.mark.parametrize("name,ref,x", FLOAT_RED, ids=[f[0] + ("_nan" if f[2] is XN else "")
                                                       for f in FLOAT_RED])
def test_float_reductions(name, ref, x, axis, keepdims):
    got = getattr(mnp, name)(x, axis=axis, keepdims=keepdims)
    want = ref(x, axis=axis, keepdims=keepdims)
    assert np.asarray(got).dtype == np.float32
    _close(got, want)


def test_reduction_options_and_aliases():
    _close(mnp.mean(X, 1, True), np.mean(X, 1, keepdims=True))  # mindspore order: keepdims, dtype
    _close(mnp.var(X, axis=1, ddof=1), np.var(X, axis=1, ddof=1))
    _close(mnp.std(X, ddof=1), np.std(X, ddof=1))
    _close(mnp.sum(X, axis=0, initial=2.0), np.sum(X, axis=0, initial=2.0))
    _close(mnp.amax(X, axis=2, initial=0.5), np.amax(X, axis=2, initial=0.5))
    _close(mnp.max(X, axis=1), np.max(X, axis=1))
    _close(mnp.min(X), np.min(X))
    _close(mnp.sum(X, axis=()), X)


def test_integer_and_bool_reductions():
    s = mnp.sum(XI, axis=1)
    assert s.dtype == np.int32
    np.testing.assert_array_equal(s, XI.sum(axis=1))
    b = XI > 0
    sb = mnp.sum(b, axis=(0, 2))
    assert sb.dtype == np.int32
    np.testing.assert_array_equal(sb, b.sum(axis=(0, 2)))
    m = mnp.mean(XI, axis=0)
    assert m.dtype == np.float32
    _close(m, XI.mean(axis=0))
    np.testing.assert_array_equal(mnp.amax(XI, axis=-1), XI.max(axis=-1))
    np.testing.assert_array_equal(mnp.prod(XI[:, :, :2], axis=2), XI[:, :, :2].prod(axis=2))
    np.testing.assert_array_equal(mnp.ptp(XI, axis=0), np.ptp(XI, axis=0))
    c = mnp.count_nonzero(XI, axis=1)
    assert c.dtype == np.int32
    np.testing.assert_array_equal(c, np.count_nonzero(XI, axis=1))
    assert int(mnp.count_nonzero(XI)) == np.count_nonzero(XI)


def test_argmax_argmin():
    y = RNG.permutation(24).reshape(2, 3, 4).astype(np.float32)
    for axis in (None, 0, 2, -2):
        np.testing.assert_array_equal(mnp.argmax(y, axis), np.argmax(y, axis))
        np.testing.assert_array_equal(mnp.argmin(y, axis), np.argmin(y, axis))
    assert np.asarray(mnp.argmax(y)).dtype == np.int64     # as MindSpore 2.10 (measured, issue 12)


def test_average():
    w = RNG.uniform(0.5, 2, 4).astype(np.float32)
    _close(mnp.average(X, axis=2, weights=w), np.average(X, axis=2, weights=w))
    w3 = RNG.uniform(0.5, 2, X.shape).astype(np.float32)
    _close(mnp.average(X, weights=w3), np.average(X, weights=w3))
    avg, ws = mnp.average(X, axis=1, weights=np.array([1.0, 2.0, 3.0], np.float32), returned=True)
    a2, w2 = np.average(X, axis=1, weights=[1.0, 2.0, 3.0], returned=True)
    _close(avg, a2)
    _close(ws, w2)
    _close(mnp.average(X, axis=0), np.average(X, axis=0))


@pytest.mark.parametrize("axis", [None, 0, 2])
def test_cumulative(axis):
    _close(mnp.cumsum(X, axis), np.cumsum(X, axis))
    _close(mnp.cumprod(X + 1.0, axis), np.cumprod(X + 1.0, axis))
    np.testing.assert_array_equal(mnp.cumsum(XI, axis), np.cumsum(XI, axis))


def test_cumulative_dtypes_and_nan():
    b = np.array([True, False, True, True, True, False, True])
    r = mnp.cumsum(b)
    assert r.dtype == np.int32
    np.testing.assert_array_equal(r, np.cumsum(b))
    v = np.arange(1, 40, dtype=np.float32)  # 39 elements: 6 scan steps
    _close(mnp.cumsum(v), np.cumsum(v))
    _close(mnp.nancumsum(XN, axis=1), np.nancumsum(XN, axis=1))
    np.testing.assert_allclose(mnp.cumsum(XI, axis=1, dtype=mnp.float32), np.cumsum(XI, axis=1))


def test_diff_family():
    _close(mnp.diff(X), np.diff(X))
    _close(mnp.diff(X, n=2, axis=1), np.diff(X, n=2, axis=1))
    _close(mnp.diff(X, axis=0, prepend=0.0, append=X[:1]), np.diff(X, axis=0, prepend=0.0, append=X[:1]))
    b = np.array([True, False, False, True])
    np.testing.assert_array_equal(mnp.diff(b), np.diff(b))
    v = np.array([1, 4, 9, 16], np.int32)
    np.testing.assert_array_equal(mnp.ediff1d(v, to_begin=-1, to_end=[7, 8]),
                                  np.ediff1d(v, to_begin=-1, to_end=[7, 8]))
    trapezoid = getattr(np, "trapezoid", None) or np.trapz
    _close(mnp.trapz(X, axis=1), trapezoid(X, axis=1))
    xs = np.array([0.0, 0.5, 1.5, 3.0], np.float32)
    _close(mnp.trapz(X, xs), trapezoid(X, xs))


def test_trace():
    _close(mnp.trace(X), np.trace(X))
    _close(mnp.trace(X, offset=1, axis1=1, axis2=2), np.trace(X, offset=1, axis1=1, axis2=2))
    np.testing.assert_array_equal(mnp.trace(XI[0], offset=-1), np.trace(XI[0], offset=-1))


A2 = RNG.uniform(-1, 1, (3, 4)).astype(np.float32)
B2 = RNG.uniform(-1, 1, (4, 5)).astype(np.float32)
V4 = RNG.uniform(-1, 1, 4).astype(np.float32)
W4 = RNG.uniform(-1, 1, 4).astype(np.float32)
B3 = RNG.uniform(-1, 1, (2, 4, 5)).astype(np.float32)


def test_dot_and_matmul():
    _close(mnp.dot(A2, B2), np.dot(A2, B2))
    _close(mnp.dot(V4, W4), np.dot(V4, W4))
    _close(mnp.dot(A2, V4), np.dot(A2, V4))
    _close(mnp.dot(X, B3), np.dot(X, B3))          # N-D . M-D
    _close(mnp.dot(2.0, A2), np.dot(2.0, A2))
    _close(mnp.matmul(A2, B3), np.matmul(A2, B3))  # broadcast batch
    _close(mnp.matmul(V4, B3), np.matmul(V4, B3))
    _close(mnp.matmul(A2, V4), np.matmul(A2, V4))
    ai, bi = XI[0], XI[1].T
    np.testing.assert_array_equal(mnp.matmul(ai, bi), ai @ bi)


def test_products():
    _close(mnp.vdot(A2, A2), np.vdot(A2, A2))
    _close(mnp.inner(A2, X), np.inner(A2, X))
    _close(mnp.inner(V4, W4), np.inner(V4, W4))
    _close(mnp.outer(A2, V4), np.outer(A2, V4))
    _close(mnp.tensordot(X, B3, axes=([0, 2], [0, 1])), np.tensordot(X, B3, axes=([0, 2], [0, 1])))
    _close(mnp.tensordot(A2, B2, axes=1), np.tensordot(A2, B2, axes=1))
    _close(mnp.tensordot(X, X, axes=3), np.tensordot(X, X, axes=3))
    _close(mnp.tensordot(V4, W4, axes=0), np.tensordot(V4, W4, axes=0))
    np.testing.assert_array_equal(mnp.kron(XI[0], XI[1, :2]), np.kron(XI[0], XI[1, :2]))
    _close(mnp.kron(V4, A2), np.kron(V4, A2))
    _close(mnp.multi_dot([A2, B2, B2.T, V4]), np.linalg.multi_dot([A2, B2, B2.T, V4]))


def test_cross():
    a = RNG.uniform(-1, 1, (4, 3)).astype(np.float32)
    b = RNG.uniform(-1, 1, (4, 3)).astype(np.float32)
    _close(mnp.cross(a, b), np.cross(a, b))
    _close(mnp.cross(a.T, b, axisa=0), np.cross(a.T, b, axisa=0))
    a2 = np.pad(a[:, :2], ((0, 0), (0, 1)))  # a 2-vector is a 3-vector with z = 0
    _close(mnp.cross(a[:, :2], b), np.cross(a2, b))
    _close(mnp.cross(a, b, axisc=0), np.cross(a, b, axisc=0))


def test_searchsorted():
    a = np.array([1.0, 2.0, 2.0, 3.5, 7.0], np.float32)
    v = np.array([[0.0, 2.0, 8.0], [3.5, 2.5, 1.0]], np.float32)
    for side in ("left", "right"):
        np.testing.assert_array_equal(mnp.searchsorted(a, v, side=side), np.searchsorted(a, v, side=side))
    perm = np.array([3, 0, 4, 2, 1], np.int32)
    shuffled = np.empty_like(a)
    shuffled[perm] = a
    np.testing.assert_array_equal(mnp.searchsorted(shuffled, v, sorter=perm),
                                  np.searchsorted(shuffled, v, sorter=perm))


def test_cov_corrcoef_matrix_power():
    m = RNG.uniform(-1, 1, (3, 6)).astype(np.float32)
    y = RNG.uniform(-1, 1, 6).astype(np.float32)
    _close(mnp.cov(m), np.cov(m))
    _close(mnp.cov(m.T, rowvar=False, bias=True), np.cov(m.T, rowvar=False, bias=True))
    _close(mnp.cov(m[0], y, ddof=0), np.cov(m[0], y, ddof=0))
    _close(mnp.cov(y), np.cov(y))
    _close(mnp.corrcoef(m, y), np.corrcoef(m, y))
    sq = RNG.uniform(-1, 1, (2, 3, 3)).astype(np.float32)
    for n in (0, 1, 2, 5):
        _close(mnp.matrix_power(sq, n), np.linalg.matrix_power(sq, n))
    np.testing.assert_array_equal(mnp.matrix_power(XI[0, :3, :3], 3), np.linalg.matrix_power(XI[0, :3, :3], 3))
