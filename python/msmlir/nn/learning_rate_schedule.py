"""Learning-rate schedule cells (mindspore.nn.learning_rate_schedule).

A schedule is a Cell whose construct maps the optimizer's `global_step` (an
int32 Tensor) to the learning rate of that step, a scalar float32 Tensor; it is
evaluated inside the (compiled) optimizer step. The formulas are MindSpore's:

* ExponentialDecayLR:  lr * decay_rate ** p
* NaturalExpDecayLR:   lr * e ** (-decay_rate * p)
* InverseDecayLR:      lr / (1 + decay_rate * p)
  with p = step / decay_steps (floor(step / decay_steps) when is_stair); for
  NaturalExpDecayLR p = step (floor(step / decay_steps) * decay_steps if is_stair)
* CosineDecayLR:       min_lr + 0.5 (max_lr - min_lr) (1 + cos(pi min(step, decay_steps) / decay_steps))
* PolynomialDecayLR:   (lr - end_lr) (1 - s / d) ** power + end_lr with
  s = min(step, decay_steps), d = decay_steps; if update_decay_steps: s = step,
  d = decay_steps * max(ceil(step / decay_steps), 1)
* WarmUpLR:            lr * min(step, warmup_steps) / warmup_steps
"""
from __future__ import annotations

import math
import numbers

from .. import dtype as mstype
from .. import ops
from .cell import Cell

__all__ = ["LearningRateSchedule", "ExponentialDecayLR", "NaturalExpDecayLR", "InverseDecayLR",
           "CosineDecayLR", "PolynomialDecayLR", "WarmUpLR"]


class LearningRateSchedule(Cell):
    """Base class of learning-rate schedules: construct(global_step) -> lr (shape ())."""

    def construct(self, global_step):
        raise NotImplementedError(f"{type(self).__name__}.construct is not defined")


def _float(v, name, cls, positive=True):
    """A float argument, > 0 (positive) or >= 0 (MindSpore's validators)."""
    if isinstance(v, bool) or not isinstance(v, float):
        raise TypeError(f"For '{cls}', the argument '{name}' must be a float, but got "
                        f"{type(v).__name__}.")
    if (v <= 0) if positive else (v < 0):
        raise ValueError(f"For '{cls}', the argument '{name}' must be "
                         f"{'> 0' if positive else '>= 0'}, but got {v}.")
    return v


def _pos_int(v, name, cls):
    if isinstance(v, bool) or not isinstance(v, numbers.Integral):
        raise TypeError(f"For '{cls}', the argument '{name}' must be an int, but got "
                        f"{type(v).__name__}.")
    if v <= 0:
        raise ValueError(f"For '{cls}', the argument '{name}' must be > 0, but got {v}.")
    return int(v)


def _bool(v, name, cls):
    if not isinstance(v, bool):
        raise TypeError(f"For '{cls}', the argument '{name}' must be a bool, but got "
                        f"{type(v).__name__}.")
    return v


def _step(global_step):
    return ops.cast(global_step, mstype.float32)


class _DecayLR(LearningRateSchedule):
    """Shared arguments of the exponential / natural-exp / inverse decays."""

    def __init__(self, learning_rate, decay_rate, decay_steps, is_stair=False):
        super().__init__()
        cls = type(self).__name__
        self.decay_steps = _pos_int(decay_steps, "decay_steps", cls)
        self.learning_rate = _float(learning_rate, "learning_rate", cls)
        self.decay_rate = _float(decay_rate, "decay_rate", cls)
        self.is_stair = _bool(is_stair, "is_stair", cls)

    def _p(self, global_step):
        p = _step(global_step) / float(self.decay_steps)
        return ops.floor(p) if self.is_stair else p


class ExponentialDecayLR(_DecayLR):
    def construct(self, global_step):
        return ops.pow(self.decay_rate, self._p(global_step)) * self.learning_rate


class NaturalExpDecayLR(_DecayLR):
    def construct(self, global_step):
        p = _step(global_step)
        if self.is_stair:
            p = ops.floor_div(p, float(self.decay_steps)) * float(self.decay_steps)
        return ops.pow(math.e, p * (-self.decay_rate)) * self.learning_rate


class InverseDecayLR(_DecayLR):
    def construct(self, global_step):
        return self.learning_rate / (self._p(global_step) * self.decay_rate + 1.0)


class CosineDecayLR(LearningRateSchedule):
    def __init__(self, min_lr, max_lr, decay_steps):
        super().__init__()
        cls = type(self).__name__
        self.min_lr = _float(min_lr, "min_lr", cls, positive=False)
        self.max_lr = _float(max_lr, "max_lr", cls)
        self.decay_steps = _pos_int(decay_steps, "decay_steps", cls)
        if min_lr >= max_lr:
            raise ValueError(f"For '{cls}', 'max_lr' must be greater than 'min_lr', but got "
                             f"max_lr={max_lr}, min_lr={min_lr}.")
        self.delta = 0.5 * (max_lr - min_lr)

    def construct(self, global_step):
        p = _step(ops.minimum(global_step, self.decay_steps))
        return (ops.cos(p * math.pi / float(self.decay_steps)) + 1.0) * self.delta + self.min_lr


class PolynomialDecayLR(LearningRateSchedule):
    def __init__(self, learning_rate, end_learning_rate, decay_steps, power,
                 update_decay_steps=False):
        super().__init__()
        cls = type(self).__name__
        self.start_learning_rate = _float(learning_rate, "learning_rate", cls)
        self.end_learning_rate = _float(end_learning_rate, "end_learning_rate", cls,
                                        positive=False)
        self.decay_steps = _pos_int(decay_steps, "decay_steps", cls)
        self.update_decay_steps = _bool(update_decay_steps, "update_decay_steps", cls)
        self.power = _float(power, "power", cls)
        self.diff_learning_rate = learning_rate - end_learning_rate

    def construct(self, global_step):
        step = _step(global_step)
        decay = float(self.decay_steps)
        if self.update_decay_steps:
            decay = ops.maximum(ops.ceil(step / decay), 1.0) * decay
        else:
            step = ops.minimum(step, decay)
        p = step / decay
        return ops.pow(1.0 - p, self.power) * self.diff_learning_rate + self.end_learning_rate


class WarmUpLR(LearningRateSchedule):
    def __init__(self, learning_rate, warmup_steps):
        super().__init__()
        cls = type(self).__name__
        self.learning_rate = _float(learning_rate, "learning_rate", cls, positive=False)
        self.warmup_steps = _pos_int(warmup_steps, "warmup_steps", cls)

    def construct(self, global_step):
        pct = _step(ops.minimum(global_step, self.warmup_steps)) / float(self.warmup_steps)
        return pct * self.learning_rate
