"""mindspore.amp's 2.x names: StaticLossScaler / DynamicLossScaler (scale, unscale and
MindSpore's adjust rule, in PyNative and in a jitted training step),
custom_mixed_precision, get_white_list / get_black_list, and the loss-scale
managers re-exported from train."""
import numpy as np
import pytest

import msmlir as ms
from msmlir import amp, nn, ops


def _ref_adjust(scale, counter, finite, factor, window):
    """MindSpore's DynamicLossScaler.adjust, transcribed."""
    if finite:
        if counter == window - 1 and np.isfinite(scale * factor):
            scale = scale * factor
    else:
        scale = max(scale / factor, 1.0)
    counter = ((counter + 1) % window) * int(finite)
    return scale, counter


def test_dynamic_scaler_rule():
    s = amp.DynamicLossScaler(2.0 ** 10, 2, 3)
    scale, counter = 2.0 ** 10, 0
    for finite in [True, True, True, False, True, False, False, True, True, True]:
        assert s.adjust(ms.Tensor(finite)) is True
        scale, counter = _ref_adjust(scale, counter, finite, 2, 3)
        assert float(s.scale_value.asnumpy()) == scale and int(s.counter.asnumpy()) == counter
    low = amp.DynamicLossScaler(1, 2, 1)
    low.adjust(ms.Tensor(False))
    assert float(low.scale_value.asnumpy()) == 1.0                 # never below 1
    with pytest.raises(ValueError, match="scale_window"):
        amp.DynamicLossScaler(8, 2, 0)
    with pytest.raises(ValueError, match="must be >= 1"):
        amp.DynamicLossScaler(0.5, 2, 2)


def test_scale_unscale_and_static():
    s = amp.StaticLossScaler(1024)
    x = ms.Tensor(np.array([0.5, 1.0], np.float32))
    np.testing.assert_array_equal(s.scale(x).asnumpy(), [512.0, 1024.0])
    g = s.unscale((ms.Tensor(np.array([1024.0], np.float16)), x))
    assert g[0].dtype == ms.float16
    np.testing.assert_array_equal(g[0].asnumpy(), [1.0])
    np.testing.assert_array_equal(g[1].asnumpy(), [0.5 / 1024, 1.0 / 1024])
    assert s.adjust(ms.Tensor(True)) is False
    with pytest.raises(TypeError, match="scale_value"):
        amp.StaticLossScaler("8")


def test_jitted_step_with_dynamic_scaler():
    """The functional loop of MindSpore's AMP tutorial: scale the loss, unscale the
    grads, all_finite, adjust; the gradients equal the unscaled ones."""
    net = nn.Dense(3, 2)
    scaler = amp.DynamicLossScaler(2.0 ** 8, 2, 2)
    params = net.trainable_params()

    def loss_fn(x):
        return scaler.scale(ops.reduce_sum(net(x) ** 2))

    grad_fn = ms.value_and_grad(loss_fn, None, params)

    @ms.jit
    def step(x):
        loss, grads = grad_fn(x)
        loss, grads = scaler.unscale(loss), scaler.unscale(grads)
        finite = amp.all_finite(grads)
        scaler.adjust(finite)
        return loss, grads

    x = ms.Tensor(np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32))
    w, b = params[0].asnumpy(), params[1].asnumpy()
    y = x.asnumpy() @ w.T + b
    for k in range(3):
        loss, grads = step(x)
        np.testing.assert_allclose(loss.asnumpy(), (y ** 2).sum(), rtol=1e-5)
        np.testing.assert_allclose(grads[0].asnumpy(), 2 * y.T @ x.asnumpy(), rtol=1e-5)
    assert float(scaler.scale_value.asnumpy()) == 2.0 ** 9        # grown once after 2 steps
    assert int(scaler.counter.asnumpy()) == 1


def test_custom_mixed_precision_and_lists():
    assert nn.Dense in amp.get_white_list() and nn.BatchNorm2d in amp.get_black_list()
    amp.get_white_list().append(nn.ReLU)                      # a copy each call
    assert nn.ReLU not in amp.get_white_list()
    net = nn.SequentialCell([nn.Dense(4, 4), nn.ReLU(), nn.Dense(4, 2)])
    x = ms.Tensor(np.random.default_rng(1).standard_normal((2, 4)).astype(np.float32))
    want = net(x).asnumpy()
    out = amp.custom_mixed_precision(net, white_list=[nn.Dense])(x)
    assert out.dtype == ms.float32
    np.testing.assert_allclose(out.asnumpy(), want, rtol=2e-2, atol=2e-2)   # float16 Dense
    assert not np.array_equal(out.asnumpy(), want)
    net2 = nn.SequentialCell([nn.Dense(4, 4), nn.Dense(4, 2)])
    out2 = amp.custom_mixed_precision(net2, black_list=[nn.Dense])(x)
    np.testing.assert_array_equal(out2.asnumpy(), net2(x).asnumpy())     # all blacklisted
    with pytest.raises(ValueError, match="exactly one"):
        amp.custom_mixed_precision(net2)
    with pytest.raises(TypeError, match="Cell types"):
        amp.custom_mixed_precision(net2, white_list=["Dense"])
    assert amp.DynamicLossScaleManager is ms.train.DynamicLossScaleManager
    assert amp.FixedLossScaleManager is ms.train.FixedLossScaleManager


def test_o1_reaches_sequentialcell_members():
    """O1 wraps the white-list cells inside a SequentialCell too (it runs its own
    cell_list, which the wrapping must update, as MindSpore's O1 does)."""
    x = ms.Tensor(np.random.default_rng(2).standard_normal((2, 4)).astype(np.float32))
    net = nn.SequentialCell([nn.Dense(4, 4), nn.ReLU()])
    want = net(x).asnumpy()
    out = amp.auto_mixed_precision(net, "O1")(x)
    assert out.dtype == ms.float32
    np.testing.assert_allclose(out.asnumpy(), want, rtol=2e-2, atol=2e-2)
    assert not np.array_equal(out.asnumpy(), want)          # the Dense ran in float16
