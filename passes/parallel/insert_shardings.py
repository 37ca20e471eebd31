"""mindir-insert-shardings: MindSpore sharding strategies -> upstream `shard` annotations.

Why: semi-auto parallelism (MindSpore's `Primitive.shard` / `ms.shard`) is
written as strategies, "cut dim d of input i into c parts", on ops and
function arguments; upstream MLIR's `sharding-propagation` and
`shard-partition` consume `shard.grid` + `shard.sharding` + `shard.shard`
annotations. This pass is the translation, on mindir (before
convert-mindir-to-linalg, which drops the attributes; the shard ops pass
through graph-kernel fusion and outlining as kernel boundaries):

    func.func @f(%x: tensor<4x8xf32> {mindir.strategy = array<i64: 1, 1>},
                 %w: tensor<8x16xf32> {mindir.strategy = array<i64: 1, 2>})
        attributes {mindir.device_num = 2 : i64} {
      %y = mindir.matmul %x, %w {mindir.in_strategy = [array<i64: 1, 1>, array<i64: 1, 2>]} ...
becomes
    shard.grid private @msmlir_grid(shape = 2)    (private: symbol-dce drops it after MPI lowering)
      %s = shard.sharding @msmlir_grid split_axes = [[], [0]] : !shard.sharding
      %w1 = shard.shard %w to %s annotate_for_users : tensor<8x16xf32>
      %y = mindir.matmul %x1, %w1 ...

Strategies (tuples of cuts, one per dim):
  - function argument: arg attribute `mindir.strategy` (its users see that sharding);
  - function result: result attribute `mindir.strategy` (the value returned);
  - op: `mindir.in_strategy` (one tuple per operand: what the op consumes) and
    optionally `mindir.out_strategy` (one tuple per result: what it produces);
  - value: `mindir.sharding_hint %x {strategy = ...}` (Cell.shard's inputs,
    outputs and parameter_plan): a layout constraint, replaced by
        %a = shard.shard %x to S                      (the value is laid out S)
        %b = shard.shard %a to S annotate_for_users   (and its users see S)
The device mesh is 1-D (`shard.grid @msmlir_grid(shape = device_num)`, the
function's `mindir.device_num`, else the pass option): a cut is 1 (the dim is
whole on every rank) or device_num (split over all ranks), at most one dim
of a tensor is split. Bad strategies (wrong number of tuples or of cuts,
a cut that does not divide its dim, other cuts) are errors at the op's (or
function's) location. The module also gets the `dlti.map` naming the MPI ABI
(OpenMPI) that convert-shard-to-mpi needs.
"""
from __future__ import annotations

from mlir import ir

from ..lowering.materialize_collectives import MPI_ABI
from ..registry import Option, PassFailure, register_pass

GRID = "msmlir_grid"
DEVICE_NUM = "mindir.device_num"
IN_STRATEGY = "mindir.in_strategy"
OUT_STRATEGY = "mindir.out_strategy"
ARG_STRATEGY = "mindir.strategy"
HINT = "mindir.sharding_hint"


class StrategyError(Exception):
    pass


def _tuple(attr: ir.Attribute) -> list[int]:
    try:
        return list(ir.DenseI64ArrayAttr(attr))
    except ValueError:
        pass
    try:
        return [ir.IntegerAttr(a).value for a in ir.ArrayAttr(attr)]
    except ValueError:
        raise StrategyError(f"a strategy must be a tuple of integers, got {attr}") from None


def _tuples(attr: ir.Attribute) -> list[list[int]]:
    try:
        return [_tuple(a) for a in ir.ArrayAttr(attr)]
    except ValueError:
        raise StrategyError(f"a strategy list must be an array of tuples, got {attr}") from None


