"""Common data transforms (MindSpore's `mindspore.dataset.transforms`), on numpy arrays.

Use them in `Dataset.map`: ``ds.map(transforms.TypeCast(ms.int32), 'label')``. The
random ones (RandomApply, RandomChoice, RandomOrder) draw from the pipeline's
per-row generator (`msmlir.dataset._random`): reproducible under a seed, identical
with any number of parallel workers.

`transforms.transforms`, and MindSpore 1.x's `transforms.c_transforms` and
`transforms.py_transforms` (with `OneHotOp`), are aliases of this module.
"""
from __future__ import annotations

import numbers

import numpy as np

from ._random import generator as _generator

__all__ = ["TypeCast", "OneHot", "Compose", "Fill", "Duplicate", "Concatenate", "PadEnd",
           "Slice", "Mask", "Relational", "Unique", "RandomApply", "RandomChoice",
           "RandomOrder"]


def _np(x):
    return np.asarray(x.asnumpy() if hasattr(x, "asnumpy") else x)


def _np_dtype(data_type):
    from .. import dtype as _dt
    try:
        return _dt.get(data_type).to_numpy()
    except (TypeError, ValueError):
        return np.dtype(data_type)


class TypeCast:
    """Casts to `data_type` (an msmlir dtype, numpy dtype or name)."""

    def __init__(self, data_type):
        self._np = _np_dtype(data_type)

    def __call__(self, x):
        return _np(x).astype(self._np)


class OneHot:
    """One-hot encodes integer labels into `num_classes` columns (the label's integer
    dtype; float32 with label smoothing: on = 1 - s + s / n, off = s / n)."""

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
    """Applies `transforms` in order (each one's outputs are the next one's inputs)."""

    def __init__(self, transforms):
        transforms = list(transforms)
        if not transforms or not all(callable(t) for t in transforms):
            raise TypeError("Compose: transforms must be a non-empty list of callables")
        self.transforms = transforms

    def __call__(self, *args):
        for t in self.transforms:
            res = t(*args)
            args = res if isinstance(res, tuple) else (res,)
        return args[0] if len(args) == 1 else args

    @staticmethod
    def reduce(operations):
        """MindSpore API: the operations as one callable."""
        return Compose(operations) if len(operations) > 1 else operations[0]


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


class Concatenate:
    """Concatenates 1-D arrays along `axis` (0 or -1), with optional `prepend` /
    `append` arrays."""

    def __init__(self, axis=0, prepend=None, append=None):
        if axis not in (0, -1):
            raise ValueError(f"Concatenate: axis must be 0 or -1, got {axis!r}")
        self.axis = axis
        self.prepend = None if prepend is None else _np(prepend)
        self.append = None if append is None else _np(append)

    def __call__(self, *xs):
        parts = ([self.prepend] if self.prepend is not None else []) + [_np(x) for x in xs] + \
            ([self.append] if self.append is not None else [])
        return np.concatenate(parts, axis=self.axis)


class PadEnd:
    """Pads (or truncates) each dimension at its end to `pad_shape` with `pad_value`."""

    def __init__(self, pad_shape, pad_value=None):
        self.pad_shape = [int(s) for s in pad_shape]
        self.pad_value = pad_value

    def __call__(self, x):
        x = _np(x)
        if x.ndim != len(self.pad_shape):
            raise RuntimeError(f"PadEnd: pad_shape {self.pad_shape} does not match the rank of "
                               f"shape {list(x.shape)}")
        x = x[tuple(slice(0, s) for s in self.pad_shape)]
        value = self.pad_value if self.pad_value is not None else \
            (b"" if x.dtype.kind in "SU" else 0)
        out = np.full(self.pad_shape, value, dtype=x.dtype)
        out[tuple(slice(0, d) for d in x.shape)] = x
        return out


class Slice:
    """Slices the first dimension(s): each argument an int, a list of ints, a slice,
    None or Ellipsis (MindSpore's `SliceOption`s are accepted by value)."""

    def __init__(self, *slices):
        self.slices = tuple(getattr(s, "slice_option", s) for s in slices)

    def __call__(self, x):
        x = _np(x)
        return np.asarray(x[self.slices if len(self.slices) != 1 else self.slices[0]])


class Relational:
    """Comparison operators of `Mask` (MindSpore's `Relational`)."""
    EQ, NE, GT, GE, LT, LE = "EQ", "NE", "GT", "GE", "LT", "LE"


_REL = {"EQ": np.equal, "NE": np.not_equal, "GT": np.greater, "GE": np.greater_equal,
        "LT": np.less, "LE": np.less_equal}


class Mask:
    """Boolean mask (cast to `dtype`) of `x <operator> constant`."""

    def __init__(self, operator, constant, dtype=np.bool_):
        op = getattr(operator, "value", operator)
        if op not in _REL:
            raise ValueError(f"Mask: unknown operator {operator!r}")
        self.operator, self.constant, self.dtype = op, constant, _np_dtype(dtype)

    def __call__(self, x):
        return _REL[self.operator](_np(x), self.constant).astype(self.dtype)


class Unique:
    """(unique values in first-occurrence order, index of each element in them, counts)."""

    def __call__(self, x):
        x = _np(x)
        if x.ndim != 1:
            raise RuntimeError(f"Unique: the input must be 1-D, got shape {list(x.shape)}")
        vals, first, inv, counts = np.unique(x, return_index=True, return_inverse=True,
                                             return_counts=True)
        order = np.argsort(first, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        return vals[order], rank[inv].astype(np.int32), counts[order].astype(np.int32)


class RandomApply:
    """Applies `transforms` (in order) with probability `prob`."""

    def __init__(self, transforms, prob=0.5):
        if not isinstance(prob, numbers.Real) or not 0 <= prob <= 1:
            raise ValueError(f"RandomApply: prob must be in [0, 1], got {prob!r}")
        self.compose = Compose(transforms)
        self.prob = float(prob)

    def __call__(self, *args):
        if _generator().random() < self.prob:
            return self.compose(*args)
        return args[0] if len(args) == 1 else args


class RandomChoice:
    """Applies one of `transforms`, chosen uniformly."""

    def __init__(self, transforms):
        self.transforms = list(transforms)
        if not self.transforms:
            raise ValueError("RandomChoice: transforms must not be empty")

    def __call__(self, *args):
        return self.transforms[int(_generator().integers(len(self.transforms)))](*args)


class RandomOrder:
    """Applies all `transforms` in a random order."""

    def __init__(self, transforms):
        self.transforms = list(transforms)

    def __call__(self, *args):
        order = _generator().permutation(len(self.transforms))
        return Compose([self.transforms[i] for i in order])(*args)


class OneHotOp(OneHot):
    """py_transforms' name of OneHot."""


def _register_aliases():
    import sys

    from ._alias import alias_module
    me = sys.modules[__name__]
    public = {k: globals()[k] for k in __all__}
    alias_module(me, "transforms", "MindSpore's mindspore.dataset.transforms.transforms.",
                 public)
    alias_module(me, "c_transforms", "MindSpore 1.x mindspore.dataset.transforms.c_transforms "
                 "(the same classes).", public)
    p = dict(public)
    p["OneHotOp"] = OneHotOp
    alias_module(me, "py_transforms", "MindSpore 1.x mindspore.dataset.transforms.py_transforms "
                 "(the same classes; OneHotOp is OneHot).", p)


_register_aliases()
