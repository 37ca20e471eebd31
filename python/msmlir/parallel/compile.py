"""Compiles a mindir module carrying sharding strategies with
msmlir-cpu-shard-pipeline (passes/parallel/pipeline.py) into each rank's
native code, and runs it on full (global) arrays.

The driver is msmlir.compiler's (`_compile`) with the shard pipeline's stages
instead of the CPU pipeline's, and two differences: the signatures are read
after the "shard" stage (each rank's function takes and returns its slices,
which shard-partition decided), and the module is always compiled in process
(no compile cache, no parallel LLVM jobs). `set_context(save_graphs=True)`
dumps every stage as for the CPU path.

`compile_lowered` is what a jit graph compiles with under
`set_auto_parallel_context(parallel_mode=SEMI_AUTO_PARALLEL)` (this module
registers `compile_graph` in frontend/trace.py's GRAPH_COMPILERS when
imported; msmlir.context imports it): the result, a `ShardedModule`, is
called like a CompiledModule with the whole arrays (MindSpore's `full_batch=True`: every
rank feeds the same batch). It cuts this rank's slice of each input (the
split dim is where the rank's argument type is 1/n of the global one),
returns the results whole (compiled all_gathers: results without a strategy
are replicated) and copies the updated parameters (written-back results,
replicated too) into the caller's arrays, so every rank keeps whole,
identical parameters after each step (MindSpore keeps only the slices; here
the slices are re-gathered each step).
"""
from __future__ import annotations

import time

import numpy as np
from mlir import ir

from .. import compiler
from ..frontend.trace import GRAPH_COMPILERS
from ..runtime.compiled_module import CompiledModule, Signature, host_callbacks_of
from msmlir.passes import run_pipeline
from msmlir.passes.parallel.pipeline import shard_lowering_stages
from msmlir.passes.registry import get_pass, parse_options

from .annotate import ARG_STRATEGY, DEVICE_NUM, IN_STRATEGY, OUT_STRATEGY

STRATEGY_KEYS = (IN_STRATEGY, OUT_STRATEGY, ARG_STRATEGY)


class ShardingError(ValueError):
    """A sharding strategy that cannot be compiled (the message names the op's location)."""


def _signatures(module: ir.Module) -> dict:
    return compiler.public_signatures(module, mark_c_interface=False)


def _public_functions(module: ir.Module):
    for op in module.body.operations:
        if (op.operation.name == "func.func" and "sym_visibility" not in op.attributes
                and op.regions[0].blocks):
            yield op.operation


def _replicate_results(f: ir.Operation) -> None:
    """Results without a `mindir.strategy` get the replicated one (whole on
    every rank); written-back parameters included."""
    ftype = ir.FunctionType(ir.TypeAttr(f.attributes["function_type"]).value)
    old = list(ir.ArrayAttr(f.attributes["res_attrs"])) if "res_attrs" in f.attributes else []
    dicts = []
    for i, t in enumerate(ftype.results):
        d = {n.name: n.attr for n in ir.DictAttr(old[i])} if i < len(old) else {}
        if ARG_STRATEGY not in d and isinstance(t, ir.RankedTensorType):
            d[ARG_STRATEGY] = ir.DenseI64ArrayAttr.get([1] * ir.RankedTensorType(t).rank)
        dicts.append(ir.DictAttr.get(d))
    f.attributes["res_attrs"] = ir.ArrayAttr.get(dicts)


def compile_sharded(module: ir.Module, device_num: int = 0, opt_level: int = 3,
                    timings: dict | None = None) -> CompiledModule:
    """Lowers `module` in place through msmlir-cpu-shard-pipeline and
    JIT-compiles it; `compiled.global_signatures` are the public functions'
    signatures before partitioning (whole arrays)."""
    timings = {} if timings is None else timings
    options = parse_options(get_pass("msmlir-cpu-pipeline"), None)
    t = time.perf_counter()
    with module.context:
        run_pipeline(module, compiler._PREPARE)
        for f in _public_functions(module):
            if device_num and DEVICE_NUM not in f.attributes:
                f.attributes[DEVICE_NUM] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64),
                                                              device_num)
            _replicate_results(f)
            f.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()
        global_signatures = _signatures(module)
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
    compiled.global_signatures = global_signatures
    return compiled


def split_dims(global_sig: Signature, local_sig: Signature, n: int, name: str) -> list:
    """Per input, the dim split over the n ranks (None: whole on every rank),
    read off the global and the rank's argument shapes."""
    dims = []
    for i, ((g, _), (l, _)) in enumerate(zip(global_sig.inputs, local_sig.inputs)):
        diff = [d for d, (a, b) in enumerate(zip(g, l)) if a != b]
        if not diff:
            dims.append(None)
        elif len(diff) == 1 and g[diff[0]] == n * l[diff[0]]:
            dims.append(diff[0])
        else:
            raise ShardingError(f"{name}: argument {i} is {list(g)} globally but {list(l)} on "
                                f"a rank, not one dim cut in {n}")
    return dims


def _block(a: np.ndarray, dim, rank: int, n: int) -> np.ndarray:
    if dim is None:
        return a
    b = a.shape[dim] // n
    index = [slice(None)] * a.ndim
    index[dim] = slice(rank * b, (rank + 1) * b)
    return np.ascontiguousarray(a[tuple(index)])


