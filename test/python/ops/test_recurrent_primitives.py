"""The rest of MindSpore's 200 most used primitives (issue 12): DynamicRNN, DynamicGRUV2,
LSTM (flat weights), MaxPoolWithArgmax, DropoutGenMask/DropoutDoMask,
FusedWeightScaleApplyMomentum, Sum, Morph, MoveTo, AlltoAllV on one process — against
numpy transcriptions of the documented formulas, gradients against finite differences,
a bad argument each."""
import numpy as np
import pytest
from support.gradcheck import fd

import msmlir as ms
from msmlir.ops import operations as P

RNG = np.random.default_rng(77)


def T(a):
    return ms.Tensor(a)


def np_(t):
    return t.asnumpy() if hasattr(t, "asnumpy") else np.asarray(t)


def sig(x):
    return 1 / (1 + np.exp(-x))



# ---- DynamicRNN ------------------------------------------------------------------------------

def dynamic_rnn_ref(x, w, b, h, c, forget_bias):
    hs = w.shape[1] // 4
    outs = {k: [] for k in "hcijfot"}
    for t in range(x.shape[0]):
        g = np.concatenate([x[t], h], 1) @ w + b
        i, j, f, o = sig(g[:, :hs]), np.tanh(g[:, hs:2 * hs]), \
            sig(g[:, 2 * hs:3 * hs] + forget_bias), sig(g[:, 3 * hs:])
        c = f * c + i * j
        h = o * np.tanh(c)
        for k, v in zip("hcijfot", (h, c, i, j, f, o, np.tanh(c))):
            outs[k].append(v)
    return {k: np.stack(v) for k, v in outs.items()}


@pytest.mark.parametrize("mode", ["pynative", "jit"])
def test_dynamic_rnn(mode):
    steps, batch, isz, hs = 4, 2, 3, 5
    x = RNG.standard_normal((steps, batch, isz))
    w = RNG.standard_normal((isz + hs, 4 * hs)) * 0.5
    b = RNG.standard_normal(4 * hs) * 0.1
    h0, c0 = RNG.standard_normal((1, batch, hs)), RNG.standard_normal((1, batch, hs))
    op = P.DynamicRNN(forget_bias=1.0)
    f = (lambda *a: op(*a)) if mode == "pynative" else ms.jit(lambda *a: op(*a))
    out = [np_(v) for v in f(T(x), T(w), T(b), None, T(h0), T(c0))]
    ref = dynamic_rnn_ref(x, w, b, h0[0], c0[0], 1.0)
    for got, k in zip(out, "hhcijfot"):
        np.testing.assert_allclose(got, ref[k], rtol=1e-12, atol=1e-14)
    wt = RNG.standard_normal((steps, batch, hs))
    gx, gw = ms.grad(lambda a, ww: (op(a, ww, T(b), None, T(h0), T(c0))[0] * T(wt)).sum(),
                     (0, 1))(T(x), T(w))
    fr = lambda a, ww: (dynamic_rnn_ref(a, ww, b, h0[0], c0[0], 1.0)["h"] * wt).sum()  # noqa
    np.testing.assert_allclose(np_(gx), fd(lambda a: fr(a, w), x), atol=1e-7)
    np.testing.assert_allclose(np_(gw), fd(lambda ww: fr(x, ww), w), atol=1e-7)
    with pytest.raises(ValueError, match="w must be"):
        op(T(x), T(w[:-1]), T(b), None, T(h0), T(c0))
    with pytest.raises(ValueError, match="use_peephole=True is not supported"):
        P.DynamicRNN(use_peephole=True)(T(x), T(w), T(b), None, T(h0), T(c0))


# ---- DynamicGRUV2 ------------------------------------------------------------------------------

