"""Optimizers (mindspore.nn): SGD, Momentum, Adam, AdamWeightDecay.

An optimizer is a Cell: `optimizer(grads)` applies one update. Its construct
writes the new values with `ops.assign`, so in GRAPH_MODE (or inside a jitted
train step) the update is part of the compiled graph; in PYNATIVE_MODE it runs
op by op. The update formulas are MindSpore's (see each class). State
(moments, step counter) lives in non-trainable Parameters; construct returns
the tuple of assigned values (a graph output keeps the writes alive).

Learning rate: a float; a list/tuple/ndarray (value at step i, the last one
after the end); or a callable `lr(global_step)` (a LearningRateSchedule cell or
a function of the step Tensor).

Weight decay (Momentum/Adam, MindSpore's `decay_weight`): g += wd * w for the
parameters whose name contains neither 'beta' nor 'gamma'.
"""
from __future__ import annotations

import numbers

import numpy as np

from .. import dtype as mstype
from .. import ops
from ..common.parameter import Parameter, ParameterTuple
from ..common.tensor import Tensor
from .cell import Cell

__all__ = ["Optimizer", "SGD", "Momentum", "Adam", "AdamWeightDecay", "LearningRateSchedule"]


def _default_decay_filter(p):
    return "beta" not in p.name and "gamma" not in p.name


class LearningRateSchedule(Cell):
    """Base of learning-rate schedules: construct(global_step) -> lr."""


def _flatten_params(parameters):
    params = list(parameters)
    if params and isinstance(params[0], dict):
        out = []
        for g in params:
            out.extend(g["params"])
        return out, params
    return params, None


class Optimizer(Cell):
    def __init__(self, learning_rate, parameters, weight_decay=0.0, loss_scale=1.0):
        super().__init__(auto_prefix=False)
        params, groups = _flatten_params(parameters)
        if not params:
            raise ValueError("Optimizer got an empty parameter list")
        for p in params:
            if not isinstance(p, Parameter):
                raise TypeError(f"Optimizer: parameters must be Parameters, got {type(p).__name__}")
        object.__setattr__(self, "_parameters", ParameterTuple(params))
        self.loss_scale = float(loss_scale)
        self.weight_decay = float(weight_decay)
        wd = [self.weight_decay] * len(params)
        if groups is not None:
            i = 0
            for g in groups:
                for _ in g["params"]:
                    if "weight_decay" in g:
                        wd[i] = float(g["weight_decay"])
                    i += 1
        self.decay_flags = tuple(_default_decay_filter(p) for p in params)
        self.weight_decays = tuple(wd)
        self.global_step = Parameter(Tensor(np.zeros((1,), np.int32)), name="global_step",
                                     requires_grad=False)
        self._set_lr(learning_rate)

    @property
    def parameters(self):
        return self._parameters

    def _set_lr(self, lr):
        self.lr_kind = "const"
        self.lr_value = 0.0
        self.lr_fn = None
        if isinstance(lr, bool):
            raise TypeError("learning_rate must be a float, a list or a callable")
        if isinstance(lr, numbers.Real):
            if lr < 0:
                raise ValueError(f"learning_rate must be >= 0, got {lr}")
            self.lr_value = float(lr)
        elif isinstance(lr, Tensor) and lr.ndim == 0:
            self.lr_value = float(lr.asnumpy())
        elif isinstance(lr, (list, tuple, np.ndarray, Tensor)):
            arr = np.asarray(lr.asnumpy() if isinstance(lr, Tensor) else lr, np.float32).reshape(-1)
            self.lr_kind = "table"
            self.learning_rate = Parameter(Tensor(arr), name="learning_rate", requires_grad=False)
            self.lr_len = int(arr.size)
        elif callable(lr):
            self.lr_kind = "fn"
            if isinstance(lr, Cell):
                self.lr_fn = lr
            else:
                object.__setattr__(self, "lr_fn", lr)
        else:
            raise TypeError(f"learning_rate must be a float, a list or a callable, got {type(lr)}")

    def get_lr(self):
        """The learning rate of the current step (a scalar float32 tensor or a float)."""
        if self.lr_kind == "const":
            return self.lr_value
        step = ops.reshape(self.global_step, ())
        if self.lr_kind == "table":
            idx = ops.minimum(step, self.lr_len - 1)
            return ops.gather(self.learning_rate, idx, 0)
        return ops.reshape(ops.cast(self.lr_fn(step), mstype.float32), ())

    def _step(self):
        return ops.assign(self.global_step, self.global_step + 1)

    def decay_weight(self, param, grad, i):
        wd = self.weight_decays[i]
        if wd > 0 and self.decay_flags[i]:
            return grad + param * wd
        return grad

    def scale_grad(self, grad):
        if self.loss_scale != 1.0:
            return grad * (1.0 / self.loss_scale)
        return grad


