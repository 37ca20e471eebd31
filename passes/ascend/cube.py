"""Cube kernels: a plain matmul kernel (fill 0 + linalg.matmul or
linalg.batch_matmul; f32, or f16 operands accumulating in f32) as Ascend C
on the cube unit (no pass).

Per output tile of baseM x baseN (tiles split over the cube cores by
GetBlockIdx), for each K step of baseK: A and B tiles GM (ND) -> L1 (A1/B1)
with DataCopy(..., Nd2NzParams) (ND -> NZ), L1 -> L0A/L0B with LoadData, one
fractal row at a time (NZ -> zZ), Mmad into L0C (the first K step
initialises C, the others accumulate), then Fixpipe L0C -> GM (NZ -> ND).
Every move goes through a TQue (AllocTensor / EnQue / DeQue / FreeTensor).
Batched products loop over the batch inside the tile index (tiles = batch x
M tiles x N tiles over the cores), each operand with its own batch stride
and row pitch (conv.py's A has batch stride 0; a transposed result is a row
pitch). f16 operands use fractals of 16 x 16 (C0 = 16) and accumulate in f32
in L0C; an f16 result is converted by Fixpipe (QuantMode_t::F322F16).
The layouts are those lib/ascendc_emu/ascendc_emu_cube.h documents.
Base sizes: baseM = baseN = min(128, dim rounded to 16); baseK the cheapest
(cost model) of 64 (f16 128) .. 1024 whose two A2 and two B2 buffers fit
the 64 KiB L0A/L0B (thin tiles: fewer, longer K steps pay each copy's fixed
DMA cost less often; 128 x 128 f32 tiles: 64); C 64 KiB of the 128 KiB L0C.
Double buffering: every queue has two buffers where two fit (L1, L0A/L0B,
L0C); the loop runs over (tile, K step) pairs and copies step s + 1's A
and B tiles in before step s's Split/Mmad, so MTE2 runs under the cube
(the emulator enforces the depth: with one buffer the prefetch has none
free). Transposed operands and fused epilogues are
group.py's (extra vector kernels over GM workspaces); batched matmuls with
transposed operands or epilogues are not emitted (Unsupported).
Split-K (cube_plan's `sum_plan`; conv.py's products use it): when the output
tiles leave cube cores idle and K has several steps, an item is a (tile, K
slice) pair on a core of its own, its f32 partial product written to a GM
workspace (partial j at j * sS), and a second kernel launch -- a vector sum
over the first axis -- adds them. A second launch is the phase boundary
because the emulator runs blocks one after the other (SyncAll is an error
there). Taken when the cost model's estimate of both kernels is below the
unsplit one. f16 operands: the partials stay f32 (no Fixpipe conversion) and
the sum kernel rounds once to half, as the unsplit kernel's Fixpipe does.
The cost model charges no launch overhead, so a split is taken however
small its saving (a real NPU launch costs a few microseconds).
"""
from __future__ import annotations

from mlir import ir

from ..common.linalg import matmul_info
from .plan import F32, Plan, Unsupported, Value, _const_scalar, camel, kind_of

CUBE_FIELDS = ("M", "N", "K", "baseM", "baseN", "baseK", "nTiles", "tileNum", "tilesPerCore", "blockDim")


def _al(n: int, a: int) -> int:
    return (n + a - 1) // a * a


def matmul_parts(fn):
    """(matmul op, MatmulInfo, other compute ops) of a matmul kernel; Unsupported
    unless it holds one f32 matmul of two kernel arguments accumulating into 0."""
    ops = [op.operation for op in fn.regions[0].blocks[0].operations]
    mms = [op for op in ops if matmul_info(op) is not None or f16_matmul_info(op) is not None]
    if len(mms) != 1:
        raise Unsupported("a matmul kernel with several matmuls (or a batched matmul)")
    mm = mms[0]
    info = matmul_info(mm) or f16_matmul_info(mm)
    if _const_scalar(mm.operands[2]) != 0.0:
        raise Unsupported("a matmul accumulating into a non-zero initial value")
    block = fn.regions[0].blocks[0]
    for v in list(mm.operands)[:2]:
        if not (isinstance(v.owner, ir.Block) and v.owner == block):
            raise Unsupported("a matmul operand computed inside the kernel (a prologue)")
    others = [op for op in ops if op.name not in ("arith.constant", "tensor.empty", "linalg.fill",
                                                  "func.return") and op != mm]
    return mm, info, others


