"""msmlir-shard-partition: upstream `sharding-propagation` + `shard-partition`,
run in isolated `mlir-opt` processes.

Why isolated: the pinned MLIR 22 wheels are built with assertions, and the
shard passes assert (abort the whole process) on some inputs, e.g.
`traversal=forward` on a row reduction whose result is replicated for its
users (docs/known-issues.md §9). In-process,
a user's bad strategy would kill Python; here the module's text goes through
the wheel's `mlir-opt` (the same upstream passes, same version) and a crash
becomes an error at the function's location. Cost: two process starts and
print/parses of the module (tens of milliseconds), paid by the opt-in
sharded pipeline only.

    func.func(sharding-propagation{traversal=forward-backward})    (process 1)
    func.func(shard-partition)                                     (process 2)
    canonicalize, cse                                              (in process)

Between and before them, two rewrites work around upstream assertions that a
training step (forward + backward + update in one function) hits:
  - every use of a `tensor.empty` gets its own copy: one empty shared as the
    init of ops that propagation shards differently asserts in
    `getSharding(OpResult)` (known-issues §14);
  - after propagation, a function argument used by several shard ops (a
    parameter read by the forward matmul, the backward one and its update)
    gets one defining annotation, `%a = shard.shard %arg to S`, that the
    others reshard from: shard-partition asserts that an argument has exactly
    one use (`rankedTensorArg.hasOneUse()`, known-issues §15). S is the split
    sharding its users ask for most (the first on a tie), else replicated.

Then each updated parameter (a result the function writes back to argument
a, its `msmlir.writeback`) is returned with a's sharding instead of the
replicated one its result annotation asked for: a rank keeps and updates only
its slice of a split parameter (and of its optimizer state), with no
all_gather of the update (parallel/compile.py stores the slices).

On a multi-dimensional grid (a 2x2 data x model parallel mesh), MLIR 22's
shard-partition cannot reshard at all (`reshardOn1DGrid` asserts "Only 1D
grides are currently supported"): each resharding is cut out before it and
put back after it as collectives over one grid axis each
(explicit_reshards / materialize_reshards); canonicalize and cse then run
in process.

`traversal=forward-backward`: the default (backward-only) propagation keeps a
row reduction of row-split data replicated (it gathers the input instead of
the result), and `traversal=forward` makes `shard-partition` assert
(known-issues §9). Each rank's function then has its slice's types and the
resharding collectives (`shard.all_reduce`, `shard.all_gather`, ...).
"""
from __future__ import annotations

import os
import subprocess

from mlir import ir

from ..registry import Option, PassFailure, register_pass


def mlir_opt() -> str | None:
    """The wheel's mlir-opt (same MLIR as the Python bindings)."""
    import mlir
    for d in getattr(mlir, "__path__", []):
        path = os.path.join(d, "bin", "mlir-opt")
        if os.path.exists(path):
            return path
    return None


def _crash_summary(stderr: str) -> str:
    for line in stderr.splitlines():
        if "Assertion" in line or "error:" in line:
            return line.strip()[:400]
    return (stderr.strip().splitlines() or [
        "the pass failed without a diagnostic, e.g. on a non-splat constant "
        "(docs/known-issues.md §18)"])[0][:400]


def replace_module_body(module: ir.Operation, text: str) -> None:
    """Replaces module's contents and attributes by those of the module `text`.
    The sharding of a 0-d tensor prints as `#shard<axisarray[]>`, which the
    parser rejects (known-issues §16): it is read as the equal `[[]]`."""
    text = text.replace("#shard<axisarray[]>", "#shard<axisarray[[]]>")
    new = ir.Module.parse(text, context=module.context)
    body = module.regions[0].blocks[0]
    for op in list(body.operations):
        op.operation.erase()
    for op in list(new.body.operations):
        body.append(op.operation)
    attrs = new.operation.attributes
    for name in list(attrs):
        name = getattr(name, "name", name)
        module.attributes[name] = attrs[name]


