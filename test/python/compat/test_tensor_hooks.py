"""Tensor.register_hook / hooks / remove_hook in PyNative: the expected gradients were
recorded from real MindSpore 2.10 (CPU wheel, PyNative) with the same programs
(issue 12). Needs autodiff/grad.py's GradFunction._run_hooks."""
import numpy as np
import pytest

import msmlir as ms
from msmlir import Tensor


def f32(*v):
    return Tensor(np.array(v, np.float32))


def test_hook_rewrites_the_gradient_and_remove_restores_it():
    x = f32(1, 2, 3)
    h = x.register_hook(lambda g: g * 2)
    assert len(x.hooks()) == 1 and isinstance(h.id, int)
    np.testing.assert_array_equal(ms.grad(lambda x: (x * x).sum())(x).asnumpy(), [4, 8, 12])
    h.remove()
    assert x.hooks() == []
    np.testing.assert_array_equal(ms.grad(lambda x: (x * x).sum())(x).asnumpy(), [2, 4, 6])


def test_hooks_run_in_order_with_value_and_grad_and_positions():
    y, z = f32(1, 2), f32(1, 2)
    y.register_hook(lambda g: g * 2)
    y.register_hook(lambda g: g + 1)
    np.testing.assert_array_equal(ms.grad(lambda y: (y * y).sum())(y).asnumpy(), [5, 9])
    v, g = ms.value_and_grad(lambda y: (y * y).sum())(y)
    assert float(v.asnumpy()) == 5.0
    np.testing.assert_array_equal(g.asnumpy(), [5, 9])
    gy, gz = ms.grad(lambda y, z: (y * z).sum(), grad_position=(0, 1))(y, z)
    np.testing.assert_array_equal(gy.asnumpy(), [3, 5])
    np.testing.assert_array_equal(gz.asnumpy(), [1, 2])


def test_hook_on_a_weight_and_a_hook_returning_none():
    w = ms.Parameter(f32(1, 2), name="w")
    w.register_hook(lambda g: g + 1)
    (gw,) = ms.grad(lambda x: (x * w).sum(), grad_position=None, weights=[w])(f32(3, 4))
    np.testing.assert_array_equal(gw.asnumpy(), [4, 5])
    seen = []
    q = f32(1, 2)
    q.register_hook(lambda g: seen.append(g.asnumpy().copy()))
    np.testing.assert_array_equal(ms.grad(lambda q: (q * q).sum())(q).asnumpy(), [2, 4])
    np.testing.assert_array_equal(seen[0], [2, 4])


def test_remove_hook_by_id_and_bad_hook():
    x = f32(1, 2, 3)
    h = x.register_hook(lambda g: g * 2)
    assert Tensor.remove_hook(h.id) is None
    assert x.hooks() == []
    Tensor.remove_hook(h.id)            # a second removal is a no-op (MindSpore too)
    with pytest.raises(TypeError, match="callable"):
        x.register_hook(3)
