"""msmlir-shard-collectives-to-mindir: the resharding ops that MLIR 22's
convert-shard-to-mpi cannot lower -> msmlir's collectives and local slices.

Why: convert-shard-to-mpi (MLIR 22) lowers `shard.all_reduce` and the
process-index ops only. shard-partition also emits `shard.all_gather` (a
split value needed whole: a row-split result returned replicated),
`shard.all_slice` (a replicated value consumed split: no communication) and
`shard.all_to_all` (a value resharded from one split dim to another); on
those convert-shard-to-mpi reports "failed to legalize" but does not fail,
so the pipeline would go on and the Python bindings abort on the unhandled
error (docs/known-issues.md §12). This pass lowers them first:

  all_gather  -> `mindir.all_gather` (msmlir's collective: the ranks' tensors
                 concatenated along dim 0, one MPI_Allgather,
                 passes/lowering/mindir_to_linalg/collectives.py); a
                 gather along another axis is transposed to dim 0 and back
  all_slice   -> `tensor.extract_slice` of this rank's block, the rank from
                 `shard.process_multi_index` (lowered by convert-shard-to-mpi)
  all_to_all  -> one MPI_Alltoall (the helper of ops.comm.all_to_all,
                 passes/lowering/mindir_to_linalg/collectives.py): the split
                 axis cut into n blocks moved to the front, flattened,
                 exchanged (block j to rank j), the received blocks (rank i's
                 at i) moved next to the concat axis and merged into it

and rejects, at their location, the other shard collectives (reduce_scatter,
broadcast, send/recv, ...) that neither can lower. On a multi-dimensional
grid, a collective over some of its axes (a sub-grid: a row of a 2x2 mesh)
gathers within the sub-grid's communicator, made host side by
msmlir.parallel (`mindir.all_gather {group = "msmlir_mesh_2x2_axes_1"}`,
see world_comm.py), and slices by the rank's linear index over those axes.

    %g = shard.all_gather %x on @msmlir_grid grid_axes = [0] gather_axis = 1
           : tensor<4x3xf32> -> tensor<4x6xf32>
becomes
    %t = mindir.transpose %x {perm = array<i64: 1, 0>}      : tensor<3x4xf32>
    %a = mindir.all_gather %t {group_size = 2 : i64}        : tensor<6x4xf32>
    %g = mindir.transpose %a {perm = array<i64: 1, 0>}      : tensor<4x6xf32>
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, tensor

from ..registry import PassFailure, register_pass
from .world_comm import mesh_group_name

# what convert-shard-to-mpi lowers (or needs left for it)
_UPSTREAM = {"shard.grid", "shard.all_reduce", "shard.process_multi_index",
             "shard.process_linear_index", "shard.grid_shape", "shard.shard_shape",
             "shard.neighbors_linear_indices", "shard.update_halo"}
_OURS = {"shard.all_gather", "shard.all_slice", "shard.all_to_all"}


def _grid_sizes(module: ir.Operation) -> dict[str, list[int]]:
    out = {}
    for op in module.regions[0].blocks[0].operations:
        if op.operation.name == "shard.grid":
            out[ir.StringAttr(op.attributes["sym_name"]).value] = list(
                ir.DenseI64ArrayAttr(op.attributes["shape"]))
    return out


def _walk(op: ir.Operation, out: list):
    for region in op.regions:
        for block in region.blocks:
            for inner in block.operations:
                if inner.operation.name.startswith("shard."):
                    out.append(inner.operation)
                _walk(inner.operation, out)


def _transpose(x: ir.Value, perm: list[int]) -> ir.Value:
    t = ir.RankedTensorType(x.type)
    shape = [t.shape[p] for p in perm]
    return ir.Operation.create("mindir.transpose", operands=[x],
                               results=[ir.RankedTensorType.get(shape, t.element_type)],
                               attributes={"perm": ir.DenseI64ArrayAttr.get(perm)}).result


def _gather(x: ir.Value, axis: int, n: int, group: str | None = None) -> ir.Value:
    rank = ir.RankedTensorType(x.type).rank
    perm = [axis] + [d for d in range(rank) if d != axis]
    inv = [perm.index(d) for d in range(rank)]
    moved = x if axis == 0 else _transpose(x, perm)
    mt = ir.RankedTensorType(moved.type)
    gt = ir.RankedTensorType.get([mt.shape[0] * n] + list(mt.shape[1:]), mt.element_type)
    attrs = {"group_size": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), n)}
    if group is not None:
        attrs["group"] = ir.StringAttr.get(group)
    g = ir.Operation.create("mindir.all_gather", operands=[moved], results=[gt],
                            attributes=attrs).result
    return g if axis == 0 else _transpose(g, inv)


def _slice(x: ir.Value, axis: int, n: int, grid: str, axes=(0,), shape=None) -> ir.Value:
    t = ir.RankedTensorType(x.type)
    block = t.shape[axis] // n
    index = ir.IndexType.get()
    rank = None
    for a in axes:                  # the linear index over `axes` (row-major)
        i = ir.Operation.create("shard.process_multi_index", results=[index],
                                attributes={"grid": ir.FlatSymbolRefAttr.get(grid),
                                            "axes": ir.DenseI16ArrayAttr.get([a])}).result
        rank = i if rank is None else arith.addi(
            arith.muli(rank, arith.constant(index, shape[a])), i)
    off = arith.muli(rank, arith.constant(index, block))
    sizes = list(t.shape)
    sizes[axis] = block
    offsets = [0] * t.rank
    offsets[axis] = ir.ShapedType.get_dynamic_size()
    return tensor.extract_slice(ir.RankedTensorType.get(sizes, t.element_type), x, [off], [], [],
                                static_offsets=offsets, static_sizes=sizes,
                                static_strides=[1] * t.rank)


def _reassoc(groups_of: list[int]) -> list[list[int]]:
    """Reassociation of consecutive dims, `groups_of[k]` dims in group k."""
    out, at = [], 0
    for g in groups_of:
        out.append(list(range(at, at + g)))
        at += g
    return out


def _alltoall(op, x: ir.Value, split: int, concat: int, n: int, group: str | None) -> ir.Value:
    """shard.all_to_all as one MPI_Alltoall on a flat buffer of n blocks."""
    from mlir.dialects import bufferization, func, memref
    from ..lowering.mindir_to_linalg.builders import declare_function, module_of
    from ..lowering.mindir_to_linalg.collectives import GROUP_ATTR, MPI_ATTR
    t = ir.RankedTensorType(x.type)
    shape, et, rank = list(t.shape), t.element_type, t.rank
    c = shape[split] // n
    numel = 1
    for d in shape:
        numel *= d
    blocks_shape = shape[:split] + [n, c] + shape[split + 1:]
    blocks = tensor.expand_shape(ir.RankedTensorType.get(blocks_shape, et), x,
                                 _reassoc([1] * split + [2] + [1] * (rank - split - 1)), [],
                                 blocks_shape)
    front = blocks if split == 0 else \
        _transpose(blocks, [split] + [d for d in range(rank + 1) if d != split])
    flat_t = ir.RankedTensorType.get([numel], et)
    flat = tensor.collapse_shape(flat_t, front, [list(range(rank + 1))])
    mt = ir.MemRefType.get([numel], et)
    name = f"msmlir_mpi_alltoall_{n}_{numel}x{et}"
    attrs = {MPI_ATTR: ir.StringAttr.get(f"alltoall_{n}")}
    if group is not None:
        from msmlir.runtime.mpi import group_symbol
        name += "_" + group_symbol(group).removeprefix("msmlir_mpi_group_")
        attrs[GROUP_ATTR] = ir.StringAttr.get(group)
    declare_function(module_of(op), name, [mt, mt], [], attrs)
    send = bufferization.to_buffer(mt, flat, read_only=True)
    recv = memref.alloc(mt, [], [])
    func.call([], ir.FlatSymbolRefAttr.get(name), [send, recv])
    got = bufferization.to_tensor(flat_t, recv, restrict=True, writable=True)
    chunk = shape[:split] + [c] + shape[split + 1:]
    ranks = tensor.expand_shape(ir.RankedTensorType.get([n] + chunk, et), got,
                                [list(range(rank + 1))], [], [n] + chunk)
    perm = list(range(1, rank + 1))
    perm.insert(concat, 0)                       # rank i's block next to the concat dim
    moved = ranks if concat == 0 else _transpose(ranks, perm)
    out = list(chunk)
    out[concat] *= n
    return tensor.collapse_shape(ir.RankedTensorType.get(out, et), moved,
                                 _reassoc([1] * concat + [2] + [1] * (rank - concat - 1)))


def _index_attr(op, name: str) -> int:
    return ir.IntegerAttr(op.attributes[name]).value


@register_pass("msmlir-shard-collectives-to-mindir",
               "shard.all_gather/all_slice/all_to_all (no convert-shard-to-mpi pattern) -> "
               "mindir.all_gather, local slices and MPI_Alltoall")
def collectives_to_mindir(module: ir.Operation):
    grids = _grid_sizes(module)
    found: list = []
    _walk(module, found)
    for op in found:
        if op.name in _UPSTREAM:
            continue
        if op.name not in _OURS:
            op.location.emit_error(f"'{op.name}': no MPI lowering (MLIR 22's convert-shard-to-mpi "
                                   "has none, nor has msmlir)")
            raise PassFailure()
        grid = ir.FlatSymbolRefAttr(op.attributes["grid"]).value
        shape = grids.get(grid)
        axes = list(ir.DenseI16ArrayAttr(op.attributes["grid_axes"])) \
            if "grid_axes" in op.attributes else list(range(len(shape or [])))
        if shape is None or not axes or axes != sorted(set(axes)) or axes[-1] >= len(shape):
            op.location.emit_error(f"'{op.name}': only collectives over grid axes in increasing "
                                   "order are supported")
            raise PassFailure()
        n = 1
        for a in axes:
            n *= shape[a]
        # a sub-grid's collective runs on its communicator, made host side
        # (msmlir.parallel, the group world_comm.mesh_group_name names)
        group = None if len(axes) == len(shape) else mesh_group_name(shape, axes)
        x = op.operands[0]
        with op.location, ir.InsertionPoint(op):
            if op.name == "shard.all_gather":
                y = _gather(x, _index_attr(op, "gather_axis"), n, group)
            elif op.name == "shard.all_slice":
                y = _slice(x, _index_attr(op, "slice_axis"), n, grid, axes, shape)
            else:
                y = _alltoall(op, x, _index_attr(op, "split_axis"), _index_attr(op, "concat_axis"),
                              n, group)
        op.results[0].replace_all_uses_with(y)
        op.erase()
