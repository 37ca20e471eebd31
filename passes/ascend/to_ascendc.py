"""A planned vector kernel (plan.py / vector.py) as an `ascendc.kernel` op
(no pass; mskernel-lower-to-ascend calls it): the Ascend-level IR that the
emitter (emit_ascendc.py) prints Ascend C from.

Why: the Ascend C model (GM tensors, queues with a TPosition and a depth,
TBuf scratch, CopyIn / Compute / CopyOut, DataCopy vs DataCopyPad, vector
instructions with counts, the tile split over cores) becomes IR that lit
can check and whose verifiers (lib/AscendCDialect.cpp) reject what the
hardware would: buffers over a level's capacity or misaligned, DataCopy
blocks that are not 32-byte multiples, tiles no core runs.

What goes through this IR: every vector kernel (row mode: elementwise
chains, broadcasts, last-axis reductions such as softmax / layernorm; col
mode: first-axis reductions such as bias gradients), including the vector
parts of groups (conv / matmul epilogues, split sums). Cube, transpose,
data-movement (im2col, permute), pooling and scalar-fallback kernels are
still emitted from their plans (cube.py, group.py, conv.py, pool.py,
scalar.py).

Static figures: every count and block length is an expression of the
tile's rows / cols (tails differ from full tiles); they are evaluated here
for every tile shape the kernel runs (`elems`: the largest count;
`block_bytes`: each block length) so the verifiers can check them.
"""
from __future__ import annotations

import functools
import math
import struct

from mlir import ir

from . import stmt as S
from .plan import LANES, Plan, align_up
from .stmt import CT, q


def is_vector(plan: Plan) -> bool:
    """Whether `plan` is a vector kernel (the kernels that go through the ascendc IR)."""
    return (plan.parts is None and plan.cube is None and plan.transpose is None and plan.scalar is None
            and plan.dma is None and plan.pool is None and plan.mode in ("row", "col"))


def _ct(v) -> str:
    """The C++ element type of a kernel argument in GM."""
    return {"u8": "uint8_t", "i32": "int32_t", "f16": "half"}.get(v.dtype, "float")


# ----------------------------------------------------------------------------- static evaluation
_CASTS = ("(uint16_t)", "(uint32_t)")


