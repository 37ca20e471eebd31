"""A compiled module loaded in the process: native code called on numpy arrays.

The runtime side of `msmlir.compiler`: `CompiledModule` JIT-compiles a lowered
module with MLIR's ExecutionEngine (every external symbol bound explicitly,
linker.py, including the host callbacks), and `call` passes numpy arrays in
and out through memref descriptors without copies, copies parameter updates
back into the caller's arrays (write-back), re-raises the errors of host
callbacks (host_callbacks.py) and raises failed run-time checks (checks.py).
"""
from __future__ import annotations

import ctypes
from dataclasses import dataclass

import numpy as np
from mlir import ir
from mlir.execution_engine import ExecutionEngine
from mlir.runtime import np_to_memref

from . import allocator, checks, host_callbacks, linker

__all__ = ["CompiledModule", "Signature", "tensor_signature", "numpy_dtype", "host_callbacks_of"]

_NP_OF = {
    "f16": np.float16, "f32": np.float32, "f64": np.float64,
    "i1": np.bool_, "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
}


def numpy_dtype(t: ir.Type) -> np.dtype:
    key = str(t)
    if key not in _NP_OF:
        raise TypeError(f"no numpy dtype for MLIR element type {key} on the CPU runtime")
    return np.dtype(_NP_OF[key])


@dataclass
class Signature:
    inputs: list[tuple[tuple[int, ...], np.dtype]]
    outputs: list[tuple[tuple[int, ...], np.dtype]]
    # (result index, argument index): results copied into the caller's
    # argument arrays after the call (parameter updates, see
    # passes/graph/functionalize_assign.py); they are not returned.
    writeback: list[tuple[int, int]]


def tensor_signature(t: ir.Type) -> tuple[tuple[int, ...], np.dtype]:
    rt = ir.RankedTensorType(t)
    if not rt.has_static_shape:
        raise TypeError(f"the CPU runtime needs static shapes, got {t}")
    return tuple(rt.shape), numpy_dtype(rt.element_type)


_DESC_CLASSES: dict = {}


def _descriptor(arr: np.ndarray):
    """A memref descriptor viewing `arr` (no copy); classes cached per rank/dtype."""
    key = (arr.ndim, arr.dtype)
    cls = _DESC_CLASSES.get(key)
    if cls is None:
        ctp = np_to_memref.as_ctype(arr.dtype)
        fields = [("allocated", ctypes.c_longlong), ("aligned", ctypes.POINTER(ctp)),
                  ("offset", ctypes.c_longlong)]
        if arr.ndim:
            fields += [("shape", ctypes.c_longlong * arr.ndim),
                       ("strides", ctypes.c_longlong * arr.ndim)]
        cls = _DESC_CLASSES[key] = (type("MemRefDescriptor", (ctypes.Structure,),
                                         {"_fields_": fields}), ctypes.POINTER(ctp))
    struct, ptr_type = cls
    d = struct()
    d.allocated = arr.ctypes.data
    d.aligned = ctypes.cast(arr.ctypes.data, ptr_type)
    d.offset = 0
    if arr.ndim:
        d.shape[:] = arr.shape
        d.strides[:] = [s // arr.itemsize for s in arr.strides]
    return d


def host_callbacks_of(module: ir.Module) -> list:
    """The registered JIT Fallback callbacks the module's mindir.host_callback ops call."""
    found = []
    for name, _, loc in host_callbacks.callbacks_in(module):
        cb = host_callbacks.lookup(name)
        if cb is None:
            raise host_callbacks.HostCallbackError(
                f"{loc}: host callback @{name} is not registered in this process (a module "
                f"with JIT Fallback callbacks only runs in the process that built it)")
        if cb not in found:
            found.append(cb)
    return found


class CompiledModule:
    """Native code for the public functions of a lowered module: `signatures`
    maps each (unmangled) name to its `Signature`; `callbacks` are the host
    callbacks the module calls."""

    def __init__(self, module: ir.Module, signatures: dict, callbacks: list, mangle: str,
                 opt_level: int = 3):
        allocator.tune_malloc()      # the runtime starts with the first compiled module
        self.llvm_ir = module
        self.signatures = signatures
        self.callbacks = callbacks
        self.check_sites = checks.sites_of(module)
        with module.context:
            provided = {cb.name: cb.address for cb in callbacks}
            provided[checks.SYMBOL] = checks.ADDRESS
            symbols = linker.resolve(linker.external_functions(module), provided)
            self.engine = ExecutionEngine(module, opt_level=opt_level)
        for name, address in symbols.items():
            self.engine.raw_register_runtime(name, ctypes.c_void_p(address))
        self._funcs = {name: self.engine.lookup(mangle + name) for name in signatures}

    def call(self, name: str, *args) -> tuple[np.ndarray, ...]:
        """Runs function `name` on numpy arrays; returns its results."""
        sig = self.signatures.get(name)
        if sig is None:
            raise KeyError(f"no public function '{name}' in the compiled module "
                           f"(have: {', '.join(self.signatures)})")
        if len(args) != len(sig.inputs):
            raise TypeError(f"{name} takes {len(sig.inputs)} arguments, got {len(args)}")
        inputs, originals = [], []
        for i, (a, (shape, dtype)) in enumerate(zip(args, sig.inputs)):
            a = np.asarray(a)
            originals.append(a)
            if a.shape != shape or a.dtype != dtype:
                raise TypeError(f"argument {i} of {name}: expected {dtype}{list(shape)}, "
                                f"got {a.dtype}{list(a.shape)}")
            inputs.append(np.ascontiguousarray(a))
        outputs = [np.empty(shape, dtype) for shape, dtype in sig.outputs]
        descs = [_descriptor(a) for a in inputs + outputs]
        packed = (ctypes.c_void_p * len(descs))()
        keep = [ctypes.pointer(ctypes.pointer(d)) for d in descs]
        for i, p in enumerate(keep):
            packed[i] = ctypes.cast(p, ctypes.c_void_p)
        if self.callbacks:
            host_callbacks.take_errors()
        if self.check_sites:
            checks.clear()
        self._funcs[name](packed)
        if self.callbacks:  # errors raised inside host callbacks, re-raised here
            errors = host_callbacks.take_errors()
            if errors:
                raise errors[0]
        if self.check_sites:  # failed run-time checks (checks.py)
            checks.raise_failures(self.check_sites)
        if not sig.writeback:
            return tuple(outputs)
        for r, a in sig.writeback:
            np.copyto(originals[a], outputs[r])
        written = {r for r, _ in sig.writeback}
        return tuple(o for i, o in enumerate(outputs) if i not in written)
