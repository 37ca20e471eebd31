"""Vector kernels: the linalg bodies of a planned kernel (plan.py) as Ascend C
vector instructions on UB tiles, UB slots by liveness, tile sizes from the UB
budget (no pass). The instructions are stmt.py records (one Ascend C call
each: api, operands, count), which to_ascendc.py turns into `ascendc` ops.

Each scalar op of a linalg.generic body becomes one level-2 vector
instruction over the tile (`Add(dst, a, b, count)`, `Exp(dst, src, count)`,
`Adds(dst, src, scalar, count)` ...). Broadcast operands are applied per row
(`Adds(dst[r * pitch], a[r * pitch], rowValue, n)` for a row value,
`Mul(dst[r * pitch], a[r * pitch], col, n)` for a column vector) or
materialised with `Duplicate` where the scalar form would not be exact
(division). A last-axis reduction is `ReduceSum/ReduceMax/ReduceMin` per row
of `cols` elements (exact count: the padding of a row is never reduced), its
result moved to the row buffer with GetValue/SetValue (V->S->V sync flags).

i1 values are f32 0/1 masks in UB: compares are Compare + Select (IEEE's
predicates: `one` is LT or GT, the unordered ones the inverted ordered
opposite, so NaN compares as on the CPU), and / or / xor are Mul / Max /
|Sub|. Compares and selects of row values (one per row: a reduction's
results, the loss scale's "all finite") run on the scalar unit, a loop over
the tile's rows; an i1 row result is written as one byte per row, an i1 or
i32 scalar argument read once in Init. Column mode takes f16 inputs (half
rows in the queue, Cast to f32 per row) and f16 column results (Cast in
Finish): AMP's bias gradients and split-K's f16 sums.
"""
from __future__ import annotations

import math

from mlir import ir

from . import stmt as S
from .plan import (F32, LANES, Plan, Tiling, Unsupported, Value, _BINARY, _COMBINERS, _SCALAR_FORM,
                   _UNARY, _norm_shape, align_up, f32_literal, is_bool, is_f16, is_i32, kind_of)


class _Slots:
    """TBuf slots of one class ('F' full tiles, 'R' row buffers), reused by liveness."""
    def __init__(self, cls: str):
        self.cls, self.free, self.count = cls, [], 0

    def get(self) -> str:
        if self.free:
            return self.free.pop()
        self.count += 1
        return f"t{self.cls}{self.count - 1}"

    def put(self, name: str):
        if name not in self.free:
            self.free.append(name)


def _root(aliases: dict, v: ir.Value) -> ir.Value:
    while v in aliases:
        v = aliases[v]
    return v


