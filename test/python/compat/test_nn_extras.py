"""The mindspore.nn cells of msmlir/nn/layer/extras.py against numpy, in PyNative
and graph mode."""
import math

import numpy as np
import pytest

import msmlir as ms
from msmlir import nn
from support.numpy_refs import adaptive_avg_pool2d

RS = np.random.RandomState(11)


def f32(*shape):
    return RS.randn(*shape).astype(np.float32)


X = f32(3, 4)
Y = f32(3, 4)
IMG = f32(1, 2, 4, 5)
PROB = (RS.rand(3, 4) * 0.8 + 0.1).astype(np.float32)
LAB = (RS.rand(3, 4) > 0.5).astype(np.float32)
_erf = np.vectorize(math.erf)


def _sm(x, axis=-1):
    e = np.exp(x - x.max(axis, keepdims=True))
    return e / e.sum(axis, keepdims=True)


def _cos(a, b):
    return (a * b).sum(-1) / np.sqrt((a * a).sum(-1) * (b * b).sum(-1))


# (cell factory, inputs, numpy reference)
CASES = [
    (lambda: nn.CELU(0.5), (X,), lambda x: np.maximum(x, 0) + np.minimum(0, 0.5 * np.expm1(x / 0.5))),
    (lambda: nn.FastGelu(), (X,), lambda x: x / (1 + np.exp(-1.702 * x))),
    (lambda: nn.HShrink(0.3), (X,), lambda x: np.where(np.abs(x) > 0.3, x, 0)),
    (lambda: nn.SoftShrink(0.3), (X,), lambda x: np.where(np.abs(x) > .3, x - .3 * np.sign(x), 0)),
    (lambda: nn.Mish(), (X,), lambda x: x * np.tanh(np.log1p(np.exp(x)))),
    (lambda: nn.SeLU(), (X,), lambda x: 1.05070098 * np.where(x > 0, x, 1.67326324 * np.expm1(x))),
    (lambda: nn.Softsign(), (X,), lambda x: x / (1 + np.abs(x))),
    (lambda: nn.LogSigmoid(), (X,), lambda x: -np.log1p(np.exp(-x))),
    (lambda: nn.Softmin(0), (X,), lambda x: _sm(-x, 0)),
    (lambda: nn.Tanhshrink(), (X,), lambda x: x - np.tanh(x)),
    (lambda: nn.Threshold(0.1, 20.0), (X,), lambda x: np.where(x > 0.1, x, 20)),
    (lambda: nn.ZeroPad2d((1, 0, 2, 1)), (IMG,),
     lambda x: np.pad(x, ((0, 0), (0, 0), (2, 1), (1, 0)))),
    (lambda: nn.ConstantPad1d(2, 0.5), (X,), lambda x: np.pad(x, ((0, 0), (2, 2)), constant_values=.5)),
    (lambda: nn.ConstantPad2d((1, 2, 0, 1), -1.0), (X,),
     lambda x: np.pad(x, ((0, 1), (1, 2)), constant_values=-1)),
    (lambda: nn.ConstantPad3d(1, 0.0), (IMG,), lambda x: np.pad(x, ((0, 0), (1, 1), (1, 1), (1, 1)))),
    (lambda: nn.ReflectionPad1d((2, 1)), (X,), lambda x: np.pad(x, ((0, 0), (2, 1)), mode="reflect")),
    (lambda: nn.ReflectionPad2d((1, 1, 2, 0)), (IMG,),
     lambda x: np.pad(x, ((0, 0), (0, 0), (2, 0), (1, 1)), mode="reflect")),
    (lambda: nn.AdaptiveAvgPool2d((3, 2)), (IMG,), lambda x: adaptive_avg_pool2d(x, 3, 2)),
    (lambda: nn.AdaptiveAvgPool1d(2), (X,), lambda x: adaptive_avg_pool2d(x[:, None], 1, 2)[:, 0]),
    (lambda: nn.Tril(), (X,), np.tril), (lambda: nn.Triu(), (X,), np.triu),
    (lambda: nn.Roll(2, 1), (X,), lambda x: np.roll(x, 2, 1)),
    (lambda: nn.OneHot(depth=4), (np.array([0, 3, 1], np.int32),), lambda i: np.eye(4)[i]),
    (lambda: nn.Norm(1), (X,), lambda x: np.sqrt((x ** 2).sum(1))),
    (lambda: nn.ClipByNorm(), (X, np.float32(0.5)),
     lambda x, c: x * c / max(np.sqrt((x ** 2).sum()), c)),
    (lambda: nn.Moments(1, True), (X,), lambda x: (x.mean(1, keepdims=True), x.var(1, keepdims=True))),
    (lambda: nn.MatrixDiag(), (f32(2, 3),), lambda x: np.stack([np.diag(v) for v in x])),
    (lambda: nn.MatrixDiagPart(), (f32(2, 3, 3),), lambda x: np.stack([np.diag(m) for m in x])),
    (lambda: nn.BCELoss(), (PROB, LAB), lambda p, y: np.mean(-(y * np.log(p) + (1 - y) * np.log(1 - p)))),
    (lambda: nn.HuberLoss(delta=0.5), (X, Y),
     lambda a, b: np.mean(np.where(np.abs(a - b) < .5, .5 * (a - b) ** 2, .5 * (np.abs(a - b) - .25)))),
    (lambda: nn.SmoothL1Loss(), (X, Y),
     lambda a, b: np.where(np.abs(a - b) < 1, .5 * (a - b) ** 2, np.abs(a - b) - .5)),
    (lambda: nn.SoftMarginLoss(), (X, np.sign(Y)), lambda a, y: np.mean(np.log1p(np.exp(-a * y)))),
    (lambda: nn.RMSELoss(), (X, Y), lambda a, b: np.sqrt(np.mean((a - b) ** 2))),
    (lambda: nn.CosineEmbeddingLoss(0.1), (X, Y, np.float32([1, -1, 1])),
     lambda a, b, y: np.mean(np.where(y > 0, 1 - _cos(a, b), np.maximum(_cos(a, b) - .1, 0)))),
    (lambda: nn.DiceLoss(), (PROB, LAB),
     lambda p, y: 1 - (2 * (p * y).sum() + 1e-5) / ((p * p).sum() + (y * y).sum() + 1e-5)),
]


