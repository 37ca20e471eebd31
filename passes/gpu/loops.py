"""Loop-building primitives of the GPU mapping (no pass): what convert-mskernel-to-gpu and its
tensor-core tiles (mma.py) build their block/thread loop nests from.

Mapped loops are scf.parallel ops with `#gpu.loop_dim_map` attributes (block_x/y/z,
thread_x/y/z); phases of a block (sibling thread loops: barrier semantics on the CPU)
are tagged `msmlir.gpu_phases` on the block loop, block-shared buffers
`msmlir.gpu_shared`, per-thread buffers `msmlir.gpu_local`.
"""
from __future__ import annotations

import math

from mlir import ir
from mlir.dialects import arith, scf

MAX_THREADS = 1024
MAX_GRID_YZ = 65535
MAX_BLOCK_Z = 64


def _walk(op: ir.Operation, pred) -> list[ir.Operation]:
    out = []

    def visit(o):
        if pred(o):
            out.append(o)
        return ir.WalkResult.ADVANCE
    op.walk(visit, ir.WalkOrder.PRE_ORDER)
    return out


def _index(v: int) -> ir.Value:
    return arith.ConstantOp(ir.IndexType.get(), v).result


def _const(v: ir.Value) -> int | None:
    owner = v.owner
    if isinstance(owner, ir.Block):
        return None
    op = owner.operation
    if op.name == "arith.constant":
        return ir.IntegerAttr(op.attributes["value"]).value
    return None


def _mapping_attr(procs: list[str]) -> ir.ArrayAttr:
    return ir.ArrayAttr.get([ir.Attribute.parse(
        f"#gpu.loop_dim_map<processor = {p}, map = (d0) -> (d0), bound = (d0) -> (d0)>")
        for p in procs])


def _new_parallel(ubs: list[int], procs: list[str]) -> tuple[ir.Operation, list[ir.Value]]:
    """scf.parallel (0..ub step 1 per dim) mapped to `procs`, an empty body."""
    n = len(ubs)
    c0, c1 = _index(0), _index(1)
    op = scf.ParallelOp([], [c0] * n, [_index(u) for u in ubs], [c1] * n, [])
    block = op.region.blocks.append(*([ir.IndexType.get()] * n))
    with ir.InsertionPoint(block):
        scf.ReduceOp([], 0)
    op.attributes["mapping"] = _mapping_attr(procs)
    return op.operation, list(block.arguments)


def _block_grid(bgroups: list[list[int]], ext: dict[int, int]):
    """The scf.parallel over blocks of a mapping: one hardware block id per
    group of dims in `bgroups` (`ext`: the dims' block counts). Returns it, an
    insertion point before its terminator, and {dim: block coordinate}
    (delinearized there)."""
    outer, bivs = _new_parallel([max(1, math.prod(ext[d] for d in g)) for g in bgroups],
                                _BLOCK_IDS[:len(bgroups)])
    block = outer.regions[0].blocks[0]
    ip = ir.InsertionPoint(block.operations[len(block.operations) - 1])
    coords = {}
    with ip:
        for g, v in zip(bgroups, bivs):
            coords.update(_coords(v, g, ext))
    return outer, ip, coords


def _groups(dims: list[int], extent: dict[int, int], limit_yz: int,
            z_limit: int | None = None) -> list[list[int]]:
    """Dims (outer -> inner) to hardware ids [x, y, z]: innermost -> x, next -> y,
    the rest linearized into z; everything into x where y/z would be too big."""
    if not dims:
        return [[]]
    inner = list(reversed(dims))
    groups = [[inner[0]]]
    if len(inner) > 1:
        groups.append([inner[1]])
    if len(inner) > 2:
        groups.append(list(reversed(inner[2:])))
    sizes = [math.prod(extent[d] for d in g) for g in groups]
    if any(s > limit_yz for s in sizes[1:]) or (z_limit and len(sizes) > 2 and sizes[2] > z_limit):
        return [list(dims)]
    return groups


