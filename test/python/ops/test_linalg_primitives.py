"""Primitive classes of ops/operations/_linalg.py (MindSpore's constructor attributes and
input orders over msmlir's Tensor-method implementations), against numpy / scipy, in
PyNative and inside jit, with a bad-argument error each where MindSpore has one."""
import numpy as np
import pytest

import msmlir as ms
from msmlir.ops import operations as P

RNG = np.random.default_rng(77)


def T(a):
    return ms.Tensor(a)


def run(prim, *args):
    """(PyNative result, jit result) as numpy arrays (tuples kept)."""
    def np_(r):
        return tuple(np_(e) for e in r) if isinstance(r, tuple) else r.asnumpy()
    eager = prim(*[T(a) for a in args])
    graph = ms.jit(lambda *ts: prim(*ts))(*[T(a) for a in args])
    return np_(eager), np_(graph)


def test_solvers_and_factorizations():
    a = RNG.standard_normal((4, 4))
    b = RNG.standard_normal((4, 2))
    low = np.tril(a) + 4 * np.eye(4)
    for lower, adjoint in ((True, False), (True, True), (False, False)):
        m = low if lower else low.T.copy()
        want = np.linalg.solve(m.T if adjoint else m, b)
        for got in run(P.MatrixTriangularSolve(lower, adjoint), m, b):
            np.testing.assert_allclose(got, want, rtol=1e-10)
    spd = a @ a.T + 4 * np.eye(4)
    c = np.linalg.cholesky(spd)
    for got in run(P.Cholesky(), spd):
        np.testing.assert_allclose(got, c, rtol=1e-12)
    np.testing.assert_allclose(P.Cholesky(upper=True)(T(spd)).asnumpy(), c.T, rtol=1e-12)
    np.testing.assert_allclose(P.CholeskySolve()(T(b), T(c)).asnumpy(), np.linalg.solve(spd, b),
                               rtol=1e-10)
    np.testing.assert_allclose(P.CholeskyInverse()(T(c)).asnumpy(), np.linalg.inv(spd),
                               rtol=1e-10)
    for adj in (False, True):
        m = a.T if adj else a
        np.testing.assert_allclose(P.MatrixInverse(adj)(T(a)).asnumpy(), np.linalg.inv(m),
                                   rtol=1e-10)
        np.testing.assert_allclose(P.MatrixSolve(adj)(T(a), T(b)).asnumpy(),
                                   np.linalg.solve(m, b), rtol=1e-10)
    np.testing.assert_allclose(P.MatrixDeterminant()(T(a)).asnumpy(), np.linalg.det(a),
                               rtol=1e-12)
    sign, logdet = P.LogMatrixDeterminant()(T(a))
    np.testing.assert_allclose(sign.asnumpy() * np.exp(logdet.asnumpy()), np.linalg.det(a),
                               rtol=1e-12)
    np.testing.assert_allclose(P.MatrixPower(3)(T(a)).asnumpy(), np.linalg.matrix_power(a, 3),
                               rtol=1e-12)
    sl = pytest.importorskip("scipy.linalg")
    lu, piv = sl.lu_factor(a)
    np.testing.assert_allclose(P.LuSolve()(T(b), T(lu), T((piv + 1).astype(np.int32))).asnumpy(),
                               np.linalg.solve(a, b), rtol=1e-10)
    tall = RNG.standard_normal((6, 3))
    rhs = RNG.standard_normal((6, 2))
    np.testing.assert_allclose(P.Lstsq()(T(tall), T(rhs)).asnumpy(),
                               np.linalg.lstsq(tall, rhs, rcond=None)[0], rtol=1e-10)
    with pytest.raises(ValueError, match="l2_regularizer"):
        P.Lstsq(l2_regularizer=0.5)(T(tall), T(rhs))
    q, r = P.Qr()(T(tall))
    np.testing.assert_allclose(q.asnumpy() @ r.asnumpy(), tall, rtol=1e-10, atol=1e-12)
    h, tau = P.Geqrf()(T(tall))
    hr, tr = np.linalg.qr(tall, mode="raw")
    np.testing.assert_allclose(h.asnumpy(), hr.T, rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(P.Orgqr()(h, tau).asnumpy(), np.linalg.qr(tall)[0], rtol=1e-10,
                               atol=1e-13)
    s, u, v = P.Svd()(T(a))
    np.testing.assert_allclose(s.asnumpy(), np.linalg.svd(a, compute_uv=False), rtol=1e-12)
    assert P.Svd(compute_uv=False)(T(a)).shape == (4,)


def test_special_and_elementwise():
    sp = pytest.importorskip("scipy.special")
    x = RNG.uniform(0.5, 4.0, (3, 4))
    for prim, ref in ((P.Digamma(), sp.digamma), (P.Lgamma(), sp.gammaln),
                      (P.Mvlgamma(2), lambda v: sp.multigammaln(v, 2) if np.ndim(v) == 0 else
                       np.vectorize(lambda e: sp.multigammaln(e, 2))(v))):
        for got in run(prim, x):
            np.testing.assert_allclose(got, ref(x), rtol=1e-9)
    y = RNG.uniform(-0.9, 0.9, 7)
    np.testing.assert_allclose(P.Erfinv()(T(y)).asnumpy(), sp.erfinv(y), rtol=1e-9)
    i, j = np.array([12, 18, 7]), np.array([8, 27, 21])
    np.testing.assert_array_equal(P.Gcd()(T(i), T(j)).asnumpy(), np.gcd(i, j))
    np.testing.assert_array_equal(P.Lcm()(T(i), T(j)).asnumpy(), np.lcm(i, j))
    f = RNG.standard_normal(9).astype(np.float32)
    g = RNG.standard_normal(9).astype(np.float32)
    np.testing.assert_array_equal(P.NextAfter()(T(f), T(g)).asnumpy(), np.nextafter(f, g))
    np.testing.assert_array_equal(P.Real()(T(f)).asnumpy(), f)
    np.testing.assert_array_equal(P.Conj()(T(f)).asnumpy(), f)
    np.testing.assert_array_equal(P.Imag()(T(f)).asnumpy(), np.zeros_like(f))


def test_scans_scatters_and_shapes():
    x = RNG.standard_normal((3, 5))
    for (v, i) in run(P.Cummax(1), x):
        np.testing.assert_array_equal(v, np.maximum.accumulate(x, 1))
    v, _ = P.Cummin(0)(T(x))
    np.testing.assert_array_equal(v.asnumpy(), np.minimum.accumulate(x, 0))
    for excl, rev in ((False, False), (True, False), (False, True), (True, True)):
        want = np.empty_like(x)
        for k in range(5):
            sel = (x[:, k + 1:] if excl else x[:, k:]) if rev else (x[:, :k] if excl else
                                                                    x[:, :k + 1])
            want[:, k] = np.log(np.exp(sel).sum(1)) if sel.shape[1] else -np.inf
        got = P.CumulativeLogsumexp(excl, rev)(T(x), 1).asnumpy()
        np.testing.assert_allclose(got, want, rtol=1e-12)
    r = P.Renorm(2, 0, 1.0)(T(x)).asnumpy()
    n = np.linalg.norm(x, axis=1, keepdims=True)
    np.testing.assert_allclose(r, np.where(n > 1.0, x / (n + 1e-7), x), rtol=1e-12)
    want = x.copy()
    np.fill_diagonal(want, 2.5)
    np.testing.assert_array_equal(P.FillDiagonal(2.5)(T(x)).asnumpy(), want)
    t = RNG.uniform(1, 2, (4, 3))
    idx = np.array([[0], [2], [0]])
    upd = RNG.uniform(1, 2, (3, 3))
    for name, op in (("Mul", np.multiply), ("Div", np.divide), ("Max", np.maximum),
                     ("Min", np.minimum)):
        want = t.copy()
        for k in range(3):
            want[idx[k, 0]] = op(want[idx[k, 0]], upd[k])
        for got in run(getattr(P, f"TensorScatter{name}")(), t, idx, upd):
            np.testing.assert_allclose(got, want, rtol=1e-12)
    y, _ = P.UniqueWithPad()(T(np.array([3, 1, 3], np.int32)), T(np.array(-1, np.int32)))
    np.testing.assert_array_equal(y.asnumpy(), [1, 3, -1])
    h = P.Histogram(4, 0.0, 4.0)(T(np.array([0.5, 1.5, 1.6, 3.9, 5.0], np.float32)))
    np.testing.assert_array_equal(h.asnumpy(), [1, 2, 0, 1])
    s = P.SearchSorted(right=True)(T(np.array([1.0, 2.0, 3.0])), T(np.array([2.0, 0.5, 9.0])))
    np.testing.assert_array_equal(s.asnumpy(), [2, 0, 3])
    assert s.dtype == ms.int64
    np.testing.assert_array_equal(P.TriuIndices(3, 4, 1)().asnumpy(), np.triu_indices(3, 1, 4))
    np.testing.assert_array_equal(P.TrilIndices(4, 3, -1)().asnumpy(),
                                  np.tril_indices(4, -1, 3))
    c = P.Cauchy((20000,), 2.0, 0.5)().asnumpy()
    assert c.shape == (20000,) and abs(np.median(c) - 2.0) < 0.03
    ln = P.LogNormalReverse(0.0, 0.5)(T(np.zeros(20000, np.float32))).asnumpy()
    assert abs(np.log(ln).std() - 0.5) < 0.02
    with pytest.raises(TypeError, match="MatrixPower"):
        P.MatrixPower()


def test_parameter_scatter_and_bound_primitives():
    base = RNG.uniform(1, 2, (4, 3))
    for k, op in (("Mul", np.multiply), ("Div", np.divide), ("Max", np.maximum),
                  ("Min", np.minimum)):
        p = ms.Parameter(T(base.copy()), name="p")
        idx, upd = np.array([2, 0, 2], np.int32), RNG.uniform(1, 2, (3, 3))
        getattr(P, f"Scatter{k}")()(p, T(idx), T(upd))
        want = base.copy()
        for r in range(3):
            want[idx[r]] = op(want[idx[r]], upd[r])
        np.testing.assert_allclose(p.asnumpy(), want, rtol=1e-12)
        q = ms.Parameter(T(base.copy()), name="q")
        nd, u = np.array([[1, 1], [3, 0]], np.int32), RNG.uniform(1, 2, 2)
        getattr(P, f"ScatterNd{k}")()(q, T(nd), T(u))
        want = base.copy()
        for r in range(2):
            want[tuple(nd[r])] = op(want[tuple(nd[r])], u[r])
        np.testing.assert_allclose(q.asnumpy(), want, rtol=1e-12)
    p = ms.Parameter(T(base.copy()), name="p")
    P.ScatterNonAliasingAdd()(p, T(np.array([[0, 0], [0, 0]], np.int32)), T(np.array([1.0, 2.0])))
    want = base.copy()
    want[0, 0] += 3.0
    np.testing.assert_allclose(p.asnumpy(), want, rtol=1e-12)
    got = P.ScatterAddWithAxis(1)(T(np.zeros((2, 3))), T(np.array([[0, 0], [2, 1]], np.int32)),
                                  T(np.ones((2, 2))))
    np.testing.assert_array_equal(got.asnumpy(), [[2, 0, 0], [0, 1, 1]])
    a = np.array([[1, 2, 2, 5], [0, 0, 3, 3]])
    v = np.array([[2, 3, 0, 9], [0, 3, 4, -1]])
    lo, hi = P.LowerBound()(T(a), T(v)), P.UpperBound()(T(a), T(v))
    np.testing.assert_array_equal(lo.asnumpy(), [np.searchsorted(a[i], v[i], "left")
                                                  for i in range(2)])
    np.testing.assert_array_equal(hi.asnumpy(), [np.searchsorted(a[i], v[i], "right")
                                                 for i in range(2)])
    assert lo.dtype == ms.int32


def test_histogram_fixed_width_diag_v3_and_others():
    x = np.array([-1.0, 0.0, 1.5, 2.0, 5.0, 15.0, 4.99])
    h = P.HistogramFixedWidth(5)(T(x), T(np.array([0.0, 5.0])))
    np.testing.assert_array_equal(h.asnumpy(), [2, 1, 1, 0, 3])   # below -> first, above -> last
    assert h.dtype == ms.int32
    m = RNG.standard_normal((2, 3, 4))
    np.testing.assert_array_equal(
        P.MatrixDiagPartV3()(T(m), T(np.int32(0)), T(np.float64(0))).asnumpy(),
        np.diagonal(m, 0, -2, -1))
    g = ms.jit(lambda t: P.MatrixDiagPartV3()(t, 0, 0.0))(T(m))
    np.testing.assert_array_equal(g.asnumpy(), np.diagonal(m, 0, -2, -1))
    d = RNG.standard_normal((2, 3))
    want = m.copy()
    for b in range(2):
        want[b, np.arange(3), np.arange(3)] = d[b]
    np.testing.assert_array_equal(P.MatrixSetDiagV3()(T(m), T(d), T(np.int32(0))).asnumpy(), want)
    out = P.MatrixDiagV3()(T(np.array([1.0, 2.0])), T(np.int32(0)), T(np.int32(-1)),
                           T(np.int32(-1)), T(np.float64(5.0)))
    np.testing.assert_array_equal(out.asnumpy(), [[1.0, 5.0], [5.0, 2.0]])
    with pytest.raises(ValueError, match="only k=0"):
        P.MatrixDiagPartV3()(T(m), T(np.int32(1)), T(np.float64(0)))
    sp = pytest.importorskip("scipy.special")
    z = np.array([0.5, 20.0, 1000.0])
    np.testing.assert_allclose(P.BesselI0e()(T(z)).asnumpy(), sp.i0e(z), rtol=1e-13)
    np.testing.assert_array_equal(P.ConjugateTranspose()(T(m), (0, 2, 1)).asnumpy(),
                                  m.transpose(0, 2, 1))
    c = P.RandomCategorical()(T(np.log(np.array([[0.25, 0.75]], np.float32))), 4000, 5)
    assert c.dtype == ms.int64 and abs(c.asnumpy().mean() - 0.75) < 0.03
    ok = T(np.array([1.0, 2.0]))
    assert P.CheckNumerics()(ok) is ok
    with pytest.raises(RuntimeError, match="NaN or Inf"):
        P.CheckNumerics()(T(np.array([1.0, np.inf])))
