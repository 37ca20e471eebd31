"""msmlir-cpu-prefetch-rows: the next row prefetched while a multi-pass row loop computes.

After msmlir-cpu-lower-vectors (loops still scf, reads still vector
transfers or loads), in each `scf.for` over rows (step 1) whose body makes
two or more passes over the same row of a memref argument-like buffer M
(child scf.for loops reading M[.., i, .., j] with i the row loop's induction
variable, j the pass loop's, the other indices invariant) -- the row loops
msmlir-fuse-rows builds for softmax (max, exp) and layernorm (mean,
variance, normalize) -- the pass with the most ops gets one
`memref.prefetch` of row min(i + 1, last) per 64-byte line it steps over.

Why: the rows are read from L3 or memory by the first pass, the later passes
find them in L1. The hardware's L2 streamer does not cross a 4 KiB page, so
each new 4 KiB row starts cold and the first pass waits for it while the
core has nothing else to do; the heaviest pass (softmax's exp: ~13 vector
instructions per line) hides the next row's loads behind its arithmetic.
Measured on B2 (softmax 4096x1024, AVX-512 VM, t=1, thread CPU time, min
over interleaved calls, load ~11): 1.61-1.65 -> 1.45-1.57 ms with the
kernel's LLVM IR prefetched by hand, before this pass existed.

Rows shorter than `min-row-bytes` are left alone (consecutive short rows are
one stream the hardware prefetcher follows). A prefetch is a hint: it never
faults and changes no value.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, memref

from ..common.linalg import elem_bits, funcs, walk_ops
from ..fusion.row_fusion import ROW_LOOPS
from ..registry import Option, register_pass

LINE = 64
_READS = ("vector.transfer_read", "vector.load")


def _op(v) -> ir.Operation | None:
    o = v.owner
    o = o.operation if hasattr(o, "operation") else o
    return o if isinstance(o, ir.Operation) else None


def _const_index(v: ir.Value) -> int | None:
    o = _op(v)
    if o is None or o.name != "arith.constant":
        return None
    a = o.attributes["value"]
    return ir.IntegerAttr(a).value if isinstance(a, ir.IntegerAttr) else None


def _inside(v: ir.Value, loop: ir.Operation) -> bool:
    """Whether `v` is defined in `loop` (an op or a block argument in it)."""
    if isinstance(v, ir.BlockArgument):
        o = v.owner.owner
    else:
        o = _op(v)
    o = o.operation if hasattr(o, "operation") else o
    while o is not None:
        if o == loop:
            return True
        p = o.parent
        o = p.operation if p is not None and hasattr(p, "operation") else p
    return False


def _identity_layout(mt: ir.MemRefType) -> bool:
    layout = mt.layout
    return isinstance(layout, ir.AffineMapAttr) and layout.value == ir.AffineMap.get_identity(mt.rank)


def _child_loops(loop: ir.Operation) -> list[ir.Operation]:
    return [o.operation for o in loop.regions[0].blocks[0].operations if o.operation.name == "scf.for"]


def _row_reads(rows: ir.Operation, inner: ir.Operation):
    """(memref, row dim, read) for each read in `inner`'s body of a row of a
    memref: indices [invariant.., rows' iv, invariant.., inner's iv] with the
    row contiguous (static shape, identity layout)."""
    iv_r = rows.regions[0].blocks[0].arguments[0]
    iv_j = inner.regions[0].blocks[0].arguments[0]
    out = []
    for o in inner.regions[0].blocks[0].operations:
        o = o.operation
        if o.name not in _READS:
            continue
        m = o.operands[0]
        try:
            mt = ir.MemRefType(m.type)
        except (ValueError, TypeError):
            continue
        if not mt.has_static_shape or not _identity_layout(mt) or mt.rank < 2:
            continue
        idx = list(o.operands[1:1 + mt.rank])
        if len(idx) != mt.rank or idx[-1] != iv_j:
            continue
        rdims = [d for d, v in enumerate(idx[:-1]) if v == iv_r]
        if len(rdims) != 1:
            continue
        if any(_inside(v, rows) for d, v in enumerate(idx[:-1]) if d != rdims[0]) or _inside(m, rows):
            continue
        out.append((m, rdims[0], idx))
    return out


def _n_ops(op: ir.Operation) -> int:
    return len(walk_ops(op, [], lambda o: True))


def prefetch_row_loop(rows: ir.Operation, min_row_bytes: int) -> bool:
    """Adds the next-row prefetches to one row loop; True if any."""
    if rows.name != "scf.for" or _const_index(rows.operands[2]) != 1:
        return False
    passes: list = []     # [memref, [(pass loop, row dim, indices)]]
    for inner in _child_loops(rows):
        for m, d, idx in _row_reads(rows, inner):
            entry = next((e for e in passes if e[0] == m), None)
            if entry is None:
                entry = [m, []]
                passes.append(entry)
            if not any(r[0] == inner for r in entry[1]):
                entry[1].append((inner, d, idx))
    done = False
    for m, reads in passes:
        if len(reads) < 2:
            continue  # one pass: the row is streamed once, nothing to overlap
        mt = ir.MemRefType(m.type)
        bits = elem_bits(mt.element_type)
        if bits is None or bits % 8:
            continue
        nbytes = bits // 8
        row = mt.shape[-1]
        if row * nbytes < min_row_bytes:
            continue
        target, d, idx = max(reads, key=lambda r: _n_ops(r[0]))
        step = _const_index(target.operands[2])
        ub = _const_index(target.operands[1])
        if step is None or ub is None or ub > row or (step * nbytes) % LINE and LINE % (step * nbytes):
            continue
        per_line = max(1, LINE // nbytes)
        n_pf = max(1, step * nbytes // LINE)
        idx_t = ir.IndexType.get()
        iv_r = rows.regions[0].blocks[0].arguments[0]
        with target.location, ir.InsertionPoint(target):
            one = arith.constant(idx_t, 1)
            last = arith.subi(rows.operands[1], one)
            nxt = arith.minsi(arith.addi(iv_r, one), last)
        body = target.regions[0].blocks[0]
        iv_j = body.arguments[0]
        first = next(iter(body.operations))
        with target.location, ir.InsertionPoint(first):
            for t in range(n_pf):
                j = iv_j if t == 0 else arith.addi(iv_j, arith.constant(idx_t, t * per_line))
                ix = list(idx)
                ix[d] = nxt
                ix[-1] = j
                memref.prefetch(m, ix, False, 3, True)
        done = True
    return done


@register_pass("msmlir-cpu-prefetch-rows",
               "After msmlir-cpu-lower-vectors: in row loops that read each row in several "
               "passes (softmax, layernorm), prefetch the next row during the heaviest pass",
               options={"min-row-bytes": Option(int, 1024, "shorter rows are left alone"),
                        "marked-only": Option(bool, False, "only the functions msmlir-fuse-rows "
                                                           "built row loops in (msmlir.row_loops; "
                                                           "the mark is dropped)")})
def prefetch_rows(module: ir.Operation, *, min_row_bytes: int, marked_only: bool):
    # marked-only (msmlir-cpu-pipeline): the other functions (a train step's
    # matmul and convolution kernels, most of its ops) are not walked.
    for func in list(funcs(module)):
        if marked_only:
            if ROW_LOOPS not in func.attributes:
                continue
            del func.attributes[ROW_LOOPS]
        for loop in walk_ops(func, [], lambda o: o.name == "scf.for"):
            prefetch_row_loop(loop, min_row_bytes)