def build(p) -> Plan:
    fn, block = p.fn, p.block
    ops = [op.operation for op in block.operations]
    aliases: dict = {}
    for op in ops:
        if op.name in ("tensor.expand_shape", "tensor.collapse_shape"):
            if p.generics and _norm_shape(op.operands[0].type) != _norm_shape(op.results[0].type):
                raise Unsupported(f"reshape {op.operands[0].type} -> {op.results[0].type} that moves data")
            aliases[op.results[0]] = op.operands[0]
    ret = ops[-1]
    last_use: dict = {}
    for i, op in enumerate(ops):
        for v in op.operands:
            last_use[_root(aliases, v)] = math.inf if op.name == "func.return" else i
    returned = {}
    for k, v in enumerate(ret.operands):
        r = _root(aliases, v)
        if r in returned.values():
            raise Unsupported("the same value returned twice")
        returned[k] = r

    # roles of the arguments from their accesses (an argument only returned: full)
    arg_roles: dict = {r: "full" for r in returned.values()
                       if isinstance(r.owner, ir.Block) and r.owner == block}
    ginfo = iter(p.generics)
    for op, dom, its, acc in p.generics:
        for v, dims in zip(list(op.operands)[:len(op.operands) - len(op.results)], acc):
            r = _root(aliases, v)
            if isinstance(r.owner, ir.Block) and r.owner == block:
                role = p.role_of_access(dims, len(dom))
                prev = arg_roles.get(r)
                if prev is not None and prev != role:
                    raise Unsupported(f"argument {ir.BlockArgument(r).arg_number} read both as {prev} and as {role}")
                arg_roles[r] = role
    inputs, scalars, cols = [], [], []
    for a in block.arguments:
        role = arg_roles.get(a)
        numel = math.prod(ir.RankedTensorType(a.type).shape)
        _norm_shape(a.type)
        if role is None:
            inputs.append((None, numel))
            continue
        kind = "scalar_in" if role == "scalar" else "input"
        v = Value(f"in{a.arg_number}", role, kind, index=a.arg_number)
        if is_bool(a.type):
            if role not in ("full", "scalar"):
                raise Unsupported(f"an i1 argument read as {role} (only elementwise or scalar i1 tensors are emitted)")
            v.dtype = "u8"
        if is_i32(a.type):
            if role not in ("full", "row", "scalar"):
                raise Unsupported(f"an i32 argument read as {role}")
            v.dtype = "i32"
        if is_f16(a.type):
            if role not in ("full", "row", "scalar"):
                raise Unsupported(f"an f16 argument read as {role}")
            v.dtype = "f16"
        if role == "scalar":
            v.name = f"s{a.arg_number}"
            scalars.append((v.name, a.arg_number))
        elif role == "col":
            v.name = f"col{a.arg_number}"
            cols.append((v, a.arg_number))
        p.values[a] = v
        inputs.append((v, numel))

    pools = {"F": _Slots("F"), "R": _Slots("R"), "C": _Slots("C")}
    F, Rs = pools["F"], pools["R"]
    stmts: list[str] = []          # per tile (row mode) / per row tile (col mode)
    chunk_init: list[str] = []     # col mode: at the start of a column chunk
    finish: list[str] = []         # col mode: after the rows of a column chunk
    vec_ops: list = []
    col_consts: list = []
    outputs: dict = {}
    state = {"scalar_ops": 0, "tmp": 0, "cur": stmts, "seen_col": False, "masks": False, "halves": False}
    col_mode = p.mode == "col"

    def out(text):
        state["cur"].append(text)

    def owns(v: Value) -> bool:
        return v.kind == "temp" or (v.kind == "input" and v.dtype in ("u8", "i32", "f16"))

    def u8_cast_in(src, dst):
        return S.rows(S.vec("Cast", "hbuf[r * pitchH]", f"{src}[r * pitch8]", "RoundMode::CAST_NONE", "colsAl"),
                      S.vec("Cast", f"{dst}[r * pitch]", "hbuf[r * pitchH]", "RoundMode::CAST_NONE", "colsAl"))

    def u8_cast_out(src, dst):
        return S.rows(S.vec("Cast", "hbuf[r * pitchH]", f"{src}[r * pitch]", "RoundMode::CAST_NONE", "colsAl"),
                      S.vec("Cast", f"{dst}[r * pitch8]", "hbuf[r * pitchH]", "RoundMode::CAST_ROUND", "colsAl"))

    def cnt(cls):
        return {"F": "cntF", "R": "cntR", "C": "colsAl"}[cls]

    def mask_op(kind, a, b, dst, cls, mode=None, c=None):
        """cmpf -> f32 0/1 mask (Compare + Select of ones/zeros); select(c, a, b)
        with c an f32 mask -> Compare(c != 0) + Select. Counts rounded up to 64
        elements (Compare works on 256-byte repeats; tiles are padded)."""
        if cls != "F":
            raise Unsupported("a comparison or select outside full tiles")
        state["masks"] = True
        temps = []
        if kind == "cmp":
            xa, ta = materialize(a, cls)
            xb, tb = materialize(b, cls)
            modes, inverted = ((mode,), False) if isinstance(mode, str) else mode
            yes, no = ("zeros", "ones") if inverted else ("ones", "zeros")
            if len(modes) == 2:             # one / ueq: LT or GT (false on NaN lanes), then inverted or not
                t = slot_for(cls)
                vec("Compare", cls, "bits", xa, xb, f"CMPMODE::{modes[0]}", "cnt64")
                vec("Select", cls, t, "bits", yes, no, "SELMODE::VSEL_TENSOR_TENSOR_MODE", "cnt64")
                no = t
                temps.append(t)
            vec("Compare", cls, "bits", xa, xb, f"CMPMODE::{modes[-1]}", "cnt64")
            vec("Select", cls, dst, "bits", yes, no, "SELMODE::VSEL_TENSOR_TENSOR_MODE", "cnt64")
            temps += [x for x, t in ((xa, ta), (xb, tb)) if t]
        else:
            xc, tc = materialize(c, cls)
            vec("Compare", cls, "bits", xc, "zeros", "CMPMODE::NE", "cnt64")
            xa, ta = materialize(a, cls)
            xb, tb = materialize(b, cls)
            vec("Select", cls, dst, "bits", xa, xb, "SELMODE::VSEL_TENSOR_TENSOR_MODE", "cnt64")
            temps += [x for x, t in ((xc, tc), (xa, ta), (xb, tb)) if t]
        for t in temps:
            release(t)
        return ("tile", dst)

    def row_scalar(expr, operands, dst, select=False):
        """A compare (a 0/1 mask) or a select on row values (one per row: a
        reduction's results) by the scalar unit: a loop over the tile's rows."""
        for o in operands:
            if o[0] not in ("tile", "scalar"):
                raise Unsupported("a row-level comparison of a broadcast value")
        vals = [f"{o[1]}.GetValue(r)" if o[0] == "tile" else f"({o[1]})" for o in operands]
        val = expr(*vals) if select else f"({expr(*vals)}) ? 1.0f : 0.0f"
        out(S.sync("V_S"))
        out(S.rows(S.scalar(f"{dst}.SetValue(r, {val});")))
        out(S.sync("S_V"))
        state["scalar_ops"] += 2
        return ("tile", dst)

    def vec(api, cls, *args):
        out(S.vec(api, *args))
        vec_ops.append((api, cls))

    for v, _ in inputs:
        if v is not None and v.dtype == "u8" and v.role == "full":
            if col_mode:
                raise Unsupported("i1 tensors in a kernel reducing over the first axes")
            v.slot = pools["F"].get()
            out(S.note(f"i1 argument {v.index}: uint8 0/1 -> f32 mask"))
            out(u8_cast_in(v.name, v.slot))
            vec_ops.append(("Cast", "row*"))
            vec_ops.append(("Cast", "row*"))
            state["masks"] = True
        if v is not None and v.dtype == "i32" and v.role in ("full", "row"):
            cls = "F" if v.role == "full" else "R"
            if col_mode:
                raise Unsupported("i32 tensors in a kernel reducing over the first axes")
            v.slot = pools[cls].get()
            out(S.note(f"i32 argument {v.index}: int32 -> f32"))
            vec("Cast", cls, v.slot, v.name, "RoundMode::CAST_NONE", cnt(cls))
        if v is not None and v.dtype == "f16" and v.role in ("full", "row"):
            if col_mode and v.role != "full":
                raise Unsupported("an f16 row value in a kernel reducing over the first axes")
            cls = "F" if v.role == "full" else "R"
            v.slot = pools[cls].get()
            state["halves"] = True
            out(S.note(f"f16 argument {v.index}: half -> f32 (exact)"))
            if cls == "F":
                out(S.rows(S.vec("Cast", f"{v.slot}[r * pitch]", f"{v.name}[r * pitchH]", "RoundMode::CAST_NONE",
                                 "colsAl")))
                vec_ops.append(("Cast", "row*"))
            else:
                vec("Cast", cls, v.slot, v.name, "RoundMode::CAST_NONE", "cntR")

    def round_half(src, dst, cls):
        """dst = src rounded to f16 (an f16 op computed in f32: Cast to half and back)."""
        state["halves"] = True
        vec("Cast", cls, "rnd", src, "RoundMode::CAST_RINT", cnt(cls))
        vec("Cast", cls, dst, "rnd", "RoundMode::CAST_NONE", cnt(cls))

    def slot_for(cls: str):
        return pools[cls].get()

    def release(name: str):
        pools[name[1]].put(name)

    def materialize(d, cls):
        """A tile holding operand descriptor d (kind, expr) in class cls; returns (name, temp?)."""
        kind, e = d
        if kind == "tile":
            return e, False
        t = slot_for(cls)
        if kind == "scalar":
            vec("Duplicate", cls, t, e, cnt(cls))
        elif kind == "rowb":
            out(S.rows(S.scalar(f"float v = {e}.GetValue(r);"), S.vec("Duplicate", f"{t}[r * pitch]", "v", "colsAl")))
            vec_ops.append(("Duplicate", "row*"))
            state["scalar_ops"] += 1
        elif kind == "colb":
            out(S.rows(S.copy(f"{t}[r * pitch]", e, "colsAl")))
            vec_ops.append(("DataCopy(UB)", "row*"))
        return t, True

    def binary(api, a, b, dst, cls):
        ka, kb = a[0], b[0]
        temps = []
        if ka == "scalar" and kb == "scalar":
            fname = {"Add": "({} + {})", "Sub": "({} - {})", "Mul": "({} * {})", "Div": "({} / {})",
                     "Max": "fmaxf({}, {})", "Min": "fminf({}, {})"}[api]
            return ("scalar", fname.format(a[1], b[1]))
        if ka == "tile" and kb == "scalar" and (api in _SCALAR_FORM or api == "Sub"):
            s = b[1] if api != "Sub" else f"(-{b[1]})"
            vec(_SCALAR_FORM.get(api, "Adds"), cls, dst, a[1], s, cnt(cls))
            return ("tile", dst)
        if kb == "tile" and ka == "scalar" and api in _SCALAR_FORM:
            vec(_SCALAR_FORM[api], cls, dst, b[1], a[1], cnt(cls))
            return ("tile", dst)
        if kb == "tile" and ka == "scalar" and api == "Sub":       # s - x = (-x) + s, exact
            vec("Muls", cls, dst, b[1], "-1.0f", cnt(cls))
            vec("Adds", cls, dst, dst, a[1], cnt(cls))
            return ("tile", dst)
        if cls == "F" and {ka, kb} == {"tile", "rowb"} and (api in _SCALAR_FORM or (api == "Sub" and kb == "rowb")):
            t, r = (a[1], b[1]) if ka == "tile" else (b[1], a[1])
            neg = "-" if api == "Sub" else ""
            sf = _SCALAR_FORM.get(api, "Adds")
            out(S.rows(S.scalar(f"float v = {neg}{r}.GetValue(r);"),
                       S.vec(sf, f"{dst}[r * pitch]", f"{t}[r * pitch]", "v", "colsAl")))
            vec_ops.append((sf, "row*"))
            state["scalar_ops"] += 1
            return ("tile", dst)
        if cls == "F" and {ka, kb} == {"tile", "colb"}:
            x = f"{a[1]}[r * pitch]" if ka == "tile" else a[1]
            y = f"{b[1]}[r * pitch]" if kb == "tile" else b[1]
            out(S.rows(S.vec(api, f"{dst}[r * pitch]", x, y, "colsAl")))
            vec_ops.append((api, "row*"))
            return ("tile", dst)
        xa, ta = materialize(a, cls)
        xb, tb = materialize(b, cls)
        vec(api, cls, dst, xa, xb, cnt(cls))
        for t, is_t in ((xa, ta), (xb, tb)):
            if is_t:
                temps.append(t)
        for t in temps:
            release(t)
        return ("tile", dst)

    def unary(api, a, dst, cls):
        if a[0] == "scalar":
            f = {"Exp": "expf", "Ln": "logf", "Abs": "fabsf", "Sqrt": "sqrtf", "Tanh": "tanhf", "Erf": "erff",
                 "Log1p": "log1pf", "Sin": "sinf", "Cos": "cosf", "Floor": "floorf", "Ceil": "ceilf"}.get(api)
            if f:
                return ("scalar", f"{f}({a[1]})")
            if api == "Rsqrt":
                return ("scalar", f"(1.0f / sqrtf({a[1]}))")
        x, t = materialize(a, cls)
        vec(api, cls, dst, x, cnt(cls))
        if t:
            release(x)
        return ("tile", dst)

    def descriptor(v: Value, cls):
        if v.role == "scalar":
            return ("scalar", f32_literal(v.const) if v.kind == "const" else v.name)
        if cls == "C":
            if v.role == "col":
                return ("tile", v.slot or v.name)
            raise Unsupported(f"a {v.role} value in a column-level computation")
        if cls == "F" and col_mode and v.role == "col" and v.kind != "input":
            raise Unsupported("a full-tile value that depends on a reduction over the first axes "
                              "(needs a second pass over the rows)")
        if cls == "F":
            return {"full": ("tile", v.slot or v.name), "row": ("rowb", v.slot or v.name),
                    "col": ("colb", v.slot or v.name)}[v.role]
        if v.role == "row":
            return ("tile", v.slot or v.name)
        raise Unsupported(f"a {v.role} value in a row-level computation")

    def eval_body(op, cls, body_ops, arg_desc, final_dst, allow_inplace, round_last=True):
        """Emits body_ops (scalar ops of a generic body); returns the descriptor of the last."""
        env = dict(arg_desc)
        temps = []
        last = None
        for j, bop in enumerate(body_ops):
            is_last = j == len(body_ops) - 1
            dst = final_dst if is_last else None
            if dst is None:
                dst = slot_for(cls)
                temps.append(dst)
            operands = []
            for x in bop.operands:
                if x in env:
                    operands.append(env[x])
                else:
                    c = _const_of(x)
                    if c is None:
                        c = _i1_const(x)
                    if c is None:
                        raise Unsupported(f"operand of '{bop.name}' defined outside the body")
                    operands.append(("scalar", f32_literal(c)))
            if bop.name in _MASK_LOGIC and _is_i1(bop.results[0].type):
                # i1 values are f32 0/1 masks: and = a * b, or = max(a, b), xor = |a - b| (all exact)
                api = _MASK_LOGIC[bop.name]
                res = binary(api, operands[0], operands[1], dst, cls)
                if bop.name == "arith.xori":
                    res = unary("Abs", res, dst, cls) if res[0] == "tile" else ("scalar", f"fabsf({res[1]})")
            elif bop.name in _BINARY:
                res = binary(_BINARY[bop.name], operands[0], operands[1], dst, cls)
            elif bop.name in _UNARY:
                res = unary(_UNARY[bop.name], operands[0], dst, cls)
            elif bop.name == "arith.negf":
                res = binary("Mul", operands[0], ("scalar", "-1.0f"), dst, cls)
            elif bop.name == "arith.cmpf":
                pred = ir.IntegerAttr(bop.attributes["predicate"]).value
                mode = _CMP.get(pred)
                if pred in (7, 14) and bop.operands[0] == bop.operands[1]:
                    mode = (("EQ",), pred == 14)      # ord / uno of one value: x == x is false on NaN only
                if cls == "R":
                    from .scalar import _CMPF
                    res = row_scalar(lambda a, b: _CMPF[pred].format(a=a, b=b), operands, dst)
                elif mode is None:
                    raise Unsupported(f"arith.cmpf predicate {pred}")
                else:
                    res = mask_op("cmp", operands[0], operands[1], dst, cls, mode=mode)
            elif bop.name == "arith.cmpi":
                pred = ir.IntegerAttr(bop.attributes["predicate"]).value
                mode = _CMPI.get(pred)
                if mode is None:
                    raise Unsupported(f"arith.cmpi predicate {pred}")
                res = mask_op("cmp", operands[0], operands[1], dst, cls, mode=mode)
            elif bop.name == "arith.sitofp" and isinstance(bop.operands[0].type, ir.IntegerType) \
                    and ir.IntegerType(bop.operands[0].type).width == 32:
                res = operands[0]                      # i32 values are f32 in UB already
            elif bop.name == "arith.select" and cls == "R":
                res = row_scalar(lambda c, a, b: f"({c} != 0.0f) ? ({a}) : ({b})", operands, dst, select=True)
            elif bop.name == "arith.select":
                res = mask_op("sel", operands[1], operands[2], dst, cls, c=operands[0])
            elif bop.name == "arith.uitofp" and is_bool_scalar(bop.operands[0].type):
                res = operands[0]                      # the f32 mask is already 0.0 / 1.0
            elif bop.name == "arith.constant":
                res = ("scalar", f32_literal(_const_of(bop.results[0])))
            elif bop.name in ("arith.extf", "arith.truncf") and \
                    {str(bop.operands[0].type), str(bop.results[0].type)} == {"f16", "f32"}:
                res = operands[0]                      # values are f32 in UB; truncf rounds below
            else:
                raise Unsupported(f"'{bop.name}' in a linalg body (no Ascend C vector instruction emitted for it)")
            if isinstance(bop.results[0].type, ir.F16Type) and bop.name not in _F16_EXACT and \
                    (round_last or not is_last):
                if res[0] == "scalar":
                    res = ("scalar", f"(float)(half)({res[1]})")
                else:
                    if res[0] != "tile":
                        res = ("tile", materialize(res, cls)[0])
                        temps.append(res[1])
                    round_half(res[1], dst, cls)
                    res = ("tile", dst)
            env[bop.results[0]] = res
            last = res
        for t in temps:
            if last is None or last[1] != t:
                release(t)
        return last

    for i, op in enumerate(ops):
        if op.name != "linalg.generic":
            continue
        _, dom, its, acc = next(ginfo)
        cls = "F" if len(dom) == p.n else ("C" if col_mode else "R")
        n_in = len(op.operands) - len(op.results)
        if len(op.results) != 1:
            raise Unsupported("a linalg.generic with several results")
        reducing = "reduction" in its
        if col_mode:
            if cls == "C":
                state["cur"], state["seen_col"] = finish, True
            elif state["seen_col"]:
                raise Unsupported("a full-tile computation after a column-level one")
            out_role = "col" if (reducing or cls == "C") else "full"
        else:
            out_role = "row" if (reducing or cls == "R") else "full"
        if cls == "F" and not reducing and p.role_of_access(acc[-1], len(dom)) != "full":
            raise Unsupported("a parallel generic whose result is not elementwise over the domain")
        in_vals = []
        for v, dims in zip(list(op.operands)[:n_in], acc[:n_in]):
            r = _root(aliases, v)
            val = p.bind(r, p.role_of_access(dims, len(dom)))
            if val.kind == "cconst" and val not in col_consts:
                col_consts.append(val)
            in_vals.append((r, val))
        body = op.regions[0].blocks[0]
        body_ops = [b.operation for b in body.operations][:-1]
        arg_desc = {ba: descriptor(val, cls) for ba, (_, val) in zip(list(body.arguments)[:n_in], in_vals)}
        res_root = op.results[0]
        out_idx = next((k for k, r in returned.items() if r == res_root), None)
        bool_out = None
        if is_i32(res_root.type):
            raise Unsupported("an i32 result (i32 tensors are only read, as f32 images)")
        half_out = None
        if is_f16(res_root.type):
            if col_mode and out_idx is not None and out_role != "col":
                raise Unsupported("an f16 result over the rows of a kernel reducing over the first axes")
            if out_idx is not None:
                half_out, out_idx = out_idx, None      # f32 in a slot, Cast to half at the end
        if is_bool(res_root.type):
            if out_role not in ("full", "row") or (out_role == "row" and col_mode):
                raise Unsupported("an i1 result that is not elementwise over the domain")
            if out_idx is not None:
                bool_out, out_idx = out_idx, None      # f32 mask in a slot, cast to uint8 at the end
        dying = [val.slot for r, val in in_vals if owns(val) and last_use.get(r) == i and val.slot]
        res_cls = {"row": "R", "full": "F", "col": "C"}[out_role]
        acc_out = None
        if col_mode and reducing and out_idx is not None:
            acc_out, out_idx = out_idx, None       # accumulate in a slot, copied out at the end
        if out_idx is not None:
            dst = f"out{out_idx}"
            kind = "output"
        else:
            kind = "temp"
            if len(body_ops) == 1 and not reducing:
                for s in dying:
                    if (s.startswith("tF") and res_cls == "F") or (s.startswith("tR") and res_cls == "R"):
                        release(s)
                dst = slot_for(res_cls)
            else:
                dst = slot_for(res_cls)
        out(S.note(_describe(op)))
        if not reducing:
            last = eval_body(op, cls, body_ops, arg_desc, dst, True, round_last=half_out is None)
            if last is None or last[0] != "tile" or last[1] != dst:
                if last is not None and last[0] == "scalar":
                    vec("Duplicate", cls, dst, last[1], cnt(cls))
                elif last is not None:
                    x, t = materialize(last, cls)
                    vec("Muls", cls, dst, x, "1.0f", cnt(cls))      # exact, -0.0 included
                    if t:
                        release(x)
                else:
                    raise Unsupported("an empty linalg body")
        else:
            out_arg = list(body.arguments)[n_in]
            comb = body_ops[-1] if body_ops else None
            if comb is None or comb.name not in _COMBINERS or out_arg not in list(comb.operands):
                raise Unsupported("a reduction whose body does not end in add/max/min of the accumulator")
            api, ident = _COMBINERS[comb.name]
            if api == "ReduceSum" and is_f16(res_root.type):
                raise Unsupported("an f16 sum (accumulated in f16 step by step; ReduceSum would accumulate in f32)")
            other = [x for x in comb.operands if x != out_arg]
            if len(other) != 1:
                raise Unsupported("a reduction combining the accumulator with itself")
            init = _const_of(op.operands[n_in])
            if init is None:
                raise Unsupported("a reduction whose initial value is not a constant")
            pre = body_ops[:-1]
            xt = None
            if pre:
                xt = slot_for("F")
                last = eval_body(op, "F", pre, arg_desc, xt, False)
                src = last
            else:
                src = arg_desc.get(other[0])
                if src is None:
                    raise Unsupported("a reduction of a value defined outside its body")
            x, tmp = materialize(src, "F")
            if col_mode:
                vapi = {"ReduceSum": "Add", "ReduceMax": "Max", "ReduceMin": "Min"}[api]
                init_stmt = S.vec("Duplicate", dst, f32_literal(init), "colsAl")
                chunk_init.append(init_stmt)
                out(S.rows(S.vec(vapi, dst, dst, f"{x}[r * pitch]", "colsAl")))
                vec_ops.append((vapi, "row*"))
                if tmp:
                    release(x)
                if xt is not None and xt != x:
                    release(xt)
                if acc_out is not None:
                    finish.append(S.copy(f"out{acc_out}", dst, "colsAl"))
                    outputs[acc_out] = Value(f"out{acc_out}", "col", "output", index=acc_out)
                p.values[res_root] = Value(dst, "col", "temp", slot=dst)
                for r, v in in_vals:
                    if owns(v) and last_use.get(r) == i and v.slot:
                        release(v.slot)
                continue
            combine = "v"
            if init != ident:
                lit = f32_literal(init)
                combine = {"ReduceSum": f"{lit} + v", "ReduceMax": f"fmaxf({lit}, v)",
                           "ReduceMin": f"fminf({lit}, v)"}[api]
            out(S.rows(S.vec(api, "red", f"{x}[r * pitch]", "work", "cols"), S.sync("V_S"),
                       S.scalar("float v = red.GetValue(0);"), S.scalar(f"{dst}.SetValue(r, {combine});")))
            out(S.sync("S_V"))
            vec_ops.append((api, "row*"))
            state["scalar_ops"] += 2
            if tmp:
                release(x)
            if xt is not None and xt != x:
                release(xt)
        val = Value(dst, out_role, kind, index=out_idx if out_idx is not None else -1, slot=dst)
        p.values[res_root] = val
        if out_idx is not None:
            outputs[out_idx] = val
        if bool_out is not None and out_role == "row":
            out(S.note(f"i1 result {bool_out} (one per row): f32 mask -> uint8 0/1 by the scalar unit"))
            out(S.sync("V_S"))
            out(S.rows(S.scalar(f"out{bool_out}.SetValue(r, (uint8_t)({dst}.GetValue(r) != 0.0f));")))
            state["scalar_ops"] += 2
            outputs[bool_out] = Value(f"out{bool_out}", "row", "output", index=bool_out, dtype="u8")
        elif bool_out is not None:
            out(S.note(f"i1 result {bool_out}: f32 mask -> uint8 0/1"))
            out(u8_cast_out(dst, f"out{bool_out}"))
            vec_ops.append(("Cast", "row*"))
            vec_ops.append(("Cast", "row*"))
            outputs[bool_out] = Value(f"out{bool_out}", "full", "output", index=bool_out, dtype="u8")
        if half_out is not None:
            k = half_out
            out(S.note(f"f16 result {k}: f32 -> half (round to nearest even)"))
            if out_role == "full":
                out(S.rows(S.vec("Cast", f"out{k}[r * pitchH]", f"{dst}[r * pitch]", "RoundMode::CAST_RINT", "colsAl")))
                vec_ops.append(("Cast", "row*"))
            elif out_role == "col":                # column mode: once per column chunk (Finish)
                vec("Cast", "C", f"out{k}", dst, "RoundMode::CAST_RINT", "colsAl")
            else:
                vec("Cast", "R", f"out{k}", dst, "RoundMode::CAST_RINT", "cntR")
            state["halves"] = True
            outputs[k] = Value(f"out{k}", out_role, "output", index=k, dtype="f16")
        for r, v in in_vals:
            if owns(v) and last_use.get(r) == i and v.slot and v.slot != dst:
                release(v.slot)

    state["cur"] = finish if col_mode else stmts
    for k, r in returned.items():
        if k in outputs:
            continue
        v = p.values.get(r)
        if v is None or v.kind != "input" or v.role != "full" or v.dtype not in ("f32", "f16") or \
                math.prod(ir.RankedTensorType(r.type).shape) != p.R * p.C or col_mode:
            raise Unsupported(f"result {k} is not computed by the kernel (an argument or a constant)")
        if v.dtype == "f16":                 # a reshaped f16 argument (AMP's flatten): its f32 image back to half
            out(S.rows(S.vec("Cast", f"out{k}[r * pitchH]", f"{v.slot}[r * pitch]", "RoundMode::CAST_RINT", "colsAl"),
                       note=f"result {k} is argument {v.index}"))
            vec_ops.append(("Cast", "row*"))
            outputs[k] = Value(f"out{k}", "full", "output", index=k, dtype="f16")
            continue
        out(S.copy(f"out{k}", v.slot or v.name, "cntF", note=f"result {k} is argument {v.index}"))
        vec_ops.append(("DataCopy(UB)", "F"))
        outputs[k] = Value(f"out{k}", "full", "output", index=k)
    out_list = []
    for k in range(len(ret.operands)):
        v = outputs[k]
        out_list.append((v, {"full": p.R * p.C, "row": p.R, "col": p.C}[v.role]))

    plan = Plan(kernel=p.kernel, func=ir.StringAttr(fn.attributes["sym_name"]).value,
                kind=kind_of(fn), inputs=inputs, outputs=out_list, tiling=None,
                full_slots=F.count, row_slots=Rs.count, reduces=p.reduces and not col_mode, compute=stmts,
                row_pre=chunk_init, mode=p.mode, masks=state["masks"], halves=state["halves"], col_consts=col_consts, finish=finish, col_slots=pools["C"].count, scalars=scalars, cols=cols, soc=p.soc, vec_ops=vec_ops,
                scalar_ops=state["scalar_ops"])
    plan.shapes = {"in": [list(ir.RankedTensorType(a.type).shape) for a in block.arguments],
                   "out": [list(ir.RankedTensorType(v.type).shape) for v in ret.operands],
                   "in_dtypes": [_np_dtype(a.type) for a in block.arguments],
                   "out_dtypes": [_np_dtype(v.type) for v in ret.operands]}
    solve = solve_col_tiling if col_mode else solve_tiling
    plan.tiling = solve(plan, p.R, p.C, p.model.ub, p.cores, p.tile_elems)
    plan.ub_bytes = ub_bytes(plan, plan.tiling.rb, plan.tiling.cb)
    return plan


