"""f32 sums at least as accurate as numpy's pairwise summation (they used to
drift: 3e7 x 0.1f summed to 2,964,896)."""
import numpy as np

import msmlir as ms
from msmlir import ops


def total(x):
    return ops.reduce_sum(x)


def rows(x):
    return ops.reduce_sum(x, 1)


def cols_mean(x):
    return ops.reduce_mean(x, 0)


def _exact(x, axis=None):
    return x.astype(np.float64).sum(axis=axis)


def test_long_f32_sums_are_as_accurate_as_numpy():
    x = np.full(30_000_000, 0.1, np.float32)
    exact = _exact(x)
    got = float(np.asarray(ms.jit(total)(x)))
    assert abs(got - exact) <= max(abs(float(x.sum()) - exact), 1.0)
    m = np.full((4, 2_000_000), 0.1, np.float32)
    np.testing.assert_allclose(np.asarray(ms.jit(rows)(m)), _exact(m, 1), rtol=1e-6)
    c = np.full((2_000_000, 3), 0.1, np.float32)   # numpy sums these columns in sequence
    np.testing.assert_allclose(np.asarray(ms.jit(cols_mean)(c)), _exact(c, 0) / c.shape[0],
                               rtol=1e-6)
