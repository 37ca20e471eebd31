"""Kernels with a sum over the outer and the inner axes but not a middle one
(a bias gradient: db[c] = sum over n, h, w of dy[n, c, h, w]) as two vector
kernels over a GM workspace (no pass).

vector.py reduces over the last axes (row mode) or the first axes (col mode),
not both at once. Such a sum is split in two, each one a vector kernel
planned by vector.py from a rewritten copy of the kernel function:

    part 1 (row mode)  everything the sum reads, plus partial[n, c] = the sum
                       over the inner axes (h, w); the kernel's other results
                       (the masked dy of a ReLU gradient) come out here
    part 2 (col mode)  db[c] = sum over n of partial[n, c], then whatever the
                       kernel does with the sum (an SGD update of the bias)

A kernel of independent computations over different domains (AMP's casts
of every parameter to f16, one SGD step over several parameters) is split
the same way into one vector kernel per connected component (plan_parts).

Both copies are built with the MLIR Python bindings (the sum replaced by a
linalg.generic over the inner / the outer axes, dead ops removed); nothing
is pattern-matched beyond "one addf sum whose reduced dims are a prefix and a
suffix of its domain".
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith

from .plan import Plan, Unsupported, Value, erase_dead_ops, kind_of


def _op(v):
    owner = v.owner
    if isinstance(owner, ir.Block):
        return None
    return owner.operation if hasattr(owner, "operation") else owner


def _split_sum(fn):
    """(index of the sum op in the body, n outer reduced dims, n kept dims) or None."""
    from .plan import _const_scalar
    ops = [o.operation for o in fn.regions[0].blocks[0].operations]
    for i, op in enumerate(ops):
        if op.name != "linalg.generic" or len(op.results) != 1 or len(op.operands) != 2:
            continue
        its = [str(t) for t in op.attributes["iterator_types"]]
        red = ["reduction" in t for t in its]
        if not any(red) or all(red):
            continue
        a = red.index(False)
        b = len(red) - list(reversed(red)).index(False)
        if a == 0 or b == len(red) or any(red[a:b]):
            continue                     # not an outer + inner sum around kept middle dims
        maps = [ir.AffineMapAttr(m).value for m in op.attributes["indexing_maps"]]
        n = len(red)
        if [str(e) for e in maps[0].results] != [f"d{d}" for d in range(n)] or \
                [str(e) for e in maps[1].results] != [f"d{d}" for d in range(a, b)]:
            continue
        body = [o.operation for o in op.regions[0].blocks[0].operations]
        names = [o.name for o in body]
        if names not in (["arith.addf", "linalg.yield"], ["arith.extf", "arith.addf", "linalg.yield"]) or \
                _const_scalar(op.operands[1]) != 0.0:
            continue                     # (extf: AMP's f16 values summed in f32)
        return i, a, b
    return None


def applies(fn) -> bool:
    return _split_sum(fn) is not None


def _set_type(clone, block):
    ins = [a.type for a in block.arguments]
    ret = [o.operation for o in block.operations][-1]
    clone.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(ins, [v.type for v in ret.operands]))


def _sum(x: ir.Value, in_dims: list[int], n: int, out_dims: list[int], red: list[int], shape: list[int]):
    """A linalg.generic: out[out_dims] = sum over `red` of x[in_dims] (n-d domain)."""
    from ..kernel.builders import filled, generic
    f32 = ir.F32Type.get()
    init = filled(ir.RankedTensorType.get(shape, f32), 0.0)
    amap = lambda dims: ir.AffineMap.get(n, 0, [ir.AffineDimExpr.get(d) for d in dims])  # noqa: E731
    its = ["reduction" if d in red else "parallel" for d in range(n)]
    half = isinstance(ir.RankedTensorType(x.type).element_type, ir.F16Type)
    return generic([x], [amap(in_dims)], init, amap(out_dims), its,
                   lambda args, acc: arith.AddFOp(arith.ExtFOp(f32, args[0]).result if half else args[0],
                                                  acc).result)


def plan_split(fn: ir.Operation, kernel: str, *, soc: str, build_vector) -> Plan:
    found = _split_sum(fn)
    if found is None:
        raise Unsupported("no outer + inner sum")
    idx, a, b = found
    block0 = fn.regions[0].blocks[0]
    ops0 = [o.operation for o in block0.operations]
    s = ops0[idx]
    dom = list(ir.RankedTensorType(s.operands[0].type).shape)
    n = len(dom)
    partial_shape = dom[:b]
    ret0 = ops0[-1]
    # which results depend on the sum
    after = {s.results[0]}
    for op in ops0[idx + 1:]:
        if any(v in after for v in op.operands):
            after |= set(op.results)
    late = [k for k, v in enumerate(ret0.operands) if v in after]
    early = [k for k, v in enumerate(ret0.operands) if v not in after]
    func = ir.StringAttr(fn.attributes["sym_name"]).value
    with fn.context, ir.Location.unknown():
        scratch = ir.Module.create()
        # part 1: the early results and partial[outer..., kept...] = sum over the inner dims
        p1 = fn.clone(ip=ir.InsertionPoint(scratch.body))
        blk = p1.regions[0].blocks[0]
        ops = [o.operation for o in blk.operations]
        with ir.InsertionPoint(ops[idx]):
            partial = _sum(ops[idx].operands[0], list(range(n)), n, list(range(b)), list(range(b, n)),
                           partial_shape)
        old_ret = ops[-1]
        with ir.InsertionPoint(old_ret):
            from mlir.dialects import func as func_d
            func_d.ReturnOp([old_ret.operands[k] for k in early] + [partial])
        old_ret.erase()
        erase_dead_ops(blk)
        _set_type(p1, blk)
        # part 2: the sum over the outer dims of partial, then the late results
        p2 = fn.clone(ip=ir.InsertionPoint(scratch.body))
        blk2 = p2.regions[0].blocks[0]
        arg = blk2.add_argument(ir.RankedTensorType.get(partial_shape, ir.F32Type.get()), ir.Location.unknown())
        ops2 = [o.operation for o in blk2.operations]
        with ir.InsertionPoint(ops2[idx]):
            total = _sum(arg, list(range(b)), b, list(range(a, b)), list(range(a)), dom[a:b])
        ops2[idx].results[0].replace_all_uses_with(total)
        old_ret = ops2[-1]
        with ir.InsertionPoint(old_ret):
            func_d.ReturnOp([old_ret.operands[k] for k in late])
        old_ret.erase()
        erase_dead_ops(blk2)
        _set_type(p2, blk2)
        v1 = build_vector(p1, f"{kernel}_rows")
        v2 = build_vector(p2, f"{kernel}_cols")
    args = list(block0.arguments)
    parts = [(v1, [("arg", i) for i in range(len(args))], [("out", k) for k in early] + [("ws", 0)]),
             (v2, [("arg", i) for i in range(len(args))] + [("ws", 0)], [("out", k) for k in late])]
    return _group_plan(fn, kernel, func, soc, parts, [partial_shape])


# ----------------------------------------------------------------------------- independent parts
def _group_plan(fn, kernel: str, func: str, soc: str, parts: list, workspaces: list) -> Plan:
    """The Plan of a kernel run as several launches (`parts`: (kernel, inputs,
    outputs) over the group's arguments, outputs and `workspaces`)."""
    block0 = fn.regions[0].blocks[0]
    args = list(block0.arguments)
    ret0 = [o.operation for o in block0.operations][-1]
    plan = Plan(kernel=kernel, func=func, kind=kind_of(fn),
                inputs=[(Value(f"in{i}", "full", "input", index=i), 0) for i in range(len(args))],
                outputs=[(Value(f"out{k}", "full", "output", index=k), 0) for k in range(len(ret0.operands))],
                tiling=None, full_slots=0, row_slots=0, reduces=False, compute=[], row_pre=[], scalars=[],
                cols=[], soc=soc)
    plan.shapes = {"in": [list(ir.RankedTensorType(x.type).shape) for x in args],
                   "out": [list(ir.RankedTensorType(v.type).shape) for v in ret0.operands]}
    plan.parts = parts
    plan.workspaces = workspaces
    return plan


def _components(fn) -> list[list[int]]:
    """The kernel's results grouped by the connected components of its ops
    (values flowing between ops; arguments and constants shared freely): a
    fused kernel of independent computations over different domains (AMP's
    casts of every parameter, an SGD update of several parameters)."""
    block = fn.regions[0].blocks[0]
    ops = [o.operation for o in block.operations]
    parent = list(range(len(ops)))

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i
    index = {}
    for i, op in enumerate(ops):
        for r in op.results:
            index[r] = i
    for i, op in enumerate(ops[:-1]):
        if op.name == "arith.constant":
            continue
        for v in op.operands:
            j = index.get(v)
            if j is not None and ops[j].name not in ("arith.constant", "tensor.empty"):
                parent[find(i)] = find(j)
    groups: dict = {}
    for k, v in enumerate(ops[-1].operands):
        j = index.get(v)
        if j is None:
            return []                    # a result that is an argument: no kernel computes it
        groups.setdefault(find(j), []).append(k)
    return list(groups.values())


def independent_parts(fn) -> bool:
    return len(_components(fn)) > 1


def plan_parts(fn: ir.Operation, kernel: str, *, soc: str, build_vector) -> Plan:
    """Independent computations over different domains as one vector kernel
    each (a group run in order, no workspace): each part a copy of the kernel
    function keeping only its results (the rest erased as dead)."""
    from mlir.dialects import func as func_d
    comps = _components(fn)
    if len(comps) < 2:
        raise Unsupported("no independent parts")
    block0 = fn.regions[0].blocks[0]
    args = list(block0.arguments)
    ret0 = [o.operation for o in block0.operations][-1]
    parts = []

    def part(outs, j):
        p = fn.clone(ip=ir.InsertionPoint(scratch.body))
        blk = p.regions[0].blocks[0]
        old_ret = [o.operation for o in blk.operations][-1]
        with ir.InsertionPoint(old_ret):
            func_d.ReturnOp([old_ret.operands[k] for k in outs])
        old_ret.erase()
        erase_dead_ops(blk)
        _set_type(p, blk)
        return (build_vector(p, f"{kernel}_p{j}"), [("arg", i) for i in range(len(args))],
                [("out", k) for k in outs])
    by_shape: dict = {}         # components over the same domain: one kernel if the planner takes them together
    for outs in comps:
        by_shape.setdefault(tuple(ir.RankedTensorType(ret0.operands[outs[0]].type).shape), []).append(outs)
    with fn.context, ir.Location.unknown():
        scratch = ir.Module.create()
        for same in by_shape.values():
            try:
                parts.append(part(sorted(k for outs in same for k in outs), len(parts)))
            except Unsupported:
                for outs in same:
                    parts.append(part(outs, len(parts)))
    return _group_plan(fn, kernel, ir.StringAttr(fn.attributes["sym_name"]).value, soc, parts, [])
