"""Pooling and its gradients on the vector path (no pass).

Kernels holding `linalg.pooling_nchw_max` of a kernel argument (the forward),
or the max-pool gradient as passes/lowering/mindir_to_linalg/nn.py builds it
(an argmax generic over the windows, then a gather generic routing dout to
the first maximum of each window), with no padding and, for the gradient,
non-overlapping windows (stride = window).

A tile is `tilePlanes` whole (n, c) planes: DataCopyPad brings their H rows of
W elements into UB at a pitch of 32 bytes (one copy per tile: the planes are
contiguous in GM). The window gathers are `Gather` instructions with byte
offset tables built once per core in Init (one table per window position
(kh, kw): element i of the tile's output -> the input element of its window),
so each window position is one Gather of the whole tile and one Max:

    forward   m = Gather(x, T_00); m = Max(m, Gather(x, T_k)) for the others;
              m is the tile's outputs packed, copied out in one DataCopyPad
    gradient  m as above; for each window position in row-major order:
              e = Select(Compare(Gather(x, T_k), m, EQ), 1, 0),
              f = e - e * taken, taken += f   (the first maximum only),
              contrib_k = Select(f, dy, 0) (not dy * f: a NaN or inf dout must
              reach its maximum only, as on the CPU); then dx = Gather(contrib, inverse table)
              (elements that no window covers read a zero slot)

Queues of depth 2 overlap a tile's copies with the previous tile's compute.

Padding is a slot past the tile (-inf for max, 0 for average) that the
tables of out-of-bounds window positions point at (no padded copy in UB).
With padding or overlapping / gapped windows the max-pool gradient routes
dout as above, then sums one inverse Gather per candidate window of an
input element (ceil(KH/sh) x ceil(KW/sw) tables, in the CPU's order).

Average pooling (avg_source): forward = K Gathers summed (Add), then Div by
the window count (a Duplicate'd constant, or per-window counts when padding
is excluded); gradient = dout / count (+ a zero slot), then one Gather per
candidate window summed. The tables are built once per core (by the vector
unit when unpadded, else the scalar unit).

Dilated windows (linalg-level kernels; mindir pooling has none) step the
forward tables by the dilation. f16 poolings keep half in GM and in the copy
queues (rows of 32 bytes: W padded to 16), Cast each tile to an f32 image
(exact), compute as above and Cast the result back; every sum and division
is rounded to f16 at once (Cast f32 -> half -> f32), so they equal the CPU
target's f16 arithmetic bit for bit (_f16_lines).
"""
from __future__ import annotations

import math

from mlir import ir

from .plan import F32, Plan, Unsupported, Value, align_up, camel, kind_of

UB_BUDGET = 160 * 1024


def _op(v):
    owner = v.owner
    if isinstance(owner, ir.Block):
        return None
    return owner.operation if hasattr(owner, "operation") else owner


def _ints(attr) -> list[int]:
    return [int(x) for x in ir.DenseIntElementsAttr(attr)]


def _body(fn):
    return [o.operation for o in fn.regions[0].blocks[0].operations]


def _window_map(m: ir.AffineMap):
    """(sh, sw) of (d0, d1, d2 * sh + d4, d3 * sw + d5), else None."""
    import re
    txt = [str(e) for e in m.results]
    if len(txt) != 4 or txt[:2] != ["d0", "d1"]:
        return None
    out = []
    for e, (a, b) in zip(txt[2:], (("d2", "d4"), ("d3", "d5"))):
        if e == f"{a} + {b}":
            out.append(1)
            continue
        g = re.fullmatch(rf"{a} \* (\d+) \+ {b}", e)
        if g is None:
            return None
        out.append(int(g.group(1)))
    return out


def pool_kind(fn):
    """'max' / 'avg' (forwards), 'max_grad', 'avg_grad' or None."""
    ops = _body(fn)
    names = [o.name for o in ops]
    if "linalg.pooling_nchw_max" in names:
        return "max"
    if "linalg.pooling_nchw_sum" in names:
        return "avg"
    gens = [o for o in ops if o.name == "linalg.generic"]
    if len(gens) == 2 and len(gens[1].results) == 1 and len(gens[0].results) == 1 and \
            len(ir.AffineMapAttr(list(gens[1].attributes["indexing_maps"])[0]).value.results) == 4 and \
            ir.AffineMapAttr(list(gens[1].attributes["indexing_maps"])[0]).value.n_dims == 6 and \
            [str(a) for a in gens[1].attributes["iterator_types"]].count('#linalg.iterator_type<reduction>') == 2:
        return "avg_grad"
    gens = [o for o in ops if o.name == "linalg.generic"]
    if len(gens) == 2 and len(gens[0].results) == 2 and len(gens[1].results) == 1 and \
            all(len(ir.AffineMapAttr(a).value.results) == 4 and ir.AffineMapAttr(a).value.n_dims == 6
                for a in list(gens[0].attributes["indexing_maps"])[:1]):
        return "max_grad"
    return None


def _unpad(v):
    """The source of a tensor.pad that only pads at the end (the gradient's
    dout and argmax, padded so that every window read is in bounds: the
    padding is never routed anywhere), else v."""
    op = _op(v)
    if op is not None and op.name == "tensor.pad" and \
            not any(ir.DenseI64ArrayAttr(op.attributes["static_low"])) and len(op.operands) == 1:
        return op.operands[0]
    return v


def _strip_pad(v):
    """The source of a tensor.pad (the gradient's dout and argmax, padded so that
    every candidate window read is in bounds: the padding is never routed), else v."""
    op = _op(v)
    if op is not None and op.name == "tensor.pad" and len(op.operands) == 1:
        return op.operands[0]
    return v


def _arg(v, block, what):
    if v.owner != block:
        op = _op(v)
        raise Unsupported(f"a pooling {what} computed by '{op.name if op else '?'}' inside the kernel "
                          "(a pooling of a computed value is not emitted on the vector path)")
    return v.arg_number


def _pad_of(v, value):
    """(source, [top, bottom, left, right]) of a tensor.pad of the spatial dims
    by a constant `value`, or (v, [0, 0, 0, 0])."""
    op = _op(v)
    if op is None or op.name != "tensor.pad":
        return v, [0, 0, 0, 0]
    lo = list(ir.DenseI64ArrayAttr(op.attributes["static_low"]))
    hi = list(ir.DenseI64ArrayAttr(op.attributes["static_high"]))
    if len(op.operands) != 1 or lo[:2] != [0, 0] or hi[:2] != [0, 0]:
        raise Unsupported("a pooling input padded in an unexpected way")
    body = [o.operation for o in op.regions[0].blocks[0].operations]
    from .plan import _const_scalar
    if _const_scalar(body[-1].operands[0]) != value:
        raise Unsupported(f"a pooling input padded with something else than {value}")
    return op.operands[0], [lo[2], hi[2], lo[3], hi[3]]


def _f16_values(v):
    """The elements of a small f16 arith.constant (an f16 pooling's window counts) as floats."""
    op = _op(v)
    if op is None or op.name != "arith.constant" or not isinstance(op.attributes["value"], ir.DenseElementsAttr):
        return None
    import numpy as np
    arr = np.array(ir.DenseElementsAttr(op.attributes["value"]))
    return [float(x) for x in arr.reshape(-1)] if arr.dtype == np.float16 and arr.size <= 4096 else None


