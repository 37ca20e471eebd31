"""msmlir.nn: Cell, layers, losses, optimizers, wrappers vs numpy references."""
import warnings

import numpy as np
import pytest

import msmlir as ms
from msmlir import Parameter, Tensor, nn, ops
from msmlir.common.initializer import initializer

RS = np.random.RandomState(0)


@pytest.fixture(params=[ms.PYNATIVE_MODE, ms.GRAPH_MODE], ids=["pynative", "graph"])
def mode(request):
    old = ms.get_context("mode")
    ms.set_context(mode=request.param)
    yield request.param
    ms.set_context(mode=old)


def T(a):
    return Tensor(np.asarray(a))


def f32(*shape):
    return RS.randn(*shape).astype(np.float32)


# ---- seed examples (unchanged except the import) --------------------------------------------

class Linear(nn.Cell):
    def __init__(self, in_features, out_features, has_bias):
        super().__init__()
        self.weight = Parameter(initializer('normal', [out_features, in_features], ms.float32), 'weight')
        self.bias = Parameter(initializer('zeros', [out_features], ms.float32), 'bias')

    def construct(self, inputs):
        output = ops.matmul(inputs, self.weight.transpose(0, 1))
        output = output + self.bias
        return output


def test_seed_linear(mode):
    # Tensor.transpose(0, 1) swaps the two axes, as measured on MindSpore 2.10 (PyNative),
    # in both modes: a non-square weight [out, in] runs
    net = Linear(4, 3, True)
    x = f32(2, 4)
    out = net(T(x))
    assert isinstance(out, Tensor)
    np.testing.assert_allclose(out.asnumpy(), x @ net.weight.asnumpy().T, rtol=1e-5, atol=1e-6)
    assert [n for n, _ in net.parameters_and_names()] == ["weight", "bias"]


class SeedTrainOneStepCell(nn.Cell):
    def __init__(self, network, optimizer):
        super().__init__()
        self.network = network
        self.optimizer = optimizer
        self.grad_fn = ms.value_and_grad(self.network, None, self.optimizer.parameters)

    def construct(self, *inputs):
        loss, grads = self.grad_fn(*inputs)
        self.optimizer(grads)
        return loss


def _bce_np(z, y):
    return np.mean(np.maximum(z, 0) - z * y + np.log1p(np.exp(-np.abs(z))))


def test_seed_train_one_step(mode):
    network = nn.Dense(5, 3)
    loss_fn = nn.BCEWithLogitsLoss()
    network_with_loss = nn.WithLossCell(network, loss_fn)
    optimizer = nn.SGD(network.trainable_params(), 0.001)
    trainer = SeedTrainOneStepCell(network_with_loss, optimizer)
    x, y = f32(8, 5), (RS.rand(8, 3) > 0.5).astype(np.float32)
    w, b = network.weight.asnumpy().copy(), network.bias.asnumpy().copy()
    loss = trainer(T(x), T(y))
    z = x @ w.T + b
    np.testing.assert_allclose(float(loss.asnumpy()), _bce_np(z, y), rtol=1e-5)
    s = 1 / (1 + np.exp(-z))
    dz = (s - y) / z.size
    np.testing.assert_allclose(network.weight.asnumpy(), w - 0.001 * dz.T @ x, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(network.bias.asnumpy(), b - 0.001 * dz.sum(0), rtol=1e-5, atol=1e-7)


class MLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(6, 8)
        self.relu = nn.ReLU()
        self.fc2 = nn.Dense(8, 3)

    def construct(self, inputs):
        return self.fc2(self.relu(self.fc1(inputs)))


def test_seed_functional_train_step(mode):
    ms.set_seed(0)  # the same initial parameters in both modes
    net = MLP()
    loss_fn = nn.CrossEntropyLoss()
    optimizer = nn.Adam(net.trainable_params(), 0.01)

    def forward_fn(inputs, targets):
        logits = net(inputs)
        loss = loss_fn(logits, targets)
        return loss, logits

    grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)

    def train_step(inputs, targets):
        (loss, logits), grads = grad_fn(inputs, targets)
        optimizer(grads)
        return loss, logits

    if mode == ms.GRAPH_MODE:
        train_step = ms.jit(train_step)
    x, y = f32(16, 6), RS.randint(0, 3, 16).astype(np.int32)
    losses = [float(train_step(T(x), T(y))[0].asnumpy()) for _ in range(15)]
    assert losses[-1] < losses[0] * 0.8


