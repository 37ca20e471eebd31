"""Convolution kernels as im2col + cube matmuls (no pass): a group of Ascend C
kernels over GM workspaces, as group.py's matmul groups.

A kernel holding one `linalg.conv_2d_nchw_fchw` (stride 1 along the width,
dilation 1; any stride along the height; zero padding) becomes

    [filter permute (AIV)] -> im2col (AIV) -> batched cube matmul (AIC, cube.py)
        -> [epilogue (AIV, vector.py)]

  * im2col: col[b, (c, kh, kw), (oh, ow)] = in[b, c, oh*sh + kh - pt, ow + kw - pl]
    in a GM workspace. Every (b, c, kh, kw) row is a window of `in` whose rows
    are contiguous runs in GM, so the im2col is pure data movement: DataCopyPad
    GM -> UB (one run per UB row, GM stride between runs) and UB -> GM (the runs
    packed), through a TQueBind<VECIN, VECOUT> of depth 2; the zero padding is
    written from a UB buffer of zeros (Duplicate). The GM side of DataCopyPad
    has no alignment rule, which is what makes unaligned runs legal here.
  * the product y_b[O, OH*OW] = A[O, C*KH*KW] @ col_b is a batched cube kernel
    whose A has batch stride 0 (one filter for every image) and whose C lands
    in NCHW directly (or, when the kernel transposes the result [1, 0, 2, 3],
    straight into the transposed layout through Fixpipe's row pitch).
  * the operands the linalg form builds inside the kernel are absorbed:
    tensor.pad of the input (im2col's zero rows), linalg.transpose
    [1, 0, 2, 3] of the input (im2col's batch/channel strides) or of the
    filter (a permute kernel: [C, O, KK] -> [O, C, KK] by DataCopyPad runs),
    and the input gradient's rotated filter (W[f, c, KH-1-kh, KW-1-kw]: the
    rotation becomes im2col's reversed window offsets, the swap a permute).
    So the forward conv, the input gradient (conv of the padded dout with the
    rotated filter) and the filter gradient (conv of the transposed input with
    the transposed dout, batch = input channels) all run on the cube.

What is left of the kernel (bias, relu, the relu mask, an optimizer update)
is a vector kernel planned by vector.py from a copy of the function in which
the conv result is an argument, as group.py does for matmul epilogues.
Width strides > 1 and dilations raise Unsupported (the scalar fallback).
"""
from __future__ import annotations

import math

from mlir import ir

from .plan import F32, Plan, Unsupported, Value, align_up, camel, erase_dead_ops, kind_of

UB_TILE_BYTES = 64 * 1024          # one buffer of a copy queue (x2: double buffering)
ZERO_ROWS_BYTES = 16 * 1024        # the zeros a padded im2col copies from


def _op(v: ir.Value):
    owner = v.owner
    if isinstance(owner, ir.Block):
        return None
    return owner.operation if hasattr(owner, "operation") else owner


def _ints(attr) -> list[int]:
    try:
        return [int(x) for x in ir.DenseIntElementsAttr(attr)]
    except (TypeError, ValueError):
        return list(ir.DenseI64ArrayAttr(attr))


def _is_swap01(op) -> bool:
    return op is not None and op.name == "linalg.transpose" and \
        list(ir.DenseI64ArrayAttr(op.attributes["permutation"])) == [1, 0, 2, 3]


def _const_f(v: ir.Value):
    op = _op(v)
    if op is None or op.name != "arith.constant" or not isinstance(op.attributes["value"], ir.FloatAttr):
        return None
    return ir.FloatAttr(op.attributes["value"]).value


