"""mindspore.nn.LSTM / GRU / RNN and LSTMCell / GRUCell / RNNCell (python/msmlir/nn/rnn.py,
rnn_cells.py) against PyTorch's modules with the same weights copied in (MindSpore's
parameter names, shapes and gate order are PyTorch's): outputs and final states,
multi-layer, bidirectional, batch_first, a given hx, seq_length masking (vs PyTorch's
packed sequences), in PyNative and GRAPH_MODE, inside `jit`, and gradients vs torch
autograd in float64."""
import numpy as np
import pytest
import torch

import msmlir as ms
from msmlir import nn, ops
from msmlir.nn import rnn as rnn_mod

RNG = np.random.default_rng(12)
TORCH = {"LSTM": torch.nn.LSTM, "GRU": torch.nn.GRU, "RNN": torch.nn.RNN}
CELLS = {"LSTMCell": torch.nn.LSTMCell, "GRUCell": torch.nn.GRUCell, "RNNCell": torch.nn.RNNCell}


@pytest.fixture(params=[ms.PYNATIVE_MODE, ms.GRAPH_MODE], ids=["pynative", "graph"])
def mode(request):
    ms.set_context(mode=request.param)
    yield request.param
    ms.set_context(mode=ms.PYNATIVE_MODE)


@pytest.fixture(params=["unrolled", "loop"])
def path(request, monkeypatch):
    """The unrolled time loop, or the tensor `while` loop (used above UNROLL_MAX steps)."""
    if request.param == "loop":
        monkeypatch.setattr(rnn_mod, "UNROLL_MAX", 0)
    return request.param