def test_names_and_registration():
    net = nn.SequentialCell([nn.Dense(3, 4), nn.ReLU(), nn.Dense(4, 2)])
    assert [n for n, _ in net.parameters_and_names()] == ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert [p.name for p in net.trainable_params()] == ["0.weight", "0.bias", "2.weight", "2.bias"]
    m = MLP()
    assert [p.name for p in m.trainable_params()] == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    assert [n for n, _ in m.cells_and_names()] == ["", "fc1", "relu", "fc2"]
    m.set_train()
    assert m.fc1.training and m.training
    m.set_train(False)
    assert not m.fc2.training
    bn = nn.BatchNorm2d(3)
    assert len(bn.trainable_params()) == 2 and len(list(bn.get_parameters())) == 4
    cl = nn.CellList([nn.Dense(2, 2), nn.Dense(2, 2)])
    assert len(cl) == 2 and len(list(cl.get_parameters())) == 4


# ---- layers vs numpy -----------------------------------------------------------------------

def _conv_np(x, w, stride=1, pad=0):
    x = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    ho, wo = (h - kh) // stride + 1, (wd - kw) // stride + 1
    out = np.zeros((n, o, ho, wo), np.float32)
    for i in range(ho):
        for j in range(wo):
            patch = x[:, :, i * stride:i * stride + kh, j * stride:j * stride + kw]
            out[:, :, i, j] = np.tensordot(patch, w, axes=([1, 2, 3], [1, 2, 3]))
    return out


def test_dense_conv_pool(mode):
    d = nn.Dense(5, 4, activation="relu")
    x = f32(3, 5)
    np.testing.assert_allclose(d(T(x)).asnumpy(), np.maximum(x @ d.weight.asnumpy().T + d.bias.asnumpy(), 0),
                               rtol=1e-5, atol=1e-6)
    c = nn.Conv2d(2, 3, 3)                    # pad_mode='same', no bias
    assert not c.has_bias and c.weight.shape == (3, 2, 3, 3)
    x = f32(2, 2, 6, 6)
    np.testing.assert_allclose(c(T(x)).asnumpy(), _conv_np(x, c.weight.asnumpy(), 1, 1), rtol=1e-4, atol=1e-5)
    cv = nn.Conv2d(2, 3, 3, stride=1, pad_mode="valid", has_bias=True)
    np.testing.assert_allclose(cv(T(x)).asnumpy(),
                               _conv_np(x, cv.weight.asnumpy()) + cv.bias.asnumpy()[None, :, None, None],
                               rtol=1e-4, atol=1e-5)
    mp, ap = nn.MaxPool2d(2, 2), nn.AvgPool2d(2, 2)
    r = x.reshape(2, 2, 3, 2, 3, 2)
    np.testing.assert_allclose(mp(T(x)).asnumpy(), r.max(axis=(3, 5)), rtol=1e-6)
    np.testing.assert_allclose(ap(T(x)).asnumpy(), r.mean(axis=(3, 5)), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(nn.Flatten()(T(x)).asnumpy(), x.reshape(2, -1))


def test_activations(mode):
    x = f32(4, 5)
    from math import erf  # noqa: F401
    cases = [(nn.ReLU(), np.maximum(x, 0)), (nn.Sigmoid(), 1 / (1 + np.exp(-x))), (nn.Tanh(), np.tanh(x)),
             (nn.Softmax(), np.exp(x) / np.exp(x).sum(-1, keepdims=True)),
             (nn.GELU(), 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3))))]
    for cell, ref in cases:
        np.testing.assert_allclose(cell(T(x)).asnumpy(), ref, rtol=1e-4, atol=1e-5, err_msg=type(cell).__name__)


def test_dropout_eval_and_train(mode):
    x = np.ones((64, 64), np.float32)
    d = nn.Dropout(p=0.5)
    np.testing.assert_array_equal(d(T(x)).asnumpy(), x)    # eval mode: identity
    d.set_train()
    y = d(T(x)).asnumpy()
    assert set(np.unique(y)) <= {0.0, 2.0} and 0.3 < (y == 0).mean() < 0.7


