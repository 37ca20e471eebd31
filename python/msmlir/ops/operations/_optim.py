"""MindSpore's `Apply*` optimizer primitives: one update step on Parameters, in place.

Each row takes the state Parameters first (var, accum, ...) as MindSpore does,
writes the new values back with `ops.assign` (so they work in PyNative, inside
`jit` and in a Cell's construct, where the assignments become the graph's
Parameter updates) and returns what MindSpore returns: the updated state
tuple, or `var` alone for ApplyGradientDescent / ApplyProximalGradientDescent /
ApplyFtrl / ApplyRMSProp / ApplyCenteredRMSProp. The formulas are MindSpore's
documented ones, checked against MindSpore 2.10's CPU kernels
(test/python/compat/test_optim_primitives.py); ApplyProximalAdagrad shrinks
with the adaptive rate lr/sqrt(accum) as MindSpore's kernel does.
"""
from __future__ import annotations

from ... import ops as F


def _shrink(prox, rate_l1, rate_l2):
    """sign(p) / (1 + rate_l2) * max(|p| - rate_l1, 0): the proximal step of l1/l2."""
    return F.mul(F.div(F.sign(prox), F.add(1.0, rate_l2)),
                 F.maximum(F.sub(F.abs(prox), rate_l1), 0.0))


def _ema(avg, new, decay):
    """decay * avg + (1 - decay) * new."""
    return F.add(F.mul(avg, decay), F.mul(new, F.sub(1.0, decay)))


def gradient_descent(s, var, alpha, delta):
    return F.assign(var, F.sub(var, F.mul(alpha, delta)))


def proximal_gradient_descent(s, var, alpha, l1, l2, delta):
    prox = F.sub(var, F.mul(alpha, delta))
    return F.assign(var, _shrink(prox, F.mul(alpha, l1), F.mul(alpha, l2)))


def adagrad(s, var, accum, lr, grad):
    acc = F.assign(accum, F.add(accum, F.square(grad))) if s.update_slots else accum
    return F.assign(var, F.sub(var, F.div(F.mul(lr, grad), F.sqrt(acc)))), acc


def adagrad_v2(s, var, accum, lr, grad):
    acc = F.assign(accum, F.add(accum, F.square(grad))) if s.update_slots else accum
    step = F.div(F.mul(lr, grad), F.add(F.sqrt(acc), s.epsilon))
    return F.assign(var, F.sub(var, step)), acc


def proximal_adagrad(s, var, accum, lr, l1, l2, grad):
    acc = F.assign(accum, F.add(accum, F.square(grad)))
    rate = F.div(lr, F.sqrt(acc))
    prox = F.sub(var, F.mul(grad, rate))
    return F.assign(var, _shrink(prox, F.mul(rate, l1), F.mul(rate, l2))), acc


def adadelta(s, var, accum, accum_update, lr, rho, epsilon, grad):
    acc = F.assign(accum, _ema(accum, F.square(grad), rho))
    update = F.mul(F.div(F.sqrt(F.add(accum_update, epsilon)), F.sqrt(F.add(acc, epsilon))), grad)
    acc_upd = F.assign(accum_update, _ema(accum_update, F.square(update), rho))
    return F.assign(var, F.sub(var, F.mul(lr, update))), acc, acc_upd


def ada_max(s, var, m, v, beta1_power, lr, beta1, beta2, epsilon, grad):
    m_new = F.assign(m, _ema(m, grad, beta1))
    v_new = F.assign(v, F.maximum(F.mul(v, beta2), F.abs(grad)))
    step = F.mul(F.div(lr, F.sub(1.0, beta1_power)), F.div(m_new, F.add(v_new, epsilon)))
    return F.assign(var, F.sub(var, step)), m_new, v_new


def power_sign(s, var, m, lr, logbase, sign_decay, beta, grad):
    m_new = F.assign(m, _ema(m, grad, beta))
    agree = F.mul(F.sign(grad), F.sign(m_new))
    update = F.mul(F.exp(F.mul(F.mul(logbase, sign_decay), agree)), grad)
    return F.assign(var, F.sub(var, F.mul(lr, update))), m_new


