"""MindSpore's `Cell.shard(in_strategy, out_strategy=None, parameter_plan=None)`:
layouts at a cell's boundary, under semi-auto / auto parallelism.

    block.shard(in_strategy=((2, 1),), parameter_plan={"self.block.dense.weight": (1, 2)})

When a compiled graph calls `block` (SEMI_AUTO_PARALLEL or AUTO_PARALLEL), its
tensor inputs are laid out by `in_strategy` (one tuple per input, None: free),
its tensor outputs by `out_strategy`, and the parameters named in
`parameter_plan` (read inside the cell) by their tuple: each becomes a
`mindir.sharding_hint` (a layout constraint, turned into `shard.shard` ops by
mindir-insert-shardings; the ops inside the cell are sharded by propagation
from there). Outside the parallel modes the strategies are ignored, as in
MindSpore. The cuts must fit the device mesh insert_shardings.py infers
(products of its leading axes); any tuple may instead be MindSpore's Layout
on a user-given device matrix (`layout("mp", "None")`, annotate.Layout),
whose axes are used as given. Wrong counts of tuples are errors at the
call of the cell, bad tuples errors at the same place when compiled.

parameter_plan's keys: a parameter's name (`block.dense.weight`) or its
attribute path from the sharded cell, with or without MindSpore's `self.`
prefix (`self.dense.weight`, `self.block.dense.weight` when the name has the
prefix). An unknown name is an error (MindSpore ignores it with a warning).
"""
from __future__ import annotations

from .annotate import DEVICE_MATRIX, LAYOUT, Layout, layout_attr, normalize

SHARD = "_msmlir_shard"     # the cell attribute holding (in, out, {param: strategy})


def _check_tuple(s, what: str):
    if isinstance(s, Layout):
        s.axes()                            # called with its tensor map
        return s
    if not isinstance(s, (tuple, list)) or not s or not all(
            isinstance(c, int) and not isinstance(c, bool) and c > 0 for c in s):
        raise TypeError(f"{what} must be a tuple of positive ints, got {s!r}")
    return tuple(s)


def _find_parameter(cell, name: str):
    """The Parameter `name` refers to (see the module docstring), or None."""
    params = dict(cell.parameters_and_names())
    by_name = {p.name: p for p in params.values()}
    key = name[5:] if name.startswith("self.") else name
    if key in params:
        return params[key]
    if key in by_name:
        return by_name[key]
    # `self.block.dense.weight` given on `block`: a suffix of a path from an outer cell
    hits = [p for path, p in params.items() if key.endswith("." + path)]
    return hits[0] if len(hits) == 1 else None


def set_shard(cell, in_strategy, out_strategy=None, parameter_plan=None):
    """Checks and records Cell.shard's strategies on `cell`; returns it."""
    if in_strategy is None:
        raise TypeError(f"{type(cell).__name__}.shard: in_strategy is required (a tuple with "
                        "one tuple of cuts, or None, per tensor input)")
    ins = normalize(in_strategy, "in_strategy")
    outs = None if out_strategy is None else normalize(out_strategy, "out_strategy")
    for what, tuples in (("in_strategy", ins), ("out_strategy", outs or ())):
        for i, s in enumerate(tuples):
            if s is not None:
                _check_tuple(s, f"{what}[{i}]")
    plan = {}
    if parameter_plan is not None:
        if not isinstance(parameter_plan, dict):
            raise TypeError(f"parameter_plan must be a dict of parameter name -> tuple of "
                            f"cuts, got {parameter_plan!r}")
        for name, s in parameter_plan.items():
            p = _find_parameter(cell, name) if isinstance(name, str) else None
            if p is None:
                known = ", ".join(sorted(n for n, _ in cell.parameters_and_names()))
                raise ValueError(f"{type(cell).__name__}.shard: parameter_plan names "
                                 f"{name!r}, which is not a parameter of this cell "
                                 f"(its parameters: {known})")
            plan[id(p)] = (p, _check_tuple(s, f"parameter_plan[{name!r}]"))
    object.__setattr__(cell, SHARD, (ins, outs, plan))
    return cell


def _active() -> bool:
    from .compile import parallel_mode
    return parallel_mode() is not None


def _hint(value, strategy):
    from mlir import ir

    from ..dialects import mindir
    from ..ops._base import emit
    cuts = strategy.cuts() if isinstance(strategy, Layout) else strategy
    out = emit(mindir.ShardingHintOp, value.value, ir.DenseI64ArrayAttr.get(list(cuts)))
    if isinstance(strategy, Layout):        # the axes of a user-given device matrix
        op = out.value.owner
        op.attributes[LAYOUT] = layout_attr(strategy)
        op.attributes[DEVICE_MATRIX] = ir.DenseI64ArrayAttr.get(list(strategy.device_matrix))
    return out


def _hint_all(values, strategies, what: str, cell):
    """`values` (a result or a tuple of them) with their tensors hinted."""
    from ..frontend import builder as _b
    from ..frontend.values import TensorValue
    single = not isinstance(values, (tuple, list))
    items = [values] if single else list(values)
    tensors = [i for i, v in enumerate(items) if isinstance(v, TensorValue)]
    if len(strategies) != len(tensors):
        _b.error(f"{type(cell).__name__}.shard: {what} has {len(strategies)} tuple(s) but the "
                 f"cell {'takes' if what == 'in_strategy' else 'returns'} {len(tensors)} "
                 "tensor(s)")
    for i, s in zip(tensors, strategies):
        if s is not None:
            items[i] = _hint(items[i], s)
    return items[0] if single else type(values)(items)


def call(cell, construct, args, kwargs):
    """`cell(*args)` inside a compiled graph: `construct(args, kwargs)` with
    Cell.shard's hints around it (when a parallel mode is set)."""
    ins, outs, plan = cell.__dict__[SHARD]
    if not _active():
        return construct(args, kwargs)
    from ..frontend import builder as _b
    from ..frontend.trace import param_value
    args = _hint_all(tuple(args), ins, "in_strategy", cell)
    frame = _b.current_frame()
    saved = {}
    for key, (p, s) in plan.items():
        v = param_value(p)
        saved[key] = v
        frame.values[key] = _hint(v, s)        # reads of p inside the cell see the hint
    try:
        out = construct(args, kwargs)
    finally:
        frame.values.update(saved)
    return out if outs is None else _hint_all(out, outs, "out_strategy", cell)
