"""tensor_scatter_update with duplicate index tuples writes the last update (MindSpore's CPU
kernel writes them in order) -- it used to write their sum; PyNative, jit, slices, gradient,
and the P.ScatterNdUpdate / P.TensorScatterUpdate primitives built on it."""
import numpy as np

import msmlir as ms
from msmlir import ops
from msmlir.ops import operations as P


def ref(x, idx, u):
    out = x.copy()
    for i in np.ndindex(*idx.shape[:-1]):
        out[tuple(idx[i])] = u[i]
    return out


def test_last_duplicate_wins():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((5, 4, 3))
    idx = np.array([[[1, 2], [4, 0]], [[1, 2], [1, 2]]], np.int32)       # (1, 2) three times
    u = rng.standard_normal((2, 2, 3))
    want = ref(x, idx, u)
    np.testing.assert_array_equal(ops.tensor_scatter_update(ms.Tensor(x), ms.Tensor(idx),
                                                            ms.Tensor(u)).asnumpy(), want)
    f = ms.jit(lambda a, b, c: ops.tensor_scatter_update(a, b, c))
    np.testing.assert_array_equal(f(ms.Tensor(x), ms.Tensor(idx), ms.Tensor(u)).asnumpy(), want)
    np.testing.assert_array_equal(P.TensorScatterUpdate()(ms.Tensor(x), ms.Tensor(idx),
                                                          ms.Tensor(u)).asnumpy(), want)
    w = rng.standard_normal(x.shape)
    g = ms.grad(lambda c: (ops.tensor_scatter_update(ms.Tensor(x), ms.Tensor(idx), c) *
                           ms.Tensor(w)).sum())(ms.Tensor(u)).asnumpy()
    np.testing.assert_array_equal(g[0, 0], 0 * w[1, 2])                  # overwritten later
    np.testing.assert_array_equal(g[1, 0], 0 * w[1, 2])
    np.testing.assert_array_equal(g[1, 1], w[1, 2])
    np.testing.assert_array_equal(g[0, 1], w[4, 0])
    var = ms.Parameter(ms.Tensor(x.copy()), name="var")
    P.ScatterNdUpdate()(var, ms.Tensor(idx), ms.Tensor(u))
    np.testing.assert_array_equal(var.asnumpy(), want)
