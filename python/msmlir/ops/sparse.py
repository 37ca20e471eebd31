"""MindSpore's sparse tensor containers: COOTensor, CSRTensor, RowTensor, and
Tensor.to_coo / to_csr that make them.

They hold index and value Tensors on the host: their number of stored elements is
data (a dense tensor's non-zeros), which a statically shaped compiled graph cannot
have, so they are built and converted in PyNative (`to_dense`, `to_coo`, `to_csr`,
`astype`, `abs`), and their Tensors can then be fed to compiled code as usual.
Duplicate coordinates add up in `to_dense`, as MindSpore's kernels.
"""
from __future__ import annotations

import numpy as np

import msmlir.frontend.builder as _b
from ..arraylike import as_array, host_wrapper

__all__ = ["COOTensor", "CSRTensor", "RowTensor", "to_coo", "to_csr"]


def _wrap(a):
    w = host_wrapper()
    return np.asarray(a) if w is None else w(np.ascontiguousarray(a))


def _shape(shape, name):
    if not isinstance(shape, (tuple, list)) or not all(
            isinstance(d, (int, np.integer)) and not isinstance(d, bool) and d > 0 for d in shape):
        raise TypeError(f"For '{name}', shape must be a tuple of positive ints, got {shape!r}")
    return tuple(int(d) for d in shape)


def _ints(a, name, what):
    arr = as_array(a)
    if arr.dtype.kind not in "iu":
        raise TypeError(f"For '{name}', {what} must be an int16/int32/int64 tensor, got "
                        f"{arr.dtype}")
    return arr


class _Sparse:
    @property
    def dtype(self):
        return self.values.dtype

    @property
    def size(self):
        return int(as_array(self.values).size)

    @property
    def itemsize(self):
        return as_array(self.values).itemsize

    @property
    def ndim(self):
        return len(self.shape)

    def astype(self, dtype):
        return self._with_values(self.values.astype(dtype))

    def abs(self):
        return self._with_values(_wrap(np.abs(as_array(self.values))))

    def __repr__(self):
        return (f"{type(self).__name__}(shape={self.shape}, dtype={self.dtype}, "
                f"nnz={as_array(self.values).shape[0]})")


class COOTensor(_Sparse):
    """COOTensor(indices (nnz, ndim) int, values (nnz,), shape): the value values[i] at
    coordinate indices[i] of a dense tensor of `shape`, zeros elsewhere."""

    def __init__(self, indices=None, values=None, shape=None, coo_tensor=None):
        if coo_tensor is not None:
            indices, values, shape = coo_tensor.indices, coo_tensor.values, coo_tensor.shape
        self.shape = _shape(shape, "COOTensor")
        idx = _ints(indices, "COOTensor", "indices")
        val = as_array(values)
        if idx.ndim != 2 or val.ndim != 1 or idx.shape[0] != val.shape[0] or \
                idx.shape[1] != len(self.shape):
            raise ValueError(f"For 'COOTensor', indices must be (nnz, {len(self.shape)}) and "
                             f"values (nnz,), got {idx.shape} and {val.shape}")
        if idx.size and ((idx < 0).any() or (idx >= np.array(self.shape)).any()):
            raise ValueError(f"For 'COOTensor', indices must lie in the shape {self.shape}")
        self.indices, self.values = _wrap(idx), _wrap(val)

    def _with_values(self, values):
        return COOTensor(self.indices, values, self.shape)

    def to_dense(self):
        out = np.zeros(self.shape, as_array(self.values).dtype)
        np.add.at(out, tuple(as_array(self.indices).T), as_array(self.values))
        return _wrap(out)

    def to_csr(self):
        """The same matrix as a CSRTensor (2-D only), rows sorted, order kept within a row."""
        if len(self.shape) != 2:
            raise ValueError(f"For 'COOTensor.to_csr', the tensor must be 2-D, got {self.shape}")
        idx, val = as_array(self.indices), as_array(self.values)
        order = np.argsort(idx[:, 0], kind="stable")
        indptr = np.zeros(self.shape[0] + 1, idx.dtype)
        np.add.at(indptr, idx[:, 0] + 1, 1)
        return CSRTensor(np.cumsum(indptr).astype(idx.dtype), idx[order, 1], val[order],
                         self.shape)

    def coalesce(self):
        """Duplicates summed, coordinates in row-major order."""
        dense = as_array(self.to_dense())
        return to_coo(dense)


