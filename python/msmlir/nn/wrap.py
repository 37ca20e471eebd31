"""WithLossCell, TrainOneStepCell, WithEvalCell (mindspore.nn wrappers)."""
from __future__ import annotations

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


class TrainOneStepCell(Cell):
    """One training step: loss, gradients (scaled by `sens`), optimizer update;
    returns the loss. In GRAPH_MODE the whole step is one compiled function."""

    def __init__(self, network, optimizer, sens=None, return_grad=False):
        super().__init__(auto_prefix=False)
        self.network = network
        self.network.set_grad()
        self.optimizer = optimizer
        self.weights = self.optimizer.parameters
        self.sens = 1.0 if sens is None else float(sens)
        self.return_grad = return_grad
        self.grad_fn = value_and_grad(self.network, None, self.weights)

    def construct(self, *inputs):
        loss, grads = self.grad_fn(*inputs)
        if self.sens != 1.0:
            grads = tuple(g * self.sens for g in grads)
        self.optimizer(grads)   # its construct returns the assigned values: the writes stay live
        if self.return_grad:
            return loss, grads
        return loss
