"""Batching rules of calls, control flow and scalars.

* func.call: the callee is batched for the call's pattern of batched operands
  (cached; a per-example scalar, e.g. a saved branch condition, crosses the
  call as a tensor<B x T>);
* mindir.host_callback (JIT Fallback): the Python function runs once per
  example (HostCallback.batched);
* tensor.extract of a one-element batched tensor: a per-example scalar;
* scf.if with an unbatched condition: both regions batched; with a batched
  condition: both branches computed and `mindir.select`ed per example;
* scf.for / scf.while with unbatched bounds/condition: loop-carried values are
  batched as needed (fixed point); scf.while with a per-example condition: the
  loop runs while any example's condition holds and `mindir.select` freezes
  the values of the finished examples; scf.for with batched bounds is an error.
"""
from __future__ import annotations

import math

from mlir import ir
from mlir.dialects import func, scf, tensor

from msmlir.dialects import mindir
from msmlir.runtime.host_callbacks import lookup

from .engine import (S, VmapError, attrs_of, broadcast_to, create, is_tensor, out_types, reshape,
                     shape_of)
from .registry import rule


@rule("func.call")
def _call(bt, op, ins, mapping):
    name = ir.FlatSymbolRefAttr(op.attributes["callee"]).value
    new_name, rbds, rtypes = bt.batch_callee(name, [bd for _, bd in ins], op.location)
    call = func.CallOp(rtypes, new_name, [v for v, _ in ins])
    return list(zip(call.results, rbds))


@rule("mindir.host_callback")
def _host_callback(bt, op, ins, mapping):
    """JIT Fallback: the Python function runs once per example (a loop in the
    interpreter, see HostCallback.batched); unbatched operands are passed as they are."""
    callee = ir.FlatSymbolRefAttr(op.attributes["callee"]).value
    cb = lookup(callee)
    if cb is None:
        raise VmapError(f"vmap: host callback @{callee} is not registered in this process",
                        op.location)
    flags = [bd is not None for _, bd in ins]
    new_cb = cb.batched(bt.B, flags)
    attrs = attrs_of(op)
    attrs["callee"] = ir.FlatSymbolRefAttr.get(new_cb.name)
    operands = [v if bd is None else bt.at0(v, bd) for v, bd in ins]
    new = create(op.name, out_types(bt, op), operands, attrs, op.location)
    return [(r, 0) for r in new.results]


@rule("tensor.extract")
def _extract(bt, op, ins, mapping):
    (t, _), idx = ins[0], ins[1:]
    if any(bd is not None for _, bd in idx):
        raise VmapError("vmap: no batching rule for 'tensor.extract' at batched indices",
                        op.location)
    s = shape_of(t)
    if math.prod(s[1:]) != 1:
        raise VmapError("vmap: no batching rule for 'tensor.extract' of a batched tensor with "
                        "more than one element per example", op.location)
    return [(reshape(t, [bt.B]), S)]


# --- control flow ---------------------------------------------------------------------

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
        if not is_tensor(r.type):
            raise VmapError("vmap: scf.if on a batched condition yielding a scalar", op.location)
        R = len(shape_of(r))
        c = reshape(cond, [bt.B] + [1] * R)
        tv = bt.align(tv, tbd, R)
        ev = bt.align(ev, ebd, R)
        sel = mindir.SelectOp(c, tv, ev).result
        if shape_of(sel) != [bt.B] + shape_of(r):
            sel = broadcast_to(sel, [bt.B] + shape_of(r))
        out.append((sel, 0))
    return out


def _batch_newly_carried(ys, carried, op) -> bool:
    """Marks loop-carried values that the body's yield batches but the loop does
    not carry batched yet (`carried[k] = 0`); True if any was marked (the loop
    is rebuilt with them batched)."""
    retry = False
    for k, (_, bd) in enumerate(ys):
        if bd == S:
            raise VmapError("vmap: a loop carrying a batched scalar", op.location)
        if bd is not None and carried[k] is None:
            carried[k] = 0
            retry = True
    return retry


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
                retry = _batch_newly_carried(ys, carried, op)
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
            retry = _batch_newly_carried(ys, carried, op)
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
    sbefore, safter = op.regions[0].blocks[0], op.regions[1].blocks[0]
    cond_op = list(sbefore.operations)[-1]
    fwd_src = list(cond_op.operands)[1:]
    if any(not is_tensor(v.type) for v, _ in inits) or \
            any(not is_tensor(v.type) for v in fwd_src):
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
            cv = broadcast_to(reshape(tensor.FromElementsOp(
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
        anyc = tensor.ExtractOp(mindir.GreaterOp(mx, zero).result, []).result
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
            m = reshape(mask, [bt.B] + [1] * (len(shape_of(yv)) - 1))
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
