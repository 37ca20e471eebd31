"""mindspore.numpy's 2.x additions: argwhere, intersect1d, setdiff1d (data-dependent
output shapes: PyNative only, an error inside jit) against numpy, and the
host-only dtypes int16 / uint8..uint64 that mindspore.numpy exports."""
import numpy as np
import pytest

import msmlir as ms
import msmlir.numpy as mnp


def test_argwhere_intersect_setdiff():
    x = np.array([[0, 3, 0], [2, 0, 5]])
    got = mnp.argwhere(ms.Tensor(x))
    np.testing.assert_array_equal(got.asnumpy(), np.argwhere(x))
    assert got.dtype == ms.int64
    a, b = np.array([5, 1, 3, 3, 7]), np.array([3, 9, 5, 5])
    np.testing.assert_array_equal(mnp.intersect1d(ms.Tensor(a), ms.Tensor(b)).asnumpy(),
                                  np.intersect1d(a, b))
    v, i, j = mnp.intersect1d(ms.Tensor(a), ms.Tensor(b), return_indices=True)
    wv, wi, wj = np.intersect1d(a, b, return_indices=True)
    for g, w in ((v, wv), (i, wi), (j, wj)):
        np.testing.assert_array_equal(g.asnumpy(), w)
    np.testing.assert_array_equal(mnp.setdiff1d(ms.Tensor(a), ms.Tensor(b)).asnumpy(),
                                  np.setdiff1d(a, b))
    with pytest.raises(RuntimeError, match="data-dependent output shape"):
        ms.jit(lambda t: mnp.argwhere(t))(ms.Tensor(x))
    with pytest.raises(TypeError, match="must be a Tensor"):
        mnp.setdiff1d([1, 2], ms.Tensor(b))


def test_host_dtypes():
    for n in ("int16", "uint8", "uint16", "uint32", "uint64"):
        assert getattr(mnp, n) is getattr(ms, n)
    t = mnp.array(np.array([1, 2]), dtype=mnp.uint8) if hasattr(mnp, "array") else None
    assert t is None or t.dtype == ms.uint8
