"""Trees of values: nested tuples, lists, namedtuples and dicts with leaves.

Layer 0 because every layer walks such trees: the module builder (a function's
arguments and results), the host callbacks (their arguments and results), jit
(its signature cache key), the function transforms (their inputs/outputs).

A spec is a nested description of a tree: `LEAF` where a leaf was taken out,
("C", value) for any other non-container value, ("tuple"|"list", children),
("nt", type, children), ("dict", keys, children).
"""
from __future__ import annotations

import numpy as np

__all__ = ["LEAF", "tree_flatten", "tree_unflatten", "count_leaves", "const_key", "spec_key"]

LEAF = ("L",)


def iter_leaves(tree):
    """The leaves of nested tuples/lists/dicts (dict values), in no particular
    order: for `any(...)`-style searches that need no spec."""
    stack = [tree]
    while stack:
        v = stack.pop()
        if isinstance(v, (tuple, list)):
            stack.extend(v)
        elif isinstance(v, dict):
            stack.extend(v.values())
        else:
            yield v


def tree_flatten(x, is_leaf):
    """(spec, leaves): `spec` is a nested description of `x` with LEAF where a
    leaf was taken out and ("C", value) for every other non-container value."""
    leaves = []

    def rec(v):
        if is_leaf(v):
            leaves.append(v)
            return LEAF
        if isinstance(v, tuple) and hasattr(v, "_fields"):
            return ("nt", type(v), tuple(rec(e) for e in v))
        if type(v) is tuple:
            return ("tuple", tuple(rec(e) for e in v))
        if type(v) is list:
            return ("list", tuple(rec(e) for e in v))
        if type(v) is dict:
            return ("dict", tuple(v.keys()), tuple(rec(e) for e in v.values()))
        return ("C", v)

    return rec(x), leaves


def tree_unflatten(spec, leaves):
    it = iter(leaves)

    def rec(s):
        kind = s[0]
        if kind == "L":
            return next(it)
        if kind == "C":
            return s[1]
        if kind == "tuple":
            return tuple(rec(c) for c in s[1])
        if kind == "list":
            return [rec(c) for c in s[1]]
        if kind == "nt":
            return s[1](*[rec(c) for c in s[2]])
        if kind == "dict":
            return dict(zip(s[1], [rec(c) for c in s[2]]))
        raise AssertionError(kind)

    return rec(spec)


def count_leaves(spec) -> int:
    kind = spec[0]
    if kind == "L":
        return 1
    if kind == "C":
        return 0
    children = spec[2] if kind in ("nt", "dict") else spec[1]
    return sum(count_leaves(c) for c in children)


def const_key(v):
    """A hashable key for a compile-time constant (identity for unhashables)."""
    if isinstance(v, float):
        return ("float", repr(v))
    if isinstance(v, (bool, int, str, bytes, type(None))):
        return (type(v).__name__, v)
    if isinstance(v, np.ndarray):
        return ("ndarray", id(v))
    try:
        hash(v)
    except TypeError:
        return ("id", id(v))
    return (type(v).__qualname__, v)


def spec_key(spec):
    """A hashable key of a spec (its constants keyed by `const_key`)."""
    kind = spec[0]
    if kind == "L":
        return spec
    if kind == "C":
        return ("C", const_key(spec[1]))
    if kind == "nt":
        return ("nt", spec[1], tuple(spec_key(c) for c in spec[2]))
    if kind == "dict":
        return ("dict", tuple(const_key(k) for k in spec[1]), tuple(spec_key(c) for c in spec[2]))
    return (kind, tuple(spec_key(c) for c in spec[1]))
