"""Ascend C source of an `ascendc.kernel` op (no pass): the device kernel of a
vector kernel, printed from the ascendc IR alone (to_ascendc.py builds it).

The class follows the Ascend C samples: Init (GlobalTensor::SetGlobalBuffer
per `ascendc.global`, TPipe::InitBuffer per `ascendc.queue` / `ascendc.tbuf`),
Process (the `ascendc.for_tiles` loop: tiles [GetBlockIdx() * per_core, ...)),
one member function per `ascendc.stage` whose body is its ops, one Ascend C
statement each (stmt.py), and the `extern "C" __global__ __aicore__` entry.

`bug` plants an emitter bug (the emulator's tests): "unaligned-copy" prints
each `data_copy_pad` that has a `count` as a plain DataCopy of that count;
"missing-deque" has Compute read the VECIN tensors CopyIn kept, without
DeQue.
"""
from __future__ import annotations

from mlir import ir

from ..common.diagnostics import emit_remark
from ..registry import Option, PassFailure, register_pass
from . import stmt as S
from .plan import camel, f32_literal

_TILING_ORDER = ("totalRows", "rowLen", "tileRows", "tileCols", "colTiles", "tileNum", "tilesPerCore", "blockDim")


def _str(op, name, default=None):
    return ir.StringAttr(op.attributes[name]).value if name in op.attributes else default


def _int(op, name, default=None):
    return ir.IntegerAttr(op.attributes[name]).value if name in op.attributes else default


def _body(op):
    return [o.operation for o in op.regions[0].blocks[0].operations]


class _Decl:
    """An ascendc.global / queue / tbuf as plain values (read from the op once)."""

    def __init__(self, op):
        a = op.attributes
        self.sym = ir.StringAttr(a["sym_name"]).value
        self.ct = S.CT_OF[str(ir.TypeAttr(a["elem"]).value)]
        self.param = ir.StringAttr(a["param"]).value if "param" in a else None
        self.numel = ir.IntegerAttr(a["numel"]).value if "numel" in a else None
        self.scalar, self.unused = "scalar" in a, "unused" in a
        self.size = ir.StringAttr(a["size"]).value if "size" in a else None
        self.depth = ir.IntegerAttr(a["depth"]).value if "depth" in a else None
        self.position = _position(op) if "position" in a else None
        self.member = ir.StringAttr(a["member"]).value if "member" in a else f"{self.sym}Buf"
        self.data = list(ir.DenseF32ArrayAttr(a["data"])) if "data" in a else None


class _Kernel:
    """What the emitter reads of an ascendc.kernel: its attributes, declarations and stages."""

    def __init__(self, op):
        self.op = op
        self.name = _str(op, "name")
        self.func = ir.FlatSymbolRefAttr(op.attributes["func"]).value
        self.soc, self.mode, self.kind = _str(op, "soc"), _str(op, "mode"), _str(op, "kind", "opaque")
        self.ub_bytes = _int(op, "ub_bytes", 0)
        self.masks, self.halves = "masks" in op.attributes, "halves" in op.attributes
        tiling = ir.DictAttr(op.attributes["tiling"])
        missing = [k for k in _TILING_ORDER if k not in tiling]
        if missing:
            raise ValueError(f"kernel \"{self.name}\": its tiling lacks {', '.join(missing)} (only vector "
                             "kernels are printed from ascendc IR so far)")
        self.tiling = {k: ir.IntegerAttr(tiling[k]).value for k in _TILING_ORDER}
        self.globals, self.queues, self.tbufs, self.stages = [], [], [], {}
        for o in _body(op):
            if o.name == "ascendc.global":
                self.globals.append(_Decl(o))
            elif o.name == "ascendc.queue":
                self.queues.append(_Decl(o))
            elif o.name == "ascendc.tbuf":
                self.tbufs.append(_Decl(o))
            elif o.name in ("ascendc.stage", "ascendc.for_tiles"):
                self._stages(o)
        self.bufs = {b.sym: (b.ct, b.member) for b in self.tbufs}

    def _stages(self, o):
        if o.name == "ascendc.stage":
            t = str(o.attributes["stage"])
            self.stages[t[t.index("<") + 1:t.rindex(">")]] = o
        else:
            for c in _body(o):
                self._stages(c)

    def depth(self) -> int:
        return max(q.depth for q in self.queues) if self.queues else 1

    def records(self, stage: str) -> list:
        return [S.from_op(o, self.bufs) for o in _body(self.stages[stage])] if stage in self.stages else []


def _position(op) -> str:
    t = str(op.attributes["position"])
    return t[t.index("<") + 1:t.rindex(">")]


