"""The compiler driver: a module of mindir functions -> native CPU code.

`compile_module` (or `compile_mlir` for text) runs `msmlir-cpu-pipeline` on
the module and hands the lowered module to the runtime
(msmlir/runtime/compiled_module.py), which JIT-compiles it with MLIR's
ExecutionEngine. Each public function's tensor results become caller-allocated
out-parameters, so `CompiledModule.call` passes numpy arrays in and out
without copies (inputs that are not C-contiguous are made so first).

All msmlir IR lives in one shared MLIR context (`context()`); build modules in
it so that the frontend, the passes and the runtime can exchange IR.
"""
from __future__ import annotations

import threading

from mlir import ir

from . import _native
from .runtime.compiled_module import CompiledModule, Signature, host_callbacks_of, tensor_signature
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


# msmlir-cpu-pipeline in two steps: the graph-level expansion that fixes the
# public signatures (read in between), then the lowering to LLVM.
_PREPARE = f"builtin.module({GRAPH_PREPARE})"


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


def _compile(module: ir.Module, opt_level: int) -> CompiledModule:
    signatures: dict[str, Signature] = {}
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
            signatures[name] = Signature([tensor_signature(t) for t in ftype.inputs],
                                         [tensor_signature(t) for t in ftype.results], writeback)
            op.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()
        callbacks = host_callbacks_of(module)
        _mangle_function_names(module)
        run_pipeline(module, f"builtin.module({_lowering()})")
    return CompiledModule(module, signatures, callbacks, _MANGLE, opt_level)


def compile_module(module: ir.Module, opt_level: int = 3) -> CompiledModule:
    """Compiles a module of mindir functions (the module is lowered in place;
    pass a clone to keep the mindir form)."""
    with _LOCK:
        return _compile(module, opt_level)


def compile_mlir(text: str, source_name: str = "<mlir>", opt_level: int = 3) -> CompiledModule:
    """Parses MLIR text in the shared context and compiles it."""
    ctx = context()
    with ctx:
        module = ir.Module.parse(text)
    return compile_module(module, opt_level)