def _shapes(plan: Plan) -> list[dict]:
    """The tile shapes the kernel runs: (rows, cols) of the full tile and of the tails."""
    t = plan.tiling
    row_tiles = -(-t.R // t.rb)
    rows = {t.rb if t.R >= t.rb else t.R, t.R - (row_tiles - 1) * t.rb}
    cols = {min(t.cb, t.C), t.C - (t.nct - 1) * t.cb}
    out = []
    for r in sorted(rows, reverse=True):
        for c in sorted(cols, reverse=True):
            out.append(_env(t, r, c))
    return out


def _env(t, rows: int, cols: int) -> dict:
    pitch = align_up(t.cb)
    cols_al = align_up(cols)
    cnt_f = (rows - 1) * pitch + cols_al
    return {"rows": rows, "cols": cols, "colsAl": cols_al, "pitch": pitch, "pitchH": align_up(t.cb, 16),
            "pitch8": align_up(t.cb, 32), "rowLen": t.C, "totalRows": t.R, "tileRows": t.rb, "tileCols": t.cb,
            "cntF": cnt_f, "cntR": rows, "cnt64": align_up(cnt_f, 64), "tileElems": align_up(t.rb * pitch, 64),
            "n": cols, "c0": 0, "r": 0}


@functools.lru_cache(maxsize=None)
def _compiled(expr: str):
    e = expr
    for c in _CASTS:
        e = e.replace(c, "")
    for ct, n in S.SIZE.items():
        e = e.replace(f"sizeof({ct})", str(n))
    return compile(e.replace("/", "//"), "<count>", "eval")


def evaluate(expr: str, env: dict) -> int:
    """The value of a count / length expression of the emitted source (C unsigned arithmetic)."""
    return int(eval(_compiled(expr), {"__builtins__": {}}, env))  # noqa: S307  (our own expressions)


def _statics(envs: list[dict]):
    def statics(kind, rec):
        if kind == "elems":
            return max(evaluate(rec.count, e) for e in envs)
        if rec.op == "copy" and rec.params is not None:
            vals = [evaluate(rec.params[1], e) * 32 for e in envs]
        elif rec.op == "copy":
            vals = [evaluate(rec.count, e) * S.SIZE[rec.ct] for e in envs]
        else:
            vals = [evaluate(rec.params[1], e) for e in envs]
        return sorted(set(vals), reverse=True)
    return statics


# ----------------------------------------------------------------------------- copies
def copy_1d(dst: str, src: str, n: str, aligned: bool, to_gm: bool = False, ct: str = "float") -> S.Stmt:
    """A contiguous copy of n elements: DataCopy when n elements are 32-byte
    aligned, else DataCopyPad (whose GM->UB form also takes the padding)."""
    if aligned:
        return S.copy(dst, src, n, ct=ct)
    es = ct if ct in ("half", "uint8_t") else "float"
    return S.copy_pad(dst, src, ["1", f"{n} * (uint32_t)sizeof({es})", "0", "0", "0"], None if to_gm else ct,
                      ct=ct, count=n)


def _load_cols(plan: Plan, aligned: bool, consts: list) -> list:
    """LoadCols: the broadcast columns (and constant columns) of a column tile."""
    L = []
    for v in consts:
        L.append(S.get(v.name, "float", f"{v.name}Buf", local=f"{v.name}T"))
        L.append(S.scalar(f"for (uint32_t i = 0; i < n; ++i) {v.name}T.SetValue(i, {v.name}Data[c0 + i]);  "
                          "// constant column"))
    for v, i in plan.cols:
        L.append(S.get(f"col{i}", "float", f"col{i}Buf", local=f"c{i}"))
        L.append(copy_1d(f"c{i}", f"in{i}Gm[c0]", "n", aligned))
    return L + [S.set_flag("MTE2_V"), S.wait_flag("MTE2_V")]


class _Buf:
    """A TBuf: symbol (its local tensor), size expression, element type, member."""

    def __init__(self, local: str, size: str, ct: str = "float", member: str = "", data=None):
        self.local, self.size, self.ct, self.member, self.data = local, size, ct, member or f"{local}Buf", data

    def get(self) -> S.Stmt:
        return S.get(self.local, self.ct, self.member)


# ----------------------------------------------------------------------------- the kernel
def _f32_text(x: float) -> str:
    """An f32 element of a dense array: decimal when finite, else its bit pattern."""
    if math.isfinite(x):
        return repr(float(x))
    return "0x%08X" % struct.unpack("<I", struct.pack("<f", x))[0]


def kernel_text(plan: Plan, ub_scale: int = 1) -> str:
    """The `ascendc.kernel` of vector plan `plan`, as MLIR text."""
    from .plan import tiling_values
    if not is_vector(plan):
        raise ValueError(f"{plan.kernel}: not a vector kernel (no ascendc IR for it yet)")
    build = _col_kernel if plan.mode == "col" else _row_kernel
    globals_, queues, bufs, stages, halves = build(plan)
    envs = _shapes(plan)
    statics = _statics(envs)
    t = plan.tiling
    depth = 2 if plan.double_buffer else 1
    env_max = envs[0]
    tiling = ", ".join(f"{k} = {v} : i64" for k, v in tiling_values(plan.tiling).items())
    attrs = [f"kind = {q(plan.kind)}", f"ub_bytes = {plan.ub_bytes}"]
    if plan.masks:
        attrs.append("masks")
    if halves:
        attrs.append("halves")
    if ub_scale != 1:
        attrs.append(f"ub_scale = {ub_scale}")
    L = [f"ascendc.kernel {q(plan.kernel)} from @{plan.func} soc {q(plan.soc)} mode {q(plan.mode)} "
         f"block_dim {t.block_dim} tiling {{{tiling}}} attributes {{{', '.join(attrs)}}} {{"]
    for sym, param, numel, ct, flag in globals_:
        L.append(f"  ascendc.global @{sym} param {q(param)} : {numel} x {CT[ct]}{' ' + flag if flag else ''}")
    for sym, pos, size, ct in queues:
        nbytes = align_up(evaluate(size, env_max), 32)
        L.append(f"  ascendc.queue @{sym} <{pos}> depth {depth} bytes {nbytes} : {CT[ct]} size {q(size)}")
    for b in bufs:
        nbytes = align_up(evaluate(b.size, env_max), 32)
        extra = []
        if b.member != f"{b.local}Buf":
            extra.append(f"member = {q(b.member)}")
        if b.data is not None:
            extra.append(f"data = array<f32: {', '.join(_f32_text(x) for x in b.data)}>")
        L.append(f"  ascendc.tbuf @{b.local} <VECCALC> bytes {nbytes} : {CT[b.ct]} size {q(b.size)}"
                 + (f" {{{', '.join(extra)}}}" if extra else ""))

    def stage(name, recs, indent):
        out = [f"{indent}ascendc.stage <{name}> {{"]
        for r in recs:
            out += S.mlir(r, statics, indent + "  ")
        return out + [f"{indent}}}"]

    if "LoadCols" in stages and plan.mode == "row":
        L += stage("LoadCols", stages["LoadCols"], "  ")
    L.append(f"  ascendc.for_tiles {t.tiles} per_core {t.tiles_per_core} {{")
    if plan.mode == "row":
        for name in ("CopyIn", "Compute", "CopyOut"):
            L += stage(name, stages[name], "    ")
    else:
        for name in ("LoadCols", "StartChunk"):
            if name in stages:
                L += stage(name, stages[name], "    ")
        L.append(f"    ascendc.for_tiles {-(-t.R // t.rb)} {{")
        for name in ("CopyIn", "Compute", "CopyOut"):
            L += stage(name, stages[name], "      ")
        L.append("    }")
        for name in ("Finish", "CopyOutCols"):
            L += stage(name, stages[name], "    ")
    L.append("  }")
    L.append("}")
    return "\n".join(L)


def _globals(plan: Plan) -> list:
    xs = [f"x{i}" for i in range(len(plan.inputs))]
    ys = [f"y{k}" for k in range(len(plan.outputs))]
    out = []
    for i, (v, numel) in enumerate(plan.inputs):
        if v is None:
            out.append((f"in{i}Gm", xs[i], numel, "float", "{unused}"))
        else:
            out.append((f"in{i}Gm", xs[i], numel, _ct(v), "{scalar}" if v.kind == "scalar_in" else ""))
    for k, (v, numel) in enumerate(plan.outputs):
        out.append((f"out{k}Gm", ys[k], numel, _ct(v), ""))
    return out


def _row_kernel(plan: Plan):
    t = plan.tiling
    full_aligned = t.C % LANES == 0
    row_aligned = t.R % LANES == 0 and t.rb % LANES == 0
    fb = "tileElems * sizeof(float)" if plan.masks else "tileRows * pitch * sizeof(float)"
    u8_aligned = t.C % 32 == 0 and (t.nct == 1 or t.cb % 32 == 0)
    half_aligned = t.C % 16 == 0 and (t.nct == 1 or t.cb % 16 == 0)
    half_row_aligned = t.R % 16 == 0 and t.rb % 16 == 0
    rbytes = "(tileRows + 7) / 8 * 8 * sizeof(float)"
    col_bytes = "pitch * sizeof(float)"
    calc = [_Buf(f"tF{j}", fb) for j in range(plan.full_slots)]
    calc += [_Buf(f"tR{j}", rbytes) for j in range(plan.row_slots)]
    calc += [_Buf(f"col{i}", col_bytes) for _, i in plan.cols]
    calc += [_Buf(v.name, col_bytes, data=v.data) for v in plan.col_consts]
    if plan.reduces:
        calc += [_Buf("red", "32"), _Buf("work", "((pitch + 63) / 64 + 7) / 8 * 8 * sizeof(float)")]
    if plan.masks:
        calc += [_Buf("ones", fb), _Buf("zeros", fb), _Buf("bits", "tileElems / 8", "uint8_t"),
                 _Buf("hbuf", "tileRows * pitchH * sizeof(half)", "half", "hBuf")]
    if plan.halves:
        calc += [_Buf("rnd", ("tileElems" if plan.masks else "tileRows * pitch") + " * sizeof(half)", "half",
                      "rndBuf")]

    def qsize(v):
        if v.dtype == "u8":
            return "tileRows * pitch8" if v.role == "full" else "(tileRows + 31) / 32 * 32"
        if v.dtype == "f16":
            return "tileRows * pitchH * sizeof(half)" if v.role == "full" else "(tileRows + 15) / 16 * 16 * sizeof(half)"
        return fb if v.role == "full" else rbytes

    ins = [i for i, (v, _) in enumerate(plan.inputs)
           if v is not None and v.kind == "input" and v.role in ("full", "row")]
    queues = [(f"in{i}Que", "VECIN", qsize(plan.inputs[i][0]), _ct(plan.inputs[i][0])) for i in ins]
    queues += [(f"out{k}Que", "VECOUT", qsize(v), _ct(v)) for k, (v, _) in enumerate(plan.outputs)]

    def tile_copy(v, ub: str, gm: str, to_gm: bool) -> list:
        """One tile of argument v between UB and GM: a 2-D strided window of
        rows x cols (u8 masks, full tensors) or a run of `rows` row values."""
        if v.role != "full":
            dst, src = (f"{gm}[row0]", ub) if to_gm else (ub, f"{gm}[row0]")
            al = {"f16": half_row_aligned, "u8": t.R % 32 == 0 and t.rb % 32 == 0}.get(v.dtype, row_aligned)
            pre = [S.sync("S_MTE3", note="written by the scalar unit")] if v.dtype == "u8" and to_gm else []
            return pre + [copy_1d(dst, src, "rows", al, to_gm, _ct(v))]
        window = f"{gm}[row0 * rowLen + col0]"
        src, dst = (ub, window) if to_gm else (window, ub)
        al = {"u8": u8_aligned, "f16": half_aligned}.get(v.dtype, full_aligned)
        if al:
            return [S.copy(dst, src, "rows * cols", ct=_ct(v))]
        es = "half" if v.dtype == "f16" else "float"
        length, gap = (("cols", "rowLen - cols") if v.dtype == "u8" else
                       (f"cols * (uint32_t)sizeof({es})", f"(rowLen - cols) * (uint32_t)sizeof({es})"))
        strides = ["0", gap] if to_gm else [gap, "0"]
        return [S.copy_pad(dst, src, ["(uint16_t)rows", length, *strides, "0"], None if to_gm else _ct(v),
                           ct=_ct(v), count="rows * cols")]

    stages: dict = {}
    if plan.cols or plan.col_consts:
        stages["LoadCols"] = _load_cols(plan, full_aligned, plan.col_consts)
    copy_in = []
    for i in ins:
        v = plan.inputs[i][0]
        copy_in.append(S.alloc(f"in{i}Que", f"x{i}", _ct(v)))
        copy_in += tile_copy(v, f"x{i}", f"in{i}Gm", False)
        copy_in.append(S.enque(f"in{i}Que", f"x{i}"))
    if plan.cols or plan.col_consts:
        copy_in.append(S.scalar("if (colTiles > 1) LoadCols(col0, cols);"))
    compute = [S.deque(f"in{i}Que", f"in{i}", _ct(plan.inputs[i][0])) for i in ins]
    compute += [S.alloc(f"out{k}Que", f"out{k}", _ct(v)) for k, (v, _) in enumerate(plan.outputs)]
    compute += [b.get() for b in calc]
    compute += list(plan.compute)
    compute += [S.enque(f"out{k}Que", f"out{k}") for k in range(len(plan.outputs))]
    compute += [S.free(f"in{i}Que", f"in{i}") for i in ins]
    copy_out = []
    for k, (v, _) in enumerate(plan.outputs):
        copy_out.append(S.deque(f"out{k}Que", f"y{k}", _ct(v)))
        copy_out += tile_copy(v, f"y{k}", f"out{k}Gm", True)
        copy_out.append(S.free(f"out{k}Que", f"y{k}"))
    stages.update(CopyIn=copy_in, Compute=compute, CopyOut=copy_out)
    return _globals(plan), queues, calc, stages, plan.halves


def _col_kernel(plan: Plan):
    t = plan.tiling
    aligned = t.C % LANES == 0
    fins = [i for i, (v, _) in enumerate(plan.inputs) if v is not None and v.kind == "input" and v.role == "full"]
    fouts = [k for k, (v, _) in enumerate(plan.outputs) if v.role == "full"]
    couts = [k for k, (v, _) in enumerate(plan.outputs) if v.role == "col"]
    hins = [i for i in fins if plan.inputs[i][0].dtype == "f16"]
    ct = {i: "half" if i in hins else "float" for i in fins}
    hcouts = [k for k in couts if plan.outputs[k][0].dtype == "f16"]
    oct_ = {k: "half" if k in hcouts else "float" for k in couts}
    halves = bool(hins) or plan.halves
    fb = "tileRows * pitch * sizeof(float)"
    queues = [(f"in{i}Que", "VECIN", fb if i not in hins else "tileRows * pitchH * sizeof(half)", ct[i])
              for i in fins]
    queues += [(f"out{k}Que", "VECOUT", fb, "float") for k in fouts]
    queues += [(f"out{k}Que", "VECOUT", "pitchH * sizeof(half)" if k in hcouts else "pitch * sizeof(float)", oct_[k])
               for k in couts]
    full = [_Buf(f"tF{j}", fb) for j in range(plan.full_slots)]
    per_chunk = [_Buf(f"tC{j}", "pitch * sizeof(float)") for j in range(plan.col_slots)]
    per_chunk += [_Buf(f"col{i}", "pitch * sizeof(float)") for _, i in plan.cols]
    if plan.halves:
        per_chunk.append(_Buf("rnd", "tileRows * pitch * sizeof(half)", "half", "rndBuf"))
    stages: dict = {}
    if plan.cols:
        stages["LoadCols"] = _load_cols(plan, aligned, [])
    gets = [b.get() for b in per_chunk]
    stages["StartChunk"] = gets + list(plan.row_pre)
    copy_in = []
    for i in fins:
        copy_in.append(S.alloc(f"in{i}Que", f"x{i}", ct[i]))
        src = f"in{i}Gm[row0 * rowLen + col0]"
        if i in hins:
            copy_in.append(S.copy_pad(f"x{i}", src, ["(uint16_t)rows", "cols * (uint32_t)sizeof(half)",
                                                     "(rowLen - cols) * (uint32_t)sizeof(half)",
                                                     "(pitchH - (cols + 15) / 16 * 16) / 16", "0"], "half", ct="half"))
        elif aligned:
            copy_in.append(S.copy(f"x{i}", src, params=["(uint16_t)rows", "(uint16_t)(cols / 8)",
                                                        "(uint16_t)((rowLen - cols) / 8)",
                                                        "(uint16_t)((pitch - cols) / 8)"]))
        else:
            copy_in.append(S.copy_pad(f"x{i}", src, ["(uint16_t)rows", "cols * (uint32_t)sizeof(float)",
                                                     "(rowLen - cols) * (uint32_t)sizeof(float)",
                                                     "(pitch - colsAl) / 8", "0"], "float"))
        copy_in.append(S.enque(f"in{i}Que", f"x{i}"))
    compute = [S.deque(f"in{i}Que", f"in{i}", ct[i]) for i in fins]
    compute += [S.alloc(f"out{k}Que", f"out{k}", "float") for k in fouts]
    compute += [b.get() for b in full] + gets + list(plan.compute)
    compute += [S.enque(f"out{k}Que", f"out{k}") for k in fouts]
    compute += [S.free(f"in{i}Que", f"in{i}") for i in fins]
    copy_out = []
    for k in fouts:
        copy_out.append(S.deque(f"out{k}Que", f"y{k}", "float"))
        dst = f"out{k}Gm[row0 * rowLen + col0]"
        if aligned:
            copy_out.append(S.copy(dst, f"y{k}", params=["(uint16_t)rows", "(uint16_t)(cols / 8)",
                                                         "(uint16_t)((pitch - cols) / 8)",
                                                         "(uint16_t)((rowLen - cols) / 8)"]))
        else:
            copy_out.append(S.copy_pad(dst, f"y{k}", ["(uint16_t)rows", "cols * (uint32_t)sizeof(float)",
                                                      "(pitch - colsAl) / 8",
                                                      "(rowLen - cols) * (uint32_t)sizeof(float)", "0"], None))
        copy_out.append(S.free(f"out{k}Que", f"y{k}"))
    finish = [S.alloc(f"out{k}Que", f"out{k}", oct_[k]) for k in couts] + gets + list(plan.finish)
    finish += [S.enque(f"out{k}Que", f"out{k}") for k in couts]
    out_cols = []
    for k in couts:
        out_cols.append(S.deque(f"out{k}Que", f"y{k}", oct_[k]))
        al = (t.C % 16 == 0 and t.cb % 16 == 0) if k in hcouts else aligned
        out_cols.append(copy_1d(f"out{k}Gm[col0]", f"y{k}", "cols", al, to_gm=True, ct=oct_[k]))
        out_cols.append(S.free(f"out{k}Que", f"y{k}"))
    stages.update(CopyIn=copy_in, Compute=compute, CopyOut=copy_out, Finish=finish, CopyOutCols=out_cols)
    return _globals(plan), queues, full + per_chunk, stages, halves


# ----------------------------------------------------------------------------- into a module
def build(plan: Plan, after: ir.Operation | None = None, ub_scale: int = 1) -> ir.Operation:
    """Builds (parses, so the verifiers run) the kernel op of `plan`; inserts it
    after `after` (the kernel function) when given, else it stays detached (in
    the current context, or a new one). `ub_scale` > 1: the planted
    ub-overflow bug (tiles sized against a larger UB), which the op records so
    that the emulator, not the verifier, is the one to catch it. Raises
    ValueError with the verifier's message if the op is invalid."""
    text = kernel_text(plan, ub_scale)
    if after is not None:
        ctx = after.context
    else:
        try:
            ctx = ir.Context.current
        except ValueError:
            ctx = ir.Context()
    if not ctx.is_registered_operation("ascendc.kernel"):
        from msmlir._native import LIB_PATH
        raise ValueError(f"the dialect library {LIB_PATH} has no ascendc dialect: it was built before "
                         "dialects/AscendC.td; rebuild it (pip install --no-build-isolation -e .) or point "
                         "MSMLIR_DIALECT_LIB at a build that has it")
    try:
        op = ir.Operation.parse(text, context=ctx)
    except ir.MLIRError as e:
        why = "; ".join(d.message for d in e.error_diagnostics) or str(e)
        raise ValueError(f"{plan.kernel}: invalid ascendc IR: {why}") from None
    if after is not None:
        ir.InsertionPoint.after(after).insert(op)
    return op
