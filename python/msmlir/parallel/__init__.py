"""Semi-auto parallelism (MindSpore's `ms.shard` / `Primitive.shard`) on MPI ranks.

    import msmlir as ms
    from msmlir import communication as comm, ops, parallel
    comm.init()                                # under mpirun -n 2 (python -m msmlir.run)

    def mlp(x, w1, w2):
        return ops.matmul(ops.relu(ops.matmul(x, w1)), w2)

    f = parallel.shard(mlp, in_strategy=((1, 1), (1, 2), (2, 1)), device_num=2)
    y = f(x, w1, w2)          # full arrays in, the full result out, on every rank

Inputs: every rank passes the FULL (global) arrays, as in MindSpore's
semi-auto mode; `f` cuts this rank's slice of each input by its strategy
(a numpy view, no copy of the whole) before calling the compiled per-rank
program. The program itself holds only slices: shard-partition gave each
function argument its slice's type (x: 4x8, w1: 8x8, w2: 8x8 above for a
4x8 @ 8x16 @ 16x8 MLP), and the collectives the strategies imply
(the row split of w2 -> partial sums -> one all_reduce) run in compiled code.
Outputs: replicated (the whole result on every rank) unless `out_strategy`
splits them, in which case each rank gets its slice.

Strategies: a tuple per input (per output for out_strategy) with one cut per
dim; `None` for an input means replicated. The device mesh is inferred from
the strategies as MindSpore infers its device matrix (the product of a
strategy's cuts must divide device_num; a smaller product is MindSpore's
repeated calculation: each block computed by device_num / product ranks,
ranks 0..k-1 holding the first block, as MindSpore puts the repeated
devices last): 1-D (a cut is 1 or device_num) or
multi-dimensional, e.g. 4 ranks as 2x2 from MatMul strategies
((2, 1), (1, 2)) / ((2, 2), (2, 1)) (data x model parallel; an op's device
matrix is its cuts > 1 in order, MatMul's is (i, k, j)), or given by the
user as MindSpore's `Layout(device_matrix, alias_name)` (a strategy entry
`layout("mp", "None")` names the matrix axes of each dim, in any order;
annotate.py); a tensor's own
strategy (an input's here) must then cut products of the mesh's leading
axes, e.g. one dim by device_num (passes/parallel/insert_shardings.py). Strategies on ops inside the
function: `parallel.annotate(y, in_strategy=...)` (what `Primitive.shard`
records). Compilation: msmlir-cpu-shard-pipeline (passes/parallel/).

Whole jit graphs (a TrainOneStepCell / Model.train step: forward, backward
and update) compile the same way under the auto-parallel context:

    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL,
                                 device_num=2)
    net.fc1.matmul.shard(((1, 1), (2, 1)))     # Primitive.shard strategies

routes every jit graph that carries strategies through the shard pipeline
(compile.py: `compile_lowered`, called from frontend/trace.py); with
`AUTO_PARALLEL` the cost model of auto.py chooses the strategies of the
forward's matmuls, elementwise ops and reductions first. With
full_batch=True every rank feeds the whole batch, with full_batch=False
(the default) its own slice of it (compile.py). `Cell.shard(in_strategy,
out_strategy, parameter_plan)` lays out a cell's inputs, outputs and
parameters (cell.py).

Parameters the program splits are kept sliced, as in MindSpore: after the
first step a rank's Parameter holds only its slice (and so does the
optimizer state that follows it), updated in place with no gather;
`gather_parameter(p)` (a collective: every rank calls it) returns the whole
value, and graphs compiled later take the slice as it is stored.
"""
from __future__ import annotations

import numpy as np
from mlir import ir

from .annotate import (ARG_STRATEGY, DEVICE_MATRIX, DEVICE_NUM, LAYOUT, Layout,  # noqa: F401
                       annotate, cuts, device_matrix_of, layout_attr, normalize)
from .compile import ShardingError, diagnostics as _diagnostics, ranks, sliced

__all__ = ["shard", "annotate", "Layout", "ShardedFunction", "ShardingError", "slice_for_rank",
           "gather_parameter"]


def slice_for_rank(a: np.ndarray, strategy, rank: int) -> np.ndarray:
    """This rank's block of `a` cut by `strategy` (cuts of 1 or n, one split dim)."""
    if strategy is None:
        return a
    strategy = cuts(strategy)
    index = []
    for d, c in enumerate(strategy):
        if c > 1:
            b = a.shape[d] // c
            index.append(slice(rank * b, (rank + 1) * b))
        else:
            index.append(slice(None))
    return np.ascontiguousarray(a[tuple(index)])


def gather_parameter(p) -> np.ndarray:
    """The whole value of Parameter `p` (a copy): its slices all-gathered from
    the ranks when a sharded graph left it sliced, else its data. Every rank
    must call it (a collective)."""
    a = np.asarray(p.asnumpy())
    if not sliced(p):
        return a.copy()
    from ..ops.comm import all_gather
    whole = p._msmlir_global_shape
    layout = getattr(p, "_msmlir_layout", None)
    if layout is not None:           # a multi-dimensional mesh: every rank's block, placed
        from ..runtime import mpi
        from .compile import block_index
        grid, axes = layout
        blocks = np.asarray(all_gather(np.ascontiguousarray(a)[None]))
        out = np.empty(whole, a.dtype)
        for r in range(mpi.size()):
            index = tuple(slice(None) if b is None else
                          slice(b[0] * s, (b[0] + 1) * s)
                          for b, s in zip(block_index(axes, r, grid), a.shape))
            out[index] = blocks[r]
        return out
    dim = next(d for d, (l, w) in enumerate(zip(a.shape, whole)) if l != w)
    out = np.asarray(all_gather(np.ascontiguousarray(np.moveaxis(a, dim, 0))))
    return np.ascontiguousarray(np.moveaxis(out, 0, dim))


