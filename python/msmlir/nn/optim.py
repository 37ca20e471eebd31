"""Optimizers (mindspore.nn): SGD, Momentum, Adam (incl. AMSGrad), AdamWeightDecay.

An optimizer is a Cell: `optimizer(grads)` applies one update. Its construct
writes the new values with `ops.assign`, so in GRAPH_MODE (or inside a jitted
train step) the update is part of the compiled graph; in PYNATIVE_MODE it runs
op by op. The update formulas, and the order of their float operations, are
those of MindSpore's CPU kernels (see each class). State (moments, step
counter, the learning rate) lives in non-trainable Parameters registered on the
optimizer under MindSpore's names ('moment1.<param>', 'global_step',
'learning_rate', ...), so a checkpoint of the train network holds them too.

`params`: a list of Parameters, or of group dicts with the keys 'params',
'lr', 'weight_decay', 'grad_centralization' (accepted, no effect) and, alone in
its dict, 'order_params' (the order of the parameters in the optimizer). A
group without 'lr' / 'weight_decay' uses the optimizer's arguments.

Learning rate: a float (kept in the Parameter 'learning_rate'); a list, tuple,
1-D ndarray or Tensor (the value at step i, the last one after the end); or a
LearningRateSchedule cell (any callable `lr(global_step)` is accepted too).
`global_step` counts steps only when some learning rate is dynamic (as in
MindSpore).

Weight decay (`decay_weight`, Momentum/Adam): g += wd * w, for the parameters
whose name contains neither 'beta' nor 'gamma' when `params` is a plain list,
for every parameter of a group whose weight decay is > 0 when grouped.
"""
from __future__ import annotations

import numbers
from collections.abc import Iterable

import numpy as np

from .. import dtype as mstype
from .. import ops
from ..common.parameter import Parameter, ParameterTuple
from ..common.tensor import Tensor
from .cell import Cell
from .learning_rate_schedule import LearningRateSchedule  # noqa: F401  (mindspore.nn.optim re-exports it)

__all__ = ["Optimizer", "SGD", "Momentum", "Adam", "AdamWeightDecay", "LearningRateSchedule"]

_GROUP_KEYS = ("params", "lr", "weight_decay", "grad_centralization", "order_params")


def _real(v, name, cls, low=0.0, low_open=False, high=None, high_open=True):
    """A float argument in a range (MindSpore's validators)."""
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise TypeError(f"For '{cls}', the argument '{name}' must be a float, but got "
                        f"{type(v).__name__}.")
    v = float(v)
    if (v <= low if low_open else v < low) or (high is not None and (v >= high if high_open
                                                                     else v > high)):
        rng = f"{'(' if low_open else '['}{low}, {high if high is not None else 'inf'}" \
              f"{')' if high_open or high is None else ']'}"
        raise ValueError(f"For '{cls}', the argument '{name}' must be in {rng}, but got {v}.")
    return v


def _lr_value(lr, cls):
    """A learning rate as a float, a float32 table (1-D ndarray) or a callable."""
    if isinstance(lr, bool):
        raise TypeError(f"For '{cls}', 'learning_rate' must be a float, an int, a Tensor, an "
                        f"Iterable or a LearningRateSchedule, but got bool.")
    if isinstance(lr, numbers.Real):
        return _real(lr, "learning_rate", cls)
    if isinstance(lr, Tensor):
        if lr.ndim == 0:
            return float(lr.asnumpy())
        if lr.ndim > 1:
            raise ValueError(f"For '{cls}', a Tensor 'learning_rate' must have 0 or 1 dimensions, "
                             f"but got {lr.ndim}.")
        return np.asarray(lr.asnumpy(), np.float32)
    if isinstance(lr, Cell) or callable(lr):
        return lr
    if isinstance(lr, Iterable):
        arr = np.asarray(list(lr), np.float32).reshape(-1)
        if arr.size == 0:
            raise ValueError(f"For '{cls}', a dynamic 'learning_rate' must not be empty.")
        return arr
    raise TypeError(f"For '{cls}', 'learning_rate' must be a float, an int, a Tensor, an Iterable "
                    f"or a LearningRateSchedule, but got {type(lr).__name__}.")