def f32(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def _torch_twin(net, kind, **kw):
    """The PyTorch module of `kind` holding `net`'s weights (float64), parameter by name."""
    ctor = TORCH.get(kind) or CELLS[kind]
    t = ctor(**kw).double()
    ours = {p.name.split(".")[-1]: p for p in net.get_parameters()}
    assert sorted(ours) == sorted(n for n, _ in t.named_parameters())
    with torch.no_grad():
        for name, p in t.named_parameters():
            assert tuple(ours[name].shape) == tuple(p.shape), name
            p.copy_(torch.from_numpy(ours[name].asnumpy().astype(np.float64)))
    return t


def _np(t):
    return t.detach().numpy()


def _close(a, b, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(np.asarray(a.asnumpy() if hasattr(a, "asnumpy") else a), b,
                               rtol=rtol, atol=atol)


def _make(kind, I, H, nonlinearity=None, **kw):
    tkw = dict(input_size=I, hidden_size=H, num_layers=kw.get("num_layers", 1),
               bias=kw.get("has_bias", True), batch_first=kw.get("batch_first", False),
               bidirectional=kw.get("bidirectional", False))
    if nonlinearity is not None:
        kw["nonlinearity"] = nonlinearity
        tkw["nonlinearity"] = nonlinearity
    net = getattr(nn, kind)(I, H, **kw)
    return net, _torch_twin(net, kind, **tkw)


CONFIGS = [
    ("LSTM", None, dict()),
    ("LSTM", None, dict(num_layers=2, bidirectional=True)),
    ("LSTM", None, dict(batch_first=True, has_bias=False)),
    ("GRU", None, dict(num_layers=2)),
    ("GRU", None, dict(bidirectional=True, batch_first=True)),
    ("RNN", "tanh", dict(num_layers=2, bidirectional=True)),
    ("RNN", "relu", dict(batch_first=True)),
]


def _ids(c):
    return c[0] + ("-" + c[1] if c[1] else "") + "".join(f"-{k}" for k in c[2])


@pytest.mark.parametrize("cfg", CONFIGS, ids=[_ids(c) for c in CONFIGS])
@pytest.mark.parametrize("given_hx", [False, True], ids=["zero_hx", "hx"])
def test_matches_torch(mode, cfg, given_hx):
    kind, nl, kw = cfg
    T_, B, I, H = 5, 3, 4, 6
    net, t = _make(kind, I, H, nl, **kw)
    x = f32(B, T_, I) if kw.get("batch_first") else f32(T_, B, I)
    nd = 2 if kw.get("bidirectional") else 1
    L = kw.get("num_layers", 1) * nd
    hx = thx = None
    if given_hx:
        if kind == "LSTM":
            h0, c0 = f32(L, B, H), f32(L, B, H)
            hx, thx = (ms.Tensor(h0), ms.Tensor(c0)), (torch.tensor(h0).double(),
                                                       torch.tensor(c0).double())
        else:
            h0 = f32(L, B, H)
            hx, thx = ms.Tensor(h0), torch.tensor(h0).double()
    out, state = net(ms.Tensor(x), hx)
    tout, tstate = t(torch.tensor(x).double(), thx)
    assert out.shape == tuple(tout.shape) == (x.shape[0], x.shape[1], nd * H)
    _close(out, _np(tout))
    if kind == "LSTM":
        _close(state[0], _np(tstate[0]))
        _close(state[1], _np(tstate[1]))
    else:
        assert state.shape == (L, B, H)
        _close(state, _np(tstate))


@pytest.mark.parametrize("cfg", CONFIGS, ids=[_ids(c) for c in CONFIGS])
def test_loop_path_matches_torch(monkeypatch, cfg):
    """The tensor `while` loop (compiled), every configuration, with a given hx."""
    monkeypatch.setattr(rnn_mod, "UNROLL_MAX", 0)
    test_matches_torch(ms.GRAPH_MODE, cfg, True)


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_long_sequence_compiles_as_a_loop(kind):
    """40 steps (> UNROLL_MAX): one loop, not 40 copies of the step; vs PyTorch."""
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net, t = _make(kind, 3, 4, bidirectional=True)
        x = f32(40, 2, 3)
        lengths = np.array([40, 23], np.int32)
        out, state = net(ms.Tensor(x), None, ms.Tensor(lengths))
        ir = net._graph_fn().mlir(net, ms.Tensor(x), None, ms.Tensor(lengths))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    packed = torch.nn.utils.rnn.pack_padded_sequence(torch.tensor(x).double(),
                                                     torch.tensor(lengths), enforce_sorted=False)
    pout, tstate = t(packed)
    tout, _ = torch.nn.utils.rnn.pad_packed_sequence(pout, total_length=40)
    _close(out, _np(tout))
    _close(state[0] if kind == "LSTM" else state, _np(tstate[0] if kind == "LSTM" else tstate))
    assert ir.count("scf.while") == 2 and ir.count("sigmoid") <= 6


@pytest.mark.parametrize("kind", ["LSTM", "GRU", "RNN"])
def test_seq_length_matches_packed_sequences(mode, path, kind):
    """seq_length masks the state updates past each sequence's end; the reverse
    direction starts at each sequence's own end (PyTorch's packed sequences)."""
    T_, B, I, H = 6, 4, 3, 5
    net, t = _make(kind, I, H, num_layers=2, bidirectional=True, batch_first=True)
    x = f32(B, T_, I)
    lengths = np.array([6, 2, 4, 1], np.int32)
    out, state = net(ms.Tensor(x), None, ms.Tensor(lengths))
    packed = torch.nn.utils.rnn.pack_padded_sequence(torch.tensor(x).double(),
                                                     torch.tensor(lengths), batch_first=True,
                                                     enforce_sorted=False)
    pout, tstate = t(packed)
    tout, _ = torch.nn.utils.rnn.pad_packed_sequence(pout, batch_first=True, total_length=T_)
    _close(out, _np(tout))
    for b, n in enumerate(lengths):          # padded steps: zeros
        assert not np.any(out.asnumpy()[b, n:])
    if kind == "LSTM":
        _close(state[0], _np(tstate[0]))
        _close(state[1], _np(tstate[1]))
    else:
        _close(state, _np(tstate))


def test_seq_length_int64_full_length_is_unmasked():
    net, t = _make("GRU", 3, 4)
    x = f32(4, 2, 3)
    out, h = net(ms.Tensor(x), seq_length=ms.Tensor(np.array([4, 4], np.int64)))
    tout, th = t(torch.tensor(x).double())
    _close(out, _np(tout))
    _close(h, _np(th))


@pytest.mark.parametrize("kind", ["LSTMCell", "GRUCell", "RNNCell"])
def test_cells_match_torch(mode, kind):
    B, I, H = 3, 4, 5
    kws = [dict()] + ([dict(nonlinearity="relu")] if kind == "RNNCell" else []) \
        + [dict(has_bias=False)]
    for kw in kws:
        net = getattr(nn, kind)(I, H, **kw)
        tkw = dict(input_size=I, hidden_size=H, bias=kw.get("has_bias", True))
        if "nonlinearity" in kw:
            tkw["nonlinearity"] = kw["nonlinearity"]
        t = _torch_twin(net, kind, **tkw)
        x, h, c = f32(B, I), f32(B, H), f32(B, H)
        tx, th, tc = (torch.tensor(a).double() for a in (x, h, c))
        if kind == "LSTMCell":
            h1, c1 = net(ms.Tensor(x), (ms.Tensor(h), ms.Tensor(c)))
            th1, tc1 = t(tx, (th, tc))
            _close(h1, _np(th1))
            _close(c1, _np(tc1))
        else:
            _close(net(ms.Tensor(x), ms.Tensor(h)), _np(t(tx, th)))


def test_parameters_names_shapes_and_init():
    ms.set_seed(3)
    net = nn.LSTM(10, 16, num_layers=2, bidirectional=True)
    shapes = {p.name: tuple(p.shape) for p in net.get_parameters()}
    assert list(shapes)[:5] == ["weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0",
                                "weight_ih_l0_reverse"]
    assert shapes["weight_ih_l0"] == (64, 10) and shapes["weight_hh_l0"] == (64, 16)
    assert shapes["weight_ih_l1_reverse"] == (64, 32) and shapes["bias_hh_l1"] == (64,)
    assert len(shapes) == 16
    bound = 1 / np.sqrt(16)
    allw = np.concatenate([p.asnumpy().ravel() for p in net.get_parameters()])
    assert np.all(np.abs(allw) <= bound) and allw.std() > 0.5 * bound / np.sqrt(3)
    assert len(nn.GRU(3, 5, has_bias=False).trainable_params()) == 2
    assert tuple(nn.GRU(3, 5).weight_ih_l0.shape) == (15, 3)
    assert tuple(nn.RNN(3, 5).weight_hh_l0.shape) == (5, 5)
    cell = nn.LSTMCell(3, 5)
    assert [p.name for p in cell.get_parameters()] == ["weight_ih", "weight_hh", "bias_ih",
                                                       "bias_hh"]

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.rnn = nn.GRU(3, 4)

    assert [p.name for p in Net().get_parameters()][0] == "rnn.weight_ih_l0"
    # MindSpore's RNN takes nonlinearity by keyword only: positional args are _RNNBase's
    r = nn.RNN(3, 4, 2, False, True)
    assert r.num_layers == 2 and r.has_bias is False and r.batch_first is True
    assert r.nonlinearity == "tanh"
    ms.set_seed(3)
    again = nn.LSTM(10, 16, num_layers=2, bidirectional=True)
    np.testing.assert_array_equal(again.weight_hh_l1.asnumpy(), net.weight_hh_l1.asnumpy())


def _torch_grads(t, x, kind, cot, hx=None):
    tx = torch.tensor(x).double().requires_grad_(True)
    out, state = t(tx, hx)
    h = state[0] if kind == "LSTM" else state
    loss = (out * torch.tensor(cot[0]).double()).sum() + (h * torch.tensor(cot[1]).double()).sum()
    loss.backward()
    return tx.grad.numpy(), {n: p.grad.numpy() for n, p in t.named_parameters()}


@pytest.mark.parametrize("kind", ["LSTM", "GRU", "RNN"])
def test_gradients_match_torch_autograd(mode, path, kind):
    T_, B, I, H = 4, 2, 3, 4
    net, t = _make(kind, I, H, num_layers=2, bidirectional=True)
    x = f32(T_, B, I)
    cot = (f32(T_, B, 2 * H), f32(4, B, H))
    params = net.trainable_params()

    def loss(xt):
        out, state = net(xt)
        h = state[0] if kind == "LSTM" else state
        return ops.reduce_sum(out * ms.Tensor(cot[0])) + ops.reduce_sum(h * ms.Tensor(cot[1]))

    gx, gw = ms.grad(loss, 0, params)(ms.Tensor(x))
    want_x, want_w = _torch_grads(t, x, kind, cot)
    _close(gx, want_x, rtol=1e-4, atol=1e-5)
    for p, g in zip(params, gw):
        _close(g, want_w[p.name], rtol=1e-4, atol=1e-5)


def test_gradients_with_seq_length_inside_jit(path):
    """The LSTM inside a user's @jit train step: value_and_grad with seq_length masking."""
    T_, B, I, H = 5, 3, 2, 3
    net, t = _make("LSTM", I, H, bidirectional=True)
    x, lengths = f32(T_, B, I), np.array([5, 3, 1], np.int32)
    cot = f32(T_, B, 2 * H)

    def forward(xt, sl):
        out, (h, c) = net(xt, None, sl)
        return ops.reduce_sum(out * ms.Tensor(cot)) + ops.reduce_sum(c)

    grad_fn = ms.value_and_grad(forward, None, net.trainable_params())

    @ms.jit
    def step(xt, sl):
        return grad_fn(xt, sl)

    value, grads = step(ms.Tensor(x), ms.Tensor(lengths))
    packed = torch.nn.utils.rnn.pack_padded_sequence(torch.tensor(x).double(),
                                                     torch.tensor(lengths), enforce_sorted=False)
    pout, (th, tc) = t(packed)
    tout, _ = torch.nn.utils.rnn.pad_packed_sequence(pout, total_length=T_)
    tloss = (tout * torch.tensor(cot).double()).sum() + tc.sum()
    tloss.backward()
    np.testing.assert_allclose(float(value.asnumpy()), tloss.item(), rtol=1e-5)
    want = {n: p.grad.numpy() for n, p in t.named_parameters()}
    for p, g in zip(net.trainable_params(), grads):
        _close(g, want[p.name], rtol=1e-4, atol=1e-5)


def test_cell_gradients_match_torch(mode):
    net = nn.GRUCell(3, 4)
    t = _torch_twin(net, "GRUCell", input_size=3, hidden_size=4)
    x, h, cot = f32(2, 3), f32(2, 4), f32(2, 4)
    gx, gh = ms.grad(lambda a, b: ops.reduce_sum(net(a, b) * ms.Tensor(cot)), (0, 1))(
        ms.Tensor(x), ms.Tensor(h))
    tx, th = (torch.tensor(a).double().requires_grad_(True) for a in (x, h))
    (t(tx, th) * torch.tensor(cot).double()).sum().backward()
    _close(gx, tx.grad.numpy(), rtol=1e-4, atol=1e-5)
    _close(gh, th.grad.numpy(), rtol=1e-4, atol=1e-5)


def test_dropout_between_layers_only_in_training(mode):
    net, t = _make("GRU", 3, 8, num_layers=2, dropout=0.5)
    x = f32(4, 2, 3)
    tout, _ = t.eval()(torch.tensor(x).double())
    _close(net(ms.Tensor(x))[0], _np(tout))          # eval: no dropout
    net.set_train(True)
    out_train = net(ms.Tensor(x))[0].asnumpy()
    assert not np.allclose(out_train, _np(tout), atol=1e-3)
    one, _ = _make("GRU", 3, 8, dropout=0.5)         # one layer: nothing to drop
    one.set_train(True)
    ref = _torch_twin(one, "GRU", input_size=3, hidden_size=8)
    _close(one(ms.Tensor(x))[0], _np(ref(torch.tensor(x).double())[0]))


def test_float16_input_gives_float16_results(mode, path):
    """As MindSpore: results in x's dtype; float16 weights (dtype=) or float32 ones."""
    x = f32(4, 2, 3)
    for dt in (ms.float32, ms.float16):
        net = nn.LSTM(3, 4, dtype=dt)
        assert net.weight_ih_l0.dtype == dt
        ref, _ = net(ms.Tensor(x))
        out, (h, c) = net(ms.Tensor(x.astype(np.float16)))
        assert out.dtype == h.dtype == c.dtype == ms.float16
        _close(out.asnumpy().astype(np.float32), ref.asnumpy(), rtol=0, atol=3e-3)


def test_lstm_in_graph_mode_network():
    """A MindSpore-style model: LSTM + Dense on the last step, compiled (GRAPH_MODE)."""
    class Model(nn.Cell):
        def __init__(self):
            super().__init__()
            self.lstm = nn.LSTM(3, 5, batch_first=True)
            self.fc = nn.Dense(5, 2)

        def construct(self, x):
            out, (h, c) = self.lstm(x)
            return self.fc(out[:, -1, :])

    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        m = Model()
        x = f32(2, 4, 3)
        y = m(ms.Tensor(x)).asnumpy()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    t = _torch_twin(m.lstm, "LSTM", input_size=3, hidden_size=5, batch_first=True)
    out, _ = t(torch.tensor(x).double())
    want = _np(out[:, -1, :]) @ m.fc.weight.asnumpy().T + m.fc.bias.asnumpy()
    _close(y, want)


# ---- bad input: MindSpore's error types, naming the argument -----------------------------------
def test_bad_constructor_arguments():
    with pytest.raises(ValueError, match="'nonlinearity'"):
        nn.RNN(3, 4, nonlinearity="sigmoid")
    with pytest.raises(ValueError, match="'nonlinearity'"):
        nn.RNNCell(3, 4, nonlinearity="gelu")
    with pytest.raises(TypeError, match="'nonlinearity'"):
        nn.RNNCell(3, 4, nonlinearity=1)
    with pytest.raises(TypeError, match="nonlinearity"):
        nn.LSTM(3, 4, nonlinearity="tanh")
    for bad in (1.0, -0.1, 1.5):
        with pytest.raises(ValueError, match="'dropout'"):
            nn.LSTM(3, 4, num_layers=2, dropout=bad)
    with pytest.raises(TypeError, match="'dropout'"):
        nn.GRU(3, 4, dropout="0.1")
    with pytest.raises(ValueError, match="'hidden_size'"):
        nn.GRU(3, 0)
    with pytest.raises(ValueError, match="'num_layers'"):
        nn.LSTM(3, 4, num_layers=0)
    with pytest.raises(TypeError, match="'input_size'"):
        nn.RNN(3.5, 4)
    with pytest.raises(TypeError, match="'batch_first'"):
        nn.LSTM(3, 4, batch_first=1)
    with pytest.raises(TypeError, match="'input_size'"):
        nn.GRUCell(True, 4)


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_bad_call_arguments(mode, kind):
    net = getattr(nn, kind)(3, 4, num_layers=2)

    def hx_of(shape):
        z = ms.Tensor(np.zeros(shape, np.float32))
        return (z, z) if kind == "LSTM" else z

    with pytest.raises(ValueError, match="'x' must be a 3-D"):
        net(ms.Tensor(f32(5, 3)))
    with pytest.raises(ValueError, match="last dim of 'x' must be input_size 3"):
        net(ms.Tensor(f32(5, 2, 4)))
    with pytest.raises(ValueError, match=r"shape of 'hx(\[0\])?' must be \(2, 2, 4\)"):
        net(ms.Tensor(f32(5, 2, 3)), hx_of((1, 2, 4)))
    with pytest.raises(ValueError, match="shape of 'hx"):
        net(ms.Tensor(f32(5, 2, 3)), hx_of((2, 3, 4)))
    with pytest.raises(TypeError, match="dtype of 'x'"):
        net(ms.Tensor(np.zeros((5, 2, 3), np.int32)))
    with pytest.raises(TypeError, match="dtype of 'seq_length'"):
        net(ms.Tensor(f32(5, 2, 3)), None, ms.Tensor(np.array([5.0, 2.0], np.float32)))
    with pytest.raises(ValueError, match="shape of 'seq_length'"):
        net(ms.Tensor(f32(5, 2, 3)), None, ms.Tensor(np.array([5, 2, 1], np.int32)))
    if kind == "LSTM":
        with pytest.raises(TypeError, match="'hx' must be a tuple"):
            net(ms.Tensor(f32(5, 2, 3)), ms.Tensor(np.zeros((2, 2, 4), np.float32)))


def test_bad_cell_call_arguments(mode):
    cell = nn.LSTMCell(3, 4)
    h = ms.Tensor(np.zeros((2, 4), np.float32))
    with pytest.raises(ValueError, match="shape of 'x'"):
        cell(ms.Tensor(f32(2, 5)), (h, h))
    with pytest.raises(ValueError, match="shape of 'x'"):
        cell(ms.Tensor(f32(3)), (h, h))
    with pytest.raises(ValueError, match=r"shape of 'hx\[1\]'"):
        cell(ms.Tensor(f32(2, 3)), (h, ms.Tensor(np.zeros((3, 4), np.float32))))
    with pytest.raises(TypeError, match="'hx' must be a tuple"):
        cell(ms.Tensor(f32(2, 3)), h)
    with pytest.raises(ValueError, match="shape of 'hx'"):
        nn.RNNCell(3, 4)(ms.Tensor(f32(2, 3)), ms.Tensor(np.zeros((2, 5), np.float32)))
