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
    func.func(shard-partition), canonicalize, cse                  (process 2)

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
PARTITION = "builtin.module(func.func(shard-partition),canonicalize,cse)"


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
        PassManager.parse(PARTITION, context=module.context).run(module)
        return
    for step in (PROPAGATE.format(t=traversal), PARTITION):
        text = _run_tool(module, step)
        if text is None:
            raise PassFailure()
        replace_module_body(module, text)
        if step != PARTITION:
            single_argument_annotation(module)
            writeback_layouts(module)
