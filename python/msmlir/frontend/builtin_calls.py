"""Builtins with tensor-aware behaviour inside jit (`SPECIAL_BUILTINS`).

`print` of tensors runs at run time (a host callback), `float(x)`/`int(x)` of a
one-element tensor stay in the graph as 0-d tensors, `max`/`min` over tensors
are elementwise, `str(x)`/f-strings of tensors are strings known at run time,
`range` of a tensor is an error (for loops unroll at compile time). Every
other builtin is called as it is on Python values.
"""
from __future__ import annotations

import builtins

from .. import dtype as _dt
from .. import ops
from ..ops.host import HostString
from ..pytree import tree_flatten
from . import builder as _b
from . import fallback
from .values import TensorValue


def has_runtime_values(args, kwargs) -> bool:
    """Whether the arguments hold tensors (or strings built from them)."""
    _, leaves = tree_flatten((tuple(args), dict(kwargs)),
                             lambda v: isinstance(v, (TensorValue, HostString)))
    return bool(leaves)


def _b_isinstance(comp, args, kwargs):
    obj, classes = args
    if isinstance(obj, TensorValue):
        cls = classes if isinstance(classes, tuple) else (classes,)
        return any(c is TensorValue or getattr(c, "__name__", "") == "Tensor" for c in cls)
    return isinstance(obj, classes)


def _b_minmax(which):
    """max()/min(): of several values with tensors among them, elementwise
    (ops.maximum/minimum); of one 1-D tensor, its reduction; else Python's."""
    def impl(comp, args, kwargs):
        if len(args) == 1 and isinstance(args[0], TensorValue):
            t = args[0]
            if t.ndim != 1:
                _b.error(f"{which}() of a tensor of rank {t.ndim}; use ops.reduce_{which} or "
                         f"Tensor.{which}(axis)")
            return ops.reduce_max(t) if which == "max" else ops.reduce_min(t)
        items = list(args[0]) if len(args) == 1 else list(args)
        if not kwargs and any(isinstance(v, TensorValue) for v in items):
            pairwise = ops.maximum if which == "max" else ops.minimum
            acc = items[0]
            for v in items[1:]:
                acc = pairwise(acc, v)
            return acc
        return (builtins.max if which == "max" else builtins.min)(*args, **kwargs)
    return impl


def _b_print(comp, args, kwargs):
    return fallback.host_print(args, kwargs)  # prints at every run (JIT Fallback)


def _b_scalar(kind):
    """float(x) / int(x) / bool(x) of a one-element tensor: a 0-d tensor stands
    for the Python scalar known at run time (compiled, not called back)."""
    py = {"float": builtins.float, "int": builtins.int, "bool": builtins.bool}[kind]

    def impl(comp, args, kwargs):
        if len(args) != 1 or kwargs or not isinstance(args[0], TensorValue):
            return py(*args, **kwargs)
        t = args[0]
        if t.size != 1:
            _b.error(f"{kind}() of a tensor with {t.size} elements (shape {list(t.shape)}); only "
                     f"one-element tensors convert to Python scalars")
        t = ops.reshape(t, ()) if t.shape else t
        if kind == "float":
            return t if t.dtype.is_float else ops.cast(t, _dt.float32)
        if kind == "int":
            return t if t.dtype.is_int else ops.cast(t, _dt.int64)
        return ops.cast(t, _dt.bool_)
    return impl


def _b_range(comp, args, kwargs):
    if has_runtime_values(args, kwargs):
        _b.error("range() of a tensor: the number of iterations is only known at run time, and "
                 "`for` loops are unrolled at compile time; use a `while` loop on a tensor "
                 "condition (compiled to scf.while)")
    return builtins.range(*args, **kwargs)


def _b_str(which):
    py = {"str": builtins.str, "repr": builtins.repr}[which]

    def impl(comp, args, kwargs):
        if len(args) == 1 and not kwargs and isinstance(args[0], TensorValue):
            return HostString([(args[0], "r" if which == "repr" else "s", "")])
        if len(args) == 1 and not kwargs and isinstance(args[0], HostString):
            return args[0]
        return py(*args, **kwargs)
    return impl


def _b_super(comp, args, kwargs):
    _b.error("super() is not supported inside jit")


SPECIAL_BUILTINS = {id(f): (f, impl) for f, impl in [
    (builtins.isinstance, _b_isinstance),
    (builtins.max, _b_minmax("max")),
    (builtins.min, _b_minmax("min")),
    (builtins.print, _b_print),
    (builtins.float, _b_scalar("float")),
    (builtins.int, _b_scalar("int")),
    (builtins.bool, _b_scalar("bool")),
    (builtins.str, _b_str("str")),
    (builtins.range, _b_range),
    (builtins.repr, _b_str("repr")),
    (builtins.super, _b_super),
]}
