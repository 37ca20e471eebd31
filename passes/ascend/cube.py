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
Load3D form (conv.py's forward convolutions, cube_plan's `load3d`): B is the
img2col of a feature map, formed on chip: per (tile, K step) the band of
input rows the tile's output positions read comes into L1 in 5HD (pixels as
Nd2Nz rows, one copy per C0-channel block, padded channels zeroed by
InitConstValue) and one LoadData(L0B, L1, LoadData3DParamsV2) forms the
[K step x N tile] operand (the H padding outside the band as its pads); A's
K columns are copied in Load3D's (c1, kh, kw, c0) order (an Nd2Nz of ndNum
matrices per channel block). A bias is each tile's first Mmad (its column x
a row of ones, k = 1) that the K steps accumulate onto.
Split-K (cube_plan's `sum_plan`; conv.py's products use it): when the output
tiles leave cube cores idle and K has several steps, an item is a (tile, K
slice) pair on a core of its own, its f32 partial product written to a GM
workspace (partial j at j * sS), and a second kernel launch -- a vector sum
over the first axis -- adds them. A second launch is the phase boundary
because the emulator runs blocks one after the other (SyncAll is an error
there). Taken when the cost model's estimate of both kernels is below the
unsplit one. f16 operands: the partials stay f32 (no Fixpipe conversion) and
the sum kernel rounds once to half, as the unsplit kernel's Fixpipe does.
The cost model charges each launch (cost.LAUNCH_CYCLES + BLOCK_CYCLES per
block), so a split pays for its second launch; a kernel of few small tiles
runs on fewer cores than tiles where the per-block cost outweighs spreading
them (cost.cheapest_block_dim).
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
              out_shape=None, sum_plan=None, load3d: dict | None = None) -> Plan:
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
    (cube["split"] = S).

    `load3d` (conv.py): B is not a GM matrix but the img2col of a feature map,
    formed on chip by Load3D (see _load3d_geometry); no split-K with a bias."""
    from .cost import estimate, with_launch
    es = 2 if dtype == "f16" else F32
    c0 = 32 // es
    bm, bn = min(128, _al(M, 16)), min(128, _al(N, 16))
    xa, xb = (bm * c0 * es, 16 * _al(bn, c0) * es) if load3d and load3d.get("bias") else (0, 0)
    room = min((model.l0a - xa) // (2 * bm * es), (model.l0b - xb) // (2 * _al(bn, c0) * es)) // 16 * 16
    low = 128 if dtype == "f16" else 64
    cands = {min(b, _al(K, c0)) for b in (low, 128, 256, 512, 1024) if b == low or b <= room}
    if c0 <= room < low:     # (a Load3D bias's buffers leave less than `low` for two buffers: a shallower step)
        cands.add(min(room, _al(K, c0)))
    cands = sorted(cands)
    best = None
    for bk in cands:
        try:
            plan = _cube_plan(M, N, K, bk, kernel, func, kind, soc=soc, cores=cores, model=model, batch=batch,
                              layout=layout, dtype=dtype, in_shapes=in_shapes, out_shape=out_shape, load3d=load3d)
        except Unsupported:
            if load3d is None or bk == cands[-1] or best is not None:
                raise
            continue                     # a deeper K step whose feature-map band does not fit L1
        cyc = estimate(plan)["cycles"]
        if best is None or cyc < best[0]:
            best = (cyc, plan)
    best = (best[0], _narrowed(best[1], M, N, K, kernel, func, kind, soc=soc, cores=cores, model=model, batch=batch,
                               layout=layout, dtype=dtype, in_shapes=in_shapes, out_shape=out_shape, load3d=load3d))
    best = (with_launch(best[1]), best[1])
    if sum_plan is None or (load3d is not None and load3d.get("bias")):
        return best[1]          # (a Load3D bias is each tile's first Mmad: not per K slice)
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
            try:
                plan = _cube_plan(M, N, K, bk, kernel, func, kind, soc=soc, cores=cores, model=model, batch=batch,
                                  layout=layout, dtype=dtype, in_shapes=in_shapes, out_shape=out_shape,
                                  split=(S, per), load3d=load3d)
            except Unsupported:
                continue                 # (a Load3D band of this K step over L1)
            if S not in sums:
                sums[S] = sum_plan(S, c_numel)
            cyc = with_launch(plan) + with_launch(sums[S])
            if cyc < best[0]:
                plan.split_k = (S, sums[S])
                best = (cyc, plan)
    return best[1]


def _narrowed(plan: Plan, M, N, K, kernel, func, kind, *, soc, cores, model, **kw) -> Plan:
    """`plan` over fewer cube cores where the launch's per-block cost outweighs
    spreading its few tiles (cost.cheapest_block_dim)."""
    from .cost import cheapest_block_dim, estimate
    t = plan.cube["tiling"]
    tile = estimate(plan)["cycles"] / t["tilesPerCore"]
    bd = cheapest_block_dim(t["tileNum"], cores, tile)
    if bd >= t["blockDim"]:
        return plan
    return _cube_plan(M, N, K, t["baseK"], kernel, func, kind, soc=soc, cores=bd, model=model, **kw)


def _cube_plan(M: int, N: int, K: int, bk: int, kernel: str, func: str, kind: str, *, soc, cores, model,
               batch: int, layout: dict | None, dtype: str, in_shapes, out_shape, split=None,
               load3d: dict | None = None) -> Plan:
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
    if load3d is not None:
        geo = _load3d_geometry(load3d, N, K, bn, bk, c0)
        l1 = bm * _al(bk, c0) * es + geo["b1_elems"] * es
    # a Load3D convolution's bias: its column in L1 and L0A, a fractal row of ones in L0B
    xa = xb = 0
    if load3d is not None and load3d.get("bias"):
        xa, xb = bm * c0 * es, 16 * _al(bn, c0) * es
    for what, need, cap in (("L0A", l0a + xa, model.l0a), ("L0B", l0b + xb, model.l0b), ("L0C", l0c, model.l0c),
                            ("L1", l1 + xa, model.l1)):
        if need > cap:
            raise Unsupported(f"{what} needs {need} bytes (has {cap})")
    # double buffering: two buffers per level where two fit (L1 and L0A/L0B: the next K step's
    # copies under this step's Mmad; L0C: the next tile's Mmads under this tile's Fixpipe)
    depth_in = 2 if 2 * l1 + xa <= model.l1 and 2 * l0a + xa <= model.l0a and 2 * l0b + xb <= model.l0b else 1
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
    if load3d is not None:
        a_numel, b_numel = load3d["a_numel"], load3d["b_numel"]
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
    if load3d is not None:
        tiling.update({k: load3d[k] for k in LOAD3D_FIELDS})
        tiling["b1Elems"] = geo["b1_elems"]
        plan.cube["load3d"] = dict(geo, bias=bool(load3d.get("bias")))
        plan.cube["tile"] += " Load3D"
        if load3d.get("bias"):       # [G * O] per output channel, summed into L0C first
            plan.inputs.append((Value("in2", "full", "input", index=2), load3d["bias"]))
            plan.shapes["in"] = list(plan.shapes["in"]) + [[load3d["bias"]]]
            if dtype == "f16":
                plan.shapes["in_dtypes"].append("float16")
            for k in ("l1_bytes", "l0a_bytes"):
                plan.cube[k] += xa
            plan.cube["l0b_bytes"] += xb
    return plan


LOAD3D_FIELDS = ("H", "W", "OW", "KH", "KW", "sh", "sw", "dh", "dw", "pt", "pl", "pr", "Cg", "KK", "ps", "fb", "fg",
                 "aK")


def _load3d_geometry(l3: dict, N: int, K: int, bn: int, bk: int, c0: int) -> dict:
    """The feature-map band each (N tile, K step) brings into L1: the input
    rows its output positions read (H padding outside the map becomes
    Load3D's top/bottom pad) times the channel blocks of its K slice; the
    largest one sizes the B1 buffer. Unsupported where a Load3D field would
    overflow (16-bit sizes, 8-bit pads) or the band does not fit L1."""
    H, W, OW, sh, pt = l3["H"], l3["W"], l3["OW"], l3["sh"], l3["pt"]
    eh = (l3["KH"] - 1) * l3["dh"] + 1
    plane = l3["KK"] * c0                 # K elements per channel block
    pix_max = planes_max = 0
    for n0 in range(0, N, bn):
        nt = min(bn, N - n0)
        oh0, ohl = n0 // OW, (n0 + nt - 1) // OW
        lo, hi = oh0 * sh - pt, ohl * sh - pt + eh
        rows = min(hi, H) - max(lo, 0)
        if rows < 1:
            raise Unsupported("an output tile that reads only padding (Load3D needs l1H >= 1)")
        if max(0, -lo) > 255 or max(0, hi - H) > 255:
            raise Unsupported("a padding over 255 rows (Load3D's 8-bit pads)")
        pix_max = max(pix_max, rows * W)
    for k0 in range(0, K, bk):
        kt = min(bk, K - k0)
        planes_max = max(planes_max, (k0 + kt - 1) // plane - k0 // plane + 1)
    if pix_max > 65535:
        raise Unsupported(f"a feature-map band of {pix_max} pixels (Nd2NzParams.nValue is 16 bits)")
    if planes_max * c0 > 65535 or l3["ps"] > 65535 or OW + bn > 65535:
        raise Unsupported("a Load3D field over 16 bits (channels, pixel pitch or output width)")
    return {"pix_max": pix_max, "planes_max": planes_max, "b1_elems": (planes_max * pix_max + 16) * c0}


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
    if plan.cube.get("load3d"):
        what = (f"convolution C_b[{t['M']}, {t['N']}] = W[{t['M']}, {t['K']}] * img2col(x_b)[{t['K']}, {t['N']}]"
                f" for b < {batch}, the img2col formed in L0B by Load3D")
    src = f"""// Ascend C cube kernel generated by msmlir (mskernel-lower-to-ascend, soc={plan.soc}) from the
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
    if plan.cube.get("load3d"):
        return _load3d_source(src, T, c0, plan.kernel, plan.cube["load3d"]["bias"])
    return src


def _load3d_source(src: str, T: str, c0: int, kernel: str, bias: bool) -> str:
    """The plain cube kernel with B formed on chip: A's K columns reordered to
    Load3D's (c1, kh, kw, c0) order while copied in (one Nd2Nz per C0 block,
    the padded channels zeroed), B's copy-in a band of the feature map into
    L1 in 5HD (pixels as Nd2Nz rows), B's split one Load3D into L0B; a bias
    is a first Mmad of each tile (bias column x a row of ones, k = 1) that
    the K steps accumulate onto."""
    def swap(old, new):
        nonlocal src
        assert old in src, old
        src = src.replace(old, new, 1)
    swap("    bG = td.bG; gA = td.gA; gB = td.gB; gC = td.gC;\n",
         "    bG = td.bG; gA = td.gA; gB = td.gB; gC = td.gC;\n"
         "    H = td.H; W = td.W; OW = td.OW; KH = td.KH; KW = td.KW; sh = td.sh; sw = td.sw; dh = td.dh; dw = td.dw;\n"
         "    pt = td.pt; pl = td.pl; pr = td.pr; Cg = td.Cg; KK = td.KK; ps = td.ps; fb = td.fb; fg = td.fg; aK = td.aK;\n")
    swap("    pipe.InitBuffer(b1Que, BUFFER_NUM, k16 * baseN * sizeof(" + T + "));",
         "    pipe.InitBuffer(b1Que, BUFFER_NUM, td.b1Elems * sizeof(" + T + "));   // the largest feature-map band")
    a0 = src.index("  __aicore__ inline void CopyIn(uint32_t s) {")
    a1 = src.index("  // L1 (NZ) -> L0A (zZ)")
    src = src[:a0] + f"""  __aicore__ inline void CopyIn(uint32_t s) {{
    Locate(s);
    CopyInA(bo * sA + bi * gA + m0 * lda, mt, kt);
    CopyInB(kt, nt);
  }}
  // GM (filter element (o, c, kk) at o * lda + c + kk * aK) -> L1 (NZ, K in Load3D's (c1, kh, kw, c0)
  // order): per block of {c0} channels one Nd2Nz of its (kh, kw) positions in the K slice (ndNum
  // matrices of mt x {c0}, one per position, aK apart in GM), the padded channels zero
  __aicore__ inline void CopyInA(uint32_t off, uint32_t mt, uint32_t kt) {{
    LocalTensor<{T}> a1 = a1Que.AllocTensor<{T}>();
    uint32_t m16 = (mt + 15) / 16 * 16, j0 = k0 / {c0}, j1 = j0 + kt / {c0};
    if (Cg % {c0}) InitConstValue(a1, InitConstValueParams<{T}>{{1, (uint16_t)(m16 * kt / {c0}), 0, ({T})0}});
    for (uint32_t j = j0; j < j1;) {{
      uint32_t c1 = j / KK, kk = j % KK, n = KK - kk < j1 - j ? KK - kk : j1 - j;
      uint32_t cw = Cg - c1 * {c0} < {c0} ? Cg - c1 * {c0} : {c0};
      DataCopy(a1[(j - j0) * m16 * {c0}], aGm[off + kk * aK + c1 * {c0}],
               Nd2NzParams{{(uint16_t)n, (uint16_t)mt, (uint16_t)cw, (uint16_t)aK, (uint16_t)lda, (uint16_t)m16, 1, (uint16_t)(m16 * {c0})}});
      j += n;
    }}
    a1Que.EnQue(a1);
  }}
  // the band of input rows the output positions n0 .. n0 + nt - 1 read (rows r0 .. r0 + rows - 1;
  // the H padding outside the map: padT above, padB below) and the channel blocks c1a .. c1a + nc1 - 1
  // of the K slice k0 .. k0 + kt - 1
  __aicore__ inline void Band(uint32_t kt, uint32_t nt) {{
    int32_t oh0 = n0 / OW, ohl = (n0 + nt - 1) / OW;
    int32_t lo = oh0 * (int32_t)sh - (int32_t)pt, hi = ohl * (int32_t)sh - (int32_t)pt + (int32_t)((KH - 1) * dh + 1);
    int32_t r1 = hi < (int32_t)H ? hi : (int32_t)H;
    r0 = lo > 0 ? lo : 0; rows = r1 - r0; padT = r0 - lo; padB = hi - r1; mOff = n0 - oh0 * OW;
    c1a = k0 / (KK * {c0}); nc1 = (k0 + kt - 1) / (KK * {c0}) - c1a + 1;
  }}
  // GM (image bo, group bi: pixels x channels, pixel pitch ps) -> L1 in 5HD [c1][row][W][{c0}]:
  // one Nd2Nz per channel block (the pixels as its rows); a partial last block's other channels zero
  __aicore__ inline void CopyInB(uint32_t kt, uint32_t nt) {{
    LocalTensor<{T}> b1 = b1Que.AllocTensor<{T}>();
    Band(kt, nt);
    uint32_t pix = rows * W;
    if ((c1a + nc1) * {c0} > Cg)
      InitConstValue(b1[(nc1 - 1) * pix * {c0}], InitConstValueParams<{T}>{{1, (uint16_t)pix, 0, ({T})0}});
    for (uint32_t j = 0; j < nc1; ++j) {{
      uint32_t c1 = c1a + j, cw = Cg - c1 * {c0} < {c0} ? Cg - c1 * {c0} : {c0};
      DataCopy(b1[j * pix * {c0}], bGm[bo * fb + bi * fg + r0 * W * ps + c1 * {c0}], Nd2NzParams{{1, (uint16_t)pix, (uint16_t)cw, 0, (uint16_t)ps, (uint16_t)((pix + 15) / 16 * 16), 1, 0}});
    }}
    b1Que.EnQue(b1);
  }}
""" + src[a1:]
    b0 = src.index("  // L1 (NZ) -> L0B (zZ)")
    b1 = src.index("  TPipe pipe;")
    src = src[:b0] + f"""  // L1 (5HD band) -> L0B: the img2col of the band, K slice x output positions, by one Load3D
  __aicore__ inline void SplitB(uint32_t kt, uint32_t nt) {{
    LocalTensor<{T}> b1 = b1Que.DeQue<{T}>();
    LocalTensor<{T}> b2 = b2Que.AllocTensor<{T}>();
    Band(kt, nt);
    const uint8_t pad[4] = {{(uint8_t)pl, (uint8_t)pr, (uint8_t)padT, (uint8_t)padB}};
    LoadData(b2, b1, LoadData3DParamsV2<{T}>(pad, (uint16_t)rows, (uint16_t)W, (uint16_t)(nc1 * {c0}), (uint16_t)kt,
                                            (uint16_t)nt, (uint16_t)(k0 - c1a * KK * {c0}), (uint16_t)mOff, (uint8_t)sw,
                                            (uint8_t)sh, (uint8_t)KW, (uint8_t)KH, (uint8_t)dw, (uint8_t)dh, false,
                                            false, ({T})0));
    b2Que.EnQue(b2);
    b1Que.FreeTensor(b1);
  }}

""" + src[b1:]
    if bias:
        swap("__aicore__ inline void Init(GM_ADDR x0, GM_ADDR x1, GM_ADDR y0,",
             "__aicore__ inline void Init(GM_ADDR x0, GM_ADDR x1, GM_ADDR x2, GM_ADDR y0,")
        swap("void " + kernel + "(GM_ADDR x0, GM_ADDR x1, GM_ADDR y0,", "void " + kernel + "(GM_ADDR x0, GM_ADDR x1, GM_ADDR x2, GM_ADDR y0,")
        swap("  op.Init(x0, x1, y0, tilingData);", "  op.Init(x0, x1, x2, y0, tilingData);")
        swap("    kSteps = (K + baseK - 1) / baseK;\n",
             "    kSteps = (K + baseK - 1) / baseK;\n"
             f"    biasGm.SetGlobalBuffer((__gm__ {T}*)x2, bG * M);\n"
             f"    pipe.InitBuffer(biasL1, baseM * {c0} * sizeof({T}));\n"
             f"    pipe.InitBuffer(biasL0A, baseM * {c0} * sizeof({T}));\n"
             f"    pipe.InitBuffer(onesL0B, 16 * ((baseN + {c0 - 1}) / {c0} * {c0}) * sizeof({T}));\n")
        swap("      if (k0 == 0) c1 = c1Que.AllocTensor<float>();",
             "      if (k0 == 0) {\n        c1 = c1Que.AllocTensor<float>();\n        BiasMmad(c1);\n      }")
        swap("      mp.cmatrixInitVal = k0 == 0;", "      mp.cmatrixInitVal = false;             // on top of the bias")
        swap("  TPipe pipe;\n", f"""  // L0C = bias[m] x ones[n]: the bias column (GM -> L1 -> L0A) times a row of ones (L0B), k = 1
  __aicore__ inline void BiasMmad(const LocalTensor<float>& c1) {{
    LocalTensor<{T}> l1 = biasL1.Get<{T}>(), a = biasL0A.Get<{T}>(), b = onesL0B.Get<{T}>();
    uint32_t mf = (mt + 15) / 16, nf = (nt + {c0 - 1}) / {c0};
    DataCopy(l1, biasGm[bi * M + m0], Nd2NzParams{{1, (uint16_t)mt, 1, 0, 1, (uint16_t)(mf * 16), 1, 0}});
    SetFlag<HardEvent::MTE2_MTE1>(0);
    WaitFlag<HardEvent::MTE2_MTE1>(0);
    for (uint32_t i = 0; i < mf; ++i)
      LoadData(a[i * 16 * {c0}], l1, LoadData2DParams{{(uint16_t)i, 1, 1, 0, 0, false, 0}});
    InitConstValue(b, InitConstValueParams<{T}>{{1, (uint16_t)nf, 0, ({T})1}});
    SetFlag<HardEvent::MTE1_M>(0);
    WaitFlag<HardEvent::MTE1_M>(0);
    MmadParams mp{{(uint16_t)mt, (uint16_t)nt, 1, false, 0, false, false, false}};
    mp.cmatrixInitVal = true;
    Mmad(c1, a, b, mp);
  }}

  TPipe pipe;
  TBuf<TPosition::A1> biasL1;
  TBuf<TPosition::A2> biasL0A;
  TBuf<TPosition::B2> onesL0B;
  GlobalTensor<{T}> biasGm;
""")
    swap("  uint32_t tileBegin, tileEnd, kSteps, bo, bi, m0, n0, k0, mt, nt, kt;\n",
         "  uint32_t tileBegin, tileEnd, kSteps, bo, bi, m0, n0, k0, mt, nt, kt;\n"
         "  uint32_t H, W, OW, KH, KW, sh, sw, dh, dw, pt, pl, pr, Cg, KK, ps, fb, fg, aK;\n"
         "  uint32_t r0, rows, padT, padB, mOff, c1a, nc1;   // the current feature-map band\n")
    return src


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
    l3 = plan.cube.get("load3d")
    end = body.index("  // GM (filter element" if l3 else "  // GM (ND) -> L1 (NZ")
    copy_in = ("    CopyInA(bo * sA + bi * gA + m0 * lda, mt, kt);\n    CopyInB(kt, nt);" if l3 else
               "    CopyInA(bo * sA + bi * gA + m0 * lda + k0, mt, kt);\n"
               "    CopyInB(bo * sB + bi * gB + k0 * ldb + n0, kt, nt);")
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
{copy_in}
  }}
"""
    body = body[:start] + proc + body[end:]
    body = body.replace("    bG = td.bG; gA = td.gA; gB = td.gB; gC = td.gC;",
                        "    bG = td.bG; gA = td.gA; gB = td.gB; gC = td.gC; kSplit = td.kSplit; kPer = td.kPer; sS = td.sS;")
    body = body.replace("  uint32_t tileBegin, tileEnd, kSteps, bo, bi, m0, n0, k0, mt, nt, kt;",
                        "  uint32_t tileBegin, tileEnd, kSteps, bo, bi, m0, n0, k0, mt, nt, kt, kSplit, kPer, sS, slice;")
    return head + body
