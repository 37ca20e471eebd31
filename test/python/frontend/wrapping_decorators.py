"""Decorators for test_wrapped_functions.py, in a module of their own (as
MindSpore's tests/st/utils/test_utils.py is): this module never imports `ops`,
so a wrapped function whose body uses `ops` only compiles if its names are
looked up in ITS module, not here."""
from __future__ import annotations

from functools import wraps

import msmlir as ms
from msmlir import nn


class _Net(nn.Cell):
    def __init__(self, func):
        super().__init__()
        self.func = func

    def construct(self, *inputs, **kwargs):
        return self.func(*inputs, **kwargs)


def run_with_cell(fn):
    """Runs `fn` as the construct of a Cell (MindSpore's run_with_cell pattern)."""
    @wraps(fn)
    def wrapper(*args, **kwargs):
        cell = _Net(fn)
        return cell(*args, **kwargs)
    return wrapper


def passthrough(fn):
    """A transparent wrapper: calls `fn` with its arguments unchanged."""
    @wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)
    return wrapper


def doubled_input(fn):
    """Not transparent: doubles the first argument and adds one to the result."""
    @wraps(fn)
    def wrapper(x, *args, **kwargs):
        return fn(x * 2, *args, **kwargs) + 1
    return wrapper


def scaled(k):
    """A decorator factory: the wrapper's closure holds `fn` and `k`."""
    def deco(fn):
        @wraps(fn)
        def wrapper(*args, **kwargs):
            return fn(*args, **kwargs) * k
        return wrapper
    return deco


def graph(fn):
    """`ms.jit` inside the decorator: the wrapper jits the wrapped function."""
    @wraps(fn)
    def wrapper(*args, **kwargs):
        return ms.jit(fn)(*args, **kwargs)
    return wrapper
