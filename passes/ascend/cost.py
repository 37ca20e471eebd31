"""Per-kernel report and cost model of a planned Ascend kernel (no pass).

The model (a basis for choosing tile sizes, not a measurement; the figures
are assumptions for a 910B-class core, in core cycles):

  MTE (GM <-> UB/L1)   DMA_LATENCY cycles per DataCopy call + bytes / MTE_BYTES
                       (per core, all cores streaming at once)
  vector unit          per instruction ISSUE cycles + ceil(bytes / VECTOR_BYTES)
                       repeats (256 bytes = 64 f32 lanes per repeat), x SLOW for
                       transcendental / division instructions; per-row loops pay
                       one instruction per row, plus SCALAR cycles per
                       GetValue/SetValue
  cube unit            m * n * k / CUBE_MACS cycles per Mmad (f32; CUBE_MACS_F16 for f16
                       inputs accumulating in f32)

  copy-only kernels    (conv.py's im2col / permute / bias column) per item its
                       DataCopyPad calls and bytes, loads overlapping stores; a
                       gathering im2col also one Gather per source row (the larger
                       of the copies and the Gathers) and its tables once per core
  Gather tables        built once per core: SCALAR cycles per SetValue, one
                       vector instruction per Adds (pool.py, group.py)
  cube kernels         per K step the A and B copies (mte2) and the Mmad; serial
                       with queues of depth 1, pipelined with depth 2 (the first
                       copy, then max(mte2, Mmad) per step, the last Mmad), the
                       Fixpipe under the next tile's steps with two L0C buffers

  launches             every kernel launch (a group's parts are launches of their own)
                       LAUNCH_CYCLES, and BLOCK_CYCLES per block of its blockDim (the
                       task scheduler dispatching blocks, each core's start-up:
                       tiling read, TPipe/InitBuffer), reported beside the kernel's
                       cycles (launches=, launch-cycles=; step_estimate sums a whole
                       step) and charged where the planner chooses between one launch
                       and several (split-K) or a blockDim (cube kernels, copy
                       kernels: a tiny kernel stays on few cores). The figures are
                       ASSUMPTIONS: the research notes (kernel-level-notes.md) give no
                       measured launch cost and no NPU is reachable here; 5 us per
                       launch (the order of an asynchronous aclrtLaunchKernel task on
                       a stream) and 0.2 us per block at an assumed 1.8 GHz AI-core clock.

A tile costs mte2 (its input copies), vec and mte3 (its output copies). With
double buffering (queues of depth 2) the three pipes overlap across tiles:
cycles = mte2 + vec + mte3 of the first tile + (tiles - 1) * max(mte2, vec,
mte3); without: tiles * (mte2 + vec + mte3). The kernel's estimate is the
busiest core's (tiles_per_core tiles, all of full size).
"""
from __future__ import annotations

import math

from .plan import F32, Plan, align_up

MTE_BYTES = 32
DMA_LATENCY = 300
VECTOR_BYTES = 256
ISSUE = 8
SLOW = 4
SCALAR = 20
CUBE_MACS = 1024
CUBE_MACS_F16 = 4096           # the cube's native 16x16x16 f16 MACs per cycle
CORE_GHZ = 1.8                  # assumed AI-core clock (cycles <-> microseconds)
LAUNCH_CYCLES = int(5.0 * 1000 * CORE_GHZ)      # 5 us per kernel launch (assumed, see above)
BLOCK_CYCLES = int(0.2 * 1000 * CORE_GHZ)       # 0.2 us per block of a launch (assumed)
_SLOW_OPS = {"Exp", "Ln", "Tanh", "Erf", "Div", "Sqrt", "Rsqrt", "Reciprocal", "Log1p", "Sin", "Cos"}


def _vec_cycles(api: str, elems: int) -> int:
    c = ISSUE + math.ceil(elems * F32 / VECTOR_BYTES)
    return c * SLOW if api in _SLOW_OPS else c


def launch_cycles(block_dim: int) -> int:
    """One launch of `block_dim` blocks: LAUNCH_CYCLES + BLOCK_CYCLES per block."""
    return LAUNCH_CYCLES + BLOCK_CYCLES * max(1, block_dim)


def block_dim_of(plan: Plan) -> int:
    for d in (plan.cube, plan.transpose, plan.dma, plan.pool):
        if d is not None:
            return d["tiling"]["blockDim"]
    if plan.scalar is not None:
        return 1
    return plan.tiling.block_dim


