"""MindSpore's Apply* optimizer primitives (ops/operations/_optim.py): one step on
Parameters, in place, against numpy transcriptions of MindSpore's formulas (each
checked against MindSpore 2.10's CPU kernels when they were written; ApplyFtrl's
kernel departs from its documented sign(linear)*l1 for negative `linear`, and
msmlir follows the documentation, as MindSpore's own test does), in PyNative and
inside a GRAPH_MODE Cell."""
import numpy as np
import pytest

import msmlir as ms
from msmlir import Parameter, Tensor, nn
from msmlir.ops import operations as P


def _shrink(p, r1, r2):
    return np.sign(p) / (1 + r2) * np.maximum(np.abs(p) - r1, 0)


def _gd(var, alpha, delta):
    return (var - alpha * delta,)


def _prox_gd(var, alpha, l1, l2, delta):
    return (_shrink(var - alpha * delta, alpha * l1, alpha * l2),)


def _adagrad(var, accum, lr, grad):
    accum = accum + grad * grad
    return var - lr * grad / np.sqrt(accum), accum


def _adagrad_v2(var, accum, lr, grad):
    accum = accum + grad * grad
    return var - lr * grad / (np.sqrt(accum) + 1e-6), accum


def _prox_adagrad(var, accum, lr, l1, l2, grad):
    accum = accum + grad * grad
    rate = lr / np.sqrt(accum)
    return _shrink(var - rate * grad, rate * l1, rate * l2), accum


def _adadelta(var, accum, accum_update, lr, rho, eps, grad):
    accum = rho * accum + (1 - rho) * grad * grad
    upd = np.sqrt(accum_update + eps) * grad / np.sqrt(accum + eps)
    return var - lr * upd, accum, rho * accum_update + (1 - rho) * upd * upd


def _adamax(var, m, v, beta1_power, lr, beta1, beta2, eps, grad):
    m = beta1 * m + (1 - beta1) * grad
    v = np.maximum(beta2 * v, np.abs(grad))
    return var - lr / (1 - beta1_power) * m / (v + eps), m, v


def _power_sign(var, m, lr, logbase, sign_decay, beta, grad):
    m = beta * m + (1 - beta) * grad
    return var - lr * np.exp(logbase * sign_decay * np.sign(grad) * np.sign(m)) * grad, m


def _add_sign(var, m, lr, alpha, sign_decay, beta, grad):
    m = beta * m + (1 - beta) * grad
    return var - lr * (alpha + sign_decay * np.sign(grad) * np.sign(m)) * grad, m


def _ftrl(var, accum, linear, grad, lr, l1, l2, lr_power):
    acc_new = accum + grad * grad
    linear = linear + grad - (acc_new ** -lr_power - accum ** -lr_power) / lr * var
    quad = acc_new ** -lr_power / lr + 2 * l2
    return np.where(np.abs(linear) > l1, (np.sign(linear) * l1 - linear) / quad, 0), acc_new, linear


def _rmsprop(var, ms_, mom, lr, grad, decay, momentum, eps):
    ms_ = decay * ms_ + (1 - decay) * grad * grad
    mom = momentum * mom + lr * grad / np.sqrt(ms_ + eps)
    return var - mom, ms_, mom


def _centered(var, mg, ms_, mom, grad, lr, decay, momentum, eps):
    mg = decay * mg + (1 - decay) * grad
    ms_ = decay * ms_ + (1 - decay) * grad * grad
    mom = momentum * mom + lr * grad / np.sqrt(ms_ - mg * mg + eps)
    return var - mom, mg, ms_, mom


def _amsgrad(var, m, v, vhat, beta1_power, beta2_power, lr, grad):
    lr_t = lr * np.sqrt(1 - beta2_power) / (1 - beta1_power)
    m = 0.9 * m + 0.1 * grad
    v = 0.999 * v + 0.001 * grad * grad
    vhat = np.maximum(vhat, v)
    return var - lr_t * m / (np.sqrt(vhat) + 1e-8), m, v, vhat


R = np.random.RandomState(0)
SH = (2, 3)


def _u(lo=-1.0, hi=1.0):
    return R.uniform(lo, hi, SH).astype(np.float32)


