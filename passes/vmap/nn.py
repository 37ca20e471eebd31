"""Batching rules of the linear-algebra and neural-network ops.

* matmul -> batch_matmul (an unbatched operand gets a leading unit dim);
  batch_matmul: batch dims aligned and broadcast;
* layer_norm: the normalized axes shifted past the batch dim;
* conv2d/max_pool2d/avg_pool2d/bias_add/dropout/softmax_cross_entropy* and the
  pooling and conv input gradients: the batch is folded into the op's leading
  N dim (reshape [B*N, ...]) and unfolded after;
* conv2d_backprop_filter (per-example filter gradients): the examples become
  convolution groups; batch_norm: the examples join the channels.
"""
from __future__ import annotations

from mlir import ir

from .engine import (VmapError, arr_attr, attrs_of, create, i64, i64s, int_attr, no_batched_scalar,
                     norm_axis, out_types, reshape, rtype, same_op, shape_of, transpose, verified)
from .registry import rule


@rule("mindir.matmul")
def _matmul(bt, op, ins, mapping):
    no_batched_scalar(op, ins)
    (a, abd), (b, bbd) = ins
    a = a if abd is not None else reshape(a, [1] + shape_of(a))
    b = b if bbd is not None else reshape(b, [1] + shape_of(b))
    new = create("mindir.batch_matmul", out_types(bt, op), [a, b], attrs_of(op), op.location)
    return [(new.results[0], 0)]


@rule("mindir.batch_matmul")
def _batch_matmul(bt, op, ins, mapping):
    no_batched_scalar(op, ins)
    R = len(shape_of(op.results[0]))
    vals = []
    for v, bd in ins:
        s = shape_of(v)
        if bd is None:
            vals.append(reshape(v, [1] * (R + 1 - len(s)) + s))
        else:
            vals.append(reshape(v, [s[0]] + [1] * (R + 1 - len(s)) + s[1:]))
    return same_op(bt, op, vals)


@rule("mindir.layer_norm")
def _layer_norm(bt, op, ins, mapping):
    no_batched_scalar(op, ins)
    (x, xbd), (g, gbd), (b, bbd) = ins
    if gbd is not None or bbd is not None or xbd is None:
        raise VmapError("vmap: no batching rule for 'mindir.layer_norm' with batched gamma/beta",
                        op.location)
    r = len(shape_of(x)) - 1
    a = attrs_of(op)
    for name in ("begin_norm_axis", "begin_params_axis"):
        a[name] = i64(norm_axis(int_attr(op, name, -1), r, "axis", op.location) + 1)
    return same_op(bt, op, [x, g, b], a)


def _fold(lead):
    """Rule for ops whose operands `lead` have a leading N dim and whose other
    operands must be unbatched: the batch folds into N."""
    def impl(bt, op, ins, mapping):
        no_batched_scalar(op, ins)
        vals = []
        for k, (v, bd) in enumerate(ins):
            if k in lead:
                v = bt.at0(v, bd)
                s = shape_of(v)
                vals.append(reshape(v, [s[0] * s[1]] + s[2:]))
            elif bd is not None:
                raise VmapError(f"vmap: no batching rule for '{op.name}' with operand {k} "
                                f"batched", op.location)
            else:
                vals.append(v)
        types = []
        for r in op.results:
            s = shape_of(r)
            types.append(ir.RankedTensorType.get([bt.B * s[0]] + s[1:], rtype(r).element_type))
        new = verified(create(op.name, types, vals, attrs_of(op), op.location), op)
        return [(reshape(nr, [bt.B] + shape_of(r)), 0) for nr, r in zip(new.results, op.results)]
    return impl


rule("mindir.conv2d", "mindir.max_pool2d", "mindir.avg_pool2d", "mindir.bias_add")(_fold({0}))
rule("mindir.softmax_cross_entropy_with_logits",
     "mindir.sparse_softmax_cross_entropy_with_logits", "mindir.max_pool2d_grad")(_fold({0, 1}))
rule("mindir.dropout")(_fold({0}))   # elementwise masks: folding keeps them independent