def _lr_kind(src):
    if isinstance(src, Parameter):
        return "const" if src.ndim == 0 else "table"
    return "fn"


class Optimizer(Cell):
    """Base of the optimizers (mindspore.nn.Optimizer): parameter groups, learning
    rates, weight decay, loss scale and the helpers MindSpore's optimizers share
    (`get_lr`, `get_lr_parameter`, `decay_weight`, `scale_grad`, ...)."""

    def __init__(self, learning_rate, parameters, weight_decay=0.0, loss_scale=1.0):
        super().__init__(auto_prefix=False)
        cls = type(self).__name__
        self.loss_scale = _real(loss_scale, "loss_scale", cls, low_open=True)
        self.weight_decay = _real(weight_decay, "weight_decay", cls)
        if parameters is None:
            raise ValueError(f"For '{cls}', the argument 'parameters' can not be None.")
        items = list(parameters)
        if not items:
            raise ValueError(f"For '{cls}', the argument 'parameters' must not be empty.")
        self.is_group = isinstance(items[0], dict)
        self.is_group_lr = False
        default_lr = self._build_lr(learning_rate, "learning_rate")
        self.learning_rate = default_lr
        if self.is_group:
            params, lrs, wds = self._parse_groups(items, default_lr)
            self.decay_flags = tuple(wd > 0 for wd in wds)
        else:
            for i, p in enumerate(items):
                if not isinstance(p, Parameter):
                    raise TypeError(f"For '{cls}', the element of 'parameters' must be Parameter "
                                    f"or dict, but got {type(p).__name__} at index {i}.")
            params, lrs, wds = items, [default_lr] * len(items), [self.weight_decay] * len(items)
            self.decay_flags = tuple("beta" not in p.name and "gamma" not in p.name for p in params)
        object.__setattr__(self, "_parameters", ParameterTuple(params))
        self.weight_decays = tuple(wds)
        self.exec_weight_decay = any(f and wd > 0 for f, wd in zip(self.decay_flags, wds))
        # distinct learning-rate sources, and the one of each parameter
        unique = []
        for src in lrs:
            if not any(src is u for u in unique):
                unique.append(src)
        object.__setattr__(self, "_lr_sources", tuple(unique))
        self._lr_index = tuple(next(j for j, u in enumerate(unique) if u is src) for src in lrs)
        self._lr_kinds = tuple(_lr_kind(u) for u in unique)
        self._lr_lens = tuple(int(u.size) if k == "table" else 0
                              for u, k in zip(unique, self._lr_kinds))
        self.dynamic_lr = any(k != "const" for k in self._lr_kinds)
        self.global_step = Parameter(Tensor(np.zeros((1,), np.int32)), name="global_step",
                                     requires_grad=False)

    # ---- construction helpers --------------------------------------------------------
    def _build_lr(self, lr, name):
        """A learning rate as a registered non-trainable Parameter (a float: shape (),
        a table: 1-D) or a callable (a LearningRateSchedule cell is registered as a
        sub-cell)."""
        v = _lr_value(lr, type(self).__name__)
        if isinstance(v, float):
            v = Parameter(Tensor(np.asarray(v, np.float32)), name=name, requires_grad=False)
        elif isinstance(v, np.ndarray):
            v = Parameter(Tensor(v), name=name, requires_grad=False)
        if name != "learning_rate":
            if isinstance(v, Parameter):
                self.insert_param_to_cell(name, v)
            elif isinstance(v, Cell):
                self.insert_child_to_cell(name, v)
        return v

    def _parse_groups(self, groups, default_lr):
        cls = type(self).__name__
        params, lrs, wds, order = [], [], [], None
        for gi, g in enumerate(groups):
            if not isinstance(g, dict):
                raise TypeError(f"For '{cls}', the elements of 'parameters' must all be Parameters or "
                                f"all dicts, but got {type(g).__name__} at index {gi}.")
            bad = [k for k in g if k not in _GROUP_KEYS]
            if bad:
                raise KeyError(f"For '{cls}', the keys of a parameter group must be in "
                               f"{list(_GROUP_KEYS)}, but got {bad}.")
            if "order_params" in g:
                if len(g) > 1:
                    raise ValueError(f"For '{cls}', the 'order_params' dict must only hold the key "
                                     f"'order_params', but got {list(g)}.")
                if not isinstance(g["order_params"], Iterable):
                    raise TypeError(f"For '{cls}', 'order_params' must be Iterable.")
                order = list(g["order_params"])
                continue
            if "params" not in g:
                raise KeyError(f"For '{cls}', a parameter group needs the key 'params'.")
            group = list(g["params"])
            if not group:
                raise ValueError(f"For '{cls}', the 'params' of group {gi} must not be empty.")
            if "lr" in g:
                self.is_group_lr = True
                lr = self._build_lr(g["lr"], f"learning_rate_group_{gi}")
            else:
                lr = default_lr
            wd = _real(g["weight_decay"], "weight_decay", cls) if "weight_decay" in g \
                else self.weight_decay
            for i, p in enumerate(group):
                if not isinstance(p, Parameter):
                    raise TypeError(f"For '{cls}', the 'params' of a group must be Parameters, but "
                                    f"got {type(p).__name__} at index {i} of group {gi}.")
                if any(p is q for q in params):
                    raise RuntimeError(f"For '{cls}', the parameter {p.name} is in more than one "
                                       f"group.")
                params.append(p)
                lrs.append(lr)
                wds.append(wd)
        if not params:
            raise ValueError(f"For '{cls}', the parameter groups hold no parameters.")
        if order is not None:
            if len(order) != len(params):
                raise ValueError(f"For '{cls}', 'order_params' must list the {len(params)} grouped "
                                 f"parameters, but got {len(order)}.")
            names = [p.name for p in order]
            pos = []
            for p in params:
                if p.name not in names:
                    raise ValueError(f"For '{cls}', the parameter {p.name} is not in "
                                     f"'order_params'.")
                pos.append(names.index(p.name))
            perm = sorted(range(len(params)), key=lambda i: pos[i])
            params, lrs, wds = ([seq[i] for i in perm] for seq in (params, lrs, wds))
        return params, lrs, wds

    def _state(self, name, prefix, init="zeros"):
        """A clone of the parameters (MindSpore's `parameters.clone(prefix, init)`),
        non-trainable and registered on the optimizer, kept as attribute `name`."""
        clones, names = [], set()
        for i, p in enumerate(self._parameters):
            c = p.clone(init)
            c.name = f"{prefix}.{p.name}"
            if c.name in names:              # parameters left unnamed ('Parameter')
                c.name = f"{prefix}.{p.name}.{i}"
            names.add(c.name)
            c.requires_grad = False
            self.insert_param_to_cell(c.name, c, check_name_contain_dot=False)
            clones.append(c)
        clones = ParameterTuple(clones)
        object.__setattr__(self, name, clones)
        return clones

    def _scalar_state(self, name, value, dtype=np.float32):
        setattr(self, name, Parameter(Tensor(np.asarray(value, dtype)), name=name,
                                      requires_grad=False))

    # ---- MindSpore API ------------------------------------------------------------------
    @property
    def parameters(self):
        return self._parameters

    def _eval_lr(self, j, step):
        kind = self._lr_kinds[j]
        src = self._lr_sources[j]
        if kind == "const":
            return src
        if kind == "table":
            return ops.gather(src, ops.minimum(step, self._lr_lens[j] - 1), 0)
        return ops.reshape(ops.cast(src(step), mstype.float32), ())

    def get_lr(self):
        """The learning rate of the current step: a scalar tensor, or with per-group
        learning rates a tuple with one per parameter. Advances `global_step` when
        a learning rate is dynamic (as MindSpore's `get_lr`)."""
        step = ops.reshape(self.global_step, ())
        values = []
        for j in range(len(self._lr_kinds)):
            values.append(self._eval_lr(j, step))
        if self.dynamic_lr:
            ops.assign(self.global_step, self.global_step + 1)
        if self.is_group_lr:
            lrs = []
            for i in range(len(self._lr_index)):
                lrs.append(values[self._lr_index[i]])
            return tuple(lrs)
        return values[0]

    def get_lr_parameter(self, param):
        """The learning rate of `param` (a Parameter, or a list of them): its
        'learning_rate' Parameter (a float or a table), or its schedule."""
        plist = [param] if isinstance(param, Parameter) else param
        if not isinstance(plist, list):
            raise TypeError(f"For 'get_lr_parameter', 'param' must be a Parameter or a list, but "
                            f"got {type(param).__name__}.")
        out = []
        for p in plist:
            idx = next((i for i, q in enumerate(self._parameters) if q is p), None)
            if idx is None:
                raise ValueError(f"For 'get_lr_parameter', the parameter {getattr(p, 'name', p)} "
                                 f"is not in the optimizer.")
            out.append(self._lr_sources[self._lr_index[idx]])
        return out if isinstance(param, list) else out[0]

    def get_weight_decay(self):
        return self.weight_decays if self.is_group else self.weight_decay

    def decay_weight(self, gradients):
        """g + wd * w for the parameters selected by `decay_flags` (the weight decay
        scaled by loss_scale, as MindSpore, since the gradients are still scaled)."""
        if not self.exec_weight_decay:
            return gradients
        out = []
        for i in range(len(self._parameters)):
            g = gradients[i]
            if self.decay_flags[i] and self.weight_decays[i] > 0:
                g = self._parameters[i] * (self.weight_decays[i] * self.loss_scale) + g
            out.append(g)
        return tuple(out)

    def gradients_centralization(self, gradients):
        return gradients

    def flatten_gradients(self, gradients):
        return gradients

    def scale_grad(self, gradients):
        """Gradients divided by loss_scale."""
        if self.loss_scale == 1.0:
            return gradients
        return tuple(g * (1.0 / self.loss_scale) for g in gradients)

    def _prepared(self, gradients):
        """decay_weight then scale_grad (the order of MindSpore's Momentum and Adam)."""
        return self.scale_grad(self.decay_weight(tuple(gradients)))

    def _lr_of(self, lr, i):
        """The learning rate of parameter i out of `get_lr()`'s result."""
        return lr[i] if self.is_group_lr else lr


