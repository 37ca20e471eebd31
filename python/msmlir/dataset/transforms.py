"""Common data transforms (MindSpore's `mindspore.dataset.transforms`), on numpy arrays.

Use them in `Dataset.map`: ``ds.map(transforms.TypeCast(ms.int32), 'label')``.
"""
from __future__ import annotations

import numpy as np

__all__ = ["TypeCast", "OneHot", "Compose", "Fill", "Duplicate"]


def _np(x):
    return np.asarray(x.asnumpy() if hasattr(x, "asnumpy") else x)


class TypeCast:
    """Casts to `data_type` (an msmlir dtype, numpy dtype or name)."""

    def __init__(self, data_type):
        from .. import dtype as _dt
        try:
            self._np = _dt.get(data_type).to_numpy()
        except (TypeError, ValueError):
            self._np = np.dtype(data_type)

    def __call__(self, x):
        return _np(x).astype(self._np)


class OneHot:
    """One-hot encodes integer labels into `num_classes` (float32 with smoothing)."""

    def __init__(self, num_classes, smoothing_rate=0.0):
        if isinstance(num_classes, bool) or not isinstance(num_classes, int) or num_classes <= 0:
            raise ValueError(f"OneHot: num_classes must be a positive int, got {num_classes!r}")
        if not 0.0 <= smoothing_rate <= 1.0:
            raise ValueError(f"OneHot: smoothing_rate must be in [0, 1], got {smoothing_rate}")
        self.num_classes = num_classes
        self.smoothing_rate = smoothing_rate

    def __call__(self, label):
        label = _np(label)
        if label.dtype.kind not in "iu":
            raise TypeError(f"OneHot: labels must be integers, got {label.dtype}")
        if label.size and (label.min() < 0 or label.max() >= self.num_classes):
            raise ValueError(f"OneHot: labels must be in [0, {self.num_classes})")
        out = np.eye(self.num_classes, dtype=np.int64)[label]
        if self.smoothing_rate:
            s = self.smoothing_rate
            return (out * (1.0 - s) + s / self.num_classes).astype(np.float32)
        return out.astype(label.dtype)


class Compose:
    """Applies `transforms` in order."""

    def __init__(self, transforms):
        self.transforms = list(transforms)

    def __call__(self, *args):
        for t in self.transforms:
            res = t(*args)
            args = res if isinstance(res, tuple) else (res,)
        return args[0] if len(args) == 1 else args


class Fill:
    """Fills the array with `fill_value` (same shape and dtype)."""

    def __init__(self, fill_value):
        self.fill_value = fill_value

    def __call__(self, x):
        x = _np(x)
        return np.full_like(x, self.fill_value)


class Duplicate:
    """Returns the input twice (map with two output columns)."""

    def __call__(self, x):
        x = _np(x)
        return x, x.copy()
