"""mindir-insert-shardings: MindSpore sharding strategies -> upstream `shard` annotations.

Why: semi-auto parallelism (MindSpore's `Primitive.shard` / `ms.shard`) is
written as strategies, "cut dim d of input i into c parts", on ops and
function arguments; upstream MLIR's `sharding-propagation` and
`shard-partition` consume `shard.grid` + `shard.sharding` + `shard.shard`
annotations. This pass is the translation, on mindir (before
convert-mindir-to-linalg, which drops the attributes; the shard ops pass
through graph-kernel fusion and outlining as kernel boundaries):

    func.func @f(%x: tensor<4x8xf32> {mindir.strategy = array<i64: 1, 1>},
                 %w: tensor<8x16xf32> {mindir.strategy = array<i64: 1, 2>})
        attributes {mindir.device_num = 2 : i64} {
      %y = mindir.matmul %x, %w {mindir.in_strategy = [array<i64: 1, 1>, array<i64: 1, 2>]} ...
becomes
    shard.grid private @msmlir_grid(shape = 2)    (private: symbol-dce drops it after MPI lowering)
      %s = shard.sharding @msmlir_grid split_axes = [[], [0]] : !shard.sharding
      %w1 = shard.shard %w to %s annotate_for_users : tensor<8x16xf32>
      %y = mindir.matmul %x1, %w1 ...

Strategies (tuples of cuts, one per dim):
  - function argument: arg attribute `mindir.strategy` (its users see that sharding);
  - function result: result attribute `mindir.strategy` (the value returned);
  - op: `mindir.in_strategy` (one tuple per operand: what the op consumes) and
    optionally `mindir.out_strategy` (one tuple per result: what it produces);
  - value: `mindir.sharding_hint %x {strategy = ...}` (Cell.shard's inputs,
    outputs and parameter_plan): a layout constraint, replaced by
        %a = shard.shard %x to S                      (the value is laid out S)
        %b = shard.shard %a to S annotate_for_users   (and its users see S)
The device mesh (`shard.grid @msmlir_grid`, over the function's
`mindir.device_num` ranks, else the pass option's) is inferred from the
strategies as MindSpore infers its device matrix: an op's device matrix is
its in_strategy's cuts over its iteration space (MatMul: (i, k, j), batch
dims first for BatchMatMul, the contracted dim's cuts equal; an elementwise
op: its operands aligned right; another op: each operand's own cuts), a
tensor's (argument, result, hint, out_strategy) its cuts. The product of a
device matrix's cuts must divide device_num; when it is smaller, the
devices of each block compute it alike (MindSpore's repeated calculation).
The matrices that use every device and cut several dims fix the mesh's
shape (they must all agree); every matrix's cuts > 1 must then be products
of consecutive leading mesh axes (see mesh_of: the running products of all
cuts form one chain of divisors of device_num), and the axes after a
matrix's last cut repeat it (MindSpore puts the repeated devices last in
the device matrix). E.g. 4 ranks, MatMul ((2, 1), (1, 2)) -> (2, 1, 2) and
((2, 2), (2, 1)) -> (2, 2, 1): a 2x2 mesh, the batch on axis 0, the hidden
dim on axis 1; MatMul ((2, 1), (1, 1)) alone -> the 2x2 mesh too, its rows
on axis 0 (the first half on ranks 0 and 1, the second on ranks 2 and 3);
a lone cut of device_num takes every axis. Bad strategies (wrong number of
tuples or of cuts, a cut that does not divide its dim or device_num, cuts
that do not nest) are errors at the op's (or function's) location. The
module also gets the `dlti.map` naming the MPI ABI (OpenMPI) that
convert-shard-to-mpi needs.

A user-given device matrix (MindSpore's `Layout`, msmlir.parallel.Layout)
replaces the inference: a strategy carrying `mindir.device_matrix` has its
mesh axes spelled out per dim (`mindir.in_layout` / `mindir.out_layout` on
an op, one entry per operand / result; `mindir.layout` on an argument,
result or hint; an axis list per dim, shard's split_axes), e.g.

    %y = mindir.matmul %x, %w {mindir.device_matrix = array<i64: 2, 2>,
           mindir.in_layout = [[array<i64: 1>, array<i64>], [array<i64>, array<i64: 0>]],
           mindir.in_strategy = [array<i64: 2, 1>, array<i64: 1, 2>]} ...

splits x's rows over mesh axis 1 and w's columns over axis 0, which no tuple
of cuts can say (a cut of 2 means the leading axis). Every such matrix must
be the same and cover device_num; the mesh is that matrix, and plain tuples
elsewhere must fit it (products of its leading axes, as above).
"""
from __future__ import annotations

