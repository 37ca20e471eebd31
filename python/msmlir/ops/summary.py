"""MindSpore's summary operators (`ScalarSummary`, `TensorSummary`, `ImageSummary`,
`HistogramSummary`): record a tensor's value under a tag, for SummaryRecord /
SummaryCollector (msmlir/train/summary.py) to write into an event file.

As in MindSpore, the operator only hands the value over: it goes into a
process-wide buffer (`take()` empties it), which `SummaryRecord.record(step)`
writes out. In PyNative the value is buffered at once; inside `jit` or a Cell's
`construct` the operator is a `mindir.host_callback` with no results that
buffers the run-time value at every call (so it has no gradient and needs none).
A later value of the same tag replaces the earlier one until the next record.
"""
from __future__ import annotations

import numpy as np

from . import host as _host
from ._base import to_tensor
import msmlir.frontend.builder as _b

__all__ = ["KINDS", "summary", "take"]

# operator name -> plugin name (SummaryRecord.add_value's)
KINDS = {"ScalarSummary": "scalar", "TensorSummary": "tensor", "ImageSummary": "image",
         "HistogramSummary": "histogram"}

_BUFFER: dict = {}   # (plugin, tag) -> numpy array


def _check(op: str, tag, value):
    if not isinstance(tag, str) or not tag:
        _b.error(f"For '{op}', the tag must be a non-empty str, got {tag!r}")
    shape = tuple(getattr(value, "shape", np.shape(value)))
    plugin = KINDS[op]
    if plugin == "scalar" and int(np.prod(shape)) != 1:
        _b.error(f"For '{op}', the value must hold one element (a scalar), got shape {shape}")
    if plugin == "image" and len(shape) != 4:
        _b.error(f"For '{op}', the value must be a 4-D NCHW image batch, got shape {shape}")


def _put(plugin: str, tag: str, value):
    _BUFFER[(plugin, tag)] = np.array(value)


def summary(op: str, tag, value):
    """Buffers `value` under `tag` (now in PyNative, at run time in compiled code)."""
    _check(op, tag, value)
    plugin = KINDS[op]
    if _b.current() is None:
        v = value.asnumpy() if hasattr(value, "asnumpy") else np.asarray(value)
        _put(plugin, tag, v)
        return None
    t = to_tensor(value)
    spec, leaves, inputs = _host.flatten_args((t,), {})
    _host.emit_host_call(lambda v: _put(plugin, tag, v), spec, leaves, inputs, (("C", None), []),
                         what=f"{op} {tag!r}")
    return None


def take() -> dict:
    """{(plugin, tag): array} buffered since the last take, and empties the buffer."""
    out = dict(_BUFFER)
    _BUFFER.clear()
    return out
