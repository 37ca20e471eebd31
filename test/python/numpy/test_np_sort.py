"""msmlir.numpy sorting and order statistics (sort, argsort, msort, median,
percentile, quantile) vs numpy, eager and in graph mode, and their errors."""
import numpy as np
import pytest

import msmlir as ms
import msmlir.numpy as mnp
from msmlir import CompileError

RNG = np.random.default_rng(5)
X = RNG.standard_normal((4, 5, 6)).astype(np.float32)
XT = np.round(X * 2).astype(np.float32)          # ties
XN = X.copy()
XN[1, 2, 3] = XN[3, 0, 0] = np.nan
XI = RNG.integers(-9, 10, (3, 8)).astype(np.int32)


def _close(got, want, rtol=1e-5, atol=1e-6):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True)


def test_sort_argsort_msort_eager():
    np.testing.assert_array_equal(mnp.sort(XT), np.sort(XT))
    np.testing.assert_array_equal(mnp.sort(XT, axis=None), np.sort(XT, axis=None))
    np.testing.assert_array_equal(mnp.sort(XN, axis=1, kind="quicksort"), np.sort(XN, axis=1))
    got = mnp.argsort(XT, axis=0)
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, np.argsort(XT, axis=0, kind="stable"))
    np.testing.assert_array_equal(mnp.argsort(XI, axis=None),
                                  np.argsort(XI, axis=None, kind="stable"))
    np.testing.assert_array_equal(mnp.msort(XI), np.sort(XI, axis=0))
    t = mnp.sort(ms.Tensor(XI))                      # Tensor in, Tensor out
    assert isinstance(t, ms.Tensor)
    np.testing.assert_array_equal(t.asnumpy(), np.sort(XI))


@pytest.mark.parametrize("axis,keepdims", [(None, False), (1, False), ((0, 2), True), (-1, True)])
def test_median(axis, keepdims):
    _close(mnp.median(X, axis=axis, keepdims=keepdims), np.median(X, axis=axis, keepdims=keepdims))
    # a slice holding a NaN gives NaN
    _close(mnp.median(XN, axis=axis, keepdims=keepdims),
           np.median(XN, axis=axis, keepdims=keepdims))


def test_median_int_gives_float32():
    got = mnp.median(XI, axis=1)
    assert got.dtype == np.float32
    _close(got, np.median(XI, axis=1))
    _close(mnp.median(XI[:, :7]), np.median(XI[:, :7]))        # odd count


METHODS = ["linear", "lower", "higher", "midpoint", "nearest"]


@pytest.mark.parametrize("method", METHODS)
def test_quantile_methods(method):
    q = [0.0, 0.1, 0.25, 0.5, 0.7, 1.0]
    _close(mnp.quantile(X, q, axis=2, method=method), np.quantile(X, q, axis=2, method=method))


def test_quantile_percentile_shapes_nan_and_tensor_q():
    _close(mnp.quantile(X, 0.3), np.quantile(X, 0.3))
    _close(mnp.percentile(X, [10, 90], axis=(0, 1), keepdims=True),
           np.percentile(X, [10, 90], axis=(0, 1), keepdims=True))
    _close(mnp.percentile(XN, 40, axis=0), np.percentile(XN, 40, axis=0))
    q = np.array([[0.2, 0.5], [0.9, 1.0]])                   # q as a run-time tensor
    _close(mnp.quantile(X, q, axis=1), np.quantile(X, q, axis=1))
    _close(mnp.percentile(XI, 35.0, axis=1), np.percentile(XI, 35.0, axis=1))


def test_graph_mode():
    @ms.jit
    def f(x, xi):
        return (mnp.sort(x, axis=0), mnp.argsort(x), mnp.median(x, axis=-1),
                mnp.quantile(x, [0.25, 0.75], axis=1, keepdims=True),
                mnp.percentile(xi, 50), mnp.msort(xi))

    got = f(XT, XI)
    want = (np.sort(XT, axis=0), np.argsort(XT, kind="stable"), np.median(XT, axis=-1),
            np.quantile(XT, [0.25, 0.75], axis=1, keepdims=True), np.percentile(XI, 50),
            np.sort(XI, axis=0))
    for g, w in zip(got, want):
        _close(g, w)


@pytest.mark.parametrize("call,msg", [
    (lambda: mnp.quantile(X, 1.5), r"msmlir.numpy.quantile: q must be in the range \[0, 1\]"),
    (lambda: mnp.percentile(X, [50, -1]), r"percentile: q must be in the range \[0, 100\]"),
    (lambda: mnp.quantile(X, 0.5, method="weibull"), "method must be one of"),
    (lambda: mnp.sort(X, order="f"), "order .* is not supported"),
    (lambda: mnp.sort(X, kind="bogo"), "kind must be one of"),
    (lambda: mnp.median(X[:, :0]), "median of an empty slice"),
    (lambda: mnp.argsort(X, axis=3), "msmlir.numpy.argsort: axis 3 is out of range"),
])
def test_errors(call, msg):
    with pytest.raises(CompileError, match=msg):
        call()


def test_median_and_quantile_gradients():
    x = RNG.standard_normal((3, 6))

    def fd(f, eps=1e-6):
        g = np.zeros_like(x)
        for i in np.ndindex(x.shape):
            xp, xm = x.copy(), x.copy()
            xp[i] += eps
            xm[i] -= eps
            g[i] = (f(xp) - f(xm)) / (2 * eps)
        return g

    g = ms.grad(lambda t: mnp.sum(mnp.median(t, axis=1) ** 2))(x)
    _close(g, fd(lambda z: np.sum(np.median(z, axis=1) ** 2)), rtol=1e-6, atol=1e-7)
    g = ms.jit(ms.grad(lambda t: mnp.sum(mnp.quantile(t, [0.3, 0.8], axis=0))))(x)
    _close(g, fd(lambda z: np.sum(np.quantile(z, [0.3, 0.8], axis=0))), rtol=1e-6, atol=1e-7)
