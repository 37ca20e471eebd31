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
"""
from __future__ import annotations

from mlir import ir

IN_STRATEGY = "mindir.in_strategy"     # (names shared with passes/parallel/insert_shardings.py)
OUT_STRATEGY = "mindir.out_strategy"
ARG_STRATEGY = "mindir.strategy"
DEVICE_NUM = "mindir.device_num"


def normalize(strategy, what: str = "strategy") -> tuple[tuple[int, ...], ...]:
    """((1, 2), (2, 1)) -> itself, checked: a tuple of tuples of positive ints."""
    if not isinstance(strategy, (tuple, list)):
        raise TypeError(f"{what} must be a tuple of tuples of ints, got {strategy!r}")
    out = []
    for s in strategy:
        if s is None:
            out.append(None)
            continue
        if not isinstance(s, (tuple, list)) or not all(isinstance(c, int) and not isinstance(c, bool)
                                                       for c in s):
            raise TypeError(f"{what} must be a tuple of tuples of ints, got {strategy!r}")
        out.append(tuple(int(c) for c in s))
    return tuple(out)


def strategy_attr(strategy) -> ir.Attribute:
    """((1, 2), (2, 1)) -> [array<i64: 1, 2>, array<i64: 2, 1>] (in the current context)."""
    return ir.ArrayAttr.get([ir.DenseI64ArrayAttr.get(list(s)) for s in normalize(strategy)])


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
            op.attributes[IN_STRATEGY] = strategy_attr(normalize(in_strategy, "in_strategy"))
        if out_strategy is not None:
            op.attributes[OUT_STRATEGY] = strategy_attr(normalize(out_strategy, "out_strategy"))
    return value


# called, not parsed, from compiled code (frontend/source.py: is_user_function)
annotate.__msmlir_primitive__ = True
