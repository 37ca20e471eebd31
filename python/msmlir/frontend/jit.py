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

from ..arraylike import has_array, host_wrapper, result_wrapper, wrap_results
from ..compiler import _DEVICE
from ..errors import CompileError
from .parser import invoke
from .trace import (BUILD_LOCK, Lowered, ParameterChanged, abstract_args, build_module,
                    fast_args, strip_error)
from msmlir.passes.registry import get_pass


def _pipeline_defaults() -> tuple:
    """The CPU pipeline's option defaults, the device target and the parallel
    mode (set_context / set_auto_parallel_context change them): part of the
    cache key, so a function compiled before the change is recompiled."""
    return tuple(sorted(get_pass("msmlir-cpu-pipeline").defaults().items())) + tuple(_DEVICE.values())


_PIPELINE: list = []


def _options_snapshot() -> tuple:
    """The pipeline's declared options as they are now (set_option_defaults
    replaces an option to change its default): compared, not hashed, by the
    fast path, so a change of any default drops the fast entries."""
    try:
        return (*_PIPELINE[0].values(), *_DEVICE.values())
    except IndexError:
        _PIPELINE.append(get_pass("msmlir-cpu-pipeline").options)
        return (*_PIPELINE[0].values(), *_DEVICE.values())


__all__ = ["jit", "JitFunction", "BoundJit", "Lowered", "BUILD_LOCK"]

_IGNORED_OPTIONS = ("mode", "jit_config", "hash_args", "compile_once", "input_signature",
                    "capture_mode", "jit_level", "dynamic", "fullgraph", "backend")


class JitFunction:
    """A function compiled by msmlir on its first call with each input signature.

    Call it with numpy arrays (or Tensor-like objects with `asnumpy()`), Python
    numbers, tuples, lists; it returns numpy arrays (a tuple of them for a
    tuple return). `lower(*args)` / `mlir(*args)` return the mindir text
    without compiling; `cache_info()` reports compilations and cache hits."""

    __msmlir_jit__ = True   # a valid decorator of a function defined inside jit (parser.py)

    def __init__(self, fn, *, name=None, trace=None):
        if isinstance(fn, JitFunction):
            fn = fn.fn
        if not callable(fn):
            raise TypeError(f"jit expects a function, got {fn!r}")
        wrapped = fn
        if not isinstance(fn, types.FunctionType) or getattr(fn, "__msmlir_primitive__", False):
            # a bound method, a callable object (a Cell, a Primitive), a transform (grad,
            # vmap, ...), an msmlir.ops function (`jit(ops.relu)`: its wrapper has no source):
            # the entry calls it as jitted code calls it (parsed / called directly)
            def entry(*args, **kwargs):
                return invoke(wrapped, list(args), kwargs)
            n = getattr(fn, "__name__", None) or type(fn).__name__
            entry.__name__ = n if isinstance(n, str) and n.isidentifier() else "main"
            fn, trace = entry, True
        self.fn = fn
        self.name = name
        self.trace = (getattr(fn, "__name__", "") == "<lambda>") if trace is None else trace
        self._cache: dict = {}
        self._fast: dict = {}          # fast key (fast_args) -> (Lowered, result wrapper)
        self._fast_options = None
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
        return BoundJit(self, obj)

    def __msmlir_unwrap__(self, args):
        """What compiled code calls instead (parser.py): the function itself."""
        return self.fn, args

    # -- building -------------------------------------------------------------------------
    def _lowered(self, args, kwargs):
        per_rank: list = []
        key, a, k, arrays = abstract_args(args, kwargs, per_rank)
        key = (key, _pipeline_defaults())          # set_context may change how it compiles
        with self._lock:
            entry = self._cache.get(key)
            if entry is None:
                entry = build_module(self.fn, a, k, name=self.name, trace=self.trace)
                entry.per_rank_args = tuple(per_rank)
                self._cache[key] = entry
                self.compile_count += 1
            else:
                self.hits += 1
        return entry, arrays

    def __call__(self, *args, **kwargs):
        __tracebackhide__ = True  # noqa: F841  (pytest: hide this frame)
        fast = fast_args(args, kwargs)
        if fast is not None:
            # the steady state: positional arrays and constants seen before
            plan = self._fast.get(fast[0])
            if plan is not None and _options_snapshot() == self._fast_options:
                self.hits += 1
                try:
                    out = plan[0].run(fast[1])
                except ParameterChanged:
                    self._drop(plan[0])
                else:
                    wrap = plan[1]
                    return out if wrap is None else wrap_results(out, wrap)
        for attempt in (0, 1):
            try:
                entry, arrays = self._lowered(args, kwargs)
            except CompileError as e:
                if os.environ.get("MSMLIR_JIT_DEBUG"):
                    raise
                raise strip_error(e) from None
            try:
                result = entry.run(arrays)
                break
            except ParameterChanged:
                if attempt:
                    raise
                self._drop(entry)      # built for the Parameters' old shapes: build again
        wrap = result_wrapper(args, kwargs)
        if wrap is None and not has_array(args, kwargs):
            wrap = host_wrapper()   # no array in: a Tensor out, as MindSpore (numpy in stays numpy out)
        out = wrap_results(result, wrap)
        if fast is not None:
            options = _options_snapshot()
            if options != self._fast_options:
                self._fast.clear()
                self._fast_options = options
            self._fast[fast[0]] = (entry, wrap)
        return out

    def _drop(self, entry) -> None:
        """Forgets a specialization (its Parameters changed shape or dtype)."""
        with self._lock:
            for cache in (self._cache, self._fast):
                for k in [k for k, v in cache.items() if (v[0] if type(v) is tuple else v) is entry]:
                    del cache[k]

    def lower(self, *args, debug_info=False, **kwargs) -> str:
        """The mindir module for these arguments, as text (nothing is compiled).
        With debug_info=True the text carries the source locations."""
        __tracebackhide__ = True  # noqa: F841
        try:
            entry, _ = self._lowered(args, kwargs)
        except CompileError as e:
            if os.environ.get("MSMLIR_JIT_DEBUG"):
                raise
            raise strip_error(e) from None
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
        self._fast.clear()

    def __repr__(self):
        return f"<msmlir.jit {getattr(self.fn, '__qualname__', self.fn)!r}>"


class BoundJit:
    """A jitted method bound to an instance (the instance is a compile-time constant)."""

    def __init__(self, jf: JitFunction, obj):
        self.jit_function = jf
        self.__self__ = obj

    def __msmlir_unwrap__(self, args):
        """What compiled code calls instead (parser.py): the method on its instance."""
        return self.jit_function.fn, [self.__self__, *args]

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


jit.__msmlir_jit__ = True
