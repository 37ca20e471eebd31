"""Short LeNet5 training in GRAPH_MODE: the loss decreases."""
import numpy as np
import pytest
from support.examples import load_example

import msmlir as ms
from msmlir import nn


@pytest.mark.slow
def test_lenet_loss_decreases():
    LeNet5 = load_example("lenet5").LeNet5
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        ms.set_seed(0)  # parameter initialisers draw from msmlir's seeded stream
        rs = np.random.RandomState(0)
        x = rs.randn(16, 1, 32, 32).astype(np.float32)
        y = rs.randint(0, 10, 16).astype(np.int32)
        net = LeNet5()
        step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")),
                                   nn.Adam(net.trainable_params(), 1e-3))
        step.set_train()
        losses = [float(step(ms.Tensor(x), ms.Tensor(y)).asnumpy()) for _ in range(15)]
        # Adam on one fixed batch: the loss falls overall (single steps may wobble).
        assert losses[-1] < losses[0] - 0.15, losses
        assert np.mean(losses[-5:]) < np.mean(losses[:5]) - 0.1, losses
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
