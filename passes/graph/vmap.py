"""mindir-vmap: vectorizing map as an IR batching transformation.

Given a function @f on per-example tensors, builds the function that computes
@f for a whole batch at once, by rewriting each op with a *batching rule*
(JAX-style): every value of @f is either unbatched (the same for all examples)
or batched, with the batch dimension moved to dim 0. A rule receives the
batched/unbatched operands of one op and emits the op(s) computing its batched
result: no per-example loop, no unrolling.

The pass form: a declaration

    func.func private @g(%x: tensor<8x3xf32>, %w: tensor<3xf32>) -> tensor<8xf32>
        attributes {mindir.vmap = {callee = @f, in_axes = [0 : i64, unit],
                                   out_axes = [0 : i64]}}

gets as its body the batched computation of @f (`in_axes`/`out_axes`: one
entry per argument/result, an i64 axis or `unit` for "not batched"; the batch
size comes from the batched arguments). The frontend (`msmlir.vmap`) emits such
a declaration and expands it at once with `expand_declaration`, so the
module it hands to later passes holds only ordinary mindir.

Batching rules (batch dim B at 0 on batched values, r = per-example rank):
* elementwise / broadcasting ops (unary, binary, compare, select, clamp, cast,
  stop_gradient, ...): a batched operand of lower per-example rank than the
  result is reshaped to [B, 1.., shape] so NumPy broadcasting stays per example;
* reductions, argmax/argmin, sort, softmax/log_softmax, concat/stack/split,
  expand_dims/squeeze, one_hot, layer_norm: axes shifted by one (`axes = []`,
  "all", becomes the explicit per-example axes);
* matmul -> batch_matmul (an unbatched operand gets a leading unit dim);
  batch_matmul: batch dims aligned and broadcast;
* reshape/flatten/broadcast_to/transpose/slice/strided_slice/pad/tile: the
  shape/permutation/index attributes get the batch dim prepended;
* gather: batched params (axis shifted) or batched indices (result dim moved);
* conv2d/max_pool2d/avg_pool2d/bias_add/softmax_cross_entropy* and the pooling
  and conv input gradients: the batch is folded into the op's leading N dim
  (reshape [B*N, ...]) and unfolded after; conv2d_backprop_filter (per-example
  filter gradients): the examples become convolution groups;
* host_callback (JIT Fallback): the Python function runs once per example;
* func.call: the callee is batched for the call's pattern of batched operands
  (cached; a per-example scalar, e.g. a saved branch condition, crosses the
  call as a tensor<B x T>); scf.if with an unbatched condition: both regions batched; with a
  batched condition: both branches computed and `mindir.select`ed per example;
  scf.for / scf.while with unbatched bounds/condition: loop-carried values are
  batched as needed (fixed point); scf.while with a per-example condition: the
  loop runs while any example's condition holds and `mindir.select` freezes the
  values of the finished examples; scf.for with batched bounds is an error;
* ops on unbatched operands only are copied unchanged.
An op with a batched operand and no rule is an error at the op's location
("vmap: no batching rule for 'mindir.xxx'").
"""
from __future__ import annotations

import math

from mlir import ir
from mlir.dialects import func, scf

from msmlir.dialects import mindir

from ..registry import PassFailure, register_pass
from ..symbols import unique_symbol

VMAP_ATTR = "mindir.vmap"
S = "s"   # bdim of a batched *scalar* (an i1/index value per example), held as tensor<B x T>


class VmapError(Exception):
    def __init__(self, message: str, loc: ir.Location | None = None):
        super().__init__(message)
        self.loc = loc


# --- small IR helpers ----------------------------------------------------------------

def _rt(v) -> ir.RankedTensorType:
    return ir.RankedTensorType(v.type if isinstance(v, ir.Value) else v)


def _shape(v) -> list:
    return list(_rt(v).shape)


def _is_tensor(t) -> bool:
    return isinstance(t, ir.RankedTensorType)


def _i64s(vals) -> ir.DenseI64ArrayAttr:
    return ir.DenseI64ArrayAttr.get([int(v) for v in vals])


def _i64(v) -> ir.IntegerAttr:
    return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), int(v))


def _attrs(op) -> dict:
    a = op.attributes
    return {k: a[k] for k in a}


def _int_attr(op, name, default):
    a = op.attributes
    if name in a:
        return ir.IntegerAttr(a[name]).value
    return default


def _arr_attr(op, name, default=()):
    a = op.attributes
    if name in a:
        return list(ir.DenseI64ArrayAttr(a[name]))
    return list(default)


def _func_name(f) -> str:
    return ir.StringAttr(f.operation.attributes["sym_name"]).value


def _ftype(f) -> ir.FunctionType:
    return ir.FunctionType(ir.TypeAttr(f.operation.attributes["function_type"]).value)


def batched_type(t, B: int, axis: int = 0) -> ir.Type:
    rt = ir.RankedTensorType(t)
    s = list(rt.shape)
    s.insert(axis, B)
    return ir.RankedTensorType.get(s, rt.element_type)


def _norm(axis, n, what="axis", loc=None) -> int:
    if not -n <= axis < n:
        raise VmapError(f"vmap: {what} {axis} out of range for rank {n}", loc)
    return axis + n if axis < 0 else axis


