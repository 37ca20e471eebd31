"""msmlir-cpu-unroll-transfers: n-D vector transfers -> 1-D transfers.

Rewrites, after bufferization and before fold-memref-alias-ops, every n-D
vector.transfer_read/transfer_write into 1-D ones (vector.transfer_to_scf,
full unroll).

Why: upstream fold-memref-alias-ops (MLIR 22) folds an n-D transfer_read of a
memref.expand_shape with a minor identity map over the collapsed source,
which is wrong when the vector dims straddle a collapsed group; 1-D transfers
fold correctly.

First, if a transfer reads or writes a bool (i1) memref, the booleans are
widened to bytes here (msmlir-widen-bool-memrefs on the module): the
transfers lowered later would otherwise load/store bit-packed vectors.

Also, a transfer on an expand_shape view of a rank-0 memref (a 0-d value seen
as `memref<1xT>`, e.g. a keep_dims reduction result) becomes a scalar
memref.load/store of the source: after msmlir-cpu-lower-vectors turns it into
a vector.load, fold-memref-alias-ops would fold that into a `vector<1xT>` load
of a `memref<T>`, which does not verify.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import memref, vector

from ..bufferize.widen_bool_memrefs import widen_bool_memrefs
from ..common.linalg import defining_op, walk_ops
from ..common.transform import Script, apply_script
from ..registry import register_pass

_UNROLL = None


@register_pass("msmlir-cpu-unroll-transfers",
               "After bufferization, before fold-memref-alias-ops: unroll n-D vector "
               "transfers into 1-D ones (vector.transfer_to_scf, full unroll). Upstream "
               "fold-memref-alias-ops folds an n-D transfer_read of a memref.expand_shape "
               "with a minor identity map over the collapsed source, which is wrong when the "
               "vector dims straddle a collapsed group; 1-D transfers fold correctly")
def unroll_transfers(module: ir.Operation):
    global _UNROLL
    transfers = walk_ops(module, [], lambda o: o.name in ("vector.transfer_read",
                                                            "vector.transfer_write"))
    if not transfers:
        return
    if any(_on_bool_memref(op) for op in transfers):
        # booleans stored as bytes now, before the transfers are lowered (a
        # vector<16xi1> load/store of a memref<...xi1> would be bit-packed)
        widen_bool_memrefs(module)
        transfers = walk_ops(module, [], lambda o: o.name in ("vector.transfer_read",
                                                                "vector.transfer_write"))
    for op in transfers:
        _scalarize_rank0_view(op)
    if _UNROLL is None:
        s = Script()
        funcs = s.match_ops("%root", ["func.func"])
        s.patterns(funcs, ["vector.transfer_to_scf max_transfer_rank = 1 full_unroll = true"])
        _UNROLL = s.text()
    apply_script(module, _UNROLL)


def _on_bool_memref(op: ir.Operation) -> bool:
    src = op.operands[0] if op.name == "vector.transfer_read" else op.operands[1]
    t = src.type
    return isinstance(t, ir.MemRefType) and isinstance(t.element_type, ir.IntegerType) \
        and t.element_type.width == 1


def _rank0_source(view: ir.Value) -> ir.Value | None:
    """The rank-0 memref `view` expands (memref.expand_shape), or None."""
    owner = defining_op(view)
    if owner is None or owner.name != "memref.expand_shape":
        return None
    src = owner.operands[0]
    return src if ir.MemRefType(src.type).rank == 0 else None


def _scalarize_rank0_view(op: ir.Operation) -> None:
    """A transfer of a 1-element vector on an expand_shape of a rank-0 memref ->
    memref.load + vector.broadcast / vector.extract + memref.store on the source."""
    reading = op.name == "vector.transfer_read"
    view = op.operands[0] if reading else op.operands[1]
    src = _rank0_source(view)
    vec_t = ir.VectorType(op.results[0].type if reading else op.operands[0].type)
    if src is None or any(d != 1 for d in vec_t.shape):
        return
    with op.location, ir.InsertionPoint(op):
        if reading:
            scalar = memref.LoadOp(src, []).result
            op.results[0].replace_all_uses_with(vector.BroadcastOp(vec_t, scalar).result)
        else:
            scalar = vector.ExtractOp(op.operands[0], [], [0] * vec_t.rank).result
            memref.StoreOp(scalar, src, [])
    op.erase()