def _fold_with_shape_attr(attr):
    """avg_pool2d_grad / conv2d_backprop_input: operand 0 (dout) has the leading
    N dim and `attr` is the shape of the forward input: the batch folds into N
    (other operands must be unbatched)."""
    def impl(bt, op, ins, mapping):
        no_batched_scalar(op, ins)
        (d, dbd), rest = ins[0], ins[1:]
        if any(bd is not None for _, bd in rest):
            raise VmapError(f"vmap: no batching rule for '{op.name}' with a batched weight",
                            op.location)
        d = bt.at0(d, dbd)
        s = shape_of(d)
        a = attrs_of(op)
        shape = list(arr_attr(op, attr))
        a[attr] = i64s([bt.B * shape[0]] + shape[1:])
        r = shape_of(op.results[0])
        new = create(op.name, [ir.RankedTensorType.get([bt.B * r[0]] + r[1:],
                                                       rtype(op.results[0]).element_type)],
                     [reshape(d, [s[0] * s[1]] + s[2:])] + [v for v, _ in rest], a, op.location)
        return [(reshape(new.results[0], [bt.B] + r), 0)]
    return impl


rule("mindir.avg_pool2d_grad", "mindir.conv2d_backprop_input")(_fold_with_shape_attr("input_shape"))


@rule("mindir.conv2d_backprop_filter")
def _conv2d_backprop_filter(bt, op, ins, mapping):
    """Per-example filter gradients (vmap of grad over a batch of examples): the
    examples become groups, [B, N, C, H, W] -> [N, B*C, H, W] and dout likewise,
    group *= B, filter_shape [O, ...] -> [B*O, ...]; the result [B*O, ...] is
    split back into [B, O, ...]."""
    no_batched_scalar(op, ins)
    (d, dbd), (x, xbd) = ins
    d, x = bt.at0(d, dbd), bt.at0(x, xbd)
    B = bt.B

    def to_groups(v):
        s = shape_of(v)  # [B, N, C, H, W]
        return reshape(transpose(v, [1, 0, 2, 3, 4]), [s[1], B * s[2]] + s[3:])

    a = attrs_of(op)
    fs = list(arr_attr(op, "filter_shape"))
    a["filter_shape"] = i64s([B * fs[0]] + fs[1:])
    a["group"] = i64(B * int_attr(op, "group", 1))
    r = shape_of(op.results[0])
    new = verified(create(op.name, [ir.RankedTensorType.get([B * r[0]] + r[1:],
                                                            rtype(op.results[0]).element_type)],
                          [to_groups(d), to_groups(x)], a, op.location), op)
    return [(reshape(new.results[0], [B] + r), 0)]


@rule("mindir.batch_norm")
def _batch_norm(bt, op, ins, mapping):
    """Per-example batch norm: the examples join the channels, [B, N, C, ...] ->
    [N, B*C, ...] (statistics per example and channel), the [C] operands become
    [B*C] (broadcast when unbatched); the results are split back."""
    no_batched_scalar(op, ins)
    B = bt.B
    (x, xbd), chans = ins[0], ins[1:]
    x = bt.at0(x, xbd)
    s = shape_of(x)                       # [B, N, C, *spatial]
    rank = len(s)
    perm = [1, 0] + list(range(2, rank))
    xf = reshape(transpose(x, perm), [s[1], B * s[2]] + s[3:])
    cs = [reshape(bt.at0(v, bd), [B * s[2]]) for v, bd in chans]
    elem = rtype(op.results[0]).element_type
    types = [ir.RankedTensorType.get([s[1], B * s[2]] + s[3:], elem),
             ir.RankedTensorType.get([B * s[2]], rtype(op.results[1]).element_type),
             ir.RankedTensorType.get([B * s[2]], rtype(op.results[2]).element_type)]
    new = create(op.name, types, [xf] + cs, attrs_of(op), op.location)
    y = transpose(reshape(new.results[0], [s[1], B, s[2]] + s[3:]), perm)
    return [(y, 0), (reshape(new.results[1], [B, s[2]]), 0),
            (reshape(new.results[2], [B, s[2]]), 0)]
