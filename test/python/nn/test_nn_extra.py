"""msmlir.nn additions vs numpy references: learning-rate lists and schedule cells,
per-group optimizers and Adam(use_amsgrad), Conv1d / Conv2dTranspose / GroupNorm /
HSwish / HSigmoid / ELU / PReLU (forward, gradients, a train step), BatchNorm moving
statistics in a train step, and the Precision / Recall / F1 / MAE / MSE metrics."""
import math
import warnings

import numpy as np
import pytest

import msmlir as ms
from msmlir import Parameter, Tensor, nn, ops

RS = np.random.RandomState(7)
MODES = [ms.PYNATIVE_MODE, ms.GRAPH_MODE]


@pytest.fixture(params=MODES, ids=["pynative", "graph"])
def mode(request):
    old = ms.get_context("mode")
    ms.set_context(mode=request.param)
    yield request.param
    ms.set_context(mode=old)


class _Mode:
    """with _Mode(m): ... runs a block in context mode m."""

    def __init__(self, m):
        self.m = m

    def __enter__(self):
        self.old = ms.get_context("mode")
        ms.set_context(mode=self.m)

    def __exit__(self, *exc):
        ms.set_context(mode=self.old)


def T(a):
    return Tensor(np.asarray(a))


def f32(*shape):
    return RS.randn(*shape).astype(np.float32)


# ---- learning-rate lists (pure Python) --------------------------------------------------------