def _params(k: _Kernel) -> tuple[list[str], list[str]]:
    xs = [g.param for g in k.globals if g.param.startswith("x")]
    ys = [g.param for g in k.globals if g.param.startswith("y")]
    return xs, ys


def _lines(recs: list, bug: str, indent: str = "    ") -> list[str]:
    out = []
    for r in recs:
        if bug == "unaligned-copy" and r.op == "copy_pad" and r.count is not None:
            r = S.copy(r.dst, r.src, r.count)
        out.append(indent + r)
    return out


def _head(k: _Kernel, op: str, xs, ys, what: str, summary: str) -> list[str]:
    L = [f"// Ascend C kernel generated by msmlir (mskernel-lower-to-ascend, soc={k.soc}) from the",
         f"// kernel function @{k.func} (kind {k.kind}){what}.",
         summary,
         '#include "kernel_operator.h"',
         "using namespace AscendC;",
         "",
         f"constexpr int32_t BUFFER_NUM = {k.depth()};"]
    if k.mode != "col":
        for b in k.tbufs:
            if b.data is not None:
                L.append(f"static const float {b.sym}Data[{len(b.data)}] = "
                         f"{{{', '.join(f32_literal(x) for x in b.data)}}};")
    params = ", ".join(f"GM_ADDR {n}" for n in xs + ys)
    return L + ["",
                f"class Kernel{op} {{",
                " public:",
                f"  __aicore__ inline Kernel{op}() {{}}",
                f"  __aicore__ inline void Init({params}, const {op}TilingData& td) {{"]


def _init_buffers(k: _Kernel) -> list[str]:
    L = [f"    pipe.InitBuffer({q.sym}, BUFFER_NUM, {q.size});" for q in k.queues]
    return L + [f"    pipe.InitBuffer({b.member}, {b.size});" for b in k.tbufs]


def _load_scalars(k: _Kernel) -> list[str]:
    """Scalar inputs are read once from GM in Init."""
    L = []
    for g in k.globals:
        if not g.scalar:
            continue
        i, ct = g.param[1:], g.ct
        L.append(f"    in{i}Gm.SetGlobalBuffer((__gm__ {ct}*){g.param}, 1);")
        L.append(f"    s{i} = " + ("(float)" if ct in ("half", "uint8_t", "int32_t") else "") + f"in{i}Gm.GetValue(0);")
    return L


def _members(k: _Kernel, bug: str) -> list[str]:
    L = ["  TPipe pipe;"]
    for q in k.queues:
        L.append(f"  TQue<QuePosition::{q.position}, BUFFER_NUM> {q.sym};")
        if bug == "missing-deque" and q.position == "VECIN" and k.mode == "row":
            L.append(f"  LocalTensor<float> held{q.sym[2:-3]};")
    if k.tbufs:
        L.append(f"  TBuf<TPosition::VECCALC> {', '.join(b.member for b in k.tbufs)};")
    for ct in ("float", "half", "uint8_t", "int32_t"):
        gms = [g.sym for g in k.globals if not g.unused and g.ct == ct]
        if gms:
            L.append(f"  GlobalTensor<{ct}> {', '.join(gms)};")
    scalars = [f"s{g.param[1:]}" for g in k.globals if g.scalar]
    if scalars:
        L.append(f"  float {', '.join(scalars)};")
    return L


def _entry(k: _Kernel, op: str, xs, ys) -> str:
    params = ", ".join(f"GM_ADDR {n}" for n in xs + ys)
    args = ", ".join(xs + ys)
    return (f'extern "C" __global__ __aicore__ void {k.name}({params}, GM_ADDR workspace, GM_ADDR tiling) {{\n'
            f"  GET_TILING_DATA(tilingData, tiling);\n"
            f"  Kernel{op} op;\n"
            f"  op.Init({args}, tilingData);\n"
            f"  op.Process();\n"
            f"}}\n")


def kernel_source(kernel_op, bug: str = "") -> str:
    """The Ascend C source of `kernel_op` (an ascendc.kernel ir.Operation)."""
    k = _Kernel(kernel_op)
    return _col_source(k, bug) if k.mode == "col" else _row_source(k, bug)