def gru_ref(x, wi, wh, bi, bh, h, order):
    hs = wh.shape[0]
    r_, z_ = (0, 1) if order == "rzh" else (1, 0)
    outs = {k: [] for k in ("h", "z", "r", "n", "hn")}
    for t in range(x.shape[0]):
        xw, hw = x[t] @ wi + bi, h @ wh + bh
        blk = lambda a, q: a[:, q * hs:(q + 1) * hs]           # noqa: E731
        r = sig(blk(xw, r_) + blk(hw, r_))
        z = sig(blk(xw, z_) + blk(hw, z_))
        n = np.tanh(blk(xw, 2) + r * blk(hw, 2))
        h = (1 - z) * n + z * h
        for k, v in zip(("h", "z", "r", "n", "hn"), (h, z, r, n, blk(hw, 2))):
            outs[k].append(v)
    return {k: np.stack(v) for k, v in outs.items()}


@pytest.mark.parametrize("order", ["rzh", "zrh"])
def test_dynamic_gru_v2(order):
    steps, batch, isz, hs = 3, 2, 4, 3
    x = RNG.standard_normal((steps, batch, isz))
    wi, wh = RNG.standard_normal((isz, 3 * hs)) * 0.5, RNG.standard_normal((hs, 3 * hs)) * 0.5
    bi, bh = RNG.standard_normal(3 * hs) * 0.1, RNG.standard_normal(3 * hs) * 0.1
    h0 = RNG.standard_normal((batch, hs))
    op = P.DynamicGRUV2(gate_order=order)
    out = [np_(v) for v in op(T(x), T(wi), T(wh), T(bi), T(bh), None, T(h0))]
    ref = gru_ref(x, wi, wh, bi, bh, h0, order)
    for got, k in zip(out, ("h", "h", "z", "r", "n", "hn")):
        np.testing.assert_allclose(got, ref[k], rtol=1e-12, atol=1e-14)
    wt = RNG.standard_normal((steps, batch, hs))
    g = ms.jit(ms.grad(lambda a: (op(T(x), T(wi), a, T(bi), T(bh), None, T(h0))[0] *
                                  T(wt)).sum()))(T(wh))
    fr = lambda a: (gru_ref(x, wi, a, bi, bh, h0, order)["h"] * wt).sum()   # noqa: E731
    np.testing.assert_allclose(np_(g), fd(fr, wh), atol=1e-7)
    with pytest.raises(ValueError, match="reset_after=False is not supported"):
        P.DynamicGRUV2(reset_after=False)(T(x), T(wi), T(wh), T(bi), T(bh), None, T(h0))


# ---- LSTM (flat weights) ------------------------------------------------------------------------

def lstm_ref(x, h0, c0, w, isz, hs, layers, bidir, has_bias):
    d = 2 if bidir else 1
    g = 4 * hs
    off = 0

    def take(shape):
        nonlocal off
        n = int(np.prod(shape))
        out = w[off:off + n].reshape(shape)
        off += n
        return out

    w_ih = [[take((g, isz if l == 0 else hs * d)) for _ in range(d)] for l in range(layers)]
    w_hh = [[take((g, hs)) for _ in range(d)] for _ in range(layers)]
    bias = [[take((g,)) if has_bias else np.zeros(g) for _ in range(d)] for _ in range(layers)]
    inp = x
    hn, cn = [], []
    for l in range(layers):
        outs = []
        for k in range(d):
            h, c = h0[l * d + k], c0[l * d + k]
            seq = [None] * x.shape[0]
            for t in (range(x.shape[0] - 1, -1, -1) if k else range(x.shape[0])):
                gates = inp[t] @ w_ih[l][k].T + h @ w_hh[l][k].T + bias[l][k]
                i, f, gg, o = (gates[:, q * hs:(q + 1) * hs] for q in range(4))
                c = sig(f) * c + sig(i) * np.tanh(gg)
                h = sig(o) * np.tanh(c)
                seq[t] = h
            outs.append(np.stack(seq))
            hn.append(h)
            cn.append(c)
        inp = np.concatenate(outs, -1)
    return inp, np.stack(hn), np.stack(cn)