# arith.cmpf predicates -> (CMPMODEs, inverted). Compare is IEEE's: EQ LT GT LE GE are false on
# a NaN lane, NE true. So the ordered predicates are one Compare, `one` is LT or GT (two, false
# on NaN: isfinite is `|x| one inf`), and the unordered ones are the inverted ordered opposite
# (ugt = !ole: true on NaN), as the CPU target computes them.
_CMP = {1: (("EQ",), False), 2: (("GT",), False), 3: (("GE",), False), 4: (("LT",), False),
        5: (("LE",), False), 6: (("LT", "GT"), False), 8: (("LT", "GT"), True), 9: (("LE",), True),
        10: (("LT",), True), 11: (("GE",), True), 12: (("GT",), True), 13: (("NE",), False)}


# arith.cmpi predicates (eq, ne, slt, sle, sgt, sge, ult, ule, ugt, uge) -> CMPMODE, on the
# f32 images of the i32 values (exact below 2**24; unsigned compares assume non-negative values)
_CMPI = {0: "EQ", 1: "NE", 2: "LT", 3: "LE", 4: "GT", 5: "GE", 6: "LT", 7: "LE", 8: "GT", 9: "GE"}


def _np_dtype(t) -> str:
    return "bool" if is_bool(t) else "int32" if is_i32(t) else "float16" if is_f16(t) else "float32"


