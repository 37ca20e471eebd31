"""Mixed precision (msmlir.amp, Cell.to_float, Model(amp_level=...)): float16
really is computed (compiled float16 kernels on the CPU), BatchNorm stays
float32 under O2, outputs come back float32, and O2 training works."""
import numpy as np
import pytest

import msmlir as ms
from msmlir import amp, nn, ops

RNG = np.random.default_rng(3)


@pytest.fixture(params=[ms.PYNATIVE_MODE, ms.GRAPH_MODE], ids=["pynative", "graph"])
def mode(request):
    ms.set_context(mode=request.param)
    yield request.param
    ms.set_context(mode=ms.PYNATIVE_MODE)


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)
        self.bn = nn.BatchNorm2d(4)
        self.fc = nn.Dense(4 * 6 * 6, 5)

    def construct(self, x):
        y = self.bn(self.conv(x))
        return self.fc(ops.reshape(y, (y.shape[0], -1)))


class Scale(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(ms.Tensor(np.full(3, 1.0 / 3.0, np.float32)), name="w")

    def construct(self, x):
        return x * self.w


def test_to_float_computes_in_float16(mode):
    cell = Scale().to_float(ms.float16)
    x = ms.Tensor(np.ones(3, np.float32))
    out = cell(x)
    assert out.dtype == ms.float16
    np.testing.assert_array_equal(out.asnumpy(), np.float16(1.0 / 3.0))
    assert cell.w.dtype == ms.float32          # the Parameter itself is unchanged
    cell.to_float(ms.float32)
    assert cell(x).dtype == ms.float32
    with pytest.raises(ValueError, match="to_float"):
        cell.to_float(ms.int32)


def test_o2_float16_network_float32_batchnorm(mode):
    x = ms.Tensor(RNG.standard_normal((2, 3, 6, 6)).astype(np.float32))
    net = Net()
    ref = net(x).asnumpy()
    out = amp.auto_mixed_precision(net, "O2")(x)
    assert out.dtype == ms.float32
    err = np.abs(out.asnumpy() - ref).max()
    assert 1e-5 < err < 5e-3 * np.abs(ref).max()      # float16 rounding, not float32's
    assert net.conv.__dict__["_amp_dtype"] == ms.float16
    assert net.bn.__dict__["_amp_dtype"] == ms.float32


def test_o2_batchnorm_alone_is_float32(mode):
    bn = nn.BatchNorm2d(3)
    bn.gamma.set_data(ms.Tensor(np.array([0.3, 1.7, 0.9], np.float32)))
    x = ms.Tensor((RNG.integers(-64, 64, (2, 3, 4, 4)) / 8).astype(np.float32))  # exact in fp16
    ref = bn(x).asnumpy()
    out = amp.auto_mixed_precision(bn, "O2")(x)
    np.testing.assert_allclose(out.asnumpy(), ref, rtol=1e-6, atol=1e-6)


def test_o1_and_o3():
    x = ms.Tensor(RNG.standard_normal((2, 3, 6, 6)).astype(np.float32))
    net = Net()
    ref = net(x).asnumpy()
    o1 = amp.auto_mixed_precision(net, "O1")
    assert isinstance(o1.conv, amp._OutputTo32) and isinstance(o1.fc, amp._OutputTo32)
    out = o1(x)
    assert out.dtype == ms.float32 and np.abs(out.asnumpy() - ref).max() > 1e-5
    np.testing.assert_allclose(out.asnumpy(), ref, atol=5e-3 * np.abs(ref).max())
    out3 = amp.auto_mixed_precision(Net(), "O3")(x)
    assert out3.dtype == ms.float32
    with pytest.raises(ValueError, match="amp_level"):
        amp.auto_mixed_precision(Net(), "O4")


def test_model_o2_trains():
    from msmlir.train import Model
    net = Net()
    model = Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                  nn.Momentum(net.trainable_params(), 0.05, 0.9), amp_level="O2")
    assert isinstance(model.train_network, nn.TrainOneStepWithLossScaleCell)
    x = RNG.standard_normal((8, 3, 6, 6)).astype(np.float32)
    y = RNG.integers(0, 5, 8).astype(np.int32)
    losses, overflow, scales = [], [], []
    for _ in range(16):
        loss, cond, scale = model.train_network(ms.Tensor(x), ms.Tensor(y))
        losses.append(float(loss.asnumpy()))
        overflow.append(bool(cond.asnumpy()))
        scales.append(float(scale.asnumpy()))
    # the dynamic scale starts at 2**24: float16 gradients overflow, steps are skipped
    # and the scale halves until they fit; then the loss falls
    assert overflow[0] and not overflow[-1] and scales[-1] < scales[0]
    assert all(np.isfinite(losses)) and losses[-1] < 0.5 * losses[0]
    assert net.fc.weight.dtype == ms.float32      # float32 master weights


def test_all_finite():
    assert bool(amp.all_finite([ms.Tensor(np.ones(3, np.float32))]).asnumpy())
    assert not bool(amp.all_finite([ms.Tensor(np.ones(3, np.float32)),
                                    ms.Tensor(np.array([np.inf], np.float32))]).asnumpy())
