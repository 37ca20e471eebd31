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
K is stepped by TK through shared memory: A as sa[2][TM][TK + pad] (m rows,
k contiguous) whatever its global layout (the load phase transposes), B as
sb[2][TN][TK + pad] (n rows, k contiguous) when k is its contiguous dim
(x @ w^T), else, f16/bf16, as it is in memory: sb[2][TK][TN + pad] (k rows,
n contiguous: x @ w, im2col columns), whose fragments ldmatrix .trans reads
(`_bt_row_addr`). Out-of-bounds elements are zeros, so partial tiles need
no guard in the MMA. The 16-byte row pad keeps ldmatrix rows aligned and
off each other's banks.

Two stages (double buffering): a prologue loads K step 0 into stage 0, then
each step kt first loads step kt+1 into stage (kt+1)%2 (past K: zeros) and
computes step kt from stage kt%2. An operand whose shared rows are
contiguous in global memory too, in rows of 16-byte multiples (`_async_ok`),
is loaded in 16-byte chunks: in the CPU form an scf.for over the chunk's
elements, with launch=true one cp.async each (nvgpu.device_async_copy,
bypassing L1, zero-filled past its valid count), and before the barrier
that ends each load phase a commit group and a wait for all but the newest
group: step kt+1's copies fly while step kt computes. Other operands (A
stored k-major, TF32's B with n contiguous, extents that are not chunk
multiples, a convolution's gathered input windows) are loaded element by
element: in the K loop into registers before the compute phase (a `local`
[T, n] buffer: private registers with launch=true) and stored to the other
stage after it, so their global latency is hidden behind the compute (no
barrier between the compute and those stores: they write the stage it does
not read).