class SGD(Optimizer):
    """MindSpore SGD (the SGD kernel): g = grad + wd * w (every parameter, no name
    filter); with momentum > 0: accum = g on the first step, then
    accum = momentum * accum + (1 - dampening) * g; g = g + momentum * accum
    (nesterov) or accum; w -= lr * g."""

    def __init__(self, params, learning_rate=0.1, momentum=0.0, dampening=0.0, weight_decay=0.0,
                 nesterov=False, loss_scale=1.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.momentum = _real(momentum, "momentum", "SGD")
        self.dampening = _real(dampening, "dampening", "SGD")
        if not isinstance(nesterov, bool):
            raise TypeError(f"For 'SGD', 'nesterov' must be a bool, but got {type(nesterov).__name__}.")
        if nesterov and (self.momentum <= 0 or self.dampening != 0):
            raise ValueError("For 'SGD', if 'nesterov' is true, 'momentum' must be > 0.0 and "
                             "'dampening' must equal 0.0.")
        self.nesterov = nesterov
        # MindSpore builds the SGD kernels from the grouped weight decays after they were
        # scaled by loss_scale, from the plain argument otherwise
        scale = self.loss_scale if self.is_group else 1.0
        self.sgd_weight_decays = tuple(wd * scale for wd in self.weight_decays)
        self._state("accum", "accum", "zeros")
        self._state("stat", "stat", "ones")

    def construct(self, gradients):
        params = self._parameters
        gradients = self.scale_grad(self.gradients_centralization(tuple(gradients)))
        lr = self.get_lr()
        out = []
        for i in range(len(params)):
            w = params[i]
            g = gradients[i]
            if self.sgd_weight_decays[i] > 0:
                g = g + w * self.sgd_weight_decays[i]
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
            out.append(ops.assign(w, w - g * self._lr_of(lr, i)))
        return tuple(out)


class Momentum(Optimizer):
    """MindSpore Momentum (the ApplyMomentum kernel): accum = momentum * accum + g;
    w -= g * lr + accum * momentum * lr (nesterov) or accum * lr."""

    def __init__(self, params, learning_rate, momentum, weight_decay=0.0, loss_scale=1.0,
                 use_nesterov=False):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.momentum = _real(momentum, "momentum", "Momentum")
        self.use_nesterov = bool(use_nesterov)
        self._state("moments", "moments", "zeros")

    def construct(self, gradients):
        params = self._parameters
        gradients = self._prepared(gradients)
        lr = self.get_lr()
        out = []
        for i in range(len(params)):
            w = params[i]
            g = gradients[i]
            lr_i = self._lr_of(lr, i)
            m = self.moments[i]
            new_m = ops.assign(m, m * self.momentum + g)
            out.append(new_m)
            if self.use_nesterov:
                out.append(ops.assign(w, w - (g * lr_i + new_m * self.momentum * lr_i)))
            else:
                out.append(ops.assign(w, w - new_m * lr_i))
        return tuple(out)


def _adam_moments(m, v, g, beta1, beta2):
    """m += (g - m)(1 - beta1); v += (g^2 - v)(1 - beta2), assigned (MindSpore's
    Adam CPU kernels); returns the new values."""
    new_m = ops.assign(m, m + (g - m) * (1.0 - beta1))
    new_v = ops.assign(v, v + (g * g - v) * (1.0 - beta2))
    return new_m, new_v


def _check_betas(beta1, beta2, eps, cls):
    return (_real(beta1, "beta1", cls, low_open=True, high=1.0),
            _real(beta2, "beta2", cls, low_open=True, high=1.0),
            _real(eps, "eps", cls, low_open=True))


class Adam(Optimizer):
    """MindSpore Adam: lr_t = lr * sqrt(1 - beta2^t) / (1 - beta1^t);
    m += (g - m)(1 - beta1); v += (g^2 - v)(1 - beta2); w -= lr_t * m / (sqrt(v) + eps)
    (use_nesterov: m replaced by beta1 m + (1 - beta1) g in the update).
    use_amsgrad (ApplyAdamWithAmsgrad): vhat = max(vhat, v) replaces v in the
    update (use_nesterov is then ignored, as in MindSpore)."""

    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8,
                 use_locking=False, use_nesterov=False, weight_decay=0.0, loss_scale=1.0,
                 use_amsgrad=False, **kwargs):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.beta1, self.beta2, self.eps = _check_betas(beta1, beta2, eps, "Adam")
        for flag in ("use_locking", "use_nesterov", "use_amsgrad"):
            if not isinstance(locals()[flag], bool):
                raise TypeError(f"For 'Adam', '{flag}' must be a bool.")
        if kwargs.get("use_lazy") or kwargs.get("use_offload"):
            raise NotImplementedError("Adam: use_lazy / use_offload are not supported")
        self.use_nesterov = use_nesterov
        self.use_amsgrad = use_amsgrad
        self._scalar_state("beta1_power", 1.0)
        self._scalar_state("beta2_power", 1.0)
        self._state("moment1", "moment1")
        self._state("moment2", "moment2")
        if use_amsgrad:
            self._state("vhat", "vhat")

    def construct(self, gradients):
        params = self._parameters
        gradients = self._prepared(gradients)
        lr = self.get_lr()
        b1p = ops.assign(self.beta1_power, self.beta1_power * self.beta1)
        b2p = ops.assign(self.beta2_power, self.beta2_power * self.beta2)
        out = [b1p, b2p]
        correction = ops.sqrt(1.0 - b2p)
        for i in range(len(params)):
            w = params[i]
            g = gradients[i]
            lr_t = self._lr_of(lr, i) * correction / (1.0 - b1p)
            m, v = _adam_moments(self.moment1[i], self.moment2[i], g, self.beta1, self.beta2)
            out.append(m)
            out.append(v)
            if self.use_amsgrad:
                vh = ops.assign(self.vhat[i], ops.maximum(self.vhat[i], v))
                out.append(vh)
                upd = lr_t * m / (ops.sqrt(vh) + self.eps)
            elif self.use_nesterov:
                upd = lr_t * (m * self.beta1 + g * (1.0 - self.beta1)) / (ops.sqrt(v) + self.eps)
            else:
                upd = lr_t * m / (ops.sqrt(v) + self.eps)
            out.append(ops.assign(w, w - upd))
        return tuple(out)


