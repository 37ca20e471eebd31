"""Max pooling and its gradient on the vector path (no pass).

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
              contrib_k = dy * f; then dx = Gather(contrib, inverse table)
              (elements that no window covers read a zero slot)

Queues of depth 2 overlap a tile's copies with the previous tile's compute.
Padding, overlapping windows in the gradient, average pooling and its
gradient raise Unsupported (the scalar fallback).
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
    """'max' (forward), 'max_grad' or None."""
    ops = _body(fn)
    names = [o.name for o in ops]
    if "linalg.pooling_nchw_max" in names:
        return "max"
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


def _arg(v, block, what):
    if v.owner != block:
        op = _op(v)
        raise Unsupported(f"a pooling {what} computed by '{op.name if op else '?'}' inside the kernel "
                          "(padded pooling is not emitted on the vector path)")
    return v.arg_number


def plan_pool(fn: ir.Operation, kernel: str, *, soc: str, cores: int, model) -> Plan:
    kind = pool_kind(fn)
    block = fn.regions[0].blocks[0]
    ops = _body(fn)
    allowed = {"arith.constant", "tensor.empty", "linalg.fill", "func.return"}
    ret = ops[-1]
    if kind == "max":
        pool = next(o for o in ops if o.name == "linalg.pooling_nchw_max")
        xi = _arg(pool.operands[0], block, "input")
        if any(o.name not in allowed and o != pool for o in ops):
            raise Unsupported("a max pooling with other ops in its kernel")
        if _ints(pool.attributes["dilations"]) != [1, 1]:
            raise Unsupported("a dilated pooling")
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
        if (sh, sw) != (KH, KW):
            raise Unsupported(f"a max-pool gradient with overlapping or gapped windows (window {KH}x{KW}, "
                              f"stride {sh}x{sw})")
        xi = _arg(g0.operands[0], block, "input")
        if _unpad(g1.operands[1]) != g0.results[1]:
            raise Unsupported("a max-pool gradient of an unexpected form")
        dyi = _arg(_unpad(g1.operands[0]), block, "gradient")
        if len(ret.operands) != 1 or ret.operands[0] != g1.results[0]:
            raise Unsupported("a max-pool gradient kernel returning something else")
        if any(o.name not in allowed | {"tensor.pad"} and o not in (g0, g1) for o in ops):
            raise Unsupported("a max-pool gradient with other ops in its kernel")
        ins = [xi, dyi]
    else:
        raise Unsupported("no pooling")
    x_t = ir.RankedTensorType(block.arguments[xi].type)
    if not isinstance(x_t.element_type, ir.F32Type):
        raise Unsupported("a pooling that is not f32")
    N, C, H, W = x_t.shape
    OH, OW = (H - KH) // sh + 1, (W - KW) // sw + 1
    if kind == "max_grad" and list(ir.RankedTensorType(block.arguments[ins[1]].type).shape) != [N, C, OH, OW]:
        raise Unsupported("a max-pool gradient of an unexpected form")
    planes, Wp, K = N * C, align_up(W), KH * KW

    def ub(tp):
        cnt = align_up(tp * OH * OW, 64)
        inb = tp * H * Wp
        b = 2 * inb * F32 + 2 * cnt * F32 + K * cnt * 4 + 2 * cnt * F32          # x, y queues, tables, m, g
        if kind == "max_grad":
            b += 2 * cnt * F32 + (inb + 8) * 4 + 5 * cnt * F32 + K * cnt * F32 + 8 * F32 + 2 * inb * F32 + cnt // 8
            b -= 2 * cnt * F32                                                    # no y queue of outputs
        return b
    if ub(1) > min(UB_BUDGET, model.ub):
        raise Unsupported(f"one {H}x{W} plane of the pooling does not fit UB")
    tp = 1                          # as many planes as spread the tiles over every core and fit UB
    while tp < -(-planes // cores) and ub(tp + 1) <= min(UB_BUDGET, model.ub):
        tp += 1
    tiles = -(-planes // tp)
    block_dim = min(cores, tiles)
    per = -(-tiles // block_dim)
    block_dim = -(-tiles // per)
    tiling = {"planes": planes, "H": H, "W": W, "OH": OH, "OW": OW, "KH": KH, "KW": KW, "sh": sh, "sw": sw,
              "tilePlanes": tp, "tileNum": tiles, "tilesPerCore": per, "blockDim": block_dim}
    func = ir.StringAttr(fn.attributes["sym_name"]).value
    args = list(block.arguments)
    plan = Plan(kernel=kernel, func=func, kind=kind_of(fn),
                inputs=[(Value(f"in{i}", "full", "input", index=i), math.prod(ir.RankedTensorType(a.type).shape))
                        for i, a in enumerate(args)],
                outputs=[(Value("out0", "full", "output", index=0),
                          math.prod(ir.RankedTensorType(ret.operands[0].type).shape))],
                tiling=None, full_slots=0, row_slots=0, reduces=False, compute=[], row_pre=[], scalars=[],
                cols=[], soc=soc)
    plan.shapes = {"in": [list(ir.RankedTensorType(a.type).shape) for a in args],
                   "out": [list(ir.RankedTensorType(ret.operands[0].type).shape)]}
    plan.ub_bytes = ub(tp)
    plan.pool = {"kind": kind, "tiling": tiling, "tiles": tiles, "tile": f"{tp}x{H}x{W}", "x": xi,
                 "dy": ins[1] if kind == "max_grad" else None}
    return plan


def pool_source(plan: Plan, bug: str = "") -> str:
    p = plan.pool
    t = p["tiling"]
    op = camel(plan.kernel)
    grad = p["kind"] == "max_grad"
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
         "constexpr int32_t BUFFER_NUM = 2;", f"constexpr uint32_t KWIN = {K};", "",
         f"class Kernel{op} {{", " public:", f"  __aicore__ inline Kernel{op}() {{}}",
         f"  __aicore__ inline void Init({params}, const {op}TilingData& td) {{",
         "    planes = td.planes; H = td.H; W = td.W; OH = td.OH; OW = td.OW; KH = td.KH; KW = td.KW;",
         "    sh = td.sh; sw = td.sw; tilePlanes = td.tilePlanes; tileNum = td.tileNum;",
         "    Wp = (W + 7) / 8 * 8;",
         "    inElems = tilePlanes * H * Wp;",
         "    cnt = (tilePlanes * OH * OW + 63) / 64 * 64;  // Compare works on 256-byte repeats",
         "    tileBegin = GetBlockIdx() * td.tilesPerCore;",
         "    tileEnd = tileBegin + td.tilesPerCore < tileNum ? tileBegin + td.tilesPerCore : tileNum;"]
    L += gms
    L += ["    pipe.InitBuffer(xQue, BUFFER_NUM, inElems * sizeof(float));",
          "    pipe.InitBuffer(tableBuf, KWIN * cnt * sizeof(uint32_t));",
          "    pipe.InitBuffer(gBuf, cnt * sizeof(float));"]
    if grad:
        L += ["    pipe.InitBuffer(mBuf, cnt * sizeof(float));",
              "    pipe.InitBuffer(dyQue, BUFFER_NUM, cnt * sizeof(float));",
              "    pipe.InitBuffer(yQue, BUFFER_NUM, inElems * sizeof(float));",
              "    pipe.InitBuffer(invBuf, inElems * sizeof(uint32_t));",
              "    pipe.InitBuffer(contribBuf, (KWIN * cnt + 8) * sizeof(float));",
              "    pipe.InitBuffer(takenBuf, cnt * sizeof(float));",
              "    pipe.InitBuffer(eBuf, cnt * sizeof(float));",
              "    pipe.InitBuffer(tBuf, cnt * sizeof(float));",
              "    pipe.InitBuffer(onesBuf, cnt * sizeof(float));",
              "    pipe.InitBuffer(zerosBuf, cnt * sizeof(float));",
              "    pipe.InitBuffer(bitsBuf, cnt / 8);",
              "    Duplicate(onesBuf.Get<float>(), 1.0f, cnt);",
              "    Duplicate(zerosBuf.Get<float>(), 0.0f, cnt);"]
    else:
        L += ["    pipe.InitBuffer(yQue, BUFFER_NUM, cnt * sizeof(float));"]
    L += ["    BuildTables();", "  }", "",
          "  __aicore__ inline void Process() {",
          "    for (uint32_t t = tileBegin; t < tileEnd; ++t) {",
          "      plane0 = t * tilePlanes;",
          "      n = planes - plane0 < tilePlanes ? planes - plane0 : tilePlanes;",
          "      CopyIn();", "      Compute();", "      CopyOut();", "    }", "  }", "",
          " private:",
          "  // byte offsets: table k, element (p, oh, ow) -> x[p, oh * sh + kh, ow * sw + kw] in the UB tile"]
    L += ["  __aicore__ inline void BuildTables() {",
          "    LocalTensor<uint32_t> tab = tableBuf.Get<uint32_t>();",
          "    for (uint32_t k = 0; k < KWIN; ++k) {",
          "      uint32_t kh = k / KW, kw = k % KW;",
          "      for (uint32_t i = 0; i < cnt; ++i) {",
          "        uint32_t j = i < tilePlanes * OH * OW ? i : 0;",
          "        uint32_t p = j / (OH * OW), oh = j / OW % OH, ow = j % OW;",
          "        tab.SetValue(k * cnt + i, ((p * H + oh * sh + kh) * Wp + ow * sw + kw) * sizeof(float));",
          "      }", "    }"]
    if grad:
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
          "    LocalTensor<float> x = xQue.DeQue<float>();",
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
              "      Mul(c[k * cnt], dy, e, cnt);",
              "    }",
              "    LocalTensor<float> y = yQue.AllocTensor<float>();",
              "    Gather(y, c, invBuf.Get<uint32_t>(), 0, inElems);",
              "    yQue.EnQue(y);",
              "    dyQue.FreeTensor(dy);"]
    else:
        L += ["    yQue.EnQue(m);"]
    L += ["    xQue.FreeTensor(x);", "  }", "",
          "  __aicore__ inline void CopyOut() {",
          "    LocalTensor<float> y = yQue.DeQue<float>();"]
    if grad:
        L += ["    DataCopyPad(yGm[plane0 * H * W], y, DataCopyExtParams{(uint16_t)(n * H), W * (uint32_t)sizeof(float), 0, 0, 0});"]
    else:
        L += ["    DataCopyPad(yGm[plane0 * OH * OW], y, DataCopyExtParams{1, n * OH * OW * (uint32_t)sizeof(float), 0, 0, 0});"]
    L += ["    yQue.FreeTensor(y);", "  }", "",
          "  TPipe pipe;",
          "  TQue<QuePosition::VECIN, BUFFER_NUM> xQue;" + (" TQue<QuePosition::VECIN, BUFFER_NUM> dyQue;" if grad else ""),
          "  TQue<QuePosition::VECOUT, BUFFER_NUM> yQue;",
          "  TBuf<TPosition::VECCALC> tableBuf, gBuf" +
          (", mBuf, invBuf, contribBuf, takenBuf, eBuf, tBuf, onesBuf, zerosBuf, bitsBuf;" if grad else ";"),
          "  GlobalTensor<float> xGm, yGm" + (", dyGm;" if grad else ";"),
          "  uint32_t planes, H, W, OH, OW, KH, KW, sh, sw, tilePlanes, tileNum, Wp, inElems, cnt, tileBegin, tileEnd, plane0, n;",
          "};", "",
          f'extern "C" __global__ __aicore__ void {plan.kernel}({params}, GM_ADDR workspace, GM_ADDR tiling) {{',
          "  GET_TILING_DATA(tilingData, tiling);",
          f"  Kernel{op} op;",
          f"  op.Init({', '.join(xs + ['y0'])}, tilingData);",
          "  op.Process();", "}"]
    return "\n".join(L) + "\n"