import ast

from mlir import ir

from ..lowering.materialize_collectives import MPI_ABI
from ..registry import Option, PassFailure, register_pass

GRID = "msmlir_grid"
DEVICE_NUM = "mindir.device_num"
IN_STRATEGY = "mindir.in_strategy"
OUT_STRATEGY = "mindir.out_strategy"
ARG_STRATEGY = "mindir.strategy"
HINT = "mindir.sharding_hint"
IN_LAYOUT = "mindir.in_layout"
OUT_LAYOUT = "mindir.out_layout"
LAYOUT = "mindir.layout"
DEVICE_MATRIX = "mindir.device_matrix"


class StrategyError(Exception):
    def __init__(self, message: str, location: ir.Location | None = None):
        super().__init__(message)
        self.location = location


def _tuple(attr: ir.Attribute) -> list[int]:
    try:
        return list(ir.DenseI64ArrayAttr(attr))
    except ValueError:
        pass
    try:
        return [ir.IntegerAttr(a).value for a in ir.ArrayAttr(attr)]
    except ValueError:
        raise StrategyError(f"a strategy must be a tuple of integers, got {attr}") from None


def _tuples(attr: ir.Attribute) -> list[list[int]]:
    try:
        return [_tuple(a) for a in ir.ArrayAttr(attr)]
    except ValueError:
        raise StrategyError(f"a strategy list must be an array of tuples, got {attr}") from None


class Mesh:
    """The function's device mesh: `shape` (row-major over the ranks, the
    last axis fastest, as shard.grid and MindSpore's device matrix), n ranks."""

    def __init__(self, n: int, shape: list[int] | None = None):
        self.n = n
        self.shape = list(shape) if shape else [n]

    def boundaries(self) -> list[int]:
        """The products of the mesh's leading axes: s0, s0 s1, ..., n."""
        out, p = [], 1
        for s in self.shape:
            p *= s
            out.append(p)
        return out

    def fits(self, cuts: list[int]) -> bool:
        """Whether a device matrix's cuts > 1, in order, are products of
        consecutive leading axes of the mesh (what `axes` maps)."""
        return set(_products(cuts)) <= set(self.boundaries())

    def axes(self, cuts: list[int]) -> list[list[int]]:
        """Mesh axes of each entry of a device matrix `cuts` (which `fits`):
        its cuts > 1, in order, take consecutive leading axes whose sizes
        multiply to the cut (a cut of device_num: every axis); the axes after
        them repeat the calculation (MindSpore's repeated-calculation devices,
        which it puts last in the device matrix)."""
        bounds = [1] + self.boundaries()
        out, before = [], 1
        for c in cuts:
            if c == 1:
                out.append([])
                continue
            after = before * c
            out.append([a for a in range(len(self.shape))
                        if bounds[a] >= before and bounds[a + 1] <= after])
            before = after
        return out


def _products(cuts: list[int]) -> list[int]:
    """The running products of a device matrix's cuts > 1."""
    out, p = [], 1
    for c in cuts:
        if c > 1:
            p *= c
            out.append(p)
    return out


def device_matrix_check(cuts: list[int], n: int, what: str) -> None:
    """A device matrix (an op's or a tensor's cuts) uses p = the product of
    its cuts devices, which must divide device_num n: with p < n, the n / p
    devices of each block repeat the calculation (MindSpore's repeated
    calculation); all ones is replicated."""
    split = [d for d, c in enumerate(cuts) if c > 1]
    prod = 1
    for d in split:
        prod *= cuts[d]
    if not split or n % prod == 0:
        return
    if len(split) == 1:
        d = split[0]
        raise StrategyError(f"strategy {tuple(cuts)} of {what}: cut {cuts[d]} of dim {d} does "
                            f"not divide device_num ({n})")
    raise StrategyError(f"strategy {tuple(cuts)} of {what} splits dims {split} with cuts "
                        f"{[cuts[d] for d in split]}: needs {prod} devices, which does not "
                        f"divide device_num ({n})")