def _row_source(k: _Kernel, bug: str) -> str:
    t = k.tiling
    op = camel(k.name)
    xs, ys = _params(k)
    pitch = (t["tileCols"] + 7) // 8 * 8
    L = _head(k, op, xs, ys, "",
              f"// {t['totalRows']} rows x {t['rowLen']} elements, tiles of {t['tileRows']} x {t['tileCols']} "
              f"(pitch {pitch}), {t['tileNum']} tiles over {t['blockDim']} cores; UB {k.ub_bytes} bytes; "
              f"double buffering {'on' if k.depth() == 2 else 'off'}.")
    a = L.append
    a("    totalRows = td.totalRows; rowLen = td.rowLen; tileRows = td.tileRows; tileCols = td.tileCols;")
    a("    colTiles = td.colTiles; tileNum = td.tileNum;")
    a("    pitch = (tileCols + 7) / 8 * 8;")
    a("    tileBegin = GetBlockIdx() * td.tilesPerCore;")
    a("    tileEnd = tileBegin + td.tilesPerCore < tileNum ? tileBegin + td.tilesPerCore : tileNum;")
    if k.masks:
        a("    tileElems = (tileRows * pitch + 63) / 64 * 64;  // Compare/Select work on 64-element repeats")
        a("    pitch8 = (tileCols + 31) / 32 * 32;")
        a("    pitchH = (tileCols + 15) / 16 * 16;")
    elif k.halves:
        a("    pitchH = (tileCols + 15) / 16 * 16;  // half rows at a 32-byte pitch")
    for g in k.globals:
        if g.unused:
            a(f"    // {g.param}: not read by this kernel")
        elif not g.scalar:
            a(f"    {g.sym}.SetGlobalBuffer((__gm__ {g.ct}*){g.param}, {g.numel});")
    L += _init_buffers(k)
    if k.masks:
        a("    Duplicate(onesBuf.Get<float>(), 1.0f, tileElems);")
        a("    Duplicate(zerosBuf.Get<float>(), 0.0f, tileElems);")
    L += _load_scalars(k)
    load_cols = "LoadCols" in k.stages
    if load_cols:
        a("    if (colTiles == 1) LoadCols(0, rowLen);")
    a("  }")
    a("")
    a("  __aicore__ inline void Process() {")
    a("    for (uint32_t t = tileBegin; t < tileEnd; ++t) {")
    a("      Locate(t);")
    a("      CopyIn();")
    a("      Compute();")
    a("      CopyOut();")
    a("    }")
    a("  }")
    a("")
    a(" private:")
    a("  __aicore__ inline void Locate(uint32_t t) {")
    a("    row0 = (t / colTiles) * tileRows;")
    a("    col0 = (t % colTiles) * tileCols;")
    a("    rows = totalRows - row0 < tileRows ? totalRows - row0 : tileRows;")
    a("    cols = rowLen - col0 < tileCols ? rowLen - col0 : tileCols;")
    a("    colsAl = (cols + 7) / 8 * 8;")
    a("    cntF = (rows - 1) * pitch + colsAl;")
    a("    cntR = rows;")
    if k.masks:
        a("    cnt64 = (cntF + 63) / 64 * 64;")
    a("  }")
    a("")
    if load_cols:
        a("  __aicore__ inline void LoadCols(uint32_t c0, uint32_t n) {")
        L += _lines(k.records("LoadCols"), bug)
        a("  }")
        a("")
    a("  __aicore__ inline void CopyIn() {")
    for r in k.records("CopyIn"):
        L += _lines([r], bug)
        if bug == "missing-deque" and r.op == "enque" and r.queue.startswith("in"):
            a(f"    held{r.queue[2:-3]} = {r.local};")
    a("  }")
    a("")
    a("  __aicore__ inline void Compute() {")
    for r in k.records("Compute"):
        if bug == "missing-deque" and r.op == "deque" and r.queue.startswith("in"):
            a(f"    LocalTensor<float> {r.local} = held{r.queue[2:-3]};  // planted bug: no DeQue")
        else:
            L += _lines([r], bug)
    a("  }")
    a("")
    a("  __aicore__ inline void CopyOut() {")
    L += _lines(k.records("CopyOut"), bug)
    a("  }")
    a("")
    L += _members(k, bug)
    a("  uint32_t totalRows, rowLen, tileRows, tileCols, colTiles, tileNum, pitch, tileBegin, tileEnd;")
    a("  uint32_t row0, col0, rows, cols, colsAl, cntF, cntR;")
    if k.masks:
        a("  uint32_t tileElems, pitch8, pitchH, cnt64;")
    elif k.halves:
        a("  uint32_t pitchH;")
    a("};")
    a("")
    a(_entry(k, op, xs, ys))
    return "\n".join(L) + "\n"