class AdamWeightDecay(Optimizer):
    """MindSpore AdamWeightDecay (no bias correction): m = beta1 m + (1 - beta1) g;
    v = beta2 v + (1 - beta2) g^2; u = m / (eps + sqrt(v)) (+ wd * w where
    `decay_flags`); w -= lr * u."""

    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-6,
                 weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay)
        self.beta1, self.beta2, self.eps = _check_betas(beta1, beta2, eps, "AdamWeightDecay")
        self._state("moments1", "adam_m")
        self._state("moments2", "adam_v")

    def construct(self, gradients):
        params = self._parameters
        gradients = self.gradients_centralization(tuple(gradients))
        lr = self.get_lr()
        out = []
        for i in range(len(params)):
            w = params[i]
            g = gradients[i]
            m = self.moments1[i]
            v = self.moments2[i]
            new_m = ops.assign(m, m * self.beta1 + g * (1.0 - self.beta1))
            new_v = ops.assign(v, v * self.beta2 + g * g * (1.0 - self.beta2))
            out.append(new_m)
            out.append(new_v)
            upd = new_m / (ops.sqrt(new_v) + self.eps)
            if self.decay_flags[i] and self.weight_decays[i] > 0:
                upd = w * self.weight_decays[i] + upd
            out.append(ops.assign(w, w - upd * self._lr_of(lr, i)))
        return tuple(out)



