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

The loss scalers of MindSpore 2.x's functional training loop (`StaticLossScaler`,
`DynamicLossScaler`: `scale` the loss, `unscale` the gradients, `adjust` the scale
from `all_finite(grads)`) keep the scale in a float32 Parameter, so a step that
uses them works in PyNative and inside jit alike.
"""
from __future__ import annotations

import numpy as np

from . import dtype as mstype
from . import nn, ops

__all__ = ["auto_mixed_precision", "build_train_network", "all_finite", "custom_mixed_precision",
           "get_white_list", "get_black_list", "LossScaler", "StaticLossScaler",
           "DynamicLossScaler", "LossScaleManager", "FixedLossScaleManager",
           "DynamicLossScaleManager"]

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


def _wrap_white_list(cell, dtype, white=None):
    white = _white_list() if white is None else white
    for name, sub in list(cell.__dict__["_cells"].items()):
        if isinstance(sub, white):
            sub.to_float(dtype)
            cell.__dict__["_cells"][name] = _OutputTo32(sub)
        elif isinstance(sub, nn.Cell):
            _wrap_white_list(sub, dtype, white)
    if isinstance(getattr(cell, "cell_list", None), list):      # SequentialCell runs its list
        object.__setattr__(cell, "cell_list", list(cell.__dict__["_cells"].values()))


def get_white_list():
    """The cell types that O1 runs in low precision (a new list each call)."""
    return list(_white_list())


def get_black_list():
    """The cell types that O2 keeps in float32 (a new list each call)."""
    return list(_black_list())


def custom_mixed_precision(network, *, white_list=None, black_list=None, dtype=mstype.float16):
    """Mixed precision from a given list: with `white_list` only those cell types run
    in `dtype` (as O1); with `black_list` everything runs in `dtype` except those (as
    O2). Exactly one of the two lists is given."""
    _check(network, "O1", dtype)
    if (white_list is None) == (black_list is None):
        raise ValueError("For 'custom_mixed_precision', exactly one of 'white_list' and "
                         "'black_list' must be provided")
    lst = white_list if white_list is not None else black_list
    if not isinstance(lst, (list, tuple)) or not all(
            isinstance(c, type) and issubclass(c, nn.Cell) for c in lst):
        raise TypeError("For 'custom_mixed_precision', the list must hold Cell types, got "
                        f"{lst!r}")
    if white_list is not None:
        _wrap_white_list(network, dtype, tuple(white_list))
        return network
    network.to_float(dtype)
    for _, c in network.cells_and_names():
        if isinstance(c, tuple(black_list)):
            c.to_float(mstype.float32)
    return _OutputTo32(network)


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


# ---- loss scalers (mindspore.amp.LossScaler & co.) ----------------------------------------

from .train.loss_scale_manager import (  # noqa: E402
    DynamicLossScaleManager, FixedLossScaleManager, LossScaleManager)


def _map(fn, inputs):
    if isinstance(inputs, (tuple, list)):
        return type(inputs)(fn(x) for x in inputs)
    return fn(inputs)


def _scale_param(scale_value, what):
    from .common.parameter import Parameter
    from .common.tensor import Tensor
    if isinstance(scale_value, bool) or not isinstance(scale_value, (int, float)):
        raise TypeError(f"For '{what}', 'scale_value' must be a float or int, got "
                        f"{type(scale_value).__name__}")
    if scale_value < 1.0:
        raise ValueError(f"For '{what}', 'scale_value' must be >= 1, got {scale_value}")
    return Parameter(Tensor(np.float32(scale_value)), name="scale_value")


class LossScaler:
    """The loss-scaler interface: `scale(inputs)`, `unscale(inputs)` (a Tensor or a
    tuple/list of them) and `adjust(grads_finite)`."""

    def scale(self, inputs):
        raise NotImplementedError

    def unscale(self, inputs):
        raise NotImplementedError

    def adjust(self, grads_finite):
        raise NotImplementedError

    def _mul(self, inputs, inverse):
        def one(x):
            s = ops.cast(self.scale_value, x.dtype)
            return ops.mul(x, ops.reciprocal(s) if inverse else s)
        return _map(one, inputs)


class StaticLossScaler(LossScaler):
    """Scales by a fixed `scale_value` (>= 1); `adjust` returns False."""

    def __init__(self, scale_value):
        self.scale_value = _scale_param(scale_value, "StaticLossScaler")

    def scale(self, inputs):
        return self._mul(inputs, False)

    def unscale(self, inputs):
        return self._mul(inputs, True)

    def adjust(self, grads_finite):
        return False


class DynamicLossScaler(LossScaler):
    """Multiplies the scale by `scale_factor` after `scale_window` consecutive steps
    with finite gradients (unless that overflows), divides it by `scale_factor`
    (not below 1) and restarts the count after a step with non-finite ones."""

    def __init__(self, scale_value, scale_factor, scale_window):
        from .common.parameter import Parameter
        from .common.tensor import Tensor
        self.scale_value = _scale_param(scale_value, "DynamicLossScaler")
        for n, v in (("scale_factor", scale_factor), ("scale_window", scale_window)):
            if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
                raise ValueError(f"For 'DynamicLossScaler', '{n}' must be a positive int, "
                                 f"got {v!r}")
        self.scale_factor = scale_factor
        self.scale_window = scale_window
        self.counter = Parameter(Tensor(np.int32(0)), name="counter")

    def scale(self, inputs):
        return self._mul(inputs, False)

    def unscale(self, inputs):
        return self._mul(inputs, True)

    def adjust(self, grads_finite):
        s = self.scale_value
        grown = ops.mul(s, float(self.scale_factor))
        at_window = ops.equal(self.counter, self.scale_window - 1)
        up = ops.select(at_window, ops.select(ops.isfinite(grown), grown, s), s)
        down = ops.maximum(ops.div(s, float(self.scale_factor)), 1.0)
        ops.assign(self.scale_value, ops.select(grads_finite, up, down))
        count = ops.mul(ops.floor_mod(ops.add(self.counter, 1), self.scale_window),
                        ops.cast(grads_finite, self.counter.dtype))
        ops.assign(self.counter, count)
        return True
