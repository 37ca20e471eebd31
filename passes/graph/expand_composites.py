"""mindir-expand-composites: composite mindir ops -> basic mindir ops.

Rewrites every op that has an expander (passes/graph/expanders/: softmax,
log_softmax, layer_norm, batch_norm, gelu, silu, sigmoid, softplus,
leaky_relu, bias_add, softmax_cross_entropy_with_logits,
sparse_softmax_cross_entropy_with_logits) into the elementwise, broadcast,
reduce_*, reshape and cast ops that compute it, in every function and in
nested regions (scf bodies). These are MindSpore's graph-kernel "expanders":
graph-kernel fusion clusters basic ops only, so a composite op is a fusion
barrier until it is expanded; expanded, its pieces fuse with the ops around
it -- forward and backward together when the pass runs after
mindir-autodiff (the softmax/log_softmax the cross-entropy gradients emit
are expanded too).

Each expansion is built at the op's location, replaces the op's results
(one value of exactly the result's type each) and erases the op. The rules
reproduce the ops' lowerings formula by formula (see each rule module), so
results only change by reduction-order rounding (half types: see
expanders/softmax.py). Option `ops` (comma-separated op names, with or
without the `mindir.` prefix; empty = every rule) restricts the expansion,
for A/B comparisons.
"""
from __future__ import annotations

from mlir import ir

from ..registry import Option, PassFailure, register_pass
from .expanders import expandable_ops, get_expander


def _selected(ops: str, module: ir.Operation) -> set[str] | None:
    """The op names the `ops` option selects (None: all); unknown names are an error."""
    names = [n.strip() for n in ops.split(",") if n.strip()]
    if not names:
        return None
    known = set(expandable_ops())
    out, bad = set(), []
    for n in names:
        full = n if n.startswith("mindir.") else "mindir." + n
        if full in known:
            out.add(full)
        else:
            bad.append(n)
    if bad:
        module.location.emit_error(
            f"mindir-expand-composites: no expander for {', '.join(bad)} (expandable: "
            f"{', '.join(k[len('mindir.'):] for k in sorted(known))})")
        raise PassFailure()
    return out


def expand_op(op: ir.Operation) -> bool:
    """Expands one op with its rule; False when it has none or the rule declines."""
    rule = get_expander(op.name)
    if rule is None:
        return False
    with op.location, ir.InsertionPoint(op):
        results = rule(op.opview)
    if results is None:
        return False
    results = list(results)
    old = list(op.results)
    if len(results) != len(old) or any(n.type != o.type for n, o in zip(results, old)):
        got = ", ".join(str(v.type) for v in results)
        op.location.emit_error(f"mindir-expand-composites internal error: the expander of "
                               f"{op.name} built ({got}) for results of types "
                               f"({', '.join(str(v.type) for v in old)})")
        raise PassFailure()
    for o, n in zip(old, results):
        o.replace_all_uses_with(n)
    op.erase()
    return True


@register_pass("mindir-expand-composites",
               "Expand composite mindir ops (softmax, layer_norm, gelu, ...) into basic ops",
               options={"ops": Option(str, "", "comma-separated op names to expand "
                                               "(empty: every op with an expander)")})
def expand_composites(module: ir.Operation, *, ops: str):
    only = _selected(ops, module)
    found: list[ir.Operation] = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        name = op.name
        if get_expander(name) is not None and (only is None or name in only):
            found.append(op)
        return ir.WalkResult.ADVANCE

    module.walk(visit, ir.WalkOrder.PRE_ORDER)
    for op in found:
        expand_op(op)