def _divisor(g, src):
    """The divisor of avg pooling's `src / count` generic g: a float (one count)
    or the per-window counts as ([ch per oh], [cw per ow])."""
    from .plan import _const_scalar, _dense_values
    body = [o.operation for o in g.regions[0].blocks[0].operations]
    ins = list(g.operands)[:len(g.operands) - 1]
    if not ins or ins[0] != src:
        raise Unsupported("an average pooling of an unexpected form")
    if len(ins) == 1 and [o.name for o in body] == ["arith.divf", "linalg.yield"]:
        d = _const_scalar(body[0].operands[1])
        if d is None:
            raise Unsupported("an average pooling of an unexpected form")
        return d
    if len(ins) == 3 and [o.name for o in body] == ["arith.mulf", "arith.divf", "linalg.yield"]:
        th, tw = (_dense_values(v) or _f16_values(v) for v in ins[1:])
        if th is None or tw is None:
            raise Unsupported("an average pooling of an unexpected form")
        return (th, tw)
    raise Unsupported("an average pooling of an unexpected form")


def _plane_plan(fn, kernel, block, ret, ub, *, planes, cores, soc, model, dims):
    """The plane tiling shared by the pooling planners: as many (N*C) planes
    per tile as spread the tiles over every core and fit UB (`ub(tp)` bytes),
    the core split, and the Plan of a one-output kernel over whole tensors.
    Returns (plan, tiling data, planes per tile)."""
    H, W, OH, OW, KH, KW, sh, sw = dims
    budget = min(UB_BUDGET, model.ub)
    if ub(1) > budget:
        raise Unsupported(f"one {H}x{W} plane of the pooling does not fit UB")
    tp = 1
    while tp < -(-planes // cores) and ub(tp + 1) <= budget:
        tp += 1
    tiles = -(-planes // tp)
    per = -(-tiles // min(cores, tiles))
    tiling = {"planes": planes, "H": H, "W": W, "OH": OH, "OW": OW, "KH": KH, "KW": KW, "sh": sh, "sw": sw,
              "tilePlanes": tp, "tileNum": tiles, "tilesPerCore": per, "blockDim": -(-tiles // per)}
    args = list(block.arguments)
    plan = Plan(kernel=kernel, func=ir.StringAttr(fn.attributes["sym_name"]).value, kind=kind_of(fn),
                inputs=[(Value(f"in{i}", "full", "input", index=i), math.prod(ir.RankedTensorType(a.type).shape))
                        for i, a in enumerate(args)],
                outputs=[(Value("out0", "full", "output", index=0),
                          math.prod(ir.RankedTensorType(ret.operands[0].type).shape))],
                tiling=None, full_slots=0, row_slots=0, reduces=False, compute=[], row_pre=[], scalars=[],
                cols=[], soc=soc)
    plan.shapes = {"in": [list(ir.RankedTensorType(a.type).shape) for a in args],
                   "out": [list(ir.RankedTensorType(ret.operands[0].type).shape)]}
    plan.ub_bytes = ub(tp)
    return plan, tiling, tp


def _plan_avg(fn, kernel, kind, *, soc, cores, model) -> Plan:
    """Average pooling (forward) and its gradient, padded or not, windows
    overlapping or not: one Gather per window position (forward) or per
    candidate window of an input element (gradient), padding and uncovered
    elements read a zero slot."""
    from .plan import _const_scalar
    block = fn.regions[0].blocks[0]
    ops = _body(fn)
    ret = ops[-1]
    allowed = {"arith.constant", "tensor.empty", "linalg.fill", "func.return"}
    if len(ret.operands) != 1:
        raise Unsupported("an average pooling kernel with several results")
    if kind in ("avg", "max_padded"):
        name, init = ("linalg.pooling_nchw_sum", 0.0) if kind == "avg" else ("linalg.pooling_nchw_max", -math.inf)
        pool = next(o for o in ops if o.name == name)
        src, pads = _pad_of(pool.operands[0], init)
        xi = _arg(src, block, "input")
        dh, dw = _ints(pool.attributes["dilations"])
        if _const_scalar(pool.operands[2]) != init:
            raise Unsupported(f"a pooling whose initial value is not {init}")
        sh, sw = _ints(pool.attributes["strides"])
        KH, KW = ir.RankedTensorType(pool.operands[1].type).shape
        if kind == "avg":
            g = _op(ret.operands[0])
            if g is None or g.name != "linalg.generic":
                raise Unsupported("an average pooling kernel returning something else than the average")
            div = _divisor(g, pool.results[0])
        else:
            g, div = pool, None
            if ret.operands[0] != pool.results[0]:
                raise Unsupported("a max pooling kernel returning something else than the pooling")
        if any(o.name not in allowed | {"tensor.pad"} and o not in (pool, g) for o in ops):
            raise Unsupported("an average pooling with other ops in its kernel")
        x_t = ir.RankedTensorType(block.arguments[xi].type)
        N, C, H, W = x_t.shape
        OH, OW = ir.RankedTensorType(pool.results[0].type).shape[2:]
        ins, an, bn = [xi], 1, 1
    else:
        g0, g1 = [o for o in ops if o.name == "linalg.generic"]
        dyi = _arg(g0.operands[0], block, "gradient")
        div = _divisor(g0, g0.operands[0])
        cp, lows = g1.operands[0], [0, 0, 0, 0]
        pad = _op(cp)
        if pad is not None and pad.name == "tensor.pad":
            if pad.operands[0] != g0.results[0]:
                raise Unsupported("an average-pool gradient of an unexpected form")
        elif cp != g0.results[0]:
            raise Unsupported("an average-pool gradient of an unexpected form")
        m0 = ir.AffineMapAttr(list(g1.attributes["indexing_maps"])[0]).value
        import re
        txt = [str(e) for e in m0.results]
        st = []
        for e, (a, b) in zip(txt[2:], (("d2", "d4"), ("d3", "d5"))):
            mt = re.fullmatch(rf"{a} floordiv (\d+) \+ {b}", e) or (re.fullmatch(rf"{a} \+ {b}", e) and "1")
            if not mt:
                raise Unsupported("an average-pool gradient of an unexpected form")
            st.append(1 if mt == "1" else int(mt.group(1)))
        sh, sw = st
        an, bn = ir.RankedTensorType(g1.operands[1].type).shape
        body = [o.operation for o in g1.regions[0].blocks[0].operations]
        ks = [_const_int(c.operands[1]) for c in body if c.name == "arith.cmpi"]
        if len(ks) == 2 and None not in ks:
            KH, KW = ks
        elif not ks:
            KH, KW = an * sh, bn * sw
        else:
            raise Unsupported("an average-pool gradient of an unexpected form")
        res = ret.operands[0]
        pads = [0, 0, 0, 0]
        N, C, H, W = ir.RankedTensorType(res.type).shape
        sl = _op(res)
        if sl is not None and sl.name == "tensor.extract_slice":
            offs = list(ir.DenseI64ArrayAttr(sl.attributes["static_offsets"]))
            hp, wp = ir.RankedTensorType(sl.operands[0].type).shape[2:]
            pads = [offs[2], hp - H - offs[2], offs[3], wp - W - offs[3]]
            res = sl.operands[0]
        if res != g1.results[0]:
            raise Unsupported("an average-pool gradient kernel returning something else")
        if any(o.name not in allowed | {"tensor.pad", "tensor.extract_slice"} and o not in (g0, g1) for o in ops):
            raise Unsupported("an average-pool gradient with other ops in its kernel")
        OH, OW = ir.RankedTensorType(block.arguments[dyi].type).shape[2:]
        ins = [dyi]
        dh = dw = 1
    f16 = _pool_dtype([block.arguments[v] for v in ins] + [ret.operands[0]])
    if isinstance(div, tuple) and (len(div[0]) != OH or len(div[1]) != OW):
        raise Unsupported("an average pooling of an unexpected form")
    grad = kind == "avg_grad"
    if div is not None and not isinstance(div, tuple) and div == 0.0:
        raise Unsupported("an average pooling dividing by 0")
    planes, Wp, K = N * C, align_up(W, 16 if f16 else 8), KH * KW
    J = an * bn                          # gradient: candidate windows per input element

    def ub(tp):
        cnt = align_up(tp * OH * OW, 64)
        inb = tp * H * Wp
        if grad:        # dy queue (+ zero slot), dx queue, tables, g, counts
            b = (2 * (cnt + 8) + 2 * inb + J * inb + inb + cnt) * F32
            return b + (cnt + 8 + inb + max(cnt, inb) // 2 + 8) * F32 if f16 else b   # f32 images, a rounding buffer
        b = (2 * (inb + 8) + 2 * cnt + K * cnt + cnt + cnt + (0 if any(pads) else 2 * cnt)) * F32
        return b + (inb + 8 + cnt + max(cnt, inb) // 2 + 8) * F32 if f16 else b
    plan, tiling, tp = _plane_plan(fn, kernel, block, ret, ub, planes=planes, cores=cores, soc=soc,
                                   model=model, dims=(H, W, OH, OW, KH, KW, sh, sw))
    tiling.update({"pt": pads[0], "pl": pads[2], "an": an, "bn": bn, "dh": dh, "dw": dw})
    plan.pool = {"kind": kind, "tiling": tiling, "tiles": tiling["tileNum"], "tile": f"{tp}x{H}x{W}", "x": ins[0],
                 "dy": ins[0] if grad else None, "div": div, "pads": pads, "f16": f16}
    _f16_shapes(plan, f16)
    return plan


def _pool_dtype(values) -> bool:
    """Whether the pooling's inputs and result are f16 (all f32: False)."""
    kinds = {"f16" if isinstance(ir.RankedTensorType(v.type).element_type, ir.F16Type) else
             "f32" if isinstance(ir.RankedTensorType(v.type).element_type, ir.F32Type) else "other"
             for v in values}
    if kinds not in ({"f32"}, {"f16"}):
        raise Unsupported("a pooling that is not all f32 or all f16")
    return kinds == {"f16"}


def _f16_shapes(plan: Plan, f16: bool) -> None:
    if f16:
        plan.shapes["in_dtypes"] = ["float16"] * len(plan.shapes["in"])
        plan.shapes["out_dtypes"] = ["float16"]


def _f16_lines(L: list, *, xq: str, yq: str, rounded: bool) -> list:
    """The f16 form of a pooling kernel's lines: half in GM and in the copy
    queues; on chip each tile is Cast to an f32 image (exact), computed in f32
    as before, and Cast back to half for the copy out. `rounded`: every Add /
    Div into the result (a sum of window elements, a division by the count)
    is rounded to f16 at once (Cast f32 -> half -> f32), as the CPU target's
    f16 arithmetic does; max and routing are exact. xq / yq: the element
    counts of the x and y queue buffers."""
    out = []
    for line in L:
        ind = line[:len(line) - len(line.lstrip())]
        st = line.strip()
        if st == "Wp = (W + 7) / 8 * 8;":
            out.append(ind + "Wp = (W + 15) / 16 * 16;  // 32-byte UB rows of half")
            continue
        if st.startswith("pipe.InitBuffer(xQue,") or st.startswith("pipe.InitBuffer(yQue,") or \
                st.startswith("pipe.InitBuffer(dyQue,"):
            q = st[len("pipe.InitBuffer("):st.index(",")]
            size = st[st.index("BUFFER_NUM, ") + len("BUFFER_NUM, "):st.index(" * sizeof(float)")]
            out.append(ind + st.replace("sizeof(float)", "sizeof(half)"))
            out.append(ind + f"pipe.InitBuffer({q[:-3]}fBuf, {size} * sizeof(float));  // its f32 image")
            if q == "xQue":
                out.append(ind + f"pipe.InitBuffer(rBuf, ({xq} > {yq} ? {xq} : {yq}) * sizeof(half));  // f16 rounding")
            continue
        for q, v in (("xQue", "x"), ("dyQue", "dy")):
            if st == f"LocalTensor<float> {v} = {q}.AllocTensor<float>();":
                st = f"LocalTensor<half> {v} = {q}.AllocTensor<half>();"
            if st == f"LocalTensor<float> {v} = {q}.DeQue<float>();":
                n = xq if v == "x" else "cnt"
                out += [ind + f"LocalTensor<half> {v}h = {q}.DeQue<half>();",
                        ind + f"LocalTensor<float> {v} = {v}fBuf.Get<float>();",
                        ind + f"Cast({v}, {v}h, RoundMode::CAST_NONE, {n});  // exact",
                        ind + f"{q}.FreeTensor({v}h);"]
                st = None
                break
            if st == f"{q}.FreeTensor({v});":
                st = None
                break
        if st is None:
            continue
        if st in ("LocalTensor<float> y = yQue.AllocTensor<float>();",
                  "LocalTensor<float> m = yQue.AllocTensor<float>();  // the outputs"):
            v = st.split()[1]
            out.append(ind + f"LocalTensor<float> {v} = yfBuf.Get<float>();")
            continue
        if st in ("yQue.EnQue(y);", "yQue.EnQue(m);"):
            v = st[len("yQue.EnQue("):-2]
            out += [ind + "LocalTensor<half> yh = yQue.AllocTensor<half>();",
                    ind + f"Cast(yh, {v}, RoundMode::CAST_NONE, {yq});  // to f16 (round to nearest even)",
                    ind + "yQue.EnQue(yh);"]
            continue
        if st == "LocalTensor<float> y = yQue.DeQue<float>();":
            st = "LocalTensor<half> y = yQue.DeQue<half>();"
        if "Gm[" in st or "GlobalTensor<float>" in st or "(__gm__ float*)" in st:
            st = st.replace("sizeof(float)", "sizeof(half)").replace("GlobalTensor<float>", "GlobalTensor<half>") \
                .replace("(__gm__ float*)", "(__gm__ half*)")
        st = st.replace("DataCopyPadExtParams<float>{false, 0, 0, 0.0f}", "DataCopyPadExtParams<half>{false, 0, 0, (half)0}")
        if st.startswith("TBuf<TPosition::VECCALC> tableBuf"):
            out.append(ind + "TBuf<TPosition::VECCALC> xfBuf, yfBuf, rBuf" +
                       (", dyfBuf;" if any("dyQue" in x for x in L) else ";"))
        out.append(ind + st)
        if rounded and (st.startswith("Add(y, y, ") or st.startswith("Div(y, y, ") or st.startswith("Div(x, x, ")):
            v, n = st[4], st[st.rindex(",") + 2:st.rindex(")")]
            out += [ind + f"Cast(rBuf.Get<half>(), {v}, RoundMode::CAST_NONE, {n});  // f16 arithmetic: round now",
                    ind + f"Cast({v}, rBuf.Get<half>(), RoundMode::CAST_NONE, {n});"]
    return out


def _const_int(v):
    op = _op(v)
    if op is None or op.name != "arith.constant":
        return None
    return ir.IntegerAttr(op.attributes["value"]).value


def plan_pool(fn: ir.Operation, kernel: str, *, soc: str, cores: int, model) -> Plan:
    kind = pool_kind(fn)
    if kind in ("avg", "avg_grad"):
        return _plan_avg(fn, kernel, kind, soc=soc, cores=cores, model=model)
    block = fn.regions[0].blocks[0]
    ops = _body(fn)
    allowed = {"arith.constant", "tensor.empty", "linalg.fill", "func.return"}
    ret = ops[-1]
    if kind == "max":
        pool = next(o for o in ops if o.name == "linalg.pooling_nchw_max")
        pv = _op(pool.operands[0])
        if pv is not None and pv.name == "tensor.pad":
            return _plan_avg(fn, kernel, "max_padded", soc=soc, cores=cores, model=model)
        xi = _arg(pool.operands[0], block, "input")
        if any(o.name not in allowed and o != pool for o in ops):
            raise Unsupported("a max pooling with other ops in its kernel")
        dh, dw = _ints(pool.attributes["dilations"])
        sh, sw = _ints(pool.attributes["strides"])
        KH, KW = ir.RankedTensorType(pool.operands[1].type).shape
        from .plan import _const_scalar
        if _const_scalar(pool.operands[2]) != -math.inf:
            raise Unsupported("a max pooling whose initial value is not -inf")
        if len(ret.operands) != 1 or ret.operands[0] != pool.results[0]:
            raise Unsupported("a max pooling kernel returning something else than the pooling")
        ins = [xi]
    elif kind == "max_grad":
        g0, g1 = [o for o in ops if o.name == "linalg.generic"]
        maps0 = [ir.AffineMapAttr(a).value for a in g0.attributes["indexing_maps"]]
        win = _window_map(maps0[0])
        if win is None:
            raise Unsupported("a max-pool gradient with a dilated or padded window")
        sh, sw = win
        KH, KW = ir.RankedTensorType(g0.operands[1].type).shape
        xsrc, pads = _pad_of(g0.operands[0], -math.inf)
        xi = _arg(xsrc, block, "input")
        if _strip_pad(g1.operands[1]) != g0.results[1]:
            raise Unsupported("a max-pool gradient of an unexpected form")
        dyi = _arg(_strip_pad(g1.operands[0]), block, "gradient")
        res = ret.operands[0] if len(ret.operands) == 1 else None
        sl = _op(res) if res is not None else None
        if sl is not None and sl.name == "tensor.extract_slice":
            offs = list(ir.DenseI64ArrayAttr(sl.attributes["static_offsets"]))
            if offs != [0, 0, pads[0], pads[2]]:
                raise Unsupported("a max-pool gradient of an unexpected form")
            res = sl.operands[0]
        if res is None or res != g1.results[0]:
            raise Unsupported("a max-pool gradient kernel returning something else")
        if any(o.name not in allowed | {"tensor.pad", "tensor.extract_slice"} and o not in (g0, g1) for o in ops):
            raise Unsupported("a max-pool gradient with other ops in its kernel")
        ins = [xi, dyi]
        dh = dw = 1
    else:
        raise Unsupported("no pooling")
    x_t = ir.RankedTensorType(block.arguments[xi].type)
    f16 = _pool_dtype([block.arguments[v] for v in ins] + [ret.operands[0]])
    N, C, H, W = x_t.shape
    if kind == "max":
        pads = [0, 0, 0, 0]
    OH = (H + pads[0] + pads[1] - dh * (KH - 1) - 1) // sh + 1
    OW = (W + pads[2] + pads[3] - dw * (KW - 1) - 1) // sw + 1
    # the general gradient: padding (a -inf slot) or overlapping / gapped windows (one inverse
    # table per candidate window of an input element, summed)
    general = kind == "max_grad" and (any(pads) or (sh, sw) != (KH, KW))
    an, bn = (-(-KH // sh), -(-KW // sw)) if general else (1, 1)
    if kind == "max_grad" and list(ir.RankedTensorType(block.arguments[ins[1]].type).shape) != [N, C, OH, OW]:
        raise Unsupported("a max-pool gradient of an unexpected form")
    planes, Wp, K = N * C, align_up(W, 16 if f16 else 8), KH * KW

    def ub(tp):
        cnt = align_up(tp * OH * OW, 64)
        inb = tp * H * Wp
        b = 2 * inb * F32 + 2 * cnt * F32 + K * cnt * 4 + 2 * cnt * F32          # x, y queues, tables, m, g
        if f16:                              # f32 images of x (and dy), y; a rounding buffer
            b += (inb + 8 + 2 * cnt + inb + max(cnt, inb) // 2 + 8) * F32
        if kind == "max_grad":
            b += 2 * cnt * F32 + (inb + 8) * 4 + 5 * cnt * F32 + K * cnt * F32 + 8 * F32 + 2 * inb * F32 + cnt // 8
            b -= 2 * cnt * F32                                                    # no y queue of outputs
            if general:                      # the -inf slot, J - 1 more inverse tables, a dx term
                b += 2 * 8 * F32 + (an * bn - 1) * inb * 4 + inb * F32
        if not general:                      # scratch of the vector-built tables
            b += 2 * cnt * F32
        return b
    plan, tiling, tp = _plane_plan(fn, kernel, block, ret, ub, planes=planes, cores=cores, soc=soc,
                                   model=model, dims=(H, W, OH, OW, KH, KW, sh, sw))
    if general:
        tiling.update({"pt": pads[0], "pl": pads[2], "an": an, "bn": bn})
    tiling.update({"dh": dh, "dw": dw})
    plan.pool = {"kind": kind, "tiling": tiling, "tiles": tiling["tileNum"], "tile": f"{tp}x{H}x{W}", "x": xi,
                 "dy": ins[1] if kind == "max_grad" else None, "general": general, "pads": pads, "f16": f16}
    _f16_shapes(plan, f16)
    return plan


def vector_tables(tab: str, tmp: str, q: str, pads_zero: bool = True) -> list[str]:
    """C++ lines building the forward Gather tables of an unpadded pooling on the
    vector unit (no scalar SetValue): with i the output element, r = floor(i / OW)
    = p * OH + oh and p = floor(r / OH), the byte offset of window position
    (kh, kw) is ((H - OH * sh) * Wp * p + (sh * Wp - OW * sw) * r + sw * i
    + kh * dh * Wp + kw * dw) * 4, all integers below 2**24 (exact in f32; Div of integers
    is correctly rounded, so its floor is the integer quotient). Lanes past the
    tile's outputs are clamped to its last element. `tmp` holds 2 * cnt floats,
    `q` cnt floats."""
    del pads_zero
    return [
        "    // the tables by the vector unit: i -> r = floor(i / OW) = p * OH + oh, p = floor(r / OH),",
        "    // byte offset ((H - OH * sh) * Wp * p + (sh * Wp - OW * sw) * r + sw * i + kh * dh * Wp + kw * dw) * 4",
        f"    LocalTensor<float> fi = {tmp}, rr = {tmp}[cnt], q = {q};",
        f"    LocalTensor<int32_t> ti = {tab}.ReinterpretCast<int32_t>();",
        "    CreateVecIndex(fi, 0.0f, cnt);",
        "    Mins(fi, fi, (float)(tilePlanes * OH * OW - 1), cnt);",
        "    Duplicate(q, (float)OW, cnt);",
        "    Div(rr, fi, q, cnt);",
        "    Floor(rr, rr, cnt);",
        "    Duplicate(q, (float)OH, cnt);",
        "    Div(q, rr, q, cnt);",
        "    Floor(q, q, cnt);",
        "    Muls(q, q, (float)(((int32_t)H - (int32_t)(OH * sh)) * (int32_t)Wp), cnt);",
        "    Muls(rr, rr, (float)((int32_t)(sh * Wp) - (int32_t)(OW * sw)), cnt);",
        "    Muls(fi, fi, (float)sw, cnt);",
        "    Add(fi, fi, rr, cnt);",
        "    Add(fi, fi, q, cnt);",
        "    Muls(fi, fi, (float)sizeof(float), cnt);",
        "    for (uint32_t k = 0; k < KWIN; ++k) {",
        "      Adds(rr, fi, (float)((k / KW * dh * Wp + k % KW * dw) * sizeof(float)), cnt);",
        "      Cast(ti[k * cnt], rr, RoundMode::CAST_RINT, cnt);",
        "    }"]


VECTOR_TABLE_OPS = 14          # vector instructions of vector_tables before the per-table pair


# The end of Init and the tile loop of both pooling kernels: a tile is
# `tilePlanes` (N*C) planes, the last one shorter.
_PROCESS_TILES = ["    BuildTables();", "  }", "",
                  "  __aicore__ inline void Process() {",
                  "    for (uint32_t t = tileBegin; t < tileEnd; ++t) {",
                  "      plane0 = t * tilePlanes;",
                  "      n = planes - plane0 < tilePlanes ? planes - plane0 : tilePlanes;",
                  "      CopyIn();", "      Compute();", "      CopyOut();", "    }", "  }", "",
                  " private:"]


def _copy_out(grad: bool) -> list[str]:
    """CopyOut of both pooling kernels: a tile's n planes to yGm (a gradient
    has the input's H x W planes, a pooling the OH x OW output planes)."""
    dst = ("yGm[plane0 * H * W], y, DataCopyExtParams{(uint16_t)(n * H), W * (uint32_t)sizeof(float), 0, 0, 0}"
           if grad else
           "yGm[plane0 * OH * OW], y, DataCopyExtParams{1, n * OH * OW * (uint32_t)sizeof(float), 0, 0, 0}")
    return ["  __aicore__ inline void CopyOut() {",
            "    LocalTensor<float> y = yQue.DeQue<float>();",
            f"    DataCopyPad({dst});",
            "    yQue.FreeTensor(y);", "  }", ""]


def pool_source(plan: Plan, bug: str = "") -> str:
    p = plan.pool
    if p["kind"] in ("avg", "avg_grad", "max_padded"):
        return avg_source(plan, bug)
    t = p["tiling"]
    op = camel(plan.kernel)
    grad = p["kind"] == "max_grad"
    gen = p.get("general", False)
    J = t.get("an", 1) * t.get("bn", 1)
    xs = [f"x{i}" for i in range(len(plan.inputs))]
    params = ", ".join(f"GM_ADDR {n}" for n in xs + ["y0"])
    K = t["KH"] * t["KW"]
    xi, dyi = p["x"], p["dy"]
    what = ("the max-pool gradient (dout routed to the first maximum of each window)" if grad
            else "a max pooling")
    gms = [f"  xGm.SetGlobalBuffer((__gm__ float*){xs[xi]}, {plan.inputs[xi][1]});".replace("  x", "    x", 1),
           f"    yGm.SetGlobalBuffer((__gm__ float*)y0, {plan.outputs[0][1]});"]
    if grad:
        gms.append(f"    dyGm.SetGlobalBuffer((__gm__ float*){xs[dyi]}, {plan.inputs[dyi][1]});")
    L = [f"// Ascend C kernel generated by msmlir (mskernel-lower-to-ascend, soc={plan.soc}) from the",
         f"// kernel function @{plan.func}: {what}, window {t['KH']}x{t['KW']}, stride {t['sh']}x{t['sw']},",
         f"// {t['planes']} planes of {t['H']}x{t['W']}, tiles of {t['tilePlanes']} planes over {t['blockDim']} cores; "
         f"window gathers by Gather tables; UB {plan.ub_bytes} bytes.",
         '#include "kernel_operator.h"', "using namespace AscendC;", "",
         "constexpr int32_t BUFFER_NUM = 2;", f"constexpr uint32_t KWIN = {K};"] + \
        ([f"constexpr uint32_t NINV = {J};  // candidate windows of an input element"] if gen else []) + ["",
         f"class Kernel{op} {{", " public:", f"  __aicore__ inline Kernel{op}() {{}}",
         f"  __aicore__ inline void Init({params}, const {op}TilingData& td) {{",
         "    planes = td.planes; H = td.H; W = td.W; OH = td.OH; OW = td.OW; KH = td.KH; KW = td.KW;",
         "    sh = td.sh; sw = td.sw; dh = td.dh; dw = td.dw; tilePlanes = td.tilePlanes; tileNum = td.tileNum;"]
    if gen:
        L += ["    pt = td.pt; pl = td.pl; an = td.an; bn = td.bn;"]
    L += ["    Wp = (W + 7) / 8 * 8;",
         "    inElems = tilePlanes * H * Wp;",
         "    cnt = (tilePlanes * OH * OW + 63) / 64 * 64;  // Compare works on 256-byte repeats",
         "    tileBegin = GetBlockIdx() * td.tilesPerCore;",
         "    tileEnd = tileBegin + td.tilesPerCore < tileNum ? tileBegin + td.tilesPerCore : tileNum;"]
    L += gms
    L += ["    pipe.InitBuffer(xQue, BUFFER_NUM, inElems * sizeof(float));" if not gen else
          "    pipe.InitBuffer(xQue, BUFFER_NUM, (inElems + 8) * sizeof(float));  // the planes, then a -inf slot",
          "    pipe.InitBuffer(tableBuf, KWIN * cnt * sizeof(uint32_t));",
          "    pipe.InitBuffer(gBuf, cnt * sizeof(float));"]
    if not gen:
        L += ["    pipe.InitBuffer(tmpBuf, 2 * cnt * sizeof(float));  // building the tables"]
    if grad:
        L += ["    pipe.InitBuffer(mBuf, cnt * sizeof(float));",
              "    pipe.InitBuffer(dyQue, BUFFER_NUM, cnt * sizeof(float));",
              "    pipe.InitBuffer(yQue, BUFFER_NUM, inElems * sizeof(float));",
              f"    pipe.InitBuffer(invBuf, {'NINV * ' if gen else ''}inElems * sizeof(uint32_t));",
              "    pipe.InitBuffer(contribBuf, (KWIN * cnt + 8) * sizeof(float));",
              "    pipe.InitBuffer(takenBuf, cnt * sizeof(float));",
              "    pipe.InitBuffer(eBuf, cnt * sizeof(float));",
              "    pipe.InitBuffer(tBuf, cnt * sizeof(float));",
              "    pipe.InitBuffer(onesBuf, cnt * sizeof(float));",
              "    pipe.InitBuffer(zerosBuf, cnt * sizeof(float));",
              "    pipe.InitBuffer(bitsBuf, cnt / 8);"] + (["    pipe.InitBuffer(dBuf, inElems * sizeof(float));"] if gen else []) + [
              "    Duplicate(onesBuf.Get<float>(), 1.0f, cnt);",
              "    Duplicate(zerosBuf.Get<float>(), 0.0f, cnt);"]
    else:
        L += ["    pipe.InitBuffer(yQue, BUFFER_NUM, cnt * sizeof(float));"]
    L += _PROCESS_TILES + [
          "  // byte offsets: table k, element (p, oh, ow) -> x[p, oh * sh + kh, ow * sw + kw] in the UB tile"]
    if gen:
        L += ["  // (padded: x[p, oh * sh + kh - pt, ow * sw + kw - pl], the -inf slot outside the planes)",
              "  __aicore__ inline void BuildTables() {",
              "    LocalTensor<uint32_t> tab = tableBuf.Get<uint32_t>();",
              "    for (uint32_t k = 0; k < KWIN; ++k) {",
              "      uint32_t kh = k / KW, kw = k % KW;",
              "      for (uint32_t i = 0; i < cnt; ++i) {",
              "        uint32_t j = i < tilePlanes * OH * OW ? i : 0;",
              "        uint32_t p = j / (OH * OW), oh = j / OW % OH, ow = j % OW;",
              "        int32_t h = (int32_t)(oh * sh + kh) - (int32_t)pt, w = (int32_t)(ow * sw + kw) - (int32_t)pl;",
              "        uint32_t src = inElems;",
              "        if (h >= 0 && w >= 0 && h < (int32_t)H && w < (int32_t)W) src = (p * H + h) * Wp + w;",
              "        tab.SetValue(k * cnt + i, src * sizeof(float));",
              "      }", "    }",
              "    // inverse table j = (a, b): dx element (p, h, w) <- contrib[k][p, oh, ow] for the candidate window",
              "    // (oh, ow) = (hp / sh - (an - 1) + a, wp / sw - (bn - 1) + b) (hp, wp: padded coordinates; k the",
              "    // element's position in it), or the zero slot; summed in the order of oh, then ow",
              "    LocalTensor<uint32_t> inv = invBuf.Get<uint32_t>();",
              "    for (uint32_t j = 0; j < NINV; ++j) {",
              "      int32_t a = (int32_t)(j / bn), b = (int32_t)(j % bn);",
              "      for (uint32_t i = 0; i < inElems; ++i) {",
              "        uint32_t p = i / (H * Wp), h = i / Wp % H, w = i % Wp;",
              "        uint32_t src = KWIN * cnt;",
              "        int32_t hp = (int32_t)(h + pt), wp = (int32_t)(w + pl);",
              "        int32_t oh = hp / (int32_t)sh - ((int32_t)an - 1) + a, ow = wp / (int32_t)sw - ((int32_t)bn - 1) + b;",
              "        int32_t kh = hp - oh * (int32_t)sh, kw = wp - ow * (int32_t)sw;",
              "        if (w < W && oh >= 0 && ow >= 0 && oh < (int32_t)OH && ow < (int32_t)OW && kh < (int32_t)KH && kw < (int32_t)KW)",
              "          src = (uint32_t)(kh * (int32_t)KW + kw) * cnt + (p * OH + oh) * OW + ow;",
              "        inv.SetValue(j * inElems + i, src * sizeof(float));",
              "      }", "    }"]
    L += [] if gen else ["  __aicore__ inline void BuildTables() {",
                         "    LocalTensor<uint32_t> tab = tableBuf.Get<uint32_t>();"] + \
        vector_tables("tab", "tmpBuf.Get<float>()", "gBuf.Get<float>()")
    if grad and not gen:
        L += ["    // dx element (p, h, w) -> contrib[k][p, h / KH, w / KW] (k = its window position), or the zero slot",
              "    LocalTensor<uint32_t> inv = invBuf.Get<uint32_t>();",
              "    for (uint32_t i = 0; i < inElems; ++i) {",
              "      uint32_t p = i / (H * Wp), h = i / Wp % H, w = i % Wp;",
              "      uint32_t src = KWIN * cnt;",
              "      if (h < OH * KH && w < OW * KW)",
              "        src = (h % KH * KW + w % KW) * cnt + (p * OH + h / KH) * OW + w / KW;",
              "      inv.SetValue(i, src * sizeof(float));", "    }"]
    L += ["    SetFlag<HardEvent::S_V>(0);   // the scalar unit's tables before the vector unit reads them",
          "    WaitFlag<HardEvent::S_V>(0);", "  }", "",
          "  __aicore__ inline void CopyIn() {",
          "    LocalTensor<float> x = xQue.AllocTensor<float>();",
          "    DataCopyPad(x, xGm[plane0 * H * W], DataCopyExtParams{(uint16_t)(n * H), W * (uint32_t)sizeof(float), 0, 0, 0},",
          "                DataCopyPadExtParams<float>{false, 0, 0, 0.0f});",
          "    xQue.EnQue(x);"]
    if grad:
        L += ["    LocalTensor<float> dy = dyQue.AllocTensor<float>();",
              "    DataCopyPad(dy, dyGm[plane0 * OH * OW], DataCopyExtParams{1, n * OH * OW * (uint32_t)sizeof(float), 0, 0, 0},",
              "                DataCopyPadExtParams<float>{false, 0, 0, 0.0f});",
              "    dyQue.EnQue(dy);"]
    L += ["  }", "",
          "  __aicore__ inline void Compute() {",
          "    LocalTensor<float> x = xQue.DeQue<float>();"] + \
        (["    Duplicate(x[inElems], -INFINITY, 8);  // the padding's slot"] if gen else []) + [
          "    LocalTensor<uint32_t> tab = tableBuf.Get<uint32_t>();",
          "    LocalTensor<float> m = " + ("mBuf.Get<float>();" if grad else "yQue.AllocTensor<float>();  // the outputs"),
          "    LocalTensor<float> g = gBuf.Get<float>();",
          "    // the window maximum: one Gather and one Max per window position",
          "    Gather(m, x, tab, 0, cnt);",
          "    for (uint32_t k = 1; k < KWIN; ++k) {",
          "      Gather(g, x, tab[k * cnt], 0, cnt);",
          "      Max(m, m, g, cnt);",
          "    }"]
    if grad:
        L += ["    LocalTensor<float> dy = dyQue.DeQue<float>();",
              "    LocalTensor<float> c = contribBuf.Get<float>();",
              "    LocalTensor<float> taken = takenBuf.Get<float>();",
              "    LocalTensor<float> e = eBuf.Get<float>();",
              "    LocalTensor<float> tmp = tBuf.Get<float>();",
              "    LocalTensor<uint8_t> bits = bitsBuf.Get<uint8_t>();",
              "    Duplicate(taken, 0.0f, cnt);",
              "    Duplicate(c[KWIN * cnt], 0.0f, 8);  // the zero slot",
              "    // dout goes to the first window position holding the maximum",
              "    for (uint32_t k = 0; k < KWIN; ++k) {",
              "      Gather(g, x, tab[k * cnt], 0, cnt);",
              "      Compare(bits, g, m, CMPMODE::EQ, cnt);",
              "      Select(e, bits, onesBuf.Get<float>(), zerosBuf.Get<float>(), SELMODE::VSEL_TENSOR_TENSOR_MODE, cnt);",
              "      Mul(tmp, e, taken, cnt);",
              "      Sub(e, e, tmp, cnt);",
              "      Add(taken, taken, e, cnt);",
              "      Compare(bits, e, zerosBuf.Get<float>(), CMPMODE::NE, cnt);  // a Select, not dy * e:",
              "      Select(c[k * cnt], bits, dy, zerosBuf.Get<float>(), SELMODE::VSEL_TENSOR_TENSOR_MODE, cnt);  // NaN stays put",
              "    }",
              "    LocalTensor<float> y = yQue.AllocTensor<float>();",
              "    Gather(y, c, invBuf.Get<uint32_t>(), 0, inElems);"] + \
             (["    for (uint32_t j = 1; j < NINV; ++j) {  // the other candidate windows",
               "      Gather(dBuf.Get<float>(), c, invBuf.Get<uint32_t>()[j * inElems], 0, inElems);",
               "      Add(y, y, dBuf.Get<float>(), inElems);",
               "    }"] if gen else []) + [
              "    yQue.EnQue(y);",
              "    dyQue.FreeTensor(dy);"]
    else:
        L += ["    yQue.EnQue(m);"]
    L += ["    xQue.FreeTensor(x);", "  }", ""] + _copy_out(grad) + [
          "  TPipe pipe;",
          "  TQue<QuePosition::VECIN, BUFFER_NUM> xQue;" + (" TQue<QuePosition::VECIN, BUFFER_NUM> dyQue;" if grad else ""),
          "  TQue<QuePosition::VECOUT, BUFFER_NUM> yQue;",
          "  TBuf<TPosition::VECCALC> tableBuf, gBuf" + ("" if gen else ", tmpBuf") +
          (", mBuf, invBuf, contribBuf, takenBuf, eBuf, tBuf, onesBuf, zerosBuf, bitsBuf" +
           (", dBuf;" if gen else ";") if grad else ";"),
          "  GlobalTensor<float> xGm, yGm" + (", dyGm;" if grad else ";"),
          "  uint32_t planes, H, W, OH, OW, KH, KW, sh, sw, tilePlanes, tileNum, Wp, inElems, cnt, tileBegin, tileEnd, plane0, n;",
          "  uint32_t dh, dw;"]
    L += ["  uint32_t pt, pl, an, bn;"] if gen else []
    L += [
          "};", "",
          f'extern "C" __global__ __aicore__ void {plan.kernel}({params}, GM_ADDR workspace, GM_ADDR tiling) {{',
          "  GET_TILING_DATA(tilingData, tiling);",
          f"  Kernel{op} op;",
          f"  op.Init({', '.join(xs + ['y0'])}, tilingData);",
          "  op.Process();", "}"]
    if p.get("f16"):
        L = _f16_lines(L, xq="inElems", yq="inElems" if grad else "cnt", rounded=gen)
    return "\n".join(L) + "\n"


def avg_source(plan: Plan, bug: str = "") -> str:
    """Average pooling / its gradient (see _plan_avg)."""
    from .plan import f32_literal
    p = plan.pool
    t = p["tiling"]
    op = camel(plan.kernel)
    grad = p["kind"] == "avg_grad"
    div = p["div"]
    K, J = t["KH"] * t["KW"], t["an"] * t["bn"]
    xs = [f"x{i}" for i in range(len(plan.inputs))]
    params = ", ".join(f"GM_ADDR {n}" for n in xs + ["y0"])
    pads = p["pads"]
    mx = p["kind"] == "max_padded"
    what = (f"the average-pool gradient (dout / count summed over the {J} candidate windows of each element)"
            if grad else "a padded max pooling" if mx else "an average pooling")
    fill = "-INFINITY" if mx else "0.0f"
    L = [f"// Ascend C kernel generated by msmlir (mskernel-lower-to-ascend, soc={plan.soc}) from the",
         f"// kernel function @{plan.func}: {what}, window {t['KH']}x{t['KW']}, stride {t['sh']}x{t['sw']}, "
         f"padding {pads} (a {'-inf' if mx else 'zero'} slot),",
         f"// {t['planes']} planes of {t['H']}x{t['W']}, tiles of {t['tilePlanes']} planes over {t['blockDim']} cores; "
         f"Gather tables; UB {plan.ub_bytes} bytes.",
         '#include "kernel_operator.h"', "using namespace AscendC;", "",
         "constexpr int32_t BUFFER_NUM = 2;", f"constexpr uint32_t NTAB = {J if grad else K};"]
    if isinstance(div, tuple):
        L += [f"static const float kCountH[{len(div[0])}] = {{{', '.join(f32_literal(x) for x in div[0])}}};",
              f"static const float kCountW[{len(div[1])}] = {{{', '.join(f32_literal(x) for x in div[1])}}};"]
    L += ["", f"class Kernel{op} {{", " public:", f"  __aicore__ inline Kernel{op}() {{}}",
          f"  __aicore__ inline void Init({params}, const {op}TilingData& td) {{",
          "    planes = td.planes; H = td.H; W = td.W; OH = td.OH; OW = td.OW; KH = td.KH; KW = td.KW;",
          "    sh = td.sh; sw = td.sw; dh = td.dh; dw = td.dw; pt = td.pt; pl = td.pl; an = td.an; bn = td.bn;",
          "    tilePlanes = td.tilePlanes; tileNum = td.tileNum;",
          "    Wp = (W + 7) / 8 * 8;",
          "    inElems = tilePlanes * H * Wp;",
          "    cnt = (tilePlanes * OH * OW + 63) / 64 * 64;",
          "    tileBegin = GetBlockIdx() * td.tilesPerCore;",
          "    tileEnd = tileBegin + td.tilesPerCore < tileNum ? tileBegin + td.tilesPerCore : tileNum;",
          f"    xGm.SetGlobalBuffer((__gm__ float*){xs[p['x']]}, {plan.inputs[p['x']][1]});",
          f"    yGm.SetGlobalBuffer((__gm__ float*)y0, {plan.outputs[0][1]});"]
    if grad:
        L += ["    pipe.InitBuffer(xQue, BUFFER_NUM, (cnt + 8) * sizeof(float));   // dout / count, then a zero slot",
              "    pipe.InitBuffer(yQue, BUFFER_NUM, inElems * sizeof(float));",
              "    pipe.InitBuffer(tableBuf, NTAB * inElems * sizeof(uint32_t));",
              "    pipe.InitBuffer(gBuf, inElems * sizeof(float));"]
    else:
        L += ["    pipe.InitBuffer(xQue, BUFFER_NUM, (inElems + 8) * sizeof(float));  // the planes, then a zero slot",
              "    pipe.InitBuffer(yQue, BUFFER_NUM, cnt * sizeof(float));",
              "    pipe.InitBuffer(tableBuf, NTAB * cnt * sizeof(uint32_t));",
              "    pipe.InitBuffer(gBuf, cnt * sizeof(float));"]
    if not mx:
        L += ["    pipe.InitBuffer(divBuf, cnt * sizeof(float));"]
    vt = not grad and not any(pads)          # forward tables built by the vector unit
    if vt:
        L += ["    pipe.InitBuffer(tmpBuf, 2 * cnt * sizeof(float));  // building the tables"]
    L += _PROCESS_TILES + [
          "  __aicore__ inline void BuildTables() {",
          "    LocalTensor<uint32_t> tab = tableBuf.Get<uint32_t>();"]
    if grad:
        L += ["    // table j = (a, b): dx element (p, h, w) <- s[p, oh, ow] for the window (oh, ow) = (hp / sh - (an - 1) + a,",
              "    // wp / sw - (bn - 1) + b) (hp, wp: padded coordinates) when it holds the element, else the zero slot",
              "    // (summed in the order of oh, then ow)",
              "    for (uint32_t j = 0; j < NTAB; ++j) {",
              "      uint32_t a = j / bn, b = j % bn;",
              "      for (uint32_t i = 0; i < inElems; ++i) {",
              "        uint32_t p = i / (H * Wp), h = i / Wp % H, w = i % Wp;",
              "        uint32_t src = cnt;",
              "        int32_t hp = (int32_t)(h + pt), wp = (int32_t)(w + pl);",
              "        int32_t oh = hp / (int32_t)sh - ((int32_t)an - 1 - (int32_t)a), ow = wp / (int32_t)sw - ((int32_t)bn - 1 - (int32_t)b);",
              "        if (w < W && oh >= 0 && ow >= 0 && oh < (int32_t)OH && ow < (int32_t)OW &&",
              "            hp - oh * (int32_t)sh < (int32_t)KH && wp - ow * (int32_t)sw < (int32_t)KW)",
              "          src = (p * OH + oh) * OW + ow;",
              "        tab.SetValue(j * inElems + i, src * sizeof(float));",
              "      }", "    }"]
    elif not any(pads):
        L += ["    constexpr uint32_t KWIN = NTAB;"] + vector_tables("tab", "tmpBuf.Get<float>()", "gBuf.Get<float>()")
    else:
        L += ["    // table k = (kh, kw): output (p, oh, ow) <- x[p, oh * sh + kh * dh - pt, ow * sw + kw * dw - pl], or the zero slot",
              "    for (uint32_t k = 0; k < NTAB; ++k) {",
              "      uint32_t kh = k / KW, kw = k % KW;",
              "      for (uint32_t i = 0; i < cnt; ++i) {",
              "        uint32_t j = i < tilePlanes * OH * OW ? i : 0;",
              "        uint32_t p = j / (OH * OW), oh = j / OW % OH, ow = j % OW;",
              "        int32_t h = (int32_t)(oh * sh + kh * dh) - (int32_t)pt, w = (int32_t)(ow * sw + kw * dw) - (int32_t)pl;",
              "        uint32_t src = inElems;",
              "        if (h >= 0 && w >= 0 && h < (int32_t)H && w < (int32_t)W) src = (p * H + h) * Wp + w;",
              "        tab.SetValue(k * cnt + i, src * sizeof(float));",
              "      }", "    }"]
    if isinstance(div, tuple):
        L += ["    // the per-window counts (windows partly in the padding count their real elements)",
              "    LocalTensor<float> dv = divBuf.Get<float>();",
              "    for (uint32_t i = 0; i < cnt; ++i) {",
              "      uint32_t j = i < tilePlanes * OH * OW ? i : 0;",
              "      dv.SetValue(i, kCountH[j / OW % OH] * kCountW[j % OW]);",
              "    }",
              "    SetFlag<HardEvent::S_V>(0);", "    WaitFlag<HardEvent::S_V>(0);", "  }", ""]
    else:
        L += ["    SetFlag<HardEvent::S_V>(0);   // the scalar unit's tables before the vector unit reads them",
              "    WaitFlag<HardEvent::S_V>(0);"]
        L += [] if mx else [f"    Duplicate(divBuf.Get<float>(), {f32_literal(div)}, cnt);"]
        L += ["  }", ""]
    L += ["  __aicore__ inline void CopyIn() {",
          "    LocalTensor<float> x = xQue.AllocTensor<float>();"]
    if grad:
        L += ["    DataCopyPad(x, xGm[plane0 * OH * OW], DataCopyExtParams{1, n * OH * OW * (uint32_t)sizeof(float), 0, 0, 0},",
              "                DataCopyPadExtParams<float>{false, 0, 0, 0.0f});"]
    else:
        L += ["    DataCopyPad(x, xGm[plane0 * H * W], DataCopyExtParams{(uint16_t)(n * H), W * (uint32_t)sizeof(float), 0, 0, 0},",
              "                DataCopyPadExtParams<float>{false, 0, 0, 0.0f});"]
    L += ["    xQue.EnQue(x);", "  }", "",
          "  __aicore__ inline void Compute() {",
          "    LocalTensor<float> x = xQue.DeQue<float>();",
          "    LocalTensor<uint32_t> tab = tableBuf.Get<uint32_t>();",
          "    LocalTensor<float> g = gBuf.Get<float>();",
          "    LocalTensor<float> y = yQue.AllocTensor<float>();"]
    if grad:
        L += ["    Div(x, x, divBuf.Get<float>(), cnt);         // s = dout / count",
              "    Duplicate(x[cnt], 0.0f, 8);                  // the zero slot",
              "    Gather(y, x, tab, 0, inElems);",
              "    for (uint32_t j = 1; j < NTAB; ++j) {",
              "      Gather(g, x, tab[j * inElems], 0, inElems);",
              "      Add(y, y, g, inElems);",
              "    }"]
    else:
        comb = "Max" if mx else "Add"
        L += [f"    Duplicate(x[inElems], {fill}, 8);" + ("         // the padding's slot" if mx else "              // the zero slot (padding)"),
              f"    // the window {'maximum' if mx else 'sum'}: one Gather and one {comb} per window position"
              + ("" if mx else ", then / count"),
              "    Gather(y, x, tab, 0, cnt);",
              "    for (uint32_t k = 1; k < NTAB; ++k) {",
              "      Gather(g, x, tab[k * cnt], 0, cnt);",
              f"      {comb}(y, y, g, cnt);",
              "    }"]
        L += [] if mx else ["    Div(y, y, divBuf.Get<float>(), cnt);"]
    L += ["    yQue.EnQue(y);", "    xQue.FreeTensor(x);", "  }", ""] + _copy_out(grad) + [
          "  TPipe pipe;",
          "  TQue<QuePosition::VECIN, BUFFER_NUM> xQue;",
          "  TQue<QuePosition::VECOUT, BUFFER_NUM> yQue;",
          "  TBuf<TPosition::VECCALC> tableBuf, gBuf" + (", tmpBuf" if vt else "") + (";" if mx else ", divBuf;"),
          "  GlobalTensor<float> xGm, yGm;",
          "  uint32_t planes, H, W, OH, OW, KH, KW, sh, sw, dh, dw, pt, pl, an, bn, tilePlanes, tileNum, Wp, inElems, cnt;",
          "  uint32_t tileBegin, tileEnd, plane0, n;",
          "};", "",
          f'extern "C" __global__ __aicore__ void {plan.kernel}({params}, GM_ADDR workspace, GM_ADDR tiling) {{',
          "  GET_TILING_DATA(tilingData, tiling);",
          f"  Kernel{op} op;",
          f"  op.Init({', '.join(xs + ['y0'])}, tilingData);",
          "  op.Process();", "}"]
    if p.get("f16"):
        L = _f16_lines(L, xq="cnt" if grad else "inElems", yq="inElems" if grad else "cnt", rounded=not mx)
    return "\n".join(L) + "\n"