PROPAGATE = "builtin.module(func.func(sharding-propagation{{traversal={t}}}))"
PARTITION = "builtin.module(func.func(shard-partition))"
CLEANUP = "builtin.module(canonicalize,cse)"


def _walk(op: ir.Operation):
    for region in op.regions:
        for block in region.blocks:
            for inner in block.operations:
                yield inner.operation
                yield from _walk(inner.operation)


def unshare_empties(module: ir.Operation) -> None:
    """One `tensor.empty` (without dynamic sizes) per use (known-issues §14)."""
    for op in list(_walk(module)):
        if op.name != "tensor.empty" or len(op.operands):
            continue
        for use in list(op.result.uses)[1:]:
            copy = op.clone(ir.InsertionPoint(use.owner))
            use.owner.operands[use.operand_number] = copy.result


def _split_axes(shard_op: ir.Operation) -> str:
    return str(shard_op.operands[1].owner.attributes["split_axes"])


def single_argument_annotation(module: ir.Operation) -> None:
    """Each ranked-tensor argument of a function gets exactly one user, a
    `shard.shard` its other users reshard from (known-issues §15)."""
    body = module.regions[0].blocks[0]
    grid = next((op.operation.attributes["sym_name"] for op in body.operations
                 if op.operation.name == "shard.grid"), None)
    for f in _walk(module):
        if f.name != "func.func" or not f.regions[0].blocks:
            continue
        block = f.regions[0].blocks[0]
        for arg in block.arguments:
            uses = list(arg.uses)
            if not isinstance(arg.type, ir.RankedTensorType) or (
                    len(uses) == 1 and uses[0].owner.name == "shard.shard"):
                continue
            shards = [u.owner for u in uses if u.owner.name == "shard.shard"]
            counts: dict = {}
            for s in shards:
                counts.setdefault(str(s.operands[1].owner.attributes["split_axes"]), []).append(s)
            split = [(len(v), -i, k) for i, (k, v) in enumerate(counts.items())
                     if any(c.isdigit() for c in k)]
            axes = max(split)[2] if split else "#shard<axisarray[[]]>"
            ip = ir.InsertionPoint.at_block_begin(block)
            loc = f.location
            ann = ir.Operation.create("shard.shard", results=[arg.type],
                                      operands=[arg, _sharding(grid, axes, loc, ip)],
                                      loc=loc, ip=ip).result
            for use in uses:
                owner = use.owner
                if owner.name == "shard.shard":
                    owner.operands[use.operand_number] = ann
                    owner.attributes["annotate_for_users"] = ir.UnitAttr.get()
                else:   # a user outside propagation sees the whole value (replicated)
                    at = ir.InsertionPoint(owner)
                    owner.operands[use.operand_number] = ir.Operation.create(
                        "shard.shard", results=[arg.type],
                        operands=[ann, _sharding(grid, "#shard<axisarray[[]]>", loc, at)],
                        attributes={"annotate_for_users": ir.UnitAttr.get()}, loc=loc,
                        ip=at).result


def writeback_layouts(module: ir.Operation) -> None:
    """Each written-back result gets its argument's sharding (after
    single_argument_annotation: every argument has one defining annotation)."""
    for f in _walk(module):
        if f.name != "func.func" or "msmlir.writeback" not in f.attributes \
                or not f.regions[0].blocks:
            continue
        block = f.regions[0].blocks[0]
        ret = block.operations[len(block.operations) - 1].operation
        for pair in ir.ArrayAttr(f.attributes["msmlir.writeback"]):
            r, a = (ir.IntegerAttr(x).value for x in ir.ArrayAttr(pair))
            uses = list(block.arguments[a].uses)
            if len(uses) != 1 or uses[0].owner.name != "shard.shard":
                continue
            sharding = uses[0].owner.operands[1]
            v = ret.operands[r]
            owner = v.owner
            if isinstance(owner, ir.OpView):
                owner = owner.operation
            if (isinstance(owner, ir.Operation) and owner.name == "shard.shard"
                    and "annotate_for_users" in owner.attributes and len(list(v.uses)) == 1):
                owner.operands[1] = sharding
            else:
                ret.operands[r] = ir.Operation.create(
                    "shard.shard", results=[v.type], operands=[v, sharding],
                    attributes={"annotate_for_users": ir.UnitAttr.get()}, loc=ret.location,
                    ip=ir.InsertionPoint(ret)).result