def test_batchnorm_layernorm_embedding(mode):
    bn = nn.BatchNorm2d(3)
    x = f32(4, 3, 2, 2) * 2 + 1
    np.testing.assert_allclose(bn(T(x)).asnumpy(), x / np.sqrt(1 + 1e-5), rtol=1e-5, atol=1e-6)   # eval
    bn.set_train()
    y = bn(T(x)).asnumpy()
    m, v = x.mean(axis=(0, 2, 3), keepdims=True), x.var(axis=(0, 2, 3), keepdims=True)
    np.testing.assert_allclose(y, (x - m) / np.sqrt(v + 1e-5), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(bn.moving_mean.asnumpy(), 0.1 * m.reshape(-1), rtol=1e-5, atol=1e-6)
    # the unbiased batch variance is folded in on every device_target (MindSpore 2.10's CPU
    # kernel measured, issue 12; GPU/Ascend too)
    uv = x.var(axis=(0, 2, 3), ddof=1)
    np.testing.assert_allclose(bn.moving_variance.asnumpy(), 0.9 + 0.1 * uv, rtol=1e-5)
    with warnings.catch_warnings():     # msmlir warns that 'Ascend' still runs on the CPU
        warnings.simplefilter("ignore")
        ms.set_context(device_target="Ascend")
    try:
        bn2 = nn.BatchNorm2d(3).set_train()
        bn2(T(x))
    finally:
        ms.set_context(device_target="CPU")
    np.testing.assert_allclose(bn2.moving_variance.asnumpy(), 0.9 + 0.1 * uv, rtol=1e-5)
    ln = nn.LayerNorm((5,))
    x = f32(3, 5)
    ref = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-7)
    np.testing.assert_allclose(ln(T(x)).asnumpy(), ref, rtol=1e-4, atol=1e-5)
    emb = nn.Embedding(10, 4)
    ids = np.array([[1, 3], [9, 0]], np.int32)
    np.testing.assert_allclose(emb(T(ids)).asnumpy(), emb.embedding_table.asnumpy()[ids])


# ---- losses ------------------------------------------------------------------------------------

def _log_softmax(z):
    z = z - z.max(-1, keepdims=True)
    return z - np.log(np.exp(z).sum(-1, keepdims=True))


def test_losses(mode):
    a, b = f32(4, 3), f32(4, 3)
    np.testing.assert_allclose(nn.MSELoss()(T(a), T(b)).asnumpy(), ((a - b) ** 2).mean(), rtol=1e-5)
    np.testing.assert_allclose(nn.L1Loss(reduction="sum")(T(a), T(b)).asnumpy(), np.abs(a - b).sum(), rtol=1e-5)
    y = np.array([0, 2, 1, 2], np.int32)
    ce = -_log_softmax(a)[np.arange(4), y]
    np.testing.assert_allclose(nn.CrossEntropyLoss()(T(a), T(y)).asnumpy(), ce.mean(), rtol=1e-5)
    np.testing.assert_allclose(nn.SoftmaxCrossEntropyWithLogits(sparse=True)(T(a), T(y)).asnumpy(), ce,
                               rtol=1e-5)
    np.testing.assert_allclose(nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")(T(a), T(y)).asnumpy(),
                               ce.mean(), rtol=1e-5)
    oh = np.eye(3, dtype=np.float32)[y]
    np.testing.assert_allclose(nn.SoftmaxCrossEntropyWithLogits()(T(a), T(oh)).asnumpy(), ce, rtol=1e-5)
    lbl = (b > 0).astype(np.float32)
    np.testing.assert_allclose(nn.BCEWithLogitsLoss()(T(a), T(lbl)).asnumpy(), _bce_np(a, lbl), rtol=1e-5)
    lp = _log_softmax(a)
    np.testing.assert_allclose(nn.NLLLoss()(T(lp), T(y)).asnumpy(), -lp[np.arange(4), y].mean(), rtol=1e-5)


def test_loss_gradient():
    a, y = f32(4, 3), np.array([0, 2, 1, 2], np.int32)
    g = ms.grad(lambda z, t: nn.CrossEntropyLoss()(z, t))(T(a), T(y))
    p = np.exp(_log_softmax(a))
    np.testing.assert_allclose(g.asnumpy(), (p - np.eye(3)[y]) / 4, rtol=1e-4, atol=1e-6)


