"""MindSpore default initialisers of layer weights."""
from __future__ import annotations

import math

from ... import dtype as mstype
from ...common.initializer import HeUniform, Uniform, initializer
from ...common.parameter import Parameter


def weight(init, shape, name, dtype=mstype.float32):
    if init is None:
        init = HeUniform(math.sqrt(5))     # MindSpore 2.x default of Dense/Conv weights
    return Parameter(initializer(init, shape, dtype), name=name)


def bias(init, shape, fan_in, name, dtype=mstype.float32):
    if init is None:
        bound = 1.0 / math.sqrt(fan_in) if fan_in > 0 else 0.0
        init = Uniform(bound)              # MindSpore 2.x default of Dense/Conv biases
    return Parameter(initializer(init, shape, dtype), name=name)