ARG_LAYOUTS = "msmlir.arg_split_axes"


def record_argument_layouts(module: ir.Operation) -> None:
    """Each function gets `msmlir.arg_split_axes`: per argument, the grid axes
    each of its dims is split over ("[[0], [1]]"; "[]": whole on every
    rank), read off its one defining annotation (after
    single_argument_annotation). The sharding is gone from the function after
    shard-partition; msmlir.parallel feeds each rank its block with it (on a
    multi-dimensional mesh the argument's shapes alone do not say which
    rank holds which block)."""
    for f in _walk(module):
        if f.name != "func.func" or not f.regions[0].blocks:
            continue
        out = []
        for arg in f.regions[0].blocks[0].arguments:
            uses = list(arg.uses)
            axes = "[]"
            if len(uses) == 1 and uses[0].owner.name == "shard.shard":
                a = str(uses[0].owner.operands[1].owner.attributes["split_axes"])
                axes = a.removeprefix("#shard<axisarray").removesuffix(">")
            out.append(ir.StringAttr.get(axes))
        f.attributes[ARG_LAYOUTS] = ir.ArrayAttr.get(out)


RESHARD_SRC, RESHARD_DST = "msmlir.reshard_src", "msmlir.reshard_dst"


def _axes_of(sharding_value: ir.Value) -> list[list[int]]:
    import ast
    a = str(sharding_value.owner.attributes["split_axes"])
    return ast.literal_eval(a.removeprefix("#shard<axisarray").removesuffix(">") or "[]")


def _plain(sharding_value: ir.Value) -> bool:
    """Only split axes (no halos, no explicit shard offsets)."""
    op = sharding_value.owner
    return all(len(ir.DenseI64ArrayAttr(op.attributes[k])) == 0
               for k in ("static_halo_sizes", "static_sharded_dims_offsets")
               if k in op.attributes) and len(op.operands) == 0


def explicit_reshards(module: ir.Operation) -> int:
    """On a multi-dimensional grid, each resharding (a value annotated S1 whose
    users see S2) is cut out of the function before shard-partition, which
    can reshard on 1-D grids only (MLIR 22: `reshardOn1DGrid` asserts
    "Only 1D grides are currently supported", docs/known-issues.md): the
    value flows into a `linalg.copy {msmlir.reshard_src = k}` sharded S1, and
    its users read a `linalg.copy {msmlir.reshard_dst = k}` of an empty,
    sharded S2; both partition like any elementwise op. materialize_reshards
    then replaces the partitioned dst by the collectives over single grid
    axes (shard.all_gather / all_slice) that take the src's shard to S2's.
    Returns the number of reshardings cut."""
    from mlir.dialects import linalg, tensor
    body = module.regions[0].blocks[0]
    grids = {ir.StringAttr(op.attributes["sym_name"]).value:
             list(ir.DenseI64ArrayAttr(op.attributes["shape"]))
             for op in body.operations if op.operation.name == "shard.grid"}
    k = 0
    for t in list(_walk(module)):
        if t.name != "shard.shard" or "annotate_for_users" not in t.attributes:
            continue
        src = t.operands[0].owner
        if isinstance(src, ir.Block) or src.operation.name != "shard.shard":
            continue
        src = src.operation
        s1, s2 = src.operands[1], t.operands[1]
        grid = ir.FlatSymbolRefAttr(s2.owner.attributes["grid"]).value
        if len(grids.get(grid, [])) < 2 or not isinstance(t.result.type, ir.RankedTensorType) \
                or ir.RankedTensorType(t.result.type).rank == 0:
            continue
        a1, a2 = _axes_of(s1), _axes_of(s2)
        if a1 == a2 or not any(a1 + a2) or not (_plain(s1) and _plain(s2)):
            continue
        ty = t.result.type
        rt = ir.RankedTensorType(ty)
        loc = t.location
        with loc, ir.InsertionPoint(t):
            def annotated(v, s, users):
                attrs = {"annotate_for_users": ir.UnitAttr.get()} if users else {}
                return ir.Operation.create("shard.shard", results=[ty], operands=[v, s],
                                           attributes=attrs).result

            def empty(s):
                e = tensor.EmptyOp(list(rt.shape), rt.element_type).result
                return annotated(annotated(e, s, False), s, True)
            c = linalg.copy(annotated(src.result, s1, True), outs=[empty(s1)])
            c.owner.attributes[RESHARD_SRC] = ir.IntegerAttr.get(
                ir.IntegerType.get_signless(64), k)
            annotated(c, s1, False)
            d = linalg.copy(empty(s2), outs=[empty(s2)])
            d.owner.attributes[RESHARD_DST] = ir.ArrayAttr.get([
                ir.IntegerAttr.get(ir.IntegerType.get_signless(64), k),
                ir.FlatSymbolRefAttr.get(grid), ir.StringAttr.get(str(a1)),
                ir.StringAttr.get(str(a2))])
            t.operands[0] = annotated(d, s2, False)
        k += 1
    return k


