"""Adasum (the seed's 自适应梯度求和): combine the ranks' gradients by their
direction instead of summing them.

For two gradients (per parameter tensor, flattened):

    Adasum(g1, g2) = (1 - g1·g2 / (2‖g1‖²)) g1 + (1 - g1·g2 / (2‖g2‖²)) g2

parallel gradients are averaged, orthogonal ones added. N ranks combine
pairwise in the recursive-halving tree: ranks (0,1), (2,3), ... then the pairs'
results, and so on (an odd one out passes up unchanged). A zero gradient
contributes nothing (its coefficient is taken as 0 instead of 0/0).

Here every rank all-gathers the ranks' gradients (one collective per
parameter, compiled into the step) and evaluates the same tree locally, so
all ranks apply the same update; the traffic is that of an all-gather
(N·|g| per rank), not the |g|·log N of a point-to-point recursive halving.
"""
from __future__ import annotations

from .. import ops
from ..ops import comm
from ..runtime import mpi
from .cell import Cell

__all__ = ["AdaSumByGradWrapCell", "adasum_pair"]


def adasum_pair(a, b):
    """Adasum of two flat gradients (tensors of the same shape)."""
    dot = (a * b).sum()
    na, nb = (a * a).sum(), (b * b).sum()
    ca = 1.0 - ops.select(na > 0, dot / (2.0 * ops.select(na > 0, na, ops.ones_like(na))), ops.zeros_like(na))
    cb = 1.0 - ops.select(nb > 0, dot / (2.0 * ops.select(nb > 0, nb, ops.ones_like(nb))), ops.zeros_like(nb))
    return ca * a + cb * b


def _tree(rows):
    while len(rows) > 1:
        nxt = [adasum_pair(rows[i], rows[i + 1]) for i in range(0, len(rows) - 1, 2)]
        if len(rows) % 2:
            nxt.append(rows[-1])
        rows = nxt
    return rows[0]


class AdaSumByGradWrapCell(Cell):
    """optimizer(Adasum of the ranks' gradients) (MindSpore's name): wrap the
    optimizer of a data-parallel step; call it with the local gradients."""

    def __init__(self, optimizer):
        super().__init__(auto_prefix=False)
        if not mpi.initialized():
            raise RuntimeError("AdaSumByGradWrapCell needs msmlir.communication.init() first")
        self.optimizer = optimizer
        self.parameters = optimizer.parameters
        self.size = mpi.size()

    def combine(self, grads):
        out = []
        for g in grads:
            flat = ops.reshape(g, (1, -1))
            rows = comm.all_gather(flat) if self.size > 1 else flat
            combined = _tree([rows[i] for i in range(self.size)])
            out.append(ops.reshape(combined, tuple(g.shape)))
        return tuple(out)

    def construct(self, grads):
        return self.optimizer(self.combine(grads))
