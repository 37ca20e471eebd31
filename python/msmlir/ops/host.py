"""Host calls as ops: a Python function that compiled code runs at run time.

`host_call` emits one `mindir.host_callback` op whose callee is a runtime host
callback (msmlir/runtime/host_callbacks.py) running the function on the
run-time values of its tensor arguments (numpy arrays). Layer 3 (an op like any
other) because `ops.Custom(func_type="pyfunc")` is one; JIT Fallback
(frontend/fallback.py) adds finding the result types by a probing call, and
the strings built from tensors (`HostString`) that `print` takes.
"""
from __future__ import annotations

import numpy as np
from mlir import ir

from ..arraylike import is_array
from ..dialects import mindir
from ..errors import SourcePos
from ..pytree import tree_flatten, tree_unflatten
from ..runtime.host_callbacks import HostCallback, HostCallbackError
from ..frontend.values import TensorValue
import msmlir.frontend.builder as _b

__all__ = ["HostString", "host_call", "emit_host_call", "flatten_args", "rebuild_leaves",
           "result_leaves", "origin"]


def flatten_args(args, kwargs):
    """(spec, leaves, tensor inputs) of a call's arguments: the leaves are the
    TensorValues and HostStrings, the inputs the tensors among them."""
    spec, leaves = tree_flatten((tuple(args), dict(kwargs)),
                                lambda v: isinstance(v, (TensorValue, HostString)))
    return spec, leaves, _tensor_leaves(leaves)


def _tensor_leaves(leaves):
    """TensorValues among leaves, HostStrings expanded into their tensors."""
    out = []
    for lf in leaves:
        if isinstance(lf, HostString):
            out.extend(lf.tensors())
        else:
            out.append(lf)
    return out


def rebuild_leaves(leaves, arrays, wrap):
    """The leaves with each tensor replaced by its run-time array (wrapped)."""
    it = iter(arrays)
    out = []
    for lf in leaves:
        if isinstance(lf, HostString):
            out.append(lf.render(it, wrap))
        else:
            out.append(wrap(next(it)))
    return out


class HostString:
    """A string built from tensors (an f-string, `str(x)`): only known at run time.
    It can be printed (the formatting runs in the host callback)."""

    def __init__(self, parts):
        # parts: str, or (TensorValue, conversion, format spec)
        self.parts = parts

    def tensors(self):
        return [p[0] for p in self.parts if not isinstance(p, str)]

    def render(self, arrays, wrap) -> str:
        out = []
        for p in self.parts:
            if isinstance(p, str):
                out.append(p)
                continue
            v = wrap(next(arrays))
            conv = p[1]
            if conv == "r":
                v = repr(v)
            elif conv == "s":
                v = str(v)
            elif conv == "a":
                v = ascii(v)
            out.append(format(v, p[2]))
        return "".join(out)

    def __add__(self, other):
        if isinstance(other, str):
            return HostString(self.parts + [other])
        if isinstance(other, HostString):
            return HostString(self.parts + other.parts)
        return NotImplemented

    def __radd__(self, other):
        if isinstance(other, str):
            return HostString([other] + self.parts)
        return NotImplemented

    def _runtime_only(self, *_a, **_k):
        e = _b.make_error("this string is built from tensor values, which are only known at run "
                          "time: it can be printed (print runs in the interpreter), not used in "
                          "compile-time Python")
        e.needs_runtime_value = True
        raise e

    __str__ = __len__ = __iter__ = __getitem__ = __bool__ = __format__ = _runtime_only
    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = __contains__ = _runtime_only
    __hash__ = object.__hash__


def _calling(fn, arg_spec, arg_leaves, wrap, out_spec):
    """run() of a kept call: rebuild the arguments around the input arrays, call
    fn, and return its result's arrays (the structure must match out_spec)."""
    def run(ins):
        args, kwargs = tree_unflatten(arg_spec, rebuild_leaves(arg_leaves, ins, wrap))
        result = fn(*args, **kwargs)
        spec, outs = result_leaves(result)
        if spec != out_spec:
            raise HostCallbackError(f"returned {_what(result)}, a different structure from the "
                                    f"one found at compile time")
        return outs
    return run


def _what(v) -> str:
    return f"a {type(v).__name__}"


def result_leaves(result):
    """(spec, arrays) of a host function's result: arrays, numpy scalars and
    Python numbers are tensor leaves; None and containers are structure."""
    bad = []

    def is_leaf(v):
        return is_array(v) or isinstance(v, (bool, int, float))

    spec, leaves = tree_flatten(result, is_leaf)
    _check_consts(spec, bad)
    if bad:
        raise HostCallbackError(f"a result of type {type(bad[0]).__name__} cannot be passed back to "
                                f"the graph (return arrays, numbers, or tuples/lists of them)")
    arrays = []
    for lf in leaves:
        if hasattr(lf, "asnumpy") and not isinstance(lf, np.ndarray):
            arrays.append(np.asarray(lf.asnumpy()))
        elif isinstance(lf, bool):
            arrays.append(np.asarray(lf, np.bool_))
        elif isinstance(lf, int):
            arrays.append(np.asarray(lf, np.int64))
        elif isinstance(lf, float):
            arrays.append(np.asarray(lf, np.float32))  # a Python float is weakly typed: float32
        else:
            arrays.append(np.asarray(lf))
    return spec, arrays


def _check_consts(spec, bad):
    kind = spec[0]
    if kind == "L":
        return
    if kind == "C":
        if spec[1] is not None:
            bad.append(spec[1])
        return
    for c in (spec[2] if kind in ("nt", "dict") else spec[1]):
        _check_consts(c, bad)


def _np_sig(t: TensorValue):
    return tuple(t.shape), np.dtype(t.dtype.to_numpy())


def _emit(cb: HostCallback, inputs, result_types):
    op = _b.emit(mindir.HostCallbackOp, result_types, ir.FlatSymbolRefAttr.get(cb.name),
                 ir.StringAttr.get(cb.origin), [t.value for t in inputs])
    return [TensorValue(r) for r in op.operation.results]


def origin(what: str, pos: SourcePos | None) -> str:
    if pos is None:
        return what
    return f"{what} ({pos.filename.rsplit('/', 1)[-1]}:{pos.line})"


def emit_host_call(fn, spec, leaves, inputs, result_types, *, what, wrap=np.asarray):
    """Emits the host_callback op of `fn(*args, **kwargs)` for flattened arguments
    (`flatten_args`) with result types `result_types` ((out_spec, [(shape, msmlir
    dtype)])); returns the result tree with TensorValues."""
    pos = _b.current_pos()
    out_spec, outs = result_types
    out_sigs, rtypes = [], []
    for shape, dt in outs:
        out_sigs.append((tuple(shape), np.dtype(dt.to_numpy())))
        rtypes.append(_b.tensor_type(shape, dt))
    cb = HostCallback(_calling(fn, spec, leaves, wrap, out_spec), [_np_sig(t) for t in inputs],
                      out_sigs, origin(what, pos), pos)
    return tree_unflatten(out_spec, _emit(cb, inputs, rtypes))


def host_call(fn, args, kwargs, *, what, result_types, wrap=np.asarray):
    """`fn(*args, **kwargs)` run by the interpreter at run time, with result types
    declared by the caller (as ops.Custom does); the tensors in the arguments are
    passed as numpy arrays (`wrap`). Returns the result tree with TensorValues."""
    spec, leaves, inputs = flatten_args(args, kwargs)
    return emit_host_call(fn, spec, leaves, inputs, result_types, what=what, wrap=wrap)