# f16 ops whose f32 result is an f16 value already (no rounding needed)
_F16_EXACT = {"arith.maximumf", "arith.minimumf", "arith.maxnumf", "arith.minnumf", "arith.negf", "math.absf",
              "arith.select", "arith.extf"}


def is_bool_scalar(t) -> bool:
    return isinstance(t, ir.IntegerType) and ir.IntegerType(t).width == 1


_MASK_LOGIC = {"arith.andi": "Mul", "arith.ori": "Max", "arith.xori": "Sub"}


def _is_i1(t) -> bool:
    return isinstance(t, ir.IntegerType) and ir.IntegerType(t).width == 1


def _i1_const(v):
    """1.0 / 0.0 for an i1 arith.constant (true / false), else None."""
    owner = v.owner
    if isinstance(owner, ir.Block):
        return None
    op = owner.operation if hasattr(owner, "operation") else owner
    if op.name != "arith.constant" or not _is_i1(v.type):
        return None
    a = op.attributes["value"]
    return float(ir.BoolAttr(a).value) if isinstance(a, ir.BoolAttr) else float(ir.IntegerAttr(a).value != 0)


def _const_of(v):
    from .plan import _const_scalar
    return _const_scalar(v)


def _describe(op) -> str:
    body = [b.operation.name for b in op.regions[0].blocks[0].operations][:-1]
    its = ",".join("r" if "reduction" in str(a) else "p" for a in op.attributes["iterator_types"])
    return f"linalg.generic [{its}]: {', '.join(body)}"


