"""A network written in MindSpore's Primitive style (model-zoo code: P.Conv2D,
P.MaxPool, P.Reshape, P.MatMul, P.BiasAdd, P.SoftmaxCrossEntropyWithLogits, ...)
trained with TrainOneStepCell: gradients through the primitives match finite
differences, and graph mode equals PyNative."""
import numpy as np
import msmlir as ms
from msmlir import nn, ops
from msmlir.ops import operations as P
from msmlir.ops import functional as F


class PrimNet(nn.Cell):
    def __init__(self):
        super().__init__()
        rs = np.random.RandomState(0)
        self.w_conv = ms.Parameter(ms.Tensor((rs.randn(4, 1, 3, 3) * 0.3).astype(np.float32)),
                                   name="w_conv")
        self.w_fc = ms.Parameter(ms.Tensor((rs.randn(3, 16) * 0.3).astype(np.float32)),
                                 name="w_fc")
        self.b_fc = ms.Parameter(ms.Tensor(np.zeros(3, np.float32)), name="b_fc")
        self.conv = P.Conv2D(out_channel=4, kernel_size=3, pad_mode="pad", pad=1)
        self.relu = P.ReLU()
        self.pool = P.MaxPool(kernel_size=2, strides=2)
        self.reshape = P.Reshape()
        self.shape = P.Shape()
        self.matmul = P.MatMul(transpose_b=True)
        self.bias_add = P.BiasAdd()
        self.sce = P.SoftmaxCrossEntropyWithLogits()
        self.mean = P.ReduceMean()
        self.cast = P.Cast()

    def construct(self, x, labels):
        h = self.pool(self.relu(self.conv(x, self.w_conv)))
        h = self.reshape(h, (self.shape(h)[0], -1))
        logits = self.bias_add(self.matmul(h, self.w_fc), self.b_fc)
        loss, _ = self.sce(logits, self.cast(labels, ms.float32))
        return self.mean(loss)


def _data():
    rs = np.random.RandomState(1)
    x = rs.randn(5, 1, 4, 4).astype(np.float32)
    y = np.eye(3, dtype=np.float32)[rs.randint(0, 3, 5)]
    return ms.Tensor(x), ms.Tensor(y)


def test_gradients_through_primitives_match_finite_differences():
    net = PrimNet()
    x, y = _data()
    grads = ops.GradOperation(get_by_list=True)(net, net.trainable_params())(x, y)
    w = net.w_fc
    base = w.asnumpy().copy()
    eps = 1e-3
    for idx in [(0, 0), (1, 5), (2, 15)]:
        plus, minus = base.copy(), base.copy()
        plus[idx] += eps
        minus[idx] -= eps
        w.set_data(ms.Tensor(plus))
        lp = float(net(x, y).asnumpy())
        w.set_data(ms.Tensor(minus))
        lm = float(net(x, y).asnumpy())
        w.set_data(ms.Tensor(base))
        fd = (lp - lm) / (2 * eps)
        np.testing.assert_allclose(grads[1].asnumpy()[idx], fd, rtol=2e-2, atol=2e-4)


def _train(mode):
    ms.set_context(mode=mode)
    try:
        net = PrimNet()
        step = nn.TrainOneStepCell(net, nn.Momentum(net.trainable_params(), 0.1, 0.9))
        step.set_train()
        x, y = _data()
        return [float(step(x, y).asnumpy()) for _ in range(8)]
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_train_step_in_both_modes():
    eager, graph = _train(ms.PYNATIVE_MODE), _train(ms.GRAPH_MODE)
    assert eager[-1] < eager[0] * 0.7, eager
    np.testing.assert_allclose(graph, eager, rtol=1e-4)
    assert F.tensor_add is ops.add