def materialize_reshards(module: ir.Operation) -> None:
    """After shard-partition: each `msmlir.reshard_dst` copy becomes the
    collectives that turn its src's shard (split_axes a1) into its own
    (a2): per dim, the grid axes a2 does not keep are gathered (last axis
    first), then the axes it adds are sliced; each over one grid axis."""
    import ast
    srcs, dsts = {}, []
    for op in _walk(module):
        if RESHARD_SRC in op.attributes:
            srcs[ir.IntegerAttr(op.attributes[RESHARD_SRC]).value] = op
        if RESHARD_DST in op.attributes:
            dsts.append(op)
    body = module.regions[0].blocks[0]
    grids = {ir.StringAttr(op.attributes["sym_name"]).value:
             list(ir.DenseI64ArrayAttr(op.attributes["shape"]))
             for op in body.operations if op.operation.name == "shard.grid"}
    index = ir.IndexType.get()
    for dst in dsts:
        k, grid, a1, a2 = list(ir.ArrayAttr(dst.attributes[RESHARD_DST]))
        k, grid = ir.IntegerAttr(k).value, ir.FlatSymbolRefAttr(grid).value
        a1, a2 = ast.literal_eval(ir.StringAttr(a1).value), ast.literal_eval(ir.StringAttr(a2).value)
        shape = grids[grid]
        src = srcs.pop(k)
        v = src.operands[0]
        rank = ir.RankedTensorType(v.type).rank
        cur = [list(x) for x in a1] + [[] for _ in range(rank - len(a1))]
        want = [list(x) for x in a2] + [[] for _ in range(rank - len(a2))]
        with dst.location, ir.InsertionPoint(dst):
            def collective(name, v, axis, d, grow):
                t = ir.RankedTensorType(v.type)
                sizes = list(t.shape)
                sizes[d] = sizes[d] * shape[axis] if grow else sizes[d] // shape[axis]
                key = "gather_axis" if grow else "slice_axis"
                return ir.Operation.create(
                    name, results=[ir.RankedTensorType.get(sizes, t.element_type)], operands=[v],
                    attributes={"grid": ir.FlatSymbolRefAttr.get(grid),
                                "grid_axes": ir.DenseI16ArrayAttr.get([axis]),
                                key: ir.IntegerAttr.get(index, d)}).result
            for d in range(rank):
                while cur[d] != want[d][:len(cur[d])]:
                    v = collective("shard.all_gather", v, cur[d].pop(), d, True)
            for d in range(rank):
                for axis in want[d][len(cur[d]):]:
                    v = collective("shard.all_slice", v, axis, d, False)
                    cur[d].append(axis)
        if v.type != dst.results[0].type:
            dst.location.emit_error(f"resharding {a1} -> {a2} made {v.type}, not "
                                    f"{dst.results[0].type}")
            raise PassFailure()
        dst.results[0].replace_all_uses_with(v)
        dst.erase()
        src.attributes.__delitem__(RESHARD_SRC)


