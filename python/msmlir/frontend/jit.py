"""`msmlir.jit`: compile a Python function to mindir and run it on the CPU.

The first call with a new input signature (shapes and dtypes of the array
arguments, values of the Python arguments) parses the function, builds a
`builtin.module` whose public `func.func` is the function specialized to that
signature, compiles it with `msmlir.compiler.compile_module` and caches it;
later calls with the same signature only run the compiled code.
"""
from __future__ import annotations

import functools
import os
import threading
import types

import numpy as np
from mlir import ir

from .. import dtype as _dt
from . import builder as _b
from .errors import CompileError
from .parser import ModuleBuilder, TensorSpec, spec_key, tree_flatten, tree_unflatten

__all__ = ["jit", "JitFunction", "eager_call", "Lowered"]

_IGNORED_OPTIONS = ("mode", "jit_config", "hash_args", "compile_once", "input_signature",
                    "capture_mode", "jit_level", "dynamic", "fullgraph", "backend")


def _is_array(v) -> bool:
    return isinstance(v, (np.ndarray, np.generic)) or (hasattr(v, "asnumpy") and hasattr(v, "shape"))


def _as_array(v) -> np.ndarray:
    if hasattr(v, "asnumpy") and not isinstance(v, np.ndarray):
        v = v.asnumpy()
    return np.asarray(v, order="C")  # (np.ascontiguousarray would make 0-d arrays 1-d)


# msmlir.Tensor interop (see msmlir/common/tensor.py): when an argument's type defines
# `__msmlir_wrap__` (ndarray -> tensor), the numpy results are wrapped with it, so a call with
# msmlir.Tensor inputs returns Tensors; numpy in, numpy out is unchanged.
def _result_wrapper(args, kwargs):
    stack = [args, kwargs]
    while stack:
        v = stack.pop()
        if isinstance(v, (tuple, list)):
            stack.extend(v)
        elif isinstance(v, dict):
            stack.extend(v.values())
        else:
            w = getattr(type(v), "__msmlir_wrap__", None)
            if w is not None:
                return w
    return None


def _wrap_results(out, wrap):
    if wrap is None:
        return out
    if isinstance(out, np.ndarray):
        return wrap(out)
    if isinstance(out, tuple):
        items = [_wrap_results(o, wrap) for o in out]
        return type(out)(*items) if hasattr(out, "_fields") else tuple(items)
    if isinstance(out, list):
        return [_wrap_results(o, wrap) for o in out]
    if isinstance(out, dict):
        return {k: _wrap_results(o, wrap) for k, o in out.items()}
    return out


def _abstract_args(args, kwargs):
    """(key, abstract args, abstract kwargs, arrays): arrays become TensorSpecs."""
    spec, leaves = tree_flatten((tuple(args), dict(kwargs)), _is_array)
    arrays, specs = [], []
    for leaf in leaves:
        arr = _as_array(leaf)
        try:
            dt = _dt.from_numpy(arr.dtype)
        except TypeError as e:
            raise CompileError(f"argument of dtype {arr.dtype}: {e}") from None
        arrays.append(arr)
        specs.append(TensorSpec(tuple(arr.shape), dt))
    key = (spec_key(spec), tuple((s.shape, s.dtype.name) for s in specs))
    a, k = tree_unflatten(spec, specs)
    return key, a, k, arrays


class Lowered:
    """One compiled specialization: the module, its text and the runtime handle."""

    def __init__(self, module, context, name, out_spec, n_outputs, params=()):
        self.module = module
        self.context = context
        self.name = name
        self.out_spec = out_spec
        self.n_outputs = n_outputs
        # Parameters the function uses: trailing inputs fed with their current
        # values at each call (see frontend/builder.py, "Function frames")
        self.params = list(params)
        self.compiled = None

    @property
    def text(self) -> str:
        """The mindir module as text."""
        with self.context:
            return str(self.module)

    def compile(self):
        """Compiles a copy of the module (compile_module lowers in place; the
        mindir module stays available for inspection)."""
        if self.compiled is None:
            from ..compiler import compile_module
            with _BUILD_LOCK, self.context:
                copy = ir.Module.parse(self.module.operation.get_asm(enable_debug_info=True))
                expand_transforms(copy)
            try:
                self.compiled = compile_module(copy)
            except ir.MLIRError as e:
                msg = _b.diag_message(e)
                if "mindir-autodiff" in msg or "mindir-vmap" in msg:
                    # a differentiation error (no bprop, unsupported construct): a user error
                    raise _transform_error(e) from None
                raise
        return self.compiled

    def run(self, arrays):
        if self.params:
            arrays = list(arrays) + [_as_array(p) for p in self.params]
        outs = self.compile().call(self.name, *arrays)
        outs = tuple(np.asarray(o) for o in (outs if isinstance(outs, (tuple, list)) else (outs,)))
        if len(outs) != self.n_outputs:
            raise RuntimeError(f"msmlir: {self.name} returned {len(outs)} results, expected "
                               f"{self.n_outputs}")
        return tree_unflatten(self.out_spec, list(outs))