class _Input:
    """The conv's input as a view of a kernel argument: in[b, c, h, w] =
    arg[b * sb + c * sc + (h - pt) * W + (w - pl)], zero outside."""

    def __init__(self, v: ir.Value, block):
        self.pads = [0, 0, 0, 0]                     # top, bottom, left, right
        swapped = False
        while True:
            op = _op(v)
            if op is None:
                break
            if op.name == "tensor.pad":
                low = list(ir.DenseI64ArrayAttr(op.attributes["static_low"]))
                high = list(ir.DenseI64ArrayAttr(op.attributes["static_high"]))
                yld = [o.operation for o in op.regions[0].blocks[0].operations][-1]
                if len(op.operands) != 1 or low[:2] != [0, 0] or high[:2] != [0, 0] or min(low + high) < 0 \
                        or _const_f(yld.operands[0]) != 0.0:
                    raise Unsupported("a convolution input padded otherwise than with zeros on H and W")
                for i, d in enumerate((low[2], high[2], low[3], high[3])):
                    self.pads[i] += d
                v = op.operands[0]
            elif _is_swap01(op):              # pads are on H and W: the order does not matter
                swapped = not swapped
                v = op.operands[0]
            else:
                raise Unsupported(f"a convolution input computed by '{op.name}' inside the kernel")
        if v.owner != block:
            raise Unsupported("a convolution input that is not a kernel argument")
        self.arg = v.arg_number
        shape = list(ir.RankedTensorType(v.type).shape)
        self.numel = math.prod(shape)
        d0, d1, self.H, self.W = shape
        self.sb, self.sc = (self.H * self.W, d1 * self.H * self.W) if swapped else (d1 * self.H * self.W,
                                                                                  self.H * self.W)


def _int_const(v: ir.Value, sym: dict):
    if sym.get(v, ("",))[0] == "c":
        return sym[v][1]
    op = _op(v)
    if op is not None and op.name == "arith.constant" and isinstance(op.attributes["value"], ir.IntegerAttr):
        return ir.IntegerAttr(op.attributes["value"]).value
    return None


class _Filter:
    """The conv's filter [O, C, KH, KW] as a kernel argument: direct (`permute`
    False), or stored [C, O, KH, KW] (`permute`: the A matrix is a permute of
    it), possibly rotated by 180 degrees (`flip`: im2col reverses the window)."""

    def __init__(self, v: ir.Value, block):
        self.permute = self.flip = False
        op = _op(v)
        if op is not None and _is_swap01(op):
            self.permute, v = True, op.operands[0]
        elif op is not None and op.name == "linalg.generic":
            v = self._rotated(op)
            self.permute = self.flip = True
        elif op is not None:
            raise Unsupported(f"a convolution filter computed by '{op.name}' inside the kernel")
        if v.owner != block:
            raise Unsupported("a convolution filter that is not a kernel argument")
        self.arg = v.arg_number
        self.shape = list(ir.RankedTensorType(v.type).shape)

    @staticmethod
    def _rotated(op) -> ir.Value:
        """The argument W of `out[a, b, i, j] = W[b, a, KH-1-i, KW-1-j]` (the
        input gradient's rotated filter), else Unsupported."""
        shape = list(ir.RankedTensorType(op.results[0].type).shape)
        body = [o.operation for o in op.regions[0].blocks[0].operations]
        if len(op.operands) != 1 or len(shape) != 4:
            raise Unsupported("a convolution filter computed by a linalg.generic")
        sym = {}
        ext = None
        for b in body:
            if b.name == "linalg.index":
                sym[b.results[0]] = ("d", ir.IntegerAttr(b.attributes["dim"]).value)
            elif b.name == "arith.constant" and isinstance(b.attributes["value"], ir.IntegerAttr):
                sym[b.results[0]] = ("c", ir.IntegerAttr(b.attributes["value"]).value)
            elif b.name == "arith.subi" and _int_const(b.operands[0], sym) is not None and \
                    sym.get(b.operands[1], ("",))[0] == "d":
                sym[b.results[0]] = ("r", sym[b.operands[1]][1], _int_const(b.operands[0], sym))
            elif b.name == "tensor.extract":
                ext = b
            elif b.name != "linalg.yield":
                raise Unsupported("a convolution filter computed by a linalg.generic")
        if ext is None or body[-1].operands[0] != ext.results[0]:
            raise Unsupported("a convolution filter computed by a linalg.generic")
        idx = [sym.get(x) for x in list(ext.operands)[1:]]
        kh, kw = shape[2], shape[3]
        op0 = _op(ext.operands[0])
        if op0 is not None and op0.name == "arith.constant":
            raise Unsupported("a convolution filter computed by a linalg.generic")
        if idx != [("d", 1), ("d", 0), ("r", 2, kh - 1), ("r", 3, kw - 1)]:
            raise Unsupported("a convolution filter computed by a linalg.generic")
        return ext.operands[0]


def conv_op(fn):
    """The kernel's single linalg.conv_2d_nchw_fchw, or None."""
    ops = [o.operation for o in fn.regions[0].blocks[0].operations]
    convs = [o for o in ops if o.name == "linalg.conv_2d_nchw_fchw"]
    if not convs:
        return None
    if len(convs) > 1:
        raise Unsupported("a kernel with several convolutions")
    return convs[0]


