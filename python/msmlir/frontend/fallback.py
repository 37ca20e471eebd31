"""JIT Fallback: Python that graph mode cannot compile runs in the interpreter.

MindSpore's JIT Fallback, for msmlir's graph mode. The parser already runs
every Python computation on Python values at compile time (a NumPy call on
constants, `math`, an unsupported builtin on constants: their results become
constants of the graph). What needs the *values* of tensors instead is kept as
a run-time call back into the interpreter:

* `print(...)` with tensors, and f-strings / `str()` of tensors passed to it;
* a NumPy (or `math`, `scipy`) function called on tensors, including
  `x.asnumpy()` followed by NumPy calls or ndarray methods on it;
* `float(x)` / `int(x)` / `x.item()` are compiled (a 0-d tensor stands for the
  run-time scalar) rather than called back.

Each kept call becomes a `mindir.host_callback @msmlir_host_N` op. The pipeline
lowers it to a call of an external function `msmlir_host_N(ptr...)` taking the
data pointers of the inputs and of freshly allocated outputs; the runtime
(`msmlir.compiler`) binds that symbol to a ctypes trampoline which wraps the
buffers as numpy arrays, calls the Python function and copies its results back.

Graph mode needs static shapes: the result shapes and dtypes of a call are
found at compile time by calling the function once on arrays of ones of the
argument shapes (`print` needs no such probe). A result whose shape turns out
to depend on the values is a run-time error naming the call's source line, as
is any exception the function raises (re-raised when the compiled function
returns, never swallowed). A call back is slower than compiled code, so the
compiler says so once per call site (`FallbackWarning`) except for `print`.
"""
from __future__ import annotations

import builtins
import ctypes
import itertools
import threading
import warnings

import numpy as np
from mlir import ir

from .. import dtype as _dt
from . import builder as _b
from .errors import CompileError, SourcePos
from .values import TensorValue

__all__ = ["FallbackWarning", "HostCallbackError", "HostString", "callbacks_in", "host_call",
           "host_print", "is_host_library_function", "lookup", "take_errors"]


class FallbackWarning(UserWarning):
    """A construct in a jitted function runs in the Python interpreter at run time."""


FallbackWarning.__module__ = "msmlir"


class HostCallbackError(RuntimeError):
    """A Python call kept by JIT Fallback failed at run time."""


HostCallbackError.__module__ = "msmlir"

_REGISTRY: dict[str, "HostCallback"] = {}
_NAMES = itertools.count()
_ERRORS = threading.local()


def lookup(name: str) -> "HostCallback | None":
    return _REGISTRY.get(name)


def callbacks_in(module) -> list:
    """(callee, origin, location) of each mindir.host_callback op in a module."""
    found = []

    def visit(op):
        if op.name == "mindir.host_callback":
            found.append((ir.FlatSymbolRefAttr(op.attributes["callee"]).value,
                          ir.StringAttr(op.attributes["origin"]).value, op.location))
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return found


def take_errors() -> list:
    """The errors raised by host callbacks on this thread since the last call."""
    errs = getattr(_ERRORS, "list", None)
    _ERRORS.list = []
    return errs or []


def _describe_fn(fn) -> str:
    mod = getattr(fn, "__module__", None) or ""
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or type(fn).__name__
    if isinstance(fn, np.ufunc):
        return f"np.{fn.__name__}"
    if mod.startswith("numpy"):
        return f"np.{name}"
    if mod in ("builtins", "") or mod is None:
        return name
    return f"{mod.split('.')[0]}.{name}"


# ---------------------------------------------------------------------------
# Trees: tensor leaves of call arguments and results
# ---------------------------------------------------------------------------

def _flatten(tree):
    from .parser import tree_flatten
    return tree_flatten(tree, lambda v: isinstance(v, (TensorValue, HostString)))


def _unflatten(spec, leaves):
    from .parser import tree_unflatten
    return tree_unflatten(spec, leaves)


def _tensor_leaves(leaves):
    """TensorValues among leaves, HostStrings expanded into their tensors."""
    out = []
    for lf in leaves:
        if isinstance(lf, HostString):
            out.extend(lf.tensors())
        else:
            out.append(lf)
    return out


def _rebuild_leaves(leaves, arrays, wrap):
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


# ---------------------------------------------------------------------------
# The run-time side: one registered callback per kept call
# ---------------------------------------------------------------------------

