"""A tensor `if` on a keep_dims reduction result compiled to an invalid
`vector.load` of a rank-0 memref (upstream fold-memref-alias-ops, worked
around in passes/cpu/unroll_transfers.py): every shape compiles and matches numpy."""
import numpy as np
import pytest

import msmlir as ms
from msmlir import ops


def prod_then_branch(x):
    p = ops.reduce_prod(x, 0, True)
    if ops.reduce_sum(p) > 0:
        p = ops.sin(p)
    return p + ops.reduce_sum(ops.cos(x))


@pytest.mark.parametrize("shape", [(1,), (4,), (7,), (64,), (2, 3), (3, 1), (33, 17)])
def test_branch_on_a_keep_dims_reduction(shape):
    x = np.random.default_rng(0).uniform(0.5, 1.5, shape).astype(np.float32)
    p = np.prod(x, 0, keepdims=True)
    ref = (np.sin(p) if p.sum() > 0 else p) + np.cos(x).sum()
    np.testing.assert_allclose(np.asarray(ms.jit(prod_then_branch)(x)), ref, rtol=2e-5)
