"""The compiler driver: a module of mindir functions -> native CPU code.

`compile_module` (or `compile_mlir` for text) runs `msmlir-cpu-pipeline` on a
copy of the module and JIT-compiles it with MLIR's ExecutionEngine. Each
public function's tensor results become caller-allocated out-parameters, so
`CompiledModule.call` passes numpy arrays in and out without copies (inputs
that are not C-contiguous are made so first).

All msmlir IR lives in one shared MLIR context (`context()`); build modules in
it so that the frontend, the passes and the runtime can exchange IR.
"""
from __future__ import annotations

import ctypes
import threading
from dataclasses import dataclass

import numpy as np
from mlir import ir
from mlir.execution_engine import ExecutionEngine
from mlir.runtime import np_to_memref

from . import _native
from .runtime import allocator, linker
from .frontend import fallback
from msmlir.passes import run_pipeline
from msmlir.passes.pipelines.cpu import GRAPH_PREPARE, cpu_lowering
from msmlir.passes.registry import get_pass, parse_options

_CONTEXT: ir.Context | None = None
_LOCK = threading.Lock()


def context() -> ir.Context:
    """The process-wide MLIR context holding all msmlir IR."""
    global _CONTEXT
    if _CONTEXT is None:
        _CONTEXT = ir.Context()
        _native.load_dialects(_CONTEXT)
    return _CONTEXT


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
class _Signature:
    inputs: list[tuple[tuple[int, ...], np.dtype]]
    outputs: list[tuple[tuple[int, ...], np.dtype]]
    # (result index, argument index): results copied into the caller's
    # argument arrays after the call (parameter updates, see
    # passes/graph/functionalize_assign.py); they are not returned.
    writeback: list[tuple[int, int]]


# msmlir-cpu-pipeline in two steps: the graph-level expansion that fixes the
# public signatures (read in between), then the lowering to LLVM.
_PREPARE = f"builtin.module({GRAPH_PREPARE})"


def _tensor_sig(t: ir.Type) -> tuple[tuple[int, ...], np.dtype]:
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


def _lowering() -> str:
    """msmlir-cpu-pipeline after GRAPH_PREPARE, with the pipeline's current option defaults."""
    info = get_pass("msmlir-cpu-pipeline")
    return cpu_lowering(**parse_options(info, None))


_MANGLE = "msmlir__"


def _mangle_function_names(module: ir.Module):
    """Prefixes every function's symbol: user functions named like C library
    functions (`exp`, `free`, ...) would otherwise be taken for them by the
    lowering (math -> libm calls) and the JIT's symbol resolution."""
    for op in module.body.operations:
        if op.operation.name == "func.func" and op.regions[0].blocks:
            old = ir.StringAttr(op.attributes["sym_name"]).value
            ir.SymbolTable.replace_all_symbol_uses(old, _MANGLE + old, module.operation)
            ir.SymbolTable.set_symbol_name(op, _MANGLE + old)


def _host_callbacks(module: ir.Module) -> list:
    """The registered JIT Fallback callbacks the module's mindir.host_callback ops call."""
    found = []
    for name, _, loc in fallback.callbacks_in(module):
        cb = fallback.lookup(name)
        if cb is None:
            raise fallback.HostCallbackError(
                f"{loc}: host callback @{name} is not registered in this process (a module "
                f"with JIT Fallback callbacks only runs in the process that built it)")
        if cb not in found:
            found.append(cb)
    return found


class CompiledModule:
    """Native code for every public function of a module."""

    def __init__(self, module: ir.Module, opt_level: int = 3):
        allocator.tune_malloc()
        self.signatures: dict[str, _Signature] = {}
        with module.context:
            run_pipeline(module, _PREPARE)
            for op in module.body.operations:
                if op.operation.name != "func.func" or "sym_visibility" in op.attributes:
                    continue
                if not op.regions[0].blocks:
                    continue
                name = ir.StringAttr(op.attributes["sym_name"]).value
                ftype = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)
                writeback = []
                if "msmlir.writeback" in op.attributes:
                    writeback = [tuple(ir.IntegerAttr(x).value for x in pair)
                                 for pair in ir.ArrayAttr(op.attributes["msmlir.writeback"])]
                self.signatures[name] = _Signature([_tensor_sig(t) for t in ftype.inputs],
                                                   [_tensor_sig(t) for t in ftype.results],
                                                   writeback)
                op.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()
            callbacks = _host_callbacks(module)
            _mangle_function_names(module)
            run_pipeline(module, f"builtin.module({_lowering()})")
            self.llvm_ir = module
            # every external symbol bound explicitly (see msmlir/runtime/linker.py),
            # incl. the JIT Fallback callbacks (msmlir/frontend/fallback.py)
            symbols = linker.resolve(linker.external_functions(module),
                                     {cb.name: cb.address for cb in callbacks})
            self.engine = ExecutionEngine(module, opt_level=opt_level)
        self.callbacks = callbacks
        for name, address in symbols.items():
            self.engine.raw_register_runtime(name, ctypes.c_void_p(address))
        self._funcs = {name: self.engine.lookup(_MANGLE + name) for name in self.signatures}

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
            fallback.take_errors()
        self._funcs[name](packed)
        if self.callbacks:  # errors raised inside host callbacks, re-raised here
            errors = fallback.take_errors()
            if errors:
                raise errors[0]
        if not sig.writeback:
            return tuple(outputs)
        for r, a in sig.writeback:
            np.copyto(originals[a], outputs[r])
        written = {r for r, _ in sig.writeback}
        return tuple(o for i, o in enumerate(outputs) if i not in written)


def compile_module(module: ir.Module, opt_level: int = 3) -> CompiledModule:
    """Compiles a module of mindir functions (the module is lowered in place;
    pass a clone to keep the mindir form)."""
    with _LOCK:
        return CompiledModule(module, opt_level)


def compile_mlir(text: str, source_name: str = "<mlir>", opt_level: int = 3) -> CompiledModule:
    """Parses MLIR text in the shared context and compiles it."""
    ctx = context()
    with ctx:
        module = ir.Module.parse(text)
    return compile_module(module, opt_level)
