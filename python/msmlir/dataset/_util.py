"""Argument checks and conversions shared by the dataset nodes."""
from __future__ import annotations

import numbers

import numpy as np


def to_numpy(x) -> np.ndarray:
    if isinstance(x, np.ndarray):
        return x
    if hasattr(x, "asnumpy"):
        return np.asarray(x.asnumpy())
    return np.asarray(x)


def col_list(cols, what) -> list | None:
    if cols is None:
        return None
    if isinstance(cols, str):
        return [cols]
    if isinstance(cols, (list, tuple)) and all(isinstance(c, str) for c in cols):
        if len(set(cols)) != len(cols):
            raise ValueError(f"{what}: duplicate column names in {list(cols)}")
        return list(cols)
    raise TypeError(f"{what} must be a str or a list of str, got {cols!r}")


def check_positive_int(name, value, allow_minus_one=False):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    if allow_minus_one and value == -1:
        return -1
    if value <= 0:
        raise ValueError(f"{name} must be positive{' or -1' if allow_minus_one else ''}, "
                         f"got {value}")
    return int(value)



def add_note(exc, note):
    if hasattr(exc, "add_note") and note not in getattr(exc, "__notes__", ()):
        exc.add_note(note)

