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
called like a CompiledModule. Its inputs:

  - full_batch=True: every rank feeds the same, whole arrays; the module cuts
    this rank's slice of each (the split dim is where the rank's argument
    type is 1/n of the global one);
  - full_batch=False (MindSpore's default, data from a distributed data set):
    each rank feeds its own slice of the batch. `per_rank_specs` (a
    JIT_ARG_HOOK of frontend/trace.py) traces the graph for the global batch,
    dim 0 of every array argument times n, and those arguments get
    MindSpore's "data_parallel" dataset strategy (dim 0 split over the
    ranks), so the rank's function takes exactly the slice it is fed, in
    rank order: the step computes what one process computes on the
    concatenation of the ranks' batches (strategies that want the batch
    whole get it by a compiled all_gather). Every such graph is sharded,
    with or without strategies (data parallel by default).

Results come back whole (compiled all_gathers: results without a strategy
are replicated), except, under full_batch=False, those as long as the global
batch (dim 0): the rank's rows of them, as it fed the inputs (a heuristic:
any result whose dim 0 equals the global batch is taken for a batch).

Parameters (MindSpore's layout: a split parameter lives sliced): each
updated parameter is returned with its argument's sharding
(passes/parallel/partition.py), so a parameter the program splits comes
back as the rank's slice, with no gather. On the first call
(`ShardedDispatcher.keep_slices`) such a Parameter's data is replaced by
its slice (`set_data(..., slice_shape=True)`, `_msmlir_global_shape` keeps
the whole shape for tracing, frontend/trace.py's Frame.value) and from then
on it is fed and updated in place as a slice: per rank, the split
parameters and the optimizer state that follows them take 1/n of the
memory. Graphs compiled later take a sliced parameter in its stored layout
(an argument strategy; on a multi-dimensional mesh its mesh axes per dim,
as a Layout on the mesh would give them: `mindir.layout` with the mesh as
`mindir.device_matrix`, so the later graph runs on the same mesh).
`msmlir.parallel.gather_parameter` rebuilds the whole value.
"""
from __future__ import annotations

import time

import numpy as np
from mlir import ir

from .. import compiler
from ..frontend.trace import GRAPH_COMPILERS, JIT_ARG_HOOKS, TensorSpec
from ..runtime.compiled_module import CompiledModule, Signature, host_callbacks_of
from msmlir.passes.parallel.pipeline import shard_lowering_stages
from msmlir.passes.registry import get_pass, parse_options

from .annotate import ARG_STRATEGY, DEVICE_MATRIX, DEVICE_NUM, IN_STRATEGY, LAYOUT, OUT_STRATEGY

STRATEGY_KEYS = (IN_STRATEGY, OUT_STRATEGY, ARG_STRATEGY, "mindir.sharding_hint")


class ShardingError(ValueError):
    """A sharding strategy that cannot be compiled (the message names the op's location)."""


def _signatures(module: ir.Module) -> dict:
    return compiler.public_signatures(module, mark_c_interface=False)


def _public_functions(module: ir.Module):
    for op in module.body.operations:
        if (op.operation.name == "func.func" and "sym_visibility" not in op.attributes
                and op.regions[0].blocks):
            yield op.operation


def _replicate_results(f: ir.Operation, fixed: dict) -> None:
    """Results get their strategy of `fixed` ({index: cuts}), those without
    one and without a `mindir.strategy` the replicated one (whole on every
    rank); written-back parameters included (partition.py gives those their
    argument's)."""
    ftype = ir.FunctionType(ir.TypeAttr(f.attributes["function_type"]).value)
    old = list(ir.ArrayAttr(f.attributes["res_attrs"])) if "res_attrs" in f.attributes else []
    dicts = []
    for i, t in enumerate(ftype.results):
        d = {n.name: n.attr for n in ir.DictAttr(old[i])} if i < len(old) else {}
        if i in fixed:
            d[ARG_STRATEGY] = ir.DenseI64ArrayAttr.get(fixed[i])
        if ARG_STRATEGY not in d and isinstance(t, ir.RankedTensorType):
            d[ARG_STRATEGY] = ir.DenseI64ArrayAttr.get([1] * ir.RankedTensorType(t).rank)
        dicts.append(ir.DictAttr.get(d))
    f.attributes["res_attrs"] = ir.ArrayAttr.get(dicts)


def compile_sharded(module: ir.Module, device_num: int = 0, opt_level: int = 3,
                    timings: dict | None = None, results: dict | None = None) -> CompiledModule:
    """Lowers `module` in place through msmlir-cpu-shard-pipeline and
    JIT-compiles it; `compiled.global_signatures` are the public functions'
    signatures before partitioning (whole arrays). `results`: function name
    -> {result index: cuts}, set after the graph preparation (which adds the
    written-back results)."""
    timings = {} if timings is None else timings
    options = parse_options(get_pass("msmlir-cpu-pipeline"), None)
    t = time.perf_counter()
    with module.context:
        compiler._run_stage(module, compiler._PREPARE, "prepare")
        for f in _public_functions(module):
            if device_num and DEVICE_NUM not in f.attributes:
                f.attributes[DEVICE_NUM] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64),
                                                              device_num)
            fname = ir.StringAttr(f.attributes["sym_name"]).value
            _replicate_results(f, (results or {}).get(fname, {}))
            f.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()
        global_signatures = _signatures(module)
        callbacks = host_callbacks_of(module)
        compiler._mangle_function_names(module)
        timings["prepare"] = time.perf_counter() - t
        dump = compiler._dump_dir(module)
        compiler._dump(dump, 0, "graph", module)
        signatures, grid, layouts = None, None, {}
        for i, (stage, text) in enumerate(shard_lowering_stages(device_num, **options), 1):
            t = time.perf_counter()
            compiler._run_stage(module, f"builtin.module({text})", stage)
            timings[stage] = time.perf_counter() - t
            compiler._dump(dump, i, stage, module)
            if stage == "shard-annotate":
                grid = _grid_shape(module)
            if stage == "shard":
                signatures = _signatures(module)
                layouts = _arg_layouts(module)
    if grid is not None and len(grid) > 1:
        make_mesh_groups(grid)
    t = time.perf_counter()
    compiled = CompiledModule(module, signatures, callbacks, compiler._MANGLE, opt_level)
    timings["jit"] = time.perf_counter() - t
    compiled.timings = timings
    compiled.global_signatures = global_signatures
    compiled.grid_shape = grid
    compiled.arg_layouts = layouts
    return compiled


def _grid_shape(module: ir.Module) -> list[int] | None:
    for op in module.body.operations:
        if op.operation.name == "shard.grid":
            return list(ir.DenseI64ArrayAttr(op.attributes["shape"]))
    return None


def _arg_layouts(module: ir.Module) -> dict:
    """{function: per argument, the grid axes of each dim} (partition.py's
    msmlir.arg_split_axes; a dim without axes is whole on every rank)."""
    import ast

    from msmlir.passes.parallel.partition import ARG_LAYOUTS
    out = {}
    for f in _public_functions(module):
        if ARG_LAYOUTS not in f.attributes:
            continue
        name = ir.StringAttr(f.attributes["sym_name"]).value.removeprefix(compiler._MANGLE)
        out[name] = [ast.literal_eval(ir.StringAttr(a).value)
                     for a in ir.ArrayAttr(f.attributes[ARG_LAYOUTS])]
    return out


def make_mesh_groups(shape: list[int]) -> None:
    """The sub-grid communicators of a multi-dimensional mesh (every proper
    subset of its axes: for 2x2 the rows and the columns), made once per
    process: this rank's sub-grid of each is a create_group group
    (MPI_Comm_create_group), whose cell compiled collectives of that sub-grid
    load (passes/parallel/world_comm.py). Every rank compiles the same
    program, so every rank comes here, in the same order."""
    from msmlir.passes.parallel.world_comm import (mesh_group_name, subgrid_axes_sets,
                                                   subgrid_ranks)

    from ..runtime import mpi
    n = int(np.prod(shape))
    if n != mpi.size():
        raise ShardingError(f"the device mesh {tuple(shape)} has {n} ranks but the job has "
                            f"{mpi.size()}")
    for axes in subgrid_axes_sets(shape):
        name = mesh_group_name(shape, axes)
        if mpi.group(name) is None:
            mpi.create_group(name, subgrid_ranks(mpi.rank(), shape, axes))


def block_index(layout, rank: int, grid) -> list:
    """Per dim of an argument laid out `layout` (grid axes per dim), this
    rank's block (index, count) on `grid`, or None for a whole dim."""
    from msmlir.passes.parallel.world_comm import coords
    grid = list(grid or [1])
    c = coords(rank, grid)
    out = []
    for axes in layout:
        if not axes:
            out.append(None)
            continue
        i, k = 0, 1
        for a in axes:
            i, k = i * grid[a] + c[a], k * grid[a]
        out.append((i, k))
    return out


def split_dims(global_sig: Signature, local_sig: Signature, n: int, name: str,
               layouts: list | None = None) -> list:
    """Per input, the dim split over the n ranks (None: whole on every rank),
    read off the global and the rank's argument shapes; on a
    multi-dimensional mesh (`layouts`, partition.py's) a tuple of the split
    dims when several are."""
    dims = []
    for i, ((g, _), (l, _)) in enumerate(zip(global_sig.inputs, local_sig.inputs)):
        diff = [d for d, (a, b) in enumerate(zip(g, l)) if a != b]
        if layouts is not None and i < len(layouts):
            split = [d for d, a in enumerate(layouts[i]) if a]
            if split != diff:
                raise ShardingError(f"{name}: argument {i} is {list(g)} globally but {list(l)} "
                                    f"on a rank, not the layout {layouts[i]}")
            dims.append(None if not split else split[0] if len(split) == 1 else tuple(split))
        elif not diff:
            dims.append(None)
        elif len(diff) == 1 and g[diff[0]] == n * l[diff[0]]:
            dims.append(diff[0])
        else:
            raise ShardingError(f"{name}: argument {i} is {list(g)} globally but {list(l)} on "
                                f"a rank, not one dim cut in {n}")
    return dims


def _block(a: np.ndarray, dim, rank: int, n: int, layout=None, grid=None) -> np.ndarray:
    if dim is None:
        return a
    if layout is not None:
        index = [slice(None)] * a.ndim
        for d, b in enumerate(block_index(layout, rank, grid)):
            if b is not None:
                size = a.shape[d] // b[1]
                index[d] = slice(b[0] * size, (b[0] + 1) * size)
        return np.ascontiguousarray(a[tuple(index)])
    b = a.shape[dim] // n
    index = [slice(None)] * a.ndim
    index[dim] = slice(rank * b, (rank + 1) * b)
    return np.ascontiguousarray(a[tuple(index)])


class ShardedDispatcher:
    """The call path of one sharded function (`sig`: the arrays it is fed):
    slices in, whole results out, parameters written back.

    Fed as they are (the rank's slices, `stored`): the per-rank arguments
    (full_batch=False) and the parameters the program splits (updated ones,
    and those an earlier graph left sliced), whose slices each rank keeps;
    every other argument is fed whole and cut here."""

    def __init__(self, compiled: CompiledModule, name: str, rank: int, n: int,
                 per_rank=(), params: dict | None = None):
        g, l = compiled.global_signatures[name], compiled.signatures[name]
        self.global_sig = g
        grid = getattr(compiled, "grid_shape", None)
        self.grid = grid if grid is not None and len(grid) > 1 else None
        layouts = getattr(compiled, "arg_layouts", {}).get(name) if self.grid else None
        self.layouts = layouts or [None] * len(g.inputs)
        self.dims = split_dims(g, l, n, name, layouts)
        for i in per_rank:
            if self.dims[i] != 0 or (self.grid and
                                     list(self.layouts[i][0]) != list(range(len(self.grid)))):
                raise ShardingError(f"{name}: argument {i}, fed per rank (full_batch=False), "
                                    f"is {list(l.inputs[i][0])} on a rank, not dim 0 of "
                                    f"{list(g.inputs[i][0])} cut in {n}")
        for r, a in g.writeback:
            if l.outputs[r][0] != l.inputs[a][0]:
                raise ShardingError(f"{name}: the updated parameter {a} is "
                                    f"{list(l.outputs[r][0])} on a rank but taken as "
                                    f"{list(l.inputs[a][0])}")
        params = params or {}
        split = {i for i, d in enumerate(self.dims) if d is not None}
        self.params = {i: p for i, p in params.items() if i in split and (
            any(a == i for _, a in g.writeback) or sliced(p))}
        stored = set(per_rank) | set(self.params)
        self.sig = Signature([l.inputs[i] if i in stored else g.inputs[i]
                              for i in range(len(g.inputs))], l.outputs, g.writeback)
        self.feed = [None if i in stored else d for i, d in enumerate(self.dims)]
        self.rank, self.n = rank, n
        self.writeback = tuple(g.writeback)
        written = {r for r, _ in g.writeback}
        self.returned = tuple(i for i in range(len(g.outputs)) if i not in written)
        # the rank's code writes nothing back itself: its updated parameters
        # (slices or whole) go to the caller's arrays
        compiled.signatures[name] = Signature(l.inputs, l.outputs, [])
        self.inner = compiled.dispatcher(name)
        # the create_group groups its collectives run on (checked before each
        # call: communication/graphs.py), the mesh's sub-grid groups included
        self.name = name
        self.groups = tuple(getattr(compiled, "groups", ()))
        if self.grid is not None:
            from msmlir.passes.parallel.world_comm import mesh_group_name, subgrid_axes_sets
            self.groups += tuple(mesh_group_name(self.grid, a)
                                 for a in subgrid_axes_sets(self.grid))

    def keep_slices(self, arrays: list) -> None:
        """The first call: the split parameters still whole become their
        rank's slices (Parameter.set_data), which the caller feeds from then on."""
        for i, p in self.params.items():
            whole = self.global_sig.inputs[i][0]
            if tuple(arrays[i].shape) != tuple(whole):
                continue
            p.set_data(_block(arrays[i], self.dims[i], self.rank, self.n, self.layouts[i],
                              self.grid), slice_shape=True)
            p._msmlir_global_shape = tuple(whole)
            p._msmlir_layout = None if self.grid is None else (self.grid, self.layouts[i])
            arrays[i] = p.asnumpy()

    def __call__(self, arrays):
        if self.groups:
            from ..runtime.group_check import check_groups
            check_groups(self.groups, self.name)
        local = [_block(a, d, self.rank, self.n, lay, self.grid)
                 for a, d, lay in zip(arrays, self.feed, self.layouts)]
        outs = self.inner(local)
        for r, a in self.writeback:
            np.copyto(arrays[a], outs[r])
        return tuple(outs[j] for j in self.returned)


def sliced(p) -> bool:
    """Whether Parameter p holds only this rank's slice (a sharded graph split it)."""
    return getattr(p, "_msmlir_global_shape", None) is not None


class ShardedModule:
    """A CompiledModule's interface (`call`, `dispatcher`) over the sharded
    functions of one compiled module."""

    def __init__(self, compiled: CompiledModule, rank: int, n: int, per_rank: dict | None = None,
                 params: dict | None = None):
        self.compiled = compiled
        self.timings = getattr(compiled, "timings", {})
        per_rank, params = per_rank or {}, params or {}
        self._dispatchers = {name: ShardedDispatcher(compiled, name, rank, n,
                                                     per_rank.get(name, ()), params.get(name))
                             for name in list(compiled.global_signatures)}
        self.signatures = {name: d.sig for name, d in self._dispatchers.items()}

    def dispatcher(self, name: str) -> ShardedDispatcher:
        return self._dispatchers[name]

    def call(self, name: str, *args):
        from ..runtime.compiled_module import checked_arguments
        d = self._dispatchers[name]
        args = [np.asarray(a) for a in args]
        d.keep_slices(args)
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


def compile_graph(text: str, parse, timings: dict, lowered=None) -> ShardedModule | None:
    """The graph compiler msmlir.parallel plugs into frontend/trace.py
    (`GRAPH_COMPILERS`): the jit graphs `wants_sharding` picks, and those
    traced for per-rank batches (full_batch=False), else None."""
    per_rank = tuple(getattr(lowered, "per_rank_args", ()))
    if not per_rank and not wants_sharding(text):
        return None
    from ..runtime.group_check import groups_of
    return compile_lowered(parse, timings, lowered, groups_of(text))


def per_rank_specs(specs: list, per_rank: list) -> list:
    """JIT_ARG_HOOK (frontend/trace.py): under semi-auto/auto parallel with
    full_batch=False, a jit call's array arguments (rank >= 1) are this rank's
    slices of the batch: the graph is traced for the global batch (dim 0
    times the ranks) and their indices go to `per_rank`."""
    from ..common.context import get_auto_parallel_context
    if parallel_mode() is None or get_auto_parallel_context("full_batch"):
        return specs
    _, n = mesh()
    _check_same_batches(specs)
    out = []
    for i, s in enumerate(specs):
        if len(s.shape) >= 1:
            s = TensorSpec((s.shape[0] * n,) + tuple(s.shape[1:]), s.dtype)
            per_rank.append(i)
        out.append(s)
    return out


def _check_same_batches(specs: list) -> None:
    """The ranks must feed slices of the same types (else each would compile
    a different program and their collectives would not match): checked with
    one MPI_Allgather of a digest, and the shapes exchanged if they differ."""
    import zlib

    from ..runtime import mpi
    if mpi.size() == 1:
        return
    mine = [(tuple(s.shape), s.dtype.name) for s in specs]
    digests = mpi.allgather_ints([zlib.crc32(repr(mine).encode())])
    if all(d == digests[0] for d in digests):
        return
    code = [len(mine)] + [x for shape, _ in mine for x in (len(shape), *shape)]
    code = (code + [-1] * 64)[:64]
    rows = mpi.allgather_ints(code)

    def show(row):
        shapes, k = [], 1
        for _ in range(row[0]):
            if k >= len(row) or row[k] < 0:
                shapes.append("...")
                break
            shapes.append(str(row[k + 1:k + 1 + row[k]]))
            k += 1 + row[k]
        return ", ".join(shapes)
    ranks_ = "; ".join(f"rank {r}: {show(row)}" for r, row in enumerate(rows))
    raise ShardingError("full_batch=False: every rank must feed a slice of the same shape and "
                        f"dtype (its part of the global batch), but they differ ({ranks_})")


def mesh() -> tuple[int, int]:
    """(rank, n) of the auto-parallel context's 1-D device mesh."""
    from ..common.context import get_auto_parallel_context
    device_num = get_auto_parallel_context("device_num")
    return ranks(device_num if device_num and device_num > 1 else None)


def _arg_strategies(module: ir.Module, name: str, fixed: dict, layouts: dict | None = None,
                    grid=None) -> None:
    """Arguments of the public function `name` get fixed strategies ({index:
    cuts}): MindSpore's data_parallel dataset strategy for the per-rank
    arguments, the stored layout for the parameters already sliced
    (`layouts`: {index: mesh axes per dim} on the device matrix `grid`)."""
    layouts = layouts or {}
    for f in _public_functions(module):
        if ir.StringAttr(f.attributes["sym_name"]).value != name:
            continue
        ftype = ir.FunctionType(ir.TypeAttr(f.attributes["function_type"]).value)
        old = list(ir.ArrayAttr(f.attributes["arg_attrs"])) if "arg_attrs" in f.attributes else []
        dicts = []
        for i in range(len(ftype.inputs)):
            d = {a.name: a.attr for a in ir.DictAttr(old[i])} if i < len(old) else {}
            if i in fixed:
                d[ARG_STRATEGY] = ir.DenseI64ArrayAttr.get(fixed[i])
            if i in layouts:
                d[LAYOUT] = ir.ArrayAttr.get([ir.DenseI64ArrayAttr.get(list(a))
                                              for a in layouts[i]])
            dicts.append(ir.DictAttr.get(d))
        f.attributes["arg_attrs"] = ir.ArrayAttr.get(dicts)
        if layouts:
            f.attributes[DEVICE_MATRIX] = ir.DenseI64ArrayAttr.get(list(grid))


def compile_lowered(parse, timings: dict, lowered=None, groups=()) -> ShardedModule:
    """A jit graph (its mindir module from `parse()`; `lowered`: its
    frontend Lowered, for the per-rank arguments and the Parameters) compiled
    for this rank under the auto-parallel context (see the module docstring)."""
    rank, n = mesh()
    module = parse()
    if parallel_mode() == "auto_parallel":
        from .auto import plan
        with module.context:
            plan(module, n, batch_args=tuple(getattr(lowered, "per_rank_args", ())))
    per_rank, params, args, results, stored, layouts, grid = (), {}, {}, {}, {}, {}, None
    name = getattr(lowered, "name", None)
    if lowered is not None:
        per_rank = tuple(lowered.per_rank_args)
        with module.context:
            sig = _signatures(module)[name]
        first = len(sig.inputs) - len(lowered.params)
        params = {first + j: p for j, p in enumerate(lowered.params)}
        for i in per_rank:
            args[i] = [n] + [1] * (len(sig.inputs[i][0]) - 1)
        for i, p in params.items():
            if sliced(p) and getattr(p, "_msmlir_layout", None) is not None:
                g, axes = p._msmlir_layout
                if grid is not None and list(g) != list(grid):
                    raise ShardingError(
                        f"parameter {p.name!r} is kept sliced on the device mesh {tuple(g)}, "
                        f"another one on {tuple(grid)}: gather one with "
                        "msmlir.parallel.gather_parameter and set_data first")
                grid = list(g)
                layouts[i] = _padded(axes, len(p._msmlir_global_shape))
                args[i] = [int(np.prod([grid[a] for a in ax], dtype=np.int64))
                           for ax in layouts[i]]
                stored[i] = p
            elif sliced(p):
                local, whole = tuple(p.shape), p._msmlir_global_shape
                args[i] = [w // l_ for l_, w in zip(local, whole)]
        # full_batch=False: a result as long as the global batch is the rank's rows
        batches = {sig.inputs[i][0][0] for i in per_rank}
        for j, (shape, _) in enumerate(sig.outputs):
            if len(shape) >= 1 and shape[0] in batches:
                results[j] = [n] + [1] * (len(shape) - 1)
    if args:
        with module.context:
            _arg_strategies(module, name, args, layouts, grid)
    try:
        compiled = compile_sharded(module, n, timings=timings, results={name: results})
    except ir.MLIRError as e:
        raise ShardingError(diagnostics(e)) from None
    compiled.groups = tuple(groups)
    module = ShardedModule(compiled, rank, n, {name: per_rank}, {name: params})
    if stored:
        _check_stored_layouts(module.dispatcher(name), stored)
    return module


def _padded(axes, rank: int) -> list:
    return [list(a) for a in axes] + [[] for _ in range(rank - len(axes))]


def _check_stored_layouts(d: "ShardedDispatcher", stored: dict) -> None:
    """The later graph must cut each stored parameter as it is stored (the
    same mesh, the same axes per dim), else the rank's slice is not its block."""
    for i, p in stored.items():
        grid, axes = p._msmlir_layout
        rank = len(p._msmlir_global_shape)
        if d.grid != list(grid) or d.layouts[i] is None or \
                _padded(d.layouts[i], rank) != _padded(axes, rank):
            raise ShardingError(
                f"parameter {p.name!r} is kept sliced on the device mesh {tuple(grid)} along "
                f"mesh axes {_padded(axes, rank)}, but this graph's mesh is "
                f"{tuple(d.grid) if d.grid else 'one-dimensional'} with the parameter along "
                f"{d.layouts[i]}: gather it with msmlir.parallel.gather_parameter and "
                "set_data first")


def diagnostics(e: ir.MLIRError) -> str:
    """'file:line:col: error: message' per diagnostic, at the user's line: the
    innermost frame of the op's call-site location outside msmlir's own
    sources (an op of a Cell's construct is at the construct's line, not at
    the train step's public function)."""
    import os
    import re
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    lines = []
    for d in getattr(e, "error_diagnostics", []) or []:
        frames = re.findall(r'"([^"]*)":(\d+):(\d+)', str(d.location))
        user = [f for f in frames if not os.path.abspath(f[0]).startswith(package + os.sep)]
        where = ":".join((user or frames)[0]) if frames else str(d.location)
        lines.append(f"{where}: error: {d.message}")
    return "\n".join(lines) or str(e)


if compile_graph not in GRAPH_COMPILERS:
    GRAPH_COMPILERS.append(compile_graph)
if per_rank_specs not in JIT_ARG_HOOKS:
    JIT_ARG_HOOKS.append(per_rank_specs)