def _pipeline_has(pass_name: str) -> bool:
    try:
        from msmlir.passes.registry import get_pass
        info = get_pass("msmlir-cpu-pipeline")
        return info is not None and info.expand is not None and pass_name in info.expand()
    except Exception:  # pragma: no cover
        return False


def expand_transforms(module) -> None:
    """Runs `mindir-autodiff` on a module holding `mindir.grad` ops when
    msmlir-cpu-pipeline does not (yet) run it first."""
    def has(op) -> bool:
        for r in op.regions:
            for b in r.blocks:
                for o in b.operations:
                    if o.operation.name == "mindir.grad" or has(o.operation):
                        return True
        return False

    if has(module.operation) and not _pipeline_has("mindir-autodiff"):
        from msmlir.passes import run_pipeline
        try:
            run_pipeline(module, "builtin.module(mindir-autodiff)")
        except ir.MLIRError as e:
            raise _transform_error(e) from None


def _transform_error(e) -> CompileError:
    """A CompileError (at the user's line when the diagnostic has one) for an
    MLIRError of mindir-autodiff / mindir-vmap."""
    pos = None
    for d in getattr(e, "error_diagnostics", []) or []:
        if d.location.is_a_file():
            from .errors import SourcePos
            pos = SourcePos(d.location.filename, d.location.start_line, d.location.start_col)
            break
    return CompileError(_b.diag_message(e), pos)


def _context() -> ir.Context:
    """The process-wide MLIR context that msmlir.compiler shares with the frontend."""
    from ..compiler import context
    return context()


# IR building in the shared context is serialized (MLIR contexts are not
# thread-safe for concurrent IR construction).
_BUILD_LOCK = threading.RLock()


def build_module(fn, args, kwargs, *, name=None, trace=False) -> Lowered:
    """Builds (without compiling) the module of `fn` for abstract arguments whose
    tensor leaves are TensorSpecs. Raises CompileError for user errors."""
    ctx = _context()
    with _BUILD_LOCK, ctx, ir.Location.unknown():
        mb = ModuleBuilder()
        with _b.activate(mb):
            info = mb.function(fn, args, kwargs, public=True,
                               name=mb.unique_name(name or getattr(fn, "__name__", "main")), trace=trace)
        try:
            mb.module.operation.verify()
        except ir.MLIRError as e:
            pos = None
            for d in getattr(e, "error_diagnostics", []) or []:
                loc = d.location
                if loc.is_a_file():
                    from .errors import SourcePos
                    pos = SourcePos(loc.filename, loc.start_line, loc.start_col)
                    break
            raise CompileError(f"invalid IR: {_b.diag_message(e)}", pos) from None
        return Lowered(mb.module, ctx, info.name, info.out_spec, len(info.result_types),
                       info.params)


def _strip(e: CompileError) -> CompileError:
    """The error without the compiler's frames or chained exceptions."""
    e.__cause__ = None
    e.__context__ = None
    e.__suppress_context__ = True
    return e.with_traceback(None)


