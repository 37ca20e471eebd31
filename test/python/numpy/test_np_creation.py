"""msmlir.numpy creation functions: values vs numpy, mindspore.numpy's dtypes,
msmlir.Tensor results."""
import numpy as np
import pytest

import msmlir as ms
import msmlir.numpy as mnp


def _eq(got, want, dtype=None):
    assert isinstance(got, ms.Tensor), type(got)
    got = got.asnumpy()
    if dtype is not None:
        assert got.dtype == np.dtype(dtype), (got.dtype, dtype)
    assert got.shape == np.shape(want)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


def test_array_dtypes():
    _eq(mnp.array([1, 2, 3]), [1, 2, 3], np.int32)              # not int64
    _eq(mnp.array([[1.0, 2], [3, 4]]), [[1, 2], [3, 4]], np.float32)  # not float64
    _eq(mnp.array([True, False]), [True, False], np.bool_)
    _eq(mnp.array(np.arange(3, dtype=np.float64)), [0, 1, 2], np.float64)  # numpy keeps its dtype
    _eq(mnp.array([1, 2], dtype=mnp.float16), [1, 2], np.float16)
    _eq(mnp.array([1, 2], dtype="int8"), [1, 2], np.int8)
    _eq(mnp.array(5, ndmin=2), [[5]], np.int32)
    _eq(mnp.asarray((1.5, 2)), [1.5, 2], np.float32)
    _eq(mnp.asfarray([1, 2]), [1, 2], np.float32)
    _eq(mnp.asfarray([1, 2], dtype=mnp.int32), [1, 2], np.float32)  # non-float dtype -> float32


def test_array_copies_and_asarray_keeps():
    src = np.array([1.0, 2.0], np.float32)
    t = mnp.array(src)
    src[0] = 9
    assert t.asnumpy()[0] == 1.0
    t2 = mnp.asarray(t)
    assert t2 is t
    assert mnp.copy(t) is not t
    _eq(mnp.copy(t), [1, 2], np.float32)


def test_array_errors():
    with pytest.raises(ValueError, match="msmlir.numpy.array: .*different sizes"):
        mnp.array([[1, 2], [3]])
    with pytest.raises(TypeError, match="msmlir.numpy.array"):
        mnp.array([1, 2], dtype="no_such_dtype")


def test_filled():
    _eq(mnp.zeros((2, 3)), np.zeros((2, 3)), np.float32)
    _eq(mnp.ones(4, dtype=mnp.int32), np.ones(4), np.int32)
    _eq(mnp.empty((2, 2)), np.zeros((2, 2)), np.float32)
    _eq(mnp.full((2, 3), 7), np.full((2, 3), 7), np.int32)
    _eq(mnp.full((2, 3), 1.5), np.full((2, 3), 1.5), np.float32)
    _eq(mnp.full((2, 2), True), np.full((2, 2), True), np.bool_)
    _eq(mnp.full((2, 3), [1.0, 2.0, 3.0]), np.full((2, 3), [1.0, 2.0, 3.0]), np.float32)
    a = np.arange(6, dtype=np.int32).reshape(2, 3)
    np.testing.assert_array_equal(mnp.zeros_like(a), np.zeros_like(a))
    assert mnp.zeros_like(a).dtype == np.int32
    np.testing.assert_array_equal(mnp.ones_like(a, dtype=mnp.float32), np.ones((2, 3), np.float32))
    np.testing.assert_array_equal(mnp.full_like(a, 4.7), np.full_like(a, 4.7))
    np.testing.assert_array_equal(mnp.empty_like(a, shape=(3,)), np.zeros(3, np.int32))
    np.testing.assert_array_equal(mnp.full_like(a, [7, 8, 9]), np.full_like(a, [7, 8, 9]))


@pytest.mark.parametrize("args,kw", [((5,), {}), ((2, 11, 3), {}), ((1.0, 2.0, 0.25), {}),
                                     ((10, 0, -3), {}), ((0.1, 1.0, 0.1), {}),
                                     ((3,), {"dtype": "float32"})])