@pytest.mark.parametrize("layers, bidir, has_bias", [(1, False, True), (2, True, True),
                                                      (2, False, False)])
def test_lstm_flat_weights(layers, bidir, has_bias):
    from msmlir.ops.operations._recurrent import lstm_weight_size
    steps, batch, isz, hs = 3, 2, 4, 3
    d = 2 if bidir else 1
    size = lstm_weight_size(isz, hs, layers, has_bias, bidir)
    w = RNG.standard_normal((size, 1, 1)) * 0.4
    x = RNG.standard_normal((steps, batch, isz))
    h0 = RNG.standard_normal((layers * d, batch, hs))
    c0 = RNG.standard_normal((layers * d, batch, hs))
    op = P.LSTM(isz, hs, layers, has_bias, bidir, 0.0)
    out, hn, cn, _, _ = op(T(x), T(h0), T(c0), T(w))
    ref = lstm_ref(x, h0, c0, w.reshape(-1), isz, hs, layers, bidir, has_bias)
    for got, r in zip((out, hn, cn), ref):
        np.testing.assert_allclose(np_(got), r, rtol=1e-12, atol=1e-14)
    if layers == 1:
        wt = RNG.standard_normal(ref[0].shape)
        g = ms.grad(lambda ww: (op(T(x), T(h0), T(c0), ww)[0] * T(wt)).sum())(T(w))
        fr = lambda ww: (lstm_ref(x, h0, c0, ww.reshape(-1), isz, hs, 1, bidir, has_bias)[0]
                         * wt).sum()
        np.testing.assert_allclose(np_(g), fd(fr, w), atol=1e-7)
    with pytest.raises(ValueError, match="w must hold"):
        op(T(x), T(h0), T(c0), T(w[:-1]))


def test_lstm_matches_torch_with_summed_biases():
    torch = pytest.importorskip("torch")
    steps, batch, isz, hs = 4, 3, 5, 6
    ref = torch.nn.LSTM(isz, hs, 1, bidirectional=True).double()
    x = RNG.standard_normal((steps, batch, isz))
    h0, c0 = RNG.standard_normal((2, batch, hs)), RNG.standard_normal((2, batch, hs))
    sfx = ("", "_reverse")
    p = {n: v.detach().numpy() for n, v in ref.named_parameters()}
    flat = np.concatenate([p[f"weight_ih_l0{s}"].ravel() for s in sfx] +
                          [p[f"weight_hh_l0{s}"].ravel() for s in sfx] +
                          [(p[f"bias_ih_l0{s}"] + p[f"bias_hh_l0{s}"]) for s in sfx] +
                          [np.zeros(8 * hs)])          # the unused half of the bias space
    out, hn, cn, _, _ = P.LSTM(isz, hs, 1, True, True, 0.0)(T(x), T(h0), T(c0), T(flat))
    t_out, (t_h, t_c) = ref(torch.tensor(x), (torch.tensor(h0), torch.tensor(c0)))
    np.testing.assert_allclose(np_(out), t_out.detach().numpy(), rtol=1e-10)
    np.testing.assert_allclose(np_(hn), t_h.detach().numpy(), rtol=1e-10)
    np.testing.assert_allclose(np_(cn), t_c.detach().numpy(), rtol=1e-10)


# ---- MaxPoolWithArgmax ----------------------------------------------------------------------------

