"""MindSpore 2.x Tensor methods added for issue 12 (msmlir/ops/tensor_extra.py), against
numpy transcriptions of MindSpore's documented semantics: elementwise, nan-aware
reductions and quantiles, scatters into slices / diagonals / masks, triangular /
Cholesky / LU solves and QR; in PyNative and inside jit, with a bad argument each."""
import numpy as np
import pytest

import msmlir as ms

RNG = np.random.default_rng(12)


def T(a):
    return ms.Tensor(a)


def both(method, x, *args, **kwargs):
    """The method's result in PyNative and inside jit (numpy arrays / tuples of them)."""
    eager = getattr(T(x), method)(*args, **kwargs)
    graph = ms.jit(lambda t: getattr(t, method)(*args, **kwargs))(T(x))

    def np_(r):
        return tuple(np_(e) for e in r) if isinstance(r, tuple) else r.asnumpy()
    return np_(eager), np_(graph)


def test_elementwise():
    x = RNG.uniform(1.2, 4.0, (3, 4))
    for m, ref in [("acosh", np.arccosh), ("sinh", np.sinh), ("frac", lambda a: a - np.trunc(a)),
                   ("imag", np.zeros_like), ("clone", lambda a: a)]:
        for got in both(m, x * (-1 if m == "frac" else 1)):
            np.testing.assert_allclose(got, ref(x * (-1 if m == "frac" else 1)), rtol=1e-12)
    y = RNG.standard_normal((3, 4))
    y[0, 0] = np.nan
    np.testing.assert_array_equal(T(x).fmax(T(y)).asnumpy(), np.fmax(x, y))
    np.testing.assert_array_equal(T(x).fmin(T(y)).asnumpy(), np.fmin(x, y))
    a, b = np.array([12, 18, -7, 0]), np.array([8, 27, 21, 5])
    np.testing.assert_array_equal(T(a).gcd(T(b)).asnumpy(), np.gcd(a, b))
    assert bool(T(x).allclose(T(x + 1e-9)).asnumpy()) and not bool(T(x).allclose(T(x + 1e-3)))


def test_mvlgamma_against_scipy():
    sc = pytest.importorskip("scipy.special")
    x = RNG.uniform(2.0, 6.0, (5,))
    for got in both("mvlgamma", x, 3):
        np.testing.assert_allclose(got, sc.multigammaln(x[:, None], 3)[:, 0]
                                   if False else [sc.multigammaln(v, 3) for v in x], rtol=1e-9)
    with pytest.raises(ValueError, match="p must be >= 1"):
        T(x).mvlgamma(0)


def test_reductions():
    x = RNG.standard_normal((4, 5))
    lo, hi = T(x).aminmax(axis=1)
    np.testing.assert_array_equal(lo.asnumpy(), x.min(1))
    np.testing.assert_array_equal(hi.asnumpy(), x.max(1))
    z = np.where(x > 0.3, x, 0)
    c = T(z).count_nonzero()
    assert c.asnumpy() == np.count_nonzero(z) and c.asnumpy().dtype == np.int64
    np.testing.assert_array_equal(T(z).count_nonzero(axis=1, keep_dims=True).asnumpy(),
                                  np.count_nonzero(z, 1, keepdims=True))
    xn = x.copy()
    xn[1, 2] = xn[3, 0] = np.nan
    for got in both("nansum", xn, 1):
        np.testing.assert_allclose(got, np.nansum(xn, 1), rtol=1e-12)
    np.testing.assert_allclose(T(xn).nanmean(0).asnumpy(), np.nanmean(xn, 0), rtol=1e-12)
    for got in both("logcumsumexp", x, 1):
        np.testing.assert_allclose(got, np.logaddexp.accumulate(x, 1), rtol=1e-12)
    np.testing.assert_allclose(T(x).cov().asnumpy(), np.cov(x), rtol=1e-12)
    np.testing.assert_allclose(T(x).cov(correction=0).asnumpy(), np.cov(x, ddof=0), rtol=1e-12)
    np.testing.assert_allclose(T(x).diff(axis=0).asnumpy(), np.diff(x, axis=0), rtol=1e-12)
    v = RNG.standard_normal(6)
    np.testing.assert_allclose(T(v).dot(T(v[::-1].copy())).asnumpy(), v @ v[::-1], rtol=1e-12)
    np.testing.assert_allclose(T(v).outer(T(v)).asnumpy(), np.outer(v, v), rtol=1e-12)


