"""nn.GradAccumulationCell: gradient accumulation (the seed's 梯度累积).

A large batch is fed as `steps` micro-batches, one per call: each call adds
the micro-batch's gradients to accumulators without touching the weights; the
`steps`-th call applies the optimizer to the accumulated mean and clears the
accumulators. With a mean-reduced loss and equal micro-batches this is the
update of one step on the whole batch (θ ← θ - lr · (1/N) Σ grad_i), with the
memory of one micro-batch.

Each part is its own compiled graph in GRAPH_MODE (accumulate; apply and
clear), chosen per call by the cell, so no graph holds a data-dependent branch
around the optimizer's side effects.
"""
from __future__ import annotations

import numpy as np

from ..autodiff.grad import value_and_grad
from ..common.parameter import Parameter, ParameterTuple
from ..common.tensor import Tensor
from .. import ops
from .cell import Cell

__all__ = ["GradAccumulationCell"]


class _Accumulate(Cell):
    def __init__(self, grad_fn, accumulators):
        super().__init__(auto_prefix=False)
        self.grad_fn = grad_fn
        self.accumulators = accumulators

    def construct(self, *inputs):
        loss, grads = self.grad_fn(*inputs)
        for acc, g in zip(self.accumulators, grads):
            ops.assign(acc, acc + g)
        return loss


class _Apply(Cell):
    def __init__(self, optimizer, accumulators, steps):
        super().__init__(auto_prefix=False)
        self.optimizer = optimizer
        self.accumulators = accumulators
        self.scale = 1.0 / steps

    def construct(self):
        grads = tuple(acc * self.scale for acc in self.accumulators)
        self.optimizer(grads)
        for acc in self.accumulators:
            ops.assign(acc, ops.zeros_like(acc))
        return grads[0]


class GradAccumulationCell(Cell):
    """network: a cell returning the loss (e.g. WithLossCell); optimizer: its
    optimizer; steps: micro-batches per update. Returns the micro-batch loss;
    `.applied` says whether this call updated the weights."""

    def __init__(self, network, optimizer, steps):
        super().__init__(auto_prefix=False)
        if not isinstance(steps, int) or isinstance(steps, bool) or steps < 1:
            raise ValueError(f"steps must be a positive int, got {steps!r}")
        self.network = network
        self.network.set_grad()
        self.optimizer = optimizer
        self.steps = steps
        weights = optimizer.parameters
        self.accumulators = ParameterTuple([Parameter(Tensor(np.zeros(tuple(w.shape), np.asarray(w.asnumpy()).dtype)),
                                       name=f"accumulated.{w.name}", requires_grad=False)
                                             for w in weights])
        grad_fn = value_and_grad(network, None, weights)
        self._accumulate = _Accumulate(grad_fn, self.accumulators)
        self._apply = _Apply(optimizer, self.accumulators, steps)
        self._count = 0
        self.applied = False

    def __call__(self, *inputs):
        loss = self._accumulate(*inputs)
        self._count += 1
        self.applied = self._count == self.steps
        if self.applied:
            self._apply()
            self._count = 0
        return loss
