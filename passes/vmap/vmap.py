"""mindir-vmap: vectorizing map as an IR batching transformation.

Given a function @f on per-example tensors, builds the function that computes
@f for a whole batch at once, by rewriting each op with a *batching rule*
(JAX-style; engine.py, rules in the category modules): no per-example loop,
no unrolling, so the batched function is ordinary mindir that later passes
(fusion, CSE, ...) optimise like any other.

A declaration

    func.func private @g(%x: tensor<8x3xf32>, %w: tensor<3xf32>) -> tensor<8xf32>
        attributes {mindir.vmap = {callee = @f, in_axes = [0 : i64, unit],
                                   out_axes = [0 : i64]}}

gets as its body the batched computation of @f (`in_axes`/`out_axes`: one
entry per argument/result, an i64 axis or `unit` for "not batched"; the batch
size comes from the batched arguments). The frontend (`msmlir.vmap`) emits such
a declaration and expands it at once with `expand_declaration`, so the module
it hands to later passes holds only ordinary mindir.

An op with a batched operand and no rule is an error at the op's location
("vmap: no batching rule for 'mindir.xxx'").
"""
from __future__ import annotations

from mlir import ir

from ..registry import PassFailure, register_pass
from .engine import Batcher, VmapError, func_type, i64, norm_axis

VMAP_ATTR = "mindir.vmap"


def _axes_from_attr(attr) -> list:
    out = []
    for a in ir.ArrayAttr(attr):
        if isinstance(a, ir.UnitAttr) or str(a) == "unit":
            out.append(None)
        else:
            out.append(ir.IntegerAttr(a).value)
    return out


def axes_attr(axes) -> ir.ArrayAttr:
    """in_axes/out_axes as the attribute: an i64 per batched entry, unit for None."""
    return ir.ArrayAttr.get([ir.UnitAttr.get() if a is None else i64(a) for a in axes])


def expand_declaration(module_op, decl) -> None:
    """Gives the declaration `decl` (a body-less func.func carrying mindir.vmap)
    its batched body. Raises VmapError."""
    attrs = ir.DictAttr(decl.operation.attributes[VMAP_ATTR])
    callee = ir.FlatSymbolRefAttr(attrs["callee"]).value
    in_axes = _axes_from_attr(attrs["in_axes"])
    out_axes = _axes_from_attr(attrs["out_axes"])
    ft = func_type(decl)
    loc = decl.operation.location
    if len(in_axes) != len(ft.inputs) or len(out_axes) != len(ft.results):
        raise VmapError("mindir-vmap: in_axes/out_axes must have one entry per argument/result",
                        loc)
    B = None
    for t, ax in zip(ft.inputs, in_axes):
        if ax is None:
            continue
        s = list(ir.RankedTensorType(t).shape)
        d = s[norm_axis(ax, len(s), "in_axes entry", loc)]
        if B is not None and d != B:
            raise VmapError(f"mindir-vmap: batched arguments have different sizes ({B} and {d}) "
                            f"along their in_axes", loc)
        B = d
    if B is None:
        raise VmapError("mindir-vmap: no argument is batched (in_axes are all None)", loc)
    bt = Batcher(module_op, B)
    src = bt.lookup(callee, loc)
    blk = decl.operation.regions[0].blocks.append(*ft.inputs, arg_locs=[loc] * len(ft.inputs))
    norm_in = [None if ax is None else norm_axis(ax, len(ir.RankedTensorType(t).shape),
                                                 "in_axes entry", loc)
               for t, ax in zip(ft.inputs, in_axes)]
    _, rtypes = bt.batch_into(src, blk, norm_in, out_axes, loc)
    if list(rtypes) != list(ft.results):
        raise VmapError(f"mindir-vmap: the batched results have types "
                        f"({', '.join(map(str, rtypes))}), the declaration "
                        f"({', '.join(map(str, ft.results))})", loc)
    del decl.operation.attributes[VMAP_ATTR]


def run_vmap(module_op) -> None:
    """Expands every body-less func.func carrying mindir.vmap. Raises VmapError."""
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
