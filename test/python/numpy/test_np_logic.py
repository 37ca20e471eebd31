"""msmlir.numpy comparison and logic functions vs numpy (eager)."""
import numpy as np
import pytest

import msmlir.numpy as mnp

A = np.array([[0.0, -0.0, 1.0, np.nan], [np.inf, -np.inf, 2.5, -1.0]], np.float32)
B = np.array([0.0, 1.0, 1.0, np.nan], np.float32)
I = np.array([[0, 3, -2, 5], [1, 0, 0, 7]], np.int32)


def _same(got, want):
    got = np.asarray(got)
    assert got.dtype == np.asarray(want).dtype, (got.dtype, np.asarray(want).dtype)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name", ["equal", "not_equal", "less", "less_equal", "greater",
                                  "greater_equal", "logical_and", "logical_or", "logical_xor"])
def test_binary(name):
    _same(getattr(mnp, name)(A, B), getattr(np, name)(A, B))
    _same(getattr(mnp, name)(I, 0), getattr(np, name)(I, 0))


@pytest.mark.parametrize("name", ["logical_not", "isfinite", "isnan", "isinf", "isposinf",
                                  "isneginf", "signbit"])
def test_unary(name):
    _same(getattr(mnp, name)(A), getattr(np, name)(A))
    _same(getattr(mnp, name)(I), getattr(np, name)(I))


def test_isclose():
    a = np.array([1.0, 1.00001, np.inf, np.inf, np.nan, 1e-9, 0.0, 100.0], np.float32)
    b = np.array([1.0, 1.0, np.inf, -np.inf, np.nan, 0.0, 1e-7, 100.01], np.float32)
    _same(mnp.isclose(a, b), np.isclose(a, b))
    _same(mnp.isclose(a, b, equal_nan=True), np.isclose(a, b, equal_nan=True))
    _same(mnp.isclose(a, b, rtol=1e-3, atol=0.0), np.isclose(a, b, rtol=1e-3, atol=0.0))
    assert bool(mnp.allclose(a[:2], b[:2])) == np.allclose(a[:2], b[:2])


def test_array_equal_equiv():
    assert bool(mnp.array_equal(I, I.copy()))
    assert not bool(mnp.array_equal(I, I[:1]))
    assert not bool(mnp.array_equal(B, B))
    assert bool(mnp.array_equal(B, B, equal_nan=True))
    assert bool(mnp.array_equiv(I[:1], np.tile(I[:1], (3, 1))))
    assert not bool(mnp.array_equiv(I, I[:, :2]))


@pytest.mark.parametrize("axis,keepdims", [(None, False), (0, False), (-1, True)])
def test_all_any(axis, keepdims):
    _same(mnp.all(I, axis=axis, keepdims=keepdims), np.all(I, axis=axis, keepdims=keepdims))
    _same(mnp.any(A, axis=axis, keepdims=keepdims), np.any(A, axis=axis, keepdims=keepdims))
    _same(mnp.sometrue(I == 0, axis=axis, keepdims=keepdims),
          np.any(I == 0, axis=axis, keepdims=keepdims))


def test_isin():
    _same(mnp.isin(I, [0, 7, 9]), np.isin(I, [0, 7, 9]))
    _same(mnp.isin(I, np.array([3, 5], np.int32), invert=True), np.isin(I, [3, 5], invert=True))
    _same(mnp.in1d(I, [1, 5]), np.isin(I.ravel(), [1, 5]))
    assert mnp.isscalar(3.0) and not mnp.isscalar([3.0]) and not mnp.isscalar(I)
