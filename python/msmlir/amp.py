"""mindspore.amp: automatic mixed precision of a network.

`auto_mixed_precision(network, amp_level)` marks cells with `Cell.to_float`, so
that their float inputs and trainable Parameters are cast when construct runs
(compiled float16 kernels run on the CPU path):

* O0: unchanged (float32);
* O1: the white-list cells (Dense, convolutions) run in float16, their outputs
  cast back to float32 (MindSpore 2.0-2.2's cell-level O1);
* O2: the whole network runs in float16 except the black-list cells (BatchNorm,
  LayerNorm), which stay float32; the network's output is float32;
* O3: the whole network in float16, output float32.

`Model(..., amp_level="O2")` applies it and computes the loss in float32 (with a
dynamic loss scale for O2/O3 unless a loss_scale_manager is given), as
MindSpore's `build_train_network`.
"""
from __future__ import annotations

import numpy as np

from . import dtype as mstype
from . import nn, ops

__all__ = ["auto_mixed_precision", "build_train_network", "all_finite"]

_LEVELS = ("O0", "O1", "O2", "O3", "auto")


def _white_list():
    return (nn.Dense, nn.Conv1d, nn.Conv2d, nn.Conv1dTranspose, nn.Conv2dTranspose)


def _black_list():
    return (nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d, nn.LayerNorm, nn.SyncBatchNorm)


class _OutputTo32(nn.Cell):
    """Runs `backbone` and casts its float outputs to float32."""

    def __init__(self, backbone):
        super().__init__(auto_prefix=False)
        self._backbone = backbone

    def construct(self, *args):
        return ops.functional.mixed_precision_cast(mstype.float32, self._backbone(*args))


def _check(network, amp_level, dtype):
    if not isinstance(network, nn.Cell):
        raise TypeError(f"For 'auto_mixed_precision', the network must be a Cell, got "
                        f"{type(network).__name__}")
    if amp_level not in _LEVELS:
        raise ValueError(f"For 'auto_mixed_precision', amp_level must be one of {_LEVELS}, "
                         f"got {amp_level!r}")
    if dtype not in (mstype.float16, mstype.bfloat16):
        raise ValueError(f"For 'auto_mixed_precision', dtype must be float16 or bfloat16, got "
                         f"{dtype}")


def _wrap_white_list(cell, dtype):
    for name, sub in list(cell.__dict__["_cells"].items()):
        if isinstance(sub, _white_list()):
            sub.to_float(dtype)
            cell.__dict__["_cells"][name] = _OutputTo32(sub)
        elif isinstance(sub, nn.Cell):
            _wrap_white_list(sub, dtype)


def auto_mixed_precision(network, amp_level="O0", dtype=mstype.float16):
    """The network with mixed precision `amp_level` (see the module docstring);
    O1 changes `network` in place and returns it, O2/O3 return a wrapper whose
    outputs are float32. 'auto' means O2 here (MindSpore picks per device)."""
    _check(network, amp_level, dtype)
    if amp_level == "O0":
        return network
    if amp_level == "O1":
        _wrap_white_list(network, dtype)
        return network
    network.to_float(dtype)
    if amp_level in ("O2", "auto"):
        for _, c in network.cells_and_names():
            if isinstance(c, _black_list()):
                c.to_float(mstype.float32)
    return _OutputTo32(network)


def build_train_network(network, optimizer, loss_fn=None, level="O0", boost_level="O0",
                        **kwargs):
    """The one-step training cell of `network` at mixed-precision `level` (loss in
    float32; O2/O3 with a dynamic loss scale unless `loss_scale_manager` is given)."""
    from .train.loss_scale_manager import DynamicLossScaleManager
    net = auto_mixed_precision(network, level)
    if loss_fn is not None:
        net = nn.WithLossCell(net, loss_fn)
    mgr = kwargs.get("loss_scale_manager")
    if mgr is None and level in ("O2", "O3", "auto"):
        mgr = DynamicLossScaleManager()
    if mgr is None:
        return nn.TrainOneStepCell(net, optimizer)
    from .common.tensor import Tensor
    cell = mgr.get_update_cell()
    sense = cell if cell is not None else Tensor(np.float32(mgr.get_loss_scale()))
    return nn.TrainOneStepWithLossScaleCell(net, optimizer, sense)


def all_finite(inputs):
    """Whether every element of every tensor in `inputs` is finite (a bool tensor)."""
    flags = [ops.reduce_all(ops.isfinite(x)) for x in inputs]
    out = flags[0]
    for f in flags[1:]:
        out = ops.logical_and(out, f)
    return out
