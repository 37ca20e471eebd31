"""COOTensor / CSRTensor / RowTensor (msmlir/ops/sparse.py) and Tensor.to_coo / to_csr:
conversions against scipy.sparse and numpy, duplicates summed by to_dense, bad
arguments rejected, and an error inside jit (a data-dependent element count)."""
import numpy as np
import pytest

import msmlir as ms
from msmlir.ops.sparse import COOTensor, CSRTensor, RowTensor

RNG = np.random.default_rng(8)


def test_to_coo_to_csr_round_trips_match_scipy():
    sp = pytest.importorskip("scipy.sparse")
    d = RNG.standard_normal((5, 7)) * (RNG.random((5, 7)) < 0.3)
    t = ms.Tensor(d.astype(np.float32))
    coo = t.to_coo()
    ref = sp.coo_matrix(d)
    np.testing.assert_array_equal(coo.indices.asnumpy(), np.stack([ref.row, ref.col], 1))
    np.testing.assert_allclose(coo.values.asnumpy(), ref.data.astype(np.float32))
    np.testing.assert_array_equal(coo.to_dense().asnumpy(), d.astype(np.float32))
    csr = t.to_csr()
    rc = sp.csr_matrix(d)
    np.testing.assert_array_equal(csr.indptr.asnumpy(), rc.indptr)
    np.testing.assert_array_equal(csr.indices.asnumpy(), rc.indices)
    np.testing.assert_array_equal(csr.to_dense().asnumpy(), d.astype(np.float32))
    np.testing.assert_array_equal(csr.to_coo().to_dense().asnumpy(), d.astype(np.float32))
    assert csr.shape == (5, 7) and csr.ndim == 2 and csr.size == rc.nnz
    np.testing.assert_array_equal(csr.abs().to_dense().asnumpy(), np.abs(d).astype(np.float32))
    assert coo.astype(ms.float64).dtype == ms.float64
    with pytest.raises(ValueError, match="must be 2-D"):
        ms.Tensor(np.ones((2, 2, 2))).to_csr()
    with pytest.raises(ms.CompileError, match="data-dependent number of elements"):
        ms.jit(lambda a: a.to_coo())(t)


def test_duplicates_sum_and_row_tensor():
    coo = COOTensor(ms.Tensor(np.array([[0, 1], [0, 1], [2, 0]], np.int32)),
                    ms.Tensor(np.array([1.0, 2.0, 5.0], np.float32)), (3, 2))
    np.testing.assert_array_equal(coo.to_dense().asnumpy(), [[0, 3], [0, 0], [5, 0]])
    np.testing.assert_array_equal(coo.coalesce().values.asnumpy(), [3.0, 5.0])
    rows = RowTensor(ms.Tensor(np.array([2, 0], np.int32)),
                     ms.Tensor(np.ones((2, 3), np.float32)), (4, 3))
    want = np.zeros((4, 3), np.float32)
    want[[2, 0]] = 1
    np.testing.assert_array_equal(rows.to_dense().asnumpy(), want)
    assert RowTensor(row_tensor=rows).dense_shape == (4, 3)
    with pytest.raises(ValueError, match="indices must lie in the shape"):
        COOTensor(ms.Tensor(np.array([[3, 0]], np.int32)), ms.Tensor(np.ones(1, np.float32)),
                  (3, 2))
    with pytest.raises(ValueError, match="non-decreasing"):
        CSRTensor(ms.Tensor(np.array([0, 2, 1], np.int32)), ms.Tensor(np.array([0], np.int32)),
                  ms.Tensor(np.ones(1, np.float32)), (2, 2))
    with pytest.raises(TypeError, match="int16/int32/int64"):
        RowTensor(ms.Tensor(np.array([0.5], np.float32)), ms.Tensor(np.ones((1, 3))), (4, 3))