Each thread's accumulators are the C fragments' elements it owns in
mma.sync: element e (0..3) of fragment (mi, ni) is row g + 8*(e//2),
column 2*c + e%2 of it, g = lane/4, c = lane%4 (PTX ISA, "Matrix fragments
for mma.m16n8k16").

Two forms of the compute phase, the rest shared:
  - launch=false (`ops=False`, what the CPU check runs): per owned element,
    a scalar sum over the K step, reading A and B from shared memory at the
    addresses the ldmatrix lanes would provide (`_a_row_addr`, `_b_row_addr`,
    `_bt_row_addr`: the same functions the GPU form uses), so the CPU run
    checks the two-stage schedule, the tiling, the fragment ownership, the
    shared layout, the zero padding and the ldmatrix addressing against
    numpy;
  - launch=true (`ops=True`): per 16-deep (TF32: 8-deep) K slice,
    nvgpu.ldmatrix x4 per A fragment and x2 (.trans) per B fragment (TF32: the
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
                                                m["prod"]) and o not in m["index_ops"]]
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


def _bt_row_addr(lane: ir.Value) -> ir.Value:
    """k (the row) within a 16 x 8 B fragment stored k-major (n contiguous)
    that `lane` gives ldmatrix x2 .trans: lanes 0-7 rows k 0-7, lanes 8-15
    rows k 8-15 (lanes 16-31 repeat them); each row is the fragment's 8 n."""
    return arith.RemUIOp(lane, _i(16)).result


def _cpu_fragment_reads(kind: str, r: ir.Value, n: ir.Value, k: ir.Value, b_trans: bool):
    """(A row, A k, B index 0, B index 1) the MMA reads element (r, k) of A
    and (k, n) of B from (r in 0..15, n in 0..7, k in 0..FK-1, within the
    fragment), B's in its buffer's order ((n, k), or (k, n) when `b_trans`):
    for f16/bf16 through the ldmatrix lane that holds the row's address
    (matrix j = r//8 + 2*(k//8) of A, j = k//8 of B; lane 8j + row%8; for
    the transposed B the row is k itself: lane k), for TF32 as is."""
    if kind == "tf32":
        return r, k, n, k
    k8 = arith.DivUIOp(k, _i(8)).result
    kr = arith.RemUIOp(k, _i(8)).result
    ja = arith.AddIOp(arith.DivUIOp(r, _i(8)).result, arith.MulIOp(k8, _i(2)).result).result
    la = arith.AddIOp(arith.MulIOp(ja, _i(8)).result, arith.RemUIOp(r, _i(8)).result).result
    ar, ak = _a_row_addr(la)
    if b_trans:
        lb = arith.AddIOp(arith.MulIOp(k8, _i(8)).result, kr).result
        return ar, arith.AddIOp(ak, kr).result, _bt_row_addr(lb), n
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
            sa = memref.AllocOp(ir.MemRefType.get([2, TM, TK + pad], elt_in,
                                                  memory_space=space), [], [])
            if ops:
                sa.attributes[_TAG + "_a"] = ir.UnitAttr.get()
            # B with n contiguous (x @ w, im2col columns) stays k-major in shared
            # memory too (rows of TN + pad), read by ldmatrix .trans (f16/bf16)
            b_trans = kind != "tf32" and not m["kfast"][1]
            sb = memref.AllocOp(ir.MemRefType.get(
                [2, TK, TN + pad] if b_trans else [2, TN, TK + pad], elt_in,
                memory_space=space), [], [])
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
            def load_phase(k0, stage, check_k, staged=None):
                """The A and B tiles of the K step at k0 -> stage `stage` of
                the shared buffers, zeros out of bounds (check_k: k0 may be
                past K, the prefetch after the last step). `staged`: a list
                that receives the element-loaded values' store phase (the
                values kept in registers meanwhile: store_phase)."""
                _, t, at = base._thread_loop(T)
                stores = []
                with ir.InsertionPoint(at):
                    zero = arith.ConstantOp(elt_in, 0.0).result
                    for ld, buf, dim, TS, S, kf, gathered in (
                            (m["a"], sa, dm, TM, M, m["kfast"][0], m["gather"][0]),
                            (m["b"], sb, dn, TN, N, m["kfast"][1], m["gather"][1])):
                        s0 = m0 if dim == dm else n0
                        k_rows = buf is sb and b_trans         # tile rows are k
                        s_fast = list(ld.operands)[-1] == ivs[dim]
                        if not gathered and _async_ok(ld, s_fast if k_rows else kf,
                                                      S if k_rows else K):
                            _chunk_copies(ld, buf, stage, t, T, TS, TK, S, K, s0, k0, check_k,
                                          {ivs[d]: bc[d] for d in range(nd)}, ivs[dim],
                                          m["k"], zero, at, ops, k_rows)
                            continue
                        total = TK * TS
                        for r in range(-(-total // T)):
                            e, ss, kk, gi, gk = base._tile_element(t, r, T, TK, TS, kf, s0, k0)
                            conds = []
                            if S % TS:
                                conds.append(arith.CmpIOp(arith.CmpIPredicate.ult, gi,
                                                          _i(S)).result)
                                gi = arith.MinUIOp(gi, _i(S - 1)).result
                            if check_k:
                                conds.append(arith.CmpIOp(arith.CmpIPredicate.ult, gk,
                                                          _i(K)).result)
                                gk = arith.MinUIOp(gk, _i(K - 1)).result
                            where = {ivs[d]: bc[d] for d in range(nd)}
                            where[ivs[dim]] = gi
                            where[m["k"]] = gk
                            v = base.clone_load(ld, where).results[0]
                            ok = base._and(conds)
                            if ok is not None:
                                v = arith.SelectOp(ok, v, zero).result
                            in_range = None
                            if total % T and (r + 1) * T > total:
                                in_range = arith.CmpIOp(arith.CmpIPredicate.ult, e,
                                                        _i(total)).result
                            stores.append((v, buf, k_rows, r, TS, kf, s0, total))
                            if staged is None:
                                with ir.InsertionPoint(base._guarded(in_range, at)):
                                    memref.StoreOp(v, buf, [stage, kk, ss] if k_rows else
                                                   [stage, ss, kk])
                    if staged is not None and stores:
                        with staged_at[0]:
                            reg = memref.AllocOp(ir.MemRefType.get([T, len(stores)], elt_in),
                                                 [], [])
                        reg.attributes[base._LOCAL] = ir.UnitAttr.get()
                        regs.append(reg.result)
                        for j, (v, *_rest) in enumerate(stores):
                            memref.StoreOp(v, reg.result, [t, _i(j)])
                        staged.append((reg.result, stores, k0, stage))

            def store_phase(staged):
                """The element-loaded values of a staged load phase, from the
                registers they were loaded into, -> their shared stage (after
                the compute phase: their global latency hidden behind it)."""
                for reg, stores, k0, stage in staged:
                    _, t, at = base._thread_loop(T)
                    with ir.InsertionPoint(at):
                        for j, (_, buf, k_rows, r, TS, kf, s0, total) in enumerate(stores):
                            e, ss, kk, _, _ = base._tile_element(t, r, T, TK, TS, kf, s0, k0)
                            in_range = None
                            if total % T and (r + 1) * T > total:
                                in_range = arith.CmpIOp(arith.CmpIPredicate.ult, e,
                                                        _i(total)).result
                            with ir.InsertionPoint(base._guarded(in_range, at)):
                                v = memref.LoadOp(reg, [t, _i(j)]).result
                                memref.StoreOp(v, buf, [stage, kk, ss] if k_rows else
                                               [stage, ss, kk])

            # two stages: the K step kt+1 is loaded (cp.async with launch=true)
            # while step kt is computed from the other stage
            # (element-loaded operands: the next step's values are loaded into
            # registers before the compute phase and stored to shared memory
            # after it, so their latency is hidden behind it; cp.async ones fly)
            load_phase(_i(0), _i(0), K % TK != 0)
            kt_loop = scf.ForOp(_i(0), _i(nkt), _i(1))
            kt_loop.attributes["loop_annotation"] = ir.Attribute.parse(
                "#llvm.loop_annotation<unroll = <disable = true>>")
            staged_at, staged, regs = [ir.InsertionPoint(kt_loop)], [], []
            with ir.InsertionPoint(kt_loop.body):
                kt = kt_loop.induction_variable
                nxt = arith.AddIOp(kt, _i(1)).result
                load_phase(arith.MulIOp(nxt, _i(TK)).result,
                           arith.RemUIOp(nxt, _i(2)).result, True, staged)
                # compute phase
                ph, t, at = base._thread_loop(T)
                if staged:      # (the stores after it write the other stage)
                    ph.attributes[base._NO_BARRIER] = ir.UnitAttr.get()
                with ir.InsertionPoint(at):
                    loop = _cpu_compute(kind, sa, sb, acc, t, *warp_origin(t),
                                        arith.RemUIOp(kt, _i(2)).result, FM, FN, FK, TK,
                                        b_trans)
                    if ops:
                        loop.attributes[_TAG] = ir.StringAttr.get(kind)
                        loop.attributes[_TAG + "_shape"] = ir.DenseI64ArrayAttr.get([FM, FN])
                        if b_trans:
                            loop.attributes[_TAG + "_btrans"] = ir.UnitAttr.get()
                store_phase(staged)
                scf.YieldOp([])
            # store phase: the accumulators -> the output
            _, t, at = base._thread_loop(T)
            with ir.InsertionPoint(at):
                for mi, ni, e, idx, cond in owned(t):
                    with ir.InsertionPoint(base._guarded(cond, at)):
                        v = memref.LoadOp(acc, [t, _i(mi), _i(ni), _i(e)]).result
                        memref.StoreOp(v, m["mem"], idx)
            for buf in [sa, sb, acc] + regs:
                memref.DeallocOp(buf)
    p.erase()
    return True


_TAG = "msmlir.gpu_mma"
_ASYNC = "msmlir.gpu_cp_async"
CHUNK_BYTES = 16                   # one cp.async.cg: 16 bytes


def _async_ok(ld: ir.Operation, fast: bool, extent: int) -> bool:
    """Whether an operand's tile rows can be copied in 16-byte chunks (cp.async):
    the chunked dim (k, or m/n for a k-major tile) its innermost index
    (`fast`) over a contiguous static buffer (offset 0) whose rows and the
    dim's extent are multiples of a chunk, so every chunk is 16-byte aligned
    and wholly inside or wholly outside the matrix."""
    t = ld.operands[0].type
    K = extent
    if not fast or not isinstance(t, ir.MemRefType):
        return False
    t = ir.MemRefType(t)
    bits = t.element_type.width if hasattr(t.element_type, "width") else 0
    if bits not in (16, 32) or not t.has_static_shape:
        return False
    ch = CHUNK_BYTES * 8 // bits
    strides, offset = t.get_strides_and_offset()
    want, acc = [], 1
    for d in reversed(t.shape):
        want.append(acc)
        acc *= d
    return strides == want[::-1] and offset == 0 and t.shape[-1] % ch == 0 and K % ch == 0


def _chunk_copies(ld, buf, stage, t, T, TS, TK, S, K, s0, k0, check_k, where0, s_iv, k_iv,
                  zero, at, ops, k_rows=False) -> None:
    """The tile of an operand as 16-byte chunks along its contiguous dim:
    [TS rows, TK k] (k contiguous), or with `k_rows` [TK rows, TS columns]
    (the m/n dim contiguous); chunk c = t + r*T at row c // (cols/CH),
    column (c % (cols/CH)) * CH. Per chunk an scf.for over its CH elements
    (the CPU form: loads with the chunk's valid count as the zero fill),
    carrying (global indices of its first element, stage, row, column,
    valid count) as iter_args; with `ops` tagged for lower_tagged, which
    makes it one cp.async (nvgpu.device_async_copy, zero-filled past the
    valid count)."""
    ch = CHUNK_BYTES * 8 // ir.MemRefType(ld.operands[0].type).element_type.width
    cols = TS if k_rows else TK
    per_row = cols // ch
    total = (TK if k_rows else TS) * per_row
    mem = ld.operands[0]
    for r in range(-(-total // T)):
        c = arith.AddIOp(t, _i(r * T)).result
        row = arith.DivUIOp(c, _i(per_row)).result
        kk = arith.MulIOp(arith.RemUIOp(c, _i(per_row)).result, _i(ch)).result
        gi = arith.AddIOp(s0, kk if k_rows else row).result
        gk = arith.AddIOp(k0, row if k_rows else kk).result
        conds = []
        if S % TS:
            conds.append(arith.CmpIOp(arith.CmpIPredicate.ult, gi, _i(S)).result)
            gi = arith.MinUIOp(gi, _i(S - (ch if k_rows else 1))).result
        if check_k:
            conds.append(arith.CmpIOp(arith.CmpIPredicate.ult, gk, _i(K)).result)
            gk = arith.MinUIOp(gk, _i(K - (1 if k_rows else ch))).result
        ok = base._and(conds)
        valid = _i(ch) if ok is None else arith.SelectOp(ok, _i(ch), _i(0)).result
        where = dict(where0)
        where[s_iv], where[k_iv] = gi, gk
        idx = [where.get(v, v) for v in list(ld.operands)[1:]]
        in_range = None
        if total % T and (r + 1) * T > total:
            in_range = arith.CmpIOp(arith.CmpIPredicate.ult, c, _i(total)).result
        with ir.InsertionPoint(base._guarded(in_range, at)):
            loop = scf.ForOp(_i(0), _i(ch), _i(1), idx + [stage, row, kk, valid])
            with ir.InsertionPoint(loop.body):
                e = loop.induction_variable
                args = list(loop.inner_iter_args)
                gidx = args[:len(idx)]
                st, rw, k_in, n_ok = args[len(idx):]
                gidx[-1] = arith.AddIOp(gidx[-1], e).result
                v = memref.LoadOp(mem, gidx).result
                v = arith.SelectOp(arith.CmpIOp(arith.CmpIPredicate.ult, e, n_ok).result,
                                   v, zero).result
                memref.StoreOp(v, buf, [st, rw, arith.AddIOp(k_in, e).result])
                scf.YieldOp(args)
            if ops:
                loop.attributes[_ASYNC] = ir.UnitAttr.get()


def _lower_async_copies(kernel: ir.Operation) -> None:
    """Each tagged chunk loop -> nvgpu.device_async_copy (cp.async.cg, 16
    bytes, zero fill past the valid count); then, before the barrier that
    ends each load phase, a commit group and a wait until at most one group
    is in flight: the group just committed (the next step's tiles) keeps
    loading while this step computes."""
    tok = ir.Type.parse("!nvgpu.device.async.token")
    ends = []
    for loop in base._walk(kernel, lambda o: o.name == "scf.for" and _ASYNC in o.attributes):
        ops = list(loop.operands)[3:]
        load = base._walk(loop, lambda o: o.name == "memref.load")[0]
        store = base._walk(loop, lambda o: o.name == "memref.store")[0]
        mem, buf = load.operands[0], store.operands[1]
        n = ir.MemRefType(mem.type).rank
        idx, (st, rw, kk, valid) = ops[:n], ops[n:]
        ch = base._const(loop.opview.upperBound)
        with ir.InsertionPoint(loop), loop.location:
            nvgpu.DeviceAsyncCopyOp(buf, [st, rw, kk], mem, idx, ir.IntegerAttr.get(
                ir.IndexType.get(), ch), srcElements=valid,
                bypassL1=ir.UnitAttr.get())
        # the barrier after this load phase: the first one after the copy's
        # ancestor in a block that has one
        anc = loop
        while True:
            after, seen = None, False
            for o in anc.block.operations:
                o = o.operation
                if o == anc:
                    seen = True
                elif seen and o.name == "gpu.barrier":
                    after = o
                    break
            if after is not None:
                break
            anc = anc.parent
        if after not in ends:
            ends.append(after)
        loop.erase()
    for bar in ends:
        with ir.InsertionPoint(bar), bar.location:
            group = nvgpu.DeviceAsyncCreateGroupOp([]).result
            nvgpu.DeviceAsyncWaitOp(group, numGroups=1)


def _widen(kind: str, v: ir.Value) -> ir.Value:
    return v if kind == "tf32" else arith.ExtFOp(ir.F32Type.get(), v).result


def _cpu_compute(kind, sa, sb, acc, t, wm, wn, lane, stage, FM, FN, FK, TK,
                 b_trans=False) -> ir.Operation:
    """Per owned accumulator: the sum over the K step of A x B, read where the
    MMA's fragments (ldmatrix lanes) read them, from stage `stage` of the
    shared buffers. One scf.for over the K step, carrying (wm, wn, lane,
    stage) as iter_args: what lower_tagged reads back after
    convert-parallel-loops-to-gpu (the loop's operands, remapped by it)."""
    kl = scf.ForOp(_i(0), _i(TK), _i(1), [wm, wn, lane, stage])
    with ir.InsertionPoint(kl.body):
        wm, wn, lane, stage = kl.inner_iter_args
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
                    ar, ak, b0, b1 = _cpu_fragment_reads(kind, r, n, k, b_trans)
                    a = memref.LoadOp(sa, [stage, arith.AddIOp(wm, arith.AddIOp(
                        ar, _i(mi * 16)).result).result, arith.AddIOp(ks, ak).result]).result
                    if b_trans:     # (k, n)
                        bidx = [arith.AddIOp(ks, b0).result, arith.AddIOp(wn, arith.AddIOp(
                            b1, _i(ni * 8)).result).result]
                    else:           # (n, k)
                        bidx = [arith.AddIOp(wn, arith.AddIOp(b0, _i(ni * 8)).result).result,
                                arith.AddIOp(ks, b1).result]
                    b = memref.LoadOp(sb, [stage] + bidx).result
                    pos = [t, _i(mi), _i(ni), _i(e)]
                    s = memref.LoadOp(acc, pos).result
                    prod = arith.MulFOp(_widen(kind, a), _widen(kind, b)).result
                    memref.StoreOp(arith.AddFOp(s, prod).result, acc, pos)
        scf.YieldOp([wm, wn, lane, stage])
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
        wm, wn, lane, stage = list(loop.operands)[3:7]
        bufs = []
        for o in base._walk(loop, lambda o: o.name == "memref.load"):
            if o.operands[0] not in bufs:
                bufs.append(o.operands[0])
        sa = next(b for b in bufs if _TAG + "_a" in b.owner.attributes)
        acc = next(b for b in bufs if b.owner.name == "memref.alloca")
        sb = next(b for b in bufs if b not in (sa, acc))
        with ir.InsertionPoint(loop), loop.location:
            _mma_compute(kind, sa, sb, acc, wm, wn, lane, stage, FM, FN, FK, TK,
                         _TAG + "_btrans" in loop.attributes)
        loop.erase()
    for o in base._walk(kernel, lambda o: _TAG + "_a" in o.attributes):
        del o.attributes[_TAG + "_a"]
    _lower_async_copies(kernel)


def _mma_compute(kind, sa, sb, acc, wm, wn, lane, stage, FM, FN, FK, TK,
                 b_trans=False) -> None:
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
                vals = [memref.LoadOp(sa, [stage, arith.AddIOp(row0, arith.AddIOp(
                    g, _i(dr)).result).result, arith.AddIOp(k0, arith.AddIOp(c, _i(dk))
                                                       .result).result]).result
                        for dr, dk in ((0, 0), (8, 0), (0, 4), (8, 4))]
                afr.append(vector.FromElementsOp(ir.VectorType.get([4, 1], f32), vals).result)
            else:
                ar, ak = _a_row_addr(lane)
                afr.append(nvgpu.LdMatrixOp(
                    ir.VectorType.get([4, 2], elt), sa,
                    [stage, arith.AddIOp(row0, ar).result, arith.AddIOp(k0, ak).result],
                    False, 4).result)
        for ni in range(FN):
            n0 = arith.AddIOp(wn, _i(ni * 8)).result
            if kind == "tf32":
                vals = [memref.LoadOp(sb, [stage, arith.AddIOp(n0, g).result,
                                           arith.AddIOp(k0, arith.AddIOp(c, _i(dk)).result)
                                           .result]).result for dk in (0, 4)]
                bfr.append(vector.FromElementsOp(ir.VectorType.get([2, 1], f32), vals).result)
            elif b_trans:
                bfr.append(nvgpu.LdMatrixOp(
                    ir.VectorType.get([2, 2], elt), sb,
                    [stage, arith.AddIOp(k0, _bt_row_addr(lane)).result, n0],
                    True, 2).result)
            else:
                bn, bk = _b_row_addr(lane)
                bfr.append(nvgpu.LdMatrixOp(
                    ir.VectorType.get([2, 2], elt), sb,
                    [stage, arith.AddIOp(n0, bn).result, arith.AddIOp(k0, bk).result],
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