def split_axes(strategy: list[int], t: ir.Type, n: int, what: str) -> list[list[int]]:
    """The `split_axes` of a tensor of type t cut by `strategy` on a 1-D mesh of n."""
    if not isinstance(t, ir.RankedTensorType):
        raise StrategyError(f"{what} is not a ranked tensor ({t})")
    rt = ir.RankedTensorType(t)
    shape = list(rt.shape)
    if len(strategy) != len(shape):
        raise StrategyError(f"strategy {tuple(strategy)} of {what} has {len(strategy)} cut(s), "
                            f"but the tensor has rank {len(shape)} ({t})")
    axes: list[list[int]] = []
    split = []
    for d, (c, size) in enumerate(zip(strategy, shape)):
        if c < 1:
            raise StrategyError(f"strategy {tuple(strategy)} of {what}: cut {c} of dim {d} "
                                "must be positive")
        if c != 1 and c != n:
            raise StrategyError(f"strategy {tuple(strategy)} of {what}: cut {c} of dim {d} is "
                                f"neither 1 nor device_num ({n}); only 1-D device meshes "
                                "are supported")
        if c > 1 and size % c:
            raise StrategyError(f"strategy {tuple(strategy)} of {what}: dim {d} (size {size}) "
                                f"is not divisible by its cut {c}")
        if c > 1:
            split.append(d)
        axes.append([0] if c > 1 else [])
    if len(split) > 1:
        raise StrategyError(f"strategy {tuple(strategy)} of {what} splits dims {split} over "
                            f"{n} devices each: needs {n ** len(split)} devices (a multi-"
                            "dimensional mesh, not supported)")
    while axes and not axes[-1]:
        axes.pop()
    return axes or [[]]


def _sharding(axes: list[list[int]], loc: ir.Location, ip: ir.InsertionPoint) -> ir.Value:
    text = "[" + ", ".join("[" + ", ".join(map(str, a)) + "]" for a in axes) + "]"
    op = ir.Operation.create(
        "shard.sharding", results=[ir.Type.parse("!shard.sharding")], loc=loc, ip=ip,
        attributes={"grid": ir.FlatSymbolRefAttr.get(GRID),
                    "split_axes": ir.Attribute.parse(f"#shard<axisarray{text}>"),
                    "operandSegmentSizes": ir.DenseI32ArrayAttr.get([0, 0]),
                    "static_halo_sizes": ir.DenseI64ArrayAttr.get([]),
                    "static_sharded_dims_offsets": ir.DenseI64ArrayAttr.get([])})
    return op.result


def _shard(v: ir.Value, axes, for_users: bool, loc: ir.Location, ip: ir.InsertionPoint) -> ir.Value:
    s = _sharding(axes, loc, ip)
    attrs = {"annotate_for_users": ir.UnitAttr.get()} if for_users else {}
    return ir.Operation.create("shard.shard", results=[v.type], operands=[v, s],
                               attributes=attrs, loc=loc, ip=ip).result


def _ops(block: ir.Block):
    for op in list(block.operations):
        yield op.operation
        for region in op.operation.regions:
            for b in region.blocks:
                yield from _ops(b)


def _replace_hint(op: ir.Operation, n: int) -> None:
    """A mindir.sharding_hint -> the two shard.shard ops of a layout constraint."""
    x = op.operands[0]
    try:
        axes = split_axes(list(ir.DenseI64ArrayAttr(op.attributes["strategy"])), x.type, n,
                          "the hinted value")
    except StrategyError as e:
        op.location.emit_error(f"bad sharding strategy: {e}")
        raise PassFailure() from None
    at = ir.InsertionPoint(op)
    a = _shard(x, axes, False, op.location, at)
    b = _shard(a, axes, True, op.location, at)
    op.results[0].replace_all_uses_with(b)
    op.erase()


