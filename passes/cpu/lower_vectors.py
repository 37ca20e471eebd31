"""msmlir-cpu-lower-vectors: after bufferization, vector code -> 1-D vector ops.

Rewrites the scf.forall loops left by the tile+vectorize strategies into
scf.parallel (threads > 1: OpenMP regions after convert-scf-to-openmp) or scf.for, hoists
loop-invariant vector transfers out of loops (this keeps the matmul
accumulators and the reduction partial sums in registers across the k / row
loop), then lowers contractions to outer products / FMAs, multi-reductions,
transfers, transposes and shape casts to 1-D vector ops, with transform
dialect patterns.

The 1-D transfers it leaves stay vector.transfer_read/write: the pipeline's
convert-vector-to-llvm lowers them to loads, stores and masked ones with the
same upstream patterns (vector.lower_transfer max_transfer_rank = 1) in its
own first step, and the pipeline's canonicalize,cse follow this pass. Why:
that round here cost ~80 ms of LeNet5's train step (~45% of the pass), the
final canonicalization round ~25 ms; without them the LLVM IR after `opt -O1`
is identical (B5, B6).

Why: convert-vector-to-llvm handles 1-D vectors well; n-D contractions and
transfers left to it give scalarized code, and without the hoisting every
micro-kernel iteration would load and store its accumulators.

First, each `memref.copy` between static memrefs that are not contiguous but
have contiguous rows (e.g. a tensor.pad bufferized as a copy into a subview:
the padded panels of packed matmuls whose sizes do not divide the register
tile) becomes a loop nest of row copies. Why: finalize-memref-to-llvm lowers a
non-contiguous memref.copy to the `memrefCopy` runtime function, which copies
element by element (a memcpy call per element); a contiguous row copy is an
LLVM memcpy intrinsic (vector moves).

Also first, a minor-identity transfer with an out-of-bounds dim whose memref
has a higher rank than its vector reads or writes through a rank-reducing
subview (`rank_reduce_transfer`), and the out-of-bounds transfers are split
(split_transfer_full_partial) in a pattern round before the one that unrolls
transfers: upstream's split never returns on a 1-D out-of-bounds transfer of a
rank-2 memref, which transfer_to_scf also makes from a 2-D [true, false] one
(docs/known-issues.md §19). Only transfers the split takes count (not those
directly under an scf.if, e.g. packed matmul tail tiles); without any, the
split is left out of the script. The split uses the "vector-transfer" strategy
(the partial vector through a stack buffer with a masked transfer): the
"linalg-copy" one copies a partial write back at swapped offsets (upstream,
LLVM 22.1.8).
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, memref, scf

from ..common.linalg import walk_ops
from ..common.transform import ANY, Script, apply_script, i64, strip_attrs
from ..registry import Option, register_pass


RANK_ATTR = "msmlir.forall_rank"


def _lower_vectors_script(threads: int, ranks: tuple[int, ...], split: bool) -> str:
    """`ranks`: the numbers of induction variables of the scf.forall loops
    (each tagged with RANK_ATTR): forall_to_for yields one scf.for per
    induction variable, so each rank gets its own foreach. `split`: some
    transfer has an out-of-bounds dim (else no pattern makes one, and the
    split and its pattern round are left out: a round costs ~15% of the pass)."""
    s = Script()
    for r in ranks:
        foralls = s.match_attr("%root", RANK_ATTR, r)
        s.emit(f"transform.foreach {foralls} : {ANY} {{")
        s.emit(f"^bb0(%fa: {ANY}):")
        if threads > 1:
            s.emit(f"  %par = transform.loop.forall_to_parallel %fa : ({ANY}) -> {ANY}")
        else:
            res = ", ".join(f"%ser{i}" for i in range(r))
            s.emit(f"  {res} = transform.loop.forall_to_for %fa : ({ANY}) -> ({', '.join([ANY] * r)})")
        s.emit("  transform.yield")
        s.emit("}")
    funcs = s.match_ops("%root", ["func.func"])
    if threads > 1 and ranks:
        # the scf.parallel loops need it before hoisting (B6 at t=2: other
        # code without); serial code comes canonical from the bufferization
        # stage (B5/B6 at t=1: the same code without, ~15 ms less)
        s.patterns(funcs, ["canonicalization"])
        s.cse(funcs)
    h = s.fresh("h")
    s.emit(f"{h} = transform.structured.hoist_redundant_vector_transfers {funcs} : ({ANY}) -> {ANY}")
    # Separate greedy rounds: vector.lower_shape_cast + vector.lower_transpose +
    # canonicalization in one set ping-pong forever on unit-dim transposes.
    # The out-of-bounds transfers are split in a round of their own, before
    # transfer_to_scf unrolls a 2-D [true, false] one into 1-D [false] reads
    # of a rank-2 memref, on which the split never returns (known-issues §19;
    # the 1-D ones the input has were rewritten by rank_reduce_transfer).
    first = [
        'vector.lower_contraction lowering_strategy = "outerproduct"',
        "vector.transfer_permutation_patterns",
        'vector.lower_multi_reduction lowering_strategy = "innerparallel"',
    ]
    if split:
        s.patterns(h, first + ["vector.split_transfer_full_partial "
                               'split_transfer_strategy = "vector-transfer"'])
    s.patterns(h, first + [
        "vector.transfer_to_scf max_transfer_rank = 1 full_unroll = true",
        "vector.lower_outerproduct",
    ])
    s.patterns(h, ['vector.lower_transpose lowering_strategy = "shuffle_1d"'])
    s.patterns(h, ["vector.lower_shape_cast"])
    return s.text()


_SCRIPTS: dict = {}


@register_pass("msmlir-cpu-lower-vectors",
               "After bufferization: scf.forall -> scf.parallel (threads > 1) or scf.for, hoist "
               "loop-invariant vector transfers and lower contractions/reductions/transfers/"
               "transposes to 1-D vector ops",
               options={"threads": Option(int, 1, "> 1: keep scf.forall loops parallel (scf.parallel)")})
def lower_vectors(module: ir.Operation, *, threads: int):
    # one walk of the module (in Python: its cost grows with the module)
    ops = walk_ops(module, [], lambda o: o.name in ("memref.copy", "scf.forall")
                   or o.name.startswith("vector."))
    if all(op.name == "memref.copy" for op in ops):
        for op in ops:
            split_strided_copy(op)
        return
    ranks, split = set(), False
    for op in ops:
        if op.name == "memref.copy":
            split_strided_copy(op)
        elif op.name in _TRANSFERS and _splittable(op):
            split = True
            rank_reduce_transfer(op)
        elif op.name == "scf.forall":
            r = len(op.regions[0].blocks[0].arguments) - (len(op.results))
            op.attributes[RANK_ATTR] = i64(r)
            ranks.add(r)
    key = (threads > 1, tuple(sorted(ranks)), split)
    if key not in _SCRIPTS:
        _SCRIPTS[key] = _lower_vectors_script(threads, key[1], split)
    apply_script(module, _SCRIPTS[key])
    if ranks:
        strip_attrs(module, (RANK_ATTR,))


_DYNAMIC = -(1 << 63)  # ShapedType::kDynamic
_TRANSFERS = ("vector.transfer_read", "vector.transfer_write")


def _splittable(op: ir.Operation) -> bool:
    """Whether split_transfer_full_partial would split the transfer `op`: it
    has an out-of-bounds dim and is not directly under an scf.if (which the
    pattern skips: its own slow paths are, and so are the packed matmuls'
    tail tiles)."""
    return op.parent.name != "scf.if" and \
        not all(ir.BoolAttr(a).value for a in ir.ArrayAttr(op.attributes["in_bounds"]))


def rank_reduce_transfer(op: ir.Operation) -> bool:
    """A minor-identity transfer with an out-of-bounds dim on a memref of
    higher rank than its vector -> the same transfer on a rank-reducing
    memref.subview at its leading indices (those are in bounds by the
    transfer's semantics). Why: upstream split_transfer_full_partial never
    returns on the 1-D form (known-issues §19); on the subview it splits.
    False (op unchanged) otherwise."""
    with op.context, op.location:
        new = _rank_reduced(op)
    if new is None:
        return False
    for old_r, new_r in zip(op.results, new.results):
        old_r.replace_all_uses_with(new_r)
    op.erase()
    return True


def _rank_reduced(op: ir.Operation) -> ir.Operation | None:
    """The rewritten transfer (inserted before `op`), or None."""
    reading = op.name == "vector.transfer_read"
    src = op.operands[0] if reading else op.operands[1]
    if not isinstance(src.type, ir.MemRefType):
        return None
    st = ir.MemRefType(src.type)
    vt = ir.VectorType(op.results[0].type if reading else op.operands[0].type)
    r, n = st.rank, vt.rank
    inb = [ir.BoolAttr(a).value for a in ir.ArrayAttr(op.attributes["in_bounds"])]
    pmap = ir.AffineMapAttr(op.attributes["permutation_map"]).value
    if r <= n or all(inb) or pmap != ir.AffineMap.get_minor_identity(r, n):
        return None
    segments = list(ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"]))
    first = 1 if reading else 2                     # the indices' first operand
    indices = list(op.operands)[first:first + r]
    rest = list(op.operands)[first + r:]            # padding and/or mask
    strides, _ = st.get_strides_and_offset()
    tail = [("?" if s == _DYNAMIC else str(s)) for s in strides[r - n:]]
    space = f", {st.memory_space}" if st.memory_space is not None else ""
    dims = "".join(("?" if d == _DYNAMIC else str(d)) + "x" for d in st.shape[r - n:])
    view_t = ir.Type.parse(f"memref<{dims}{st.element_type}, strided<[{', '.join(tail)}], offset: ?>{space}>")
    idx = ir.IndexType.get()
    with ir.InsertionPoint(op):
        sizes = [memref.DimOp(src, arith.ConstantOp(idx, ir.IntegerAttr.get(idx, d)).result).result
                 for d in range(r - n, r) if st.shape[d] == _DYNAMIC]
        view = memref.SubViewOp(
            view_t, src, indices[:r - n], sizes, [],
            ir.DenseI64ArrayAttr.get([_DYNAMIC] * (r - n) + [0] * n),
            ir.DenseI64ArrayAttr.get([1] * (r - n) + list(st.shape[r - n:])),
            ir.DenseI64ArrayAttr.get([1] * r)).result
        attrs = {name: op.attributes[name] for name in
                 [a if isinstance(a, str) else a.name for a in op.attributes]}
        attrs["permutation_map"] = ir.AffineMapAttr.get(ir.AffineMap.get_minor_identity(n, n))
        segments[first] = n
        attrs["operandSegmentSizes"] = ir.DenseI32ArrayAttr.get(segments)
        operands = ([view] if reading else [op.operands[0], view]) + indices[r - n:] + rest
        new = ir.Operation.create(op.name, results=[r_.type for r_ in op.results],
                                  operands=operands, attributes=attrs)
    return new


def _contiguous_tail(shape: list[int], strides: list[int]) -> int:
    """How many trailing dims form one contiguous block (row-major)."""
    expect, n = 1, 0
    for d in reversed(range(len(shape))):
        if shape[d] != 1 and strides[d] != expect:
            break
        expect *= shape[d]
        n += 1
    return n


def split_strided_copy(op: ir.Operation) -> bool:
    """memref.copy of static, non-contiguous memrefs with contiguous rows ->
    scf.for loops over the outer dims copying contiguous (rank-reduced) rows.
    False (op unchanged) when both are contiguous or the rows are strided."""
    src, dst = op.operands
    try:
        st, dt = ir.MemRefType(src.type), ir.MemRefType(dst.type)
    except (ValueError, TypeError):
        return False
    if not (st.has_static_shape and dt.has_static_shape) or st.rank < 2:
        return False
    if st.memory_space is not None or dt.memory_space is not None:
        return False
    (ss, so), (ds, do) = st.get_strides_and_offset(), dt.get_strides_and_offset()
    if _DYNAMIC in ss or _DYNAMIC in ds:
        return False
    shape = list(st.shape)
    rank = len(shape)
    tail = min(_contiguous_tail(shape, ss), _contiguous_tail(shape, ds))
    if tail == rank or tail == 0:
        return False
    outer = rank - tail
    elem = st.element_type
    idx = ir.IndexType.get()

    def row_type(strides: list[int]) -> ir.Type:
        dims = "".join(f"{d}x" for d in shape[outer:])
        return ir.Type.parse(f"memref<{dims}{elem}, strided<{list(strides[outer:])}, offset: ?>>")

    def c(v: int) -> ir.Value:
        return arith.ConstantOp(idx, ir.IntegerAttr.get(idx, v)).result

    with op.location:
        ip = ir.InsertionPoint(op)
        ivs = []
        for d in range(outer):
            with ip:
                loop = scf.ForOp(c(0), c(shape[d]), c(1))
                if d:
                    scf.YieldOp([])  # the enclosing loop's terminator
            ivs.append(loop.induction_variable)
            ip = ir.InsertionPoint(loop.body)
        with ip:
            static_off = ir.DenseI64ArrayAttr.get([_DYNAMIC] * outer + [0] * tail)
            sizes = ir.DenseI64ArrayAttr.get([1] * outer + shape[outer:])
            ones = ir.DenseI64ArrayAttr.get([1] * rank)
            rows = [memref.SubViewOp(row_type(strides), v, ivs, [], [], static_off, sizes, ones).result
                    for v, strides in ((src, ss), (dst, ds))]
            memref.CopyOp(*rows)
            scf.YieldOp([])
    op.erase()
    return True