def f16_matmul_info(op):
    """MatmulInfo of a linalg.matmul of f16 operands accumulating in f32 (AMP:
    the cube's native mode), either operand possibly transposed (explicit
    indexing maps: nn.Dense's weight, the weight gradient's activations), else None."""
    from ..common.linalg import MatmulInfo, _dims_of, defining_op_name, loop_info
    if op.name != "linalg.matmul" or len(op.operands) != 3:
        return None
    if [_etype(v) for v in op.operands] != ["f16", "f16", "f32"]:
        return None
    li = loop_info(op)
    if li is None or li.rank != 3 or li.iterators != ["parallel", "parallel", "reduction"]:
        return None
    da, db, dc = (_dims_of(m) for m in li.maps)
    if dc != [0, 1] or da not in ([0, 2], [2, 0]) or db not in ([2, 1], [1, 2]):
        return None
    return MatmulInfo(li.ranges[0], li.ranges[1], li.ranges[2], da == [2, 0], db == [1, 2],
                      defining_op_name(op.operands[2]) == "linalg.fill")


def _etype(v) -> str:
    et = ir.RankedTensorType(v.type).element_type
    return "f16" if isinstance(et, ir.F16Type) else "f32" if isinstance(et, ir.F32Type) else str(et)


def direct_product(fn):
    """(op, batch, M, N, K, input dtype, result dtype) when the kernel is exactly
    C = A @ B of its two arguments as linalg.matmul / linalg.batch_matmul
    accumulating into a zero f32 tensor, with f32 or f16 operands, the result
    possibly truncated to f16; else None."""
    block = fn.regions[0].blocks[0]
    ops = [op.operation for op in block.operations]
    mms = [op for op in ops if op.name in ("linalg.matmul", "linalg.batch_matmul")]
    if len(mms) != 1:
        return None
    mm = mms[0]
    args = list(block.arguments)
    if len(args) != 2 or list(mm.operands)[:2] != args or _const_scalar(mm.operands[2]) != 0.0:
        return None
    ta, tb, tc = (_etype(v) for v in mm.operands)
    if ta != tb or ta not in ("f32", "f16") or tc != "f32":
        return None
    if "indexing_maps" in mm.attributes:            # linalg.matmul with explicit (transposed) maps
        return None
    ret = ops[-1]
    if len(ret.operands) != 1:
        return None
    res, out = ret.operands[0], "f32"
    if res != mm.results[0]:
        trunc = res.owner.operation if not isinstance(res.owner, ir.Block) else None
        if trunc is None or trunc.name != "linalg.generic" or list(trunc.operands)[:1] != [mm.results[0]]:
            return None
        body = [o.operation for o in trunc.regions[0].blocks[0].operations]
        if len(trunc.operands) != 2 or [o.name for o in body] != ["arith.truncf", "linalg.yield"] or \
                _etype(trunc.results[0]) != "f16":
            return None
        out = "f16"
    others = [op for op in ops if op.name not in ("arith.constant", "tensor.empty", "linalg.fill", "func.return",
                                                  "linalg.generic") and op != mm]
    if others or sum(op.name == "linalg.generic" for op in ops) != (out == "f16"):
        return None
    sa, sb = (ir.RankedTensorType(v.type).shape for v in args)
    batch = sa[0] if mm.name == "linalg.batch_matmul" else 1
    M, K = sa[-2:]
    N = sb[-1]
    return mm, batch, M, N, K, ta, out


