"""The vmap engine: batches a function op by op for a batch size B.

Every value of the function being batched is mapped to (value, bdim): bdim is
None (unbatched: the same for all examples), 0 (batched, batch dim at 0) or
S (a per-example scalar, an i1/index value, held as tensor<B x T>). The
`Batcher` walks the ops; an op with a batched operand is rewritten by its rule
(registry.py, rules in the category modules), an op with none is copied.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import func

from msmlir.dialects import mindir

from ..symbols import unique_symbol
from .registry import get_rule

S = "s"   # bdim of a batched *scalar* (an i1/index value per example), held as tensor<B x T>


class VmapError(Exception):
    """A diagnostic to emit at `loc` (the pass turns it into a PassFailure)."""

    def __init__(self, message: str, loc: ir.Location | None = None):
        super().__init__(message)
        self.loc = loc


# --- small IR helpers ---------------------------------------------------------------

def rtype(v) -> ir.RankedTensorType:
    return ir.RankedTensorType(v.type if isinstance(v, ir.Value) else v)


def shape_of(v) -> list:
    return list(rtype(v).shape)


def is_tensor(t) -> bool:
    return isinstance(t, ir.RankedTensorType)


def i64s(vals) -> ir.DenseI64ArrayAttr:
    return ir.DenseI64ArrayAttr.get([int(v) for v in vals])


def i64(v) -> ir.IntegerAttr:
    return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), int(v))


def attrs_of(op) -> dict:
    a = op.attributes
    return {k: a[k] for k in a}


def int_attr(op, name, default):
    a = op.attributes
    if name in a:
        return ir.IntegerAttr(a[name]).value
    return default


def arr_attr(op, name, default=()):
    a = op.attributes
    if name in a:
        return list(ir.DenseI64ArrayAttr(a[name]))
    return list(default)


def func_name(f) -> str:
    return ir.StringAttr(f.operation.attributes["sym_name"]).value


def func_type(f) -> ir.FunctionType:
    return ir.FunctionType(ir.TypeAttr(f.operation.attributes["function_type"]).value)


def batched_type(t, B: int, axis: int = 0) -> ir.Type:
    rt = ir.RankedTensorType(t)
    s = list(rt.shape)
    s.insert(axis, B)
    return ir.RankedTensorType.get(s, rt.element_type)


def norm_axis(axis, n, what="axis", loc=None) -> int:
    if not -n <= axis < n:
        raise VmapError(f"vmap: {what} {axis} out of range for rank {n}", loc)
    return axis + n if axis < 0 else axis


def reshape(v, shape):
    if shape_of(v) == list(shape):
        return v
    return mindir.ReshapeOp(v, i64s(shape)).result


def transpose(v, perm):
    if list(perm) == list(range(len(perm))):
        return v
    return mindir.TransposeOp(v, i64s(perm)).result


def broadcast_to(v, shape):
    if shape_of(v) == list(shape):
        return v
    return mindir.BroadcastToOp(v, i64s(shape)).result


def move_axis(v, src, dst):
    n = len(shape_of(v))
    perm = list(range(n))
    perm.pop(src)
    perm.insert(dst, src)
    return transpose(v, perm)


def create(name, result_types, operands, attrs, loc) -> ir.Operation:
    """A generic op at the current insertion point."""
    return ir.Operation.create(name, results=list(result_types), operands=list(operands),
                               attributes=attrs, loc=loc)


def verified(new, op) -> ir.Operation:
    """`new` (built by the rule for `op`), checked by its verifier."""
    try:
        new.verify()
    except ir.MLIRError as e:
        raise VmapError(f"vmap: internal error batching '{op.name}': {e}", op.location) from None
    return new


# --- helpers of the rules ----------------------------------------------------------

def out_types(bt, op):
    """The result types of `op` batched at 0."""
    return [batched_type(r.type, bt.B) for r in op.results]


def same_op(bt, op, operands, attrs=None):
    """The op on the given operands with results batched at 0."""
    new = verified(create(op.name, out_types(bt, op), operands,
                          attrs if attrs is not None else attrs_of(op), op.location), op)
    return [(r, 0) for r in new.results]


def no_batched_scalar(op, ins):
    """For rules of tensor ops: a batched scalar operand is an error."""
    for _, bd in ins:
        if bd == S:
            raise VmapError(f"vmap: no batching rule for '{op.name}' on a batched scalar",
                            op.location)


# --- the transformation ---------------------------------------------------------------

class Batcher:
    """Batches functions of one module for batch size B."""

    def __init__(self, module_op, B: int):
        self.module = module_op.operation if hasattr(module_op, "operation") else module_op
        self.body = self.module.regions[0].blocks[0]
        self.B = B
        self.cache: dict = {}

    # symbols ---------------------------------------------------------------------------
    def functions(self) -> dict:
        return {func_name(op): op for op in self.body.operations
                if op.operation.name == "func.func"}

    def lookup(self, name, loc=None):
        f = self.functions().get(name)
        if f is None or not f.operation.regions[0].blocks:
            raise VmapError(f"vmap: @{name} is not a function with a body in this module", loc)
        return f

    def unique(self, base) -> str:
        return unique_symbol(self.module, base)

    # values ------------------------------------------------------------------------------
    def bcast(self, v):
        """An unbatched tensor -> [B, *shape]."""
        return broadcast_to(v, [self.B] + shape_of(v))

    def at0(self, v, bd):
        """A batched (at 0) version of (v, bd)."""
        return self.bcast(v) if bd is None else v

    def align(self, v, bd, R):
        """For broadcasting ops: a batched operand of per-example rank r < R is
        reshaped to [B, 1 x (R - r), *shape]; unbatched ones are kept."""
        if bd is None:
            return v
        s = shape_of(v)
        r = len(s) - 1
        if r < R:
            return reshape(v, [s[0]] + [1] * (R - r) + s[1:])
        return v

    # functions ---------------------------------------------------------------------------
    def batch_into(self, src, dst_block, in_axes, out_axes, loc):
        """Writes into dst_block (whose arguments are @src's arguments, batched at
        in_axes[i] or not when None) the batched body of @src, returning per result
        its bdim (0, or None when out_axes is "natural" and it is unbatched).
        out_axes: list of int/None per result, or None for natural (0/None)."""
        sblock = src.operation.regions[0].blocks[0]
        mapping = {}
        with ir.InsertionPoint(dst_block), loc:
            for sa, da, ax in zip(sblock.arguments, dst_block.arguments, in_axes):
                if ax is None or ax == S:
                    mapping[sa] = (da, ax)
                else:
                    mapping[sa] = (move_axis(da, ax, 0), 0)
            self.block(sblock, mapping)
            term = list(sblock.operations)[-1]
            rets, bds = [], []
            for i, v in enumerate(term.operands):
                nv, bd = mapping[v]
                if out_axes is None:         # an internal call: batched scalars cross too
                    rets.append(nv)
                    bds.append(bd)
                    continue
                if bd == S:
                    raise VmapError("vmap: a function returns a batched scalar", term.location)
                ax = out_axes[i]
                if ax is None:
                    if bd is not None:
                        raise VmapError(f"vmap: out_axes is None for output {i}, but it depends "
                                        f"on the batched inputs", term.location)
                    rets.append(nv)
                    bds.append(None)
                    continue
                if bd is None:
                    nv = self.bcast(nv)
                n = len(shape_of(nv))
                rets.append(move_axis(nv, 0, norm_axis(ax, n, "out_axes entry", term.location)))
                bds.append(0)
            func.ReturnOp(rets)
        return bds, [r.type for r in rets]

    def batch_callee(self, name, bds, loc):
        """(@name batched for operand bdims `bds` (0/None), result bdims)."""
        key = (name, tuple(bds))
        if key in self.cache:
            return self.cache[key]
        src = self.lookup(name, loc)
        ft = func_type(src)
        ins = [batched_type(t, self.B) if bd == 0 else
               ir.RankedTensorType.get([self.B], t) if bd == S else t
               for t, bd in zip(ft.inputs, bds)]
        new_name = self.unique(f"{name}_vmap")
        with ir.InsertionPoint(self.body), src.operation.location:
            nf = func.FuncOp(new_name, (ins, []), visibility="private")
        blk = nf.regions[0].blocks.append(*ins, arg_locs=[src.operation.location] * len(ins))
        rbds, rtypes = self.batch_into(src, blk, list(bds), None, src.operation.location)
        nf.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(ins, rtypes))
        self.cache[key] = (new_name, rbds, rtypes)
        return self.cache[key]

    # blocks ------------------------------------------------------------------------------
    def block(self, sblock, mapping):
        """Batches the ops of sblock (not its terminator) at the insertion point."""
        ops = list(sblock.operations)
        if ops and ops[-1].operation.name in ("func.return", "scf.yield", "scf.condition"):
            ops = ops[:-1]
        for op in ops:
            self.op(op.operation, mapping)

    def op(self, op, mapping):
        ins = []
        for v in op.operands:
            if v not in mapping:
                # a value defined outside the batched function: unbatched
                mapping[v] = (v, None)
            ins.append(mapping[v])
        name = op.name
        batched = any(bd is not None for _, bd in ins) or (op.regions and self._uses_batched(op, mapping))
        if not batched:
            new = op.clone()
            self._remap_clone(new, mapping)
            for r, n in zip(op.results, new.results):
                mapping[r] = (n, None)
            return
        rule = get_rule(name)
        if rule is None:
            raise VmapError(f"vmap: no batching rule for '{name}' (an operand depends on the "
                            f"batched inputs)", op.location)
        with op.location:
            try:
                outs = rule(self, op, ins, mapping)
            except VmapError:
                raise
            except (ValueError, TypeError, ir.MLIRError) as e:
                raise VmapError(f"vmap: cannot batch '{name}': {e}", op.location) from None
        for r, o in zip(op.results, outs):
            mapping[r] = o

    def _uses_batched(self, op, mapping) -> bool:
        """Does an op inside `op`'s regions use a batched value from outside?"""
        inside = set()
        for r in op.regions:
            for b in r.blocks:
                for o in walk(b):
                    inside.update(o.operation.results)
                inside.update(b.arguments)
        for r in op.regions:
            for b in r.blocks:
                for o in walk(b):
                    for v in o.operation.operands:
                        if v not in inside and v in mapping and mapping[v][1] is not None:
                            return True
        return False

    @staticmethod
    def _remap_clone(new, mapping):
        new = new.operation
        todo = [new] + [o.operation for r in new.regions for b in r.blocks for o in walk(b)]
        for o in todo:
            for v in list(o.operands):
                if v in mapping:
                    o.replace_uses_of_with(v, mapping[v][0])


def walk(block):
    """Pre-order walk of the ops in a block and in their regions."""
    for op in block.operations:
        yield op
        for r in op.operation.regions:
            for b in r.blocks:
                yield from walk(b)
