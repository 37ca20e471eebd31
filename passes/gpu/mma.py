"""Tensor-core matmul tiles for convert-mskernel-to-gpu (a helper module, no pass of its own).

Why: a contraction of f16/bf16 inputs accumulated in f32 (what mindir.matmul
of half inputs lowers to: extf(a) * extf(b) summed in f32, truncated after)
runs on the tensor cores' mma.sync: 16x8x16 per warp and instruction instead
of one FMA per thread. f32 inputs use the TF32 form (m16n8k8, inputs rounded
to 10-bit mantissas) only when asked (`tf32=true`: MindSpore's
gpu_config matmul_allow_tf32 and PyTorch's allow_tf32 are off by default);
otherwise they keep the FMA tiles of _map_matmul.

The tile, per block: a TM x TN output tile (plan_mma), its warps in a
WGM x WGN grid, each warp a WM x WN tile of (WM/16) x (WN/8) MMA fragments.
K is stepped by TK through shared memory: A as sa[TM][TK + pad] (m rows,
k contiguous), B as sb[TN][TK + pad] (n rows, k contiguous), whatever the
global layouts (the load phase transposes; out-of-bounds elements are
zeros, so partial tiles need no guard in the MMA). The 16-byte row pad keeps
ldmatrix rows aligned and off each other's banks. Each thread's
accumulators are the C fragments' elements it owns in mma.sync: element e
(0..3) of fragment (mi, ni) is row g + 8*(e//2), column 2*c + e%2 of it,
g = lane/4, c = lane%4 (PTX ISA, "Matrix fragments for mma.m16n8k16").

Two forms of the compute phase, the rest shared:
  - launch=false (`ops=False`, what the CPU check runs): per owned element,
    a scalar sum over the K step, reading A and B from shared memory at the
    addresses the ldmatrix lanes would provide (`_a_row_addr`, `_b_row_addr`:
    the same functions the GPU form uses), so the CPU run checks the tiling,
    the fragment ownership, the shared layout, the zero padding and the
    ldmatrix addressing against numpy;
  - launch=true (`ops=True`): per 16-deep (TF32: 8-deep) K slice,
    nvgpu.ldmatrix x4 per A fragment and x2 per B fragment (TF32: the
    fragments' elements loaded one by one; ldmatrix moves 16-bit elements),
    then nvgpu.mma.sync per fragment pair (bf16: nvvm.mma.sync on the
    fragments' i32 words, as nvgpu's lowering has no bf16 form); the
    accumulators, a private array per thread, stay in registers.
    convert-parallel-loops-to-gpu leaves a loop nest holding nvgpu ops
    unconverted, so this form is built after it (`lower_tagged`) from the
    CPU form's K-step loop, tagged at mapping time.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, llvm, memref, nvgpu, nvvm, scf, vector

from . import loops as base

# (TM, TN, warps along M, warps along N): first whose grid has >= MIN_BLOCKS blocks
_MMA_LEVELS = [(128, 128, 2, 4), (64, 128, 2, 4), (64, 64, 2, 2), (32, 64, 2, 2), (32, 32, 2, 2)]
MIN_MMA_THREADS = 128


def mma_kind(m: dict, tf32: bool) -> str | None:
    """'f16', 'bf16' or 'tf32' when the matched contraction `m` fits an MMA:
    f32 accumulation (addf of mulf into an f32 output) of two f16 or two bf16
    loads each widened by one extf, or of two f32 loads when tf32 is on."""
    if m["comb"].name != "arith.addf" or m["prod"].name != "arith.mulf":
        return None
    if not isinstance(m["store"].operands[0].type, ir.F32Type):
        return None
    a, b = m["a"].results[0], m["b"].results[0]
    expr = [o for o in m["fops"] if o not in (m["a"], m["b"], m["load"], m["store"], m["comb"],
                                                m["prod"])]
    ta, tb = a.type, b.type
    if isinstance(ta, ir.F32Type) and isinstance(tb, ir.F32Type):
        return "tf32" if tf32 and not expr and set(m["prod"].operands) == {a, b} else None
    kind = {ir.F16Type: "f16", ir.BF16Type: "bf16"}
    ka, kb = kind.get(type(ta)), kind.get(type(tb))
    if ka is None or ka != kb or len(expr) != 2:
        return None
    if any(o.name != "arith.extf" or not isinstance(o.results[0].type, ir.F32Type)
           for o in expr):
        return None
    if {o.operands[0] for o in expr} != {a, b} or \
            set(m["prod"].operands) != {o.results[0] for o in expr}:
        return None
    return ka


def plan_mma(M: int, N: int, batch: int = 1) -> tuple[int, int, int, int]:
    """(TM, TN, WGM, WGN): the largest block tile of _MMA_LEVELS whose grid
    reaches MIN_BLOCKS blocks (else the smallest)."""
    for TM, TN, wgm, wgn in _MMA_LEVELS:
        if -(-M // TM) * -(-N // TN) * batch >= base.MIN_BLOCKS:
            break
    return TM, TN, wgm, wgn


def fits(M: int, N: int, K: int, threads: int) -> bool:
    """Whether the MMA tiles are worth it: the block of 128 or 256 threads fits
    the thread budget and the matrix is at least one fragment each way."""
    return threads >= MIN_MMA_THREADS and M >= 16 and N >= 16 and K >= 16


def _i(v: int) -> ir.Value:
    return base._index(v)


def _a_row_addr(lane: ir.Value) -> tuple[ir.Value, ir.Value]:
    """(row, k) within a 16 x 16 A fragment that `lane` gives ldmatrix x4:
    lanes 0-15 rows 0-15 at k 0, lanes 16-31 the same rows at k 8 (matrices
    0-3: rows 0-7/8-15 x k 0-7, then x k 8-15: registers a0..a7)."""
    return (arith.RemUIOp(lane, _i(16)).result,
            arith.MulIOp(arith.DivUIOp(lane, _i(16)).result, _i(8)).result)


def _b_row_addr(lane: ir.Value) -> tuple[ir.Value, ir.Value]:
    """(n, k) within a 8 x 16 B fragment (stored n-major) that `lane` gives
    ldmatrix x2: lanes 0-7 rows n 0-7 at k 0, lanes 8-15 at k 8 (lanes 16-31
    repeat them; x2 ignores their addresses)."""
    q = arith.RemUIOp(arith.DivUIOp(lane, _i(8)).result, _i(2)).result
    return arith.RemUIOp(lane, _i(8)).result, arith.MulIOp(q, _i(8)).result


def _cpu_fragment_reads(kind: str, r: ir.Value, n: ir.Value, k: ir.Value):
    """(A row, A k, B n, B k) the MMA reads element (r, k) of A and (k, n) of
    B from (r in 0..15, n in 0..7, k in 0..FK-1, within the fragment): for
    f16/bf16 through the ldmatrix lane that holds the row's address (matrix
    j = r//8 + 2*(k//8) of A, j = k//8 of B; lane 8j + row%8), for TF32 as is."""
    if kind == "tf32":
        return r, k, n, k
    k8 = arith.DivUIOp(k, _i(8)).result
    kr = arith.RemUIOp(k, _i(8)).result
    ja = arith.AddIOp(arith.DivUIOp(r, _i(8)).result, arith.MulIOp(k8, _i(2)).result).result
    la = arith.AddIOp(arith.MulIOp(ja, _i(8)).result, arith.RemUIOp(r, _i(8)).result).result
    ar, ak = _a_row_addr(la)
    lb = arith.AddIOp(arith.MulIOp(k8, _i(8)).result, arith.RemUIOp(n, _i(8)).result).result
    bn, bk = _b_row_addr(lb)
    return ar, arith.AddIOp(ak, kr).result, bn, arith.AddIOp(bk, kr).result