def test_dynamic_lr_lists():
    ep = [math.floor(i / 2) for i in range(7)]       # total_step 7, step_per_epoch 2
    assert nn.piecewise_constant_lr([2, 5, 10], [0.1, 0.05, 0.01]) == \
        [0.1, 0.1, 0.05, 0.05, 0.05, 0.01, 0.01, 0.01, 0.01, 0.01]
    cases = [
        (nn.exponential_decay_lr(0.1, 0.9, 7, 2, 2), [0.1 * 0.9 ** (e / 2) for e in ep]),
        (nn.exponential_decay_lr(0.1, 0.9, 7, 2, 2, True), [0.1 * 0.9 ** (e // 2) for e in ep]),
        (nn.natural_exp_decay_lr(0.1, 0.9, 7, 2, 2), [0.1 * math.exp(-0.9 * e) for e in ep]),
        (nn.natural_exp_decay_lr(0.1, 0.9, 7, 2, 2, True),
         [0.1 * math.exp(-0.9 * (e // 2) * 2) for e in ep]),
        (nn.inverse_decay_lr(0.1, 0.5, 7, 2, 2), [0.1 / (1 + 0.5 * e / 2) for e in ep]),
        (nn.inverse_decay_lr(0.1, 0.5, 7, 2, 2, True), [0.1 / (1 + 0.5 * (e // 2)) for e in ep]),
        (nn.cosine_decay_lr(0.01, 0.1, 7, 2, 2),
         [0.01 + 0.045 * (1 + math.cos(math.pi * min(e, 2) / 2)) for e in ep]),
        (nn.polynomial_decay_lr(0.1, 0.01, 7, 2, 2, 0.5),
         [0.09 * (1 - min(e, 2) / 2) ** 0.5 + 0.01 for e in ep]),
        (nn.polynomial_decay_lr(0.1, 0.01, 7, 2, 2, 0.5, update_decay_epoch=True),
         [0.09 * (1 - e / (2 * max(math.ceil(e / 2), 1))) ** 0.5 + 0.01 for e in ep]),
        (nn.warmup_lr(0.1, 7, 2, 2), [0.1 * min(e, 2) / 2 for e in ep]),
    ]
    for got, want in cases:
        np.testing.assert_allclose(got, want, rtol=1e-12)
    # MindSpore's documented examples
    np.testing.assert_allclose(nn.natural_exp_decay_lr(0.1, 0.9, 6, 2, 2, True),
                               [0.1, 0.1, 0.1, 0.1, 0.016529888822158657, 0.016529888822158657])
    np.testing.assert_allclose(nn.inverse_decay_lr(0.1, 0.5, 6, 1, 1, True),
                               [0.1, 0.06666666666666667, 0.05, 0.04, 0.03333333333333333,
                                0.028571428571428574])
    with pytest.raises(ValueError):
        nn.cosine_decay_lr(0.1, 0.01, 4, 1, 2)
    with pytest.raises(TypeError):
        nn.warmup_lr(1, 4, 1, 2)


# ---- schedule cells ---------------------------------------------------------------------------

def _schedules():
    return [
        (nn.ExponentialDecayLR(0.1, 0.9, 4), lambda s: 0.1 * 0.9 ** (s / 4)),
        (nn.ExponentialDecayLR(0.1, 0.9, 2, is_stair=True), lambda s: 0.1 * 0.9 ** (s // 2)),
        (nn.NaturalExpDecayLR(0.1, 0.9, 4), lambda s: 0.1 * math.exp(-0.9 * s)),
        (nn.NaturalExpDecayLR(0.1, 0.9, 2, True), lambda s: 0.1 * math.exp(-0.9 * (s // 2) * 2)),
        (nn.InverseDecayLR(0.1, 0.5, 2), lambda s: 0.1 / (1 + 0.5 * s / 2)),
        (nn.InverseDecayLR(0.1, 0.5, 2, True), lambda s: 0.1 / (1 + 0.5 * (s // 2))),
        (nn.CosineDecayLR(0.01, 0.1, 4),
         lambda s: 0.01 + 0.045 * (1 + math.cos(math.pi * min(s, 4) / 4))),
        (nn.PolynomialDecayLR(0.1, 0.01, 4, 0.5), lambda s: 0.09 * (1 - min(s, 4) / 4) ** 0.5 + 0.01),
        (nn.PolynomialDecayLR(0.1, 0.01, 4, 2.0, update_decay_steps=True),
         lambda s: 0.09 * (1 - s / (4 * max(math.ceil(s / 4), 1))) ** 2.0 + 0.01),
        (nn.WarmUpLR(0.1, 3), lambda s: 0.1 * min(s, 3) / 3),
    ]


def test_schedule_cells_pynative_and_graph():
    sched = _schedules()
    want = np.array([[f(s) for _, f in sched] for s in range(7)])
    with _Mode(ms.PYNATIVE_MODE):
        eager = np.array([[float(c(T(np.int32(s))).asnumpy()) for c, _ in sched] for s in range(7)])
    cells = [c for c, _ in sched]

    @ms.jit
    def all_lrs(step):
        out = []
        for c in cells:
            out.append(c(step))
        return tuple(out)

    graph = np.array([[float(v.asnumpy()) for v in all_lrs(T(np.int32(s)))] for s in range(7)])
    np.testing.assert_allclose(eager, want, rtol=2e-6)
    np.testing.assert_allclose(graph, want, rtol=2e-6)
    np.testing.assert_allclose(graph, eager, rtol=1e-6)
    # MindSpore's documented values at global_step 2
    two = T(np.int32(2))
    with _Mode(ms.PYNATIVE_MODE):
        np.testing.assert_allclose(float(nn.ExponentialDecayLR(0.1, 0.9, 4)(two).asnumpy()), 0.09486833,
                                   rtol=1e-6)
        np.testing.assert_allclose(float(nn.PolynomialDecayLR(0.1, 0.01, 4, 0.5)(two).asnumpy()),
                                   0.07363961, rtol=1e-6)
        np.testing.assert_allclose(float(nn.CosineDecayLR(0.01, 0.1, 4)(two).asnumpy()), 0.055,
                                   rtol=1e-6)
    with pytest.raises(TypeError):
        nn.WarmUpLR(1, 2)
    with pytest.raises(ValueError):
        nn.ExponentialDecayLR(0.1, 0.9, 0)


def test_optimizer_with_schedule_and_global_step(mode):
    w0, gs = f32(3), [f32(3) for _ in range(3)]
    w = Parameter(T(w0.copy()), name="w")
    opt = nn.SGD([w], nn.ExponentialDecayLR(0.1, 0.5, 1, is_stair=True))
    for g in gs:
        opt((T(g),))
    ref = w0.astype(np.float64)
    for s, g in enumerate(gs):
        ref = ref - 0.1 * 0.5 ** s * g
    np.testing.assert_allclose(w.asnumpy(), ref, rtol=1e-5, atol=1e-6)
    assert int(opt.global_step.asnumpy()[0]) == 3
    # a constant learning rate is the Parameter 'learning_rate'; global_step stays 0
    v = Parameter(T(w0.copy()), name="v")
    opt2 = nn.Momentum([v], 0.1, 0.9)
    opt2((T(gs[0]),))
    assert int(opt2.global_step.asnumpy()[0]) == 0
    lr = opt2.get_lr_parameter(v)
    assert isinstance(lr, Parameter) and lr.name == "learning_rate"
    np.testing.assert_allclose(lr.asnumpy(), 0.1)
    lr.set_data(T(np.float32(0.0)))                   # changing it changes the next update
    before = v.asnumpy().copy()
    opt2((T(gs[1]),))
    np.testing.assert_array_equal(v.asnumpy(), before)


# ---- optimizers: numpy reimplementations of MindSpore's update rules -----------------------------

def _np_opt(kind, ws, grads, lrs, wds, flags, hyper):
    """MindSpore's update rules (float64) over len(grads) steps; lrs[i][t] is the learning
    rate of parameter i at step t."""
    ws = [w.astype(np.float64).copy() for w in ws]
    n = len(ws)
    st = [dict(m=np.zeros_like(w), v=np.zeros_like(w), vh=np.zeros_like(w), first=True) for w in ws]
    b1, b2, eps = hyper.get("beta1", 0.9), hyper.get("beta2", 0.999), hyper.get("eps", 1e-8)
    mom = hyper.get("momentum", 0.9)
    for t, gstep in enumerate(grads):
        for i in range(n):
            w, g, s, lr, wd = ws[i], gstep[i].astype(np.float64), st[i], lrs[i][t], wds[i]
            if kind == "sgd":
                g = g + w * wd if wd > 0 else g
                s["m"] = g if s["first"] else mom * s["m"] + (1 - hyper.get("dampening", 0.0)) * g
                s["first"] = False
                ws[i] = w - lr * (g + mom * s["m"] if hyper.get("nesterov") else s["m"])
            elif kind == "momentum":
                g = g + wd * w if flags[i] and wd > 0 else g
                s["m"] = mom * s["m"] + g
                ws[i] = w - lr * s["m"]
            elif kind == "adam":
                g = g + wd * w if flags[i] and wd > 0 else g
                s["m"] = s["m"] + (g - s["m"]) * (1 - b1)
                s["v"] = s["v"] + (g * g - s["v"]) * (1 - b2)
                lr_t = lr * math.sqrt(1 - b2 ** (t + 1)) / (1 - b1 ** (t + 1))
                if hyper.get("amsgrad"):
                    s["vh"] = np.maximum(s["vh"], s["v"])
                    ws[i] = w - lr_t * s["m"] / (np.sqrt(s["vh"]) + eps)
                elif hyper.get("nesterov"):
                    ws[i] = w - lr_t * (s["m"] * b1 + (1 - b1) * g) / (np.sqrt(s["v"]) + eps)
                else:
                    ws[i] = w - lr_t * s["m"] / (np.sqrt(s["v"]) + eps)
            elif kind == "adamwd":
                s["m"] = b1 * s["m"] + (1 - b1) * g
                s["v"] = b2 * s["v"] + (1 - b2) * g * g
                u = s["m"] / (np.sqrt(s["v"]) + eps)
                if flags[i] and wd > 0:
                    u = u + wd * w
                ws[i] = w - lr * u
    return ws


def _params(shapes_names, values):
    return [Parameter(T(v.copy()), name=n) for (_, n), v in zip(shapes_names, values)]


def test_adam_amsgrad_and_nesterov(mode):
    w0 = [f32(3, 2), f32(2)]
    # shrinking gradients: v decays below its running maximum, so vhat matters
    grads = [[f32(3, 2) * s, f32(2) * s] for s in (30.0, 0.01, 0.01)]
    names = [((3, 2), "fc.weight"), ((2,), "bn.gamma")]
    for hyper in ({"amsgrad": True}, {"nesterov": True}):
        ps = _params(names, w0)
        opt = nn.Adam(ps, 0.05, weight_decay=0.1, use_amsgrad=bool(hyper.get("amsgrad")),
                      use_nesterov=bool(hyper.get("nesterov")))
        for g in grads:
            opt(tuple(T(x) for x in g))
        # not grouped: weight decay skips the names holding 'beta' / 'gamma'
        ref = _np_opt("adam", w0, grads, [[0.05] * 3] * 2, [0.1, 0.1], [True, False], hyper)
        for p, r in zip(ps, ref):
            np.testing.assert_allclose(p.asnumpy(), r, rtol=1e-5, atol=1e-6, err_msg=str(hyper))
        if hyper.get("amsgrad"):
            v = opt.moment2[0].asnumpy()
            vh = opt.vhat[0].asnumpy()
            assert np.all(vh >= v) and np.mean(vh > v) > 0.5
            names_ = {p.name for p in opt.get_parameters()}
            assert {"vhat.fc.weight", "moment1.fc.weight", "beta1_power", "learning_rate"} <= names_
    with pytest.raises(ValueError):
        nn.Adam(ps, beta1=1.0)


_GROUP_CASES = [
    ("sgd", lambda groups: nn.SGD(groups, [0.1, 0.08, 0.06], momentum=0.9, weight_decay=0.01),
     [0.05] * 3, {}),
    ("momentum", lambda groups: nn.Momentum(groups, [0.1, 0.08, 0.06], 0.9, weight_decay=0.01),
     [0.05, 0.04, 0.03], {}),
    ("adam", lambda groups: nn.Adam(groups, [0.1, 0.08, 0.06], weight_decay=0.01),
     [0.05 * 0.5 ** s for s in range(3)], {}),
    ("adamwd", lambda groups: nn.AdamWeightDecay(groups, [0.1, 0.08, 0.06], weight_decay=0.01),
     [0.05] * 3, {"eps": 1e-6}),
]


@pytest.mark.parametrize("kind,make,lr_a,hyper", _GROUP_CASES, ids=[c[0] for c in _GROUP_CASES])
def test_group_params_graph_and_pynative(kind, make, lr_a, hyper):
    w0 = [f32(3, 2), f32(2), f32(2)]
    grads = [[f32(3, 2), f32(2), f32(2)] for _ in range(3)]
    names = [((3, 2), "fc.weight"), ((2,), "fc.bias"), ((2,), "bn.gamma")]
    group_lr = {"sgd": 0.05, "momentum": [0.05, 0.04, 0.03],
                "adam": nn.ExponentialDecayLR(0.05, 0.5, 1), "adamwd": 0.05}[kind]
    results = {}
    for m in MODES:
        with _Mode(m):
            a, b, c = _params(names, w0)
            groups = [{"params": [a], "lr": group_lr, "weight_decay": 0.1},
                      {"params": [c, b]},
                      {"order_params": [a, b, c]}]
            opt = make(groups)
            assert [p.name for p in opt.parameters] == ["fc.weight", "fc.bias", "bn.gamma"]
            for g in grads:
                opt(tuple(T(x) for x in g))
            results[m] = [p.asnumpy() for p in (a, b, c)]
            assert int(opt.global_step.asnumpy()[0]) == 3
            lrs = opt.get_lr_parameter([a, b])
            assert lrs[1] is opt.learning_rate and lrs[0] is not lrs[1]
    default = [0.1, 0.08, 0.06]
    # grouped: every parameter of a group with weight decay > 0 decays ('gamma' included)
    ref = _np_opt(kind, w0, grads, [lr_a, default, default], [0.1, 0.01, 0.01], [True] * 3,
                  dict(hyper, momentum=0.9))
    for m in MODES:
        for got, want in zip(results[m], ref):
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=f"{kind} mode {m}")
    for g_, p_ in zip(results[ms.GRAPH_MODE], results[ms.PYNATIVE_MODE]):
        np.testing.assert_allclose(g_, p_, rtol=1e-6, atol=1e-7)


def test_group_params_errors_and_get_lr():
    a, b = Parameter(T(f32(2)), name="a"), Parameter(T(f32(2)), name="b")
    with pytest.raises(KeyError):
        nn.SGD([{"params": [a], "momentum": 0.1}])
    with pytest.raises(RuntimeError):
        nn.SGD([{"params": [a]}, {"params": [a]}])
    with pytest.raises(ValueError):
        nn.SGD([{"params": [a]}, {"params": [b]}, {"order_params": [a]}])
    opt = nn.SGD([{"params": [a], "lr": 0.5}, {"params": [b]}], 0.1)
    assert opt.is_group_lr
    with _Mode(ms.PYNATIVE_MODE):
        lr = opt.get_lr()
    assert isinstance(lr, tuple) and len(lr) == 2
    np.testing.assert_allclose([float(x.asnumpy()) for x in lr], [0.5, 0.1], rtol=1e-7)
    np.testing.assert_allclose(opt.get_lr_parameter(a).asnumpy(), 0.5)
    assert opt.get_lr_parameter(a).name == "learning_rate_group_0"


# ---- layers: numpy references -------------------------------------------------------------------

def _same_pads(n, k_eff, s, out):
    tot = max((out - 1) * s + k_eff - n, 0)
    return tot // 2, tot - tot // 2


def _conv_np(x, w, stride, pads, dil):
    """conv2d, x (N,C,H,W), w (O,C,kh,kw), pads (top, bottom, left, right) — float64."""
    x = np.pad(x.astype(np.float64), ((0, 0), (0, 0), pads[:2], pads[2:]))
    _, _, h, wd = x.shape
    o, _, kh, kw = w.shape
    (sh, sw), (dh, dw) = stride, dil
    ho, wo = (h - dh * (kh - 1) - 1) // sh + 1, (wd - dw * (kw - 1) - 1) // sw + 1
    out = np.zeros((x.shape[0], o, ho, wo))
    for i in range(ho):
        for j in range(wo):
            patch = x[:, :, i * sh:i * sh + dh * (kh - 1) + 1:dh, j * sw:j * sw + dw * (kw - 1) + 1:dw]
            out[:, :, i, j] = np.tensordot(patch, w, axes=([1, 2, 3], [1, 2, 3]))
    return out


def _convT_np(x, w, stride, dil, out_hw, pads_tl):
    """transposed conv2d: x (N,Cin,H,W), w (Cin,Cout,kh,kw) scattered with stride, cropped."""
    n, _, h, wd = x.shape
    _, co, kh, kw = w.shape
    out = np.zeros((n, co) + tuple(out_hw))
    for i in range(h):
        for j in range(wd):
            for a in range(kh):
                for b in range(kw):
                    oi = i * stride[0] + a * dil[0] - pads_tl[0]
                    oj = j * stride[1] + b * dil[1] - pads_tl[1]
                    if 0 <= oi < out_hw[0] and 0 <= oj < out_hw[1]:
                        out[:, :, oi, oj] += x[:, :, i, j].astype(np.float64) @ w[:, :, a, b]
    return out


def _conv1d_np(c, x):
    k, s, d = c.kernel_size[1], c.stride[1], c.dilation[1]
    n = x.shape[2]
    if c.pad_mode == "same":
        pads = _same_pads(n, d * (k - 1) + 1, s, -(-n // s))
    elif c.pad_mode == "valid":
        pads = (0, 0)
    else:
        pads = (c.padding, c.padding)
    y = _conv_np(x[:, :, None, :], c.weight.asnumpy(), (1, s), (0, 0) + pads, (1, d))[:, :, 0, :]
    return y + (c.bias.asnumpy()[None, :, None] if c.has_bias else 0)


def _convT_ref(c, x):
    h, w = x.shape[2:]
    ho, wo = c._out_hw(h, w)
    if c.pad_mode == "same":
        tl = (_same_pads(ho, c.dilation[0] * (c.kernel_size[0] - 1) + 1, c.stride[0], h)[0],
              _same_pads(wo, c.dilation[1] * (c.kernel_size[1] - 1) + 1, c.stride[1], w)[0])
    elif c.pad_mode == "valid":
        tl = (0, 0)
    else:
        tl = (c._pad4[0], c._pad4[2])
    y = _convT_np(x, c.weight.asnumpy().astype(np.float64), c.stride, c.dilation, (ho, wo), tl)
    if c.has_bias:
        y = y + c.bias.asnumpy()[None, :, None, None]
    op = c._out_pad
    return np.pad(y, ((0, 0), (0, 0), (0, op[0]), (0, op[1])))


def _linear_grad(f, x, r):
    """d/dx sum(r * f(x)) for f linear in x: column by column (float64)."""
    g = np.zeros(x.size)
    for i in range(x.size):
        e = np.zeros(x.size)
        e[i] = 1.0
        g[i] = np.sum(r * f(e.reshape(x.shape)))
    return g.reshape(x.shape)


def _fd_grad(f, x, r, eps=1e-6):
    """d/dx sum(r * f(x)) by central differences in float64."""
    x = x.astype(np.float64)
    g = np.zeros(x.size)
    for i in range(x.size):
        e = np.zeros(x.size)
        e[i] = eps
        e = e.reshape(x.shape)
        g[i] = (np.sum(r * f(x + e)) - np.sum(r * f(x - e))) / (2 * eps)
    return g.reshape(x.shape)


_CONV1D = [dict(pad_mode="same", stride=2), dict(pad_mode="valid", dilation=2),
           dict(pad_mode="pad", padding=2, stride=3, has_bias=True)]
_CONVT = [dict(pad_mode="same", stride=2, has_bias=True), dict(pad_mode="valid", stride=2),
          dict(pad_mode="pad", padding=(1, 0, 0, 1), stride=2, output_padding=1),
          dict(pad_mode="same", dilation=2), dict(pad_mode="valid", kernel_size=(2, 3), stride=(1, 2))]


def test_conv1d_conv2dtranspose_forward(mode):
    x1 = f32(2, 4, 9)
    for kw in _CONV1D:
        c = nn.Conv1d(4, 6, 3, has_bias=kw.pop("has_bias", False), **kw)
        assert c.weight.shape == (6, 4, 1, 3)
        np.testing.assert_allclose(c(T(x1)).asnumpy(), _conv1d_np(c, x1), rtol=1e-5, atol=1e-5,
                                   err_msg=str(kw))
    wt = f32(6, 2, 3)                                  # a 3-D weight_init, grouped
    c = nn.Conv1d(4, 6, 3, group=2, weight_init=T(wt))
    np.testing.assert_array_equal(c.weight.asnumpy()[:, :, 0], wt)
    y = c(T(x1)).asnumpy()
    ref = np.concatenate([_conv_np(x1[:, 2 * g:2 * g + 2, None], wt[3 * g:3 * g + 3, :, None], (1, 1),
                                   (0, 0, 1, 1), (1, 1))[:, :, 0] for g in range(2)], axis=1)
    np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-5)
    x2 = f32(2, 3, 4, 5)
    for kw in _CONVT:
        kw = dict(kw)
        k = kw.pop("kernel_size", 3)
        c = nn.Conv2dTranspose(3, 2, k, **kw)
        assert c.weight.shape == (3, 2) + c.kernel_size
        y = c(T(x2)).asnumpy()
        np.testing.assert_allclose(y, _convT_ref(c, x2), rtol=1e-5, atol=1e-5, err_msg=str(kw))
    # MindSpore's documented shape: Conv2dTranspose(3, 64, 4, pad_mode='pad') on 16x50 -> 19x53
    assert nn.Conv2dTranspose(3, 4, 4, pad_mode="pad")._out_hw(16, 50) == (19, 53)
    with pytest.raises(ValueError):
        nn.Conv2dTranspose(3, 2, 3, stride=2, output_padding=1)   # needs pad_mode='pad'


def test_conv_layer_gradients():
    x1, x2 = f32(2, 4, 9), f32(1, 3, 3, 4)
    for c, x, ref in ((nn.Conv1d(4, 6, 3, stride=2, pad_mode="pad", padding=1, has_bias=True), x1,
                       _conv1d_np),
                      (nn.Conv2dTranspose(3, 2, 3, stride=2, pad_mode="same", has_bias=True), x2,
                       _convT_ref)):
        y = ref(c, x)
        r = RS.randn(*y.shape)
        gfn = ms.grad(lambda t: ops.reduce_sum(c(t) * T(r.astype(np.float32))), 0, c.trainable_params())
        gx, (gw, gb) = gfn(T(x))
        w0, b0 = c.weight.asnumpy().copy(), c.bias.asnumpy().copy()

        def with_w(wv, bv=None):
            c.weight.set_data(T(wv.astype(np.float32)))
            c.bias.set_data(T(np.zeros_like(b0) if bv is None else bv))
            return ref(c, x)
        want_x = _linear_grad(lambda e: ref(c, e) - ref(c, np.zeros_like(x)), x, r)
        ws = []
        for i in range(w0.size):   # w -> output is linear (bias set to 0)
            e = np.zeros(w0.size)
            e[i] = 1.0
            ws.append(np.sum(r * with_w(e.reshape(w0.shape))))
        c.weight.set_data(T(w0))
        c.bias.set_data(T(b0))
        np.testing.assert_allclose(gx.asnumpy(), want_x, rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(gw.asnumpy(), np.reshape(ws, w0.shape), rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(gb.asnumpy(), r.sum(axis=tuple(i for i in range(r.ndim) if i != 1)),
                                   rtol=1e-5, atol=1e-5)


def _gn_np(x, g, gamma, beta, eps=1e-5):
    n, c = x.shape[:2]
    xr = x.reshape(n, g, -1)
    y = ((xr - xr.mean(-1, keepdims=True)) / np.sqrt(xr.var(-1, keepdims=True) + eps)).reshape(x.shape)
    b = (1, c) + (1,) * (x.ndim - 2)
    return y * gamma.reshape(b) + beta.reshape(b)


def _act_np(name, x, a=None):
    if name == "hswish":
        return x * np.clip(x + 3, 0, 6) / 6
    if name == "hsigmoid":
        return np.clip(x + 3, 0, 6) / 6
    if name == "elu":
        return np.where(x > 0, x, np.expm1(np.minimum(x, 0)))
    slope = np.maximum(a, 0).reshape((1, -1) + (1,) * (x.ndim - 2))
    return np.where(x > 0, x, slope * x)


def test_groupnorm_and_activations_forward(mode):
    x = f32(2, 4, 3, 3) * 2 + 0.5
    gn = nn.GroupNorm(2, 4, affine=True, gamma_init=T(f32(4)), beta_init=T(f32(4)))
    np.testing.assert_allclose(gn(T(x)).asnumpy(), _gn_np(x, 2, gn.gamma.asnumpy(), gn.beta.asnumpy()),
                               rtol=1e-5, atol=1e-5)
    x3 = f32(3, 6, 5)                                   # (N, C, L) works too
    gn3 = nn.GroupNorm(3, 6, eps=1e-3)
    np.testing.assert_allclose(gn3(T(x3)).asnumpy(), _gn_np(x3, 3, np.ones(6), np.zeros(6), 1e-3),
                               rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError):
        nn.GroupNorm(3, 4)
    xa = np.concatenate([x.ravel(), [-3.5, -3.0, 3.0, 3.5]]).astype(np.float32).reshape(1, 4, -1)
    for cell, name in ((nn.HSwish(), "hswish"), (nn.HSigmoid(), "hsigmoid"), (nn.ELU(), "elu")):
        np.testing.assert_allclose(cell(T(xa)).asnumpy(), _act_np(name, xa), rtol=1e-5, atol=1e-6,
                                   err_msg=name)
    np.testing.assert_allclose(nn.ELU(0.5)(T(xa)).asnumpy(),
                               np.where(xa > 0, xa, 0.5 * np.expm1(np.minimum(xa, 0))), rtol=1e-5,
                               atol=1e-6)
    pr = nn.PReLU(4, [0.1, -0.2, 0.3, 0.25])            # a negative slope acts as relu(a) = 0
    assert pr.w.name == "a"
    np.testing.assert_allclose(pr(T(xa)).asnumpy(), _act_np("prelu", xa, pr.w.asnumpy()), rtol=1e-6)
    np.testing.assert_allclose(nn.PReLU()(T(xa)).asnumpy(), np.where(xa > 0, xa, 0.25 * xa), rtol=1e-6)
    assert isinstance(nn.get_activation("hswish"), nn.HSwish)


def test_groupnorm_and_activation_gradients():
    x = f32(2, 4, 3, 3)
    r = RS.randn(*x.shape)
    gn = nn.GroupNorm(2, 4, gamma_init=T(f32(4)), beta_init=T(f32(4)))
    pr = nn.PReLU(4, [0.1, 0.2, 0.3, 0.25])
    net = nn.SequentialCell([gn, nn.ELU(), nn.HSwish(), pr, nn.HSigmoid()])
    rt = T(r.astype(np.float32))
    gfn = ms.grad(lambda t: ops.reduce_sum(net(t) * rt), 0, net.trainable_params())
    gx, (ggamma, gbeta, ga) = gfn(T(x))
    gamma, beta, a = (p.asnumpy().astype(np.float64) for p in (gn.gamma, gn.beta, pr.w))

    def f(xv, gm=gamma, bt=beta, av=a):
        y = _gn_np(xv, 2, gm, bt)
        return _act_np("hsigmoid", _act_np("prelu", _act_np("hswish", _act_np("elu", y)), av))
    np.testing.assert_allclose(gx.asnumpy(), _fd_grad(f, x, r), rtol=1e-3, atol=1e-5)
    np.testing.assert_allclose(ggamma.asnumpy(), _fd_grad(lambda v: f(x, gm=v), gamma, r), rtol=1e-3,
                               atol=1e-5)
    np.testing.assert_allclose(gbeta.asnumpy(), _fd_grad(lambda v: f(x, bt=v), beta, r), rtol=1e-3,
                               atol=1e-5)
    np.testing.assert_allclose(ga.asnumpy(), _fd_grad(lambda v: f(x, av=v), a, r), rtol=1e-3, atol=1e-5)


class _NewLayers(nn.Cell):
    """Independent branches, one per new layer; loss = sum(r_i * branch_i)."""

    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv1d(2, 3, 3, stride=2, has_bias=True)
        self.ct = nn.Conv2dTranspose(2, 3, 3, stride=2, pad_mode="pad", padding=1, has_bias=True)
        self.gn = nn.GroupNorm(2, 4)
        self.act = nn.SequentialCell([nn.ELU(), nn.HSwish()])

    def construct(self, x1, x2, x3, r1, r2, r3):
        return (ops.reduce_sum(self.c1(x1) * r1) + ops.reduce_sum(self.ct(x2) * r2)
                + ops.reduce_sum(self.act(self.gn(x3)) * r3))


def test_new_layers_train_step_graph_vs_pynative():
    x1, x2, x3 = f32(2, 2, 7), f32(1, 2, 3, 3), f32(2, 4, 2, 2)
    shapes = _NewLayers()
    r1, r2, r3 = (RS.randn(*_conv1d_np(shapes.c1, x1).shape), RS.randn(*_convT_ref(shapes.ct, x2).shape),
                  RS.randn(*x3.shape))
    ins = [x1, x2, x3]
    results = {}
    for m in MODES:
        ms.set_seed(3)
        net = _NewLayers()
        before = {p.name: p.asnumpy().copy() for p in net.trainable_params()}
        step = nn.TrainOneStepCell(net, nn.SGD(net.trainable_params(), 0.1))
        with _Mode(m):
            loss = step(*[T(a.astype(np.float32)) for a in ins + [r1, r2, r3]])
        results[m] = (float(loss.asnumpy()), {p.name: p.asnumpy().copy() for p in net.trainable_params()})
    # numpy gradients at the initial parameters
    c1w, c1b, ctw, ctb, gng, gnb = (before[k] for k in ("c1.weight", "c1.bias", "ct.weight", "ct.bias",
                                                        "gn.gamma", "gn.beta"))
    net = _NewLayers()

    def c1_out(w):
        net.c1.weight.set_data(T(w.astype(np.float32)))
        net.c1.bias.set_data(T(np.zeros(3, np.float32)))
        return _conv1d_np(net.c1, x1)

    def ct_out(w):
        net.ct.weight.set_data(T(w.astype(np.float32)))
        net.ct.bias.set_data(T(np.zeros(3, np.float32)))
        return _convT_ref(net.ct, x2)

    def act(y):
        return _act_np("hswish", _act_np("elu", y))
    want = {"c1.weight": _linear_grad(c1_out, c1w, r1), "c1.bias": r1.sum(axis=(0, 2)),
            "ct.weight": _linear_grad(ct_out, ctw, r2), "ct.bias": r2.sum(axis=(0, 2, 3)),
            "gn.gamma": _fd_grad(lambda g: act(_gn_np(x3, 2, g, gnb)), gng, r3),
            "gn.beta": _fd_grad(lambda b: act(_gn_np(x3, 2, gng, b)), gnb, r3)}
    net.c1.weight.set_data(T(c1w))
    net.c1.bias.set_data(T(c1b))
    net.ct.weight.set_data(T(ctw))
    net.ct.bias.set_data(T(ctb))
    loss_ref = (np.sum(_conv1d_np(net.c1, x1) * r1) + np.sum(_convT_ref(net.ct, x2) * r2)
                + np.sum(act(_gn_np(x3, 2, gng, gnb)) * r3))
    for m in MODES:
        loss, params = results[m]
        np.testing.assert_allclose(loss, loss_ref, rtol=1e-4)
        for k, g in want.items():
            np.testing.assert_allclose(params[k], before[k] - 0.1 * g, rtol=1e-4, atol=1e-5,
                                       err_msg=f"{k} mode {m}")
    for k in want:
        np.testing.assert_allclose(results[ms.GRAPH_MODE][1][k], results[ms.PYNATIVE_MODE][1][k],
                                   rtol=1e-6, atol=1e-6)


# ---- BatchNorm moving statistics (and PReLU's in-place relu) in a train step ----------------------

class _BNNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 3, 3, has_bias=True)
        self.bn = nn.BatchNorm2d(3)
        self.prelu = nn.PReLU(3, [-0.1, 0.2, -0.3])
        self.fc = nn.Dense(3 * 4 * 4, 2)

    def construct(self, x):
        return self.fc(ops.reshape(self.prelu(self.bn(self.conv(x))), (x.shape[0], -1)))


@pytest.mark.parametrize("target", ["CPU", "Ascend"])
def test_batchnorm_moving_stats_in_train_step(target):
    xs = [f32(4, 2, 4, 4) for _ in range(3)]
    ys = [f32(4, 2) for _ in range(3)]
    stats = {}
    with warnings.catch_warnings():     # 'Ascend': msmlir warns it still runs on the CPU
        warnings.simplefilter("ignore")
        ms.set_context(device_target=target)
    try:
        for m in MODES:
            ms.set_seed(5)
            net = _BNNet()
            step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                                       nn.Momentum(net.trainable_params(), 0.1, 0.9))
            step.set_train()
            mm, mv = np.zeros(3), np.ones(3)
            with _Mode(m):
                for x, y in zip(xs, ys):
                    c = _conv_np(x, net.conv.weight.asnumpy(), (1, 1), (1, 1, 1, 1), (1, 1)) \
                        + net.conv.bias.asnumpy()[None, :, None, None]
                    var = c.var(axis=(0, 2, 3), ddof=1)   # unbiased on every target
                    mm = 0.9 * mm + 0.1 * c.mean(axis=(0, 2, 3))
                    mv = 0.9 * mv + 0.1 * var
                    step(T(x), T(y))
                    np.testing.assert_allclose(net.bn.moving_mean.asnumpy(), mm, rtol=1e-5, atol=1e-6)
                    np.testing.assert_allclose(net.bn.moving_variance.asnumpy(), mv, rtol=1e-5)
            a = net.prelu.w.asnumpy()
            # the slope used is relu(a), written back into a in training (MindSpore): a negative
            # a becomes 0 and gets no gradient
            np.testing.assert_array_equal(a[[0, 2]], np.float32([0.0, 0.0]))
            assert a[1] != np.float32(0.2)
            stats[m] = (net.bn.moving_mean.asnumpy(), net.bn.moving_variance.asnumpy(), a)
    finally:
        ms.set_context(device_target="CPU")
    for g, p in zip(stats[ms.GRAPH_MODE], stats[ms.PYNATIVE_MODE]):
        np.testing.assert_allclose(g, p, rtol=1e-6, atol=1e-7)


# ---- metrics ---------------------------------------------------------------------------------------

def test_metrics():
    x = T(np.array([[0.2, 0.5], [0.3, 0.1], [0.9, 0.6]]))
    y = T(np.array([1, 0, 1]))
    p, r, f = nn.Precision(), nn.Recall(), nn.F1()
    for mtr in (p, r, f):
        mtr.clear()
        mtr.update(x, y)
    np.testing.assert_allclose(p.eval(), [0.5, 1.0])
    np.testing.assert_allclose(r.eval(), [1.0, 0.5])
    np.testing.assert_allclose(f.eval(), [2 / 3, 2 / 3])
    np.testing.assert_allclose(p.eval(average=True), 0.75)
    # Fbeta(2) with one-hot labels: (1 + 4) tp / (4 (tp + fn) + (tp + fp)) per class
    np.testing.assert_allclose(nn.Fbeta(2)(x, np.eye(2)[[1, 0, 1]]), [5 / (4 + 2), 5 / (8 + 1)])
    # multilabel precision: MindSpore sums over the classes, giving one value per sample
    pm = nn.Precision("multilabel")
    yp, yt = np.array([[1, 0, 1], [0, 1, 1]]), np.array([[1, 0, 0], [0, 1, 1]])
    pm.update(yp, yt)
    np.testing.assert_allclose(pm.eval(), [0.5, 1.0])
    mae, mse = nn.MAE(), nn.MSE()
    mae.update(T(np.array([0.1, 0.2, 0.6, 0.9])), T(np.array([0.1, 0.25, 0.7, 0.9])))
    mse.update(T(np.array([0.1, 0.2, 0.6, 0.9])), T(np.array([0.1, 0.25, 0.5, 0.9])))
    np.testing.assert_allclose(mae.eval(), 0.0375, rtol=1e-12)
    np.testing.assert_allclose(mse.eval(), 0.003125, rtol=1e-12)
    a2, b2 = f32(5, 2), f32(5, 2)                           # divided by the samples, not elements
    np.testing.assert_allclose(nn.MAE()(a2, b2), np.abs(a2 - b2).sum() / 5, rtol=1e-6)
    assert set(ms.train.names()) >= {"precision", "recall", "F1", "mae", "mse", "accuracy", "loss"}
    with pytest.raises(RuntimeError):
        nn.Recall().eval()


def test_model_eval_metric_names():
    from msmlir.train import Model
    ms.set_seed(1)
    net = nn.Dense(4, 3)
    x, y = f32(12, 4), RS.randint(0, 3, 12).astype(np.int32)
    ds = ms.dataset.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(6)
    res = Model(net, nn.CrossEntropyLoss(), metrics={"accuracy", "precision", "recall", "F1"}).eval(ds)
    logits = x @ net.weight.asnumpy().T + net.bias.asnumpy()
    pred, eye = logits.argmax(1), np.eye(3)
    tp = (eye[pred] * eye[y]).sum(0)
    np.testing.assert_allclose(res["accuracy"], (pred == y).mean())
    np.testing.assert_allclose(res["precision"], tp / (eye[pred].sum(0) + np.finfo(float).tiny))
    np.testing.assert_allclose(res["recall"], tp / (eye[y].sum(0) + np.finfo(float).tiny))
    reg = nn.Dense(4, 1)
    yr = f32(12, 1)
    ds2 = ms.dataset.NumpySlicesDataset({"x": x, "y": yr}, shuffle=False).batch(6)
    res = Model(reg, nn.MSELoss(), metrics={"mae", "mse"}).eval(ds2)
    out = x @ reg.weight.asnumpy().T + reg.bias.asnumpy()
    np.testing.assert_allclose(res["mae"], np.abs(out - yr).sum() / 12, rtol=1e-5)
    np.testing.assert_allclose(res["mse"], ((out - yr) ** 2).sum() / 12, rtol=1e-5)