def _col_source(k: _Kernel, bug: str) -> str:
    """Col mode: a core owns column chunks; per chunk the rows are streamed
    through (CopyIn / Compute / CopyOut per row tile, accumulators in TBuf),
    then the column-level ops run once (Finish) and the column results go out."""
    t = k.tiling
    op = camel(k.name)
    xs, ys = _params(k)
    L = _head(k, op, xs, ys, ": a reduction over the first axes",
              f"// {t['totalRows']} rows x {t['rowLen']} columns; column chunks of {t['tileCols']} "
              f"({t['colTiles']} chunks over {t['blockDim']} cores), row tiles of {t['tileRows']}; UB {k.ub_bytes} "
              f"bytes; double buffering {'on' if k.depth() == 2 else 'off'}.")
    a = L.append
    a("    totalRows = td.totalRows; rowLen = td.rowLen; tileRows = td.tileRows; tileCols = td.tileCols;")
    a("    pitch = (tileCols + 7) / 8 * 8;")
    if k.halves:
        a("    pitchH = (tileCols + 15) / 16 * 16;  // half rows at a 32-byte pitch")
    a("    rowTiles = (totalRows + tileRows - 1) / tileRows;")
    a("    chunkBegin = GetBlockIdx() * td.tilesPerCore;")
    a("    chunkEnd = chunkBegin + td.tilesPerCore < td.tileNum ? chunkBegin + td.tilesPerCore : td.tileNum;")
    for g in k.globals:
        if not g.unused and not g.scalar:
            a(f"    {g.sym}.SetGlobalBuffer((__gm__ {g.ct}*){g.param}, {g.numel});")
    L += _init_buffers(k)
    L += _load_scalars(k)
    a("  }")
    a("")
    a("  __aicore__ inline void Process() {")
    a("    for (uint32_t c = chunkBegin; c < chunkEnd; ++c) {")
    a("      col0 = c * tileCols;")
    a("      cols = rowLen - col0 < tileCols ? rowLen - col0 : tileCols;")
    a("      colsAl = (cols + 7) / 8 * 8;")
    if "LoadCols" in k.stages:
        a("      LoadCols(col0, cols);")
    a("      StartChunk();")
    a("      for (uint32_t rt = 0; rt < rowTiles; ++rt) {")
    a("        row0 = rt * tileRows;")
    a("        rows = totalRows - row0 < tileRows ? totalRows - row0 : tileRows;")
    a("        cntF = (rows - 1) * pitch + colsAl;")
    a("        CopyIn();")
    a("        Compute();")
    a("        CopyOut();")
    a("      }")
    a("      Finish();")
    a("      CopyOutCols();")
    a("    }")
    a("  }")
    a("")
    a(" private:")
    if "LoadCols" in k.stages:
        a("  __aicore__ inline void LoadCols(uint32_t c0, uint32_t n) {")
        L += _lines(k.records("LoadCols"), bug)
        a("  }")
        a("")
    for name in ("StartChunk", "CopyIn", "Compute", "CopyOut", "Finish", "CopyOutCols"):
        a(f"  __aicore__ inline void {name}() {{")
        L += _lines(k.records(name), bug)
        a("  }")
        a("")
    L += _members(k, bug)
    a("  uint32_t totalRows, rowLen, tileRows, tileCols, pitch, rowTiles, chunkBegin, chunkEnd;")
    a("  uint32_t row0, col0, rows, cols, colsAl, cntF;")
    if k.halves:
        a("  uint32_t pitchH;")
    a("};")
    a("")
    a(_entry(k, op, xs, ys))
    return "\n".join(L) + "\n"


# ----------------------------------------------------------------------------- the pass
NAME = "ascendc-emit"


@register_pass(NAME, "ascendc.kernel ops -> their Ascend C device kernels (op_kernel/<kernel>.cpp)",
               options={"emit-dir": Option(str, "", "write op_kernel/<kernel>.cpp here (empty: each "
                                                    "kernel's source as a remark at its op)")})
def ascendc_emit(module: ir.Operation, *, emit_dir: str):
    """Why: the emission step on its own, reading nothing but the ascendc IR
    (a module printed by mskernel-lower-to-ascend and parsed back emits the
    same kernels). Host tiling and launch stubs need the plan: they come from
    mskernel-lower-to-ascend's emit-dir."""
    import os

    failed = False
    for op in module.regions[0].blocks[0].operations:
        op = op.operation
        if op.name != "ascendc.kernel":
            continue
        try:
            src = kernel_source(op)
        except ValueError as e:
            op.location.emit_error(f"{NAME}: {e}")
            failed = True
            continue
        if not emit_dir:
            emit_remark(op.location, f"{NAME}: {_str(op, 'name')}\n{src}")
            continue
        path = os.path.join(emit_dir, "op_kernel", f"{_str(op, 'name')}.cpp")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(src)
    if failed:
        raise PassFailure()
