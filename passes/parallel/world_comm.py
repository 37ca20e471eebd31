"""msmlir-mpi-world-comm: the communicators of convert-shard-to-mpi's
`mpi.comm_split`s -> MPI_COMM_WORLD (a split with one constant color) or a
sub-grid communicator made host side (a split of a multi-dimensional mesh).

Why: convert-shard-to-mpi builds each collective's communicator with
`mpi.comm_split(%world, color, key = grid position)` at every call, and
MLIR 22's lowering of `mpi.comm_split` to LLVM loads the new communicator as
an i32 (MPICH's handle type); OpenMPI's MPI_Comm is a pointer, so it is
truncated and MPI_Allreduce segfaults (docs/known-issues.md §10). The
communicator would also leak (one MPI_Comm_split per call, never freed).

1-D grid over every rank (msmlir.parallel checks device_num == the job's
size; ms-opt users of msmlir-cpu-shard-pipeline must keep that contract):
every rank passes the same color and key = its grid position = its world
rank, so the split communicator is MPI_COMM_WORLD:

    %w = mpi.comm_world : !mpi.comm
    %c = mpi.comm_split(%w, %c0_i32, %key) : !mpi.comm      (%c0_i32 constant)
    mpi.allreduce(%b, %b, MPI_SUM, %c) ...
becomes
    mpi.allreduce(%b, %b, MPI_SUM, %w) ...

Multi-dimensional grid (`shard.grid @g(shape = 2x2)`, a collective over some
of its axes, e.g. a row): the color and key are arithmetic of the world rank
(mpi.comm_rank, arith, affine.apply). This pass evaluates them for every
rank of the grid and finds the axes whose sub-grids the split makes (the
same groups, in the same order); the communicator is then that sub-grid's,
made once host side (msmlir.parallel: MPI_Comm_create_group per sub-grid,
runtime/mpi.py's create_group, group `mesh_group_name(shape, axes)`), whose
cell the linker binds to the external global the split is replaced by:

    llvm.mlir.global external @msmlir_mpi_group_msmlir_5fmesh_5f2x2_5faxes_5f1() : i64
    %a = llvm.mlir.addressof @msmlir_mpi_group_msmlir_5fmesh_5f2x2_5faxes_5f1 : !llvm.ptr
    %h = llvm.load %a : !llvm.ptr -> i64
    %c = builtin.unrealized_conversion_cast %h : i64 to !mpi.comm

(as a collective of a create_group group loads its communicator,
passes/lowering/materialize_collectives.py). A split that is no sub-grid of
the module's grid, or whose color is not computable from the rank, is an
error here, since it would crash at run time.
"""
from __future__ import annotations

from mlir import ir

from ..registry import PassFailure, register_pass

MESH_GROUP_PREFIX = "msmlir_mesh_"


def mesh_group_name(shape, axes) -> str:
    """The create_group name of the sub-grids of mesh `shape` along `axes`."""
    return (f"{MESH_GROUP_PREFIX}{'x'.join(map(str, shape))}_axes_"
            f"{'_'.join(map(str, sorted(axes)))}")


def coords(rank: int, shape) -> list[int]:
    """Row-major (last axis fastest) coordinates of `rank` in the grid."""
    out = []
    for s in reversed(list(shape)):
        out.append(rank % s)
        rank //= s
    return out[::-1]


def subgrid_ranks(rank: int, shape, axes) -> list[int]:
    """The world ranks of `rank`'s sub-grid along `axes` (the other
    coordinates fixed), in row-major order over `axes`."""
    n = 1
    for s in shape:
        n *= s
    mine = coords(rank, shape)
    axes = sorted(axes)
    out = []
    for r in range(n):
        c = coords(r, shape)
        if all(c[a] == mine[a] for a in range(len(shape)) if a not in axes):
            out.append((tuple(c[a] for a in axes), r))
    return [r for _, r in sorted(out)]


def subgrid_axes_sets(shape) -> list[tuple[int, ...]]:
    """The proper, non-empty subsets of a grid's axes (each a sub-grid kind)."""
    import itertools
    k = len(shape)
    return [c for m in range(1, k) for c in itertools.combinations(range(k), m)]


class _NotComputable(Exception):
    pass


def _as(cls, e):
    try:
        return cls(e)
    except (ValueError, TypeError):
        return None


