"""AUTO_PARALLEL: sharding strategies chosen by a cost model, on a 1-D or 2-D mesh.

`plan(module, n)` walks the jit graph's mindir before autodiff in program
order, following `func.call`s and `mindir.grad`s into their callees with the
layouts of their arguments, and gives every matmul, elementwise op and
reduction without a strategy the cheapest one as `mindir.in_strategy`. In a
training graph only the forward (the functions a `mindir.grad` reaches) is
planned: the backward and the optimizer's update are sharded by upstream
sharding-propagation, as in semi-auto mode.

The mesh: n ranks as (n,) and as every 2-D (a, n / a) (`meshes`); the
graph is planned on each and the cheapest plan is kept (ties: the 1-D one).
A value's layout says, per mesh axis, which dim that axis splits (or none:
whole along it); on (n,) that is replicated or one dim split over all n
ranks. An op's candidates assign each mesh axis to one of its iteration dims
or to none (the axis repeats the op): matmul M, N or K; elementwise a dim of
the result; reduction a dim of the input (kept or reduced). On (2, 2) a
matmul thus has 16 candidates, among them data x model parallel ("split
M@0 N@1": rows over axis 0, columns over axis 1). Each candidate costs

    time = flops / (n if split) / FLOPS                       compute
         + sum(redistribution of each operand to the layout it needs)
         + collectives the strategy itself implies             communication

where flops are divided by the ranks of the assigned axes and a collective
of B bytes costs B / BANDWIDTH + LATENCY (ring algorithms), over the group
of ranks g along the axes concerned, on the rank's piece P of the tensor:
all_gather moves P (g-1), all_reduce 2 P (g-1)/g, all_to_all P (g-1)/g (on
(n,) with P = S/n: S (n-1)/n, 2 S (n-1)/n, S (n-1)/n^2); slicing is free.
Redistribution goes axis by axis (a split dropped: all_gather; moved to
another dim: all_to_all). Matmul (M, K) @ (K, N): K split -> partial sums,
one all_reduce of the rank's output block over K's axes. In a training
graph (the module holds `mindir.grad`) the backward is counted too: twice
the forward flops; with M split the weight gradient (its block) is
all-reduced over M's axes, with N split the input gradient over N's axes,
unless the input is a function argument (taken as needing no gradient); K
split needs neither. A split parameter costs nothing more: each rank keeps
and updates its slice (parallel/compile.py). A split
result returned by the public function is gathered (charged to the op that
makes it). Planned ops: 2-D `mindir.matmul` (with its transposes), the
elementwise ops of ELEMENTWISE (numpy broadcasting), the reductions of
REDUCTIONS. Ties go to the earlier candidate (replicated first), so small
ops stay whole: a split must save more compute than its collectives' latency.

`CostModel` holds the constants; `choices()` returns every candidate with
its cost (what tests and `explain` print). Matmuls cost flops / `flops`,
elementwise ops and reductions (bound by memory, not arithmetic) elements /
`elementwise`. The defaults are measured on this project's machine
(`python bench/distributed.py --calibrate`: 2 ranks, one per core of a
2-vCPU VM, MPI over shared memory; min over repetitions, thread CPU time for
compute, wall time for collectives):

    flops        1.7e11 FLOP/s   compiled f32 matmul per rank (128^3: 1.4e11,
                                 256^3: 1.9e11, 512^3: 1.7e11)
    elementwise  3.7e9 elements/s   exp / add / relu over 2^20 float32
    bandwidth    5.5e9 B/s       MPI_Allreduce over sizes 4 B .. 4 MiB, least
    latency      2.8e-6 s        squares t = latency + ring bytes / bandwidth
                                 (4 B: 2.7 us, 4 MiB: 767 us)

A 2-D plan is written as layouts on its device matrix (`mindir.in_layout`,
`mindir.device_matrix`: annotate.py's Layout form), since a candidate may
put a split on either axis, which a tuple of cuts cannot say. Graphs with
strategies of the user's are planned on the 1-D mesh only (theirs fix the
mesh). Under full_batch=False the arguments fed per rank start split on dim 0
over all ranks (`batch_args`). Not modelled: meshes of more than 2 axes,
the compute of the optimizer's update.

Across machines the communication constants are those of the network, not
of shared memory (10 Gb/s Ethernet: ~1.2e9 B/s and ~5e-5 s over TCP):
measure them there the same way and set `auto.MODEL` (what
compile_lowered plans with) to a CostModel of them.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np
from mlir import ir

from msmlir.passes.common.linalg import walk_ops

from .annotate import DEVICE_MATRIX, IN_LAYOUT, IN_STRATEGY, OUT_STRATEGY, strategy_attr

ELEMENTWISE = frozenset(
    "add sub mul div maximum minimum pow floordiv mod equal not_equal less less_equal "
    "greater greater_equal logical_and logical_or logical_not exp log log1p expm1 sqrt rsqrt "
    "reciprocal sin cos tanh sigmoid erf softplus silu floor ceil round neg abs square relu "
    "gelu".split())
REDUCTIONS = frozenset("reduce_sum reduce_mean reduce_max reduce_min reduce_prod".split())


@dataclass(frozen=True)
class CostModel:
    flops: float = 1.7e11        # matmul FLOP/s of one rank
    elementwise: float = 3.7e9   # elements/s of one rank's elementwise ops and reductions
    bandwidth: float = 5.5e9     # bytes/s of a collective
    latency: float = 2.8e-6      # seconds per collective call

    def compute(self, flops: float) -> float:
        return flops / self.flops

    def elements(self, count: float) -> float:
        return count / self.elementwise

    def collective(self, nbytes: float) -> float:
        return nbytes / self.bandwidth + self.latency if nbytes > 0 else 0.0


@dataclass
class Choice:
    """One candidate: the op's in_strategy, its result's layout, its cost (s)."""
    name: str
    strategy: tuple
    out: int | None
    cost: float
    parts: dict = field(default_factory=dict)
    layouts: tuple = ()        # per operand, per mesh axis the operand dim it splits


def _shape(v: ir.Value) -> list[int] | None:
    t = v.type
    if not isinstance(t, ir.RankedTensorType) or not ir.RankedTensorType(t).has_static_shape:
        return None
    return list(ir.RankedTensorType(t).shape)


def _nbytes(v: ir.Value) -> float:
    t = ir.RankedTensorType(v.type)
    width = getattr(t.element_type, "width", 32)
    return float(np.prod(t.shape, dtype=np.int64)) * max(width, 8) / 8


Layout = tuple   # per mesh axis, the dim of the tensor it splits (None: whole along it)


def _replicated(mesh) -> tuple:
    return (None,) * len(mesh)


def _norm(layout, mesh) -> tuple:
    """None (replicated) / an int dim (a 1-D mesh) / a per-axis tuple -> per-axis tuple."""
    if layout is None:
        return _replicated(mesh)
    if isinstance(layout, int):
        return (layout,) + (None,) * (len(mesh) - 1)
    return tuple(layout)


def redistribution(model: CostModel, nbytes: float, src, dst, n: int, mesh=None) -> float:
    """Seconds to take a tensor of `nbytes` from layout src to dst (per mesh
    axis: the dim it splits, or None; on a 1-D mesh also an int dim or None).
    Per axis: the same dim or a new split (a local slice) is free, a split
    dropped is an all_gather of the rank's piece over the axis, a split moved
    to another dim an all_to_all; all_to_alls first, on the smaller pieces."""
    mesh = tuple(mesh) if mesh else (n,)
    src, dst = _norm(src, mesh), _norm(dst, mesh)
    piece = nbytes / float(np.prod([k for k, d in zip(mesh, src) if d is not None]))
    cost = 0.0
    for k, s, d in zip(mesh, src, dst):
        if s is not None and d is not None and s != d:
            cost += model.collective(piece * (k - 1) / k)              # all_to_all
    for k, s, d in zip(mesh, src, dst):
        if s is not None and d is None:
            cost += model.collective(piece * (k - 1))                  # all_gather
            piece *= k
    return cost


def _bool(op, name: str) -> bool:
    return name in op.attributes and ir.BoolAttr(op.attributes[name]).value


def _group(mesh, assign, what) -> int:
    """The number of ranks along the axes assigned `what`."""
    return int(np.prod([k for k, a in zip(mesh, assign) if a == what and a is not None]))


def _assignments(mesh, dims: list, sizes: dict):
    """Every assignment of the mesh axes to the op's iteration dims (or None:
    the axis repeats the op), replicated first; a dim must be divisible by its
    axes' ranks."""
    for assign in itertools.product([None] + dims, repeat=len(mesh)):
        if all(sizes[d] % _group(mesh, assign, d) == 0 for d in dims):
            yield assign