# ----------------------------------------------------------------------------- DMA kernels
def _split(items: int, cores: int) -> tuple[int, int]:
    block_dim = max(1, min(cores, items))
    per = -(-items // block_dim)
    return -(-items // per), per


def _dma_plan(kernel, func, kind, what, ins, outs, tiling, ub_bytes, tile, copies, moved) -> Plan:
    plan = Plan(kernel=kernel, func=func, kind=what,
                inputs=[(Value(f"in{i}", "full", "input", index=i), n) for i, (n, _) in enumerate(ins)],
                outputs=[(Value(f"out{k}", "full", "output", index=k), n) for k, (n, _) in enumerate(outs)],
                tiling=None, full_slots=0, row_slots=0, reduces=False, compute=[], row_pre=[], scalars=[],
                cols=[], soc="")
    plan.shapes = {"in": [s for _, s in ins], "out": [s for _, s in outs]}
    plan.ub_bytes = ub_bytes
    plan.dma = {"kind": kind, "tiling": tiling, "tiles": tiling["items"], "tile": tile,
                "copies_per_item": copies, "bytes_per_item": moved}
    return plan


def im2col_plan(inp: _Input, C: int, B: int, KH: int, KW: int, OH: int, OW: int, sh: int, flip: bool,
                kernel: str, func: str, *, soc: str, cores: int, in_shape, ones: bool = False) -> Plan:
    """col[B, C*KH*KW (+1), OH*OW] of `inp` (see the module docstring);
    `ones`: a last row of ones per image (the bias column's partner)."""
    pt, pb, pl, pr = inp.pads
    pitch = align_up(OW)
    tile_rows = max(1, min(OH, UB_TILE_BYTES // (pitch * F32)))
    padded = any(inp.pads)
    zero_rows = max(1, min(OH, ZERO_ROWS_BYTES // (pitch * F32))) if padded or ones else 0
    items = B * C * KH * KW
    block_dim, per = _split(items, cores)
    tiling = {"C": C, "H": inp.H, "W": inp.W, "sb": inp.sb, "sc": inp.sc, "KH": KH, "KW": KW, "OH": OH,
              "OW": OW, "sh": sh, "pt": pt, "pl": pl, "flip": int(flip), "tileRows": tile_rows,
              "zeroRows": zero_rows, "ones": int(ones), "items": items, "itemsPerCore": per,
              "blockDim": block_dim}
    ub = 2 * tile_rows * pitch * F32 + (int(padded) + int(ones)) * zero_rows * pitch * F32
    copies = 2 * -(-OH // tile_rows) + (4 if padded else 0)
    rows = C * KH * KW + int(ones)
    plan = _dma_plan(kernel, func, "im2col", "im2col", [(inp.numel, in_shape)],
                     [(B * rows * OH * OW, [B, rows, OH * OW])], tiling, ub,
                     f"{tile_rows}x{OW}", copies, 2 * OH * OW * F32)
    plan.dma["padded"] = padded
    plan.soc = soc
    return plan


def permute_plan(A: int, Bd: int, inner: int, kernel: str, func: str, *, soc: str, cores: int, in_shape) -> Plan:
    """y[Bd, A, inner] = x[A, Bd, inner] by DataCopyPad runs of `inner` elements."""
    pitch = align_up(inner)
    if pitch * F32 > UB_TILE_BYTES:
        raise Unsupported(f"permuting runs of {inner} elements does not fit UB")
    tile_b = max(1, min(Bd, UB_TILE_BYTES // (pitch * F32)))
    block_dim, per = _split(A, cores)
    tiling = {"A": A, "Bd": Bd, "inner": inner, "tileB": tile_b, "items": A, "itemsPerCore": per,
              "blockDim": block_dim}
    plan = _dma_plan(kernel, func, "permute", "permute", [(A * Bd * inner, in_shape)],
                     [(A * Bd * inner, [Bd, A * inner])], tiling, 2 * tile_b * pitch * F32,
                     f"{tile_b}x{inner}", 2 * -(-Bd // tile_b), 2 * Bd * inner * F32)
    plan.soc = soc
    return plan


def augment_plan(O: int, K: int, kernel: str, func: str, *, soc: str, cores: int, in_shapes) -> Plan:
    """y[O, K + 1] = [a | bias]: the filter matrix with the bias as a last column."""
    pitch = align_up(K)
    if pitch * F32 > UB_TILE_BYTES:
        raise Unsupported(f"a filter row of {K} elements does not fit UB")
    tile_rows = max(1, min(O, UB_TILE_BYTES // (pitch * F32)))
    chunks = -(-O // tile_rows)
    block_dim, per = _split(chunks, cores)
    tiling = {"O": O, "K": K, "tileRows": tile_rows, "items": chunks, "itemsPerCore": per, "blockDim": block_dim}
    plan = _dma_plan(kernel, func, "augment", "augment", [(O * K, in_shapes[0]), (O, in_shapes[1])],
                     [(O * (K + 1), [O, K + 1])], tiling, 2 * tile_rows * pitch * F32, f"{tile_rows}x{K}", 4,
                     2 * tile_rows * (K + 1) * F32)
    plan.soc = soc
    return plan


def _augment_body(op: str, plan: Plan) -> str:
    return f"""// y[O, K + 1] = [a[O, K] | bias[O]] (the bias multiplies im2col's row of ones).
class Kernel{op} {{
 public:
  __aicore__ inline Kernel{op}() {{}}
  __aicore__ inline void Init(GM_ADDR x0, GM_ADDR x1, GM_ADDR y0, const {op}TilingData& td) {{
    O = td.O; K = td.K; tileRows = td.tileRows;
    begin = GetBlockIdx() * td.itemsPerCore;
    end = begin + td.itemsPerCore < td.items ? begin + td.itemsPerCore : td.items;
    aGm.SetGlobalBuffer((__gm__ float*)x0, {plan.inputs[0][1]});
    biasGm.SetGlobalBuffer((__gm__ float*)x1, {plan.inputs[1][1]});
    yGm.SetGlobalBuffer((__gm__ float*)y0, {plan.outputs[0][1]});
    pipe.InitBuffer(que, BUFFER_NUM, tileRows * ((K + 7) / 8 * 8) * sizeof(float));
  }}

  __aicore__ inline void Process() {{
    for (uint32_t chunk = begin; chunk < end; ++chunk) {{
      uint32_t o0 = chunk * tileRows, n = O - o0 < tileRows ? O - o0 : tileRows;
      Move(aGm[o0 * K], yGm[o0 * (K + 1)], n, K);          // the rows of a
      Move(biasGm[o0], yGm[o0 * (K + 1) + K], n, 1);       // the bias column
    }}
  }}

 private:
  // n runs of len elements, packed in GM -> row pitch K + 1 in GM
  __aicore__ inline void Move(const GlobalTensor<float>& src, const GlobalTensor<float>& dst, uint32_t n, uint32_t len) {{
    LocalTensor<float> t = que.AllocTensor<float>();
    DataCopyPad(t, src, DataCopyExtParams{{(uint16_t)n, len * (uint32_t)sizeof(float), 0, 0, 0}}, DataCopyPadExtParams<float>{{false, 0, 0, 0.0f}});
    que.EnQue(t);
    LocalTensor<float> u = que.DeQue<float>();
    DataCopyPad(dst, u, DataCopyExtParams{{(uint16_t)n, len * (uint32_t)sizeof(float), 0, (K + 1 - len) * (uint32_t)sizeof(float), 0}});
    que.FreeTensor(u);
  }}

  TPipe pipe;
  TQueBind<QuePosition::VECIN, QuePosition::VECOUT, BUFFER_NUM> que;
  GlobalTensor<float> aGm, biasGm, yGm;
  uint32_t O, K, tileRows, begin, end;
}};
"""


def dma_source(plan: Plan, bug: str = "") -> str:
    t = plan.dma["tiling"]
    op = camel(plan.kernel)
    head = (f"// Ascend C kernel generated by msmlir (mskernel-lower-to-ascend, soc={plan.soc}): the "
            f"{plan.dma['kind']} feeding a cube kernel of\n// @{plan.func} (data movement only: DataCopyPad "
            f"runs GM -> UB -> GM through a TQueBind, double-buffered).\n"
            '#include "kernel_operator.h"\nusing namespace AscendC;\n\n'
            "constexpr int32_t BUFFER_NUM = 2;\n"
            "\n")
    xs = ", ".join(f"GM_ADDR x{i}" for i in range(len(plan.inputs)))
    xa = ", ".join(f"x{i}" for i in range(len(plan.inputs)))
    if plan.dma["kind"] == "permute":
        body = _permute_body(op, plan)
    elif plan.dma["kind"] == "augment":
        body = _augment_body(op, plan)
    else:
        body = _im2col_body(op, plan, plan.dma["padded"], bool(t["ones"]))
    return head + body + (
        f'\nextern "C" __global__ __aicore__ void {plan.kernel}({xs}, GM_ADDR y0, GM_ADDR workspace, '
        f"GM_ADDR tiling) {{\n  GET_TILING_DATA(tilingData, tiling);\n  Kernel{op} op;\n"
        f"  op.Init({xa}, y0, tilingData);\n  op.Process();\n}}\n")


def _permute_body(op: str, plan: Plan) -> str:
    n_in, n_out = plan.inputs[0][1], plan.outputs[0][1]
    return f"""// y[Bd, A, inner] = x[A, Bd, inner]: per a, runs of `inner` elements to a GM stride of A * inner.
class Kernel{op} {{
 public:
  __aicore__ inline Kernel{op}() {{}}
  __aicore__ inline void Init(GM_ADDR x0, GM_ADDR y0, const {op}TilingData& td) {{
    A = td.A; Bd = td.Bd; inner = td.inner; tileB = td.tileB;
    begin = GetBlockIdx() * td.itemsPerCore;
    end = begin + td.itemsPerCore < td.items ? begin + td.itemsPerCore : td.items;
    xGm.SetGlobalBuffer((__gm__ float*)x0, {n_in});
    yGm.SetGlobalBuffer((__gm__ float*)y0, {n_out});
    pipe.InitBuffer(que, BUFFER_NUM, tileB * ((inner + 7) / 8 * 8) * sizeof(float));
  }}

  __aicore__ inline void Process() {{
    for (uint32_t a = begin; a < end; ++a)
      for (uint32_t b0 = 0; b0 < Bd; b0 += tileB) {{
        uint32_t n = Bd - b0 < tileB ? Bd - b0 : tileB;
        LocalTensor<float> t = que.AllocTensor<float>();
        DataCopyPad(t, xGm[(a * Bd + b0) * inner], DataCopyExtParams{{(uint16_t)n, inner * (uint32_t)sizeof(float), 0, 0, 0}}, DataCopyPadExtParams<float>{{false, 0, 0, 0.0f}});
        que.EnQue(t);
        LocalTensor<float> u = que.DeQue<float>();
        DataCopyPad(yGm[(b0 * A + a) * inner], u, DataCopyExtParams{{(uint16_t)n, inner * (uint32_t)sizeof(float), 0, (A - 1) * inner * (uint32_t)sizeof(float), 0}});
        que.FreeTensor(u);
      }}
  }}

 private:
  TPipe pipe;
  TQueBind<QuePosition::VECIN, QuePosition::VECOUT, BUFFER_NUM> que;
  GlobalTensor<float> xGm, yGm;
  uint32_t A, Bd, inner, tileB, begin, end;
}};
"""


def _im2col_body(op: str, plan: Plan, padded: bool, ones: bool) -> str:
    t = plan.dma["tiling"]
    n_in, n_out = plan.inputs[0][1], plan.outputs[0][1]
    zero_init = ("\n    pipe.InitBuffer(zeroBuf, zeroRows * pitch * sizeof(float));\n"
                 "    Duplicate(zeroBuf.Get<float>(), 0.0f, zeroRows * pitch);") if padded else ""
    if ones:
        zero_init += ("\n    pipe.InitBuffer(oneBuf, zeroRows * pitch * sizeof(float));\n"
                      "    Duplicate(oneBuf.Get<float>(), 1.0f, zeroRows * pitch);")
    if padded or ones:                 # the vector unit's fills before MTE3 copies them out
        zero_init += "\n    SetFlag<HardEvent::V_MTE3>(0);\n    WaitFlag<HardEvent::V_MTE3>(0);"
    zero_fn = """
  // rows x len values of `buf` (zeros or ones) at dst (row pitch OW)
  __aicore__ inline void Fill(TBuf<TPosition::VECCALC>& buf, uint32_t dst, uint32_t rows, uint32_t len) {
    if (rows == 0 || len == 0) return;
    LocalTensor<float> z = buf.Get<float>();
    for (uint32_t r0 = 0; r0 < rows; r0 += zeroRows) {
      uint32_t n = rows - r0 < zeroRows ? rows - r0 : zeroRows;
      DataCopyPad(colGm[dst + r0 * OW], z, DataCopyExtParams{(uint16_t)n, len * (uint32_t)sizeof(float), 0, (OW - len) * (uint32_t)sizeof(float), 0});
    }
  }
""" if padded or ones else ""
    zero_calls = """
    Fill(zeroBuf, dst, ohLo, OW);                                   // rows above the input
    Fill(zeroBuf, dst + ohHi * OW, OH - ohHi, OW);                  // rows below it
    Fill(zeroBuf, dst + ohLo * OW, ohHi - ohLo, owLo);              // left of it
    Fill(zeroBuf, dst + ohLo * OW + owHi, ohHi - ohLo, OW - owHi);  // right of it""" if padded else ""
    ones_call = """
    if (item % KK == KK - 1) Fill(oneBuf, dst + OH * OW, OH, OW);  // the image's row of ones (bias)""" \
        if ones else ""
    bufs = "".join(f"\n  TBuf<TPosition::VECCALC> {b};" for b, on in (("zeroBuf", padded), ("oneBuf", ones)) if on)
    return f"""// col[b, (c, kh, kw), (oh, ow)] = x[b, c, oh * sh + kh' - pt, ow + kw' - pl] (kh' = KH-1-kh when flip),
// zero outside x: one item per (b, c, kh, kw), {t['items']} items over {t['blockDim']} cores.
class Kernel{op} {{
 public:
  __aicore__ inline Kernel{op}() {{}}
  __aicore__ inline void Init(GM_ADDR x0, GM_ADDR y0, const {op}TilingData& td) {{
    C = td.C; H = td.H; W = td.W; sb = td.sb; sc = td.sc; KH = td.KH; KW = td.KW; OH = td.OH; OW = td.OW;
    sh = td.sh; pt = td.pt; pl = td.pl; flip = td.flip; tileRows = td.tileRows; zeroRows = td.zeroRows;
    ones = td.ones; KK = C * KH * KW;
    pitch = (OW + 7) / 8 * 8;
    begin = GetBlockIdx() * td.itemsPerCore;
    end = begin + td.itemsPerCore < td.items ? begin + td.itemsPerCore : td.items;
    xGm.SetGlobalBuffer((__gm__ float*)x0, {n_in});
    colGm.SetGlobalBuffer((__gm__ float*)y0, {n_out});
    pipe.InitBuffer(que, BUFFER_NUM, tileRows * pitch * sizeof(float));{zero_init}
  }}

  __aicore__ inline void Process() {{
    for (uint32_t item = begin; item < end; ++item) Row(item);
  }}

 private:
  __aicore__ inline void Row(uint32_t item) {{
    uint32_t kw = item % KW, kh = item / KW % KH, c = item / (KW * KH) % C, b = item / (KW * KH * C);
    if (flip) {{ kh = KH - 1 - kh; kw = KW - 1 - kw; }}
    uint32_t dst = ((item / KK) * (KK + ones) + item % KK) * OH * OW;{ones_call}
    // output rows/columns whose input position is inside x
    uint32_t ohLo = pt > kh ? (pt - kh + sh - 1) / sh : 0;
    uint32_t ohHi = H + pt > kh ? (H + pt - kh - 1) / sh + 1 : 0;
    if (ohHi > OH) ohHi = OH;
    uint32_t owLo = pl > kw ? pl - kw : 0;
    uint32_t owHi = W + pl > kw ? W + pl - kw : 0;
    if (owHi > OW) owHi = OW;
    if (ohLo > ohHi) ohLo = ohHi;
    if (owLo > owHi) owLo = owHi;{zero_calls}
    if (ohLo == ohHi || owLo == owHi) return;
    uint32_t len = owHi - owLo;
    for (uint32_t r0 = ohLo; r0 < ohHi; r0 += tileRows) {{
      uint32_t n = ohHi - r0 < tileRows ? ohHi - r0 : tileRows;
      LocalTensor<float> t = que.AllocTensor<float>();
      DataCopyPad(t, xGm[b * sb + c * sc + (r0 * sh + kh - pt) * W + owLo + kw - pl],
                  DataCopyExtParams{{(uint16_t)n, len * (uint32_t)sizeof(float), (sh * W - len) * (uint32_t)sizeof(float), 0, 0}}, DataCopyPadExtParams<float>{{false, 0, 0, 0.0f}});
      que.EnQue(t);
      LocalTensor<float> u = que.DeQue<float>();
      DataCopyPad(colGm[dst + r0 * OW + owLo], u,
                  DataCopyExtParams{{(uint16_t)n, len * (uint32_t)sizeof(float), 0, (OW - len) * (uint32_t)sizeof(float), 0}});
      que.FreeTensor(u);
    }}
  }}
{zero_fn}
  TPipe pipe;
  TQueBind<QuePosition::VECIN, QuePosition::VECOUT, BUFFER_NUM> que;{bufs}
  GlobalTensor<float> xGm, colGm;
  uint32_t C, H, W, sb, sc, KH, KW, OH, OW, sh, pt, pl, flip, tileRows, zeroRows, ones, KK, pitch, begin, end;
}};
"""


# ----------------------------------------------------------------------------- the group
def _epilogue(fn: ir.Operation, root: ir.Value, scratch: ir.Module) -> ir.Operation:
    """A copy of kernel function `fn` in `scratch` whose value `root` is a new
    last argument (every op left without a use removed)."""
    block0 = fn.regions[0].blocks[0]
    ops0 = [o.operation for o in block0.operations]
    owner = _op(root)
    idx, res = ops0.index(owner), list(owner.results).index(root)
    with fn.context, ir.Location.unknown():
        clone = fn.clone(ip=ir.InsertionPoint(scratch.body))
        block = clone.regions[0].blocks[0]
        cop = [o.operation for o in block.operations][idx]
        arg = block.add_argument(cop.results[res].type, ir.Location.unknown())
        cop.results[res].replace_all_uses_with(arg)
        erase_dead_ops(block)
        ins = [a.type for a in block.arguments]
        outs = list(ir.FunctionType(ir.TypeAttr(clone.attributes["function_type"]).value).results)
        clone.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(ins, outs))
    return clone


def _single_use(v: ir.Value):
    uses = [u.owner.operation if hasattr(u.owner, "operation") else u.owner for u in v.uses]
    return uses[0] if len(uses) == 1 else None


def _bias_add(v: ir.Value, block, O: int):
    """The argument index of b when `v`'s only use is v[n, o, h, w] + b[o]
    (a linalg.generic), else None."""
    op = _single_use(v)
    if op is None or op.name != "linalg.generic" or len(op.operands) != 3 or len(op.results) != 1:
        return None
    maps = [ir.AffineMapAttr(a).value for a in op.attributes["indexing_maps"]]
    ops = [o.operation for o in op.regions[0].blocks[0].operations]
    args = list(op.regions[0].blocks[0].arguments)
    ident = [f"d{i}" for i in range(4)]
    b = op.operands[1] if op.operands[0] == v else op.operands[0]
    if b.owner != block or list(ir.RankedTensorType(b.type).shape) != [O]:
        return None
    iv, ib = (0, 1) if op.operands[0] == v else (1, 0)
    if [str(e) for e in maps[iv].results] != ident or [str(e) for e in maps[ib].results] != ["d1"] or \
            [str(e) for e in maps[2].results] != ident:
        return None
    if len(ops) != 2 or ops[0].name != "arith.addf" or set(ops[0].operands) != {args[0], args[1]} or \
            ops[1].operands[0] != ops[0].results[0]:
        return None
    return b.arg_number


def plan_conv(fn: ir.Operation, kernel: str, *, soc: str, cores: tuple, model, build_vector) -> Plan:
    """The group of a convolution kernel (Unsupported when it is not one this
    module maps onto the cube). `cores`: (vector cores, cube cores)."""
    from .cube import cube_plan
    conv = conv_op(fn)
    if conv is None:
        raise Unsupported("no convolution")
    func = ir.StringAttr(fn.attributes["sym_name"]).value
    block = fn.regions[0].blocks[0]
    strides, dil = _ints(conv.attributes["strides"]), _ints(conv.attributes["dilations"])
    if dil != [1, 1]:
        raise Unsupported(f"a dilated convolution (dilations {dil})")
    if strides[1] != 1:
        raise Unsupported(f"a convolution with a width stride of {strides[1]} (im2col copies unit-stride runs)")
    for v in list(conv.operands)[:2]:
        if not isinstance(ir.RankedTensorType(v.type).element_type, ir.F32Type):
            raise Unsupported("a convolution that is not f32")
    init = conv.operands[2]
    from .plan import _const_scalar
    if _const_scalar(init) != 0.0:
        raise Unsupported("a convolution accumulating into a non-zero initial value")
    inp, flt = _Input(conv.operands[0], block), _Filter(conv.operands[1], block)
    B, C, _, _ = ir.RankedTensorType(conv.operands[0].type).shape
    O, _, KH, KW = ir.RankedTensorType(conv.operands[1].type).shape
    _, _, OH, OW = ir.RankedTensorType(conv.results[0].type).shape
    K, P = C * KH * KW, OH * OW
    args = list(block.arguments)
    arg_shapes = [list(ir.RankedTensorType(a.type).shape) for a in args]
    parts, workspaces = [], []

    def ws(shape):
        workspaces.append(list(shape))
        return ("ws", len(workspaces) - 1)

    a_src = ("arg", flt.arg)
    if flt.permute and flt.shape[0] > 1 and flt.shape[1] > 1:
        pp = permute_plan(flt.shape[0], flt.shape[1], KH * KW, f"{kernel}_wt", func, soc=soc, cores=cores[0],
                          in_shape=flt.shape)
        a_src = ws(pp.shapes["out"][0])
        parts.append((pp, [("arg", flt.arg)], [a_src]))
    a_shape = arg_shapes[flt.arg] if a_src[0] == "arg" else workspaces[a_src[1]]
    # the root: the conv's result, its [1, 0, 2, 3] transpose (written so by
    # Fixpipe) or its sum with a per-channel bias (an extra K column: [W | b] @ [col; 1])
    root, bias = conv.results[0], _bias_add(conv.results[0], block, O)
    uses = [u.owner.operation if hasattr(u.owner, "operation") else u.owner for u in conv.results[0].uses]
    if bias is not None:
        root = _single_use(conv.results[0]).results[0]
        ap = augment_plan(O, K, f"{kernel}_bias", func, soc=soc, cores=cores[0],
                          in_shapes=[a_shape, arg_shapes[bias]])
        aug = ws([O, K + 1])
        parts.append((ap, [a_src, ("arg", bias)], [aug]))
        a_src, a_shape, K = aug, [O, K + 1], K + 1
    layout = {"sA": 0, "sB": K * P, "sC": O * P, "lda": K, "ldb": P, "ldc": P}
    if bias is None and len(uses) == 1 and _is_swap01(uses[0]):
        root, layout = uses[0].results[0], dict(layout, sC=P, ldc=B * P)
    ip = im2col_plan(inp, C, B, KH, KW, OH, OW, strides[0], flt.flip, f"{kernel}_im2col", func, soc=soc,
                     cores=cores[0], in_shape=arg_shapes[inp.arg], ones=bias is not None)
    col = ws(ip.shapes["out"][0])
    parts.append((ip, [("arg", inp.arg)], [col]))
    root_shape = list(ir.RankedTensorType(root.type).shape)
    cp = cube_plan(O, P, K, f"{kernel}_mm", func, "conv", soc=soc, cores=cores[1], model=model, batch=B,
                   layout=layout, in_shapes=[a_shape, ip.shapes["out"][0]], out_shape=root_shape)
    ret = [o.operation for o in block.operations][-1]
    r = ret.operands[0] if len(ret.operands) == 1 else None
    while r is not None and _op(r) is not None and _op(r).name in ("tensor.expand_shape", "tensor.collapse_shape"):
        r = _op(r).operands[0]
    direct = r is not None and r == root
    prod = ("out", 0) if direct else ws(root_shape)
    parts.append((cp, [a_src, col], [prod]))
    if not direct:
        with fn.context, ir.Location.unknown():
            scratch = ir.Module.create()
            ep = _epilogue(fn, root, scratch)
            vp = build_vector(ep, f"{kernel}_ep")
        parts.append((vp, [("arg", i) for i in range(len(args))] + [prod],
                      [("out", k) for k in range(len(ret.operands))]))
    elif cp.shapes["out"][0] != list(ir.RankedTensorType(ret.operands[0].type).shape):
        cp.shapes["out"] = [list(ir.RankedTensorType(ret.operands[0].type).shape)]
    plan = Plan(kernel=kernel, func=func, kind=kind_of(fn),
                inputs=[(Value(f"in{i}", "full", "input", index=i), 0) for i in range(len(args))],
                outputs=[(Value(f"out{k}", "full", "output", index=k), 0) for k in range(len(ret.operands))],
                tiling=None, full_slots=0, row_slots=0, reduces=False, compute=[], row_pre=[], scalars=[],
                cols=[], soc=soc)
    plan.shapes = {"in": arg_shapes, "out": [list(ir.RankedTensorType(v.type).shape) for v in ret.operands]}
    plan.parts = parts
    plan.workspaces = workspaces
    return plan
