"""msmlir-cpu-lower-vectors: after bufferization, vector code -> 1-D vector ops.

Rewrites the scf.forall loops left by the tile+vectorize strategies into
scf.parallel (threads > 1: OpenMP regions after convert-scf-to-openmp) or scf.for, hoists
loop-invariant vector transfers out of loops (this keeps the matmul
accumulators and the reduction partial sums in registers across the k / row
loop), then lowers contractions to outer products / FMAs, multi-reductions,
transfers, transposes and shape casts to 1-D vector ops, with transform
dialect patterns.

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
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, memref, scf

from ..common.linalg import walk_ops
from ..common.transform import ANY, Script, apply_script, i64, strip_attrs
from ..registry import Option, register_pass


RANK_ATTR = "msmlir.forall_rank"


def _lower_vectors_script(threads: int, ranks: tuple[int, ...]) -> str:
    """`ranks`: the numbers of induction variables of the scf.forall loops
    (each tagged with RANK_ATTR): forall_to_for yields one scf.for per
    induction variable, so each rank gets its own foreach."""
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
    s.patterns(funcs, ["canonicalization"])
    s.cse(funcs)
    h = s.fresh("h")
    s.emit(f"{h} = transform.structured.hoist_redundant_vector_transfers {funcs} : ({ANY}) -> {ANY}")
    # Separate greedy rounds: vector.lower_shape_cast + vector.lower_transpose +
    # canonicalization in one set ping-pong forever on unit-dim transposes.
    s.patterns(h, [
        'vector.lower_contraction lowering_strategy = "outerproduct"',
        "vector.transfer_permutation_patterns",
        'vector.lower_multi_reduction lowering_strategy = "innerparallel"',
        'vector.split_transfer_full_partial split_transfer_strategy = "linalg-copy"',
        "vector.transfer_to_scf max_transfer_rank = 1 full_unroll = true",
        "vector.lower_transfer max_transfer_rank = 1",
        "vector.lower_outerproduct",
    ])
    s.patterns(h, ['vector.lower_transpose lowering_strategy = "shuffle_1d"'])
    s.patterns(h, ["vector.lower_shape_cast"])
    s.patterns(h, ["canonicalization"])
    return s.text()


_SCRIPTS: dict = {}


@register_pass("msmlir-cpu-lower-vectors",
               "After bufferization: scf.forall -> scf.parallel (threads > 1) or scf.for, hoist "
               "loop-invariant vector transfers and lower contractions/reductions/transfers/"
               "transposes to 1-D vector ops",
               options={"threads": Option(int, 1, "> 1: keep scf.forall loops parallel (scf.parallel)")})
def lower_vectors(module: ir.Operation, *, threads: int):
    for op in walk_ops(module, [], lambda o: o.name == "memref.copy"):
        split_strided_copy(op)
    ranks = set()
    for fa in walk_ops(module, [], lambda o: o.name == "scf.forall"):
        r = len(fa.regions[0].blocks[0].arguments) - (len(fa.results))
        fa.attributes[RANK_ATTR] = i64(r)
        ranks.add(r)
    key = (threads > 1, tuple(sorted(ranks)))
    if key not in _SCRIPTS:
        _SCRIPTS[key] = _lower_vectors_script(threads, key[1])
    interesting = walk_ops(module, [], lambda o: o.name.startswith("vector.") or o.name == "scf.forall")
    if interesting:
        apply_script(module, _SCRIPTS[key])
    strip_attrs(module, (RANK_ATTR,))


_DYNAMIC = -(1 << 63)  # ShapedType::kDynamic


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