class Lamb(Optimizer):
    """MindSpore Lamb (its GPU/CPU update): bias-corrected Adam moments
    mm = m / (1 - beta1^t), vv = v / (1 - beta2^t) with t = global_step + 1;
    update = mm / (sqrt(vv) + eps) (+ wd * w where `decay_flags`); trust ratio
    |w| / |mm * rsqrt(vv + eps) + wd * w| (1 where |w| or |g| is 0), clipped to
    [0, 10]; w -= lr * ratio * update. `global_step` advances once per step."""

    def __init__(self, params, learning_rate, beta1=0.9, beta2=0.999, eps=1e-6,
                 weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay)
        self.beta1, self.beta2, self.eps = _check_betas(beta1, beta2, eps, "Lamb")
        self._state("moments1", "lamb_m")
        self._state("moments2", "lamb_v")

    def construct(self, gradients):
        params = self._parameters
        gradients = self.gradients_centralization(tuple(gradients))
        t = ops.cast(ops.reshape(self.global_step, ()), mstype.float32) + 1.0
        lr = self.get_lr()
        c1 = 1.0 - ops.pow(ops.scalar_to_tensor(self.beta1, mstype.float32), t)
        c2 = 1.0 - ops.pow(ops.scalar_to_tensor(self.beta2, mstype.float32), t)
        out = []
        for i in range(len(params)):
            w = params[i]
            g = gradients[i]
            wd = self.weight_decays[i]
            m = ops.assign(self.moments1[i], self.moments1[i] * self.beta1 + g * (1.0 - self.beta1))
            v = ops.assign(self.moments2[i], self.moments2[i] * self.beta2
                           + g * g * (1.0 - self.beta2))
            out.append(m)
            out.append(v)
            mm = m / c1
            vv = v / c2
            w_norm = ops.sqrt(ops.reduce_sum(w * w))
            g_norm = ops.sqrt(ops.reduce_sum(g * g))
            h = mm * ops.rsqrt(vv + self.eps) + w * wd
            ratio = ops.select(w_norm > 0.0, ops.select(g_norm > 0.0,
                                                        w_norm / ops.sqrt(ops.reduce_sum(h * h)),
                                                        1.0), 1.0)
            ratio = ops.clip_by_value(ratio, 0.0, 10.0)
            upd = mm / (ops.sqrt(vv) + self.eps)
            if self.decay_flags[i] and wd > 0:
                upd = upd + w * wd
            out.append(ops.assign(w, w - upd * (ratio * self._lr_of(lr, i))))
        if not self.dynamic_lr:
            out.append(ops.assign(self.global_step, self.global_step + 1))
        return tuple(out)