def pool_ref(x, k, s, pad_mode):
    n, c, h, w = x.shape
    if pad_mode == "valid":
        oh, ow, pt, pl = (h - k[0]) // s[0] + 1, (w - k[1]) // s[1] + 1, 0, 0
    else:
        oh, ow = -(-h // s[0]), -(-w // s[1])
        pt = max((oh - 1) * s[0] + k[0] - h, 0) // 2
        pl = max((ow - 1) * s[1] + k[1] - w, 0) // 2
    out = np.zeros((n, c, oh, ow), x.dtype)
    idx = np.zeros((n, c, oh, ow), np.int32)
    for i in range(oh):
        for j in range(ow):
            best, arg = -np.inf, None
            for a in range(k[0]):
                for b in range(k[1]):
                    y, z = i * s[0] + a - pt, j * s[1] + b - pl
                    if 0 <= y < h and 0 <= z < w:
                        v = x[:, :, y, z]
                        take = (v > best) if arg is None else (v > best)
                        best = np.where(take, v, best)
                        arg = np.where(take, y * w + z, arg if arg is not None else 0)
            out[:, :, i, j], idx[:, :, i, j] = best, arg
    return out, idx


@pytest.mark.parametrize("k, s, mode", [(2, 2, "VALID"), (3, 2, "SAME"), ((1, 1, 3, 2), 1,
                                                                          "valid")])
def test_max_pool_with_argmax(k, s, mode):
    x = RNG.standard_normal((2, 3, 7, 6)).astype(np.float32)
    op = P.MaxPoolWithArgmax(kernel_size=k, strides=s, pad_mode=mode)
    out, idx = op(T(x))
    kk = (k, k) if isinstance(k, int) else k[2:]
    ref_o, ref_i = pool_ref(x, kk, (s, s), mode.lower())
    np.testing.assert_array_equal(np_(out), ref_o)
    np.testing.assert_array_equal(np_(idx), ref_i)
    assert np_(idx).dtype == np.int32
    # the gradient goes to each window's argmax
    g = np_(ms.grad(lambda a: op(a)[0].sum())(T(x)))
    want = np.zeros_like(x).reshape(2, 3, -1)
    for (a, b), _ in np.ndenumerate(ref_i[:, :, 0, 0]):
        np.add.at(want[a, b], ref_i[a, b].ravel(), 1.0)
    np.testing.assert_array_equal(g, want.reshape(x.shape))


def test_max_pool_with_argmax_matches_torch_indices():
    torch = pytest.importorskip("torch")
    x = RNG.standard_normal((1, 2, 9, 8)).astype(np.float32)
    _, idx = P.MaxPoolWithArgmax(kernel_size=3, strides=2)(T(x))
    _, tidx = torch.nn.functional.max_pool2d(torch.tensor(x), 3, 2, return_indices=True)
    np.testing.assert_array_equal(np_(idx), tidx.numpy())
    with pytest.raises(ValueError, match="pad_mode must be"):
        P.MaxPoolWithArgmax(kernel_size=2, pad_mode="full")(T(x))


# ---- dropout masks, momentum, small ones ---------------------------------------------------------

def unpack(mask, n):
    return np.unpackbits(mask.view(np.uint8), bitorder="little")[:n]


def test_dropout_gen_mask_and_do_mask():
    shape, keep = (7, 50), 0.7
    mask = np_(P.DropoutGenMask(Seed0=1, Seed1=2)(shape, keep))
    assert mask.shape == (48,) and mask.dtype == np.int8       # ceil(350 / 128) * 16 bytes
    bits = unpack(mask, 350)
    assert 0.6 < bits.mean() < 0.8
    x = RNG.standard_normal(shape).astype(np.float32)
    y = np_(P.DropoutDoMask()(T(x), T(mask), keep))
    np.testing.assert_allclose(y, x * bits.reshape(shape) / keep, rtol=1e-6)
    full = np_(P.DropoutGenMask()(shape, 1.0))
    assert (full == -1).all()                                  # every bit kept
    g = np_(ms.grad(lambda a: P.DropoutDoMask()(a, T(mask), keep).sum())(T(x)))
    np.testing.assert_allclose(g, bits.reshape(shape) / keep, rtol=1e-6)
    with pytest.raises(ValueError, match="keep_prob must be in"):
        P.DropoutGenMask()(shape, 1.5)
    with pytest.raises(ValueError, match="byte mask"):
        P.DropoutDoMask()(T(x), T(mask[:10]), keep)


def test_fused_weight_scale_apply_momentum():
    v0, a0 = RNG.standard_normal((3, 4)), RNG.standard_normal((3, 4))
    g = RNG.standard_normal((3, 4))
    var, acc = ms.Parameter(T(v0.copy()), name="v"), ms.Parameter(T(a0.copy()), name="a")
    P.FusedWeightScaleApplyMomentum()(T(np.array(0.01)), T(np.array(0.5)), var, acc,
                                      T(np.array(0.1)), T(g), T(np.array(0.9)))
    acc_ref = 0.9 * a0 + (v0 * 0.01 + g * 0.5)
    np.testing.assert_allclose(acc.asnumpy(), acc_ref, rtol=1e-12)
    np.testing.assert_allclose(var.asnumpy(), v0 - 0.1 * acc_ref, rtol=1e-12)
    with pytest.raises(TypeError):
        P.FusedWeightScaleApplyMomentum(1.0)


def test_sum_morph_move_to():
    x = RNG.standard_normal((3, 4)).astype(np.float32)
    np.testing.assert_allclose(np_(P.Sum()(T(x), 1, True)), x.sum(1, keepdims=True), rtol=1e-6)
    i = np.arange(6, dtype=np.int32).reshape(2, 3)
    got = np_(P.Sum()(T(i)))
    assert got == 15 and got.dtype == np.int64
    morph = P.Morph(lambda a, b: a * b + 1.0, lambda *s: s[0], lambda *d: d[0])
    np.testing.assert_allclose(np_(morph(T(x), T(x))), x * x + 1, rtol=1e-6)
    np.testing.assert_allclose(np_(ms.jit(lambda a: morph(a, a))(T(x))), x * x + 1, rtol=1e-6)

    def bprop(a, out, dout):
        return (dout * 3.0,)

    tripled = P.Morph(lambda a: a * 2.0, None, None, bprop_fn=bprop)
    g = np_(ms.grad(lambda a: tripled(a).sum())(T(x)))
    np.testing.assert_allclose(g, np.full_like(x, 3.0))
    moved = P.MoveTo()(T(x), "CPU", True)
    np.testing.assert_array_equal(np_(moved), x)
    with pytest.raises(ValueError, match="to must be one of"):
        P.MoveTo()(T(x), "TPU")
    with pytest.raises(TypeError, match="fn must be callable"):
        P.Morph(3, None, None)(T(x))


def test_ext_primitives_and_functional_aliases():
    from msmlir import ops
    x = RNG.standard_normal((3, 5)).astype(np.float32)
    np.testing.assert_array_equal(np_(P.StackExt(1)((T(x), T(-x)))), np.stack([x, -x], 1))
    v, i = P.TopkExt()(T(x), 2, 0, False)
    np.testing.assert_array_equal(np_(v), np.sort(x, 0)[:2])
    np.testing.assert_array_equal(np_(i), np.argsort(x, 0, kind="stable")[:2])
    assert np_(i).dtype == np.int64
    a, b = RNG.standard_normal((2, 3, 4)), RNG.standard_normal((2, 4, 2))
    np.testing.assert_allclose(np_(P.BatchMatMulExt()(T(a), T(b))), a @ b, rtol=1e-12)
    np.testing.assert_allclose(np_(P.CumsumExt()(T(x), 1)), np.cumsum(x, 1), rtol=1e-6)
    np.testing.assert_array_equal(np_(ops.floor_divide(T(x), 0.5)), np.floor_divide(x, 0.5))
    np.testing.assert_allclose(np_(ops.mm(T(a[0]), T(b[0]))), a[0] @ b[0], rtol=1e-12)
    hit = np_(ops.intopk(T(x), T(np.array([0, 1, 4], np.int32)), 2))
    rank = (x > x[np.arange(3), [0, 1, 4]][:, None]).sum(1)
    np.testing.assert_array_equal(hit, rank < 2)
    with pytest.raises(ValueError, match="both inputs must be 2-D"):
        ops.mm(T(a), T(b))