def estimate(plan: Plan) -> dict:
    """The kernel's cycles (its busiest core: "cycles") and its launch's
    ("launch_cycles"); with_launch() is their sum. Tile sizes are chosen on
    "cycles" (vector.py); the choices between one launch and several (split-K)
    and of blockDim (cube.py, conv.py's copy kernels) on with_launch()."""
    est = _kernel_estimate(plan)
    est["launch_cycles"] = launch_cycles(block_dim_of(plan))
    est["launches"] = 1
    return est


def with_launch(plan_or_est) -> int:
    """A kernel's estimate including its launch."""
    est = plan_or_est if isinstance(plan_or_est, dict) else estimate(plan_or_est)
    return int(est["cycles"] + est["launch_cycles"])


def cheapest_block_dim(tiles: int, cores: int, tile_cycles: float) -> int:
    """The blockDim that minimises ceil(tiles / blockDim) * tile_cycles +
    launch_cycles(blockDim): a tiny kernel stays on few cores (each block costs
    BLOCK_CYCLES to dispatch and start)."""
    best = None
    for per in range(1, tiles + 1):
        bd = -(-tiles // per)
        if bd > cores:
            continue
        c = per * tile_cycles + launch_cycles(bd)
        if best is None or c < best[0]:
            best = (c, bd)
        if bd == 1:
            break
    return best[1] if best else 1


def step_estimate(reports) -> dict:
    """A whole step (every kernel of a program, in order): kernels, launches
    (a group's parts each one), cycles with and without the launches."""
    reps = list(reports)
    launches = sum(r.get("launches", 1) for r in reps)
    kernel = sum(r["cycles"] for r in reps)
    launch = sum(r.get("launch_cycles", 0) for r in reps)
    return {"kernels": len(reps), "launches": launches, "kernel_cycles": kernel, "launch_cycles": launch,
            "cycles": kernel + launch, "us": round((kernel + launch) / (CORE_GHZ * 1000), 1)}


def _kernel_estimate(plan: Plan) -> dict:
    if plan.cube is not None:
        return _cube_estimate(plan)
    if plan.transpose is not None:
        return _transpose_estimate(plan)
    if plan.dma is not None:
        return _dma_estimate(plan)
    if plan.pool is not None:
        return _pool_estimate(plan)
    if plan.scalar is not None:
        return {"cycles": int(plan.scalar["accesses"] * SCALAR), "mte2_per_tile": 0, "vector_per_tile": 0,
                "mte3_per_tile": 0, "bound": "scalar fallback", "datacopy_calls": 0,
                "vector_instructions_per_tile": 0}
    t = plan.tiling
    P = t.pitch
    full, row = t.rb * P, align_up(t.rb)
    fin = sum(1 for v, _ in plan.inputs if v is not None and v.kind == "input" and v.role == "full")
    rin = sum(1 for v, _ in plan.inputs if v is not None and v.kind == "input" and v.role == "row")
    fout = sum(1 for v, _ in plan.outputs if v.role == "full")
    rout = len(plan.outputs) - fout
    cout = sum(1 for v, _ in plan.outputs if v.role == "col")
    rout -= cout
    col_mode = plan.mode == "col"
    copies_in = fin + rin + (len(plan.cols) if t.nct > 1 and not col_mode else 0)
    copies_out = fout + rout
    in_bytes = (fin * t.rb * t.cb + rin * t.rb + (len(plan.cols) * t.cb if t.nct > 1 else 0)) * F32
    out_bytes = (fout * t.rb * t.cb + rout * t.rb) * F32
    mte2 = copies_in * DMA_LATENCY + in_bytes // MTE_BYTES
    mte3 = copies_out * DMA_LATENCY + out_bytes // MTE_BYTES
    vec = 0
    for api, cls in plan.vec_ops:
        if cls == "F":
            vec += _vec_cycles(api, full)
        elif cls == "R":
            vec += _vec_cycles(api, row)
        elif cls == "C":
            vec += _vec_cycles(api, P)
        else:                                   # per-row loop
            vec += t.rb * _vec_cycles(api, P)
    vec += plan.scalar_ops * t.rb * SCALAR
    n = t.tiles_per_core
    if col_mode:                       # every column chunk streams all its row tiles
        row_tiles = -(-t.R // t.rb)
        n *= row_tiles
    if plan.double_buffer:
        cycles = mte2 + vec + mte3 + (n - 1) * max(mte2, vec, mte3)
    else:
        cycles = n * (mte2 + vec + mte3)
    if col_mode:
        local = sum(x.startswith("DataCopy(") for x in plan.finish)      # accumulator -> VECOUT
        datacopies = t.tiles * (-(-t.R // t.rb) * (copies_in + copies_out) + len(plan.cols) + cout + local)
    else:
        datacopies = t.tiles * (copies_in + copies_out) + t.block_dim * (len(plan.cols) if t.nct == 1 else 0)
    bound = max((mte2, "MTE2 (GM->UB)"), (vec, "vector"), (mte3, "MTE3 (UB->GM)"))[1]
    return {"cycles": int(cycles), "mte2_per_tile": int(mte2), "vector_per_tile": int(vec),
            "mte3_per_tile": int(mte3), "bound": bound, "datacopy_calls": int(datacopies),
            "vector_instructions_per_tile": len(plan.vec_ops)}


def report(plan: Plan) -> dict:
    """The per-kernel report: memory per level, double buffering, DataCopy
    calls, cost-model estimate."""
    if plan.parts is not None:
        return _group_report(plan)
    est = estimate(plan)
    out = {"kernel": plan.kernel, "function": plan.func, "kind": plan.kind, "soc": plan.soc,
           "ub_bytes": plan.ub_bytes, "l1_bytes": 0, "l0a_bytes": 0, "l0b_bytes": 0, "l0c_bytes": 0,
           "double_buffer": plan.double_buffer}
    if plan.cube is not None:
        out.update({k: plan.cube[k] for k in ("l1_bytes", "l0a_bytes", "l0b_bytes", "l0c_bytes")})
        out.update({"block_dim": plan.cube["tiling"]["blockDim"], "tiles": plan.cube["tiles"],
                    "tile": plan.cube["tile"]})
    elif plan.scalar is not None:
        out.update({"block_dim": 1, "tiles": 1, "tile": "scalar", "fallback_reason": plan.scalar["reason"]})
    elif plan.dma is not None or plan.pool is not None:
        d = plan.dma or plan.pool
        out.update({"block_dim": d["tiling"]["blockDim"], "tiles": d["tiles"], "tile": d["tile"]})
    elif plan.transpose is not None:
        out.update({"block_dim": plan.transpose["tiling"]["blockDim"], "tiles": plan.transpose["tiles"],
                    "tile": plan.transpose["tile"]})
    else:
        t = plan.tiling
        out.update({"block_dim": t.block_dim, "tiles": t.tiles, "tile": f"{t.rb}x{t.cb}"})
    out.update(est)
    return out


def format_report(r: dict) -> str:
    return (f"{r['kernel']}: soc={r['soc']} blockDim={r['block_dim']} tiles={r['tiles']} tile={r['tile']} "
            f"UB={r['ub_bytes']}B L1={r['l1_bytes']}B L0A={r['l0a_bytes']}B L0B={r['l0b_bytes']}B "
            f"L0C={r['l0c_bytes']}B double-buffer={'on' if r['double_buffer'] else 'off'} "
            f"DataCopy={r['datacopy_calls']} est-cycles={r['cycles']} ({r['bound']}-bound) "
            f"launches={r.get('launches', 1)} launch-cycles={r.get('launch_cycles', 0)}")


def _cube_estimate(plan: Plan) -> dict:
    """Per K step: the A and B copies (MTE2) and the Mmad. Queues of depth 1 run
    them one after the other; with double buffering (depth 2) the next step's
    copies run under this step's Mmad (max of the two per step), and with two
    L0C buffers a tile's Fixpipe runs under the next tile's steps."""
    t = plan.cube["tiling"]
    f16 = plan.cube.get("dtype") == "f16"
    es, macs = (2, CUBE_MACS_F16) if f16 else (F32, CUBE_MACS)
    bm, bn, bk = t["baseM"], t["baseN"], t["baseK"]
    ksteps = t.get("kPer") or -(-t["K"] // bk)      # split-K: the K steps of one slice
    mte2 = 2 * DMA_LATENCY + (bm * bk + bk * bn) * es // MTE_BYTES
    mmad = math.ceil(bm * bn * bk / macs)
    fix = DMA_LATENCY + bm * bn * F32 // MTE_BYTES
    n = t["tilesPerCore"]
    depth_in, depth_c = plan.cube.get("depth", (1, 1))
    if depth_in == 2:
        # the steps pipelined across the core's tiles: the first copy, then per step the
        # larger of the next copy and this Mmad, the last Mmad alone
        steps = n * ksteps
        body = mte2 + (steps - 1) * max(mte2, mmad) + mmad
        if depth_c == 2:        # a Fixpipe waits only where it outlasts the next tile's steps
            cycles = body + fix + (n - 1) * max(0, fix - ksteps * max(mte2, mmad))
        else:
            cycles = body + n * fix
        bound = ("MTE2 (GM->L1)" if mte2 >= mmad else "cube") + " (double-buffered)"
    else:
        cycles = n * (ksteps * (mte2 + mmad) + fix)
        bound = "cube+MTE (serial, queues of depth 1)"
    copies = t["tileNum"] * (ksteps * (2 + -(-bm // 16) + -(-bk // 16)) + 1)
    return {"cycles": int(cycles), "mte2_per_tile": int(ksteps * mte2), "vector_per_tile": 0,
            "mte3_per_tile": int(fix), "bound": bound, "datacopy_calls": int(copies),
            "vector_instructions_per_tile": 0}


def _transpose_estimate(plan: Plan) -> dict:
    t = plan.transpose["tiling"]
    tr, C = t["tileRows"], t["cols"]
    rp = align_up(tr)
    mte2 = DMA_LATENCY + tr * C * F32 // MTE_BYTES
    vec = _vec_cycles("Gather", C * rp)                                  # one Gather per tile
    mte3 = DMA_LATENCY + tr * C * F32 // MTE_BYTES
    setup = rp * SCALAR + (C - 1) * _vec_cycles("Adds", rp)             # the table, once per core
    n = t["tilesPerCore"]
    return {"cycles": int(setup + mte2 + vec + mte3 + (n - 1) * max(mte2, vec, mte3)), "mte2_per_tile": mte2,
            "vector_per_tile": vec, "mte3_per_tile": mte3,
            "bound": max((mte2, "MTE2 (GM->UB)"), (vec, "vector"), (mte3, "MTE3 (UB->GM)"))[1] + " (transpose)",
            "datacopy_calls": 2 * t["tileNum"], "vector_instructions_per_tile": 1}


def _dma_estimate(plan: Plan) -> dict:
    """A copy-only kernel (im2col, permute): per item its DataCopyPad calls
    and bytes (in and out); double buffering overlaps an item's load with the
    previous item's store, so the busiest core pays about half the calls."""
    d = plan.dma
    t = d["tiling"]
    per_item = d["copies_per_item"] * DMA_LATENCY + d["bytes_per_item"] // MTE_BYTES
    vec = d.get("vector_per_item", 0)          # a gathering im2col: its Gathers overlap the copies
    setup = 0
    if "setup" in d:                           # the column tables (scalar) and the zeroed buffers
        entries, fills = d["setup"]
        setup = entries * SCALAR + fills * ISSUE
    cycles = setup + t["itemsPerCore"] * max(per_item // 2, vec) + per_item // 2
    bound = f"MTE ({d['kind']} copies)" if per_item // 2 >= vec else f"vector ({d['kind']} gathers)"
    return {"cycles": int(cycles), "mte2_per_tile": per_item // 2, "vector_per_tile": int(vec),
            "mte3_per_tile": per_item // 2, "bound": bound,
            "datacopy_calls": int(t["items"] * d["copies_per_item"]),
            "vector_instructions_per_tile": int(t["H"]) if vec else 0}


def _vector_tables(cnt: int, K: int) -> int:
    """pool.vector_tables: 14 instructions over cnt lanes (two Divs), then an Adds and a Cast per table."""
    c = ISSUE + math.ceil(cnt * F32 / VECTOR_BYTES)
    return (12 + 2 * SLOW) * c + 2 * K * c


def _pool_estimate(plan: Plan) -> dict:
    """pool.py's kernels: per tile the copies, KH*KW Gathers and Maxes (and the gradient's
    compare/select chain), double-buffered; the Gather tables once per core."""
    p = plan.pool
    t = p["tiling"]
    tp, K = t["tilePlanes"], t["KH"] * t["KW"]
    cnt = align_up(tp * t["OH"] * t["OW"], 64)
    inb = tp * t["H"] * align_up(t["W"])

    def vec(n, times=1):
        return times * (ISSUE + math.ceil(n * F32 / VECTOR_BYTES))
    if p["kind"] in ("avg", "avg_grad", "max_padded"):
        grad = p["kind"] == "avg_grad"
        J = t["an"] * t["bn"]
        mte2 = DMA_LATENCY + tp * (t["OH"] * t["OW"] if grad else t["H"] * t["W"]) * F32 // MTE_BYTES
        mte3 = DMA_LATENCY + tp * (t["H"] * t["W"] if grad else t["OH"] * t["OW"]) * F32 // MTE_BYTES
        if grad:      # Div, zero slot, J Gathers and J - 1 Adds over the input planes
            v = vec(cnt) * SLOW + vec(8) + vec(inb, 2 * J - 1)
            setup = SCALAR * J * inb
        else:         # zero slot, K Gathers and K - 1 Adds, Div
            v = vec(8) + vec(cnt, 2 * K - 1) + vec(cnt) * SLOW
            setup = SCALAR * K * cnt if any(p["pads"]) else _vector_tables(cnt, K)
        if p["kind"] == "max_padded":
            v -= vec(cnt) * SLOW                                      # no division
        else:
            setup += SCALAR * cnt if isinstance(p["div"], tuple) else vec(cnt)
        n = t["tilesPerCore"]
        cycles = setup + mte2 + v + mte3 + (n - 1) * max(mte2, v, mte3)
        bound = max((mte2, "MTE2 (GM->UB)"), (v, "vector"), (mte3, "MTE3 (UB->GM)"))[1]
        return {"cycles": int(cycles), "mte2_per_tile": int(mte2), "vector_per_tile": int(v),
                "mte3_per_tile": int(mte3), "bound": bound, "datacopy_calls": int(t["tileNum"] * 2),
                "vector_instructions_per_tile": (2 * J + 1) if grad else (2 * K + 1)}
    grad = p["kind"] == "max_grad"
    mte2 = DMA_LATENCY + tp * t["H"] * t["W"] * F32 // MTE_BYTES
    v = vec(cnt, 2 * K - 1)                                             # gathers + maxes
    if grad:
        mte2 += DMA_LATENCY + tp * t["OH"] * t["OW"] * F32 // MTE_BYTES
        J = t.get("an", 1) * t.get("bn", 1)                               # inverse tables (overlapping windows)
        v += vec(cnt, 8 * K) + vec(inb, 2 * J - 1) + vec(8, 1)          # gather, compare, select, 3 arith, compare, select
        if p.get("general"):
            v += vec(8)                                                   # the -inf slot
    out = tp * (t["H"] * t["W"] if grad else t["OH"] * t["OW"])
    mte3 = DMA_LATENCY + out * F32 // MTE_BYTES
    n = t["tilesPerCore"]
    # the tables, once per core: forward tables by the vector unit unless padded, inverse ones by the scalar unit
    setup = SCALAR * K * cnt if p.get("general") else _vector_tables(cnt, K)
    setup += SCALAR * t.get("an", 1) * t.get("bn", 1) * inb if grad else 0
    cycles = setup + mte2 + v + mte3 + (n - 1) * max(mte2, v, mte3)
    bound = max((mte2, "MTE2 (GM->UB)"), (v, "vector"), (mte3, "MTE3 (UB->GM)"))[1]
    return {"cycles": int(cycles), "mte2_per_tile": int(mte2), "vector_per_tile": int(v), "mte3_per_tile": int(mte3),
            "bound": bound, "datacopy_calls": int(t["tileNum"] * (3 if grad else 2)),
            "vector_instructions_per_tile": (2 * K - 1) + (8 * K + 2 if grad else 0)}


def _group_report(plan: Plan) -> dict:
    """A group (group.py): its parts run one after the other; memory figures are
    the largest part's, cycles and copies the sum."""
    reps = [p.report or report(p) for p, _, _ in plan.parts]
    out = {"kernel": plan.kernel, "function": plan.func, "kind": plan.kind, "soc": plan.soc,
           "parts": [r["kernel"] for r in reps]}
    for k in ("ub_bytes", "l1_bytes", "l0a_bytes", "l0b_bytes", "l0c_bytes", "block_dim"):
        out[k] = max(r[k] for r in reps)
    out["double_buffer"] = any(r["double_buffer"] for r in reps)
    out["tiles"] = "+".join(str(r["tiles"]) for r in reps)
    out["tile"] = "+".join(r["tile"] for r in reps)
    out["cycles"] = sum(r["cycles"] for r in reps)
    out["launches"] = sum(r.get("launches", 1) for r in reps)
    out["launch_cycles"] = sum(r.get("launch_cycles", 0) for r in reps)
    out["datacopy_calls"] = sum(r["datacopy_calls"] for r in reps)
    out["bound"] = " then ".join(r["bound"] for r in reps)
    out["vector_instructions_per_tile"] = sum(r["vector_instructions_per_tile"] for r in reps)
    if getattr(plan, "load3d_skipped", None):          # a convolution left on the GM im2col, and why
        out["load3d_skipped"] = plan.load3d_skipped
    return out