# ----------------------------------------------------------------------------- UB budget and tiles
def counts(plan: Plan) -> dict:
    n = {"fin": 0, "rin": 0, "fout": 0, "rout": 0, "cout": 0}
    for v, _ in plan.inputs:
        if v is not None and v.kind == "input":
            n["fin" if v.role == "full" else "rin"] += v.role in ("full", "row")
    for v, _ in plan.outputs:
        n[{"full": "fout", "row": "rout", "col": "cout"}[v.role]] += 1
    return n


def ub_bytes(plan: Plan, rb: int, cb: int) -> int:
    """UB bytes of the kernel's buffers for tiles of rb x cb (what TPipe::InitBuffer reserves)."""
    n = counts(plan)
    depth = 2 if plan.double_buffer else 1
    P = align_up(cb)
    fb, rbytes, cbytes = rb * P * F32, align_up(rb) * F32, P * F32
    u8 = sum(1 for v, _ in plan.inputs + plan.outputs       # full uint8 queues (scalars have none;
             if v is not None and v.dtype == "u8" and v.role == "full" and v.kind != "scalar_in")  # rows: f32-sized)
    total = 0
    if plan.masks:                      # tiles padded to 64 elements; ones, zeros, bits, half staging
        fb = align_up(rb * P, 64) * F32
        total += 2 * fb + align_up(fb // 32, 32) + rb * align_up(cb, 16) * 2
    total += depth * u8 * (rb * align_up(cb, 32) - fb)      # uint8 queues instead of f32 ones
    total += depth * (n["fin"] + n["fout"]) * fb + plan.full_slots * fb
    total += depth * (n["rin"] + n["rout"]) * rbytes + plan.row_slots * rbytes
    total += (len(plan.cols) + len(plan.col_consts) + plan.col_slots + depth * n["cout"]) * cbytes
    if plan.reduces:
        total += work_elems(cb) * F32 + 32
    return total


def work_elems(cb: int) -> int:
    return align_up(max(1, -(-cb // 64)))


def _tiling(R: int, C: int, rb: int, cb: int, cores: int) -> Tiling:
    nct = -(-C // cb)
    tiles = -(-R // rb) * nct
    block_dim = min(cores, tiles)
    per = -(-tiles // block_dim)
    block_dim = -(-tiles // per)
    return Tiling(R=R, C=C, rb=rb, cb=cb, nct=nct, tiles=tiles, block_dim=block_dim, tiles_per_core=per)


def _candidates(hi: int, step: int, parts: list[int]) -> list[int]:
    """Powers of two (times step) up to hi, hi itself, and hi split evenly in `parts` ways."""
    out, v = {hi}, step
    while v < hi:
        out.add(v)
        v *= 2
    for n in parts:
        out.add(max(step, min(hi, -(-hi // n) if step == 1 else align_up(-(-hi // n), step))))
    return sorted(out)


def solve_tiling(plan: Plan, R: int, C: int, ub: int, cores: int, tile_elems: int) -> Tiling:
    """Tile sizes chosen by the cost model (cost.py) among the candidates that
    fit UB: powers of two up to the largest tile that fits, the largest, and
    the splits that give every core one or two tiles; each is scored by the
    estimated cycles of the busiest core (double buffering overlaps a tile's
    copies with its neighbours' compute, per-copy DMA latency favours big
    tiles, more cores favour small ones); ties go to the larger tile. Rows are
    chunked (rb = 1) when one row does not fit, the kernel is one row (R = 1),
    or `tile_elems` (a cap on the elements of a full tile, 0: none) says so."""
    from . import cost
    if ub_bytes(plan, 1, C if plan.reduces else LANES) > ub:
        raise Unsupported(f"one row of {C} f32 elements needs {ub_bytes(plan, 1, C)} bytes of UB "
                          f"(UB is {ub} bytes)" if plan.reduces else "the kernel's buffers exceed UB")
    chunk = not plan.reduces and (R == 1 or ub_bytes(plan, 1, C) > ub
                                  or (tile_elems and align_up(C) > tile_elems))
    if chunk:
        hi = LANES
        while hi + LANES <= align_up(C) and ub_bytes(plan, 1, hi + LANES) <= ub and hi < 8192:
            hi += LANES
        if tile_elems:
            hi = max(LANES, min(hi, tile_elems // LANES * LANES))
        shapes = [(1, cb) for cb in _candidates(hi, LANES, [cores, 2 * cores, max(1, -(-2 * cores // R))])]
        shapes = [(rb, min(cb, align_up(C))) for rb, cb in shapes]
    else:
        hi = 1
        while hi < R and ub_bytes(plan, hi + 1, C) <= ub:
            hi += 1
        if tile_elems:
            hi = max(1, min(hi, tile_elems // align_up(C)))
        shapes = [(rb, C) for rb in _candidates(hi, 1, [])]
        shapes += [(min(hi, -(-R // n)), C) for n in (cores, 2 * cores)]
    best = None
    saved = plan.tiling
    for rb, cb in sorted(set(shapes), key=lambda x: -(x[0] * x[1])):
        plan.tiling = _tiling(R, C, rb, cb, cores)
        score = cost.estimate(plan)["cycles"]
        if best is None or score < best[0]:
            best = (score, plan.tiling)
    plan.tiling = saved
    return best[1]


def solve_col_tiling(plan: Plan, R: int, C: int, ub: int, cores: int, tile_elems: int) -> Tiling:
    """Col mode (reductions over the first axes): column chunks of cb are split
    over the cores (a core accumulates its chunks over all rows); rows are
    tiled by rb, the most rows of a chunk that fit UB."""
    cb = min(align_up(C), max(64, align_up(-(-C // cores))))
    while cb > LANES and ub_bytes(plan, 1, cb) > ub:
        cb = max(LANES, align_up(cb // 2))
    if ub_bytes(plan, 1, cb) > ub:
        raise Unsupported("the kernel's buffers exceed UB")
    rb = 1
    while rb < R and ub_bytes(plan, rb + 1, cb) <= ub:
        rb += 1
    if tile_elems:
        rb = max(1, min(rb, tile_elems // align_up(cb)))
    nct = -(-C // cb)
    block_dim = min(cores, nct)
    per = -(-nct // block_dim)
    block_dim = -(-nct // per)
    return Tiling(R=R, C=C, rb=rb, cb=cb, nct=nct, tiles=nct, block_dim=block_dim, tiles_per_core=per)
