"""Sharding strategies recorded on the mindir op that computes a value (what
MindSpore's `Primitive.shard(in_strategy, out_strategy)` records).

    y = ops.matmul(x, w)                       # inside jit / a traced function
    parallel.annotate(y, ((1, 2), (2, 1)))     # the matmul consumes x column-split,
                                               # w row-split (partial sums all-reduced)

sets `mindir.in_strategy = [array<i64: 1, 2>, array<i64: 2, 1>]` (and
`mindir.out_strategy`) on y's defining op; `mindir-insert-shardings`
(passes/parallel/insert_shardings.py) turns them into `shard` dialect
annotations when the function is compiled by msmlir.parallel.shard (or by
msmlir-cpu-shard-pipeline). Checked there, against the op's operands, with
errors at the op's location. Layer 2: callable from msmlir.ops (Primitives).

A strategy may also be given as MindSpore's `Layout` on a user-given device
matrix (`Layout((2, 2), ("dp", "mp"))("mp", "None")`: dim 0 split over the
matrix's "mp" axis, dim 1 whole): the tuple of cuts is still recorded (the
product of each dim's axis sizes), and the axes themselves go to
`mindir.in_layout` / `mindir.out_layout` (per operand, per dim, the
device-matrix axes, counted from the left as in shard's split_axes) with
the matrix in `mindir.device_matrix`; insert_shardings then takes the mesh
and the axes as given instead of inferring them from the cuts.
"""
from __future__ import annotations

from mlir import ir

IN_STRATEGY = "mindir.in_strategy"     # (names shared with passes/parallel/insert_shardings.py)
OUT_STRATEGY = "mindir.out_strategy"
ARG_STRATEGY = "mindir.strategy"
DEVICE_NUM = "mindir.device_num"
IN_LAYOUT = "mindir.in_layout"
OUT_LAYOUT = "mindir.out_layout"
LAYOUT = "mindir.layout"               # an argument's / result's / hint's layout
DEVICE_MATRIX = "mindir.device_matrix"


class Layout:
    """MindSpore's `Layout(device_matrix, alias_name, rank_list=None)`: a device
    matrix (its axes named by alias_name, row-major over the ranks, the last
    axis fastest) and, once called with one entry per tensor dim, a tensor
    layout: an entry is an alias (the dim is split over that axis), a tuple
    of aliases (over those axes, the first outermost) or "None" (whole).

        layout = Layout((2, 2), ("dp", "mp"))
        P.MatMul().shard(in_strategy=(layout("dp", "mp"), layout("mp", "None")))
        cell.shard(in_strategy=(layout(("dp", "mp"), "None"),))
    """

    def __init__(self, device_matrix, alias_name, rank_list=None):
        if not isinstance(device_matrix, (tuple, list)) or not device_matrix or not all(
                isinstance(d, int) and not isinstance(d, bool) and d > 0 for d in device_matrix):
            raise TypeError(f"Layout: device_matrix must be a tuple of positive ints, got "
                            f"{device_matrix!r}")
        if not isinstance(alias_name, (tuple, list)) or not all(isinstance(a, str)
                                                                for a in alias_name):
            raise TypeError(f"Layout: alias_name must be a tuple of str, got {alias_name!r}")
        if len(alias_name) != len(device_matrix):
            raise ValueError(f"Layout: device_matrix {tuple(device_matrix)} has "
                             f"{len(device_matrix)} axes but alias_name {tuple(alias_name)} "
                             f"{len(alias_name)} names")
        if len(set(alias_name)) != len(alias_name) or \
                {"None", "interleaved_parallel"} & set(alias_name):
            raise ValueError(f"Layout: alias_name {tuple(alias_name)} must be distinct names, "
                             "none of them 'None' or 'interleaved_parallel'")
        n = 1
        for d in device_matrix:
            n *= d
        if rank_list is not None and list(rank_list) != list(range(n)):
            raise ValueError("Layout: rank_list other than range(prod(device_matrix)) is not "
                             "supported (the device matrix covers ranks 0..n-1 in order)")
        self._device_matrix = tuple(int(d) for d in device_matrix)
        self._alias_name = tuple(alias_name)
        self._tensor_map = None

    def __call__(self, *tensor_map) -> "Layout":
        axes = []
        for entry in tensor_map:
            names = entry if isinstance(entry, (tuple, list)) else (entry,)
            if not names or not all(isinstance(a, str) for a in names):
                raise TypeError(f"Layout: a tensor_map entry is an alias, a tuple of aliases "
                                f"or 'None', got {entry!r}")
            if tuple(names) == ("None",):
                axes.append(())
                continue
            bad = [a for a in names if a not in self._alias_name]
            if bad:
                raise ValueError(f"Layout: {bad[0]!r} is not an alias of the device matrix "
                                 f"(alias_name {self._alias_name})")
            axes.append(tuple(self._alias_name.index(a) for a in names))
        used = [a for ax in axes for a in ax]
        if len(set(used)) != len(used):
            raise ValueError(f"Layout: tensor_map {tensor_map} uses a device-matrix axis twice")
        out = Layout(self._device_matrix, self._alias_name)
        out._tensor_map = tuple(axes)
        return out

    @property
    def device_matrix(self) -> tuple:
        return self._device_matrix

    @property
    def alias_name(self) -> tuple:
        return self._alias_name

    def axes(self) -> tuple:
        """Per tensor dim, the device-matrix axes (from the left) it is split over."""
        if self._tensor_map is None:
            raise ValueError("Layout: call the layout with one entry per tensor dim "
                             "(layout('dp', 'None')) before using it as a strategy")
        return self._tensor_map

    def cuts(self) -> tuple:
        """The MindSpore strategy tuple: per dim the product of its axes' sizes."""
        out = []
        for ax in self.axes():
            c = 1
            for a in ax:
                c *= self._device_matrix[a]
            out.append(c)
        return tuple(out)

    def to_dict(self) -> dict:
        """MindSpore's: tensor_map entries count the device-matrix axes from the
        right (-1: whole dim)."""
        k = len(self._device_matrix)
        tmap = tuple(-1 if not ax else k - 1 - ax[0] if len(ax) == 1 else
                     tuple(k - 1 - a for a in ax) for ax in self.axes())
        n = 1
        for d in self._device_matrix:
            n *= d
        return {"device_matrix": self._device_matrix, "tensor_map": tmap,
                "interleaved_parallel": False, "alias_name": self._alias_name,
                "rank_list": list(range(n))}

    def __eq__(self, other):
        return isinstance(other, Layout) and (self._device_matrix, self._alias_name,
                                              self._tensor_map) == \
            (other._device_matrix, other._alias_name, other._tensor_map)

    def __hash__(self):
        return hash((self._device_matrix, self._alias_name, self._tensor_map))

    def __repr__(self):
        if self._tensor_map is None:
            return f"Layout({self._device_matrix}, {self._alias_name})"
        names = ["None" if not ax else self._alias_name[ax[0]] if len(ax) == 1 else
                 tuple(self._alias_name[a] for a in ax) for ax in self._tensor_map]
        return f"Layout({self._device_matrix}, {self._alias_name})({', '.join(map(repr, names))})"


