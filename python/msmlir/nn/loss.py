"""Loss cells (mindspore.nn): MSELoss, L1Loss, CrossEntropyLoss,
SoftmaxCrossEntropyWithLogits, BCEWithLogitsLoss, NLLLoss."""
from __future__ import annotations

from .. import ops
from .cell import Cell

__all__ = ["LossBase", "MSELoss", "L1Loss", "CrossEntropyLoss", "SoftmaxCrossEntropyWithLogits",
           "BCEWithLogitsLoss", "NLLLoss"]


def _check_reduction(reduction):
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"reduction must be 'mean', 'sum' or 'none', got {reduction!r}")
    return reduction


class LossBase(Cell):
    def __init__(self, reduction="mean"):
        super().__init__()
        self.reduction = _check_reduction(reduction)

    def get_loss(self, x, weights=1.0):
        if not isinstance(weights, float) or weights != 1.0:
            x = x * weights
        if self.reduction == "mean":
            return ops.reduce_mean(x)
        if self.reduction == "sum":
            return ops.reduce_sum(x)
        return x


class MSELoss(LossBase):
    def construct(self, logits, labels):
        d = logits - labels
        return self.get_loss(d * d)


class L1Loss(LossBase):
    def construct(self, logits, labels):
        return self.get_loss(ops.abs(logits - labels))


class CrossEntropyLoss(LossBase):
    """CrossEntropyLoss(weight=None, ignore_index=-100, reduction='mean',
    label_smoothing=0.0): integer class labels or class probabilities."""

    def __init__(self, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
        super().__init__(reduction)
        self.weight = weight
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def construct(self, logits, labels):
        return ops.cross_entropy(logits, labels, self.weight, self.ignore_index, self.reduction,
                                 self.label_smoothing)


class SoftmaxCrossEntropyWithLogits(LossBase):
    """SoftmaxCrossEntropyWithLogits(sparse=False, reduction='none')."""

    def __init__(self, sparse=False, reduction="none"):
        super().__init__(reduction)
        self.sparse = sparse

    def construct(self, logits, labels):
        # integer labels (sparse) or class probabilities: ops.cross_entropy handles both
        return ops.cross_entropy(logits, labels, reduction=self.reduction)


class BCEWithLogitsLoss(LossBase):
    """BCEWithLogitsLoss(reduction='mean', weight=None, pos_weight=None):
    l = -w [p y log s(x) + (1 - y) log(1 - s(x))]."""

    def __init__(self, reduction="mean", weight=None, pos_weight=None):
        super().__init__(reduction)
        self.weight = weight
        self.pos_weight = pos_weight

    def construct(self, logits, labels):
        # log s(x) = -softplus(-x), log(1 - s(x)) = -softplus(x); softplus stable form
        neg_abs = ops.neg(ops.abs(logits))
        log1p = ops.log(ops.exp(neg_abs) + 1.0)
        sp_pos = ops.relu(logits) + log1p            # softplus(x)
        sp_neg = ops.relu(ops.neg(logits)) + log1p   # softplus(-x)
        if self.pos_weight is not None:
            loss = self.pos_weight * labels * sp_neg + (1.0 - labels) * sp_pos
        else:
            loss = labels * sp_neg + (1.0 - labels) * sp_pos
        if self.weight is not None:
            loss = loss * self.weight
        return self.get_loss(loss)


class NLLLoss(LossBase):
    """NLLLoss(weight=None, ignore_index=-100, reduction='mean') on log-probabilities."""

    def __init__(self, weight=None, ignore_index=-100, reduction="mean"):
        super().__init__(reduction)
        self.weight = weight
        self.ignore_index = ignore_index

    def construct(self, logits, labels):
        return ops.nll_loss(logits, labels, self.weight, self.ignore_index, self.reduction)
