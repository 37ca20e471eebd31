"""MindSpore's Primitive classes: `Primitive`, `PrimitiveWithInfer`,
`PrimitiveWithCheck`, `prim_attr_register`, `constexpr`.

A Primitive is an operator object: constructed with its attributes
(`P.ReduceSum(keep_dims=True)`), then called on tensors (`op(x, axis)`).
msmlir's primitives are *compositions of the functional ops* (msmlir.ops):
`_impl(self, *inputs)` builds IR. Called inside `jit` (or a Cell's
`construct` under jit) it builds IR in place; called outside (PyNative) the
whole primitive is traced into one function, compiled once per (primitive,
attributes, input signature) and run (`frontend.trace.eager_call`), so a
composite primitive is one cached kernel, not one per functional op.

The classes of MindSpore's operator set are generated from one table in
`msmlir.ops.operations` (a higher layer, for primitives that compose
`msmlir.numpy`); the base classes live here so the layer-3 primitives of
ops/nn.py (LayerNorm, BatchNorm, Dropout, ...) share them.

`shard(in_strategy, out_strategy)` records the parallel strategy as attributes
(`in_strategy`/`out_strategy`); called inside a compiled function, the op the
primitive builds carries them into mindir (`msmlir.parallel.annotate`:
`mindir.in_strategy` / `mindir.out_strategy`), where semi-auto parallel
compilation (passes/parallel/insert_shardings.py) turns them into shardings.
"""
from __future__ import annotations

import functools
import inspect
import numbers

import msmlir.frontend.builder as _b
from ..frontend.trace import eager_call

__all__ = ["Primitive", "PrimitiveWithInfer", "PrimitiveWithCheck", "prim_attr_register",
           "constexpr", "primitive_key"]


def _freeze(v):
    """A hashable stand-in for an attribute value (lists become tuples)."""
    if isinstance(v, (list, tuple)):
        return tuple(_freeze(e) for e in v)
    if isinstance(v, dict):
        return tuple(sorted((k, _freeze(e)) for k, e in v.items()))
    try:
        hash(v)
        return v
    except TypeError:
        return ("id", id(v))


def primitive_key(prim) -> tuple:
    """The eager-cache key of a primitive: its class and its attributes."""
    return (type(prim), _freeze(prim.attrs))


