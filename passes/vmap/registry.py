"""The batching-rule registry: one rule per op name.

A rule is `fn(bt, op, ins, mapping) -> outs`:

* `bt` is the `Batcher` (batch size `bt.B`, `bt.bcast`, `bt.align`, `bt.at0`,
  `bt.block` for nested regions, `bt.batch_callee` for calls);
* `op` is the source op; `ins` has one (value, bdim) per operand, already
  batched (bdim None, 0 or engine.S; at least one is not None);
* `mapping` maps source values to (value, bdim), for rules with regions;
* `outs` has one (value, bdim) per result of `op`.

Rules build their ops at the current insertion point and location (the engine
sets both). The rule modules register themselves when the package is imported.
"""
from __future__ import annotations

from typing import Callable

Rule = Callable

_RULES: dict[str, Rule] = {}


def rule(*names: str):
    """Decorator: registers `fn` as the batching rule of each op name."""
    def deco(fn: Rule) -> Rule:
        for n in names:
            _RULES[n] = fn
        return fn
    return deco


def get_rule(name: str) -> Rule | None:
    return _RULES.get(name)
