"""`mindspore.ops.composite` (`C`): GradOperation, HyperMap, Map,
MultitypeFuncGraph, Partial and the composite functions MindSpore keeps here.

Inside `jit`, HyperMap/Map call their function through the parser
(`frontend.parser.invoke`), so the user functions they map are compiled like
any call; a `MultitypeFuncGraph` picks the registered function from the
argument types at compile time (tensors, numbers, tuples, ...), and the
parser then compiles that function (`__msmlir_unwrap__`).
"""
from __future__ import annotations

import numbers

import numpy as np

from .. import ops as _ops
from ..autodiff import GradOperation  # noqa: F401
from ..frontend import builder as _b
from ..frontend.parser import invoke
from ..frontend.values import TensorValue
from .composed import clip_by_global_norm, partial  # noqa: F401
from .math import clip_by_value  # noqa: F401

__all__ = ["GradOperation", "HyperMap", "Map", "MultitypeFuncGraph", "Partial", "partial",
           "clip_by_value", "clip_by_global_norm", "normal", "uniform", "zeros_like",
           "ones_like", "sequence_mask", "add_flags"]

Partial = partial


def _call(fn, args):
    if _b.current() is not None:
        return invoke(fn, list(args), {})
    return fn(*args)


def _is_tensor(x) -> bool:
    return isinstance(x, (TensorValue, np.ndarray)) or (hasattr(x, "asnumpy") and
                                                         hasattr(x, "shape"))


# MindSpore's type names for MultitypeFuncGraph.register, as predicates.
_TYPES = {
    "Tensor": _is_tensor,
    "Number": lambda x: isinstance(x, numbers.Number) and not _is_tensor(x),
    "Bool": lambda x: isinstance(x, bool),
    "Int": lambda x: isinstance(x, numbers.Integral) and not isinstance(x, bool),
    "Float": lambda x: isinstance(x, float),
    "Tuple": lambda x: isinstance(x, tuple),
    "List": lambda x: isinstance(x, list),
    "Dictionary": lambda x: isinstance(x, dict),
    "Dict": lambda x: isinstance(x, dict),
    "String": lambda x: isinstance(x, str),
    "None": lambda x: x is None,
    "Function": callable,
    "Slice": lambda x: isinstance(x, slice),
    "TypeType": lambda x: True,
}


def _type_name(t) -> str:
    if isinstance(t, str):
        return t
    name = getattr(t, "__name__", None) or type(t).__name__
    return {"Tensor": "Tensor", "tuple": "Tuple", "list": "List", "int": "Int",
            "float": "Float", "bool": "Bool", "str": "String", "dict": "Dictionary",
            "NoneType": "None"}.get(name, name)


class MultitypeFuncGraph:
    """A function overloaded on argument types (MindSpore's MultitypeFuncGraph):
    `add = MultitypeFuncGraph("add")`, `@add.register("Tensor", "Number")`.
    The first registered signature that the arguments match is called."""

    def __init__(self, name, read_value=False, doc_url=""):
        self.name = name
        self.read_value = read_value
        self.entries = []

    def register(self, *type_names):
        names = tuple(_type_name(t) for t in type_names)
        for n in names:
            if n not in _TYPES:
                raise TypeError(f"For '{self.name}.register', unknown type name {n!r} "
                                f"(known: {', '.join(sorted(_TYPES))})")

        def deco(fn):
            self.entries.append((names, fn))
            return fn
        return deco

    def _select(self, args):
        for names, fn in self.entries:
            if len(names) == len(args) and all(_TYPES[n](a) for n, a in zip(names, args)):
                return fn
        kinds = ", ".join(type(a).__name__ for a in args)
        msg = (f"'{self.name}' (a MultitypeFuncGraph) has no registered function for "
               f"arguments ({kinds}); registered: "
               f"{[list(n) for n, _ in self.entries]}")
        if _b.current() is not None:
            _b.error(msg, kind=TypeError)
        raise TypeError(msg)

    def __msmlir_unwrap__(self, args):
        return self._select(list(args)), list(args)

    def __call__(self, *args):
        return _call(self._select(args), args)


def _map(fn, seqs, recursive, name):
    if fn is None:
        if not seqs:
            raise TypeError(f"For '{name}', the function to map is missing")
        fn, seqs = seqs[0], seqs[1:]
    if not seqs:
        return _call(fn, ())
    first = seqs[0]
    if isinstance(first, (tuple, list)):
        n = len(first)
        for s in seqs[1:]:
            if not isinstance(s, (tuple, list)) or len(s) != n:
                msg = (f"For '{name}', the sequences must all be tuples/lists of length {n}, "
                       f"got {type(s).__name__}")
                if _b.current() is not None:
                    _b.error(msg, kind=TypeError)
                raise TypeError(msg)
        out = []
        for items in zip(*seqs):
            if recursive and isinstance(items[0], (tuple, list)):
                out.append(_map(fn, list(items), True, name))
            else:
                out.append(_call(fn, items))
        return type(first)(out) if isinstance(first, list) else tuple(out)
    return _call(fn, seqs)


class HyperMap:
    """`HyperMap(ops=None, reverse=False)(*seqs)`: `ops` applied to the elements
    of the tuples/lists (recursively into nested ones); without `ops` the first
    argument is the function."""

    def __init__(self, ops=None, reverse=False):
        self.ops = ops
        self.reverse = reverse

    def __call__(self, *args):
        return _map(self.ops, list(args), True, "HyperMap")


class Map:
    """`Map(ops=None, reverse=False)(*seqs)`: as HyperMap, one level deep."""

    def __init__(self, ops=None, reverse=False):
        self.ops = ops
        self.reverse = reverse

    def __call__(self, *args):
        return _map(self.ops, list(args), False, "Map")


def normal(shape, mean, stddev, seed=None):
    """Normal random numbers (C.normal) with scalar mean/stddev."""
    return _ops.add(_ops.mul(_ops.random_normal(shape, 0 if seed is None else seed), stddev),
                    mean)


def uniform(shape, minval, maxval, seed=None, dtype=None):
    """Uniform random numbers in [minval, maxval) (C.uniform) with scalar bounds."""
    return _ops.uniform(shape, minval, maxval, seed, dtype)


zeros_like = _ops.zeros_like
ones_like = _ops.ones_like


def sequence_mask(lengths, maxlen=None):
    """mask[..., j] = j < lengths[...] (C.sequence_mask); maxlen must be a Python int."""
    if maxlen is None:
        raise ValueError("sequence_mask: maxlen must be given (no dynamic shapes)")
    return _ops.less(_ops.arange(0, maxlen, dtype=None), _ops.expand_dims(lengths, -1))


def add_flags(fn=None, **flags):
    """Records MindSpore's graph-compiler flags (`@C.add_flags(has_effect=True)`,
    `defer_inline`, ...) on a function or cell as `_func_graph_flags`; msmlir's
    compiler does not consult them (its side effects are ordered anyway)."""
    def deco(f):
        d = dict(getattr(f, "_func_graph_flags", {}) or {})
        d.update(flags)
        try:
            f._func_graph_flags = d
        except AttributeError as e:
            raise TypeError(f"add_flags: cannot set flags on {type(f).__name__}") from e
        return f
    return deco if fn is None else deco(fn)