class JitFunction:
    """A function compiled by msmlir on its first call with each input signature.

    Call it with numpy arrays (or Tensor-like objects with `asnumpy()`), Python
    numbers, tuples, lists; it returns numpy arrays (a tuple of them for a
    tuple return). `lower(*args)` / `mlir(*args)` return the mindir text
    without compiling; `cache_info()` reports compilations and cache hits."""

    def __init__(self, fn, *, name=None, trace=None):
        if isinstance(fn, JitFunction):
            fn = fn.fn
        if not callable(fn):
            raise TypeError(f"jit expects a function, got {fn!r}")
        wrapped = fn
        if not isinstance(fn, types.FunctionType):
            # a bound method, a callable object (a Cell), a transform (grad, vmap, ...):
            # the entry calls it as jitted code calls it (parsed / called directly)
            from .parser import invoke

            def entry(*args, **kwargs):
                return invoke(wrapped, list(args), kwargs)
            n = getattr(fn, "__name__", None) or type(fn).__name__
            entry.__name__ = n if isinstance(n, str) and n.isidentifier() else "main"
            fn, trace = entry, True
        self.fn = fn
        self.name = name
        self.trace = (getattr(fn, "__name__", "") == "<lambda>") if trace is None else trace
        self._cache: dict = {}
        self._lock = threading.Lock()
        self.compile_count = 0   # modules built (cache misses)
        self.hits = 0
        if isinstance(wrapped, types.FunctionType):
            functools.update_wrapper(self, wrapped)
        else:
            functools.update_wrapper(self, wrapped, updated=())
            if not isinstance(getattr(self, "__name__", None), str):
                self.__name__ = fn.__name__

    # -- descriptor: jit on methods ----------------------------------------------------
    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return _BoundJit(self, obj)

    # -- building -------------------------------------------------------------------------
    def _lowered(self, args, kwargs):
        key, a, k, arrays = _abstract_args(args, kwargs)
        with self._lock:
            entry = self._cache.get(key)
            if entry is None:
                entry = build_module(self.fn, a, k, name=self.name, trace=self.trace)
                self._cache[key] = entry
                self.compile_count += 1
            else:
                self.hits += 1
        return entry, arrays

    def __call__(self, *args, **kwargs):
        __tracebackhide__ = True  # noqa: F841  (pytest: hide this frame)
        try:
            entry, arrays = self._lowered(args, kwargs)
        except CompileError as e:
            if os.environ.get("MSMLIR_JIT_DEBUG"):
                raise
            raise _strip(e) from None
        return _wrap_results(entry.run(arrays), _result_wrapper(args, kwargs))

    def lower(self, *args, debug_info=False, **kwargs) -> str:
        """The mindir module for these arguments, as text (nothing is compiled).
        With debug_info=True the text carries the source locations."""
        __tracebackhide__ = True  # noqa: F841
        try:
            entry, _ = self._lowered(args, kwargs)
        except CompileError as e:
            if os.environ.get("MSMLIR_JIT_DEBUG"):
                raise
            raise _strip(e) from None
        if debug_info:
            with entry.context:
                return entry.module.operation.get_asm(enable_debug_info=True)
        return entry.text

    mlir = lower

    def lower_module(self, *args, **kwargs) -> Lowered:
        """The cached `Lowered` specialization (module, context, entry name) for these arguments."""
        return self._lowered(args, kwargs)[0]

    def cache_info(self) -> dict:
        return {"compiles": self.compile_count, "hits": self.hits, "entries": len(self._cache)}

    def clear_cache(self):
        self._cache.clear()

    def __repr__(self):
        return f"<msmlir.jit {getattr(self.fn, '__qualname__', self.fn)!r}>"


class _BoundJit:
    """A jitted method bound to an instance (the instance is a compile-time constant)."""

    def __init__(self, jf: JitFunction, obj):
        self.jit_function = jf
        self.__self__ = obj

    def __call__(self, *args, **kwargs):
        __tracebackhide__ = True  # noqa: F841
        return self.jit_function(self.__self__, *args, **kwargs)

    def lower(self, *args, **kwargs) -> str:
        __tracebackhide__ = True  # noqa: F841
        return self.jit_function.lower(self.__self__, *args, **kwargs)

    mlir = lower


def jit(function=None, *, name=None, **options):
    """Compiles `function` with msmlir (MindSpore's `jit`, graph mode): usable as
    `@jit`, `@jit()` or `jit(fn)`. The Python source is parsed (not traced);
    see `msmlir.frontend` for what is supported. MindSpore options such as
    `mode` or `jit_config` are accepted and ignored."""
    for k in options:
        if k not in _IGNORED_OPTIONS:
            raise TypeError(f"jit() got an unexpected keyword argument {k!r}")
    if function is None:
        return lambda f: JitFunction(f, name=name)
    return JitFunction(function, name=name)


# ---------------------------------------------------------------------------
# Eager (PyNative-style) execution of single ops
# ---------------------------------------------------------------------------

_EAGER_CACHE: dict = {}
_EAGER_LOCK = threading.Lock()


def eager_call(fn, args, kwargs, key=None):
    """Runs `fn` (an msmlir.ops function) on numpy arrays / Python values by
    tracing it into a one-function module, compiling and running it (cached
    per function and signature)."""
    __tracebackhide__ = True  # noqa: F841
    try:
        sig_key, a, k, arrays = _abstract_args(args, kwargs)
        cache_key = (key if key is not None else fn, sig_key)
        with _EAGER_LOCK:
            entry = _EAGER_CACHE.get(cache_key)
            if entry is None:
                entry = build_module(fn, a, k, trace=True)
                _EAGER_CACHE[cache_key] = entry
    except CompileError as e:
        if os.environ.get("MSMLIR_JIT_DEBUG"):
            raise
        raise _strip(e) from None
    return _wrap_results(entry.run(arrays), _result_wrapper(args, kwargs))