def mesh_of(matrices: list[tuple[list[int], str]], n: int) -> Mesh:
    """The one mesh of a function's device matrices [(cuts, what)].

    The matrices that use all n devices and cut several dims fix it (their
    cut shapes, cuts > 1 in order, must all agree). Every matrix's cuts > 1
    must then be products of consecutive leading mesh axes: the running
    products of all matrices' cuts (and of the fixed shape) must form one
    chain b1 | b2 | ... | n, and the mesh is (b1, b2 / b1, ..., n / bk). E.g.
    4 ranks with MatMul ((2, 1), (1, 1)) (2 devices, each block computed
    twice) and a cut of 4 elsewhere: the mesh 2x2, the cut of 2 on axis 0,
    the cut of 4 on both axes; a 2x2 data x model mesh with an op cut 2:
    the op's cut on axis 0, axis 1 repeats it."""
    shape, first = None, None
    for cuts, what in matrices:
        device_matrix_check(cuts, n, what)
        big = [c for c in cuts if c > 1]
        prod = 1
        for c in big:
            prod *= c
        if len(big) < 2 or prod != n:
            continue
        if shape is None:
            shape, first = big, (cuts, what)
        elif big != shape:
            raise StrategyError(
                f"strategy {tuple(cuts)} of {what} implies the device matrix {tuple(big)}, but "
                f"strategy {tuple(first[0])} of {first[1]} implies {tuple(shape)}: all "
                "strategies must cut the same multi-dimensional mesh (its axes in the same order)")
    chain: dict[int, tuple] = {n: None}
    if shape is not None:
        chain.update({b: (first[0], first[1]) for b in _products(shape)})
    for cuts, what in matrices:
        for b in _products(cuts):
            if b in chain:
                continue
            bad = next(((c, o) for c, o in chain.items() if c % b and b % c), None)
            if bad is not None:
                other = "" if bad[1] is None else \
                    f" (strategy {tuple(bad[1][0])} of {bad[1][1]} uses {bad[0]})"
                raise StrategyError(
                    f"strategy {tuple(cuts)} of {what} uses {b} devices for its leading cuts, "
                    f"which does not nest with {bad[0]}{other}: every strategy's cuts must be "
                    "leading axes of one device mesh (their device counts dividing each other)")
            chain[b] = (cuts, what)
    bounds = sorted(chain)
    mesh = [bounds[0]] + [b // a for a, b in zip(bounds, bounds[1:])]
    return Mesh(n, mesh)


def split_axes(strategy: list[int], t: ir.Type, mesh, what: str,
               positions: list | None = None, matrix: list[int] | None = None) -> list[list[int]]:
    """The `split_axes` of a tensor of type t cut by `strategy` on `mesh` (a
    Mesh, or n: a 1-D mesh of n); `positions`: the entry of the op's device
    matrix `matrix` each dim is (default: the tensor's own cuts)."""
    if isinstance(mesh, int):
        mesh = Mesh(mesh)
    if not isinstance(t, ir.RankedTensorType):
        raise StrategyError(f"{what} is not a ranked tensor ({t})")
    rt = ir.RankedTensorType(t)
    shape = list(rt.shape)
    if len(strategy) != len(shape):
        raise StrategyError(f"strategy {tuple(strategy)} of {what} has {len(strategy)} cut(s), "
                            f"but the tensor has rank {len(shape)} ({t})")
    for d, c in enumerate(strategy):
        if c < 1:
            raise StrategyError(f"strategy {tuple(strategy)} of {what}: cut {c} of dim {d} "
                                "must be positive")
    if matrix is None:
        matrix, positions = list(strategy), list(range(len(strategy)))
        device_matrix_check(matrix, mesh.n, what)
    if not mesh.fits(matrix):
        big = [c for c in matrix if c > 1]
        raise StrategyError(
            f"strategy {tuple(strategy)} of {what} cuts {tuple(big)}, but the device mesh "
            f"is {tuple(mesh.shape)}: the cuts must be products of its leading axes")
    by_position = mesh.axes(matrix)
    axes: list[list[int]] = []
    for d, (c, size) in enumerate(zip(strategy, shape)):
        if c > 1 and size % c:
            raise StrategyError(f"strategy {tuple(strategy)} of {what}: dim {d} (size {size}) "
                                f"is not divisible by its cut {c}")
        axes.append(by_position[positions[d]] if c > 1 else [])
    while axes and not axes[-1]:
        axes.pop()
    return axes or [[]]


def _axes_attr(attr: ir.Attribute) -> list[list[int]]:
    """[array<i64: 1>, array<i64>] -> [[1], []] (a layout's axes per dim)."""
    try:
        return [list(ir.DenseI64ArrayAttr(a)) for a in ir.ArrayAttr(attr)]
    except ValueError:
        raise StrategyError(f"a layout must be an array of axis arrays, got {attr}") from None


def _axes_list(attr: ir.Attribute, count: int, what: str) -> list[list[list[int]]]:
    """An in/out layout attribute: one layout per operand / result."""
    try:
        out = [_axes_attr(a) for a in ir.ArrayAttr(attr)]
    except ValueError:
        raise StrategyError(f"a layout list must be an array of layouts, got {attr}") from None
    if len(out) != count:
        raise StrategyError(f"{what} has {len(out)} layout(s) for {count} tensor(s)")
    return out


def layout_split_axes(axes: list[list[int]], t: ir.Type, mesh: Mesh, what: str,
                      strategy: list[int] | None = None) -> list[list[int]]:
    """The split_axes of a tensor of type t laid out `axes` (per dim, mesh
    axes) on a user-given device matrix, checked; an empty list: replicated."""
    if not isinstance(t, ir.RankedTensorType):
        raise StrategyError(f"{what} is not a ranked tensor ({t})")
    shape = list(ir.RankedTensorType(t).shape)
    if not axes:
        return [[]]
    if len(axes) != len(shape):
        raise StrategyError(f"layout {axes} of {what} has {len(axes)} entries, but the tensor "
                            f"has rank {len(shape)} ({t})")
    used = [a for ax in axes for a in ax]
    if any(a < 0 or a >= len(mesh.shape) for a in used) or len(set(used)) != len(used):
        raise StrategyError(f"layout {axes} of {what}: each axis must be one of the device "
                            f"matrix {tuple(mesh.shape)}'s (0..{len(mesh.shape) - 1}), once")
    for d, (ax, size) in enumerate(zip(axes, shape)):
        c = 1
        for a in ax:
            c *= mesh.shape[a]
        if strategy is not None and d < len(strategy) and strategy[d] != c:
            raise StrategyError(f"layout {axes} of {what}: dim {d} is cut {c} by its axes "
                                f"but {strategy[d]} by the strategy")
        if size % c:
            raise StrategyError(f"layout {axes} of {what}: dim {d} (size {size}) is not "
                                f"divisible by {c}, the size of its axes {ax} of the device "
                                f"matrix {tuple(mesh.shape)}")
    axes = [list(a) for a in axes]
    while axes and not axes[-1]:
        axes.pop()
    return axes or [[]]


def _bool(op, name: str) -> bool:
    return name in op.attributes and ir.BoolAttr(op.attributes[name]).value


def op_device_matrix(op: ir.Operation, tuples: list[list[int]], types: list[ir.Type]):
    """(device matrix, per operand the matrix entry of each of its dims) of an
    op's in_strategy, as MindSpore infers it: MatMul's (i, k, j) (batch dims
    first for BatchMatMul; the contracted dim's cuts must agree); an op whose
    result is its operands' broadcast shape (elementwise), the operands
    aligned right; None for any other op (each operand then stands alone)."""
    for t, ty in zip(tuples, types):
        if not isinstance(ty, ir.RankedTensorType) or len(t) != ir.RankedTensorType(ty).rank:
            return None                         # (split_axes reports it)
    if op.name in ("mindir.matmul", "mindir.batch_matmul") and len(tuples) == 2:
        a, b = tuples
        ta, tb = _bool(op, "transpose_a"), _bool(op, "transpose_b")
        ra, rb = len(a), len(b)
        if ra < 2 or rb < 2:
            return None
        nb = max(ra, rb) - 2
        ia, ka = (ra - 1, ra - 2) if ta else (ra - 2, ra - 1)
        kb, jb = (rb - 1, rb - 2) if tb else (rb - 2, rb - 1)
        if a[ka] != b[kb]:
            raise StrategyError(f"in_strategy {tuple(a)}, {tuple(b)}: the contracted dim is cut "
                                f"{a[ka]} in input 0 but {b[kb]} in input 1; they must agree")
        batch = [1] * nb
        pos_a, pos_b = [None] * ra, [None] * rb
        for t, pos in ((a, pos_a), (b, pos_b)):
            for d in range(len(t) - 2):
                p = nb - (len(t) - 2) + d
                if t[d] > 1 and batch[p] > 1 and batch[p] != t[d]:
                    raise StrategyError(f"in_strategy {tuple(a)}, {tuple(b)}: batch dim {d} "
                                        "is cut differently in the two inputs")
                batch[p] = max(batch[p], t[d])
                pos[d] = p
        pos_a[ia], pos_a[ka], pos_b[kb], pos_b[jb] = nb, nb + 1, nb + 1, nb + 2
        return batch + [a[ia], a[ka], b[jb]], [pos_a, pos_b]
    if len(op.results) != 1 or not isinstance(op.results[0].type, ir.RankedTensorType) \
            or not all(isinstance(t, ir.RankedTensorType) for t in types):
        return None
    out = list(ir.RankedTensorType(op.results[0].type).shape)
    shapes = [list(ir.RankedTensorType(t).shape) for t in types]
    r = len(out)
    if any(len(s) > r for s in shapes):
        return None
    for d in range(r):
        sizes = {s[d - r + len(s)] for s in shapes if d - r + len(s) >= 0} - {1}
        if sizes != ({out[d]} - {1}):
            return None
    matrix = [1] * r
    positions = []
    for t, s in zip(tuples, shapes):
        pos = []
        for d, c in enumerate(t):
            p = r - len(s) + d
            if c > 1 and matrix[p] > 1 and matrix[p] != c:
                raise StrategyError(f"in_strategy {[tuple(x) for x in tuples]}: dim {p} of the "
                                    "result is cut differently by two inputs")
            matrix[p] = max(matrix[p], c)
            pos.append(p)
        positions.append(pos)
    return matrix, positions


def _sharding(axes: list[list[int]], loc: ir.Location, ip: ir.InsertionPoint) -> ir.Value:
    text = "[" + ", ".join("[" + ", ".join(map(str, a)) + "]" for a in axes) + "]"
    op = ir.Operation.create(
        "shard.sharding", results=[ir.Type.parse("!shard.sharding")], loc=loc, ip=ip,
        attributes={"grid": ir.FlatSymbolRefAttr.get(GRID),
                    "split_axes": ir.Attribute.parse(f"#shard<axisarray{text}>"),
                    "operandSegmentSizes": ir.DenseI32ArrayAttr.get([0, 0]),
                    "static_halo_sizes": ir.DenseI64ArrayAttr.get([]),
                    "static_sharded_dims_offsets": ir.DenseI64ArrayAttr.get([])})
    return op.result


def _shard(v: ir.Value, axes, for_users: bool, loc: ir.Location, ip: ir.InsertionPoint) -> ir.Value:
    s = _sharding(axes, loc, ip)
    attrs = {"annotate_for_users": ir.UnitAttr.get()} if for_users else {}
    return ir.Operation.create("shard.shard", results=[v.type], operands=[v, s],
                               attributes=attrs, loc=loc, ip=ip).result


def _ops(block: ir.Block):
    for op in list(block.operations):
        yield op.operation
        for region in op.operation.regions:
            for b in region.blocks:
                yield from _ops(b)


def _replace_hint(op: ir.Operation, n) -> None:
    """A mindir.sharding_hint -> the two shard.shard ops of a layout constraint."""
    x = op.operands[0]
    try:
        strategy = list(ir.DenseI64ArrayAttr(op.attributes["strategy"]))
        axes = layout_split_axes(_axes_attr(op.attributes[LAYOUT]), x.type, n,
                                 "the hinted value", strategy) if LAYOUT in op.attributes else \
            split_axes(strategy, x.type, n, "the hinted value")
    except StrategyError as e:
        op.location.emit_error(f"bad sharding strategy: {e}")
        raise PassFailure() from None
    at = ir.InsertionPoint(op)
    a = _shard(x, axes, False, op.location, at)
    b = _shard(a, axes, True, op.location, at)
    op.results[0].replace_all_uses_with(b)
    op.erase()


def _user_meshes(f) -> list:
    """[(device matrix, what, location)]: the user-given device matrices
    (Layouts) of f's strategies."""
    out = []
    if not f.regions[0].blocks:
        return out
    if DEVICE_MATRIX in f.attributes:
        out.append((list(ir.DenseI64ArrayAttr(f.attributes[DEVICE_MATRIX])),
                    "the function's layouts", f.location))
    for op in _ops(f.regions[0].blocks[0]):
        if DEVICE_MATRIX in op.attributes:
            what = "the hinted value" if op.name == HINT else f"the layouts of '{op.name}'"
            out.append((list(ir.DenseI64ArrayAttr(op.attributes[DEVICE_MATRIX])), what,
                        op.location))
    return out


def _device_matrices(f) -> list:
    """[(cuts, what, location)]: the device matrix of every strategy of f (an
    op's in_strategy as a whole, see op_device_matrix; any other strategy:
    the tensor's cuts). Strategies given as layouts on a device matrix are
    left out (their axes are given)."""
    out = []
    if not f.regions[0].blocks:
        return out
    block = f.regions[0].blocks[0]
    for key, what in (("arg_attrs", "argument"), ("res_attrs", "result")):
        if key in f.attributes:
            for i, d in enumerate(ir.ArrayAttr(f.attributes[key])):
                d = ir.DictAttr(d)
                if ARG_STRATEGY in d and LAYOUT not in d:
                    out.append((_tuple(d[ARG_STRATEGY]), f"{what} {i}", f.location))
    for op in _ops(block):
        if op.name == HINT:
            if LAYOUT not in op.attributes:
                out.append((list(ir.DenseI64ArrayAttr(op.attributes["strategy"])),
                            "the hinted value", op.location))
            continue
        try:
            if IN_STRATEGY in op.attributes and IN_LAYOUT not in op.attributes:
                tuples = _tuples(op.attributes[IN_STRATEGY])
                dm = None
                if len(tuples) == len(op.operands):
                    dm = op_device_matrix(op, tuples, [v.type for v in op.operands])
                if dm is not None:
                    what = "input 0" if len(tuples) == 1 else \
                        f"the inputs of '{op.name}' (its device matrix)"
                    out.append((dm[0], what, op.location))
                else:
                    out += [(t, f"input {i}", op.location) for i, t in enumerate(tuples)]
            if OUT_STRATEGY in op.attributes and OUT_LAYOUT not in op.attributes:
                out += [(t, f"output {i}", op.location)
                        for i, t in enumerate(_tuples(op.attributes[OUT_STRATEGY]))]
        except StrategyError as e:
            op.location.emit_error(f"bad sharding strategy: {e}")
            raise PassFailure() from None
    return out


def _tensor_axes(d: ir.DictAttr, t: ir.Type, mesh: Mesh, what: str) -> list[list[int]]:
    """An argument's / result's split_axes: its layout's, else its cuts'."""
    strategy = _tuple(d[ARG_STRATEGY])
    if LAYOUT in d:
        return layout_split_axes(_axes_attr(d[LAYOUT]), t, mesh, what, strategy)
    return split_axes(strategy, t, mesh, what)


def _split_of(v: ir.Value):
    """The split_axes a value's users see when it is a `shard.shard ...
    annotate_for_users` result (None otherwise), per dim."""
    owner = v.owner
    if not isinstance(owner, (ir.Operation, ir.OpView)):
        return None
    op = owner.operation
    if op.name != "shard.shard" or "annotate_for_users" not in op.attributes:
        return None
    sharding = op.operands[1].owner.operation
    text = str(sharding.attributes["split_axes"])        # #shard<axisarray[[1, 0], []]>
    return ast.literal_eval(text[text.index("["):text.rindex("]") + 1])


def _check_matmul_axes(block: ir.Block) -> None:
    """A 2-D matmul whose operands are laid out with one mesh axis on two of
    its iteration dims (i, k, j), e.g. A's rows and B's columns both over
    axis 0: MindSpore's device matrix uses each axis once, and upstream
    sharding-propagation asserts on it; an error at the matmul instead."""
    for op in _ops(block):
        if op.name != "mindir.matmul" or len(op.operands) != 2:
            continue
        a, b = (_split_of(v) for v in op.operands)
        if a is None or b is None:
            continue
        ta, tb = _bool(op, "transpose_a"), _bool(op, "transpose_b")

        def dim(axes, d):
            return set(axes[d]) if d < len(axes) else set()
        i, ka = dim(a, 1 if ta else 0), dim(a, 0 if ta else 1)
        kb, j = dim(b, 1 if tb else 0), dim(b, 0 if tb else 1)
        for x, y, what in ((i, j, "the rows of input 0 and the columns of input 1"),
                           (i, kb, "the rows of input 0 and the contracted dim of input 1"),
                           (ka, j, "the contracted dim of input 0 and the columns of input 1")):
            if x & y:
                raise StrategyError(
                    f"{what} of '{op.name}' are both split over mesh axis "
                    f"{sorted(x & y)[0]}: a mesh axis can cut only one dim of an op (MindSpore's "
                    "device matrix uses each axis once)", op.location)


def _annotate_function(f, n) -> bool:
    """Inserts the annotations of one function; True if it had any strategy."""
    if not f.regions[0].blocks:
        return False
    block = f.regions[0].blocks[0]
    loc = f.location
    found = False
    # arguments: every user sees the argument's sharding
    if "arg_attrs" in f.attributes:
        first = ir.InsertionPoint.at_block_begin(block)
        for i, d in enumerate(ir.ArrayAttr(f.attributes["arg_attrs"])):
            d = ir.DictAttr(d)
            if ARG_STRATEGY not in d:
                continue
            found = True
            arg = block.arguments[i]
            axes = _tensor_axes(d, arg.type, n, f"argument {i}")
            a = _shard(arg, axes, True, loc, first)
            arg.replace_all_uses_except(a, a.owner.operation)
    hints = [op for op in _ops(block) if op.name == HINT]
    for op in hints:
        _replace_hint(op, n)
    found = found or bool(hints)
    for op in _ops(block):
        if IN_STRATEGY not in op.attributes and OUT_STRATEGY not in op.attributes:
            continue
        found = True
        try:
            if IN_STRATEGY in op.attributes:
                tuples = _tuples(op.attributes[IN_STRATEGY])
                if len(tuples) != len(op.operands):
                    raise StrategyError(f"in_strategy has {len(tuples)} tuple(s) but "
                                        f"'{op.name}' has {len(op.operands)} input(s)")
                before = ir.InsertionPoint(op)
                if IN_LAYOUT in op.attributes:
                    layouts = _axes_list(op.attributes[IN_LAYOUT], len(tuples), "in_layout")
                    for i, (s, lay, v) in enumerate(zip(tuples, layouts, list(op.operands))):
                        axes = layout_split_axes(lay, v.type, n, f"input {i}", s)
                        op.operands[i] = _shard(v, axes, True, op.location, before)
                else:
                    dm = op_device_matrix(op, tuples, [v.type for v in op.operands])
                    for i, (s, v) in enumerate(zip(tuples, list(op.operands))):
                        axes = split_axes(s, v.type, n, f"input {i}") if dm is None else \
                            split_axes(s, v.type, n, f"input {i}", dm[1][i], dm[0])
                        op.operands[i] = _shard(v, axes, True, op.location, before)
            if OUT_STRATEGY in op.attributes:
                tuples = _tuples(op.attributes[OUT_STRATEGY])
                if len(tuples) != len(op.results):
                    raise StrategyError(f"out_strategy has {len(tuples)} tuple(s) but "
                                        f"'{op.name}' has {len(op.results)} output(s)")
                layouts = _axes_list(op.attributes[OUT_LAYOUT], len(tuples), "out_layout") \
                    if OUT_LAYOUT in op.attributes else [None] * len(tuples)
                for i, (s, lay, r) in enumerate(zip(tuples, layouts, list(op.results))):
                    axes = split_axes(s, r.type, n, f"output {i}") if lay is None else \
                        layout_split_axes(lay, r.type, n, f"output {i}", s)
                    a = _shard(r, axes, False, op.location, ir.InsertionPoint(op))
                    a.owner.operands[1].owner.move_after(op)
                    a.owner.move_after(a.owner.operands[1].owner)
                    r.replace_all_uses_except(a, a.owner.operation)
        except StrategyError as e:
            op.location.emit_error(f"bad sharding strategy: {e}")
            raise PassFailure() from None
    # results: what the function returns
    if "res_attrs" in f.attributes:
        ret = block.operations[len(block.operations) - 1].operation
        for i, d in enumerate(ir.ArrayAttr(f.attributes["res_attrs"])):
            d = ir.DictAttr(d)
            if ARG_STRATEGY not in d:
                continue
            found = True
            v = ret.operands[i]
            axes = _tensor_axes(d, v.type, n, f"result {i}")
            ret.operands[i] = _shard(v, axes, True, ret.location, ir.InsertionPoint(ret))
    return found


@register_pass("mindir-insert-shardings",
               "MindSpore sharding strategies on mindir ops/arguments -> shard dialect annotations",
               options={"device-num": Option(int, 0, "ranks of the 1-D device mesh when a "
                                                     "function has no mindir.device_num")})
def insert_shardings(module: ir.Operation, *, device_num: int):
    body = module.regions[0].blocks[0]
    funcs = [op.operation for op in body.operations if op.operation.name == "func.func"]
    any_found = False
    grid_n = None
    todo = []
    matrices = []
    for f in funcs:
        n = ir.IntegerAttr(f.attributes[DEVICE_NUM]).value if DEVICE_NUM in f.attributes else device_num
        try:
            if n < 1 and _has_strategies(f):
                raise StrategyError("strategies given but no device_num (function attribute "
                                    f"{DEVICE_NUM} or option device-num)")
            if n >= 1 and _has_strategies(f):
                if grid_n is not None and n != grid_n:
                    raise StrategyError(f"device_num {n} differs from another function's "
                                        f"({grid_n})")
                grid_n = n
                todo.append(f)
        except StrategyError as e:
            f.location.emit_error(f"bad sharding strategy: {e}")
            raise PassFailure() from None
    user = []
    for f in todo:
        matrices += _device_matrices(f)
        user += _user_meshes(f)
    if grid_n is None:
        return
    # one mesh for the module (the one shard.grid): checked at each strategy
    mesh, seen = None, []
    if user:                                   # a user-given device matrix (Layouts)
        mesh = Mesh(grid_n, user[0][0])
    for dm, what, loc in user:
        prod = 1
        for a in dm:
            prod *= a
        if dm != user[0][0] or prod != grid_n:
            why = f"differs from {tuple(user[0][0])} of {user[0][1]}" if dm != user[0][0] else \
                f"covers {prod} devices, not device_num ({grid_n})"
            loc.emit_error(f"bad sharding strategy: the device matrix {tuple(dm)} of {what} "
                           f"{why}")
            raise PassFailure()
    for cuts, what, loc in matrices:
        try:
            device_matrix_check(cuts, grid_n, what)
            if user and not mesh.fits(cuts):
                raise StrategyError(
                    f"strategy {tuple(cuts)} of {what} cuts "
                    f"{tuple(c for c in cuts if c > 1)}, but the device matrix given by the "
                    f"Layouts is {tuple(mesh.shape)}: the cuts of a tuple strategy must be "
                    "products of its leading axes (or give a Layout)")
            if not user:
                seen.append((cuts, what))
                mesh = mesh_of(seen, grid_n)
        except StrategyError as e:
            loc.emit_error(f"bad sharding strategy: {e}")
            raise PassFailure() from None
    mesh = mesh or Mesh(grid_n)
    for f in todo:
        try:
            if _annotate_function(f, mesh):
                any_found = True
            _check_matmul_axes(f.regions[0].blocks[0])
        except StrategyError as e:
            (e.location or f.location).emit_error(f"bad sharding strategy: {e}")
            raise PassFailure() from None
    if not any_found:
        return
    names = {ir.StringAttr(op.attributes["sym_name"]).value for op in body.operations
             if "sym_name" in op.attributes}
    if GRID not in names:
        ir.Operation.create("shard.grid", loc=ir.Location.unknown(module.context),
                            ip=ir.InsertionPoint.at_block_begin(body),
                            attributes={"sym_name": ir.StringAttr.get(GRID),
                                        "sym_visibility": ir.StringAttr.get("private"),
                                        "shape": ir.DenseI64ArrayAttr.get(mesh.shape)})
    if "dlti.map" not in module.attributes:
        module.attributes["dlti.map"] = ir.Attribute.parse(MPI_ABI)


def _has_strategies(f) -> bool:
    if not f.regions[0].blocks:
        return False
    for key in ("arg_attrs", "res_attrs"):
        if key in f.attributes and any(ARG_STRATEGY in ir.DictAttr(d)
                                       for d in ir.ArrayAttr(f.attributes[key])):
            return True
    return any(IN_STRATEGY in op.attributes or OUT_STRATEGY in op.attributes or op.name == HINT
               for op in _ops(f.regions[0].blocks[0]))
