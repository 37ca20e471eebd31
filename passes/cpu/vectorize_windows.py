"""msmlir-cpu-vectorize-windows: pooling windows -> gathers along the output width.

Rewrites, on tensors before row fusion, every linalg op on static tensors
that reads an input through a window (a non-permutation indexing map such as
`oh * 2 + kh` or `h floordiv 2 + t`): the named pooling ops
(`linalg.pooling_nchw_max`, `pooling_nchw_sum`, ...: max_pool2d,
avg_pool2d), generalized first, and the generics of the pooling gradients
(the argmax of max_pool2d_grad, the "gather" of both pooling gradients).
Each becomes

* the same `linalg.generic` with the window inputs read by `tensor.extract`
  in the body (coordinates: affine.apply of linalg.index), so that every
  indexing map left is a projected permutation (which the vectorizer needs);
* tiled: the innermost parallel dim (the output width) to a vector, the
  other parallel dims by 1, then the reduction (window) dims by 1, the unit
  dims folded away (the argmax's select-based combiner is not a reduction the
  vectorizer knows; with the window loops outside the op it is elementwise),
  and vectorized: the window reads become vector.gathers (contiguous
  transfer_reads when the index steps by 1 along the width), the running
  max / sum / argmax a vector per output row (kept in registers once
  msmlir-cpu-lower-vectors hoists its transfers out of the window loops).

A window of one element per output (the gather of a pooling gradient with
kernel == stride) accumulating into a zero fill first drops the fill
(drop_zero_init): the gathered, selected dy is stored once instead of the
result being zero-filled, read back and added to (B6's 2x2/2 max-pool
gradients: 235-250 -> 190 us and 108-114 -> 89 us).

Why: the upstream vectorizer rejects non-permutation maps, so these ops kept
the scalar convert-linalg-to-loops path (and msmlir-fuse-rows took the
gradients' generics, whose innermost dims are window reductions, for rows of
one element). Vectorized along the width, a 2x2 max-pool gradient runs about
three times faster.

Runs before msmlir-fuse-rows and msmlir-cpu-tile-vectorize (what it
vectorizes is no longer a linalg op for them). Top-level ops with fewer than
`min-work` iterations keep the plain path (compile time). Each op's recipe
runs in its own `transform.sequence failures(suppress)`; an op the vectorizer
still rejects keeps its scalar loops, with a remark at the op.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import affine, linalg, tensor

from ..common.diagnostics import emit_remark
from ..common.linalg import (MIN_WORK, PARALLEL_MIN_WORK, LoopInfo, funcs, in_block, loop_info, numel,
                             static_tensor, walk_ops)
from ..common.transform import ANY, Script, apply_or_restore, i64, strip_attrs
from ..registry import Option, register_pass
from .generalize import generalize_func
from .tiling import lanes, vector_tile

TAG = "msmlir.cg_window"


def _maps(op: ir.Operation) -> list[ir.AffineMap]:
    return [ir.AffineMapAttr(a).value for a in op.attributes["indexing_maps"]]


def window_inputs(op: ir.Operation) -> list[int]:
    """The inputs of a linalg.generic read through non-permutation maps
    (pooling windows) when every loop dim stays defined by the other operands;
    [] otherwise."""
    if op.name != "linalg.generic" or "indexing_maps" not in op.attributes:
        return []
    maps = _maps(op)
    n_in = len(op.operands) - len(op.results)
    bad = [i for i in range(n_in) if not maps[i].is_projected_permutation]
    if not bad or not all(m.is_projected_permutation for m in maps[n_in:]):
        return []
    defined = set()
    for i, m in enumerate(maps):
        if i not in bad:
            defined.update(r.position for r in m.results if isinstance(r, ir.AffineDimExpr))
    if len(defined) != maps[0].n_dims:
        return []
    return bad


def window_to_extract(op: ir.Operation, bad: list[int]) -> ir.Operation:
    """Rebuilds a window generic with its `bad` inputs read by tensor.extract
    at affine.apply-ed linalg.index coordinates (all maps then projected
    permutations, which the vectorizer requires); returns the new op."""
    maps = _maps(op)
    n_in = len(op.operands) - len(op.results)
    rank = maps[0].n_dims
    keep = [i for i in range(n_in) if i not in bad]
    operands = list(op.operands)
    old = op.regions[0].blocks[0]
    with op.location, ir.InsertionPoint(op):
        new = linalg.GenericOp([r.type for r in op.results], [operands[i] for i in keep],
                               operands[n_in:],
                               ir.ArrayAttr.get([ir.AffineMapAttr.get(maps[i]) for i in keep]
                                                + [ir.AffineMapAttr.get(m) for m in maps[n_in:]]),
                               op.attributes["iterator_types"])
        args = [old.arguments[i] for i in keep] + list(old.arguments)[n_in:]
        block = new.regions[0].blocks.append(*[a.type for a in args])
        with ir.InsertionPoint(block):
            i64t = ir.IntegerType.get_signless(64)
            idx = [linalg.IndexOp(ir.IntegerAttr.get(i64t, d)).result for d in range(rank)]
            last = None
            for i in bad:
                coords = []
                for r in maps[i].results:
                    if isinstance(r, ir.AffineDimExpr):
                        coords.append(idx[r.position])
                    else:
                        coords.append(affine.AffineApplyOp(ir.AffineMap.get(rank, 0, [r]), idx).result)
                ext = tensor.ExtractOp(operands[i], coords)
                old.arguments[i].replace_all_uses_with(ext.result)
                last = ext.operation
    for a, b in zip(args, block.arguments):
        a.replace_all_uses_with(b)
    for o in list(old.operations):
        o.operation.move_after(last)
        last = o.operation
    for r_old, r_new in zip(op.results, new.results):
        r_old.replace_all_uses_with(r_new)
    op.erase()
    return new.operation


def _is_zero_fill(v: ir.Value) -> bool:
    try:
        fill = v.owner
    except Exception:  # noqa: BLE001 - a block argument: no defining op
        return False
    if not isinstance(fill, ir.Operation) and hasattr(fill, "operation"):
        fill = fill.operation
    if not isinstance(fill, ir.Operation) or fill.name != "linalg.fill":
        return False
    c = fill.operands[0].owner
    c = getattr(c, "operation", c)
    if not isinstance(c, ir.Operation) or c.name != "arith.constant":
        return False
    attr = c.attributes["value"]
    return isinstance(attr, ir.FloatAttr) and ir.FloatAttr(attr).value == 0.0


def drop_zero_init(op: ir.Operation) -> bool:
    """A window generic whose window is one element (the gather of a pooling
    gradient with kernel == stride: each output element comes from one dy
    element), accumulating `out + x` into a zero fill, becomes `yield x` into
    the fill's empty tensor: the fill's writes and the generic's re-read of
    them (two passes over the whole input-sized result) go away. 0 + x == x
    (up to the sign of a zero). False: left as is."""
    li = loop_info(op)
    if li is None or len(op.results) != 1:
        return False
    if any(r != 1 for r, it in zip(li.ranges, li.iterators) if it == "reduction"):
        return False
    n_in = len(op.operands) - 1
    init = op.operands[n_in]
    if not _is_zero_fill(init):
        return False
    block = op.regions[0].blocks[0]
    out = block.arguments[n_in]
    yld = list(block.operations)[-1]
    if len(yld.operands) != 1:
        return False
    add = yld.operands[0].owner
    add = getattr(add, "operation", add)
    if not isinstance(add, ir.Operation) or add.name != "arith.addf" or add.parent != op:
        return False
    uses = list(out.uses)
    if len(uses) != 1 or uses[0].owner != add:
        return False
    other = add.operands[1] if add.operands[0] == out else add.operands[0]
    add.results[0].replace_all_uses_with(other)
    add.erase()
    fill = init.owner
    op.operands[n_in] = fill.operands[1]
    return True


def window_script(s: Script, root: str, tag: int, li: LoopInfo, threads: int,
                  key: str = TAG) -> bool:
    """A window op (inputs gathered by tensor.extract): a vector along the
    innermost parallel dim, the other parallel dims tiled by 1 (with threads,
    the outermost big one first split into scf.forall tasks), then the
    reduction (window) dims tiled by 1, unit dims folded, vectorized."""
    its = li.iterators
    par = [d for d, it in enumerate(its) if it == "parallel"]
    if not par:
        return False
    inner = par[-1]
    ranges = li.ranges
    if ranges[inner] < 2:
        return False  # nothing to vectorize along (and a 0-d gather would not verify)
    v = vector_tile(ranges[inner], li.min_bits)
    masked = v == 0   # no divisor of a good vector length: masked vectors, partial last tile
    if masked:
        v = lanes(li.min_bits)
    h = s.match_attr(root, key, tag)
    psizes = [1 if it == "parallel" else 0 for it in its]
    psizes[inner] = v
    work = 1
    for r in ranges:
        work *= r
    if threads > 1 and work >= PARALLEL_MIN_WORK:
        for d in par:
            if d != inner and ranges[d] >= threads and ranges[d] % threads == 0:
                fa = [0] * li.rank
                fa[d] = ranges[d] // threads
                h, _ = s.tile_forall(h, fa)
                break
    t, loops = s.tile(h, psizes)
    rsizes = [1 if it == "reduction" else 0 for it in its]
    if any(rsizes):
        t, loops = s.tile(t, rsizes)
    # fold the unit dims (the window dims above all) inside the innermost loop
    s.patterns(loops[-1], ["linalg.fold_unit_extent_dims_via_slices", "canonicalization"])
    g = s.match_ops(loops[-1], ["linalg.generic"])
    sizes = f" vector_sizes [{v}]" if masked else ""
    s.emit(f"transform.structured.vectorize {g}{sizes} {{vectorize_nd_extract}} : {ANY}")
    return True


def _work(op: ir.Operation) -> int:
    """Iteration-space size (a named pooling op: output elements x window)."""
    if op.name.startswith("linalg.pooling") and len(op.operands) == 3:
        n = 1
        for v in (op.operands[1], op.operands[2]):
            t = static_tensor(v.type)
            if t is None:
                return 1 << 62
            for d in t.shape:
                n *= d
        return n
    return numel(op)


def vectorize_windows_func(func: ir.Operation, threads: int, min_work: int) -> ir.Operation:
    """Generalizes the pooling ops of `func`, rebuilds its window generics with
    tensor.extract and vectorizes them; returns the function."""
    entry = func.regions[0].blocks[0]

    def big(op):
        return not (_work(op) < min_work and in_block(op, entry))

    # one walk for both: the pooling ops (generalized first, then walked
    # again) and the generics
    ops = walk_ops(func, [], lambda o: o.name == "linalg.generic" or o.name.startswith("linalg.pooling"))
    if any(o.name.startswith("linalg.pooling") and big(o) for o in ops):
        func = generalize_func(func, lambda o: o.name.startswith("linalg.pooling") and big(o))
        entry = func.regions[0].blocks[0]
        ops = walk_ops(func, [], lambda o: o.name == "linalg.generic")
    s = Script()
    planned = []
    for op in ops:
        if op.name != "linalg.generic":
            continue
        bad = window_inputs(op)
        if not bad or loop_info(op) is None or not big(op):
            continue
        loc = op.location
        drop_zero_init(op)
        new = window_to_extract(op, bad)
        li = loop_info(new)
        tag = len(planned)
        mark = len(s.lines)
        seq = s.begin_suppressed("%root")
        if not window_script(s, seq, tag, li, threads):
            del s.lines[mark:]
            continue
        s.end_sequence()
        new.attributes[TAG] = i64(tag)
        planned.append(loc)
    if not planned:
        return func
    s.cse("%root")
    func, error = apply_or_restore(func, s.text())
    left = set()
    for o in walk_ops(func, [], lambda o: TAG in o.attributes):   # (and strip the tags)
        left.add(ir.IntegerAttr(o.attributes[TAG]).value)
        del o.attributes[TAG]
    for tag in sorted(left):
        emit_remark(planned[tag], "msmlir-cpu-vectorize-windows: this window op was not "
                                  "vectorized; it keeps the plain path" + (f": {error}" if error else ""))
    return func


@register_pass("msmlir-cpu-vectorize-windows",
               "Pooling ops and the pooling gradients' window generics -> tensor.extract gathers, "
               "vectorized along the output width (window loops inside)",
               options={"threads": Option(int, 1, "split the outermost parallel loop of big ops "
                                                  "into this many scf.forall tasks (1: serial)"),
                        "min-work": Option(int, MIN_WORK, "top-level ops with a smaller iteration "
                                                          "space keep the plain path")})
def vectorize_windows(module: ir.Operation, *, threads: int, min_work: int):
    for func in list(funcs(module)):
        try:
            vectorize_windows_func(func, threads, min_work)
        except Exception as e:  # noqa: BLE001 - a strategy bug must not fail compilation
            strip_attrs(module, (TAG,))
            emit_remark(func.location, "msmlir-cpu-vectorize-windows: internal error, the window "
                                       f"ops of this function keep the plain path: {type(e).__name__}: {e}")