class HostCallback:
    """One kept Python call: `run(input arrays) -> result arrays`, bound to the
    symbol `name`; results are checked against the types fixed at compile time."""

    def __init__(self, run, in_sigs, out_sigs, origin, pos):
        self.name = f"msmlir_host_{next(_NAMES)}"
        self.run = run
        self.in_sigs = in_sigs     # [(shape, np.dtype)] of the tensor inputs
        self.out_sigs = out_sigs   # [(shape, np.dtype)] of the results
        self.origin = origin       # "np.sort (model.py:12)"
        self.pos = pos
        n = len(in_sigs) + len(out_sigs)
        self._cfunc = ctypes.CFUNCTYPE(None, *([ctypes.c_void_p] * n))(self._trampoline)
        self.address = ctypes.cast(self._cfunc, ctypes.c_void_p).value
        _REGISTRY[self.name] = self

    @staticmethod
    def _view(ptr, shape, dtype):
        count = int(np.prod(shape, dtype=np.int64))
        if count == 0 or not ptr:
            return np.zeros(shape, dtype)
        raw = (ctypes.c_char * (count * dtype.itemsize)).from_address(ptr)
        return np.frombuffer(raw, dtype).reshape(shape)

    def _trampoline(self, *ptrs):
        try:
            n_in = len(self.in_sigs)
            # inputs are copied: the function may keep or modify its arguments
            ins = [self._view(p, s, d).copy() for p, (s, d) in zip(ptrs[:n_in], self.in_sigs)]
            with np.errstate(all="ignore"):
                outs = self.run(ins)
            for p, (shape, dtype), r in zip(ptrs[n_in:], self.out_sigs, outs):
                if r.shape != shape:
                    raise HostCallbackError(
                        f"{self.origin} returned shape {list(r.shape)}, but graph mode fixed its "
                        f"result shape to {list(shape)} at compile time (found by calling it on "
                        f"arrays of ones); a result whose shape depends on the values cannot be "
                        f"used in graph mode")
                if not np.can_cast(r.dtype, dtype, casting="same_kind"):
                    raise HostCallbackError(f"{self.origin} returned dtype {r.dtype}, expected {dtype}")
                np.copyto(self._view(p, shape, dtype), r, casting="unsafe")
        except BaseException as e:  # noqa: BLE001  (re-raised by the runtime after the call)
            if not hasattr(_ERRORS, "list"):
                _ERRORS.list = []
            _ERRORS.list.append(self._error(e))

    def batched(self, B: int, flags) -> "HostCallback":
        """The callback under vmap: inputs with flags[i] set have a leading batch
        dim; the Python function runs once per example (a loop in the interpreter)
        and the results are stacked."""
        inner = self.run

        def run(ins):
            per = [inner([a[b] if f else a for a, f in zip(ins, flags)]) for b in range(B)]
            return [np.stack([p[k] for p in per]) for k in range(len(self.out_sigs))]

        in_sigs = [((B, *s), d) if f else (s, d) for (s, d), f in zip(self.in_sigs, flags)]
        out_sigs = [((B, *s), d) for s, d in self.out_sigs]
        return HostCallback(run, in_sigs, out_sigs, self.origin, self.pos)

    def _error(self, e) -> HostCallbackError:
        where = f"{self.pos}: " if self.pos else ""
        msg = e.args[0] if isinstance(e, HostCallbackError) else f"{type(e).__name__}: {e}"
        err = HostCallbackError(f"{where}error in {self.origin}, run by the Python interpreter at "
                                f"run time (JIT Fallback): {msg}")
        err.__cause__ = None if isinstance(e, HostCallbackError) else e
        return err


def _calling(fn, arg_spec, arg_leaves, wrap, out_spec):
    """run() of a kept call: rebuild the arguments around the input arrays, call
    fn, and return its result's arrays (the structure must match out_spec)."""
    def run(ins):
        args, kwargs = _unflatten(arg_spec, _rebuild_leaves(arg_leaves, ins, wrap))
        result = fn(*args, **kwargs)
        spec, outs = _result_leaves(result)
        if spec != out_spec:
            raise HostCallbackError(f"returned {_what(result)}, a different structure from the "
                                    f"one found at compile time")
        return outs
    return run


def _what(v) -> str:
    return f"a {type(v).__name__}"


def _result_leaves(result):
    """(spec, arrays) of a host function's result: arrays, numpy scalars and
    Python numbers are tensor leaves; None and containers are structure."""
    from .parser import tree_flatten
    bad = []

    def is_leaf(v):
        return isinstance(v, (np.ndarray, np.generic, bool, int, float)) or hasattr(v, "asnumpy")

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


# ---------------------------------------------------------------------------
# The compile-time side: emitting a kept call
# ---------------------------------------------------------------------------

def _wrap_tensor(arr):
    from ..common.tensor import Tensor
    return Tensor(arr)


def _np_sig(t: TensorValue):
    return tuple(t.shape), np.dtype(t.dtype.to_numpy())


def _emit(cb: HostCallback, inputs, result_types):
    from ..dialects import mindir
    op = _b.emit(mindir.HostCallbackOp, result_types, ir.FlatSymbolRefAttr.get(cb.name),
                 ir.StringAttr.get(cb.origin), [t.value for t in inputs])
    return [TensorValue(r) for r in op.operation.results]


def _origin(what: str, pos: SourcePos | None) -> str:
    if pos is None:
        return what
    return f"{what} ({pos.filename.rsplit('/', 1)[-1]}:{pos.line})"