def normalize(strategy, what: str = "strategy") -> tuple:
    """((1, 2), (2, 1)) -> itself, checked: a tuple of tuples of positive ints
    (or of called Layouts, kept as they are)."""
    if not isinstance(strategy, (tuple, list)):
        raise TypeError(f"{what} must be a tuple of tuples of ints, got {strategy!r}")
    out = []
    for s in strategy:
        if s is None:
            out.append(None)
            continue
        if isinstance(s, Layout):
            s.axes()                        # called with its tensor map
            out.append(s)
            continue
        if not isinstance(s, (tuple, list)) or not all(isinstance(c, int) and not isinstance(c, bool)
                                                       for c in s):
            raise TypeError(f"{what} must be a tuple of tuples of ints, got {strategy!r}")
        out.append(tuple(int(c) for c in s))
    return tuple(out)


def cuts(s):
    """A strategy tuple, or a Layout's cuts (None stays None)."""
    return s.cuts() if isinstance(s, Layout) else s


def strategy_attr(strategy) -> ir.Attribute:
    """((1, 2), (2, 1)) -> [array<i64: 1, 2>, array<i64: 2, 1>] (in the current context)."""
    return ir.ArrayAttr.get([ir.DenseI64ArrayAttr.get(list(cuts(s)))
                             for s in normalize(strategy)])


def layout_attr(layout: Layout) -> ir.Attribute:
    """A tensor layout's axes per dim: [array<i64: 1>, array<i64>] (dim 0 over axis 1)."""
    return ir.ArrayAttr.get([ir.DenseI64ArrayAttr.get(list(ax)) for ax in layout.axes()])


def device_matrix_of(strategies, what: str) -> tuple | None:
    """The one device matrix of the Layouts among `strategies` (None: no
    Layout); a mix of Layouts and tuples, or two matrices, is an error."""
    layouts = [s for s in strategies if isinstance(s, Layout)]
    if not layouts:
        return None
    if len(layouts) != len([s for s in strategies if s is not None]):
        raise TypeError(f"{what}: give every tensor a Layout or none (got {strategies!r})")
    dm = {lay.device_matrix for lay in layouts}
    if len(dm) > 1:
        raise ValueError(f"{what}: the Layouts are on different device matrices {sorted(dm)}")
    return layouts[0].device_matrix


def set_layouts(op, key: str, strategies, what: str) -> None:
    """`key` (mindir.in_layout / out_layout) and mindir.device_matrix on `op`
    when `strategies` are Layouts (a None entry: replicated)."""
    dm = device_matrix_of(strategies, what)
    if dm is None:
        return
    if DEVICE_MATRIX in op.attributes and \
            tuple(ir.DenseI64ArrayAttr(op.attributes[DEVICE_MATRIX])) != dm:
        raise ValueError(f"{what}: the Layouts' device matrix {dm} differs from the other "
                         "strategy's of this op")
    op.attributes[key] = ir.ArrayAttr.get([
        ir.ArrayAttr.get([]) if s is None else layout_attr(s) for s in strategies])
    op.attributes[DEVICE_MATRIX] = ir.DenseI64ArrayAttr.get(list(dm))


def annotate(value, in_strategy=None, out_strategy=None):
    """Records the strategies on the op defining `value` (a TensorValue under
    jit, or an mlir Value); returns `value`."""
    v = getattr(value, "value", value)
    if not isinstance(v, ir.Value) or not isinstance(v.owner, (ir.Operation, ir.OpView)):
        raise TypeError("parallel.annotate: expected the result of an op inside a compiled "
                        f"function, got {value!r}")
    op = v.owner.operation if isinstance(v.owner, ir.OpView) else v.owner
    with op.context:
        if in_strategy is not None:
            ins = normalize(in_strategy, "in_strategy")
            op.attributes[IN_STRATEGY] = strategy_attr(ins)
            set_layouts(op, IN_LAYOUT, ins, "in_strategy")
        if out_strategy is not None:
            outs = normalize(out_strategy, "out_strategy")
            op.attributes[OUT_STRATEGY] = strategy_attr(outs)
            set_layouts(op, OUT_LAYOUT, outs, "out_strategy")
    return value


# called, not parsed, from compiled code (frontend/source.py: is_user_function)
annotate.__msmlir_primitive__ = True
Layout.__call__.__msmlir_primitive__ = True