class CSRTensor(_Sparse):
    """CSRTensor(indptr (rows + 1,), indices (nnz,) column ids, values (nnz,), shape):
    row r holds values[indptr[r]:indptr[r + 1]] at columns indices[...]."""

    def __init__(self, indptr=None, indices=None, values=None, shape=None, csr_tensor=None):
        if csr_tensor is not None:
            indptr, indices, values, shape = (csr_tensor.indptr, csr_tensor.indices,
                                              csr_tensor.values, csr_tensor.shape)
        self.shape = _shape(shape, "CSRTensor")
        if len(self.shape) != 2:
            raise ValueError(f"For 'CSRTensor', only 2-D shapes are supported, got {self.shape}")
        ptr = _ints(indptr, "CSRTensor", "indptr")
        idx = _ints(indices, "CSRTensor", "indices")
        val = as_array(values)
        if ptr.shape != (self.shape[0] + 1,) or idx.ndim != 1 or val.shape != idx.shape or \
                ptr[0] != 0 or ptr[-1] != idx.shape[0] or (np.diff(ptr) < 0).any():
            raise ValueError(f"For 'CSRTensor', indptr must be ({self.shape[0] + 1},) "
                             f"non-decreasing from 0 to nnz, indices and values (nnz,); got "
                             f"{ptr.shape}, {idx.shape}, {val.shape}")
        if idx.size and ((idx < 0).any() or (idx >= self.shape[1]).any()):
            raise ValueError(f"For 'CSRTensor', column indices must be in [0, {self.shape[1]})")
        self.indptr, self.indices, self.values = _wrap(ptr), _wrap(idx), _wrap(val)

    def _with_values(self, values):
        return CSRTensor(self.indptr, self.indices, values, self.shape)

    def _rows(self):
        ptr = as_array(self.indptr)
        return np.repeat(np.arange(self.shape[0]), np.diff(ptr)).astype(ptr.dtype)

    def to_coo(self):
        idx = as_array(self.indices)
        return COOTensor(np.stack([self._rows(), idx], 1), self.values, self.shape)

    def to_dense(self):
        out = np.zeros(self.shape, as_array(self.values).dtype)
        np.add.at(out, (self._rows(), as_array(self.indices)), as_array(self.values))
        return _wrap(out)


class RowTensor(_Sparse):
    """RowTensor(indices (n,) int, values (n, ...), dense_shape): the slices values[i] at
    rows indices[i] of a dense tensor (a sparse gradient of an embedding table)."""

    def __init__(self, indices=None, values=None, dense_shape=None, row_tensor=None):
        if row_tensor is not None:
            indices, values, dense_shape = (row_tensor.indices, row_tensor.values,
                                            row_tensor.dense_shape)
        self.dense_shape = _shape(dense_shape, "RowTensor")
        idx = _ints(indices, "RowTensor", "indices")
        val = as_array(values)
        if idx.ndim != 1 or val.shape != (idx.shape[0],) + self.dense_shape[1:]:
            raise ValueError(f"For 'RowTensor', indices must be (n,) and values (n,) + "
                             f"dense_shape[1:] = {(idx.shape[0],) + self.dense_shape[1:]}, got "
                             f"{idx.shape} and {val.shape}")
        if idx.size and ((idx < 0).any() or (idx >= self.dense_shape[0]).any()):
            raise ValueError(f"For 'RowTensor', indices must be in [0, {self.dense_shape[0]})")
        self.indices, self.values = _wrap(idx), _wrap(val)

    @property
    def shape(self):
        return self.dense_shape

    def _with_values(self, values):
        return RowTensor(self.indices, values, self.dense_shape)

    def to_dense(self):
        out = np.zeros(self.dense_shape, as_array(self.values).dtype)
        np.add.at(out, as_array(self.indices), as_array(self.values))
        return _wrap(out)


def _host(x, name):
    if _b.current() is not None:
        _b.error(f"'{name}' has a data-dependent number of elements and cannot be compiled "
                 f"(jit / graph mode); call it in PyNative mode", kind=RuntimeError)
    return as_array(x)


def to_coo(x):
    """The non-zeros of a dense tensor as a COOTensor (int64 indices, row-major order)."""
    arr = _host(x, "Tensor.to_coo")
    if arr.ndim == 0:
        raise ValueError("For 'Tensor.to_coo', the tensor must have rank >= 1")
    idx = np.argwhere(arr != 0).astype(np.int64)
    return COOTensor(idx, arr[tuple(idx.T)], arr.shape)


def to_csr(x):
    """The non-zeros of a 2-D dense tensor as a CSRTensor."""
    arr = _host(x, "Tensor.to_csr")
    if arr.ndim != 2:
        raise ValueError(f"For 'Tensor.to_csr', the tensor must be 2-D, got shape {arr.shape}")
    return to_coo(arr).to_csr()
