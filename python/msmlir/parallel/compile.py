"""Compiles a mindir module carrying sharding strategies with
msmlir-cpu-shard-pipeline (passes/parallel/pipeline.py) into each rank's
native code.

The driver is msmlir.compiler's (`_compile`) with the shard pipeline's stages
instead of the CPU pipeline's, and two differences: the signatures are read
after the "shard" stage (each rank's function takes and returns its slices,
which shard-partition decided), and the module is always compiled in process
(no compile cache, no parallel LLVM jobs). `set_context(save_graphs=True)`
dumps every stage as for the CPU path.
"""
from __future__ import annotations

import time

from mlir import ir

from .. import compiler
from ..runtime.compiled_module import CompiledModule, host_callbacks_of
from msmlir.passes import run_pipeline
from msmlir.passes.parallel.pipeline import shard_lowering_stages
from msmlir.passes.registry import get_pass, parse_options


def _signatures(module: ir.Module) -> dict:
    return compiler.public_signatures(module, mark_c_interface=False)


def compile_sharded(module: ir.Module, device_num: int = 0, opt_level: int = 3,
                    timings: dict | None = None) -> CompiledModule:
    """Lowers `module` in place through msmlir-cpu-shard-pipeline and JIT-compiles it."""
    timings = {} if timings is None else timings
    options = parse_options(get_pass("msmlir-cpu-pipeline"), None)
    t = time.perf_counter()
    with module.context:
        run_pipeline(module, compiler._PREPARE)
        for op in module.body.operations:
            if (op.operation.name == "func.func" and "sym_visibility" not in op.attributes
                    and op.regions[0].blocks):
                op.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()
        callbacks = host_callbacks_of(module)
        compiler._mangle_function_names(module)
        timings["prepare"] = time.perf_counter() - t
        dump = compiler._dump_dir(module)
        compiler._dump(dump, 0, "graph", module)
        signatures = None
        for i, (stage, text) in enumerate(shard_lowering_stages(device_num, **options), 1):
            t = time.perf_counter()
            run_pipeline(module, f"builtin.module({text})")
            timings[stage] = time.perf_counter() - t
            compiler._dump(dump, i, stage, module)
            if stage == "shard":
                signatures = _signatures(module)
    t = time.perf_counter()
    compiled = CompiledModule(module, signatures, callbacks, compiler._MANGLE, opt_level)
    timings["jit"] = time.perf_counter() - t
    compiled.timings = timings
    return compiled