def test_arange(args, kw):
    got = mnp.arange(*args, **kw)
    want = np.arange(*args, **kw)
    if "dtype" not in kw:
        want = want.astype(np.int32 if want.dtype.kind == "i" else np.float32)
    _eq(got, want, want.dtype)


def test_linspace_logspace():
    _eq(mnp.linspace(0, 1, 7), np.linspace(0, 1, 7, dtype=np.float32), np.float32)
    _eq(mnp.linspace(-2.5, 10, 13, endpoint=False), np.linspace(-2.5, 10, 13, endpoint=False,
                                                                  dtype=np.float32))
    y, step = mnp.linspace(2, 3, 5, retstep=True)
    wy, wstep = np.linspace(2, 3, 5, retstep=True)
    _eq(y, wy.astype(np.float32))
    assert abs(float(step.asnumpy()) - wstep) < 1e-7
    _eq(mnp.linspace(0, 10, 6, dtype=mnp.int32), np.linspace(0, 10, 6).astype(np.int32), np.int32)
    start = np.array([0.0, 1.0], np.float32)
    stop = np.array([1.0, 3.0], np.float32)
    _eq(mnp.linspace(start, stop, 4), np.linspace(start, stop, 4).astype(np.float32))
    _eq(mnp.linspace(start, stop, 4, axis=1), np.linspace(start, stop, 4, axis=1).astype(np.float32))
    _eq(mnp.logspace(0, 3, 4), np.logspace(0, 3, 4).astype(np.float32), np.float32)
    got = mnp.logspace(-1, 2.5, 9, base=2.0).asnumpy()
    np.testing.assert_allclose(got, np.logspace(-1, 2.5, 9, base=2.0), rtol=1e-6)


def test_matrices():
    _eq(mnp.eye(3), np.eye(3), np.float32)
    _eq(mnp.eye(3, 5, k=2, dtype=mnp.int32), np.eye(3, 5, k=2), np.int32)
    _eq(mnp.eye(4, 3, k=-1), np.eye(4, 3, k=-1))
    _eq(mnp.identity(2), np.identity(2), np.float32)
    _eq(mnp.tri(3, 4, k=1), np.tri(3, 4, k=1), np.float32)
    m = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    np.testing.assert_array_equal(mnp.tril(m), np.tril(m))
    np.testing.assert_array_equal(mnp.triu(m, k=-1), np.triu(m, k=-1))
    np.testing.assert_array_equal(mnp.tril(np.arange(3, dtype=np.int32), 1), np.tril(np.arange(3), 1))


def test_diagonals():
    v = np.array([1.0, 2.0, 3.0], np.float32)
    for k in (0, 2, -1):
        np.testing.assert_array_equal(mnp.diag(v, k), np.diag(v, k))
    m = np.arange(20, dtype=np.int32).reshape(4, 5)
    for k in (0, 1, -2, 4):
        np.testing.assert_array_equal(mnp.diag(m, k), np.diag(m, k))
    np.testing.assert_array_equal(mnp.diagflat([[1, 2], [3, 4]], -1), np.diagflat([[1, 2], [3, 4]], -1))
    t = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
    np.testing.assert_array_equal(mnp.diagonal(t), np.diagonal(t))
    np.testing.assert_array_equal(mnp.diagonal(t, 1, 2, 0), np.diagonal(t, 1, 2, 0))
    np.testing.assert_array_equal(mnp.diagonal(t, -1, -1, -2), np.diagonal(t, -1, -1, -2))


def test_meshgrid_and_indices():
    x = np.array([1.0, 2.0, 3.0], np.float32)
    y = np.array([4.0, 5.0], np.float32)
    z = np.array([6.0, 7.0, 8.0, 9.0], np.float32)
    for kw in ({}, {"indexing": "ij"}, {"sparse": True}):
        got = mnp.meshgrid(x, y, z, **kw)
        want = np.meshgrid(x, y, z, **kw)
        assert len(got) == 3
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)
    np.testing.assert_array_equal(mnp.indices((2, 3)), np.indices((2, 3)))
    assert mnp.indices((2, 3)).dtype == np.int32
