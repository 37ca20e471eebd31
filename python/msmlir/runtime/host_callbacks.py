"""Host callbacks: Python functions that compiled code calls back at run time.

Layer 1 (the runtime): `msmlir.compiler` binds the symbol `msmlir_host_N` that a
lowered `mindir.host_callback @msmlir_host_N` op calls to the address of a
ctypes trampoline registered here; the trampoline wraps the buffers as numpy
arrays, runs the Python function and copies its results back. Errors raised
inside a callback cannot unwind through compiled code: they are kept per
thread (`take_errors`) and re-raised by the runtime after the call. The
frontend (fallback.py, ops.Custom) creates the callbacks while compiling; the
vmap pass batches them (`lookup(name).batched(...)`).
"""
from __future__ import annotations

import ctypes
import itertools
import threading

import numpy as np
from mlir import ir

__all__ = ["HostCallback", "HostCallbackError", "callbacks_in", "lookup", "take_errors"]


class HostCallbackError(RuntimeError):
    """A Python call kept by JIT Fallback failed at run time."""


HostCallbackError.__module__ = "msmlir"

_REGISTRY: dict[str, "HostCallback"] = {}
_NAMES = itertools.count()
_ERRORS = threading.local()


def lookup(name: str) -> "HostCallback | None":
    """The callback registered under symbol `name` in this process, or None."""
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