def plan_matmul(fn, kernel, *, soc, cores, model):
    """A kernel that is exactly C = A @ B (plain operands; batched, f16
    operands) -> one cube kernel."""
    d = direct_product(fn)
    if d is not None:
        mm, batch, M, N, K, dtype, out = d
        plan = cube_plan(M, N, K, kernel, ir.StringAttr(fn.attributes["sym_name"]).value, kind_of(fn), soc=soc,
                         cores=cores, model=model, batch=batch, dtype=dtype)
        if out == "f16":
            plan.cube["out_dtype"] = "f16"
            plan.shapes["out_dtypes"] = ["float16"]
        return plan
    if any(op.operation.name == "linalg.batch_matmul" for op in fn.regions[0].blocks[0].operations):
        raise Unsupported("a batched matmul with transposed operands or an epilogue")
    mm, info, others = matmul_parts(fn)
    if info.a_km or info.b_nk:
        raise Unsupported("a matmul with a transposed operand")
    if others:
        raise Unsupported("a matmul with a fused epilogue")
    ret = [op.operation for op in fn.regions[0].blocks[0].operations][-1]
    if len(ret.operands) != 1 or ret.operands[0] != mm.results[0]:
        raise Unsupported("a matmul kernel returning something else than the product")
    args = list(fn.regions[0].blocks[0].arguments)
    if len(args) != 2 or list(mm.operands)[:2] != args:
        raise Unsupported("matmul operands that are not the kernel's two arguments in order")
    return cube_plan(info.m, info.n, info.k, kernel, ir.StringAttr(fn.attributes["sym_name"]).value,
                     kind_of(fn), soc=soc, cores=cores, model=model)