def _annotate_function(f, n: int) -> bool:
    """Inserts the annotations of one function; True if it had any strategy."""
    if not f.regions[0].blocks:
        return False
    block = f.regions[0].blocks[0]
    loc = f.location
    found = False
    # arguments: every user sees the argument's sharding
    if "arg_attrs" in f.attributes:
        first = ir.InsertionPoint.at_block_begin(block)
        for i, d in enumerate(ir.ArrayAttr(f.attributes["arg_attrs"])):
            d = ir.DictAttr(d)
            if ARG_STRATEGY not in d:
                continue
            found = True
            arg = block.arguments[i]
            axes = split_axes(_tuple(d[ARG_STRATEGY]), arg.type, n, f"argument {i}")
            a = _shard(arg, axes, True, loc, first)
            arg.replace_all_uses_except(a, a.owner.operation)
    hints = [op for op in _ops(block) if op.name == HINT]
    for op in hints:
        _replace_hint(op, n)
    found = found or bool(hints)
    for op in _ops(block):
        if IN_STRATEGY not in op.attributes and OUT_STRATEGY not in op.attributes:
            continue
        found = True
        try:
            if IN_STRATEGY in op.attributes:
                tuples = _tuples(op.attributes[IN_STRATEGY])
                if len(tuples) != len(op.operands):
                    raise StrategyError(f"in_strategy has {len(tuples)} tuple(s) but "
                                        f"'{op.name}' has {len(op.operands)} input(s)")
                before = ir.InsertionPoint(op)
                for i, (s, v) in enumerate(zip(tuples, list(op.operands))):
                    axes = split_axes(s, v.type, n, f"input {i}")
                    op.operands[i] = _shard(v, axes, True, op.location, before)
            if OUT_STRATEGY in op.attributes:
                tuples = _tuples(op.attributes[OUT_STRATEGY])
                if len(tuples) != len(op.results):
                    raise StrategyError(f"out_strategy has {len(tuples)} tuple(s) but "
                                        f"'{op.name}' has {len(op.results)} output(s)")
                for i, (s, r) in enumerate(zip(tuples, list(op.results))):
                    axes = split_axes(s, r.type, n, f"output {i}")
                    a = _shard(r, axes, False, op.location, ir.InsertionPoint(op))
                    a.owner.operands[1].owner.move_after(op)
                    a.owner.move_after(a.owner.operands[1].owner)
                    r.replace_all_uses_except(a, a.owner.operation)
        except StrategyError as e:
            op.location.emit_error(f"bad sharding strategy: {e}")
            raise PassFailure() from None
    # results: what the function returns
    if "res_attrs" in f.attributes:
        ret = block.operations[len(block.operations) - 1].operation
        for i, d in enumerate(ir.ArrayAttr(f.attributes["res_attrs"])):
            d = ir.DictAttr(d)
            if ARG_STRATEGY not in d:
                continue
            found = True
            v = ret.operands[i]
            axes = split_axes(_tuple(d[ARG_STRATEGY]), v.type, n, f"result {i}")
            ret.operands[i] = _shard(v, axes, True, ret.location, ir.InsertionPoint(ret))
    return found


@register_pass("mindir-insert-shardings",
               "MindSpore sharding strategies on mindir ops/arguments -> shard dialect annotations",
               options={"device-num": Option(int, 0, "ranks of the 1-D device mesh when a "
                                                     "function has no mindir.device_num")})
def insert_shardings(module: ir.Operation, *, device_num: int):
    body = module.regions[0].blocks[0]
    funcs = [op.operation for op in body.operations if op.operation.name == "func.func"]
    any_found = False
    grid_n = None
    for f in funcs:
        n = ir.IntegerAttr(f.attributes[DEVICE_NUM]).value if DEVICE_NUM in f.attributes else device_num
        try:
            if n < 1 and _has_strategies(f):
                raise StrategyError("strategies given but no device_num (function attribute "
                                    f"{DEVICE_NUM} or option device-num)")
            if n >= 1 and grid_n is not None and n != grid_n:
                raise StrategyError(f"device_num {n} differs from another function's ({grid_n})")
            if n >= 1 and _annotate_function(f, n):
                any_found = True
                grid_n = n
        except StrategyError as e:
            f.location.emit_error(f"bad sharding strategy: {e}")
            raise PassFailure() from None
    if not any_found:
        return
    names = {ir.StringAttr(op.attributes["sym_name"]).value for op in body.operations
             if "sym_name" in op.attributes}
    if GRID not in names:
        ir.Operation.create("shard.grid", loc=ir.Location.unknown(module.context),
                            ip=ir.InsertionPoint.at_block_begin(body),
                            attributes={"sym_name": ir.StringAttr.get(GRID),
                                        "sym_visibility": ir.StringAttr.get("private"),
                                        "shape": ir.DenseI64ArrayAttr.get([grid_n])})
    if "dlti.map" not in module.attributes:
        module.attributes["dlti.map"] = ir.Attribute.parse(MPI_ABI)


def _has_strategies(f) -> bool:
    if not f.regions[0].blocks:
        return False
    for key in ("arg_attrs", "res_attrs"):
        if key in f.attributes and any(ARG_STRATEGY in ir.DictAttr(d)
                                       for d in ir.ArrayAttr(f.attributes[key])):
            return True
    return any(IN_STRATEGY in op.attributes or OUT_STRATEGY in op.attributes or op.name == HINT
               for op in _ops(f.regions[0].blocks[0]))