f = np.float32
# (primitive, state arrays, other inputs, reference, outputs: "state" or "var")
CASES = {
    "gd": (P.ApplyGradientDescent(), [_u()], [f(0.1), _u()], _gd, "var"),
    "prox_gd": (P.ApplyProximalGradientDescent(), [_u()], [f(0.1), f(0.5), f(0.3), _u()],
                _prox_gd, "var"),
    "adagrad": (P.ApplyAdagrad(), [_u(), _u(0.1, 1)], [f(0.1), _u()], _adagrad, "state"),
    "adagrad_v2": (P.ApplyAdagradV2(epsilon=1e-6), [_u(), _u(0.1, 1)], [f(0.1), _u()],
                   _adagrad_v2, "state"),
    "prox_adagrad": (P.ApplyProximalAdagrad(), [_u(), _u(0.1, 1)],
                     [f(0.1), f(0.5), f(0.3), _u()], _prox_adagrad, "state"),
    "adadelta": (P.ApplyAdadelta(), [_u(), _u(0.1, 1), _u(0.1, 1)],
                 [f(0.1), f(0.9), f(1e-6), _u()], _adadelta, "state"),
    "adamax": (P.ApplyAdaMax(), [_u(), _u(), _u(0.1, 1)],
               [f(0.9), f(0.1), f(0.9), f(0.99), f(1e-7), _u()], _adamax, "state"),
    "power_sign": (P.ApplyPowerSign(), [_u(), _u()], [f(0.1), f(np.e), f(0.99), f(0.9), _u()],
                   _power_sign, "state"),
    "add_sign": (P.ApplyAddSign(), [_u(), _u()], [f(0.1), f(1.0), f(0.99), f(0.9), _u()],
                 _add_sign, "state"),
    "ftrl": (P.ApplyFtrl(), [_u(), _u(0.1, 1), _u(0.2, 1)],
             [_u(), f(0.1), f(0.01), f(0.02), f(-0.5)], _ftrl, "var"),
    "rmsprop": (P.ApplyRMSProp(), [_u(), _u(0.1, 1), _u()],
                [f(0.1), _u(), f(0.9), f(0.8), f(1e-6)], _rmsprop, "var"),
    "centered_rmsprop": (P.ApplyCenteredRMSProp(), [_u(), _u(-0.1, 0.1), _u(0.5, 1), _u()],
                         [_u(), f(0.1), f(0.9), f(0.8), f(1e-6)], _centered, "var"),
    "amsgrad": (P.ApplyAdamWithAmsgrad(), [_u(), _u(), _u(0.1, 1), _u(0.1, 1)],
                [f(0.9), f(0.999), f(0.1), _u()], _amsgrad, "state"),
}


class _Step(nn.Cell):
    def __init__(self, prim, state):
        super().__init__()
        self.op = prim
        self.n = len(state)
        for i, s in enumerate(state):
            setattr(self, f"s{i}", Parameter(Tensor(s.copy()), name=f"s{i}"))

    def construct(self, *args):
        if self.n == 1:
            return self.op(self.s0, *args)
        if self.n == 2:
            return self.op(self.s0, self.s1, *args)
        if self.n == 3:
            return self.op(self.s0, self.s1, self.s2, *args)
        return self.op(self.s0, self.s1, self.s2, self.s3, *args)


@pytest.mark.parametrize("mode", ["pynative", "graph"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_apply_step(name, mode):
    prim, state, rest, ref, outputs = CASES[name]
    want = ref(*state, *rest)
    args = [Tensor(a) if isinstance(a, np.ndarray) and a.ndim else
            (Tensor(a) if name == "amsgrad" else float(a)) for a in rest]
    if mode == "pynative":
        params = [Parameter(Tensor(s.copy()), name=f"s{i}") for i, s in enumerate(state)]
        out = prim(*params, *args)
    else:
        net = _Step(prim, state)
        ms.set_context(mode=ms.GRAPH_MODE)
        try:
            out = net(*args)
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
        params = [getattr(net, f"s{i}") for i in range(len(state))]
    for p, w in zip(params, want):
        np.testing.assert_allclose(p.asnumpy(), w, rtol=1e-5, atol=1e-6)
    outs = out if isinstance(out, tuple) else (out,)
    assert len(outs) == (len(state) if outputs == "state" else 1)
    for o, w in zip(outs, want):
        np.testing.assert_allclose(o.asnumpy(), w, rtol=1e-5, atol=1e-6)


def test_adagrad_without_slot_update():
    var, accum = Parameter(Tensor(np.ones(3, np.float32)), "v"), Parameter(
        Tensor(np.full(3, 4.0, np.float32)), "a")
    P.ApplyAdagrad(update_slots=False)(var, accum, 0.5, Tensor(np.ones(3, np.float32)))
    np.testing.assert_allclose(accum.asnumpy(), 4.0)
    np.testing.assert_allclose(var.asnumpy(), 1 - 0.5 / 2)


def test_constructor_arguments_are_checked():
    with pytest.raises(TypeError, match="ApplyAdagradV2"):
        P.ApplyAdagradV2()          # epsilon is required, as in MindSpore
