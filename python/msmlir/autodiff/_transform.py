"""Shared machinery of the function transforms (grad, vmap, custom bprop).

A transform object is callable in two situations:

* inside a function being compiled (`msmlir.jit`, or another transform): the
  arguments are `TensorValue`s and the transform builds IR in place (the
  parser calls it directly: `msmlir.autodiff` is a primitive module);
* outside (numpy arrays, msmlir Tensors, Python numbers): it compiles a small
  graph once per input signature, whose public function calls the transform
  on its arguments, and runs it (as `msmlir.jit` does).
"""
from __future__ import annotations

import numbers

import numpy as np

from ..arraylike import is_array
from ..frontend import builder as _b
from ..frontend.values import TensorValue
from ..ops._base import to_tensor


def building() -> bool:
    return _b.current() is not None


def as_tensor_args(args):
    """Inside a build: array-likes (numpy arrays, Tensors, Parameters) among the
    arguments become TensorValues (function arguments of the generated
    function rather than constants); Python values stay Python values."""
    def conv(v):
        if isinstance(v, TensorValue):
            return v
        if is_array(v) or _b.is_parameter(v):
            return to_tensor(v)
        if type(v) in (tuple, list):
            return type(v)(conv(e) for e in v)
        return v
    return [conv(a) for a in args]


def is_python_float(v) -> bool:
    return isinstance(v, (float, np.floating)) and not isinstance(v, np.ndarray)


def is_python_int(v) -> bool:
    return isinstance(v, (numbers.Integral, np.bool_)) and not isinstance(v, np.ndarray)


def fn_name(fn) -> str:
    for attr in ("__name__",):
        n = getattr(fn, attr, None)
        if isinstance(n, str) and n.isidentifier():
            return n
    inner = getattr(fn, "fn", None)
    if inner is not None and inner is not fn:
        return fn_name(inner)
    n = type(fn).__name__
    return n if n.isidentifier() else "fn"


class Transform:
    """Base: `__call__` builds IR inside a build, or compiles and runs outside."""

    __msmlir_transform__ = True

    def __init__(self):
        self._jit = None

    def _build(self, args, kwargs):  # pragma: no cover - abstract
        raise NotImplementedError

    def _eager_args(self, args, kwargs):
        return args, kwargs

    def _entry_name(self) -> str:
        return "main"

    def _jit_entry(self):
        """The JitFunction whose public function applies this transform to its
        arguments (outside a build: one small graph per input signature)."""
        if self._jit is None:
            from ..frontend.jit import JitFunction
            transform = self

            def entry(*a, **k):
                return transform._build(list(a), dict(k))
            entry.__name__ = self._entry_name()
            self._jit = JitFunction(entry, name=self._entry_name(), trace=True)
        return self._jit

    def __call__(self, *args, **kwargs):
        __tracebackhide__ = True  # noqa: F841
        if building():
            return self._build(list(args), dict(kwargs))
        args, kwargs = self._eager_args(list(args), dict(kwargs))
        return self._jit_entry()(*args, **kwargs)

    def lower(self, *args, **kwargs) -> str:
        """The mindir module (before mindir-autodiff) for these arguments, as text."""
        args, kwargs = self._eager_args(list(args), dict(kwargs))
        return self._jit_entry().lower(*args, **kwargs)

    mlir = lower


def error(msg):
    _b.error(msg)