class ShardedDispatcher:
    """The call path of one sharded function on the whole arrays (`sig`: its
    global signature): slices in, whole results out, parameters written back."""

    def __init__(self, compiled: CompiledModule, name: str, rank: int, n: int):
        g, l = compiled.global_signatures[name], compiled.signatures[name]
        self.sig = g
        self.dims = split_dims(g, l, n, name)
        self.rank, self.n = rank, n
        for r, a in g.writeback:
            if l.outputs[r][0] != g.inputs[a][0]:
                raise ShardingError(f"{name}: the updated parameter {a} is "
                                    f"{list(l.outputs[r][0])} on a rank, expected it whole")
        self.writeback = tuple(g.writeback)
        written = {r for r, _ in g.writeback}
        self.returned = tuple(i for i in range(len(g.outputs)) if i not in written)
        # the rank's code writes nothing back itself: its updated parameters
        # come back whole and go to the caller's (whole) arrays
        compiled.signatures[name] = Signature(l.inputs, l.outputs, [])
        self.inner = compiled.dispatcher(name)

    def __call__(self, arrays):
        local = [_block(a, d, self.rank, self.n) for a, d in zip(arrays, self.dims)]
        outs = self.inner(local)
        for r, a in self.writeback:
            np.copyto(arrays[a], outs[r])
        return tuple(outs[j] for j in self.returned)


class ShardedModule:
    """A CompiledModule's interface (`call`, `dispatcher`) over the sharded
    functions of one compiled module, on whole arrays."""

    def __init__(self, compiled: CompiledModule, rank: int, n: int):
        self.compiled = compiled
        self.timings = getattr(compiled, "timings", {})
        self.signatures = compiled.global_signatures
        self._dispatchers = {name: ShardedDispatcher(compiled, name, rank, n)
                             for name in list(compiled.global_signatures)}

    def dispatcher(self, name: str) -> ShardedDispatcher:
        return self._dispatchers[name]

    def call(self, name: str, *args):
        from ..runtime.compiled_module import checked_arguments
        d = self._dispatchers[name]
        return d(checked_arguments(name, args, d.sig))


def parallel_mode() -> str | None:
    """'semi_auto_parallel' / 'auto_parallel' when the auto-parallel context
    asks for compiled sharding, else None."""
    from ..common.context import get_auto_parallel_context
    mode = get_auto_parallel_context("parallel_mode")
    return mode if mode in ("semi_auto_parallel", "auto_parallel") else None


def wants_sharding(text: str) -> bool:
    """Whether a jit module compiles through the shard pipeline: a
    semi-auto/auto parallel context, and strategies in the module
    (semi-auto), or a matmul or a gradient (auto: what the cost model may
    split). Eager single ops and other graphs stay on the plain CPU path."""
    mode = parallel_mode()
    if mode is None:
        return False
    if mode == "auto_parallel":
        return "mindir.matmul" in text or "mindir.grad" in text
    return any(k in text for k in STRATEGY_KEYS)


def ranks(device_num: int | None = None) -> tuple[int, int]:
    """(rank, n): this process's MPI rank and the 1-D mesh size, checked."""
    from ..runtime import mpi
    if not mpi.initialized():
        raise ShardingError("semi-auto parallel: call msmlir.communication.init() first "
                            "(and run under mpirun / python -m msmlir.run)")
    n = device_num or mpi.size()
    if n != mpi.size():
        raise ShardingError(f"semi-auto parallel: device_num={n} but the job has {mpi.size()} "
                            "rank(s); the 1-D device mesh must cover every rank")
    return mpi.rank(), n


def compile_graph(text: str, parse, timings: dict) -> ShardedModule | None:
    """The graph compiler msmlir.parallel plugs into frontend/trace.py
    (`GRAPH_COMPILERS`): the jit graphs `wants_sharding` picks, else None."""
    if not wants_sharding(text):
        return None
    check_full_batch()
    return compile_lowered(parse, timings)


def check_full_batch() -> None:
    """Sharded graphs take the whole batch on every rank (MindSpore's
    full_batch=True) and cut each rank's slice themselves; with MindSpore's
    default full_batch=False each rank would feed its own part of the batch,
    which these graphs would take for the whole one: refused, not computed."""
    from ..common.context import get_auto_parallel_context
    if not get_auto_parallel_context("full_batch"):
        raise ShardingError("semi-auto/auto parallel graphs take the whole batch on every rank: "
                            "call set_auto_parallel_context(full_batch=True) and feed every rank "
                            "the same data (per-rank slices of the batch, full_batch=False, are "
                            "not supported yet)")


def compile_lowered(parse, timings: dict) -> ShardedModule:
    """A jit graph (its mindir module from `parse()`) compiled for this rank
    under the auto-parallel context (see the module docstring)."""
    from ..common.context import get_auto_parallel_context
    device_num = get_auto_parallel_context("device_num")
    rank, n = ranks(device_num if device_num and device_num > 1 else None)
    module = parse()
    if parallel_mode() == "auto_parallel":
        from .auto import plan
        with module.context:
            plan(module, n)
    try:
        compiled = compile_sharded(module, n, timings=timings)
    except ir.MLIRError as e:
        raise ShardingError(diagnostics(e)) from None
    return ShardedModule(compiled, rank, n)


def diagnostics(e: ir.MLIRError) -> str:
    """'file:line:col: error: message' per diagnostic (the op's location)."""
    import re
    lines = []
    for d in getattr(e, "error_diagnostics", []) or []:
        loc = re.sub(r'^loc\("(.*)":(\d+):(\d+)\)$', r"\1:\2:\3", str(d.location))
        lines.append(f"{loc}: error: {d.message}")
    return "\n".join(lines) or str(e)


if compile_graph not in GRAPH_COMPILERS:
    GRAPH_COMPILERS.append(compile_graph)