def host_print(args, kwargs):
    """print(...) at run time, with tensors (and strings built from them) as
    their values; constant-only prints also print at every run."""
    pos = _b.current_pos()
    spec, leaves = _flatten((tuple(args), dict(kwargs)))
    inputs = _tensor_leaves(leaves)

    def run_print(*a, **k):
        k.setdefault("flush", True)
        builtins.print(*a, **k)

    cb = HostCallback(_calling(run_print, spec, leaves, _wrap_tensor, ("C", None)),
                      [_np_sig(t) for t in inputs], [], _origin("print", pos), pos)
    _emit(cb, inputs, [])
    return None


def host_call(fn, args, kwargs, *, what=None, wrap=np.asarray, result_types=None):
    """`fn(*args, **kwargs)` run by the interpreter at run time; the tensors in
    the arguments are passed as numpy arrays (`wrap`). Returns the result tree
    with TensorValues. Its types are `result_types` ((out_spec, [(shape, msmlir
    dtype)]), as ops.Custom declares them) or found by calling `fn` on arrays of
    ones now (JIT Fallback, which then warns: compiled code is faster)."""
    pos = _b.current_pos()
    what = what or _describe_fn(fn)
    spec, leaves = _flatten((tuple(args), dict(kwargs)))
    inputs = _tensor_leaves(leaves)
    in_sigs = [_np_sig(t) for t in inputs]
    if result_types is None:
        out_spec, outs = _probe(fn, spec, leaves, in_sigs, wrap, what)
    else:
        out_spec, outs = result_types
    out_sigs, rtypes = [], []
    for shape, dt in outs:
        out_sigs.append((tuple(shape), np.dtype(dt.to_numpy())))
        rtypes.append(_b.tensor_type(shape, dt))
    cb = HostCallback(_calling(fn, spec, leaves, wrap, out_spec), in_sigs, out_sigs,
                      _origin(what, pos), pos)
    if pos is not None and result_types is None:
        warnings.warn_explicit(f"{what} on a tensor runs in the Python interpreter at run time "
                               f"(JIT Fallback host callback); {_compiled_alternative(fn)}",
                               FallbackWarning, pos.filename, pos.line)
    results = _emit(cb, inputs, rtypes)
    return _unflatten(out_spec, results)


def _compiled_alternative(fn) -> str:
    """The hint of a FallbackWarning: msmlir.numpy's function of the same name if any."""
    name = getattr(fn, "__name__", None)
    if _describe_fn(fn).startswith("np.") and isinstance(name, str):
        from .. import numpy as mnp
        if name in getattr(mnp, "__all__", ()):
            return f"msmlir.numpy.{name} compiles it"
    return "use msmlir.numpy / msmlir.ops to compile it"


def _probe(fn, spec, leaves, in_sigs, wrap, what):
    """(out_spec, [(shape, dtype)]) of fn's result on arrays of ones."""
    sample = [np.ones(s, d) for s, d in in_sigs]
    a, k = _unflatten(spec, _rebuild_leaves(leaves, sample, wrap))
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            probe = fn(*a, **k)
    except CompileError:
        raise
    except Exception as e:
        _b.error(f"{what} on tensors runs in the Python interpreter at run time (JIT Fallback); "
                 f"its result type is found by calling it once at compile time on arrays of ones, "
                 f"which raised {type(e).__name__}: {e}")
    try:
        out_spec, outs = _result_leaves(probe)
    except HostCallbackError as e:
        _b.error(f"{what}: {e}")
    types = []
    for r in outs:
        try:
            types.append((tuple(r.shape), _dt.from_numpy(r.dtype)))
        except TypeError:
            _b.error(f"{what} returns dtype {r.dtype}, which msmlir tensors do not support; "
                     f"convert it (e.g. .astype(np.int32)) inside the call")
    return out_spec, types


_HOST_MODULES = ("numpy", "math", "cmath", "scipy", "statistics")


def is_host_library_function(f) -> bool:
    """NumPy/math/scipy callables: called on tensors they run at run time."""
    if isinstance(f, np.ufunc):
        return True
    mod = getattr(f, "__module__", None)
    if not isinstance(mod, str):
        self_ = getattr(f, "__self__", None)  # a bound method of a numpy object
        mod = type(self_).__module__ if self_ is not None else ""
    return mod.split(".")[0] in _HOST_MODULES


class _NdarrayMethod:
    """`t.<name>` bound for a run-time call (a class, not a function, so the
    parser calls it instead of parsing it)."""

    def __init__(self, t: TensorValue, name: str):
        self.t, self.name = t, name

    def __call__(self, *args, **kwargs):
        name = self.name
        return host_call(lambda a, *r, **k: getattr(a, name)(*r, **k), [self.t, *args], kwargs,
                         what=f"ndarray.{name}")


def ndarray_method(t: TensorValue, name: str):
    """`x.asnumpy().<name>` for an ndarray attribute a tensor lacks: a method runs
    at run time; a plain attribute that only depends on shape/dtype is constant."""
    attr = getattr(np.ndarray, name, None)
    if attr is None or name.startswith("_"):
        return None
    if callable(attr):
        return _NdarrayMethod(t, name)
    if name in ("nbytes", "itemsize", "strides"):
        return getattr(np.ones(t.shape, t.dtype.to_numpy()), name)
    return None
