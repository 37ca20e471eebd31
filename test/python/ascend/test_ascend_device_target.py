"""set_context(device_target="Ascend"): jitted graphs (whole train steps) run
their kernels as Ascend C on msmlir's emulation, parameters written back as on
the CPU, and give the CPU's losses over 5 steps (MLP and LeNet5); switching the
target recompiles; the emulation says so once."""
import warnings

import numpy as np
import pytest

import msmlir as ms
from msmlir import Tensor, nn
from msmlir.ascend import AscendCompiled

from support.examples import load_example
from support.models import dense_classifier


@pytest.fixture
def graph_mode():
    previous = ms.get_context("mode"), ms.get_context("device_target")
    ms.set_context(mode=ms.GRAPH_MODE)
    yield
    ms.set_context(mode=previous[0], device_target=previous[1])


def _losses(make_net, x, y, target, steps=5):
    ms.set_context(device_target=target)
    net = make_net()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.SGD(net.trainable_params(), 0.05))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = [float(step(Tensor(x), Tensor(y)).asnumpy()) for _ in range(steps)]
    return out, [p.asnumpy() for p in net.trainable_params()], step


def test_mlp_train_step_on_ascend_equals_cpu(graph_mode):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((8, 20)).astype(np.float32)
    y = rng.integers(0, 10, 8).astype(np.int32)
    make = lambda: dense_classifier((20, 16, 10))   # noqa: E731
    cpu, cpu_params, _ = _losses(make, x, y, "CPU")
    asc, asc_params, _ = _losses(make, x, y, "Ascend")
    np.testing.assert_allclose(asc, cpu, rtol=1e-5, atol=1e-6)
    for a, b in zip(asc_params, cpu_params):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert cpu[-1] < cpu[0]


@pytest.mark.slow
def test_lenet5_train_step_on_ascend_equals_cpu(graph_mode):
    lenet = load_example("lenet5")
    rng = np.random.default_rng(2)
    x = rng.standard_normal((16, 1, 32, 32)).astype(np.float32)
    y = rng.integers(0, 10, 16).astype(np.int32)

    def make():
        ms.set_seed(1)
        return lenet.LeNet5()
    cpu, _, _ = _losses(make, x, y, "CPU")
    asc, _, _ = _losses(make, x, y, "Ascend")
    np.testing.assert_allclose(asc, cpu, rtol=1e-5, atol=1e-6)


def test_compile_graph_has_the_runtime_interface():
    from msmlir.ascend import compile_graph
    text = """
func.func @f(%x: tensor<4x32xf32>) -> tensor<4x32xf32> {
  %y = mindir.exp %x : tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}"""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cm = compile_graph(text)
        assert isinstance(cm, AscendCompiled)
        x = np.linspace(-2, 2, 128, dtype=np.float32).reshape(4, 32)
        np.testing.assert_allclose(cm.call("f", x)[0], np.exp(x), rtol=1e-6)
        with pytest.raises(TypeError, match="argument 0 of f: expected float32"):
            cm.call("f", x.astype(np.float64))
