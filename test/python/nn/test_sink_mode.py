"""Loops that update parameters, compiled whole: a `while` over a tensor
counter whose body runs a gradient and an optimizer step (scf.while with the
parameters carried by mindir-hoist-assigns), and Model.train's
dataset_sink_mode built on it: the same parameters as step-by-step training,
bit for bit, including a last batch of another shape."""
import numpy as np
import pytest

import msmlir as ms
from msmlir import Tensor, nn, ops
from msmlir import dataset as ds
from msmlir.train import Model

from support.models import dense_classifier


@pytest.fixture
def graph_mode():
    previous = ms.get_context("mode")
    ms.set_context(mode=ms.GRAPH_MODE)
    yield
    ms.set_context(mode=previous)


@pytest.mark.parametrize("sink_size", [-1, 2])
def test_sink_mode_equals_step_by_step(graph_mode, sink_size):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((22, 6)).astype(np.float32)   # 5 batches of 4, then one of 2
    y = rng.integers(0, 3, 22).astype(np.int32)
    params = []
    for sink in (False, True):
        net = dense_classifier((6, 8, 3))
        loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        model = Model(net, loss, nn.Momentum(net.trainable_params(), 0.1, 0.9))
        data = ds.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(4)
        model.train(2, data, dataset_sink_mode=sink, sink_size=sink_size, progress=False)
        params.append([p.asnumpy() for p in net.trainable_params()])
    for a, b in zip(*params):
        np.testing.assert_array_equal(a, b)


def test_while_loop_with_optimizer_is_one_compiled_loop(graph_mode):
    net, ref = dense_classifier((6, 8, 3)), dense_classifier((6, 8, 3))
    loss_fn = nn.MSELoss()
    opt = nn.SGD(net.trainable_params(), 0.1)
    grad_fn = ms.value_and_grad(nn.WithLossCell(net, loss_fn), None, opt.parameters)

    @ms.jit
    def train_loop(xs, ys):
        i = ops.zeros((), ms.int32)
        total = ops.zeros((), ms.float32)
        while i < xs.shape[0]:
            loss, grads = grad_fn(xs[i], ys[i])
            opt(grads)
            total = total + loss
            i = i + 1
        return total

    rng = np.random.default_rng(2)
    xs = rng.standard_normal((3, 5, 6)).astype(np.float32)
    ys = rng.standard_normal((3, 5, 3)).astype(np.float32)
    assert "scf.while" in train_loop.mlir(Tensor(xs), Tensor(ys))
    total = float(train_loop(Tensor(xs), Tensor(ys)).asnumpy())
    step = nn.TrainOneStepCell(nn.WithLossCell(ref, loss_fn), nn.SGD(ref.trainable_params(), 0.1))
    want = sum(float(step(Tensor(xs[k]), Tensor(ys[k])).asnumpy()) for k in range(3))
    assert total == pytest.approx(want, rel=1e-6)
    for a, b in zip(net.trainable_params(), ref.trainable_params()):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-6, atol=1e-7)