def test_order_statistics():
    x = RNG.standard_normal((4, 7))
    for v, i in both("kthvalue", x, 3, 1):
        np.testing.assert_array_equal(v, np.sort(x, 1)[:, 2])
        np.testing.assert_array_equal(i, np.argsort(x, 1)[:, 2])
        assert i.dtype == np.int64
    v, _ = T(x).kthvalue(2, 0, keepdim=True)
    assert v.shape == (1, 7)
    with pytest.raises(ValueError, match="k must be in"):
        T(x).kthvalue(8, 1)
    xn = x.copy()
    xn[0, :3] = np.nan
    xn[2, :] = np.nan
    for v, i in both("nanmedian", xn, 1):
        for r in range(4):
            ok = xn[r][~np.isnan(xn[r])]
            if ok.size == 0:
                assert np.isnan(v[r])
                continue
            want = np.sort(ok)[(ok.size - 1) // 2]       # the lower median
            assert v[r] == want and xn[r, i[r]] == want
    for got in both("nanquantile", xn, 0.3, 1):
        np.testing.assert_allclose(got, np.nanquantile(xn, 0.3, 1), rtol=1e-12)
    np.testing.assert_allclose(T(xn).nanquantile([0.1, 0.9], 1, keepdims=True).asnumpy(),
                               np.nanquantile(xn, [0.1, 0.9], 1, keepdims=True), rtol=1e-12)
    np.testing.assert_allclose(T(x).quantile(0.25, 0).asnumpy(), np.quantile(x, 0.25, 0),
                               rtol=1e-12)
    with pytest.raises(ValueError, match=r"q must be in \[0, 1\]"):
        T(x).nanquantile(1.5)


def test_histc():
    x = RNG.uniform(-2, 3, 200).astype(np.float32)
    for got in both("histc", x, 10, -1, 2):
        want = np.histogram(x[(x >= -1) & (x <= 2)], 10, (-1, 2))[0]
        np.testing.assert_array_equal(got, want.astype(np.float32))
    np.testing.assert_array_equal(T(x).histc(7).asnumpy(),
                                  np.histogram(x, 7, (x.min(), x.max()))[0])
    with pytest.raises(ValueError, match="must not exceed"):
        T(x).histc(4, 3, 1)


def test_slice_select_diagonal_scatter():
    x = RNG.standard_normal((4, 5))
    src = RNG.standard_normal((4, 2))
    want = x.copy()
    want[:, 1:5:2] = src
    for got in both("slice_scatter", x, T(src), 1, 1, 5, 2):
        np.testing.assert_array_equal(got, want)
    s = RNG.standard_normal(5)
    want = x.copy()
    want[2] = s
    np.testing.assert_array_equal(T(x).select_scatter(T(s), 0, -2).asnumpy(), want)
    d = RNG.standard_normal(4)
    want = x.copy()
    want[np.arange(4), np.arange(4) + 1] = d
    for got in both("diagonal_scatter", x, T(d), 1):
        np.testing.assert_array_equal(got, want)
    x3 = RNG.standard_normal((2, 3, 3))
    d3 = RNG.standard_normal((3, 2))                    # dims 0 and 2: the rest (3,) first
    want = x3.copy()
    for k in range(2):
        want[k, :, k] = d3[:, k]
    np.testing.assert_array_equal(T(x3).diagonal_scatter(T(d3), 0, 0, 2).asnumpy(), want)
    with pytest.raises(ValueError, match="src must have shape"):
        T(x).slice_scatter(T(src), 1, 0, 5, 2)
    with pytest.raises(IndexError, match="out of range"):
        T(x).select_scatter(T(s), 0, 4)


def test_fill_diagonal_masked_scatter_index_ops():
    x = RNG.standard_normal((7, 3))
    for wrap in (False, True):
        want = x.copy()
        np.fill_diagonal(want, 5.0, wrap=wrap)
        np.testing.assert_array_equal(T(x).fill_diagonal(5.0, wrap).asnumpy(), want)
    m = RNG.random((7, 3)) > 0.5
    src = RNG.standard_normal(21)
    want = x.copy()
    want[m] = src[:m.sum()]
    for got in both("masked_scatter", x, T(m), T(src)):
        np.testing.assert_array_equal(got, want)
    idx = np.array([2, 0, 5])
    np.testing.assert_array_equal(T(x).index_select(0, T(idx)).asnumpy(), x[idx])
    rows, cols = np.array([0, 3, 6]), np.array([1, 2, 0])
    vals = np.array([10.0, 20.0, 30.0])
    want = x.copy()
    want[rows, cols] = vals
    np.testing.assert_array_equal(T(x).index_put((T(rows), T(cols)), T(vals)).asnumpy(), want)
    want = x.copy()
    np.add.at(want, (np.array([0, 0]), np.array([1, 1])), np.array([1.0, 2.0]))
    np.testing.assert_allclose(T(x).index_put((T(np.array([0, 0])), T(np.array([1, 1]))),
                                              T(np.array([1.0, 2.0])), True).asnumpy(), want)
    want = x.copy()
    want[np.array([1, 4])] = 9.0                    # a size-1 value broadcast over rows
    np.testing.assert_array_equal(
        T(x).index_put((T(np.array([1, 4])),), T(np.array([9.0]))).asnumpy(), want)
    idx2 = np.array([[1, 0, 2], [0, 2, 1]])
    s2 = RNG.standard_normal((2, 3))
    want = x.copy()
    for i in range(2):
        for j in range(3):
            want[idx2[i, j], j] = s2[i, j]
    for got in both("scatter", x, 0, T(idx2), T(s2)):
        np.testing.assert_array_equal(got, want)
    with pytest.raises(ValueError, match="'multiply'"):
        T(x).scatter(0, T(idx2), T(s2), reduce="multiply")


def test_shape_helpers():
    x = RNG.standard_normal((2, 3, 4))
    np.testing.assert_array_equal(T(x).movedim(0, -1).asnumpy(), np.moveaxis(x, 0, -1))
    np.testing.assert_array_equal(T(x).moveaxis((0, 1), (2, 0)).asnumpy(),
                                  np.moveaxis(x, (0, 1), (2, 0)))
    np.testing.assert_array_equal(T(x).swapdims(0, 2).asnumpy(), np.swapaxes(x, 0, 2))
    a = RNG.standard_normal((3, 3))
    np.testing.assert_allclose(T(a).matrix_power(3).asnumpy(), np.linalg.matrix_power(a, 3),
                               rtol=1e-12)
    f = T(a).new_full((2, 2), 7, dtype=ms.int32)
    assert f.dtype == ms.int32 and (f.asnumpy() == 7).all()
    e = T(a).new_empty(4)
    assert e.shape == (4,) and e.dtype == ms.float64
    assert T(x).stride() == (12, 4, 1) and T(x).stride(1) == 4 and T(x).storage_offset() == 0
    assert T(x).type() == str(ms.float64) and T(x).type(ms.float32).dtype == ms.float32
    assert T(x).type_as(T(np.zeros(1, np.int32))).dtype == ms.int32
    assert T(x).contiguous().shape == x.shape and not T(x).is_pinned()
    np.testing.assert_array_equal(T(x).pin_memory().asnumpy(), x)
    np.testing.assert_array_equal(T(x).move_to("CPU").asnumpy(), x)
    assert T(x).bfloat16().dtype == ms.bfloat16 and T(np.array([3, 300])).byte().dtype == \
        ms.uint8
    np.testing.assert_array_equal(T(np.array([[0, 2], [3, 0]])).argwhere().asnumpy(),
                                  [[0, 1], [1, 0]])
    with pytest.raises(RuntimeError, match="not on Ascend"):
        T(x).storage()
    with pytest.raises(RuntimeError, match="not on Ascend"):
        T(x).untyped_storage()


def _tri(n, upper, batch=()):
    a = RNG.standard_normal(batch + (n, n)) + 3 * np.eye(n)
    return np.triu(a) if upper else np.tril(a)


@pytest.mark.parametrize("upper, transpose, unit", [(True, False, False), (False, False, True),
                                                    (True, True, False)])
def test_triangular_solve(upper, transpose, unit):
    a = _tri(4, upper, (2,))
    b = RNG.standard_normal((2, 4, 3))
    x, a_out = T(b).triangular_solve(T(a), upper, transpose, unit)
    m = a.copy()
    if unit:
        m[:, np.arange(4), np.arange(4)] = 1.0
    if transpose:
        m = np.swapaxes(m, -1, -2)
    np.testing.assert_allclose(x.asnumpy(), np.linalg.solve(m, b), rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(a_out.asnumpy(), a)
    g = ms.jit(lambda bb, aa: bb.triangular_solve(aa, upper, transpose, unit)[0])(T(b), T(a))
    np.testing.assert_allclose(g.asnumpy(), x.asnumpy(), rtol=1e-12)


def test_cholesky_lu_solve_qr():
    m = RNG.standard_normal((4, 4))
    spd = m @ m.T + 4 * np.eye(4)
    b = RNG.standard_normal((4, 2))
    low = np.linalg.cholesky(spd)
    np.testing.assert_allclose(T(b).cholesky_solve(T(low)).asnumpy(), np.linalg.solve(spd, b),
                               rtol=1e-10)
    np.testing.assert_allclose(T(b).cholesky_solve(T(low.T.copy()), True).asnumpy(),
                               np.linalg.solve(spd, b), rtol=1e-10)
    sl = pytest.importorskip("scipy.linalg")
    a = RNG.standard_normal((4, 4))
    lu, piv = sl.lu_factor(a)
    got = T(b).lu_solve(T(lu), T((piv + 1).astype(np.int32)))    # 1-based pivots (LAPACK)
    np.testing.assert_allclose(got.asnumpy(), np.linalg.solve(a, b), rtol=1e-10)
    g = ms.jit(lambda bb, l, p: bb.lu_solve(l, p))(T(b), T(lu), T((piv + 1).astype(np.int32)))
    np.testing.assert_allclose(g.asnumpy(), got.asnumpy(), rtol=1e-12)
    for shape in ((5, 3), (3, 3), (2, 4, 3)):
        a = RNG.standard_normal(shape)
        q, r = (t.asnumpy() for t in T(a).qr())
        np.testing.assert_allclose(q @ r, a, rtol=1e-10, atol=1e-12)
        k = min(shape[-2:])
        np.testing.assert_allclose(np.swapaxes(q, -1, -2) @ q, np.broadcast_to(np.eye(k),
                                   q.shape[:-2] + (k, k)), atol=1e-12)
        np.testing.assert_array_equal(r, np.triu(r))
        assert (np.diagonal(r, 0, -2, -1) >= 0).all()
        rq, rr = np.linalg.qr(a)                    # LAPACK's, up to the signs of the rows
        s = np.sign(np.diagonal(rr, 0, -2, -1))[..., :, None]
        np.testing.assert_allclose(r, rr * s, rtol=1e-9, atol=1e-12)
    with pytest.raises(ValueError, match="square matrix"):
        T(b).cholesky_solve(T(np.ones((4, 3))))


def test_householder_geqrf_orgqr_ormqr_against_lapack():
    """geqrf's packed reflectors and tau, orgqr's Q and ormqr's products equal LAPACK's
    (numpy.linalg.qr: mode 'raw' is geqrf's output, transposed)."""
    a = RNG.standard_normal((5, 3))
    h, tau = T(a).geqrf()
    hr, tr = np.linalg.qr(a, mode="raw")
    np.testing.assert_allclose(h.asnumpy(), hr.T, rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(tau.asnumpy(), tr, rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(h.orgqr(tau).asnumpy(), np.linalg.qr(a)[0], rtol=1e-10,
                               atol=1e-13)
    q = np.linalg.qr(a, mode="complete")[0]
    c, c2 = RNG.standard_normal((5, 2)), RNG.standard_normal((2, 5))
    for left, tr_, other, want in [(True, False, c, q @ c), (True, True, c, q.T @ c),
                                   (False, False, c2, c2 @ q), (False, True, c2, c2 @ q.T)]:
        got = ms.jit(lambda hh, tt, cc: hh.ormqr(tt, cc, left, tr_))(h, tau, T(other))
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-10, atol=1e-13)
    with pytest.raises(ValueError, match="m >= n"):
        T(a.T.copy()).orgqr(tau)


def test_lstsq():
    a, b = RNG.standard_normal((6, 3)), RNG.standard_normal((6, 2))
    np.testing.assert_allclose(T(a).lstsq(T(b)).asnumpy(),
                               np.linalg.lstsq(a, b, rcond=None)[0], rtol=1e-10)
    w, b3 = RNG.standard_normal((3, 5)), RNG.standard_normal((3, 2))     # minimum norm
    np.testing.assert_allclose(T(w).lstsq(T(b3)).asnumpy(),
                               np.linalg.lstsq(w, b3, rcond=None)[0], rtol=1e-10)
    with pytest.raises(ValueError, match=r"\(m, n\) and \(m, k\)"):
        T(a).lstsq(T(b3))


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_nextafter_bit_exact(dt):
    fi = np.finfo(dt)
    x = np.concatenate([RNG.standard_normal(2000) * 10.0 ** RNG.integers(-45, 38, 2000),
                        [0, -0.0, 1, 2, 4, 0.5, -2, fi.tiny, -fi.tiny, fi.smallest_subnormal,
                         -fi.smallest_subnormal, fi.max, np.inf, -np.inf, np.nan, 3]]).astype(dt)
    y = np.concatenate([RNG.standard_normal(2000) * 10.0 ** RNG.integers(-45, 38, 2000),
                        [1, -1, 0, -3, 9, 0, 0, 0, 0, 0, 1, np.inf, 0, 0, 1, 3]]).astype(dt)
    with np.errstate(all="ignore"):
        want = np.nextafter(x, y)
    for got in both("nextafter", x, T(y)):
        np.testing.assert_array_equal(got, want)
    with pytest.raises(TypeError, match="float32 or float64"):
        T(np.array([1, 2])).nextafter(T(np.array([3, 4])))
