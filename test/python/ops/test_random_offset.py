"""Stateful random numbers in compiled code: the RNG counter.

mindir.dropout / random_uniform / random_normal are counter-based; the
frontend feeds their `offset` operand from a process-wide counter that
advances at every execution (msmlir/frontend/builder.py, "The RNG counter";
msmlir/seed.py), so a compiled train step draws a new dropout mask at
each step, as MindSpore's stateful RNG does, and `set_seed` makes the sequence
reproducible. Bit-exact values come from the independent numpy generator of
test_creation.py.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import msmlir as ms
from msmlir import nn, ops
from test_creation import ref_normal, ref_uniform

M64 = (1 << 64) - 1
SITE_MUL = 0x9E3779B97F4A7C15  # the per-site multiplier documented in frontend/builder.py


def s64(v: int) -> int:
    v &= M64
    return v - (1 << 64) if v >= 1 << 63 else v


def counter_value(seed: int, n: int) -> int:
    """The n-th read of the RNG counter after set_seed(seed) (msmlir/seed.py)."""
    return s64((seed << 32) + n)


def site_offset(counter: int, site: int) -> int:
    """The offset of the site-th random op (1, 2, ...) of a function."""
    return s64(counter * SITE_MUL + site)


@pytest.fixture(autouse=True)
def graph_mode():
    old = ms.get_context("mode")
    ms.set_context(mode=ms.GRAPH_MODE)
    yield
    ms.set_context(mode=old)
    ms.set_seed(None)


def keep_fraction_ok(mask: np.ndarray, keep: float, sigmas: float = 4.0) -> bool:
    n = mask.size
    return abs(mask.mean() - keep) < sigmas * math.sqrt(keep * (1 - keep) / n)


SHAPE = (250, 400)   # 10^5 elements


@ms.jit
def two_dropouts(x):
    return ops.dropout(x, p=0.3), ops.dropout(x, p=0.3)


def test_dropout_new_mask_each_call_and_reproducible():
    x = np.ones(SHAPE, np.float32)
    ms.set_seed(123)
    runs = [two_dropouts(x) for _ in range(3)]
    masks = [(y != 0).astype(np.float64) for run in runs for y in run]
    for y in (y for run in runs for y in run):
        np.testing.assert_array_equal(np.unique(y), np.float32([0, 1 / np.float32(0.7)]))
    for m in masks:
        assert keep_fraction_ok(m, 0.7)
    # every pair of masks (two sites of one call, and across calls) is independent:
    # both keep an element with probability 0.49
    for i in range(len(masks)):
        for j in range(i):
            assert (masks[i] != masks[j]).any()
            assert keep_fraction_ok(masks[i] * masks[j], 0.49), (i, j)
    # set_seed restarts the sequence
    ms.set_seed(123)
    again = [two_dropouts(x) for _ in range(3)]
    for a, b in zip(runs, again):
        np.testing.assert_array_equal(a[0], b[0])
        np.testing.assert_array_equal(a[1], b[1])
    # another seed, another sequence
    ms.set_seed(124)
    other = two_dropouts(x)
    assert (other[0] != runs[0][0]).mean() > 0.2


def test_functions_without_random_ops_do_not_advance_the_counter():
    @ms.jit
    def plain(x):
        return x * 2.0

    x = np.ones((64, 64), np.float32)
    ms.set_seed(5)
    a = two_dropouts(x)
    b = two_dropouts(x)
    ms.set_seed(5)
    a2 = two_dropouts(x)
    plain(x)
    plain(x)
    b2 = two_dropouts(x)
    np.testing.assert_array_equal(a[0], a2[0])
    np.testing.assert_array_equal(b[1], b2[1])
    assert "tensor<i64>" not in plain.mlir(x)


def test_offset_operand_in_the_ir():
    """The entry takes the counter as a trailing 0-d i64 input; each random op
    gets its own offset derived from it."""
    text = two_dropouts.mlir(np.ones((4, 4), np.float32))
    assert "%arg1: tensor<i64>" in text
    drops = [ln for ln in text.splitlines() if "mindir.dropout" in ln]
    assert len(drops) == 2
    for d in drops:
        assert "(tensor<4x4xf32>, tensor<i64>) ->" in d
    assert drops[0].split("mindir.dropout")[1].split(":")[0] != \
        drops[1].split("mindir.dropout")[1].split(":")[0]

    @ms.jit
    def rnd():
        return ops.uniform((3,), 0.0, 1.0), ops.standard_normal((2,))
    text = rnd.mlir()
    assert text.count("mindir.random_uniform offset(") == 1
    assert text.count("mindir.random_normal offset(") == 1


def test_uniform_and_normal_bitexact():
    """The numbers are those of the documented generator with offset
    counter * SITE_MUL + site (the n-th counter read after set_seed(s) is
    s * 2^32 + n)."""
    @ms.jit
    def draw():
        u = ops.uniform((7, 13), -2.0, 3.0, seed=9)
        z = ops.random_normal((33, 8), seed=4, mean=1.5, stddev=0.5)
        return u, z

    ms.set_seed(77)
    for n in range(3):
        u, z = draw()
        c = counter_value(77, n)
        np.testing.assert_array_equal(u, ref_uniform((7, 13), np.float32, 9, -2.0, 3.0,
                                                     offset=site_offset(c, 1)))
        np.testing.assert_allclose(z, ref_normal((33, 8), np.float32, 4, 1.5, 0.5,
                                                 offset=site_offset(c, 2)), rtol=1e-5, atol=1e-5)


def test_uniform_normal_new_numbers_each_call():
    @ms.jit
    def draw():
        return ops.uniform((100000,), 0.0, 1.0), ops.standard_normal((100000,))

    ms.set_seed(1)
    (u1, z1), (u2, z2) = draw(), draw()
    for u in (u1, u2):
        assert u.min() >= 0 and u.max() < 1
        assert abs(u.mean() - 0.5) < 4 * math.sqrt(1 / 12 / u.size)
    for z in (z1, z2):
        assert abs(z.mean()) < 4 / math.sqrt(z.size)
        assert abs(z.std() - 1) < 4 / math.sqrt(2 * z.size)
    assert abs(np.corrcoef(u1, u2)[0, 1]) < 4 / math.sqrt(u1.size)
    assert abs(np.corrcoef(z1, z2)[0, 1]) < 4 / math.sqrt(z1.size)
    ms.set_seed(1)
    np.testing.assert_array_equal(draw()[0], u1)


def test_eager_random_ops_advance_too():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    x = np.ones((100, 100), np.float32)
    ms.set_seed(8)
    a, b = ops.dropout(x, p=0.5), ops.dropout(x, p=0.5)
    u1, u2 = ops.uniform((1000,), 0.0, 1.0), ops.uniform((1000,), 0.0, 1.0)
    assert (a != b).mean() > 0.3 and (u1 != u2).all()
    ms.set_seed(8)
    np.testing.assert_array_equal(ops.dropout(x, p=0.5), a)
    np.testing.assert_array_equal(ops.dropout(x, p=0.5), b)


def test_dropout_grad_uses_the_forward_mask():
    keep = 0.6

    def loss(x, w):
        y, mask = ops.Dropout(keep_prob=keep)(x)
        return (y * w).sum(), mask

    grad_fn = ms.value_and_grad(loss, 0, has_aux=True)

    @ms.jit
    def step(x, w):
        (value, mask), dx = grad_fn(x, w)
        return value, mask, dx

    r = np.random.default_rng(0)
    x = r.standard_normal((128, 96)).astype(np.float32)
    w = r.standard_normal((128, 96)).astype(np.float32)
    ms.set_seed(3)
    masks = []
    for _ in range(2):
        value, mask, dx = step(x, w)
        assert set(np.unique(mask)) == {0.0, 1.0}
        np.testing.assert_allclose(dx, w * mask / np.float32(keep), rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(value, (x * mask / np.float32(keep) * w).sum(), rtol=1e-4)
        masks.append(mask)
    assert (masks[0] != masks[1]).mean() > 0.3


class _Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.drop = nn.Dropout(p=0.5)

    def construct(self, x):
        # one Dropout cell used twice: two call sites, two masks
        return self.drop(x), self.drop(x * 1.0)


def test_nn_dropout_in_graph_mode_cell():
    net = _Net()
    net.set_train()
    x = np.ones((200, 500), np.float32)
    ms.set_seed(11)
    steps = [[np.asarray(v.asnumpy() if hasattr(v, "asnumpy") else v) for v in net(ms.Tensor(x))]
             for _ in range(2)]
    masks = [s != 0 for step in steps for s in step]
    for m in masks:
        assert keep_fraction_ok(m.astype(np.float64), 0.5)
    for i in range(len(masks)):
        for j in range(i):
            assert (masks[i] != masks[j]).mean() > 0.4, (i, j)
    net.set_train(False)
    out = net(ms.Tensor(x))
    np.testing.assert_array_equal(np.asarray(out[0].asnumpy()), x)


def test_train_step_draws_a_new_mask_each_step():
    """A compiled train step (forward, backward and the optimizer in one graph):
    the gradient of the dropped-out weights differs from step to step."""
    class Model(nn.Cell):
        def __init__(self):
            super().__init__()
            self.dense = nn.Dense(64, 1, has_bias=False)
            self.drop = nn.Dropout(p=0.5)

        def construct(self, x):
            return self.dense(self.drop(x))

    model = Model()
    model.set_train()
    opt = nn.SGD(model.trainable_params(), learning_rate=1.0)
    grad_fn = ms.value_and_grad(lambda x: model(x).sum(), None, opt.parameters)

    @ms.jit
    def train_step(x):
        loss, grads = grad_fn(x)
        opt(grads)
        return loss

    x = np.ones((1, 64), np.float32)
    w = model.dense.weight
    ms.set_seed(2)
    deltas = []
    for _ in range(3):
        before = np.array(w.asnumpy())
        train_step(x)
        deltas.append(before - np.array(w.asnumpy()))
    # SGD step = lr * grad = x * mask / keep: 0 or 2 per input
    for d in deltas:
        assert set(np.unique(np.round(d, 5))) <= {0.0, 2.0}
        assert 0.2 < (d != 0).mean() < 0.8
    assert (deltas[0] != deltas[1]).any() and (deltas[1] != deltas[2]).any()