def _cmp(got, ref):
    if isinstance(ref, tuple):
        for g, r in zip(got, ref):
            _cmp(g, r)
        return
    np.testing.assert_allclose(got.asnumpy(), np.asarray(ref), rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
@pytest.mark.parametrize("case", CASES, ids=[f"{i}" for i in range(len(CASES))])
def test_cell(case, mode):
    make, inputs, ref = case
    ms.set_context(mode=mode)
    try:
        out = make()(*[ms.Tensor(a) for a in inputs])
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    _cmp(out, ref(*inputs))


def test_range_cell_and_argument_errors():
    np.testing.assert_array_equal(nn.Range(2, 9, 3)().asnumpy(), [2, 5, 8])
    np.testing.assert_array_equal(nn.Range(4)().asnumpy(), [0, 1, 2, 3])
    with pytest.raises(ValueError, match="padding"):
        nn.ConstantPad2d((1, 2, 3), 0.0)
    with pytest.raises(ValueError):
        nn.CELU(0.0)
    with pytest.raises(ValueError):
        nn.HuberLoss(delta=0)
    with pytest.raises(ValueError):
        nn.SoftShrink(-1)


X5 = f32(2, 3, 9)
IMG4 = f32(2, 3, 4, 5)
CASES2 = [
    (lambda: nn.MaxPool1d(3, 2), (X5,), lambda x: np.stack([x[..., i:i + 3].max(-1)
                                                           for i in range(0, 7, 2)], -1)),
    (lambda: nn.AvgPool1d(2, 2, ceil_mode=True), (X5,),
     lambda x: np.stack([x[..., i:i + 2].mean(-1) for i in range(0, 9, 2)], -1)),
    (lambda: nn.InstanceNorm2d(3), (IMG4,),
     lambda x: (x - x.mean((2, 3), keepdims=True)) / np.sqrt(x.var((2, 3), keepdims=True) + 1e-5)),
    (lambda: nn.InstanceNorm1d(3, eps=1e-3), (X5,),
     lambda x: (x - x.mean(2, keepdims=True)) / np.sqrt(x.var(2, keepdims=True) + 1e-3)),
    (lambda: nn.CentralCrop(0.5), (f32(3, 8, 6),), lambda x: x[:, 2:6, 1:4]),
    (lambda: nn.ImageGradients(), (IMG4,),
     lambda x: (np.concatenate([np.diff(x, axis=2), np.zeros((2, 3, 1, 5))], 2),
                np.concatenate([np.diff(x, axis=3), np.zeros((2, 3, 4, 1))], 3))),
    (lambda: nn.L1Regularizer(0.5), (X5,), lambda x: 0.5 * np.abs(x).sum()),
]


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
@pytest.mark.parametrize("case", CASES2, ids=[f"b{i}" for i in range(len(CASES2))])
def test_cell_batch2(case, mode):
    test_cell(case, mode)


def test_dropout2d_batchnorm3d_and_gradient_wrappers():
    x = ms.Tensor(np.ones((4, 40, 2, 2), np.float32))
    d = nn.Dropout2d(0.5)
    d.set_train()
    out = d(x).asnumpy().reshape(4, 40, 4)
    assert np.all((out == 0).all(-1) | (out == 2).all(-1))
    d.set_train(False)
    np.testing.assert_array_equal(d(x).asnumpy(), x.asnumpy())
    bn = nn.BatchNorm3d(3).set_train()
    v = f32(2, 3, 2, 2, 2)
    y = bn(ms.Tensor(v)).asnumpy()
    m, s = v.mean((0, 2, 3, 4), keepdims=True), v.var((0, 2, 3, 4), keepdims=True)
    np.testing.assert_allclose(y, (v - m) / np.sqrt(s + 1e-5), rtol=1e-4, atol=1e-5)
    net = nn.Dense(3, 2)
    xs, ys = f32(4, 3), f32(4, 2)
    grads = nn.WithGradCell(net, nn.MSELoss())(ms.Tensor(xs), ms.Tensor(ys))
    w, b = net.weight.asnumpy(), net.bias.asnumpy()
    r = xs @ w.T + b - ys
    np.testing.assert_allclose(grads[0].asnumpy(), 2 * r.T @ xs / r.size, rtol=1e-4, atol=1e-6)
    out, g = nn.ForwardValueAndGrad(net, get_all=True)(ms.Tensor(xs))
    np.testing.assert_allclose(out.asnumpy(), xs @ w.T + b, rtol=1e-5)
    np.testing.assert_allclose(g[0].asnumpy(), np.ones((4, 2)) @ w, rtol=1e-5)
    with pytest.raises(TypeError, match="weights"):
        nn.ForwardValueAndGrad(net, get_by_list=True)


def _opt_steps(opt_cls, **kw):
    rs = np.random.RandomState(4)
    w0 = rs.randn(3).astype(np.float32)
    p = ms.Parameter(ms.Tensor(w0.copy()), name="w")
    opt = opt_cls([p], **kw)
    gs = [rs.randn(3).astype(np.float32) for _ in range(3)]
    for g in gs:
        opt((ms.Tensor(g),))
    return w0, gs, p.asnumpy()


def test_adagrad_and_rmsprop_against_numpy():
    w, gs, got = _opt_steps(nn.Adagrad, accum=0.1, learning_rate=0.05)
    acc = np.full(3, 0.1)
    for g in gs:
        acc = acc + g * g
        w = w - 0.05 * g / np.sqrt(acc)
    np.testing.assert_allclose(got, w, rtol=1e-5)
    for centered in (False, True):
        w, gs, got = _opt_steps(nn.RMSProp, learning_rate=0.01, decay=0.9, momentum=0.5,
                                epsilon=1e-6, centered=centered)
        ms_, mom, mg = np.ones(3), np.zeros(3), np.zeros(3)
        for g in gs:
            ms_ = 0.9 * ms_ + 0.1 * g * g
            if centered:
                mg = 0.9 * mg + 0.1 * g
                denom = np.sqrt(ms_ - mg * mg + 1e-6)
            else:
                denom = np.sqrt(ms_ + 1e-6)
            mom = 0.5 * mom + 0.01 * g / denom
            w = w - mom
        np.testing.assert_allclose(got, w, rtol=1e-5)