def cube_plan(M: int, N: int, K: int, kernel: str, func: str, kind: str, *, soc, cores, model,
              batch: int = 1, layout: dict | None = None, dtype: str = "f32", in_shapes=None,
              out_shape=None, sum_plan=None) -> Plan:
    """The cube kernel of C_b[M, N] = A_b[M, K] @ B_b[K, N] for b < batch (all
    row-major in GM). `layout`: batch strides sA/sB/sC (sA = 0: one A for
    every batch, a convolution's filter) and row pitches lda/ldb/ldc, in
    elements (default: dense); grouped batches: b = (bo, bi) with bi < bG,
    operand X at bo * sX + bi * gX. `dtype` "f16": A and B are half, the
    product accumulates in f32 in L0C (the cube's native mode) and C is f32.
    baseK is the candidate (64 .. 1024, as deep as two buffers fit L0A/L0B)
    with the lowest cost-model estimate (cost.py).

    Split-K (`sum_plan` given: a callable (S, n) -> the vector plan of
    y[n] = sum over s < S of p[s, n]): when the output tiles leave cube cores
    idle and K has several steps, each (tile, K slice) is an item of its own
    writing an f32 partial product to a GM workspace, and a second kernel
    launch (the vector sum: the emulator has no barrier between cores, nor
    has Ascend C one across a launch's blocks in general) adds them. Taken
    when the two kernels' estimate is below the unsplit one; the returned
    plan then has `split_k` = (S, the sum's plan) and writes [S, n] partials
    (cube["split"] = S)."""
    from .cost import estimate
    es = 2 if dtype == "f16" else F32
    c0 = 32 // es
    bm, bn = min(128, _al(M, 16)), min(128, _al(N, 16))
    room = min(model.l0a // (2 * bm * es), model.l0b // (2 * _al(bn, c0) * es)) // 16 * 16
    low = 128 if dtype == "f16" else 64
    cands = sorted({min(b, _al(K, c0)) for b in (low, 128, 256, 512, 1024) if b == low or b <= room})
    best = None
    for bk in cands:
        plan = _cube_plan(M, N, K, bk, kernel, func, kind, soc=soc, cores=cores, model=model, batch=batch,
                          layout=layout, dtype=dtype, in_shapes=in_shapes, out_shape=out_shape)
        cyc = estimate(plan)["cycles"]
        if best is None or cyc < best[0]:
            best = (cyc, plan)
    if sum_plan is None:
        return best[1]
    t0 = best[1].cube["tiling"]
    c_numel = best[1].cube["numel"][2]
    if t0["tileNum"] >= cores or c_numel != batch * M * N:
        return best[1]      # every core busy, or a result with gaps (the sum would write them)
    sums: dict = {}
    for bk in cands:        # each depth of K step, each number of slices (at least 2 steps' worth)
        steps = -(-K // bk)
        seen = set()
        for S in range(2, min(cores // t0["tileNum"], steps) + 1):
            per = -(-steps // S)
            S = -(-steps // per)
            if S in seen or S < 2:
                continue
            seen.add(S)
            plan = _cube_plan(M, N, K, bk, kernel, func, kind, soc=soc, cores=cores, model=model, batch=batch,
                              layout=layout, dtype=dtype, in_shapes=in_shapes, out_shape=out_shape, split=(S, per))
            if S not in sums:
                sums[S] = sum_plan(S, c_numel)
            cyc = estimate(plan)["cycles"] + estimate(sums[S])["cycles"]
            if cyc < best[0]:
                plan.split_k = (S, sums[S])
                best = (cyc, plan)
    return best[1]


def _cube_plan(M: int, N: int, K: int, bk: int, kernel: str, func: str, kind: str, *, soc, cores, model,
               batch: int, layout: dict | None, dtype: str, in_shapes, out_shape, split=None) -> Plan:
    lay = {"sA": M * K, "sB": K * N, "sC": M * N, "lda": K, "ldb": N, "ldc": N, "bG": 1, "gA": 0, "gB": 0, "gC": 0}
    lay.update(layout or {})
    for key in ("lda", "ldb"):
        if lay[key] > 65535:
            raise Unsupported(f"a row pitch of {lay[key]} elements (Nd2NzParams.srcDValue is 16 bits)")
    es = 2 if dtype == "f16" else F32
    c0 = 32 // es
    bm, bn = min(128, _al(M, 16)), min(128, _al(N, 16))
    l0a, l0b, l0c = bm * _al(bk, c0) * es, _al(bk, 16) * _al(bn, c0) * es, bm * bn * F32
    l1 = bm * _al(bk, c0) * es + _al(bk, 16) * bn * es
    for what, need, cap in (("L0A", l0a, model.l0a), ("L0B", l0b, model.l0b), ("L0C", l0c, model.l0c),
                            ("L1", l1, model.l1)):
        if need > cap:
            raise Unsupported(f"{what} needs {need} bytes (has {cap})")
    # double buffering: two buffers per level where two fit (L1 and L0A/L0B: the next K step's
    # copies under this step's Mmad; L0C: the next tile's Mmads under this tile's Fixpipe)
    depth_in = 2 if 2 * l1 <= model.l1 and 2 * l0a <= model.l0a and 2 * l0b <= model.l0b else 1
    depth_c = 2 if 2 * l0c <= model.l0c else 1
    mt, nt = -(-M // bm), -(-N // bn)
    S, kper = split or (1, 0)
    tiles = batch * mt * nt * S                 # split-K: an item per (tile, K slice)
    block_dim = min(cores, tiles)
    per = -(-tiles // block_dim)
    block_dim = -(-tiles // per)
    tiling = {"M": M, "N": N, "K": K, "baseM": bm, "baseN": bn, "baseK": bk, "nTiles": nt, "tileNum": tiles,
              "tilesPerCore": per, "blockDim": block_dim, "batchTiles": mt * nt, "sA": lay["sA"], "sB": lay["sB"],
              "sC": lay["sC"], "lda": lay["lda"], "ldb": lay["ldb"], "ldc": lay["ldc"], "bG": lay["bG"],
              "gA": lay["gA"], "gB": lay["gB"], "gC": lay["gC"]}
    nb, g1 = batch // lay["bG"] - 1, lay["bG"] - 1
    if S > 1:      # slice j of K steps [j * kPer, (j + 1) * kPer), its partial at j * sS
        tiling.update({"kSplit": S, "kPer": kper, "sS": batch * M * N})
    a_numel = lay["sA"] * nb + lay["gA"] * g1 + (M - 1) * lay["lda"] + K
    b_numel = lay["sB"] * nb + lay["gB"] * g1 + (K - 1) * lay["ldb"] + N
    c_numel = lay["sC"] * nb + lay["gC"] * g1 + (M - 1) * lay["ldc"] + N
    if S > 1:
        c_numel = S * batch * M * N
    va = Value("in0", "full", "input", index=0)
    vb = Value("in1", "full", "input", index=1)
    vc = Value("out0", "full", "output", index=0)
    plan = Plan(kernel=kernel, func=func, kind=kind,
                inputs=[(va, a_numel), (vb, b_numel)], outputs=[(vc, c_numel)], tiling=None, full_slots=0,
                row_slots=0, reduces=False, compute=[], row_pre=[], scalars=[], cols=[], soc=soc,
                double_buffer=depth_in == 2)
    lead = [batch] if batch > 1 else []
    dense = layout is None
    plan.shapes = {"in": in_shapes or ([lead + [M, K], lead + [K, N]] if dense else [[a_numel], [b_numel]]),
                   "out": [[S, batch * M * N] if S > 1 else out_shape or (lead + [M, N] if dense else [c_numel])]}
    if dtype == "f16":
        plan.shapes["in_dtypes"] = ["float16", "float16"]
    plan.cube = {"tiling": tiling, "tiles": tiles, "tile": f"{bm}x{bn}x{bk}", "l1_bytes": depth_in * l1,
                 "l0a_bytes": depth_in * l0a, "l0b_bytes": depth_in * l0b, "l0c_bytes": depth_c * l0c,
                 "depth": (depth_in, depth_c), "batch": batch, "dtype": dtype,
                 "numel": (a_numel, b_numel, c_numel), "split": S}
    if S > 1:
        plan.cube["tile"] += f" split-K {S}"
    return plan


def kernel_source(plan: Plan, bug: str = "") -> str:
    op = camel(plan.kernel)
    t = plan.cube["tiling"]
    f16 = plan.cube.get("dtype") == "f16"
    T = "half" if f16 else "float"
    TO = "half" if plan.cube.get("out_dtype") == "f16" else "float"
    quant = ", QuantMode_t::F322F16" if TO == "half" else ""
    c0, frac = (16, 256) if f16 else (8, 128)
    batch = plan.cube.get("batch", 1)
    a_n, b_n, c_n = plan.cube.get("numel", (t["M"] * t["K"], t["K"] * t["N"], t["M"] * t["N"]))
    what = (f"C[{t['M']}, {t['N']}] = A[{t['M']}, {t['K']}] * B[{t['K']}, {t['N']}]" if batch == 1 else
            f"C_b[{t['M']}, {t['N']}] = A_b[{t['M']}, {t['K']}] * B_b[{t['K']}, {t['N']}] for b < {batch}"
            f" (batch strides {t['sA']}, {t['sB']}, {t['sC']})")
    depth_in, depth_c = plan.cube.get("depth", (1, 1))
    db = depth_in == 2
    db_note = " (double buffering: MTE2 of step s + 1 runs under step s)" if db else ""
    prefetch_doc = ("\n  // Double-buffered: step s + 1's A and B tiles are copied in (MTE2) before step s's\n"
                    "  // Split/Mmad, so the copies run under the cube's work (two L1 buffers per queue).") if db else ""
    prologue = "\n    CopyIn(0);" if db else ""
    prefetch = "\n      if (s + 1 < steps) CopyIn(s + 1);       // the next step's copies first (L1 depth 2)" if db else ""
    copy_here = "" if db else "\n      CopyIn(s);"
    prec = (f"f16 inputs, f32 accumulation in L0C, {'f16 (Fixpipe F322F16)' if TO == 'half' else 'f32'} result"
            if f16 else "f32")
    if t.get("kSplit", 1) > 1:
        return _split_source(plan, op, t, T, TO, quant, c0, frac, what, prec, depth_in, depth_c, a_n, b_n, c_n)
    return f"""// Ascend C cube kernel generated by msmlir (mskernel-lower-to-ascend, soc={plan.soc}) from the
// kernel function @{plan.func}: {what} ({prec}),
// base tile {plan.cube['tile']}, {t['tileNum']} output tiles over {t['blockDim']} cube cores.
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = {depth_in};  // L1 and L0A/L0B buffers per queue{db_note}
constexpr int32_t L0C_NUM = {depth_c};     // L0C buffers

class Kernel{op} {{
 public:
  __aicore__ inline Kernel{op}() {{}}
  __aicore__ inline void Init(GM_ADDR x0, GM_ADDR x1, GM_ADDR y0, const {op}TilingData& td) {{
    M = td.M; N = td.N; K = td.K; baseM = td.baseM; baseN = td.baseN; baseK = td.baseK; nTiles = td.nTiles;
    batchTiles = td.batchTiles; sA = td.sA; sB = td.sB; sC = td.sC; lda = td.lda; ldb = td.ldb; ldc = td.ldc;
    bG = td.bG; gA = td.gA; gB = td.gB; gC = td.gC;
    tileBegin = GetBlockIdx() * td.tilesPerCore;
    tileEnd = tileBegin + td.tilesPerCore < td.tileNum ? tileBegin + td.tilesPerCore : td.tileNum;
    aGm.SetGlobalBuffer((__gm__ {T}*)x0, {a_n});
    bGm.SetGlobalBuffer((__gm__ {T}*)x1, {b_n});
    cGm.SetGlobalBuffer((__gm__ {TO}*)y0, {c_n});
    uint32_t kc = (baseK + {c0 - 1}) / {c0} * {c0}, k16 = (baseK + 15) / 16 * 16, nc = (baseN + {c0 - 1}) / {c0} * {c0};
    pipe.InitBuffer(a1Que, BUFFER_NUM, baseM * kc * sizeof({T}));
    pipe.InitBuffer(b1Que, BUFFER_NUM, k16 * baseN * sizeof({T}));
    pipe.InitBuffer(a2Que, BUFFER_NUM, baseM * kc * sizeof({T}));
    pipe.InitBuffer(b2Que, BUFFER_NUM, k16 * nc * sizeof({T}));
    pipe.InitBuffer(c1Que, L0C_NUM, baseM * baseN * sizeof(float));
    kSteps = (K + baseK - 1) / baseK;
  }}

  // One step = one K slice of one output tile; steps run tile by tile.{prefetch_doc}
  __aicore__ inline void Process() {{
    if (tileBegin >= tileEnd) return;
    uint32_t steps = (tileEnd - tileBegin) * kSteps;{prologue}
    LocalTensor<float> c1;
    for (uint32_t s = 0; s < steps; ++s) {{{prefetch}
      Locate(s);
      if (k0 == 0) c1 = c1Que.AllocTensor<float>();{copy_here}
      SplitA(mt, kt);
      SplitB(kt, nt);
      LocalTensor<{T}> a2 = a2Que.DeQue<{T}>();
      LocalTensor<{T}> b2 = b2Que.DeQue<{T}>();
      MmadParams mp{{(uint16_t)mt, (uint16_t)nt, (uint16_t)kt, false, 0, false, false, false}};
      mp.cmatrixInitVal = k0 == 0;
      Mmad(c1, a2, b2, mp);
      a2Que.FreeTensor(a2);
      b2Que.FreeTensor(b2);
      if (k0 + kt == K) {{                         // the tile's last K step: L0C -> GM
        c1Que.EnQue(c1);
        LocalTensor<float> c = c1Que.DeQue<float>();
        Fixpipe(cGm[bo * sC + bi * gC + m0 * ldc + n0], c, FixpipeParamsV220{{(uint16_t)nt, (uint16_t)mt, (uint16_t)((mt + 15) / 16 * 16), ldc, true{quant}}});
        c1Que.FreeTensor(c);
      }}
    }}
  }}

 private:
  // the geometry of step s: batch (bo, bi), the tile's rows m0.. (mt), columns n0.. (nt), K slice k0.. (kt)
  __aicore__ inline void Locate(uint32_t s) {{
    uint32_t t = tileBegin + s / kSteps, b = t / batchTiles, r = t % batchTiles;
    bo = b / bG; bi = b % bG;
    m0 = (r / nTiles) * baseM; n0 = (r % nTiles) * baseN; k0 = (s % kSteps) * baseK;
    mt = M - m0 < baseM ? M - m0 : baseM; nt = N - n0 < baseN ? N - n0 : baseN; kt = K - k0 < baseK ? K - k0 : baseK;
  }}
  __aicore__ inline void CopyIn(uint32_t s) {{
    Locate(s);
    CopyInA(bo * sA + bi * gA + m0 * lda + k0, mt, kt);
    CopyInB(bo * sB + bi * gB + k0 * ldb + n0, kt, nt);
  }}
  // GM (ND) -> L1 (NZ: fractals of 16 rows x {c0} columns)
  __aicore__ inline void CopyInA(uint32_t off, uint32_t mt, uint32_t kt) {{
    LocalTensor<{T}> a1 = a1Que.AllocTensor<{T}>();
    DataCopy(a1, aGm[off], Nd2NzParams{{1, (uint16_t)mt, (uint16_t)kt, 0, (uint16_t)lda, (uint16_t)((mt + 15) / 16 * 16), 1, 0}});
    a1Que.EnQue(a1);
  }}
  __aicore__ inline void CopyInB(uint32_t off, uint32_t kt, uint32_t nt) {{
    LocalTensor<{T}> b1 = b1Que.AllocTensor<{T}>();
    DataCopy(b1, bGm[off], Nd2NzParams{{1, (uint16_t)kt, (uint16_t)nt, 0, (uint16_t)ldb, (uint16_t)((kt + 15) / 16 * 16), 1, 0}});
    b1Que.EnQue(b1);
  }}
  // L1 (NZ) -> L0A (zZ), one row of fractals per LoadData
  __aicore__ inline void SplitA(uint32_t mt, uint32_t kt) {{
    LocalTensor<{T}> a1 = a1Que.DeQue<{T}>();
    LocalTensor<{T}> a2 = a2Que.AllocTensor<{T}>();
    uint32_t mf = (mt + 15) / 16, kf = (kt + {c0 - 1}) / {c0};
    for (uint32_t i = 0; i < mf; ++i)
      LoadData(a2[i * kf * {frac}], a1, LoadData2DParams{{(uint16_t)i, (uint8_t)kf, (uint16_t)mf, 0, 0, false, 0}});
    a2Que.EnQue(a2);
    a1Que.FreeTensor(a1);
  }}
  // L1 (NZ) -> L0B (zZ)
  __aicore__ inline void SplitB(uint32_t kt, uint32_t nt) {{
    LocalTensor<{T}> b1 = b1Que.DeQue<{T}>();
    LocalTensor<{T}> b2 = b2Que.AllocTensor<{T}>();
    uint32_t kf = (kt + 15) / 16, nf = (nt + {c0 - 1}) / {c0};
    for (uint32_t i = 0; i < kf; ++i)
      LoadData(b2[i * nf * {frac}], b1, LoadData2DParams{{(uint16_t)i, (uint8_t)nf, (uint16_t)kf, 0, 0, false, 0}});
    b2Que.EnQue(b2);
    b1Que.FreeTensor(b1);
  }}

  TPipe pipe;
  TQue<QuePosition::A1, BUFFER_NUM> a1Que;
  TQue<QuePosition::B1, BUFFER_NUM> b1Que;
  TQue<QuePosition::A2, BUFFER_NUM> a2Que;
  TQue<QuePosition::B2, BUFFER_NUM> b2Que;
  TQue<QuePosition::CO1, L0C_NUM> c1Que;
  GlobalTensor<{T}> aGm, bGm;
  GlobalTensor<{TO}> cGm;
  uint32_t M, N, K, baseM, baseN, baseK, nTiles, batchTiles, sA, sB, sC, lda, ldb, ldc, bG, gA, gB, gC;
  uint32_t tileBegin, tileEnd, kSteps, bo, bi, m0, n0, k0, mt, nt, kt;
}};

extern "C" __global__ __aicore__ void {plan.kernel}(GM_ADDR x0, GM_ADDR x1, GM_ADDR y0, GM_ADDR workspace, GM_ADDR tiling) {{
  GET_TILING_DATA(tilingData, tiling);
  Kernel{op} op;
  op.Init(x0, x1, y0, tilingData);
  op.Process();
}}
"""


def _split_source(plan, op, t, T, TO, quant, c0, frac, what, prec, depth_in, depth_c, a_n, b_n, c_n) -> str:
    """The split-K cube kernel: the plain kernel's copies and splits, with an
    item per (tile, K slice) and its partial product written to slice j's
    part of the workspace; the vector sum (a second launch) adds them."""
    plain = dict(plan.cube)
    plan.cube = dict(plain, tiling={k: v for k, v in t.items() if k not in ("kSplit", "kPer", "sS")})
    try:
        src = kernel_source(plan)
    finally:
        plan.cube = plain
    db = depth_in == 2
    head_old = src[:src.index("class Kernel")]
    head = head_old.replace(f"{t['tileNum']} output tiles over",
                            f"{t['tileNum']} (tile, K slice) items (split-K: {t['kSplit']} slices of {t['kPer']} K steps) over")
    head = head.replace("#include", "// Each item writes its slice's f32 partial product to GM (partial j at j * sS); a second\n"
                        "// kernel (the vector sum) adds the partials after this launch has finished.\n#include")
    body = src[src.index("class Kernel"):]
    start = body.index("  // One step = one K slice")
    end = body.index("  // GM (ND) -> L1 (NZ")
    proc = f"""  // Items (tile, K slice) one after the other, the steps of each K slice in order.{" The next step's" if db else ""}
{"  // A and B tiles are copied in (MTE2) before this step's Split/Mmad (two L1 buffers per queue)." if db else ""}
  __aicore__ inline void Process() {{
    if (tileBegin >= tileEnd) return;
    uint32_t item = tileBegin, kk = 0;{chr(10) + "    CopyIn(item, 0);" if db else ""}
    LocalTensor<float> c1;
    while (item < tileEnd) {{
      uint32_t nItem = item, nk = kk + 1, n = Steps(item);
      if (nk == n) {{ ++nItem; nk = 0; }}{chr(10) + "      if (nItem < tileEnd) CopyIn(nItem, nk);  // the next step's copies first (L1 depth 2)" if db else ""}
      Locate(item, kk);
      if (kk == 0) c1 = c1Que.AllocTensor<float>();{"" if db else chr(10) + "      CopyIn(item, kk);"}
      SplitA(mt, kt);
      SplitB(kt, nt);
      LocalTensor<{T}> a2 = a2Que.DeQue<{T}>();
      LocalTensor<{T}> b2 = b2Que.DeQue<{T}>();
      MmadParams mp{{(uint16_t)mt, (uint16_t)nt, (uint16_t)kt, false, 0, false, false, false}};
      mp.cmatrixInitVal = kk == 0;
      Mmad(c1, a2, b2, mp);
      a2Que.FreeTensor(a2);
      b2Que.FreeTensor(b2);
      if (kk + 1 == n) {{                          // the slice's last K step: its partial L0C -> GM
        c1Que.EnQue(c1);
        LocalTensor<float> c = c1Que.DeQue<float>();
        Fixpipe(cGm[slice * sS + bo * sC + bi * gC + m0 * ldc + n0], c, FixpipeParamsV220{{(uint16_t)nt, (uint16_t)mt, (uint16_t)((mt + 15) / 16 * 16), ldc, true{quant}}});
        c1Que.FreeTensor(c);
      }}
      item = nItem;
      kk = nk;
    }}
  }}

 private:
  // K steps of item's slice: kPer, fewer in the last slice
  __aicore__ inline uint32_t Steps(uint32_t item) {{
    uint32_t first = item % kSplit * kPer;
    return kSteps - first < kPer ? kSteps - first : kPer;
  }}
  // the geometry of step kk of item (tile, slice): batch (bo, bi), rows m0.. (mt), columns n0.. (nt), K k0.. (kt)
  __aicore__ inline void Locate(uint32_t item, uint32_t kk) {{
    uint32_t t = item / kSplit, b = t / batchTiles, r = t % batchTiles;
    slice = item % kSplit;
    bo = b / bG; bi = b % bG;
    m0 = (r / nTiles) * baseM; n0 = (r % nTiles) * baseN; k0 = (slice * kPer + kk) * baseK;
    mt = M - m0 < baseM ? M - m0 : baseM; nt = N - n0 < baseN ? N - n0 : baseN; kt = K - k0 < baseK ? K - k0 : baseK;
  }}
  __aicore__ inline void CopyIn(uint32_t item, uint32_t kk) {{
    Locate(item, kk);
    CopyInA(bo * sA + bi * gA + m0 * lda + k0, mt, kt);
    CopyInB(bo * sB + bi * gB + k0 * ldb + n0, kt, nt);
  }}
"""
    body = body[:start] + proc + body[end:]
    body = body.replace("    bG = td.bG; gA = td.gA; gB = td.gB; gC = td.gC;",
                        "    bG = td.bG; gA = td.gA; gB = td.gB; gC = td.gC; kSplit = td.kSplit; kPer = td.kPer; sS = td.sS;")
    body = body.replace("  uint32_t tileBegin, tileEnd, kSteps, bo, bi, m0, n0, k0, mt, nt, kt;",
                        "  uint32_t tileBegin, tileEnd, kSteps, bo, bi, m0, n0, k0, mt, nt, kt, kSplit, kPer, sS, slice;")
    return head + body
