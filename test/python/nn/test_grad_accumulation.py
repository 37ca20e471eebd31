"""nn.GradAccumulationCell: N micro-batches accumulated, then one update, equal
to one step on the whole batch (with Momentum, whose state must not move
between updates), in both modes; bad `steps` is refused."""
import numpy as np
import pytest

import msmlir as ms
from msmlir import Tensor, nn
from msmlir.nn.accumulation import GradAccumulationCell

from support.models import dense_classifier


@pytest.mark.parametrize("mode", ["GRAPH_MODE", "PYNATIVE_MODE"])
def test_accumulated_micro_batches_equal_the_whole_batch(mode):
    previous = ms.get_context("mode")
    ms.set_context(mode=getattr(ms, mode))
    try:
        rng = np.random.default_rng(1)
        x = rng.standard_normal((16, 20)).astype(np.float32)
        y = rng.integers(0, 5, 16).astype(np.int32)
        loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        a, b = dense_classifier((20, 32, 5)), dense_classifier((20, 32, 5))
        acc = GradAccumulationCell(nn.WithLossCell(a, loss_fn),
                                   nn.Momentum(a.trainable_params(), 0.1, 0.9), 4)
        big = nn.TrainOneStepCell(nn.WithLossCell(b, loss_fn),
                                  nn.Momentum(b.trainable_params(), 0.1, 0.9))
        before = [p.asnumpy().copy() for p in a.trainable_params()]
        for step in range(3):
            for i in range(4):
                acc(Tensor(x[4 * i:4 * i + 4]), Tensor(y[4 * i:4 * i + 4]))
                assert acc.applied == (i == 3)
                if step == 0 and i < 3:   # no update before the last micro-batch
                    for p, q in zip(a.trainable_params(), before):
                        np.testing.assert_array_equal(p.asnumpy(), q)
            big(Tensor(x), Tensor(y))
            for p, q in zip(a.trainable_params(), b.trainable_params()):
                np.testing.assert_allclose(p.asnumpy(), q.asnumpy(), rtol=1e-5, atol=1e-6)
    finally:
        ms.set_context(mode=previous)


@pytest.mark.parametrize("steps", [0, -1, 2.5, True])
def test_steps_must_be_a_positive_int(steps):
    net = dense_classifier((20, 32, 5))
    with pytest.raises(ValueError, match="steps must be a positive int"):
        GradAccumulationCell(net, nn.SGD(net.trainable_params(), 0.1), steps)