def add_sign(s, var, m, lr, alpha, sign_decay, beta, grad):
    m_new = F.assign(m, _ema(m, grad, beta))
    agree = F.mul(F.sign(grad), F.sign(m_new))
    update = F.mul(F.add(alpha, F.mul(sign_decay, agree)), grad)
    return F.assign(var, F.sub(var, F.mul(lr, update))), m_new


def ftrl(s, var, accum, linear, grad, lr, l1, l2, lr_power):
    acc_new = F.add(accum, F.square(grad))
    p_new = F.pow(acc_new, F.neg(lr_power))
    sigma = F.div(F.sub(p_new, F.pow(accum, F.neg(lr_power))), lr)
    lin = F.assign(linear, F.sub(F.add(linear, grad), F.mul(sigma, var)))
    F.assign(accum, acc_new)
    quadratic = F.add(F.div(p_new, lr), F.mul(2.0, l2))
    value = F.div(F.sub(F.mul(F.sign(lin), l1), lin), quadratic)
    return F.assign(var, F.where(F.greater(F.abs(lin), l1), value, F.zeros_like(value)))


def rms_prop(s, var, mean_square, moment, learning_rate, grad, decay, momentum, epsilon):
    ms_new = F.assign(mean_square, _ema(mean_square, F.square(grad), decay))
    mom = F.assign(moment, F.add(F.mul(momentum, moment), F.div(
        F.mul(learning_rate, grad), F.sqrt(F.add(ms_new, epsilon)))))
    return F.assign(var, F.sub(var, mom))


def centered_rms_prop(s, var, mean_gradient, mean_square, moment, grad, learning_rate, decay,
                      momentum, epsilon):
    mg = F.assign(mean_gradient, _ema(mean_gradient, grad, decay))
    ms_new = F.assign(mean_square, _ema(mean_square, F.square(grad), decay))
    denom = F.sqrt(F.add(F.sub(ms_new, F.square(mg)), epsilon))
    mom = F.assign(moment, F.add(F.mul(momentum, moment),
                                 F.div(F.mul(learning_rate, grad), denom)))
    return F.assign(var, F.sub(var, mom))


def adam_with_amsgrad(s, var, m, v, vhat, beta1_power, beta2_power, lr, grad):
    lr_t = F.div(F.mul(lr, F.sqrt(F.sub(1.0, beta2_power))), F.sub(1.0, beta1_power))
    m_new = F.assign(m, _ema(m, grad, s.beta1))
    v_new = F.assign(v, _ema(v, F.square(grad), s.beta2))
    vhat_new = F.assign(vhat, F.maximum(vhat, v_new))
    step = F.div(F.mul(lr_t, m_new), F.add(F.sqrt(vhat_new), s.epsilon))
    return F.assign(var, F.sub(var, step)), m_new, v_new, vhat_new


ROWS = [
    ("ApplyGradientDescent", "", gradient_descent, "nn"),
    ("ApplyProximalGradientDescent", "", proximal_gradient_descent, "nn"),
    ("ApplyAdagrad", "update_slots=True", adagrad, "nn"),
    ("ApplyAdagradV2", "epsilon, update_slots=True", adagrad_v2, "nn"),
    ("ApplyProximalAdagrad", "use_locking=False", proximal_adagrad, "nn"),
    ("ApplyAdadelta", "use_locking=False", adadelta, "nn"),
    ("ApplyAdaMax", "use_locking=False", ada_max, "nn"),
    ("ApplyPowerSign", "use_locking=False", power_sign, "nn"),
    ("ApplyAddSign", "use_locking=False", add_sign, "nn"),
    ("ApplyFtrl", "use_locking=False", ftrl, "nn"),
    ("ApplyRMSProp", "use_locking=False", rms_prop, "nn"),
    ("ApplyCenteredRMSProp", "use_locking=False", centered_rms_prop, "nn"),
    ("ApplyAdamWithAmsgrad", "beta1=0.9, beta2=0.999, epsilon=1e-8, use_locking=False",
     adam_with_amsgrad, "nn"),
]