def map_matmul_mma(p: ir.Operation, m: dict, kind: str, threads: int, ops: bool) -> bool:
    """The MMA-tiled contraction (module docstring); False (nothing changed)
    when it does not fit (`fits`). Phases as _map_matmul's: init
    (accumulators <- output), per K step load (A, B tiles -> shared, zeros out
    of bounds) and compute, then store."""
    pv = p.opview
    lbs, ubs, steps = ([base._const(v) for v in vs]
                       for vs in (pv.lowerBound, pv.upperBound, pv.step))
    if any(v != 0 for v in lbs) or any(v != 1 for v in steps) or None in ubs:
        return False
    dm, dn = m["dims"]["m"], m["dims"]["n"]
    M, N, K = ubs[dm], ubs[dn], m["K"]
    if not fits(M, N, K, threads):
        return False
    nd = len(ubs)
    batch = 1
    for d in range(nd):
        if d not in (dm, dn):
            batch *= ubs[d]
    TM, TN, WGM, WGN = plan_mma(M, N, batch)
    WM, WN = TM // WGM, TN // WGN
    FM, FN = WM // 16, WN // 8
    FK = 8 if kind == "tf32" else 16
    TK = 2 * FK
    T = WGM * WGN * base.WARP
    ext = {d: ubs[d] for d in range(nd)}
    ext[dm], ext[dn] = -(-M // TM), -(-N // TN)
    order = [d for d in range(nd) if d not in (dm, dn) and ubs[d] > 1] + [dm, dn]
    bgroups = base._groups([d for d in order if ext[d] > 1], ext, base.MAX_GRID_YZ)
    ivs = list(p.regions[0].blocks[0].arguments)
    elt_in = m["a"].results[0].type
    f32 = ir.F32Type.get()
    pad = 16 // (4 if kind == "tf32" else 2)      # 16 bytes
    space = ir.Attribute.parse("#gpu.address_space<workgroup>") if ops else None
    nkt = -(-K // TK)
    with ir.InsertionPoint(p), p.location:
        outer, in_outer, coords = base._block_grid(bgroups, ext)
        outer.attributes[base._PHASES] = ir.UnitAttr.get()
        with in_outer:
            bc = {d: coords.get(d) or _i(0) for d in range(nd)}
            m0 = arith.MulIOp(bc[dm], _i(TM)).result
            n0 = arith.MulIOp(bc[dn], _i(TN)).result
            sa = memref.AllocOp(ir.MemRefType.get([TM, TK + pad], elt_in, memory_space=space),
                                [], [])
            if ops:
                sa.attributes[_TAG + "_a"] = ir.UnitAttr.get()
            sb = memref.AllocOp(ir.MemRefType.get([TN, TK + pad], elt_in, memory_space=space),
                                [], [])
            acc = memref.AllocOp(ir.MemRefType.get([T, FM, FN, 4], f32), [], [])
            sa.attributes[base._SHARED] = ir.UnitAttr.get()
            sb.attributes[base._SHARED] = ir.UnitAttr.get()
            acc.attributes[base._LOCAL] = ir.UnitAttr.get()
            sa, sb, acc = sa.result, sb.result, acc.result

            def warp_origin(t):
                w = arith.DivUIOp(t, _i(base.WARP)).result
                lane = arith.RemUIOp(t, _i(base.WARP)).result
                wm = arith.MulIOp(arith.DivUIOp(w, _i(WGN)).result, _i(WM)).result
                wn = arith.MulIOp(arith.RemUIOp(w, _i(WGN)).result, _i(WN)).result
                return wm, wn, lane

            def owned(t):
                """(mi, ni, e, out index, in-bounds condition) of thread t's accumulators."""
                wm, wn, lane = warp_origin(t)
                g = arith.DivUIOp(lane, _i(4)).result
                c2 = arith.MulIOp(arith.RemUIOp(lane, _i(4)).result, _i(2)).result
                res = []
                for mi in range(FM):
                    for ni in range(FN):
                        for e in range(4):
                            row = arith.AddIOp(m0, arith.AddIOp(wm, arith.AddIOp(
                                g, _i(mi * 16 + 8 * (e // 2))).result).result).result
                            col = arith.AddIOp(n0, arith.AddIOp(wn, arith.AddIOp(
                                c2, _i(ni * 8 + e % 2)).result).result).result
                            conds = []
                            if M % TM:
                                conds.append(arith.CmpIOp(arith.CmpIPredicate.ult, row,
                                                          _i(M)).result)
                            if N % TN:
                                conds.append(arith.CmpIOp(arith.CmpIPredicate.ult, col,
                                                          _i(N)).result)
                            where = {ivs[d]: bc[d] for d in range(nd)}
                            where[ivs[dm]], where[ivs[dn]] = row, col
                            res.append((mi, ni, e, [where.get(v, v) for v in m["idx"]],
                                        base._and(conds)))
                return res

            # init: the accumulators <- the output's initial values
            _, t, at = base._thread_loop(T)
            with ir.InsertionPoint(at):
                for mi, ni, e, idx, cond in owned(t):
                    with ir.InsertionPoint(base._guarded(cond, at)):
                        v = memref.LoadOp(m["mem"], idx).result
                        memref.StoreOp(v, acc, [t, _i(mi), _i(ni), _i(e)])
            kt_loop = scf.ForOp(_i(0), _i(nkt), _i(1))
            kt_loop.attributes["loop_annotation"] = ir.Attribute.parse(
                "#llvm.loop_annotation<unroll = <disable = true>>")
            with ir.InsertionPoint(kt_loop.body):
                k0 = arith.MulIOp(kt_loop.induction_variable, _i(TK)).result
                # load phase: A [TM, TK] and B [TN, TK] of this K step -> shared, zero-filled
                _, t, at = base._thread_loop(T)
                with ir.InsertionPoint(at):
                    zero = arith.ConstantOp(elt_in, 0.0).result
                    for ld, buf, dim, TS, S, kf in ((m["a"], sa, dm, TM, M, m["kfast"][0]),
                                                    (m["b"], sb, dn, TN, N, m["kfast"][1])):
                        s0 = m0 if dim == dm else n0
                        total = TK * TS
                        for r in range(-(-total // T)):
                            e, ss, kk, gi, gk = base._tile_element(t, r, T, TK, TS, kf, s0, k0)
                            conds = []
                            if S % TS:
                                conds.append(arith.CmpIOp(arith.CmpIPredicate.ult, gi,
                                                          _i(S)).result)
                                gi = arith.MinUIOp(gi, _i(S - 1)).result
                            if K % TK:
                                conds.append(arith.CmpIOp(arith.CmpIPredicate.ult, gk,
                                                          _i(K)).result)
                                gk = arith.MinUIOp(gk, _i(K - 1)).result
                            where = {ivs[d]: bc[d] for d in range(nd)}
                            where[ivs[dim]] = gi
                            where[m["k"]] = gk
                            v = base._clone(ld, where).results[0]
                            ok = base._and(conds)
                            if ok is not None:
                                v = arith.SelectOp(ok, v, zero).result
                            in_range = None
                            if total % T and (r + 1) * T > total:
                                in_range = arith.CmpIOp(arith.CmpIPredicate.ult, e,
                                                        _i(total)).result
                            with ir.InsertionPoint(base._guarded(in_range, at)):
                                memref.StoreOp(v, buf, [ss, kk])
                # compute phase
                _, t, at = base._thread_loop(T)
                with ir.InsertionPoint(at):
                    loop = _cpu_compute(kind, sa, sb, acc, t, *warp_origin(t), FM, FN, FK, TK)
                    if ops:
                        loop.attributes[_TAG] = ir.StringAttr.get(kind)
                        loop.attributes[_TAG + "_shape"] = ir.DenseI64ArrayAttr.get([FM, FN])
                scf.YieldOp([])
            # store phase: the accumulators -> the output
            _, t, at = base._thread_loop(T)
            with ir.InsertionPoint(at):
                for mi, ni, e, idx, cond in owned(t):
                    with ir.InsertionPoint(base._guarded(cond, at)):
                        v = memref.LoadOp(acc, [t, _i(mi), _i(ni), _i(e)]).result
                        memref.StoreOp(v, m["mem"], idx)
            for buf in (sa, sb, acc):
                memref.DeallocOp(buf)
    p.erase()
    return True


_TAG = "msmlir.gpu_mma"


def _widen(kind: str, v: ir.Value) -> ir.Value:
    return v if kind == "tf32" else arith.ExtFOp(ir.F32Type.get(), v).result


def _cpu_compute(kind, sa, sb, acc, t, wm, wn, lane, FM, FN, FK, TK) -> ir.Operation:
    """Per owned accumulator: the sum over the K step of A x B, read where the
    MMA's fragments (ldmatrix lanes) read them. One scf.for over the K step,
    carrying (wm, wn, lane) as iter_args: what lower_tagged reads back after
    convert-parallel-loops-to-gpu (the loop's operands, remapped by it)."""
    kl = scf.ForOp(_i(0), _i(TK), _i(1), [wm, wn, lane])
    with ir.InsertionPoint(kl.body):
        wm, wn, lane = kl.inner_iter_args
        g = arith.DivUIOp(lane, _i(4)).result
        c2 = arith.MulIOp(arith.RemUIOp(lane, _i(4)).result, _i(2)).result
        kk = kl.induction_variable
        ks = arith.MulIOp(arith.DivUIOp(kk, _i(FK)).result, _i(FK)).result
        k = arith.RemUIOp(kk, _i(FK)).result
        for mi in range(FM):
            for ni in range(FN):
                for e in range(4):
                    r = arith.AddIOp(g, _i(8 * (e // 2))).result
                    n = arith.AddIOp(c2, _i(e % 2)).result
                    ar, ak, bn, bk = _cpu_fragment_reads(kind, r, n, k)
                    a = memref.LoadOp(sa, [arith.AddIOp(wm, arith.AddIOp(ar, _i(mi * 16))
                                                        .result).result,
                                           arith.AddIOp(ks, ak).result]).result
                    b = memref.LoadOp(sb, [arith.AddIOp(wn, arith.AddIOp(bn, _i(ni * 8))
                                                        .result).result,
                                           arith.AddIOp(ks, bk).result]).result
                    pos = [t, _i(mi), _i(ni), _i(e)]
                    s = memref.LoadOp(acc, pos).result
                    prod = arith.MulFOp(_widen(kind, a), _widen(kind, b)).result
                    memref.StoreOp(arith.AddFOp(s, prod).result, acc, pos)
        scf.YieldOp([wm, wn, lane])
    return kl.operation


def lower_tagged(kernel: ir.Operation) -> None:
    """Inside the gpu.launch ops (after convert-parallel-loops-to-gpu, which
    does not take nvgpu ops in its loops): each tagged K-step loop of the CPU
    form -> ldmatrix / mma.sync (the module docstring). The accumulators are
    the private buffer the loop's loads read (after convert-mskernel-to-gpu's _fuse_phases)."""
    loops = base._walk(kernel, lambda o: o.name == "scf.for" and _TAG in o.attributes)
    for loop in loops:
        kind = ir.StringAttr(loop.attributes[_TAG]).value
        FM, FN = list(ir.DenseI64ArrayAttr(loop.attributes[_TAG + "_shape"]))
        FK = 8 if kind == "tf32" else 16
        TK = base._const(loop.opview.upperBound)
        wm, wn, lane = list(loop.operands)[3:6]
        bufs = []
        for o in base._walk(loop, lambda o: o.name == "memref.load"):
            if o.operands[0] not in bufs:
                bufs.append(o.operands[0])
        sa = next(b for b in bufs if _TAG + "_a" in b.owner.attributes)
        acc = next(b for b in bufs if b.owner.name == "memref.alloca")
        sb = next(b for b in bufs if b not in (sa, acc))
        with ir.InsertionPoint(loop), loop.location:
            _mma_compute(kind, sa, sb, acc, wm, wn, lane, FM, FN, FK, TK)
        loop.erase()
    for o in base._walk(kernel, lambda o: _TAG + "_a" in o.attributes):
        del o.attributes[_TAG + "_a"]


def _mma_compute(kind, sa, sb, acc, wm, wn, lane, FM, FN, FK, TK) -> None:
    """Per K slice: the A and B fragments (ldmatrix, or element loads for
    TF32), then one mma.sync per fragment pair into the accumulators."""
    f32 = ir.F32Type.get()
    elt = ir.MemRefType(sa.type).element_type
    g = arith.DivUIOp(lane, _i(4)).result
    c = arith.RemUIOp(lane, _i(4)).result
    cty = ir.VectorType.get([2, 2], f32)
    for s in range(TK // FK):
        k0 = _i(s * FK)
        afr, bfr = [], []
        for mi in range(FM):
            row0 = arith.AddIOp(wm, _i(mi * 16)).result
            if kind == "tf32":
                vals = [memref.LoadOp(sa, [arith.AddIOp(row0, arith.AddIOp(g, _i(dr)).result)
                                           .result, arith.AddIOp(k0, arith.AddIOp(c, _i(dk))
                                                                 .result).result]).result
                        for dr, dk in ((0, 0), (8, 0), (0, 4), (8, 4))]
                afr.append(vector.FromElementsOp(ir.VectorType.get([4, 1], f32), vals).result)
            else:
                ar, ak = _a_row_addr(lane)
                afr.append(nvgpu.LdMatrixOp(
                    ir.VectorType.get([4, 2], elt), sa,
                    [arith.AddIOp(row0, ar).result, arith.AddIOp(k0, ak).result],
                    False, 4).result)
        for ni in range(FN):
            n0 = arith.AddIOp(wn, _i(ni * 8)).result
            if kind == "tf32":
                vals = [memref.LoadOp(sb, [arith.AddIOp(n0, g).result,
                                           arith.AddIOp(k0, arith.AddIOp(c, _i(dk)).result)
                                           .result]).result for dk in (0, 4)]
                bfr.append(vector.FromElementsOp(ir.VectorType.get([2, 1], f32), vals).result)
            else:
                bn, bk = _b_row_addr(lane)
                bfr.append(nvgpu.LdMatrixOp(
                    ir.VectorType.get([2, 2], elt), sb,
                    [arith.AddIOp(n0, bn).result, arith.AddIOp(k0, bk).result],
                    False, 2).result)
        if kind == "bf16":
            afr, bfr = [_words(v, 4) for v in afr], [_words(v, 2) for v in bfr]
        for mi in range(FM):
            for ni in range(FN):
                pos = [[_i(mi), _i(ni), _i(e)] for e in range(4)]
                cs = [memref.LoadOp(acc, p).result for p in pos]
                if kind == "bf16":
                    d = nvvm.MmaOp(_STRUCT4(), ir.Attribute.parse(
                        "#nvvm.shape<m = 16, n = 8, k = 16>"),
                        ir.Attribute.parse("#nvvm.mma_layout<row>"),
                        ir.Attribute.parse("#nvvm.mma_layout<col>"), afr[mi], bfr[ni], cs,
                        multiplicandAPtxType=ir.Attribute.parse("#nvvm.mma_type<bf16>"),
                        multiplicandBPtxType=ir.Attribute.parse("#nvvm.mma_type<bf16>")).result
                    outs = [llvm.ExtractValueOp(f32, d, [e]).result for e in range(4)]
                else:
                    cv = vector.FromElementsOp(cty, cs).result
                    d = nvgpu.MmaSyncOp(cty, afr[mi], bfr[ni], cv, [16, 8, FK],
                                        tf32Enabled=True if kind == "tf32" else None).result
                    outs = [vector.ExtractOp(d, [], [e // 2, e % 2]).result for e in range(4)]
                for e in range(4):
                    memref.StoreOp(outs[e], acc, pos[e])


def _STRUCT4() -> ir.Type:
    return ir.Type.parse("!llvm.struct<(f32, f32, f32, f32)>")


def _words(frag: ir.Value, n: int) -> list[ir.Value]:
    """The n rows of a vector<nx2xbf16> fragment as the i32 registers
    nvvm.mma.sync takes for bf16 (nvgpu.mma.sync has no bf16 lowering: "failed
    to deduce operand PTX types")."""
    i32 = ir.IntegerType.get_signless(32)
    out = []
    for r in range(n):
        row = vector.ExtractOp(frag, [], [r]).result
        word = vector.BitCastOp(ir.VectorType.get([1], i32), row).result
        out.append(vector.ExtractOp(word, [], [0]).result)
    return out