# ---- optimizers: one update step vs numpy -----------------------------------------------------

def _run_opt(make, steps=2):
    w0, g0 = f32(3, 2), f32(3, 2)
    w = Parameter(Tensor(w0.copy()), name="w")
    opt = make([w])
    for _ in range(steps):
        opt((T(g0),))
    return w0, g0, w.asnumpy()


@pytest.mark.parametrize("nesterov", [False, True])
def test_sgd(mode, nesterov):
    w0, g, w = _run_opt(lambda p: nn.SGD(p, 0.1, momentum=0.9, weight_decay=0.01, nesterov=nesterov))
    ref, acc = w0.copy(), None
    for _ in range(2):
        gg = g + 0.01 * ref
        acc = gg if acc is None else 0.9 * acc + gg
        ref = ref - 0.1 * (gg + 0.9 * acc if nesterov else acc)
    np.testing.assert_allclose(w, ref, rtol=1e-5, atol=1e-6)
    w0, g, w = _run_opt(lambda p: nn.SGD(p, 0.5), steps=1)
    np.testing.assert_allclose(w, w0 - 0.5 * g, rtol=1e-6)


def test_momentum_and_lr_list(mode):
    w0, g, w = _run_opt(lambda p: nn.Momentum(p, [0.1, 0.05], 0.9, weight_decay=0.1))
    ref, m = w0.copy(), 0
    for lr in (0.1, 0.05):
        gg = g + 0.1 * ref
        m = 0.9 * m + gg
        ref = ref - lr * m
    np.testing.assert_allclose(w, ref, rtol=1e-5, atol=1e-6)


def test_adam_and_adamweightdecay(mode):
    w0, g, w = _run_opt(lambda p: nn.Adam(p, 0.01))
    ref, m, v = w0.copy(), 0, 0
    for t in (1, 2):
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        ref = ref - 0.01 * np.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t) * m / (np.sqrt(v) + 1e-8)
    np.testing.assert_allclose(w, ref, rtol=1e-5, atol=1e-6)
    w0, g, w = _run_opt(lambda p: nn.AdamWeightDecay(p, 0.01, weight_decay=0.1))
    ref, m, v = w0.copy(), 0, 0
    for _ in (1, 2):
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        ref = ref - 0.01 * (m / (np.sqrt(v) + 1e-6) + 0.1 * ref)
    np.testing.assert_allclose(w, ref, rtol=1e-5, atol=1e-6)


def test_callable_lr(mode):
    w0, g, w = _run_opt(lambda p: nn.SGD(p, lambda step: ops.cast(step, ms.float32) * 0.1 + 0.1))
    np.testing.assert_allclose(w, w0 - 0.1 * g - 0.2 * g, rtol=1e-5, atol=1e-6)


# ---- graph vs pynative with control flow ---------------------------------------------------------

class Branchy(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 4)

    def construct(self, x):
        y = self.fc(x)
        if ops.reduce_sum(y) > 0:
            y = y * 2
        else:
            y = y - 1
        i = 0
        while i < 3:
            y = ops.tanh(y) + x
            i += 1
        return y


def test_graph_vs_pynative_control_flow():
    net = Branchy()
    for x in (f32(2, 4), -np.abs(f32(2, 4)) * 5, np.abs(f32(2, 4)) * 5):
        ms.set_context(mode=ms.PYNATIVE_MODE)
        a = net(T(x)).asnumpy()
        ms.set_context(mode=ms.GRAPH_MODE)
        try:
            b = net(T(x)).asnumpy()
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)


def test_train_one_step_cell_and_model(mode):
    net = MLP()
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.CrossEntropyLoss()), opt)
    x, y = f32(16, 6), RS.randint(0, 3, 16).astype(np.int32)
    losses = [float(step(T(x), T(y)).asnumpy()) for _ in range(20)]
    assert losses[-1] < losses[0] * 0.75
    from msmlir.train import Model
    ds = ms.dataset.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(8)
    model = Model(net, nn.CrossEntropyLoss(), nn.SGD(net.trainable_params(), 0.05), metrics={"accuracy", "loss"})
    model.train(2, ds, progress=False)
    res = model.eval(ds)
    assert set(res) == {"accuracy", "loss"} and 0 <= res["accuracy"] <= 1
