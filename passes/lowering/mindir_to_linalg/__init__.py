"""Per-op lowerings for convert-mindir-to-linalg, grouped by kind.

A lowering is `fn(opview) -> Value | list[Value]`, called with the insertion
point and location set at the op; register it with `@lowering("mindir.x")`.
"""
from __future__ import annotations

import importlib

LOWERINGS: dict = {}

_MODULES = ["elementwise", "reduction", "linalg_ops", "nn", "shape", "creation", "host", "sort"]


def lowering(*names):
    def deco(fn):
        for n in names:
            LOWERINGS[n] = fn
        return fn
    return deco


def load_all():
    for m in _MODULES:
        try:
            importlib.import_module(f"{__name__}.{m}")
        except ModuleNotFoundError as e:
            if e.name != f"{__name__}.{m}":
                raise
