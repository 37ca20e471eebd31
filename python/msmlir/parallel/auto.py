"""AUTO_PARALLEL: sharding strategies chosen by a cost model, on a 1-D mesh.

`plan(module, n)` walks the jit graph's mindir before autodiff in program
order, following `func.call`s and `mindir.grad`s into their callees with the
layouts of their arguments, and gives every matmul, elementwise op and
reduction without a strategy the cheapest one as `mindir.in_strategy`. In a
training graph only the forward (the functions a `mindir.grad` reaches) is
planned: the backward and the optimizer's update are sharded by upstream
sharding-propagation, as in semi-auto mode.

A value's layout is replicated (None) or split along one dim over the n
ranks. For an op, each candidate strategy (matmul: replicated, split M, N or
K; elementwise: replicated or split along one dim of the result; reduction:
replicated, split a kept dim, split a reduced dim) costs

    time = flops / (n if split) / FLOPS                       compute
         + sum(redistribution of each operand to the layout it needs)
         + collectives the strategy itself implies             communication

where a collective of B bytes costs B / BANDWIDTH + LATENCY (ring
algorithms): all_gather of a split tensor of S bytes moves S (n-1)/n,
all_reduce 2 S (n-1)/n, all_to_all S (n-1)/n^2; slicing a replicated tensor
is free. Matmul (M, K) @ (K, N): split K -> partial sums, one all_reduce of
the M x N result. In a training graph (the module holds `mindir.grad`) the
backward is counted too: twice the forward flops; with M split the weight
gradient (K x N) is all-reduced, with N split the input gradient (M x K) is,
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

Across machines the communication constants are those of the network, not
of shared memory (10 Gb/s Ethernet: ~1.2e9 B/s and ~5e-5 s over TCP):
measure them there the same way and set `auto.MODEL` (what
compile_lowered plans with) to a CostModel of them.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from mlir import ir

from msmlir.passes.common.linalg import walk_ops

from .annotate import IN_STRATEGY, OUT_STRATEGY, strategy_attr

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


def _shape(v: ir.Value) -> list[int] | None:
    t = v.type
    if not isinstance(t, ir.RankedTensorType) or not ir.RankedTensorType(t).has_static_shape:
        return None
    return list(ir.RankedTensorType(t).shape)


def _nbytes(v: ir.Value) -> float:
    t = ir.RankedTensorType(v.type)
    width = getattr(t.element_type, "width", 32)
    return float(np.prod(t.shape, dtype=np.int64)) * max(width, 8) / 8


def redistribution(model: CostModel, nbytes: float, src, dst, n: int) -> float:
    """Seconds to take a tensor of `nbytes` from layout src to dst."""
    if src == dst or dst is not None and src is None:
        return 0.0                                   # same, or a local slice
    if dst is None:
        return model.collective(nbytes * (n - 1) / n)          # all_gather
    return model.collective(nbytes * (n - 1) / n / n)          # all_to_all


def _cuts(rank: int, dim, n: int) -> tuple:
    return tuple(n if d == dim else 1 for d in range(rank))


def _bool(op, name: str) -> bool:
    return name in op.attributes and ir.BoolAttr(op.attributes[name]).value


def matmul_choices(op, layouts: dict, n: int, model: CostModel, training: bool,
                   returned: bool) -> list[Choice]:
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
    out_bytes = _nbytes(op.results[0])
    a_needs_grad = not isinstance(a.owner, ir.Block)
    flops = 2.0 * M * K * N * (3 if training else 1)
    out = []
    for split, size in ((None, 1), ("m", M), ("n", N), ("k", K)):
        if split is not None and size % n:
            continue
        la, lb = a_dim.get(split), b_dim.get(split)
        parts = {"compute": model.compute(flops / (n if split else 1)),
                 "inputs": redistribution(model, _nbytes(a), layouts.get(a), la, n)
                 + redistribution(model, _nbytes(b), layouts.get(b), lb, n)}
        out_layout = {"m": 0, "n": 1}.get(split)
        if split == "k":
            parts["all_reduce"] = model.collective(2 * out_bytes * (n - 1) / n)
        if training and split == "m":
            parts["grad_all_reduce"] = model.collective(2 * _nbytes(b) * (n - 1) / n)
        if training and split == "n" and a_needs_grad:
            parts["grad_all_reduce"] = model.collective(2 * _nbytes(a) * (n - 1) / n)
        if returned and out_layout is not None:
            parts["gather"] = model.collective(out_bytes * (n - 1) / n)
        out.append(Choice(f"split {split.upper()}" if split else "replicated",
                          (_cuts(2, la, n), _cuts(2, lb, n)), out_layout,
                          sum(parts.values()), parts))
    return out


def elementwise_choices(op, layouts: dict, n: int, model: CostModel, training: bool,
                        returned: bool) -> list[Choice]:
    shape = _shape(op.results[0])
    operands = [v for v in op.operands]
    shapes = [_shape(v) for v in operands]
    if shape is None or any(s is None for s in shapes):
        return []
    size = float(np.prod(shape, dtype=np.int64)) * (3 if training else 1)
    out = []
    for dim in [None] + [d for d in range(len(shape)) if shape[d] % n == 0 and shape[d] >= n]:
        strategy, parts = [], {"compute": model.elements(size / (n if dim is not None else 1)),
                               "inputs": 0.0}
        for v, s in zip(operands, shapes):
            # trailing-aligned (numpy broadcasting); a broadcast dim of 1 stays whole
            d = None if dim is None else dim - (len(shape) - len(s))
            if d is not None and (d < 0 or s[d] == 1):
                d = None
            strategy.append(_cuts(len(s), d, n))
            parts["inputs"] += redistribution(model, _nbytes(v), layouts.get(v), d, n)
        if returned and dim is not None:
            parts["gather"] = model.collective(_nbytes(op.results[0]) * (n - 1) / n)
        out.append(Choice("replicated" if dim is None else f"split dim {dim}", tuple(strategy),
                          dim, sum(parts.values()), parts))
    return out


def reduction_choices(op, layouts: dict, n: int, model: CostModel, training: bool,
                      returned: bool) -> list[Choice]:
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
    out = []
    for dim in [None] + [d for d in range(rank) if shape[d] % n == 0 and shape[d] >= n]:
        parts = {"compute": model.elements(size / (n if dim is not None else 1)),
                 "inputs": redistribution(model, _nbytes(x), layouts.get(x), dim, n)}
        if dim is None:
            layout = None
        elif dim in axes:                           # partial results, all-reduced
            layout = None
            parts["all_reduce"] = model.collective(2 * out_bytes * (n - 1) / n)
        else:
            layout = dim if keep else dim - sum(1 for a in axes if a < dim)
            if returned:
                parts["gather"] = model.collective(out_bytes * (n - 1) / n)
        out.append(Choice("replicated" if dim is None else f"split dim {dim}",
                          (_cuts(rank, dim, n),), layout, sum(parts.values()), parts))
    return out


MODEL = CostModel()      # what compile_lowered plans with (replace for another machine)


def choices(op, layouts: dict, n: int, model: CostModel = MODEL, training: bool = False,
            returned: bool = False) -> list[Choice]:
    """Every candidate strategy of `op` with its cost (empty: not planned)."""
    name = op.name.removeprefix("mindir.")
    if not op.name.startswith("mindir.") or len(op.results) != 1:
        return []
    if name == "matmul":
        return matmul_choices(op, layouts, n, model, training, returned)
    if name in ELEMENTWISE:
        return elementwise_choices(op, layouts, n, model, training, returned)
    if name in REDUCTIONS:
        return reduction_choices(op, layouts, n, model, training, returned)
    return []


def _callee(op) -> str | None:
    if "callee" in op.attributes:
        return ir.FlatSymbolRefAttr(op.attributes["callee"]).value
    return None


def _simulate(funcs: dict, n: int, model: CostModel, training: bool, forced: dict,
              greedy: bool = True) -> list:
    """One pass over the graph: each planned op takes its forced candidate
    (`forced`: op index -> candidate index), else the cheapest one (`greedy`)
    or the replicated one; returns [(op, chosen Choice, all choices)] in
    visit order."""
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
            cands = choices(op, layouts, n, model, training, returned)
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
            visit(name, [], not training)   # training: the forward (under mindir.grad)
    return decisions


def plan(module: ir.Module, n: int, model: CostModel | None = None, log: list | None = None):
    """Sets `mindir.in_strategy` on the planned ops of `module` (in place).

    Search: op by op in program order, each candidate is tried with two
    completions of the ops after it, the cheapest choice for each (greedy)
    and all replicated, and the one with the least total cost (of its better
    completion) is kept: a split that saves here but forces a
    redistribution later loses, and a chain of splits that only pays off
    together (data parallel) is still found. `log` collects (op, chosen
    Choice, all choices)."""
    if n < 2:
        return
    model = MODEL if model is None else model
    funcs = {ir.StringAttr(op.attributes["sym_name"]).value: op.operation
             for op in module.body.operations if op.operation.name == "func.func"}
    training = any(walk_ops(f, [], lambda o: o.name == "mindir.grad") for f in funcs.values())

    def total(forced, greedy=True):
        d = _simulate(funcs, n, model, training, forced, greedy)
        return sum(c.cost for _, c, _ in d), d

    forced: dict = {}
    _, decisions = total(forced)
    for i in range(len(decisions)):
        costs = [min(total({**forced, i: k})[0], total({**forced, i: k}, False)[0])
                 for k in range(len(decisions[i][2]))]
        forced[i] = int(np.argmin(costs))          # first of equal totals
    _, decisions = total(forced)
    for op, best, _ in decisions:
        op.attributes[IN_STRATEGY] = strategy_attr(best.strategy)
    if log is not None:
        log.extend(decisions)
