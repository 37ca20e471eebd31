"""User-defined derivatives: `msmlir.custom_bprop` and Cells with a
`bprop(self, *inputs, out, dout)` method replace the automatic rule at their call
sites (mindir-autodiff's custom-bprop hook: the callee carries `mindir.bprop`)."""
from __future__ import annotations

import numpy as np
import pytest

import msmlir as ms
from msmlir import Parameter, ops
from support.gradcheck import close

X = np.array([1.0, -2.0, 0.5])


def sq_bprop_doubled(x, out, dout):
    return (dout * 2.0 * 2.0 * x,)          # twice the true derivative 2x


@ms.custom_bprop(sq_bprop_doubled)
def sq(x):
    return x * x


def loss(x):
    return (sq(x) + x).sum()


def test_custom_bprop_is_used_outside_and_inside_jit():
    close(sq(X), X * X)                                   # the forward is unchanged
    close(ms.grad(loss)(X), 4 * X + 1, rtol=1e-12)        # the doubled rule, not 2x + 1

    @ms.jit
    def step(x):
        return ms.grad(loss)(x)
    close(step(X), 4 * X + 1, rtol=1e-12)
    text = ms.grad(loss).lower(X)
    assert "mindir.bprop = @sq_bprop" in text


def test_bprop_sees_out_and_dout_and_none_means_zero():
    def bprop(x, y, out, dout):
        return dout * out, None              # d/dx := dout * (x * y); no gradient for y

    @ms.custom_bprop(bprop)
    def mul(x, y):
        return x * y

    y = np.array([3.0, 0.5, -1.0])
    gx, gy = ms.grad(lambda a, b: (mul(a, b) * 2.0).sum(), (0, 1))(X, y)
    close(gx, 2.0 * X * y, rtol=1e-12)
    close(gy, np.zeros(3))


class DoubleGradExp:
    """A Cell-like object: construct + bprop (the nn.Cell protocol)."""

    def construct(self, x):
        return ops.exp(x)

    def bprop(self, x, out, dout):
        return (2.0 * out * dout,)

    def __call__(self, x):
        return self.construct(x)


CELL = DoubleGradExp()


def cell_loss(x):
    return (CELL(x) * 3.0).sum()


def test_cell_bprop_outside_and_inside_jit():
    close(ms.grad(cell_loss)(X), 6.0 * np.exp(X), rtol=1e-12)

    @ms.jit
    def step(x):
        v, g = ms.value_and_grad(cell_loss)(x)
        return v, g
    v, g = step(X)
    close(v, 3 * np.exp(X).sum(), rtol=1e-12)
    close(g, 6.0 * np.exp(X), rtol=1e-12)


def test_second_order_differentiates_the_bprop():
    # d/dx sum(grad(sum sq)(x)) with the doubled rule 4x: 4 everywhere
    def inner(x):
        return sq(x).sum()
    close(ms.grad(lambda x: ms.grad(inner)(x).sum())(X), 4.0 * np.ones(3), rtol=1e-12)


def test_bprop_using_a_parameter_and_weights_of_the_forward():
    scale = Parameter(np.array(3.0), name="scale")
    w = Parameter(np.array([0.5, 1.0, -1.0]), name="w")

    def bprop(x, out, dout):
        return (dout * scale,)                 # a Parameter inside the bprop: a run-time input

    @ms.custom_bprop(bprop)
    def f(x):
        return x * w

    g = ms.grad(lambda x: f(x).sum())
    close(g(X), 3.0 * np.ones(3))
    scale.set_data(np.array(5.0))
    close(g(X), 5.0 * np.ones(3))               # no recompilation: scale is an input
    # the forward's Parameters get no gradient through a custom bprop (zeros)
    gx, gw = ms.grad(lambda x: f(x).sum(), 0, [w])(X)
    close(gx, 5.0 * np.ones(3))
    close(gw[0], np.zeros(3))


def test_bprop_arity_error():
    def bad(x, y, out, dout):
        return (dout,)

    @ms.custom_bprop(bad)
    def f(x, y):
        return x * y
    with pytest.raises(ms.CompileError, match="returned 1 gradient"):
        ms.grad(lambda a, b: f(a, b).sum())(X, X)


def test_nn_cell_with_bprop_parsed_and_traced_calls():
    """An nn.Cell subclass with bprop: used from parsed code, from a traced lambda,
    as the differentiated function itself, and inside a bigger network (weights)."""
    from msmlir import nn

    class Sq(nn.Cell):
        def __init__(self):
            super().__init__()
            self.k = Parameter(np.array(2.0), name="k")

        def construct(self, x):
            if x.sum() > 0:          # control flow in construct: parsed, not traced
                return x * x
            return x

        def bprop(self, x, out, dout):
            return (dout * self.k * 2.0 * x,)     # k = 2: twice the true derivative

    sq = Sq()

    def parsed(z):
        return sq(z).sum()
    close(ms.grad(parsed)(X), 4 * X, rtol=1e-12)
    close(ms.grad(lambda z: sq(z).sum())(X), 4 * X, rtol=1e-12)
    close(ms.grad(sq)(X), 4 * X, rtol=1e-12)
    sq.k.set_data(np.array(0.5))
    close(ms.grad(sq)(X), X, rtol=1e-12)

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = Parameter(np.array([[0.5, -1.0], [0.25, 2.0], [1.0, 1.0]]), name="w")
            self.sq = Sq()

        def construct(self, x):
            return self.sq(ops.matmul(x, self.w)).sum()

    net = Net()
    xb = np.array([[1.0, 2.0, 3.0]])
    gw = ms.grad(net, None, [net.w])(xb)[0]
    h = xb @ net.w.asnumpy()
    close(gw, xb.T @ (4.0 * h), rtol=1e-12)    # chain rule through the custom rule 4h
