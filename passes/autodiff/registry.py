"""The bprop registry: one reverse-mode rule per differentiable op.

A rule is `fn(op, douts) -> dins`:

* `op` is the forward op as it stands in the generated function (an OpView),
  so the rule reuses its operands and results (forward values are never
  recomputed);
* `douts` has one entry per result of `op`: the cotangent Value, or None when
  that result receives no gradient (at least one entry is not None);
* `dins` has one entry per operand: a Value of exactly the operand's type, or
  None for "no gradient" (non-differentiable operand, or zero).

Rules build mindir ops at the current insertion point (see `emit.py`), so the
backward pass is itself mindir that CSE, canonicalize and fusion optimise.

Ops whose derivative is zero everywhere it exists, or whose results carry no
gradient (comparisons, logical ops, arg-reductions, integer results,
rounding, random, creation ops) are registered EXPLICITLY with
`register_non_differentiable(name, reason)`; they stop gradient flow and are
listed by `non_differentiable_ops()`. An op that is neither, and is reached by
a gradient, is an error at its location, unless a fallback claims it:

    register_fallback(fn)   # fn(op) -> rule | None

e.g. the kernel-level differentiator claims an `mskernel.fused` op whose body
is a `linalg.generic` and returns a rule that builds its backward kernel.

This module imports no rule module: the package imports bprop_*.py, which
register the built-in rules, before anything else can register its own.
"""
from __future__ import annotations

from typing import Callable, Optional

from mlir import ir

Rule = Callable[[ir.OpView, list], list]

_BPROPS: dict[str, Rule] = {}
_NON_DIFFERENTIABLE: dict[str, str] = {}
_FALLBACKS: list[Callable[[ir.OpView], Optional[Rule]]] = []


def register_bprop(*names: str):
    """Decorator: registers `fn(op, douts) -> dins` as the bprop of each op name.

    A later registration replaces an earlier one (custom bprops override the
    built-in ones)."""
    def deco(fn: Rule) -> Rule:
        for n in names:
            _BPROPS[n] = fn
            _NON_DIFFERENTIABLE.pop(n, None)
        return fn
    return deco


def register_non_differentiable(*names: str, reason: str = "no gradient"):
    """Declares ops whose results carry no gradient (their bprop is zero)."""
    for n in names:
        _NON_DIFFERENTIABLE[n] = reason
        _BPROPS.pop(n, None)


def register_fallback(fn: Callable[[ir.OpView], Optional[Rule]]):
    """Adds a hook asked, in registration order, for ops without a rule:
    `fn(op)` returns a rule for `op` or None. Usable as a decorator."""
    _FALLBACKS.append(fn)
    return fn


def unregister_fallback(fn) -> None:
    if fn in _FALLBACKS:
        _FALLBACKS.remove(fn)


def is_non_differentiable(name: str) -> bool:
    return name in _NON_DIFFERENTIABLE


def get_bprop(op: ir.OpView) -> Optional[Rule]:
    """The rule for `op`: registered, zero for non-differentiable ops, else a
    fallback's, else None."""
    name = op.operation.name
    if name in _BPROPS:
        return _BPROPS[name]
    if name in _NON_DIFFERENTIABLE:
        return _zero_rule
    for fb in _FALLBACKS:
        rule = fb(op)
        if rule is not None:
            return rule
    return None


# Which operands of the op whose rule is running need a gradient (set by the
# engine around each rule call); rules may skip work for the others.
_NEEDS: list = []


def needs_grad(i: int) -> bool:
    """Inside a rule: does operand i need a gradient? (True when unknown.)"""
    return _NEEDS[i] if i < len(_NEEDS) else True


def set_needs(flags) -> None:
    global _NEEDS
    _NEEDS = list(flags)


def _zero_rule(op, douts):
    return [None] * len(op.operation.operands)


def differentiable_ops() -> list[str]:
    return sorted(_BPROPS)


def non_differentiable_ops() -> dict[str, str]:
    return dict(sorted(_NON_DIFFERENTIABLE.items()))