def reshape(v, shape):
    if _shape(v) == list(shape):
        return v
    return mindir.ReshapeOp(v, _i64s(shape)).result


def transpose(v, perm):
    if list(perm) == list(range(len(perm))):
        return v
    return mindir.TransposeOp(v, _i64s(perm)).result


def broadcast_to(v, shape):
    if _shape(v) == list(shape):
        return v
    return mindir.BroadcastToOp(v, _i64s(shape)).result


def move_axis(v, src, dst):
    n = len(_shape(v))
    perm = list(range(n))
    perm.pop(src)
    perm.insert(dst, src)
    return transpose(v, perm)


def _create(name, result_types, operands, attrs, loc, regions=0):
    op = ir.Operation.create(name, results=list(result_types), operands=list(operands),
                             attributes=attrs, regions=regions, loc=loc)
    return op


# --- the transformation ---------------------------------------------------------------------

class Batcher:
    """Batches functions of one module for batch size B."""

    def __init__(self, module_op, B: int):
        self.module = module_op.operation if hasattr(module_op, "operation") else module_op
        self.body = self.module.regions[0].blocks[0]
        self.B = B
        self.cache: dict = {}

    # symbols ---------------------------------------------------------------------------
    def functions(self) -> dict:
        return {_func_name(op): op for op in self.body.operations
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
        return broadcast_to(v, [self.B] + _shape(v))

    def at0(self, v, bd):
        """A batched (at 0) version of (v, bd)."""
        if bd is None:
            return self.bcast(v)
        if bd == S:
            return v
        return v

    def align(self, v, bd, R):
        """For broadcasting ops: a batched operand of per-example rank r < R is
        reshaped to [B, 1 x (R - r), *shape]; unbatched ones are kept."""
        if bd is None:
            return v
        s = _shape(v)
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
                n = len(_shape(nv))
                rets.append(move_axis(nv, 0, _norm(ax, n, "out_axes entry", term.location)))
                bds.append(0)
            func.ReturnOp(rets)
        return bds, [r.type for r in rets]

    def batch_callee(self, name, bds, loc):
        """(@name batched for operand bdims `bds` (0/None), result bdims)."""
        key = (name, tuple(bds))
        if key in self.cache:
            return self.cache[key]
        src = self.lookup(name, loc)
        ft = _ftype(src)
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
        rule = RULES.get(name)
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
                for o in _walk(b):
                    inside.update(o.operation.results)
                inside.update(b.arguments)
        for r in op.regions:
            for b in r.blocks:
                for o in _walk(b):
                    for v in o.operation.operands:
                        if v not in inside and v in mapping and mapping[v][1] is not None:
                            return True
        return False

    @staticmethod
    def _remap_clone(new, mapping):
        new = new.operation
        todo = [new] + [o.operation for r in new.regions for b in r.blocks for o in _walk(b)]
        for o in todo:
            for v in list(o.operands):
                if v in mapping:
                    o.replace_uses_of_with(v, mapping[v][0])


def _walk(block):
    for op in block.operations:
        yield op
        for r in op.operation.regions:
            for b in r.blocks:
                yield from _walk(b)


# --- rules ------------------------------------------------------------------------------------

RULES: dict = {}


def rule(*names):
    def deco(fn):
        for n in names:
            RULES[n] = fn
        return fn
    return deco


def _out_types(bt, op):
    return [batched_type(r.type, bt.B) for r in op.results]


def _same_op(bt, op, operands, attrs=None):
    """The op on the given operands with results batched at 0."""
    new = _create(op.name, _out_types(bt, op), operands,
                  attrs if attrs is not None else _attrs(op), op.location)
    try:
        new.verify()
    except ir.MLIRError as e:
        raise VmapError(f"vmap: internal error batching '{op.name}': {e}", op.location) from None
    return [(r, 0) for r in new.results]


def _scalar_operand_check(op, ins):
    for _, bd in ins:
        if bd == S:
            raise VmapError(f"vmap: no batching rule for '{op.name}' on a batched scalar",
                            op.location)


_ELEMENTWISE = [
    "neg", "abs", "sign", "square", "relu", "exp", "log", "log1p", "expm1", "sqrt", "rsqrt",
    "reciprocal", "sin", "cos", "tanh", "sigmoid", "erf", "softplus", "silu", "floor", "ceil",
    "round", "stop_gradient", "leaky_relu", "gelu", "logical_not", "isnan", "isfinite", "cast",
    "zeros_like", "ones_like",
    "add", "sub", "mul", "div", "floordiv", "mod", "pow", "maximum", "minimum", "equal",
    "not_equal", "less", "less_equal", "greater", "greater_equal", "logical_and", "logical_or",
    "select", "clamp",
]


@rule(*[f"mindir.{n}" for n in _ELEMENTWISE])
def _elementwise(bt, op, ins, mapping):
    _scalar_operand_check(op, ins)
    R = max(len(_shape(r)) for r in op.results)
    return _same_op(bt, op, [bt.align(v, bd, R) for v, bd in ins])


@rule("mindir.depend")
def _depend(bt, op, ins, mapping):
    (v, bd), deps = ins[0], ins[1:]
    new = _create(op.name, [v.type], [v] + [d for d, _ in deps], _attrs(op), op.location)
    return [(new.results[0], bd)]


@rule("mindir.reduce_sum", "mindir.reduce_mean", "mindir.reduce_max", "mindir.reduce_min",
      "mindir.reduce_prod")
def _reduce(bt, op, ins, mapping):
    _scalar_operand_check(op, ins)
    (x, _), = ins
    r = len(_shape(x)) - 1
    axes = _arr_attr(op, "axes")
    if r == 0:            # a reduction of a 0-d tensor: the identity
        return [(x, 0)]
    axes = list(range(r)) if not axes else [_norm(a, r, "axis", op.location) for a in axes]
    a = _attrs(op)
    a["axes"] = _i64s([ax + 1 for ax in axes])
    return _same_op(bt, op, [x], a)


@rule("mindir.argmax", "mindir.argmin", "mindir.softmax", "mindir.log_softmax", "mindir.sort")
def _axis_op(bt, op, ins, mapping):
    """The op along its shifted axis (every result batched at 0)."""
    _scalar_operand_check(op, ins)
    (x, _), = ins
    r = len(_shape(x)) - 1
    a = _attrs(op)
    a["axis"] = _i64(_norm(_int_attr(op, "axis", -1), r, "axis", op.location) + 1)
    return _same_op(bt, op, [x], a)


@rule("mindir.matmul")
def _matmul(bt, op, ins, mapping):
    _scalar_operand_check(op, ins)
    (a, abd), (b, bbd) = ins
    a = a if abd is not None else reshape(a, [1] + _shape(a))
    b = b if bbd is not None else reshape(b, [1] + _shape(b))
    new = _create("mindir.batch_matmul", _out_types(bt, op), [a, b], _attrs(op), op.location)
    return [(new.results[0], 0)]


@rule("mindir.batch_matmul")
def _batch_matmul(bt, op, ins, mapping):
    _scalar_operand_check(op, ins)
    R = len(_shape(op.results[0]))
    vals = []
    for v, bd in ins:
        s = _shape(v)
        if bd is None:
            vals.append(reshape(v, [1] * (R + 1 - len(s)) + s))
        else:
            vals.append(reshape(v, [s[0]] + [1] * (R + 1 - len(s)) + s[1:]))
    return _same_op(bt, op, vals)


@rule("mindir.reshape")
def _reshape(bt, op, ins, mapping):
    (x, _), = ins
    a = _attrs(op)
    a["shape"] = _i64s([bt.B] + _shape(op.results[0]))
    return _same_op(bt, op, [x], a)


@rule("mindir.flatten")
def _flatten(bt, op, ins, mapping):
    (x, _), = ins
    return [(reshape(x, [bt.B] + _shape(op.results[0])), 0)]


@rule("mindir.transpose")
def _transpose(bt, op, ins, mapping):
    (x, _), = ins
    a = _attrs(op)
    a["perm"] = _i64s([0] + [p + 1 for p in _arr_attr(op, "perm")])
    return _same_op(bt, op, [x], a)


@rule("mindir.broadcast_to")
def _broadcast_to(bt, op, ins, mapping):
    (x, _), = ins
    T = _shape(op.results[0])
    x = bt.align(x, 0, len(T))
    return [(broadcast_to(x, [bt.B] + T), 0)]


@rule("mindir.expand_dims")
def _expand_dims(bt, op, ins, mapping):
    (x, _), = ins
    r = len(_shape(x)) - 1
    a = _attrs(op)
    a["axis"] = _i64(_norm(_int_attr(op, "axis", 0), r + 1, "axis", op.location) + 1)
    return _same_op(bt, op, [x], a)


@rule("mindir.squeeze")
def _squeeze(bt, op, ins, mapping):
    (x, _), = ins
    s = _shape(x)[1:]
    axes = _arr_attr(op, "axis")
    axes = [i for i, d in enumerate(s) if d == 1] if not axes else \
        [_norm(ax, len(s), "axis", op.location) for ax in axes]
    if not axes:
        return [(x, 0)]
    a = _attrs(op)
    a["axis"] = _i64s([ax + 1 for ax in axes])
    return _same_op(bt, op, [x], a)


@rule("mindir.slice")
def _slice(bt, op, ins, mapping):
    (x, _), = ins
    a = _attrs(op)
    a["begin"] = _i64s([0] + _arr_attr(op, "begin"))
    a["size"] = _i64s([bt.B] + _arr_attr(op, "size"))
    return _same_op(bt, op, [x], a)


@rule("mindir.strided_slice")
def _strided_slice(bt, op, ins, mapping):
    (x, _), = ins
    a = _attrs(op)
    a["begin"] = _i64s([0] + _arr_attr(op, "begin"))
    a["end"] = _i64s([bt.B] + _arr_attr(op, "end"))
    a["strides"] = _i64s([1] + _arr_attr(op, "strides"))
    return _same_op(bt, op, [x], a)


@rule("mindir.pad")
def _pad(bt, op, ins, mapping):
    (x, _), = ins
    a = _attrs(op)
    a["paddings"] = _i64s([0, 0] + _arr_attr(op, "paddings"))
    return _same_op(bt, op, [x], a)


@rule("mindir.tile")
def _tile(bt, op, ins, mapping):
    (x, _), = ins
    mult = _arr_attr(op, "multiples")
    s = _shape(x)
    r = len(s) - 1
    if len(mult) > r:
        x = reshape(x, [s[0]] + [1] * (len(mult) - r) + s[1:])
    a = _attrs(op)
    a["multiples"] = _i64s([1] + mult)
    return _same_op(bt, op, [x], a)


@rule("mindir.concat", "mindir.stack")
def _concat(bt, op, ins, mapping):
    _scalar_operand_check(op, ins)
    vals = [bt.at0(v, bd) for v, bd in ins]
    r = len(_shape(op.operands[0]))
    n = r + 1 if op.name == "mindir.stack" else r
    a = _attrs(op)
    a["axis"] = _i64(_norm(_int_attr(op, "axis", 0), n, "axis", op.location) + 1)
    return _same_op(bt, op, vals, a)


@rule("mindir.split")
def _split(bt, op, ins, mapping):
    (x, _), = ins
    r = len(_shape(x)) - 1
    a = _attrs(op)
    a["axis"] = _i64(_norm(_int_attr(op, "axis", 0), r, "axis", op.location) + 1)
    return _same_op(bt, op, [x], a)


@rule("mindir.gather")
def _gather(bt, op, ins, mapping):
    _scalar_operand_check(op, ins)
    (p, pbd), (i, ibd) = ins
    r = len(_shape(op.operands[0]))
    axis = _norm(_int_attr(op, "axis", 0), r, "axis", op.location)
    if pbd is not None and ibd is None:
        a = _attrs(op)
        a["axis"] = _i64(axis + 1)
        return _same_op(bt, op, [p, i], a)
    if pbd is None and ibd is not None:
        t = batched_type(op.results[0].type, bt.B, axis)
        new = _create(op.name, [t], [p, i], _attrs(op), op.location)
        return [(move_axis(new.results[0], axis, 0), 0)]
    raise VmapError("vmap: no batching rule for 'mindir.gather' with both the params and the "
                    "indices batched", op.location)


@rule("mindir.one_hot")
def _one_hot(bt, op, ins, mapping):
    _scalar_operand_check(op, ins)
    (i, ibd), (on, onbd), (off, offbd) = ins
    if onbd is not None or offbd is not None:
        raise VmapError("vmap: no batching rule for 'mindir.one_hot' with batched on/off values",
                        op.location)
    a = _attrs(op)
    ax = _int_attr(op, "axis", -1)
    if ax != -1:
        a["axis"] = _i64(ax + 1)
    return _same_op(bt, op, [i, on, off], a)


@rule("mindir.layer_norm")
def _layer_norm(bt, op, ins, mapping):
    _scalar_operand_check(op, ins)
    (x, xbd), (g, gbd), (b, bbd) = ins
    if gbd is not None or bbd is not None or xbd is None:
        raise VmapError("vmap: no batching rule for 'mindir.layer_norm' with batched gamma/beta",
                        op.location)
    r = len(_shape(x)) - 1
    a = _attrs(op)
    a["begin_norm_axis"] = _i64(_norm(_int_attr(op, "begin_norm_axis", -1), r, "axis", op.location) + 1)
    a["begin_params_axis"] = _i64(_norm(_int_attr(op, "begin_params_axis", -1), r, "axis",
                                        op.location) + 1)
    return _same_op(bt, op, [x, g, b], a)


def _fold(lead):
    """Rule for ops whose operands `lead` have a leading N dim and whose other
    operands must be unbatched: the batch folds into N."""
    def impl(bt, op, ins, mapping):
        _scalar_operand_check(op, ins)
        vals = []
        for k, (v, bd) in enumerate(ins):
            if k in lead:
                v = bt.at0(v, bd)
                s = _shape(v)
                vals.append(reshape(v, [s[0] * s[1]] + s[2:]))
            elif bd is not None:
                raise VmapError(f"vmap: no batching rule for '{op.name}' with operand {k} "
                                f"batched", op.location)
            else:
                vals.append(v)
        types = []
        for r in op.results:
            s = _shape(r)
            types.append(ir.RankedTensorType.get([bt.B * s[0]] + s[1:], _rt(r).element_type))
        new = _create(op.name, types, vals, _attrs(op), op.location)
        try:
            new.verify()
        except ir.MLIRError as e:
            raise VmapError(f"vmap: internal error batching '{op.name}': {e}", op.location) from None
        return [(reshape(nr, [bt.B] + _shape(r)), 0) for nr, r in zip(new.results, op.results)]
    return impl


for _n, _lead in [("conv2d", (0,)), ("max_pool2d", (0,)), ("avg_pool2d", (0,)), ("bias_add", (0,)),
                  ("softmax_cross_entropy_with_logits", (0, 1)),
                  ("sparse_softmax_cross_entropy_with_logits", (0, 1))]:
    RULES[f"mindir.{_n}"] = _fold(set(_lead))


RULES["mindir.max_pool2d_grad"] = _fold({0, 1})
RULES["mindir.dropout"] = _fold({0})   # elementwise masks: folding keeps them independent


def _fold_with_shape_attr(attr):
    """avg_pool2d_grad / conv2d_backprop_input: operand 0 (dout) has the leading
    N dim and `attr` is the shape of the forward input: the batch folds into N
    (other operands must be unbatched)."""
    def impl(bt, op, ins, mapping):
        _scalar_operand_check(op, ins)
        (d, dbd), rest = ins[0], ins[1:]
        if any(bd is not None for _, bd in rest):
            raise VmapError(f"vmap: no batching rule for '{op.name}' with a batched weight",
                            op.location)
        d = bt.at0(d, dbd)
        s = _shape(d)
        a = _attrs(op)
        shape = list(_arr_attr(op, attr))
        a[attr] = _i64s([bt.B * shape[0]] + shape[1:])
        r = _shape(op.results[0])
        new = _create(op.name, [ir.RankedTensorType.get([bt.B * r[0]] + r[1:],
                                                        _rt(op.results[0]).element_type)],
                      [reshape(d, [s[0] * s[1]] + s[2:])] + [v for v, _ in rest], a, op.location)
        return [(reshape(new.results[0], [bt.B] + r), 0)]
    return impl


RULES["mindir.avg_pool2d_grad"] = _fold_with_shape_attr("input_shape")
RULES["mindir.conv2d_backprop_input"] = _fold_with_shape_attr("input_shape")


@rule("mindir.conv2d_backprop_filter")
def _conv2d_backprop_filter(bt, op, ins, mapping):
    """Per-example filter gradients (vmap of grad over a batch of examples): the
    examples become groups, [B, N, C, H, W] -> [N, B*C, H, W] and dout likewise,
    group *= B, filter_shape [O, ...] -> [B*O, ...]; the result [B*O, ...] is
    split back into [B, O, ...]."""
    _scalar_operand_check(op, ins)
    (d, dbd), (x, xbd) = ins
    d, x = bt.at0(d, dbd), bt.at0(x, xbd)
    B = bt.B

    def to_groups(v):
        s = _shape(v)  # [B, N, C, H, W]
        return reshape(transpose(v, [1, 0, 2, 3, 4]), [s[1], B * s[2]] + s[3:])

    a = _attrs(op)
    fs = list(_arr_attr(op, "filter_shape"))
    a["filter_shape"] = _i64s([B * fs[0]] + fs[1:])
    a["group"] = _i64(B * _int_attr(op, "group", 1))
    r = _shape(op.results[0])
    new = _create(op.name, [ir.RankedTensorType.get([B * r[0]] + r[1:],
                                                    _rt(op.results[0]).element_type)],
                  [to_groups(d), to_groups(x)], a, op.location)
    try:
        new.verify()
    except ir.MLIRError as e:
        raise VmapError(f"vmap: internal error batching '{op.name}': {e}", op.location) from None
    return [(reshape(new.results[0], [B] + r), 0)]


@rule("mindir.batch_norm")
def _batch_norm(bt, op, ins, mapping):
    """Per-example batch norm: the examples join the channels, [B, N, C, ...] ->
    [N, B*C, ...] (statistics per example and channel), the [C] operands become
    [B*C] (broadcast when unbatched); the results are split back."""
    _scalar_operand_check(op, ins)
    B = bt.B
    (x, xbd), chans = ins[0], ins[1:]
    x = bt.at0(x, xbd)
    s = _shape(x)                       # [B, N, C, *spatial]
    rank = len(s)
    perm = [1, 0] + list(range(2, rank))
    xf = reshape(transpose(x, perm), [s[1], B * s[2]] + s[3:])
    cs = [reshape(bt.at0(v, bd), [B * s[2]]) for v, bd in chans]
    elem = _rt(op.results[0]).element_type
    types = [ir.RankedTensorType.get([s[1], B * s[2]] + s[3:], elem),
             ir.RankedTensorType.get([B * s[2]], _rt(op.results[1]).element_type),
             ir.RankedTensorType.get([B * s[2]], _rt(op.results[2]).element_type)]
    new = _create(op.name, types, [xf] + cs, _attrs(op), op.location)
    y = transpose(reshape(new.results[0], [s[1], B, s[2]] + s[3:]), perm)
    return [(y, 0), (reshape(new.results[1], [B, s[2]]), 0),
            (reshape(new.results[2], [B, s[2]]), 0)]


@rule("func.call")
def _call(bt, op, ins, mapping):
    name = ir.FlatSymbolRefAttr(op.attributes["callee"]).value
    new_name, rbds, rtypes = bt.batch_callee(name, [bd for _, bd in ins], op.location)
    call = func.CallOp(rtypes, new_name, [v for v, _ in ins])
    return list(zip(call.results, rbds))


@rule("tensor.extract")
def _extract(bt, op, ins, mapping):
    (t, tbd), idx = ins[0], ins[1:]
    if any(bd is not None for _, bd in idx):
        raise VmapError("vmap: no batching rule for 'tensor.extract' at batched indices",
                        op.location)
    s = _shape(t)
    if math.prod(s[1:]) != 1:
        raise VmapError("vmap: no batching rule for 'tensor.extract' of a batched tensor with "
                        "more than one element per example", op.location)
    return [(reshape(t, [bt.B]), S)]


# --- control flow -------------------------------------------------------------------------------

def _erase(op):
    op.operation.erase()


@rule("scf.if")
def _if(bt, op, ins, mapping):
    (cond, cbd), = ins
    if cbd == S:
        return _if_select(bt, op, cond, mapping)
    # structured: both branches batched; a result is batched when either branch's is
    with ir.InsertionPoint.current:
        scratch = scf.IfOp(cond, [], has_else=True)
    blocks, yields = [], []
    for i in range(2):
        blk = scratch.then_block if i == 0 else scratch.else_block
        blocks.append(blk)
        sreg = op.regions[i]
        if not sreg.blocks:
            yields.append([])
            continue
        sblk = sreg.blocks[0]
        with ir.InsertionPoint(blk):
            bt.block(sblk, mapping)
        term = list(sblk.operations)[-1]
        yields.append([mapping[v] for v in term.operands])
    n = len(op.results)
    rbds = []
    for k in range(n):
        b = None
        for ys in yields:
            if ys and ys[k][1] == S:
                raise VmapError("vmap: scf.if yields a batched scalar", op.location)
            if ys and ys[k][1] is not None:
                b = 0
        rbds.append(b)
    finals = []
    for i, blk in enumerate(blocks):
        vals = []
        with ir.InsertionPoint(blk), op.location:
            for k in range(n):
                v, bd = yields[i][k]
                vals.append(bt.bcast(v) if (rbds[k] == 0 and bd is None) else v)
        finals.append(vals)
    rtypes = [v.type for v in finals[0]]
    final = ir.Operation.create("scf.if", results=rtypes, operands=[cond], regions=2,
                                loc=op.location, ip=ir.InsertionPoint(scratch.operation))
    blocks[0].append_to(final.regions[0])
    blocks[1].append_to(final.regions[1])
    for blk, vals in zip(blocks, finals):
        with ir.InsertionPoint(blk), op.location:
            scf.YieldOp(vals)
    _erase(scratch)
    return [(r, b) for r, b in zip(final.results, rbds)]


def _if_select(bt, op, cond, mapping):
    """scf.if on a per-example condition: both branches run batched, then a
    mindir.select per example (mindir ops are pure)."""
    vals = []
    for i in range(2):
        sreg = op.regions[i]
        if not sreg.blocks:
            vals.append([])
            continue
        sblk = sreg.blocks[0]
        bt.block(sblk, mapping)
        term = list(sblk.operations)[-1]
        vals.append([mapping[v] for v in term.operands])
    out = []
    for k, r in enumerate(op.results):
        (tv, tbd), (ev, ebd) = vals[0][k], vals[1][k]
        if not _is_tensor(r.type):
            raise VmapError("vmap: scf.if on a batched condition yielding a scalar", op.location)
        R = len(_shape(r))
        c = reshape(cond, [bt.B] + [1] * R)
        tv = bt.align(tv, tbd, R)
        ev = bt.align(ev, ebd, R)
        sel = mindir.SelectOp(c, tv, ev).result
        if _shape(sel) != [bt.B] + _shape(r):
            sel = broadcast_to(sel, [bt.B] + _shape(r))
        out.append((sel, 0))
    return out


def _loop(bt, op, ins, mapping, kind):
    """scf.for / scf.while: loop-carried values batched as needed (fixed point)."""
    if kind == "for":
        ctrl, inits = ins[:3], ins[3:]
        if any(bd is not None for _, bd in ctrl):
            raise VmapError("vmap: an scf.for whose bounds depend on the batched inputs",
                            op.location)
    else:
        ctrl, inits = [], ins
    for _, bd in inits:
        if bd == S:
            raise VmapError("vmap: a loop carrying a batched scalar", op.location)
    carried = [bd for _, bd in inits]
    for _attempt in range(len(carried) + 2):
        init_vals = [bt.bcast(v) if (c == 0 and bd is None) else v
                     for (v, bd), c in zip(inits, carried)]
        types = [v.type for v in init_vals]
        retry = False
        if kind == "for":
            new = scf.ForOp(ctrl[0][0], ctrl[1][0], ctrl[2][0], init_vals)
            sblk = op.regions[0].blocks[0]
            nblk = new.body
            mapping[sblk.arguments[0]] = (nblk.arguments[0], None)
            for sa, na, c in zip(list(sblk.arguments)[1:], list(nblk.arguments)[1:], carried):
                mapping[sa] = (na, c)
            with ir.InsertionPoint(nblk), op.location:
                bt.block(sblk, mapping)
                term = list(sblk.operations)[-1]
                ys = [mapping[v] for v in term.operands]
                for k, (v, bd) in enumerate(ys):
                    if bd == S:
                        raise VmapError("vmap: a loop carrying a batched scalar", op.location)
                    if bd is not None and carried[k] is None:
                        carried[k] = 0
                        retry = True
                if not retry:
                    scf.YieldOp([bt.bcast(v) if (carried[k] == 0 and bd is None) else v
                                 for k, (v, bd) in enumerate(ys)])
            if retry:
                _erase(new)
                continue
            return [(r, c) for r, c in zip(new.results, carried)]
        # while
        sbefore, safter = op.regions[0].blocks[0], op.regions[1].blocks[0]
        cond_op = list(sbefore.operations)[-1]
        fwd_src = list(cond_op.operands)[1:]
        # the result types are those of the forwarded values (known after the
        # `before` region): build in a result-less scratch op, then move
        wop_tmp = ir.Operation.create("scf.while", results=[], operands=init_vals, regions=2,
                                      loc=op.location)
        before = wop_tmp.regions[0].blocks.append(*types, arg_locs=[op.location] * len(types))
        for sa, na, c in zip(sbefore.arguments, before.arguments, carried):
            mapping[sa] = (na, c)
        with ir.InsertionPoint(before), op.location:
            bt.block(sbefore, mapping)
            cv, cbd = mapping[cond_op.operands[0]]
            masked = cbd is not None
            if not masked:
                fwd = [mapping[v] for v in fwd_src]
        if masked:
            _erase(wop_tmp)
            return _while_masked(bt, op, inits, mapping)
        with ir.InsertionPoint(before), op.location:
            for v, bd in fwd:
                if bd == S:
                    raise VmapError("vmap: a loop carrying a batched scalar", op.location)
        ftypes = [v.type for v, _ in fwd]
        fbds = [bd for _, bd in fwd]
        after = wop_tmp.regions[1].blocks.append(*ftypes, arg_locs=[op.location] * len(ftypes))
        for sa, na, b in zip(safter.arguments, after.arguments, fbds):
            mapping[sa] = (na, b)
        with ir.InsertionPoint(after), op.location:
            bt.block(safter, mapping)
            yterm = list(safter.operations)[-1]
            ys = [mapping[v] for v in yterm.operands]
            for k, (v, bd) in enumerate(ys):
                if bd == S:
                    raise VmapError("vmap: a loop carrying a batched scalar", op.location)
                if bd is not None and carried[k] is None:
                    carried[k] = 0
                    retry = True
        if retry:
            _erase(wop_tmp)
            continue
        with ir.InsertionPoint(before), op.location:
            scf.ConditionOp(cv, [v for v, _ in fwd])
        with ir.InsertionPoint(after), op.location:
            scf.YieldOp([bt.bcast(v) if (carried[k] == 0 and bd is None) else v
                         for k, (v, bd) in enumerate(ys)])
        final = ir.Operation.create("scf.while", results=ftypes, operands=init_vals, regions=2,
                                    loc=op.location, ip=ir.InsertionPoint(wop_tmp))
        before.append_to(final.regions[0])
        after.append_to(final.regions[1])
        _erase(wop_tmp)
        return [(r, b) for r, b in zip(final.results, fbds)]
    raise VmapError("vmap: the batching of a loop's carried values does not settle", op.location)


def _while_masked(bt, op, inits, mapping):
    """scf.while whose condition differs per example: the loop runs while any
    example's condition holds; every carried value is batched and an example
    whose condition is false keeps its values (mindir.select), so each example
    ends with the values its own trip count gives (the body is pure mindir)."""
    from mlir.dialects import tensor as _tensor
    sbefore, safter = op.regions[0].blocks[0], op.regions[1].blocks[0]
    cond_op = list(sbefore.operations)[-1]
    fwd_src = list(cond_op.operands)[1:]
    if any(not _is_tensor(v.type) for v, _ in inits) or \
            any(not _is_tensor(v.type) for v in fwd_src):
        raise VmapError("vmap: a while loop whose condition depends on the batched inputs and "
                        "that carries a non-tensor value (e.g. the iteration counter of a "
                        "differentiated loop) is not supported", op.location)
    init_vals = [bt.at0(v, bd) for v, bd in inits]
    types = [v.type for v in init_vals]
    wop_tmp = ir.Operation.create("scf.while", results=[], operands=init_vals, regions=2,
                                  loc=op.location)
    before = wop_tmp.regions[0].blocks.append(*types, arg_locs=[op.location] * len(types))
    for sa, na in zip(sbefore.arguments, before.arguments):
        mapping[sa] = (na, 0)
    with ir.InsertionPoint(before), op.location:
        bt.block(sbefore, mapping)
        cv, cbd = mapping[cond_op.operands[0]]
        if cbd == 0:
            cv = reshape(cv, [bt.B])
        elif cbd is None:
            cv = broadcast_to(reshape(_tensor.FromElementsOp(
                ir.RankedTensorType.get([1], cv.type), [cv]).result, [1]), [bt.B])
        fwd = []
        for v in fwd_src:
            fv, fbd = mapping[v]
            if fbd == S:
                raise VmapError("vmap: a loop carrying a batched scalar", op.location)
            fwd.append(bt.at0(fv, fbd))
        f32 = ir.F32Type.get()
        as_f = mindir.CastOp(ir.RankedTensorType.get([bt.B], f32), cv).result
        mx = mindir.ReduceMaxOp(as_f).result
        zero = mindir.ConstantOp(ir.DenseElementsAttr.get_splat(
            ir.RankedTensorType.get([], f32), ir.FloatAttr.get(f32, 0.0))).result
        anyc = _tensor.ExtractOp(mindir.GreaterOp(mx, zero).result, []).result
        carried_now = list(before.arguments)
        scf.ConditionOp(anyc, fwd + carried_now + [cv])
    ftypes = [v.type for v in fwd] + types + [cv.type]
    after = wop_tmp.regions[1].blocks.append(*ftypes, arg_locs=[op.location] * len(ftypes))
    nf, nc = len(fwd), len(types)
    aargs = list(after.arguments)
    for sa, na in zip(safter.arguments, aargs[:nf]):
        mapping[sa] = (na, 0)
    with ir.InsertionPoint(after), op.location:
        bt.block(safter, mapping)
        yterm = list(safter.operations)[-1]
        mask = aargs[nf + nc]
        ys = []
        for k, v in enumerate(yterm.operands):
            yv, ybd = mapping[v]
            if ybd == S:
                raise VmapError("vmap: a loop carrying a batched scalar", op.location)
            yv = bt.at0(yv, ybd)
            old = aargs[nf + k]
            m = reshape(mask, [bt.B] + [1] * (len(_shape(yv)) - 1))
            ys.append(mindir.SelectOp(m, yv, old).result)
        scf.YieldOp(ys)
    final = ir.Operation.create("scf.while", results=ftypes, operands=init_vals, regions=2,
                                loc=op.location, ip=ir.InsertionPoint(wop_tmp))
    before.append_to(final.regions[0])
    after.append_to(final.regions[1])
    _erase(wop_tmp)
    return [(r, 0) for r in list(final.results)[:nf]]


@rule("scf.for")
def _for(bt, op, ins, mapping):
    return _loop(bt, op, ins, mapping, "for")


@rule("scf.while")
def _while(bt, op, ins, mapping):
    return _loop(bt, op, ins, mapping, "while")


# --- entry points ---------------------------------------------------------------------------

def _axes_from_attr(attr) -> list:
    out = []
    for a in ir.ArrayAttr(attr):
        if isinstance(a, ir.UnitAttr) or str(a) == "unit":
            out.append(None)
        else:
            out.append(ir.IntegerAttr(a).value)
    return out


def axes_attr(axes) -> ir.ArrayAttr:
    return ir.ArrayAttr.get([ir.UnitAttr.get() if a is None else _i64(a) for a in axes])


def expand_declaration(module_op, decl, batcher_cache=None) -> None:
    """Gives the declaration `decl` (a body-less func.func carrying mindir.vmap)
    its batched body. Raises VmapError."""
    attrs = ir.DictAttr(decl.operation.attributes[VMAP_ATTR])
    callee = ir.FlatSymbolRefAttr(attrs["callee"]).value
    in_axes = _axes_from_attr(attrs["in_axes"])
    out_axes = _axes_from_attr(attrs["out_axes"])
    ft = _ftype(decl)
    loc = decl.operation.location
    if len(in_axes) != len(ft.inputs) or len(out_axes) != len(ft.results):
        raise VmapError("mindir-vmap: in_axes/out_axes must have one entry per argument/result",
                        loc)
    B = None
    for t, ax in zip(ft.inputs, in_axes):
        if ax is None:
            continue
        s = list(ir.RankedTensorType(t).shape)
        d = s[_norm(ax, len(s), "in_axes entry", loc)]
        if B is not None and d != B:
            raise VmapError(f"mindir-vmap: batched arguments have different sizes ({B} and {d}) "
                            f"along their in_axes", loc)
        B = d
    if B is None:
        raise VmapError("mindir-vmap: no argument is batched (in_axes are all None)", loc)
    bt = Batcher(module_op, B)
    src = bt.lookup(callee, loc)
    blk = decl.operation.regions[0].blocks.append(*ft.inputs, arg_locs=[loc] * len(ft.inputs))
    norm_in = [None if ax is None else _norm(ax, len(ir.RankedTensorType(t).shape),
                                             "in_axes entry", loc)
               for t, ax in zip(ft.inputs, in_axes)]
    _, rtypes = bt.batch_into(src, blk, norm_in, out_axes, loc)
    if list(rtypes) != list(ft.results):
        raise VmapError(f"mindir-vmap: the batched results have types "
                        f"({', '.join(map(str, rtypes))}), the declaration "
                        f"({', '.join(map(str, ft.results))})", loc)
    del decl.operation.attributes[VMAP_ATTR]


def run_vmap(module_op) -> None:
    body = module_op.operation.regions[0].blocks[0]
    for op in list(body.operations):
        if op.operation.name == "func.func" and VMAP_ATTR in op.operation.attributes and \
                not op.operation.regions[0].blocks:
            expand_declaration(module_op, op)


@register_pass("mindir-vmap",
               "Give each func.func declaration carrying mindir.vmap = {callee, in_axes, out_axes} "
               "the batched body of its callee (per-op batching rules)")
def mindir_vmap(module_op):
    try:
        run_vmap(module_op)
    except VmapError as e:
        (e.loc or module_op.location).emit_error(str(e))
        raise PassFailure() from None


@rule("mindir.host_callback")
def _host_callback(bt, op, ins, mapping):
    """JIT Fallback: the Python function runs once per example (a loop in the
    interpreter, see HostCallback.batched); unbatched operands are passed as they are."""
    from msmlir.frontend import fallback
    callee = ir.FlatSymbolRefAttr(op.attributes["callee"]).value
    cb = fallback.lookup(callee)
    if cb is None:
        raise VmapError(f"vmap: host callback @{callee} is not registered in this process",
                        op.location)
    flags = [bd is not None for _, bd in ins]
    new_cb = cb.batched(bt.B, flags)
    attrs = _attrs(op)
    attrs["callee"] = ir.FlatSymbolRefAttr.get(new_cb.name)
    operands = [v if bd is None else bt.at0(v, bd) for v, bd in ins]
    new = _create(op.name, _out_types(bt, op), operands, attrs, op.location)
    return [(r, 0) for r in new.results]
