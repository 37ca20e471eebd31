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

Each kept call becomes a `mindir.host_callback @msmlir_host_N` op (emitted by
msmlir/ops/host.py). The pipeline lowers it to a call of an external function
`msmlir_host_N(ptr...)` taking the data pointers of the inputs and of freshly
allocated outputs; the runtime (`msmlir.compiler`) binds that symbol to a
ctypes trampoline (msmlir/runtime/host_callbacks.py) which wraps the buffers as
numpy arrays, calls the Python function and copies its results back. This
module is the compile-time side: what is kept, probing its result types, the
warning.

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
import warnings

import numpy as np

from .. import dtype as _dt
from ..arraylike import host_tensor
from ..errors import CompileError
from ..ops.host import emit_host_call, flatten_args, rebuild_leaves, result_leaves
from ..pytree import tree_unflatten
from ..runtime.host_callbacks import HostCallbackError
from . import builder as _b
from .values import TensorValue

__all__ = ["FallbackWarning", "host_call", "host_print", "is_host_library_function",
           "ndarray_method", "register_compiled_names"]


class FallbackWarning(UserWarning):
    """A construct in a jitted function runs in the Python interpreter at run time."""


FallbackWarning.__module__ = "msmlir"


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


def host_print(args, kwargs):
    """print(...) at run time, with tensors (and strings built from them) as
    their values; constant-only prints also print at every run."""
    spec, leaves, inputs = flatten_args(args, kwargs)

    def run_print(*a, **k):
        k.setdefault("flush", True)
        builtins.print(*a, **k)

    emit_host_call(run_print, spec, leaves, inputs, (("C", None), []), what="print",
                   wrap=host_tensor)
    return None


def host_call(fn, args, kwargs, *, what=None, wrap=np.asarray):
    """`fn(*args, **kwargs)` run by the interpreter at run time (JIT Fallback); the
    tensors in the arguments are passed as numpy arrays (`wrap`). Its result
    types are found by calling `fn` on arrays of ones now, and a FallbackWarning
    says that compiled code would be faster. Returns the result tree with
    TensorValues."""
    pos = _b.current_pos()
    what = what or _describe_fn(fn)
    spec, leaves, inputs = flatten_args(args, kwargs)
    in_sigs = [(tuple(t.shape), np.dtype(t.dtype.to_numpy())) for t in inputs]
    result_types = _probe(fn, spec, leaves, in_sigs, wrap, what)
    if pos is not None:
        warnings.warn_explicit(f"{what} on a tensor runs in the Python interpreter at run time "
                               f"(JIT Fallback host callback); {_compiled_alternative(fn)}",
                               FallbackWarning, pos.filename, pos.line)
    return emit_host_call(fn, spec, leaves, inputs, result_types, what=what, wrap=wrap)


# Compiled equivalents named by the warning: msmlir.numpy registers its functions
# when it is imported (it is a higher layer: it cannot be imported from here).
_COMPILED_NAMES: dict = {}    # function name -> qualified name of the compiled one


def register_compiled_names(module_name: str, names) -> None:
    """Names of NumPy functions that `module_name` (e.g. msmlir.numpy) compiles."""
    for n in names:
        _COMPILED_NAMES.setdefault(n, f"{module_name}.{n}")


def _compiled_alternative(fn) -> str:
    """The hint of a FallbackWarning: msmlir.numpy's function of the same name if any."""
    name = getattr(fn, "__name__", None)
    if _describe_fn(fn).startswith("np.") and isinstance(name, str) and name in _COMPILED_NAMES:
        return f"{_COMPILED_NAMES[name]} compiles it"
    return "use msmlir.numpy / msmlir.ops to compile it"


def _probe(fn, spec, leaves, in_sigs, wrap, what):
    """(out_spec, [(shape, dtype)]) of fn's result on arrays of ones."""
    sample = [np.ones(s, d) for s, d in in_sigs]
    a, k = tree_unflatten(spec, rebuild_leaves(leaves, sample, wrap))
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
        out_spec, outs = result_leaves(probe)
    except HostCallbackError as e:
        _b.error(f"{what}: {e}")
    types = []
    for r in outs:
        try:
            d = _dt.from_numpy(r.dtype)
            if not d.compiled:
                raise TypeError(d.name)
            types.append((tuple(r.shape), d))
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