def _coords(v: ir.Value, group: list[int], extent: dict[int, int]) -> dict[int, ir.Value]:
    """Delinearizes `v` over the dims of `group` (outer -> inner)."""
    out, rem = {}, v
    for d in reversed(group[1:]):
        e = _index(extent[d])
        out[d] = arith.RemUIOp(rem, e).result
        rem = arith.DivUIOp(rem, e).result
    if group:
        out[group[0]] = rem
    return out


_BLOCK_IDS = ["block_x", "block_y", "block_z"]
_THREAD_IDS = ["thread_x", "thread_y", "thread_z"]
_PHASES = "msmlir.gpu_phases"
_SHARED = "msmlir.gpu_shared"


def _clone(op: ir.Operation, mapping: dict) -> ir.Operation:
    """Clones op at the current insertion point, operands (also nested) remapped."""
    new = op.clone()

    def remap(o):
        for i, v in enumerate(list(o.operands)):
            if v in mapping:
                o.operands[i] = mapping[v]
        return ir.WalkResult.ADVANCE
    new.walk(remap, ir.WalkOrder.PRE_ORDER)
    for old, res in zip(op.results, new.results):
        mapping[old] = res
    return new


def clone_load(ld: ir.Operation, mapping: dict) -> ir.Operation:
    """Clones memref.load `ld` at the current insertion point with the pure
    ops of its block that compute its indices (a gather's index arithmetic:
    a convolution's implicit GEMM), operands remapped by `mapping`."""
    block = ld.block
    chain, seen = [], set()

    def visit(v):
        o = v.owner
        if isinstance(o, ir.Block):
            return
        o = o.operation
        if o.block != block or id(o) in seen or o.regions:
            return
        seen.add(id(o))
        for w in o.operands:
            visit(w)
        chain.append(o)
    for v in list(ld.operands)[1:]:
        visit(v)
    for o in chain:
        if o.results[0] not in mapping:
            _clone(o, mapping)
    return _clone(ld, mapping)


def _thread_loop(T: int):
    loop, (t,) = _new_parallel([T], ["thread_x"])
    block = loop.regions[0].blocks[0]
    return loop, t, block.operations[len(block.operations) - 1]


def _guarded(cond: ir.Value | None, at: ir.Operation) -> ir.Operation:
    """The op to insert before: `at`, or the yield of a new scf.if (cond) before it."""
    if cond is None:
        return at
    with ir.InsertionPoint(at):
        guard = scf.IfOp(cond)
        with ir.InsertionPoint(guard.then_block):
            return scf.YieldOp([]).operation


_LOCAL = "msmlir.gpu_local"
_NO_BARRIER = "msmlir.gpu_no_barrier"    # a phase the next one need not wait for
MIN_BLOCKS = 128             # about one wave of an H100's 132 SMs


def _and(conds: list[ir.Value]) -> ir.Value | None:
    if not conds:
        return None
    c = conds[0]
    for x in conds[1:]:
        c = arith.AndIOp(c, x).result
    return c


WARP = 32


def _tile_element(t: ir.Value, r: int, T: int, TK: int, TS: int, k_fast: bool,
                  s0: ir.Value, k0: ir.Value):
    """Element `t + r*T` of a cooperative [TS, TK] tile load (T threads, a
    stride of T between a thread's elements): (element, tile row ss, tile k
    kk, global row s0 + ss, global k k0 + kk). `k_fast`: consecutive threads
    walk k, the operand's innermost (contiguous) dim, for coalesced reads."""
    e = arith.AddIOp(t, _index(r * T)).result
    if k_fast:
        kk, ss = arith.RemUIOp(e, _index(TK)).result, arith.DivUIOp(e, _index(TK)).result
    else:
        ss, kk = arith.RemUIOp(e, _index(TS)).result, arith.DivUIOp(e, _index(TS)).result
    return e, ss, kk, arith.AddIOp(s0, ss).result, arith.AddIOp(k0, kk).result