def _name(assign, labels: dict, mesh) -> str:
    if all(a is None for a in assign):
        return "replicated"
    if len(mesh) == 1:
        return f"split {labels[assign[0]]}"
    return "split " + " ".join(f"{labels[a]}@{i}" for i, a in enumerate(assign) if a is not None)


def _cuts(layout: tuple, rank: int, mesh) -> tuple:
    """A per-axis layout's MindSpore strategy tuple (the cut of each dim)."""
    return tuple(int(np.prod([k for k, a in zip(mesh, layout) if a == d])) for d in range(rank))


def _through(assign, dim_of: dict) -> tuple:
    """An operand's per-axis layout: the operand dim each assigned iteration dim is."""
    return tuple(dim_of.get(a) if a is not None else None for a in assign)


def matmul_choices(op, layouts: dict, n: int, model: CostModel, training: bool,
                   returned: bool, mesh=None) -> list[Choice]:
    mesh = tuple(mesh) if mesh else (n,)
    a, b = op.operands[0], op.operands[1]
    sa, sb = _shape(a), _shape(b)
    if sa is None or sb is None or len(sa) != 2 or len(sb) != 2:
        return []
    ta, tb = _bool(op, "transpose_a"), _bool(op, "transpose_b")
    (M, K) = (sa[1], sa[0]) if ta else (sa[0], sa[1])
    N = sb[0] if tb else sb[1]
    # the dim of A / B that holds M, K, N
    a_dim = {"m": 1 if ta else 0, "k": 0 if ta else 1}
    b_dim = {"k": 1 if tb else 0, "n": 0 if tb else 1}
    out_bytes, bytes_a, bytes_b = _nbytes(op.results[0]), _nbytes(a), _nbytes(b)
    a_needs_grad = not isinstance(a.owner, ir.Block)
    flops = 2.0 * M * K * N * (3 if training else 1)
    out = []
    for assign in _assignments(mesh, ["m", "n", "k"], {"m": M, "n": N, "k": K}):
        g = {d: _group(mesh, assign, d) for d in "mnk"}
        la, lb = _through(assign, a_dim), _through(assign, b_dim)
        parts = {"compute": model.compute(flops / (g["m"] * g["n"] * g["k"])),
                 "inputs": redistribution(model, bytes_a, layouts.get(a), la, n, mesh)
                 + redistribution(model, bytes_b, layouts.get(b), lb, n, mesh)}
        out_layout = _through(assign, {"m": 0, "n": 1})
        if g["k"] > 1:                      # partial sums of the rank's output block
            piece = out_bytes / (g["m"] * g["n"])
            parts["all_reduce"] = model.collective(2 * piece * (g["k"] - 1) / g["k"])
        grad = 0.0
        if training and g["m"] > 1:         # the weight's gradient, summed over M's ranks
            piece = bytes_b / (g["k"] * g["n"])
            grad += model.collective(2 * piece * (g["m"] - 1) / g["m"])
        if training and g["n"] > 1 and a_needs_grad:
            piece = bytes_a / (g["m"] * g["k"])
            grad += model.collective(2 * piece * (g["n"] - 1) / g["n"])
        if grad:
            parts["grad_all_reduce"] = grad
        p = g["m"] * g["n"]
        if returned and p > 1:
            parts["gather"] = model.collective(out_bytes * (p - 1) / p)
        out.append(Choice(_name(assign, {"m": "M", "n": "N", "k": "K"}, mesh),
                          (_cuts(la, 2, mesh), _cuts(lb, 2, mesh)), out_layout,
                          sum(parts.values()), parts, (la, lb)))
    return out