class SGD(Optimizer):
    """MindSpore SGD: g = grad + wd * w; with momentum > 0: accum = g on the first
    step, then accum = momentum * accum + (1 - dampening) * g; g = g + momentum *
    accum (nesterov) or accum; w -= lr * g."""

    def __init__(self, params, learning_rate=0.1, momentum=0.0, dampening=0.0, weight_decay=0.0,
                 nesterov=False, loss_scale=1.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        if momentum < 0:
            raise ValueError(f"SGD: momentum must be >= 0, got {momentum}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("SGD: nesterov requires momentum > 0 and dampening = 0")
        self.momentum = float(momentum)
        self.dampening = float(dampening)
        self.nesterov = bool(nesterov)
        if self.momentum > 0:
            object.__setattr__(self, "accum", self._parameters.clone(prefix="accum", init="zeros"))
            object.__setattr__(self, "stat", self._parameters.clone(prefix="stat", init="ones"))
            for p in list(self.accum) + list(self.stat):
                p.requires_grad = False

    def construct(self, gradients):
        lr = self.get_lr()
        out = []
        for i in range(len(self._parameters)):
            w = self._parameters[i]
            g = self.scale_grad(gradients[i])
            if self.weight_decays[i] > 0:
                g = g + w * self.weight_decays[i]
            if self.momentum > 0:
                stat = self.stat[i]
                acc = self.accum[i]
                new_acc = ops.assign(acc, stat * g + (1.0 - stat) * (acc * self.momentum
                                                                      + g * (1.0 - self.dampening)))
                out.append(new_acc)
                out.append(ops.assign(stat, stat * 0.0))
                if self.nesterov:
                    g = g + new_acc * self.momentum
                else:
                    g = new_acc
            out.append(ops.assign(w, w - g * lr))
        out.append(self._step())
        return tuple(out)


class Momentum(Optimizer):
    """MindSpore Momentum (ApplyMomentum): accum = momentum * accum + g;
    w -= lr * (g + momentum * accum) (nesterov) or lr * accum."""

    def __init__(self, params, learning_rate, momentum, weight_decay=0.0, loss_scale=1.0,
                 use_nesterov=False):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        if isinstance(momentum, bool) or not isinstance(momentum, numbers.Real) or momentum < 0:
            raise ValueError(f"Momentum: momentum must be a float >= 0, got {momentum!r}")
        self.momentum = float(momentum)
        self.use_nesterov = bool(use_nesterov)
        object.__setattr__(self, "moments", self._parameters.clone(prefix="moments", init="zeros"))
        for p in self.moments:
            p.requires_grad = False

    def construct(self, gradients):
        lr = self.get_lr()
        out = []
        for i in range(len(self._parameters)):
            w = self._parameters[i]
            g = self.decay_weight(w, self.scale_grad(gradients[i]), i)
            m = self.moments[i]
            new_m = ops.assign(m, m * self.momentum + g)
            out.append(new_m)
            if self.use_nesterov:
                out.append(ops.assign(w, w - (g + new_m * self.momentum) * lr))
            else:
                out.append(ops.assign(w, w - new_m * lr))
        out.append(self._step())
        return tuple(out)


class Adam(Optimizer):
    """MindSpore Adam: m = b1 m + (1-b1) g; v = b2 v + (1-b2) g^2;
    w -= lr * sqrt(1-b2^t)/(1-b1^t) * m / (sqrt(v) + eps)
    (use_nesterov: m replaced by b1 m + (1-b1) g in the update)."""

    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8,
                 use_locking=False, use_nesterov=False, weight_decay=0.0, loss_scale=1.0,
                 use_amsgrad=False):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        if use_amsgrad:
            raise NotImplementedError("Adam(use_amsgrad=True) is not supported")
        self.beta1, self.beta2, self.eps = float(beta1), float(beta2), float(eps)
        self.use_nesterov = bool(use_nesterov)
        self.beta1_power = Parameter(Tensor(np.ones((1,), np.float32)), name="beta1_power",
                                     requires_grad=False)
        self.beta2_power = Parameter(Tensor(np.ones((1,), np.float32)), name="beta2_power",
                                     requires_grad=False)
        object.__setattr__(self, "moment1", self._parameters.clone(prefix="moment1", init="zeros"))
        object.__setattr__(self, "moment2", self._parameters.clone(prefix="moment2", init="zeros"))
        for p in list(self.moment1) + list(self.moment2):
            p.requires_grad = False

    def construct(self, gradients):
        lr = self.get_lr()
        b1p = ops.assign(self.beta1_power, self.beta1_power * self.beta1)
        b2p = ops.assign(self.beta2_power, self.beta2_power * self.beta2)
        out = [b1p, b2p]
        lr_t = ops.sqrt(1.0 - b2p) / (1.0 - b1p) * lr
        for i in range(len(self._parameters)):
            w = self._parameters[i]
            g = self.decay_weight(w, self.scale_grad(gradients[i]), i)
            m = self.moment1[i]
            v = self.moment2[i]
            new_m = ops.assign(m, m * self.beta1 + g * (1.0 - self.beta1))
            new_v = ops.assign(v, v * self.beta2 + g * g * (1.0 - self.beta2))
            out.append(new_m)
            out.append(new_v)
            if self.use_nesterov:
                upd = (new_m * self.beta1 + g * (1.0 - self.beta1)) / (ops.sqrt(new_v) + self.eps)
            else:
                upd = new_m / (ops.sqrt(new_v) + self.eps)
            out.append(ops.assign(w, w - upd * lr_t))
        out.append(self._step())
        return tuple(out)


class AdamWeightDecay(Optimizer):
    """MindSpore AdamWeightDecay (no bias correction): m, v as Adam;
    u = m / (sqrt(v) + eps) + wd * w (decay-filtered); w -= lr * u."""

    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-6,
                 weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay)
        self.beta1, self.beta2, self.eps = float(beta1), float(beta2), float(eps)
        object.__setattr__(self, "moments1", self._parameters.clone(prefix="adam_m", init="zeros"))
        object.__setattr__(self, "moments2", self._parameters.clone(prefix="adam_v", init="zeros"))
        for p in list(self.moments1) + list(self.moments2):
            p.requires_grad = False

    def construct(self, gradients):
        lr = self.get_lr()
        out = []
        for i in range(len(self._parameters)):
            w = self._parameters[i]
            g = gradients[i]
            m = self.moments1[i]
            v = self.moments2[i]
            new_m = ops.assign(m, m * self.beta1 + g * (1.0 - self.beta1))
            new_v = ops.assign(v, v * self.beta2 + g * g * (1.0 - self.beta2))
            out.append(new_m)
            out.append(new_v)
            upd = new_m / (ops.sqrt(new_v) + self.eps)
            if self.weight_decays[i] > 0 and self.decay_flags[i]:
                upd = upd + w * self.weight_decays[i]
            out.append(ops.assign(w, w - upd * lr))
        out.append(self._step())
        return tuple(out)
