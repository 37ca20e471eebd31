"""Dynamic learning rates as lists (mindspore.nn.dynamic_lr): one value per step,
computed in Python (float64) exactly as MindSpore does; pass the list to an
optimizer's `learning_rate`. `current_epoch = floor(i / step_per_epoch)`."""
from __future__ import annotations

import math

from .learning_rate_schedule import _bool, _float, _pos_int

__all__ = ["piecewise_constant_lr", "exponential_decay_lr", "natural_exp_decay_lr",
           "inverse_decay_lr", "cosine_decay_lr", "polynomial_decay_lr", "warmup_lr"]


def _epochs(total_step, step_per_epoch, fn):
    """current_epoch of each step."""
    total_step = _pos_int(total_step, "total_step", fn)
    step_per_epoch = _pos_int(step_per_epoch, "step_per_epoch", fn)
    return [math.floor(i / step_per_epoch) for i in range(total_step)]


def piecewise_constant_lr(milestone, learning_rates):
    """lr[i] = learning_rates[t] for milestone[t-1] <= i < milestone[t]; the list has
    milestone[-1] entries."""
    fn = "piecewise_constant_lr"
    if not isinstance(milestone, (list, tuple)) or not isinstance(learning_rates, (list, tuple)):
        raise TypeError(f"For '{fn}', 'milestone' and 'learning_rates' must be lists or tuples.")
    if len(milestone) != len(learning_rates):
        raise ValueError(f"For '{fn}', 'milestone' and 'learning_rates' must have the same size, "
                         f"but got {len(milestone)} and {len(learning_rates)}.")
    lr, last = [], 0
    for i, item in enumerate(milestone):
        _pos_int(item, f"milestone[{i}]", fn)
        if isinstance(learning_rates[i], bool) or not isinstance(learning_rates[i], float):
            raise TypeError(f"For '{fn}', learning_rates[{i}] must be a float, but got "
                            f"{type(learning_rates[i]).__name__}.")
        if item < last:
            raise ValueError(f"For '{fn}', milestone[{i}] ({item}) must be >= milestone[{i - 1}] "
                             f"({last}).")
        lr += [learning_rates[i]] * (item - last)
        last = item
    return lr


def _check_decay(learning_rate, decay_rate, decay_epoch, is_stair, fn):
    _float(learning_rate, "learning_rate", fn)
    _float(decay_rate, "decay_rate", fn)
    _bool(is_stair, "is_stair", fn)
    return _pos_int(decay_epoch, "decay_epoch", fn)


def exponential_decay_lr(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch,
                         is_stair=False):
    """lr * decay_rate ** (current_epoch / decay_epoch) (the exponent floored if is_stair)."""
    fn = "exponential_decay_lr"
    decay_epoch = _check_decay(learning_rate, decay_rate, decay_epoch, is_stair, fn)
    out = []
    for e in _epochs(total_step, step_per_epoch, fn):
        p = math.floor(e / decay_epoch) if is_stair else e / decay_epoch
        out.append(learning_rate * decay_rate ** p)
    return out


def natural_exp_decay_lr(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch,
                         is_stair=False):
    """lr * e ** (-decay_rate * current_epoch) (current_epoch rounded down to a multiple of
    decay_epoch if is_stair)."""
    fn = "natural_exp_decay_lr"
    decay_epoch = _check_decay(learning_rate, decay_rate, decay_epoch, is_stair, fn)
    out = []
    for e in _epochs(total_step, step_per_epoch, fn):
        p = math.floor(e / decay_epoch) * decay_epoch if is_stair else e
        out.append(learning_rate * math.e ** (-decay_rate * p))
    return out


def inverse_decay_lr(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch,
                     is_stair=False):
    """lr / (1 + decay_rate * current_epoch / decay_epoch) (the ratio floored if is_stair)."""
    fn = "inverse_decay_lr"
    decay_epoch = _check_decay(learning_rate, decay_rate, decay_epoch, is_stair, fn)
    out = []
    for e in _epochs(total_step, step_per_epoch, fn):
        if is_stair:
            out.append(learning_rate / (1 + decay_rate * math.floor(e / decay_epoch)))
        else:
            out.append(learning_rate / (1 + decay_rate * e / decay_epoch))
    return out


def cosine_decay_lr(min_lr, max_lr, total_step, step_per_epoch, decay_epoch):
    """min_lr + 0.5 (max_lr - min_lr) (1 + cos(pi min(current_epoch, decay_epoch) / decay_epoch))."""
    fn = "cosine_decay_lr"
    _float(min_lr, "min_lr", fn, positive=False)
    _float(max_lr, "max_lr", fn)
    decay_epoch = _pos_int(decay_epoch, "decay_epoch", fn)
    if min_lr >= max_lr:
        raise ValueError(f"For '{fn}', 'max_lr' must be greater than 'min_lr', but got "
                         f"max_lr={max_lr}, min_lr={min_lr}.")
    delta = 0.5 * (max_lr - min_lr)
    return [min_lr + delta * (1 + math.cos(math.pi * min(e, decay_epoch) / decay_epoch))
            for e in _epochs(total_step, step_per_epoch, fn)]


def polynomial_decay_lr(learning_rate, end_learning_rate, total_step, step_per_epoch, decay_epoch,
                        power, update_decay_epoch=False):
    """(lr - end_lr) (1 - t / d) ** power + end_lr with t = min(current_epoch, decay_epoch),
    d = decay_epoch; if update_decay_epoch, t = current_epoch and
    d = decay_epoch * max(ceil(current_epoch / decay_epoch), 1)."""
    fn = "polynomial_decay_lr"
    _float(learning_rate, "learning_rate", fn)
    _float(end_learning_rate, "end_learning_rate", fn, positive=False)
    _float(power, "power", fn)
    decay_epoch = _pos_int(decay_epoch, "decay_epoch", fn)
    _bool(update_decay_epoch, "update_decay_epoch", fn)
    delta = learning_rate - end_learning_rate
    out = []
    for e in _epochs(total_step, step_per_epoch, fn):
        if update_decay_epoch:
            d, t = decay_epoch * max(math.ceil(e / decay_epoch), 1), e
        else:
            d, t = decay_epoch, min(e, decay_epoch)
        out.append(delta * (1 - t / d) ** power + end_learning_rate)
    return out


def warmup_lr(learning_rate, total_step, step_per_epoch, warmup_epoch):
    """lr * min(current_epoch, warmup_epoch) / warmup_epoch."""
    fn = "warmup_lr"
    _float(learning_rate, "learning_rate", fn, positive=False)
    warmup_epoch = _pos_int(warmup_epoch, "warmup_epoch", fn)
    return [learning_rate * min(e, warmup_epoch) / warmup_epoch
            for e in _epochs(total_step, step_per_epoch, fn)]
