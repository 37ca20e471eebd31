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

import os
import threading

from mlir import ir

from . import _native
from .runtime.compiled_module import CompiledModule, Signature, host_callbacks_of, tensor_signature
from msmlir.passes import run_pipeline
from msmlir.passes.fusion.outline_kernels import KERNEL_ATTR, STATS_ATTR
from msmlir.passes.pipelines.cpu import GRAPH_PREPARE, cpu_lowering_stages
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


def _lowering_stages() -> list[tuple[str, str]]:
    """msmlir-cpu-pipeline after GRAPH_PREPARE, with the pipeline's current
    option defaults, as named stages."""
    info = get_pass("msmlir-cpu-pipeline")
    return cpu_lowering_stages(**parse_options(info, None))


_SAVE_GRAPHS: dict = {"path": None, "count": 0}
_LAST_STATS: dict = {}


def save_graphs(path: str | None) -> None:
    """Dump every compiled module after each stage, and each kernel, under
    `path` (None: stop). `set_context(save_graphs=True, save_graphs_path=...)`
    calls this."""
    _SAVE_GRAPHS["path"] = path


def _dump_dir(module: ir.Module) -> str | None:
    path = _SAVE_GRAPHS["path"]
    if path is None:
        return None
    _SAVE_GRAPHS["count"] += 1
    names = [ir.StringAttr(op.attributes["sym_name"]).value.removeprefix(_MANGLE)
             for op in module.body.operations
             if op.operation.name == "func.func" and "sym_visibility" not in op.attributes]
    d = os.path.join(path, f"graph_{_SAVE_GRAPHS['count']:03d}_{(names or ['module'])[0]}")
    os.makedirs(os.path.join(d, "kernels"), exist_ok=True)
    return d


def _dump(d: str | None, index: int, stage: str, module: ir.Module) -> None:
    if d is None:
        return
    with open(os.path.join(d, f"{index:02d}_{stage}.mlir"), "w") as f:
        f.write(module.operation.get_asm(enable_debug_info=True))
    if stage == "kernels":
        for op in module.body.operations:
            if op.operation.name == "func.func" and KERNEL_ATTR in op.attributes:
                name = ir.StringAttr(op.attributes["sym_name"]).value
                with open(os.path.join(d, "kernels", f"{name}.mlir"), "w") as f:
                    f.write(op.operation.get_asm(enable_debug_info=True))


def kernel_stats(module: ir.Module) -> dict:
    """{kernels, calls, bytes} that mskernel-outline-kernels recorded on the module."""
    if STATS_ATTR not in module.operation.attributes:
        return {}
    stats = ir.DictAttr(module.operation.attributes[STATS_ATTR])
    return {k: ir.IntegerAttr(stats[k]).value for k in ("kernels", "calls", "bytes")}


def last_kernel_summary() -> str:
    """One line on the kernels of the last compiled module: kernel calls per
    call of its functions (a call inside a loop counts once), distinct
    kernels, and the bytes those calls read and write."""
    s = _LAST_STATS
    if not s:
        return "no module compiled yet"
    return (f"{s['calls']} kernel calls ({s['kernels']} distinct kernels), "
            f"{s['bytes'] / 1e6:.2f} MB read+written by kernels")


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
        dump = _dump_dir(module)
        _dump(dump, 0, "graph", module)
        stages = _lowering_stages()
        if dump is None:
            run_pipeline(module, "builtin.module(" + ",".join(t for _, t in stages) + ")")
        else:
            for i, (stage, text) in enumerate(stages, 1):
                run_pipeline(module, f"builtin.module({text})")
                _dump(dump, i, stage, module)
        stats = kernel_stats(module)
        _LAST_STATS.clear()
        _LAST_STATS.update(stats)
    compiled = CompiledModule(module, signatures, callbacks, _MANGLE, opt_level)
    compiled.kernel_stats = stats
    return compiled


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
