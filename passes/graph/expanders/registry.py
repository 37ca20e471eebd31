"""The expander registry: one rule per composite mindir op.

A rule is `fn(op) -> results | None`:

* `op` is the composite op as it stands in the function (an OpView); the rule
  reads its operands and attributes;
* it builds basic mindir ops (elementwise, broadcast, reduce_*, reshape,
  cast, ...) at the current insertion point and location -- the pass sets
  both to the op's -- with the generated builders and the helpers of
  `passes/autodiff/emit.py`, exactly as the bprop rules do;
* it returns one Value per result of `op`, each of exactly that result's
  type, or None to leave this op alone (a form the rule does not handle).

Every rule reproduces the op's semantics as `convert-mindir-to-linalg` lowers
it (same formulation, same order of rounding steps, same f16/bf16 handling),
so expanding never changes results beyond reduction-order rounding.

This module imports no rule module: the package imports the rule modules,
which register the built-in rules, before anything else can register its own.
"""
from __future__ import annotations

from typing import Callable, Optional, Sequence

from mlir import ir

from msmlir.dialects.enums import enum_name

Rule = Callable[[ir.OpView], Optional[Sequence[ir.Value]]]

_EXPANDERS: dict[str, Rule] = {}


def register_expander(*names: str):
    """Decorator: registers `fn(op) -> results | None` as the expansion of each
    op name ("mindir.softmax"). A later registration replaces an earlier one."""
    def deco(fn: Rule) -> Rule:
        for n in names:
            _EXPANDERS[n] = fn
        return fn
    return deco


def unregister_expander(*names: str) -> None:
    for n in names:
        _EXPANDERS.pop(n, None)


def get_expander(name: str) -> Optional[Rule]:
    return _EXPANDERS.get(name)


def expandable_ops() -> list[str]:
    """The op names that have a rule, sorted."""
    return sorted(_EXPANDERS)


def case_name(op, name: str, default: str) -> str:
    """The case name of an enum attribute of `op` (`#mindir.approximate<none>`
    -> "none", read with msmlir.dialects.enums.enum_name; a plain string
    attribute is read as its value), or `default` when it is absent (a
    default-valued attribute is elided)."""
    attrs = op.operation.attributes
    if name not in attrs:
        return default
    a = attrs[name]
    if isinstance(a, ir.StringAttr):
        return a.value
    return enum_name(a)
