"""Per-op lowerings for convert-mindir-to-linalg, grouped by kind.

A lowering is `fn(opview) -> Value | list[Value]`, called with the insertion
point and location set at the op; register it with `@lowering("mindir.x")`.
"""
from __future__ import annotations

import importlib

LOWERINGS: dict = {}


class LoweringError(Exception):
    """An op whose lowering cannot be built (e.g. an intermediate tensor too large
    to exist); reported by the pass as an error at the op's location."""


# An intermediate tensor of a lowering may take at most this many bytes (as
# msmlir's C++ allows for mindir tensors, see MI_RepresentableSizePred).
MAX_TENSOR_BYTES = 2 ** 63 - 1


def check_tensor_size(shape, elem, what: str) -> None:
    """Raises LoweringError if a tensor of `shape` and element type `elem` could not exist."""
    n = max(1, getattr(elem, "width", 64) // 8)
    for d in shape:
        n *= d
    if n > MAX_TENSOR_BYTES:
        raise LoweringError(f"{what} of shape {list(shape)} would need more than 2^63 bytes")

_MODULES = ["elementwise", "reduction", "linalg_ops", "nn", "shape", "creation", "host", "sort",
            "collectives", "bitwise"]


def lowering(*names):
    def deco(fn):
        for n in names:
            LOWERINGS[n] = fn
        return fn
    return deco


def load_all():
    """Imports the per-kind modules (each registers its lowerings)."""
    for m in _MODULES:
        importlib.import_module(f"{__name__}.{m}")