class ShardedFunction:
    """`fn` compiled with sharding strategies, run as one SPMD program on the MPI ranks."""

    def __init__(self, fn, in_strategy, out_strategy=None, device_num=None):
        self.fn = fn
        self.in_strategy = normalize(in_strategy, "in_strategy")
        self.out_strategy = None if out_strategy is None else normalize(out_strategy, "out_strategy")
        self.device_num = device_num
        self._cache: dict = {}
        self.last_timings: dict = {}

    def _ranks(self) -> tuple[int, int]:
        return ranks(self.device_num)

    def lower(self, *args) -> ir.Module:
        """The mindir module with the strategies attached (a copy; not lowered)."""
        from ..frontend.jit import JitFunction
        _, n = self._ranks() if self.device_num is None else (0, self.device_num)
        jf = self.fn if isinstance(self.fn, JitFunction) else JitFunction(self.fn)
        lowered = jf.lower_module(*args)
        if lowered.params:
            raise ShardingError("parallel.shard: functions that use Parameters are not "
                                "supported yet (pass the weights as arguments)")
        with lowered.context:
            module = ir.Module.parse(lowered.module.operation.get_asm(enable_debug_info=True))
            f = next(op for op in module.body.operations
                     if op.operation.name == "func.func"
                     and ir.StringAttr(op.attributes["sym_name"]).value == lowered.name)
            ftype = ir.FunctionType(ir.TypeAttr(f.attributes["function_type"]).value)
            if len(self.in_strategy) != len(ftype.inputs):
                raise ShardingError(f"parallel.shard: in_strategy has {len(self.in_strategy)} "
                                    f"tuple(s) but {lowered.name} takes {len(ftype.inputs)} "
                                    "tensor input(s)")
            outs = self.out_strategy
            if outs is not None and len(outs) != len(ftype.results):
                raise ShardingError(f"parallel.shard: out_strategy has {len(outs)} tuple(s) but "
                                    f"{lowered.name} returns {len(ftype.results)} tensor(s)")
            outs = outs or (None,) * len(ftype.results)
            # results without a strategy: replicated (the whole value on every rank)
            outs = [s if s is not None else (1,) * ir.RankedTensorType(t).rank
                    for s, t in zip(outs, ftype.results)]

            def entry(s):
                if s is None:
                    return ir.DictAttr.get({})
                d = {ARG_STRATEGY: ir.DenseI64ArrayAttr.get(list(cuts(s)))}
                if isinstance(s, Layout):
                    d[LAYOUT] = layout_attr(s)
                return ir.DictAttr.get(d)

            def dicts(strategies):
                return ir.ArrayAttr.get([entry(s) for s in strategies])
            # inputs without a strategy: replicated (each rank gets the whole input;
            # left unannotated, propagation would choose a split for them)
            ins = [s if s is not None else (1,) * ir.RankedTensorType(t).rank
                   for s, t in zip(self.in_strategy, ftype.inputs)]
            f.attributes["arg_attrs"] = dicts(ins)
            f.attributes["res_attrs"] = dicts(outs)
            f.attributes[DEVICE_NUM] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), n)
            layouts = [s for s in list(self.in_strategy) + list(self.out_strategy or ())
                       if isinstance(s, Layout)]
            dm = device_matrix_of(layouts, "parallel.shard")
            if dm is not None:
                f.attributes[DEVICE_MATRIX] = ir.DenseI64ArrayAttr.get(list(dm))
        return module, lowered

    def compile(self, *args):
        key = tuple((np.shape(a), np.asarray(a).dtype.str) for a in args)
        entry = self._cache.get(key)
        if entry is None:
            from .compile import compile_sharded
            module, lowered = self.lower(*args)
            timings: dict = {}
            try:
                compiled = compile_sharded(module, self.device_num or 0, timings=timings)
            except ir.MLIRError as e:
                raise ShardingError(_diagnostics(e)) from None
            entry = self._cache[key] = (compiled, lowered.name, lowered.out_spec)
            self.last_timings = timings
        return entry

    def __call__(self, *args):
        rank, _ = self._ranks()
        arrays = [np.asarray(a) for a in args]
        compiled, name, out_spec = self.compile(*arrays)
        grid = getattr(compiled, "grid_shape", None)
        layouts = getattr(compiled, "arg_layouts", {}).get(name)
        if grid is not None and len(grid) > 1 and layouts is not None:
            from .compile import _block       # a multi-dimensional mesh: the rank's block
            local = [_block(a, 0, rank, 0, lay, grid) if any(lay) else a
                     for a, lay in zip(arrays, layouts)]
        else:
            local = [slice_for_rank(a, s, rank) for a, s in zip(arrays, self.in_strategy)]
        outs = compiled.call(name, *local)
        from ..pytree import tree_unflatten
        return tree_unflatten(out_spec, list(outs))


def shard(fn, in_strategy, out_strategy=None, device_num=None) -> ShardedFunction:
    """MindSpore's `ms.shard`: `fn` (a function or msmlir.jit function) compiled
    with `in_strategy` (one tuple of cuts per input) and `out_strategy`, run
    on `device_num` MPI ranks (default: the job's size)."""
    return ShardedFunction(fn, in_strategy, out_strategy, device_num)
