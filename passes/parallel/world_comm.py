"""msmlir-mpi-world-comm: `mpi.comm_split` of MPI_COMM_WORLD with one constant
color -> MPI_COMM_WORLD itself.

Why: convert-shard-to-mpi builds each collective's communicator with
`mpi.comm_split(%world, color, key = grid position)` at every call, and
MLIR 22's lowering of `mpi.comm_split` to LLVM loads the new communicator as
an i32 (MPICH's handle type); OpenMPI's MPI_Comm is a pointer, so it is
truncated and MPI_Allreduce segfaults (docs/known-issues.md §10). The
communicator would also leak (one MPI_Comm_split per call, never freed).
On the 1-D grid msmlir-insert-shardings builds, which covers every rank
(msmlir.parallel checks device_num == the job's size; ms-opt users of
msmlir-cpu-shard-pipeline must keep that contract), every rank passes the
same color and key = its grid position = its world rank, so the split
communicator has the world's ranks in the world's order: it is
MPI_COMM_WORLD, and using it avoids both problems.

    %w = mpi.comm_world : !mpi.comm
    %c = mpi.comm_split(%w, %c0_i32, %key) : !mpi.comm      (%c0_i32 constant)
    mpi.allreduce(%b, %b, MPI_SUM, %c) ...
becomes
    mpi.allreduce(%b, %b, MPI_SUM, %w) ...

A split with a non-constant color (a sub-grid of a multi-dimensional mesh)
is left alone and is an error here, since it would crash at run time.
"""
from __future__ import annotations

from mlir import ir

from ..registry import PassFailure, register_pass


def _walk(op: ir.Operation, out: list):
    for region in op.regions:
        for block in region.blocks:
            for inner in block.operations:
                if inner.operation.name == "mpi.comm_split":
                    out.append(inner.operation)
                _walk(inner.operation, out)


def _constant(v: ir.Value):
    owner = v.owner
    if isinstance(owner, ir.Block):
        return None
    owner = owner.operation
    if owner.name != "arith.constant":
        return None
    return ir.IntegerAttr(owner.attributes["value"]).value


@register_pass("msmlir-mpi-world-comm",
               "mpi.comm_split of MPI_COMM_WORLD with one constant color -> MPI_COMM_WORLD")
def world_comm(module: ir.Operation):
    splits: list = []
    _walk(module, splits)
    for op in splits:
        parent, color = op.operands[0], op.operands[1]
        is_world = not isinstance(parent.owner, ir.Block) and \
            parent.owner.operation.name == "mpi.comm_world"
        if not is_world or _constant(color) is None:
            op.location.emit_error(
                "mpi.comm_split of a sub-grid: MLIR 22 lowers its result as an i32, which "
                "truncates OpenMPI's communicator pointers (docs/known-issues.md); only 1-D "
                "device meshes over every rank are supported")
            raise PassFailure()
        if len(op.results) != 1:
            # (a form returning an !mpi.retval as well): the retval is unused by
            # convert-shard-to-mpi's output
            if any(len(list(r.uses)) for r in list(op.results)[:-1]):
                continue
        op.results[len(op.results) - 1].replace_all_uses_with(parent)
        op.erase()
