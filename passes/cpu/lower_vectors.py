"""msmlir-cpu-lower-vectors: after bufferization, vector code -> 1-D vector ops.

Rewrites the scf.forall loops left by the tile+vectorize strategies into
scf.parallel (threads > 1: run on the MLIR async runtime) or scf.for, hoists
loop-invariant vector transfers out of loops (this keeps the matmul
accumulators and the reduction partial sums in registers across the k / row
loop), then lowers contractions to outer products / FMAs, multi-reductions,
transfers, transposes and shape casts to 1-D vector ops, with transform
dialect patterns.

Why: convert-vector-to-llvm handles 1-D vectors well; n-D contractions and
transfers left to it give scalarized code, and without the hoisting every
micro-kernel iteration would load and store its accumulators.
"""
from __future__ import annotations

from mlir import ir

from ..common.linalg import walk_ops
from ..common.transform import ANY, Script, apply_script
from ..registry import Option, register_pass


def _lower_vectors_script(threads: int) -> str:
    s = Script()
    foralls = s.match_ops("%root", ["scf.forall"])
    s.emit(f"transform.foreach {foralls} : {ANY} {{")
    s.emit(f"^bb0(%fa: {ANY}):")
    if threads > 1:
        s.emit(f"  %par = transform.loop.forall_to_parallel %fa : ({ANY}) -> {ANY}")
    else:
        s.emit(f"  %ser = transform.loop.forall_to_for %fa : ({ANY}) -> {ANY}")
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
    key = threads > 1
    if key not in _SCRIPTS:
        _SCRIPTS[key] = _lower_vectors_script(threads)
    interesting = walk_ops(module, [], lambda o: o.name.startswith("vector.") or o.name == "scf.forall")
    if interesting:
        apply_script(module, _SCRIPTS[key])