class Primitive:
    """Base class of the operators (MindSpore's `mindspore.ops.Primitive`).

    Attributes: `name` (the class name), `attrs` (a dict; `add_prim_attr`,
    `del_prim_attr`, `get_attr_dict`), `instance_name`. Subclasses implement
    `_impl(self, *inputs)` with msmlir.ops functions; `_static = True` marks
    primitives computed on the host at compile time (Shape, DType, Rank)."""

    _static = False
    __msmlir_primitive_class__ = True

    def __init__(self, name=None):
        self.name = name if name is not None else type(self).__name__
        self.attrs = {}
        self.init_attrs = {"name": self.name}
        self.instance_name = ""
        self._key = None

    # ---- attributes -----------------------------------------------------------------
    def add_prim_attr(self, name, value):
        """Adds (or replaces) an attribute; returns self (chainable, as MindSpore)."""
        if not isinstance(name, str):
            raise TypeError(f"For '{self.name}.add_prim_attr', the name must be a str, "
                            f"but got {type(name).__name__}")
        self.__dict__.setdefault("attrs", {})[name] = value
        self._key = None
        return self

    def _add_attrs(self, **kwargs):
        for k, v in kwargs.items():
            self.add_prim_attr(k, v)
        return self

    def del_prim_attr(self, name):
        self.attrs.pop(name, None)
        self._key = None
        return self

    def get_attr_dict(self):
        return dict(self.attrs)

    def set_prim_instance_name(self, instance_name):
        self.instance_name = instance_name
        return self

    def init_prim_io_names(self, inputs, outputs):
        self.add_prim_attr("input_names", list(inputs))
        self.add_prim_attr("output_names", list(outputs))

    def set_device(self, device_target):
        return self.add_prim_attr("primitive_target", device_target)

    def recompute(self, mode=True):
        return self.add_prim_attr("recompute", bool(mode))

    def set_stage(self, stage):
        return self.add_prim_attr("stage", stage)

    def place(self, role, rank_id):
        return self.add_prim_attr("ms_role", role)

    def check_elim(self, *args):
        return (False, None)

    @property
    def update_parameter(self):
        return False

    def shard(self, in_strategy=None, out_strategy=None, **kwargs):
        """Records the operator's parallel strategy (tuples of tuples of ints, one
        per input / output) as the attributes `in_strategy` / `out_strategy`;
        the op it builds in a compiled function carries them (see `__call__`)."""
        from ..parallel.annotate import Layout
        for what, s in (("in_strategy", in_strategy), ("out_strategy", out_strategy)):
            if s is None:
                continue
            if isinstance(s, tuple) and s and all(isinstance(t, Layout) for t in s):
                for t in s:
                    t.axes()                 # MindSpore's Layout, called with its tensor map
                self.add_prim_attr(what, s)
                continue
            if not isinstance(s, tuple) or not all(
                    isinstance(t, tuple) and all(isinstance(d, numbers.Integral) and
                                                 not isinstance(d, bool) and d > 0 for d in t)
                    for t in s):
                raise TypeError(f"For '{self.name}.shard', '{what}' must be a tuple of tuples of "
                                f"positive ints or of Layouts, but got {s!r}")
            self.add_prim_attr(what, s)
        for k, v in kwargs.items():
            self.add_prim_attr(k, v)
        return self

    # ---- calling ----------------------------------------------------------------------
    def _impl(self, *inputs):
        _b.error(f"the primitive {self.name} has no msmlir implementation "
                 f"(a user primitive needs a kernel: use ops.Custom(func_type='pyfunc'))")

    def __call__(self, *args, **kwargs):
        if self._static or _b.current() is not None:
            out = self._impl(*args, **kwargs)
            if not self._static and ("in_strategy" in self.attrs or "out_strategy" in self.attrs):
                self._annotate(out, args)
            return out
        if self._key is None:
            self._key = primitive_key(self)
        return eager_call(self._impl, args, kwargs, key=self._key)

    def _annotate(self, out, args):
        """The strategies of `shard` onto the op that computed `out` (their
        tuples are checked against that op's operands when compiled)."""
        from mlir import ir

        from ..parallel.annotate import annotate
        v = getattr(out, "value", None)
        ins = [a.value for a in args if isinstance(getattr(a, "value", None), ir.Value)]
        if not isinstance(v, ir.Value) or any(x == v for x in ins):
            _b.error(f"{self.name}.shard: the primitive built no op here (its output is not a "
                     "tensor computed from its inputs), so no op carries the strategy")
        annotate(out, self.attrs.get("in_strategy"), self.attrs.get("out_strategy"))

    def __repr__(self):
        shown = {k: v for k, v in self.attrs.items()
                 if k not in ("input_names", "output_names")}
        if not shown:
            return f"Prim[{self.name}]"
        return f"Prim[{self.name}]<{', '.join(f'{k}={v!r}' for k, v in shown.items())}>"

    def __getstate__(self):
        d = dict(self.__dict__)
        d["_key"] = None
        return d


class PrimitiveWithInfer(Primitive):
    """A Primitive with Python shape/dtype inference (`infer_shape`,
    `infer_dtype`, `infer_value`); msmlir infers from the composed ops, so these
    are kept for user subclasses and not consulted."""

    def infer_shape(self, *args):
        return None

    def infer_dtype(self, *args):
        return None

    def infer_value(self, *args):
        return None


class PrimitiveWithCheck(Primitive):
    """A Primitive with Python argument checks (`check_shape`, `check_dtype`)."""

    def check_shape(self, *args):
        return None

    def check_dtype(self, *args):
        return None


def prim_attr_register(fn):
    """Decorator of a Primitive subclass's `__init__` (MindSpore's): every argument
    of the constructor becomes an attribute of the primitive (`attrs`)."""
    sig = inspect.signature(fn)

    @functools.wraps(fn)
    def deco(self, *args, **kwargs):
        base = PrimitiveWithInfer if isinstance(self, PrimitiveWithInfer) else Primitive
        base.__init__(self, type(self).__name__)
        bound = sig.bind(self, *args, **kwargs)
        bound.apply_defaults()
        arguments = dict(bound.arguments)
        arguments.pop("self", None)
        for name, value in arguments.items():
            self.add_prim_attr(name, value)
            self.init_attrs[name] = value
        fn(self, *args, **kwargs)
    deco.__module__ = __name__   # called directly inside jit, never parsed
    return deco


def constexpr(fn=None, get_instance=True, name=None, reuse_result=True, check=True):
    """MindSpore's `@constexpr`: a function evaluated at compile time on
    Python values (shapes, dtypes, numbers). msmlir calls it directly from
    compiled code instead of parsing it; with tensor arguments it sees the
    traced values. `get_instance=False` returns the callable itself."""
    def deco(f):
        @functools.wraps(f)
        def wrapper(*args, **kwargs):
            return f(*args, **kwargs)
        wrapper.__module__ = __name__     # not a user function: called, not parsed
        wrapper.__msmlir_constexpr__ = True
        return wrapper
    if fn is not None:
        return deco(fn)
    return deco