def elementwise_choices(op, layouts: dict, n: int, model: CostModel, training: bool,
                        returned: bool, mesh=None) -> list[Choice]:
    mesh = tuple(mesh) if mesh else (n,)
    shape = _shape(op.results[0])
    operands = [v for v in op.operands]
    shapes = [_shape(v) for v in operands]
    if shape is None or any(s is None for s in shapes):
        return []
    size = float(np.prod(shape, dtype=np.int64)) * (3 if training else 1)
    dims = list(range(len(shape)))
    out = []
    for assign in _assignments(mesh, dims, dict(enumerate(shape))):
        used = int(np.prod([k for k, d in zip(mesh, assign) if d is not None]))
        strategy, lays = [], []
        parts = {"compute": model.elements(size / used), "inputs": 0.0}
        for v, s in zip(operands, shapes):
            # trailing-aligned (numpy broadcasting); a broadcast dim of 1 stays whole
            lay = []
            for d in assign:
                od = None if d is None else d - (len(shape) - len(s))
                lay.append(None if od is None or od < 0 or s[od] == 1 else od)
            lay = tuple(lay)
            strategy.append(_cuts(lay, len(s), mesh))
            lays.append(lay)
            parts["inputs"] += redistribution(model, _nbytes(v), layouts.get(v), lay, n, mesh)
        if returned and used > 1:
            parts["gather"] = model.collective(_nbytes(op.results[0]) * (used - 1) / used)
        out.append(Choice(_name(assign, {d: f"dim {d}" for d in dims}, mesh), tuple(strategy),
                          tuple(assign), sum(parts.values()), parts, tuple(lays)))
    return out


