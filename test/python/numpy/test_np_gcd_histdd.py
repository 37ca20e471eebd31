"""msmlir.numpy's last six mindspore.numpy names: gcd / lcm (compiled Euclid, against
numpy over int32 and int64 edge cases, in jit), histogramdd / histogram2d (against numpy,
with range, weights and density), unique / bincount (PyNative; an error inside jit)."""
import numpy as np
import pytest

import msmlir as ms
import msmlir.numpy as mnp

RNG = np.random.default_rng(5)


@pytest.mark.parametrize("dt", [np.int32, np.int64])
def test_gcd_lcm_match_numpy(dt):
    big = np.iinfo(dt).max
    # consecutive Fibonacci numbers: Euclid's worst case
    fib = [1, 1]
    while fib[-1] + fib[-2] < big:
        fib.append(fib[-1] + fib[-2])
    a = np.array([12, -18, 0, 7, 0, fib[-1], 2 ** 20, -35, 9], dt)
    b = np.array([8, 24, 5, 0, 0, fib[-2], 6, -14, 9], dt)
    a = np.concatenate([a, RNG.integers(-10 ** 6, 10 ** 6, 50).astype(dt)])
    b = np.concatenate([b, RNG.integers(-10 ** 6, 10 ** 6, 50).astype(dt)])
    np.testing.assert_array_equal(np.asarray(mnp.gcd(a, b)), np.gcd(a, b))
    small = (np.abs(a) < 2 ** 15) & (np.abs(b) < 2 ** 15)
    np.testing.assert_array_equal(np.asarray(mnp.lcm(a[small], b[small])),
                                  np.lcm(a[small], b[small]))
    got = ms.jit(lambda x, y: mnp.gcd(x, y))(ms.Tensor(a), ms.Tensor(b))
    np.testing.assert_array_equal(got.asnumpy(), np.gcd(a, b))


def test_gcd_broadcasts_and_rejects_floats():
    a = np.arange(1, 13, dtype=np.int32).reshape(3, 4)
    np.testing.assert_array_equal(np.asarray(mnp.gcd(a, np.int32(6))), np.gcd(a, 6))
    with pytest.raises(TypeError, match="integer inputs only"):
        mnp.gcd(np.ones(3, np.float32), np.ones(3, np.float32))


def test_histogramdd_and_histogram2d_match_numpy():
    s = RNG.standard_normal((200, 3)).astype(np.float32)
    w = RNG.random(200).astype(np.float32)
    h, edges = mnp.histogramdd(s, (3, 4, 2))
    hr, er = np.histogramdd(s, (3, 4, 2))
    np.testing.assert_array_equal(np.asarray(h), hr)
    for e, r in zip(edges, er):
        np.testing.assert_allclose(np.asarray(e), r, rtol=1e-5, atol=1e-6)
    rng = [(-1, 1), (-2, 0.5), (0, 3)]
    h, _ = mnp.histogramdd(s, 4, rng, w, True)
    hr, _ = np.histogramdd(s, 4, rng, weights=w, density=True)
    np.testing.assert_allclose(np.asarray(h), hr, rtol=1e-5)
    x, y = s[:, 0], s[:, 1]
    h, ex, ey = mnp.histogram2d(x, y, (5, 3), weights=w)
    hr, exr, eyr = np.histogram2d(x, y, (5, 3), weights=w)
    np.testing.assert_allclose(np.asarray(h), hr, rtol=1e-5)
    np.testing.assert_allclose(np.asarray(ey), eyr, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="2 bin counts for 3 dimensions"):
        mnp.histogramdd(s, (3, 4))
    with pytest.raises(ValueError, match="same length"):
        mnp.histogram2d(x, y[:-1])


def test_unique_and_bincount_pynative_only():
    x = ms.Tensor(np.array([[3, 1], [3, 2]], np.int32))
    y, inv = mnp.unique(x, return_inverse=True)
    np.testing.assert_array_equal(y.asnumpy(), [1, 2, 3])
    np.testing.assert_array_equal(inv.asnumpy().reshape(-1), [2, 0, 2, 1])
    c = mnp.bincount(ms.Tensor(np.array([1, 1, 4], np.int32)), minlength=7)
    np.testing.assert_array_equal(c.asnumpy(), [0, 2, 0, 0, 1, 0, 0])
    c = mnp.bincount(ms.Tensor(np.array([1, 1, 4], np.int32)), length=3)
    np.testing.assert_array_equal(c.asnumpy(), [0, 2, 0])
    with pytest.raises(ms.CompileError, match="depends on the data"):
        ms.jit(lambda a: mnp.unique(a))(x)