def _affine(e, dims: list[int], syms: list[int]) -> int:
    if (c := _as(ir.AffineConstantExpr, e)) is not None:
        return c.value
    if (d := _as(ir.AffineDimExpr, e)) is not None:
        return dims[d.position]
    if (y := _as(ir.AffineSymbolExpr, e)) is not None:
        return syms[y.position]
    for cls, f in ((ir.AffineAddExpr, lambda a, b: a + b), (ir.AffineMulExpr, lambda a, b: a * b),
                   (ir.AffineModExpr, lambda a, b: a % b),
                   (ir.AffineFloorDivExpr, lambda a, b: a // b),
                   (ir.AffineCeilDivExpr, lambda a, b: -(-a // b))):
        if (b := _as(cls, e)) is not None:
            return f(_affine(b.lhs, dims, syms), _affine(b.rhs, dims, syms))
    raise _NotComputable(str(e))


_BINARY = {"arith.addi": lambda a, b: a + b, "arith.subi": lambda a, b: a - b,
           "arith.muli": lambda a, b: a * b, "arith.remsi": lambda a, b: a % b,
           "arith.remui": lambda a, b: a % b, "arith.divsi": lambda a, b: a // b,
           "arith.divui": lambda a, b: a // b, "arith.floordivsi": lambda a, b: a // b}
_CASTS = {"arith.index_cast", "arith.index_castui", "arith.extsi", "arith.extui",
          "arith.trunci"}


def _eval(v: ir.Value, rank: int) -> int:
    """v (an integer or index computed from this process's world rank) on `rank`."""
    owner = v.owner
    if isinstance(owner, ir.Block):
        raise _NotComputable("a block argument")
    op = owner.operation
    if op.name == "arith.constant":
        return ir.IntegerAttr(op.attributes["value"]).value
    if op.name == "mpi.comm_rank":
        c = op.operands[0].owner
        if isinstance(c, ir.Block) or c.operation.name != "mpi.comm_world":
            raise _NotComputable("the rank in another communicator")
        return rank
    if op.name in _CASTS:
        return _eval(op.operands[0], rank)
    if op.name in _BINARY:
        return _BINARY[op.name](_eval(op.operands[0], rank), _eval(op.operands[1], rank))
    if op.name == "affine.apply":
        m = ir.AffineMapAttr(op.attributes["map"]).value
        vals = [_eval(x, rank) for x in op.operands]
        (e,) = m.results
        return _affine(e, vals[:m.n_dims], vals[m.n_dims:])
    raise _NotComputable(f"'{op.name}'")


def _grid_shape(module: ir.Operation):
    shapes = [list(ir.DenseI64ArrayAttr(op.attributes["shape"]))
              for op in module.regions[0].blocks[0].operations
              if op.operation.name == "shard.grid"]
    return shapes[0] if len(shapes) == 1 else None


def _split_axes_of(op: ir.Operation, shape) -> tuple[int, ...] | None:
    """The axes whose sub-grids `op` (a comm_split of the world) makes, or None."""
    n = 1
    for s in shape:
        n *= s
    try:
        colors = [_eval(op.operands[1], r) for r in range(n)]
        keys = [_eval(op.operands[2], r) for r in range(n)]
    except _NotComputable:
        return None
    groups: dict = {}
    for r in range(n):
        groups.setdefault(colors[r], []).append((keys[r], r))
    made = sorted(tuple(r for _, r in sorted(g)) for g in groups.values())
    for axes in subgrid_axes_sets(shape):
        want = sorted({tuple(subgrid_ranks(r, shape, axes)) for r in range(n)})
        if made == want:
            return axes
    return None


def _cell(module: ir.Operation, op: ir.Operation, group: str) -> ir.Value:
    """This rank's communicator of `group`, loaded from its cell (see above)."""
    from ..lowering.materialize_collectives import _group_global
    name = _group_global(module, group)
    with op.location, ir.InsertionPoint(op):
        ptr, i64 = ir.Type.parse("!llvm.ptr"), ir.IntegerType.get_signless(64)
        addr = ir.Operation.create("llvm.mlir.addressof", results=[ptr], attributes={
            "global_name": ir.FlatSymbolRefAttr.get(name)}).result
        handle = ir.Operation.create("llvm.load", results=[i64], operands=[addr]).result
        return ir.Operation.create("builtin.unrealized_conversion_cast",
                                   results=[ir.Type.parse("!mpi.comm")],
                                   operands=[handle]).result


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
               "mpi.comm_split of MPI_COMM_WORLD -> MPI_COMM_WORLD (one constant color) or the "
               "host-made communicator of a grid's sub-grid")
def world_comm(module: ir.Operation):
    splits: list = []
    _walk(module, splits)
    for op in splits:
        parent, color = op.operands[0], op.operands[1]
        is_world = not isinstance(parent.owner, ir.Block) and \
            parent.owner.operation.name == "mpi.comm_world"
        replacement = parent
        if is_world and _constant(color) is None:
            shape = _grid_shape(module)
            axes = _split_axes_of(op, shape) if shape and len(shape) > 1 else None
            if axes is not None:
                replacement = _cell(module, op, mesh_group_name(shape, axes))
            else:
                is_world = False
        if not is_world:
            op.location.emit_error(
                "mpi.comm_split of a sub-grid that is none of the module's one shard.grid (its "
                "color and key not computable from the world rank, or not a sub-grid's): MLIR 22 "
                "lowers its result as an i32, which truncates OpenMPI's communicator pointers "
                "(docs/known-issues.md §10); only splits of the world along grid axes are "
                "supported")
            raise PassFailure()
        if len(op.results) != 1:
            # (a form returning an !mpi.retval as well): the retval is unused by
            # convert-shard-to-mpi's output
            if any(len(list(r.uses)) for r in list(op.results)[:-1]):
                continue
        op.results[len(op.results) - 1].replace_all_uses_with(replacement)
        op.erase()