def reduction_choices(op, layouts: dict, n: int, model: CostModel, training: bool,
                      returned: bool, mesh=None) -> list[Choice]:
    mesh = tuple(mesh) if mesh else (n,)
    x = op.operands[0]
    shape = _shape(x)
    if shape is None or len(op.operands) != 1:
        return []
    rank = len(shape)
    axes = [int(a) % rank for a in ir.DenseI64ArrayAttr(op.attributes["axes"])] \
        if "axes" in op.attributes else []
    axes = axes or list(range(rank))
    keep = _bool(op, "keep_dims")
    size = float(np.prod(shape, dtype=np.int64)) * (2 if training else 1)
    out_bytes = _nbytes(op.results[0])
    dims = list(range(rank))
    out = []
    for assign in _assignments(mesh, dims, dict(enumerate(shape))):
        used = int(np.prod([k for k, d in zip(mesh, assign) if d is not None]))
        reduced = int(np.prod([k for k, d in zip(mesh, assign) if d in axes]))
        parts = {"compute": model.elements(size / used),
                 "inputs": redistribution(model, _nbytes(x), layouts.get(x), assign, n, mesh)}
        if reduced > 1:                             # partial results, all-reduced
            piece = out_bytes / (used // reduced)
            parts["all_reduce"] = model.collective(2 * piece * (reduced - 1) / reduced)
        layout = tuple(None if d is None or d in axes else
                       d if keep else d - sum(1 for a in axes if a < d) for d in assign)
        kept = used // reduced
        if returned and kept > 1:
            parts["gather"] = model.collective(out_bytes * (kept - 1) / kept)
        out.append(Choice(_name(assign, {d: f"dim {d}" for d in dims}, mesh),
                          (_cuts(tuple(assign), rank, mesh),), layout, sum(parts.values()),
                          parts, (tuple(assign),)))
    return out


MODEL = CostModel()      # what compile_lowered plans with (replace for another machine)


def choices(op, layouts: dict, n: int, model: CostModel = MODEL, training: bool = False,
            returned: bool = False, mesh=None) -> list[Choice]:
    """Every candidate strategy of `op` with its cost (empty: not planned) on
    `mesh` (the axis sizes; default the 1-D mesh of n)."""
    name = op.name.removeprefix("mindir.")
    if not op.name.startswith("mindir.") or len(op.results) != 1:
        return []
    if name == "matmul":
        return matmul_choices(op, layouts, n, model, training, returned, mesh)
    if name in ELEMENTWISE:
        return elementwise_choices(op, layouts, n, model, training, returned, mesh)
    if name in REDUCTIONS:
        return reduction_choices(op, layouts, n, model, training, returned, mesh)
    return []


def _callee(op) -> str | None:
    if "callee" in op.attributes:
        return ir.FlatSymbolRefAttr(op.attributes["callee"]).value
    return None


def _simulate(funcs: dict, n: int, model: CostModel, training: bool, forced: dict,
              greedy: bool = True, mesh=None, batch_args=()) -> list:
    """One pass over the graph: each planned op takes its forced candidate
    (`forced`: op index -> candidate index), else the cheapest one (`greedy`)
    or the replicated one; returns [(op, chosen Choice, all choices)] in
    visit order. The public functions' arguments `batch_args` arrive split
    on dim 0 over every mesh axis (full_batch=False), the others whole."""
    done: set = set()
    decisions: list = []

    def visit(name: str, arg_layouts: list, planned: bool) -> list:
        f = funcs.get(name)
        if f is None or not f.regions[0].blocks or name in done:
            return []
        done.add(name)
        block = f.regions[0].blocks[0]
        public = "sym_visibility" not in f.attributes
        layouts = dict(zip(block.arguments, arg_layouts))
        results: list = []
        for op in walk_ops(f, [], lambda o: True):
            if op.name == "func.return":
                results = [layouts.get(v) for v in op.operands]
                continue
            callee = _callee(op)
            if callee is not None:
                outs = visit(callee, [layouts.get(v) for v in op.operands],
                             planned or op.name == "mindir.grad")
                if op.name == "func.call":
                    layouts.update(zip(op.results, outs))
                continue
            if not planned or IN_STRATEGY in op.attributes or OUT_STRATEGY in op.attributes:
                continue                       # the optimizer's, or the user's strategy
            returned = bool(public and len(op.results)
                            and any(u.owner.name == "func.return" for u in op.results[0].uses))
            cands = choices(op, layouts, n, model, training, returned, mesh)
            if not cands:
                continue
            k = forced.get(len(decisions))
            best = cands[k] if k is not None else \
                min(cands, key=lambda c: c.cost) if greedy else cands[0]
            layouts[op.results[0]] = best.out
            decisions.append((op, best, cands))
        return results

    for name, f in funcs.items():
        if "sym_visibility" not in f.attributes:
            nargs = len(f.regions[0].blocks[0].arguments) if f.regions[0].blocks else 0
            split = (0,) * len(mesh or (n,))
            visit(name, [split if i in batch_args else None for i in range(nargs)],
                  not training)             # training: the forward (under mindir.grad)
    return decisions


def meshes(n: int) -> list[tuple]:
    """The meshes AUTO_PARALLEL tries for n ranks: (n,) and every 2-D (a, n / a)."""
    return [(n,)] + [(a, n // a) for a in range(2, n // 2 + 1) if n % a == 0]


def _user_strategies(funcs: dict) -> bool:
    keys = (IN_STRATEGY, OUT_STRATEGY)
    return any(walk_ops(f, [], lambda o: any(k in o.attributes for k in keys)
                        or o.name == "mindir.sharding_hint") for f in funcs.values())


def plan(module: ir.Module, n: int, model: CostModel | None = None, log: list | None = None,
         mesh=None, batch_args=()):
    """Sets `mindir.in_strategy` on the planned ops of `module` (in place).

    Search: op by op in program order, each candidate is tried with two
    completions of the ops after it, the cheapest choice for each (greedy)
    and all replicated, and the one with the least total cost (of its better
    completion) is kept: a split that saves here but forces a
    redistribution later loses, and a chain of splits that only pays off
    together (data parallel) is still found. This runs on each mesh of
    `meshes(n)` (or on `mesh`) and the cheapest plan wins (ties: the 1-D
    mesh). A 2-D plan is written as layouts on that device matrix
    (`mindir.in_layout` + `mindir.device_matrix`, annotate.py), since its
    candidates may put a split on either axis. With strategies of the user's
    in the module only the 1-D mesh is tried (theirs fix the mesh).
    `batch_args`: the public function's arguments each rank feeds its slice
    of (full_batch=False: dim 0 split over all ranks; a plan that wants them
    whole pays their all_gather). `log` collects (op, chosen Choice, all
    choices)."""
    if n < 2:
        return
    model = MODEL if model is None else model
    funcs = {ir.StringAttr(op.attributes["sym_name"]).value: op.operation
             for op in module.body.operations if op.operation.name == "func.func"}
    training = any(walk_ops(f, [], lambda o: o.name == "mindir.grad") for f in funcs.values())
    tried = [tuple(mesh)] if mesh else [(n,)] if _user_strategies(funcs) else meshes(n)
    best = None
    for m in tried:
        def total(forced, greedy=True):
            d = _simulate(funcs, n, model, training, forced, greedy, m, batch_args)
            return sum(c.cost for _, c, _ in d), d

        forced: dict = {}
        _, decisions = total(forced)
        for i in range(len(decisions)):
            costs = [min(total({**forced, i: k})[0], total({**forced, i: k}, False)[0])
                     for k in range(len(decisions[i][2]))]
            forced[i] = int(np.argmin(costs))          # first of equal totals
        cost, decisions = total(forced)
        if best is None or cost < best[0]:
            best = (cost, m, decisions)
    _, m, decisions = best
    for op, choice, _ in decisions:
        op.attributes[IN_STRATEGY] = strategy_attr(choice.strategy)
        if len(m) > 1:
            op.attributes[IN_LAYOUT] = ir.ArrayAttr.get([
                ir.ArrayAttr.get([ir.DenseI64ArrayAttr.get([a for a, d in enumerate(lay)
                                                            if d == dim])
                                  for dim in range(len(cuts))])
                for lay, cuts in zip(choice.layouts, choice.strategy)])
            op.attributes[DEVICE_MATRIX] = ir.DenseI64ArrayAttr.get(list(m))
    if log is not None:
        log.extend(decisions)
