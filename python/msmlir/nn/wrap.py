"""WithLossCell, TrainOneStepCell, WithEvalCell (mindspore.nn wrappers)."""
from __future__ import annotations

from .. import ops
from ..autodiff.grad import value_and_grad
from .cell import Cell

__all__ = ["WithLossCell", "TrainOneStepCell", "WithEvalCell"]


class WithLossCell(Cell):
    """loss_fn(backbone(data), label)."""

    def __init__(self, backbone, loss_fn):
        super().__init__(auto_prefix=False)
        self._backbone = backbone
        self._loss_fn = loss_fn

    def construct(self, data, label):
        out = self._backbone(data)
        return self._loss_fn(out, label)

    @property
    def backbone_network(self):
        return self._backbone


class WithEvalCell(Cell):
    def __init__(self, network, loss_fn, add_cast_fp32=False):
        super().__init__(auto_prefix=False)
        self._network = network
        self._loss_fn = loss_fn

    def construct(self, data, label):
        outputs = self._network(data)
        loss = self._loss_fn(outputs, label)
        return loss, outputs, label


def _grad_reducer(weights):
    """nn.DistributedGradReducer when the auto-parallel context says
    DATA_PARALLEL or HYBRID_PARALLEL (MindSpore's TrainOneStepCell does the
    same), else None."""
    from ..common import context
    get = getattr(context, "get_auto_parallel_context", None)
    if get is None or get("parallel_mode") not in ("data_parallel", "hybrid_parallel"):
        return None
    from .distributed import DistributedGradReducer
    degree = get("device_num")
    return DistributedGradReducer(weights, mean=get("gradients_mean"),
                                  degree=degree if degree and degree > 1 else None)


class TrainOneStepCell(Cell):
    """One training step: loss, gradients (scaled by `sens`), the ranks' mean
    gradients in data-parallel mode, optimizer update; returns the loss. In
    GRAPH_MODE the whole step is one compiled function."""

    def __init__(self, network, optimizer, sens=None, return_grad=False):
        super().__init__(auto_prefix=False)
        self.network = network
        self.network.set_grad()
        self.optimizer = optimizer
        self.weights = self.optimizer.parameters
        self.sens = 1.0 if sens is None else float(sens)
        self.return_grad = return_grad
        self.grad_fn = value_and_grad(self.network, None, self.weights)
        self.grad_reducer = _grad_reducer(self.weights)

    def construct(self, *inputs):
        loss, grads = self.grad_fn(*inputs)
        if self.sens != 1.0:
            grads = tuple(g * self.sens for g in grads)
        if self.grad_reducer is not None:
            grads = self.grad_reducer(grads)
        self.optimizer(grads)   # its construct returns the assigned values: the writes stay live
        if self.return_grad:
            return loss, grads
        return loss


# ---------------------------------------------------------------------------
# Loss scaling (MindSpore's TrainOneStepWithLossScaleCell and its update cells)
# ---------------------------------------------------------------------------

class FixedLossScaleUpdateCell(Cell):
    """A constant loss scale: `(scale, overflow) -> overflow` leaves the scale as it is."""

    def __init__(self, loss_scale_value):
        super().__init__()
        from ..common.parameter import Parameter
        from ..common.tensor import Tensor
        import numpy as np
        self.loss_scale_value = float(loss_scale_value)
        self.scale = Parameter(Tensor(np.float32(self.loss_scale_value)), name="loss_scale",
                               requires_grad=False)

    def get_loss_scale(self):
        return self.loss_scale_value

    def construct(self, loss_scale, overflow):
        return overflow


class DynamicLossScaleUpdateCell(Cell):
    """MindSpore's dynamic loss scale: on overflow the scale is divided by
    `scale_factor` (not below 1) and the counter restarts; after `scale_window`
    steps without overflow it is multiplied by `scale_factor`."""

    def __init__(self, loss_scale_value, scale_factor, scale_window):
        super().__init__()
        from ..common.parameter import Parameter
        from ..common.tensor import Tensor
        import numpy as np
        if scale_factor <= 1 or scale_window < 1:
            raise ValueError("For 'DynamicLossScaleUpdateCell', scale_factor must be > 1 and "
                             "scale_window >= 1")
        self.scale = Parameter(Tensor(np.float32(loss_scale_value)), name="loss_scale",
                               requires_grad=False)
        self.counter = Parameter(Tensor(np.int32(0)), name="current_iterator_step",
                                 requires_grad=False)
        self.scale_factor = float(scale_factor)
        self.scale_window = int(scale_window)

    def get_loss_scale(self):
        return float(self.scale.asnumpy())

    def construct(self, loss_scale, overflow):
        grown = ops.greater_equal(self.counter + 1, self.scale_window)
        up = ops.select(grown, loss_scale * self.scale_factor, loss_scale)
        down = ops.maximum(loss_scale / self.scale_factor, 1.0)
        new_scale = ops.select(overflow, down, up)
        new_counter = ops.select(ops.logical_or(overflow, grown), self.counter * 0,
                                 self.counter + 1)
        ops.assign(loss_scale, new_scale)
        ops.assign(self.counter, new_counter)
        return overflow


class TrainOneStepWithLossScaleCell(TrainOneStepCell):
    """A training step with loss scaling (MindSpore's): the gradients of
    loss * scale are divided by the scale; when any is not finite (overflow)
    the optimizer update is skipped; a DynamicLossScaleUpdateCell adapts the
    scale. `scale_sense`: a Tensor (a fixed scale) or an update cell. Returns
    (loss, overflow, scale)."""

    def __init__(self, network, optimizer, scale_sense):
        super().__init__(network, optimizer)
        from ..common.parameter import Parameter
        from ..common.tensor import Tensor
        import numpy as np
        self.loss_scaling_manager = None
        if isinstance(scale_sense, Cell):
            self.loss_scaling_manager = scale_sense
            self.scale_sense = scale_sense.scale
        elif hasattr(scale_sense, "asnumpy"):
            v = np.asarray(scale_sense.asnumpy(), np.float32).reshape(())
            self.scale_sense = Parameter(Tensor(v), name="scale_sense", requires_grad=False)
        else:
            raise TypeError(f"For 'TrainOneStepWithLossScaleCell', 'scale_sense' must be a "
                            f"Tensor or a loss-scale update Cell, but got "
                            f"{type(scale_sense).__name__}")
        self.grad_sens = ops.GradOperation(get_by_list=True, sens_param=True)(self.network,
                                                                              self.weights)

    def set_sense_scale(self, sens):
        from ..common.tensor import Tensor
        import numpy as np
        self.scale_sense.set_data(Tensor(np.float32(float(np.asarray(
            sens.asnumpy() if hasattr(sens, "asnumpy") else sens)))))

    def construct(self, *inputs):
        loss = self.network(*inputs)
        scale = self.scale_sense
        grads = self.grad_sens(*inputs, ops.cast(ops.fill(loss.dtype, loss.shape, 1.0) * scale,
                                                 loss.dtype))
        grads = tuple(g / ops.cast(scale, g.dtype) for g in grads)
        finite = ops.isfinite(ops.reduce_sum(grads[0]))
        for g in grads[1:]:
            finite = ops.logical_and(finite, ops.isfinite(ops.reduce_sum(g)))
        overflow = ops.logical_not(finite)
        if self.loss_scaling_manager is not None:
            overflow = self.loss_scaling_manager(scale, overflow)
        if ops.logical_not(overflow):
            self.optimizer(grads)
        return loss, overflow, scale


__all__ += ["FixedLossScaleUpdateCell", "DynamicLossScaleUpdateCell",
            "TrainOneStepWithLossScaleCell"]