def _sharding(grid, axes: str, loc: ir.Location, ip: ir.InsertionPoint) -> ir.Value:
    return ir.Operation.create(
        "shard.sharding", results=[ir.Type.parse("!shard.sharding")], loc=loc, ip=ip,
        attributes={"grid": ir.FlatSymbolRefAttr.get(ir.StringAttr(grid).value),
                    "split_axes": ir.Attribute.parse(axes),
                    "operandSegmentSizes": ir.DenseI32ArrayAttr.get([0, 0]),
                    "static_halo_sizes": ir.DenseI64ArrayAttr.get([]),
                    "static_sharded_dims_offsets": ir.DenseI64ArrayAttr.get([])}).result


def _run_tool(module: ir.Operation, pipeline: str) -> str | None:
    """`pipeline` on the module's text in the wheel's mlir-opt: the output
    text, or None after an error at the first function's location."""
    body = module.regions[0].blocks[0]
    text = module.get_asm(enable_debug_info=True, print_generic_op_form=True)
    r = subprocess.run([mlir_opt(), "--allow-unregistered-dialect", "--mlir-print-debuginfo",
                        "--mlir-print-op-generic", f"--pass-pipeline={pipeline}"],
                       input=text, capture_output=True, text=True)
    if r.returncode == 0:
        return r.stdout
    first = next((op.operation for op in body.operations
                  if op.operation.name == "func.func"), module)
    if r.returncode < 0 or "Assertion" in r.stderr or "Stack dump" in r.stderr:
        first.location.emit_error(
            "upstream sharding-propagation/shard-partition crashed on these shardings "
            f"({_crash_summary(r.stderr)}); MLIR 22's shard passes do not support them "
            "(docs/known-issues.md §9)")
    else:
        first.location.emit_error(f"shard partitioning failed: {_crash_summary(r.stderr)}")
    return None


@register_pass("msmlir-shard-partition",
               "sharding-propagation + shard-partition (upstream) in an isolated mlir-opt",
               options={"traversal": Option(str, "forward-backward",
                                            "sharding-propagation traversal order")})
def shard_partition(module: ir.Operation, *, traversal: str):
    body = module.regions[0].blocks[0]
    if not any(op.operation.name == "shard.grid" for op in body.operations):
        return                                        # nothing sharded
    unshare_empties(module)
    if mlir_opt() is None:                            # no binary: in process (may abort)
        import warnings
        warnings.warn("msmlir-shard-partition: the wheel's mlir-opt is missing; running the "
                      "shard passes in process (an upstream assertion would abort it)",
                      RuntimeWarning, stacklevel=2)
        from mlir.passmanager import PassManager
        PassManager.parse(PROPAGATE.format(t=traversal), context=module.context).run(module)
        single_argument_annotation(module)
        writeback_layouts(module)
        record_argument_layouts(module)
        explicit_reshards(module)
        PassManager.parse(PARTITION, context=module.context).run(module)
        materialize_reshards(module)
        PassManager.parse(CLEANUP, context=module.context).run(module)
        return
    for step in (PROPAGATE.format(t=traversal), PARTITION):
        text = _run_tool(module, step)
        if text is None:
            raise PassFailure()
        replace_module_body(module, text)
        if step != PARTITION:
            single_argument_annotation(module)
            writeback_layouts(module)
            record_argument_layouts(module)
            explicit_reshards(module)
        else:
            materialize_reshards(module)
            from mlir.passmanager import PassManager
            PassManager.parse(CLEANUP, context=module.context).run(module)
