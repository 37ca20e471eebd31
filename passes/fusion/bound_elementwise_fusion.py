"""msmlir-bound-elementwise-fusion / msmlir-drop-fusion-barriers: a size bound
for upstream `linalg-fuse-elementwise-ops`.

The upstream pass fuses a producer into its consumer whenever the producer has
one use, rebuilding the fused body at each step: a chain of N elementwise ops
(a Python-unrolled loop) costs O(N^2) op clones (1000 steps: 3.9 s of 4.2 s
in that pass; 2000 steps: ~24 s to compile). The first pass walks chains of
single-use elementwise `linalg.generic`s and, every `max-ops` ops, gives the
link's value a second use — a call of a private `@msmlir_fusion_barrier_<k>`
declaration, which has unknown side effects and so survives the greedy
driver — so the upstream pass stops there and each fused kernel has at most
`max-ops` ops. The second pass, run right after, deletes the calls and the
declarations. Nothing else changes: the barriers only cut chains longer than
any kernel worth fusing into one loop body.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import func

from ..common.linalg import defining_op, funcs, walk_ops
from ..registry import Option, register_pass

BARRIER = "msmlir_fusion_barrier_"


def _elementwise(op: ir.Operation) -> bool:
    if op.name != "linalg.generic" or len(op.results) != 1:
        return False
    iters = op.attributes["iterator_types"]
    return all("parallel" in str(it) for it in iters)


def _producer(v: ir.Value) -> ir.Operation | None:
    """The elementwise generic upstream fusion would fuse through `v`."""
    owner = defining_op(v)
    return owner if owner is not None and _elementwise(owner) and len(list(v.uses)) == 1 \
        else None


@register_pass("msmlir-bound-elementwise-fusion",
               "Before linalg-fuse-elementwise-ops: cut chains of single-use elementwise "
               "linalg.generics every max-ops ops (a barrier call gives the value a second "
               "use), so upstream fusion stays linear in the chain length",
               options={"max-ops": Option(int, 64, "most elementwise ops fused into one "
                                                   "generic")})
def bound_elementwise_fusion(module: ir.Operation, *, max_ops: int):
    declared: dict[str, str] = {}
    for f in list(funcs(module)):
        depth: dict = {}
        for op in walk_ops(f, [], _elementwise):
            d = 1 + max([depth.get(p, 0) for p in
                         (_producer(v) for v in op.operands) if p is not None] or [0])
            if d >= max_ops:
                _add_barrier(module, op, declared)
                d = 0
            depth[op] = d


def _add_barrier(module: ir.Operation, op: ir.Operation, declared: dict) -> None:
    result = op.results[0]
    key = str(result.type)
    name = declared.get(key)
    if name is None:
        name = declared[key] = f"{BARRIER}{len(declared)}"
        with ir.InsertionPoint(module.regions[0].blocks[0]), ir.Location.unknown():
            func.FuncOp(name, ir.FunctionType.get([result.type], []), visibility="private")
    with ir.InsertionPoint.after(op), op.location:
        func.CallOp([], ir.FlatSymbolRefAttr.get(name), [result])


@register_pass("msmlir-drop-fusion-barriers",
               "After linalg-fuse-elementwise-ops: delete the barrier calls and declarations "
               "of msmlir-bound-elementwise-fusion")
def drop_fusion_barriers(module: ir.Operation):
    def is_barrier(o: ir.Operation) -> bool:
        if o.name == "func.call":
            return ir.FlatSymbolRefAttr(o.attributes["callee"]).value.startswith(BARRIER)
        return o.name == "func.func" and \
            ir.StringAttr(o.attributes["sym_name"]).value.startswith(BARRIER)
    for o in reversed(walk_ops(module, [], is_barrier)):
        o.erase()