class Adagrad(Optimizer):
    """MindSpore Adagrad (the ApplyAdagrad kernel): accum += g^2;
    w -= lr * g / sqrt(accum); accum starts at `accum` (0.1)."""

    def __init__(self, params, accum=0.1, learning_rate=0.001, update_slots=True,
                 loss_scale=1.0, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        if isinstance(accum, bool) or not isinstance(accum, (int, float)) or accum < 0:
            raise ValueError(f"For 'Adagrad', 'accum' must be a non-negative float, but got "
                             f"{accum!r}.")
        self.update_slots = bool(update_slots)
        self._state("accum", "accum", float(accum))

    def construct(self, gradients):
        params = self._parameters
        gradients = self._prepared(gradients)
        lr = self.get_lr()
        out = []
        for i in range(len(params)):
            w = params[i]
            g = gradients[i]
            acc = self.accum[i]
            if self.update_slots:
                acc = ops.assign(acc, acc + g * g)
                out.append(acc)
            out.append(ops.assign(w, w - self._lr_of(lr, i) * g * ops.rsqrt(acc)))
        return tuple(out)


class RMSProp(Optimizer):
    """MindSpore RMSProp (ApplyRMSProp / ApplyCenteredRMSProp): ms = decay ms +
    (1 - decay) g^2 (ms starts at ones); centered: mg = decay mg + (1 - decay) g
    and the denominator is sqrt(ms - mg^2 + eps), else sqrt(ms + eps);
    mom = momentum mom + lr g / denominator; w -= mom."""

    def __init__(self, params, learning_rate=0.1, decay=0.9, momentum=0.0, epsilon=1e-10,
                 use_locking=False, centered=False, loss_scale=1.0, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        for name, v in (("decay", decay), ("momentum", momentum), ("epsilon", epsilon)):
            if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0:
                raise ValueError(f"For 'RMSProp', '{name}' must be a non-negative float, but "
                                 f"got {v!r}.")
        self.decay, self.momentum, self.epsilon = float(decay), float(momentum), float(epsilon)
        self.centered = bool(centered)
        self._state("ms", "mean_square", "ones")
        self._state("moment", "moment", "zeros")
        if self.centered:
            self._state("mg", "mean_grad", "zeros")

    def construct(self, gradients):
        params = self._parameters
        gradients = self._prepared(gradients)
        lr = self.get_lr()
        out = []
        for i in range(len(params)):
            w = params[i]
            g = gradients[i]
            ms_ = ops.assign(self.ms[i], self.ms[i] * self.decay + g * g * (1.0 - self.decay))
            out.append(ms_)
            if self.centered:
                mg = ops.assign(self.mg[i], self.mg[i] * self.decay + g * (1.0 - self.decay))
                out.append(mg)
                denom = ops.sqrt(ms_ - mg * mg + self.epsilon)
            else:
                denom = ops.sqrt(ms_ + self.epsilon)
            mom = ops.assign(self.moment[i],
                             self.moment[i] * self.momentum + self._lr_of(lr, i) * g / denom)
            out.append(mom)
            out.append(ops.assign(w, w - mom))
        return tuple(out)


__all__ += ["Adagrad", "RMSProp", "Lamb"]
