"""MindSpore's recurrent primitives: DynamicRNN and DynamicGRUV2 (Ascend's fused
LSTM / GRU over a whole sequence, with every gate as an output) and LSTM (the
flat-weight multi-layer LSTM of the CPU/GPU kernels). Each time step is the
same composition as nn.LSTM / nn.GRU (msmlir/nn/rnn_cells.py: one matmul for all
steps' input projections, one per step for the hidden state), unrolled over the
static sequence length; gradients come from differentiating the composition.
"""
from __future__ import annotations

import numpy as _np

from ... import ops as F
from ...frontend import builder as _b


def _t(x):
    return F.to_tensor(x)


# ---- one step of each recurrence -----------------------------------------------------------
# `xw` is x @ w_ih^T + b_ih (the input projection, computed for all time steps at once by the
# multi-layer cells); `h` the previous hidden state; w_hh (G*H, H); b_hh (G*H,) or None.
def _hidden_proj(h, w_hh, b_hh):
    out = F.matmul(h, F.transpose(w_hh, (1, 0)))
    if b_hh is not None:
        out = out + b_hh
    return out


def _input_proj(x, w_ih, b_ih):
    out = F.matmul(x, F.transpose(w_ih, (1, 0)))
    if b_ih is not None:
        out = out + b_ih
    return out


def rnn_tanh_step(xw, h, w_hh, b_hh):
    return F.tanh(xw + _hidden_proj(h, w_hh, b_hh))


def rnn_relu_step(xw, h, w_hh, b_hh):
    return F.relu(xw + _hidden_proj(h, w_hh, b_hh))


def lstm_step(xw, state, w_hh, b_hh):
    """state: (h, c); returns (h', c'). Gates i, f, g, o."""
    h, c = state
    hs = h.shape[-1]
    gates = xw + _hidden_proj(h, w_hh, b_hh)
    i = F.sigmoid(gates[:, 0:hs])
    f = F.sigmoid(gates[:, hs:2 * hs])
    g = F.tanh(gates[:, 2 * hs:3 * hs])
    o = F.sigmoid(gates[:, 3 * hs:4 * hs])
    c2 = f * c + i * g
    h2 = o * F.tanh(c2)
    return h2, c2


def gru_step(xw, h, w_hh, b_hh):
    """Gates r, z, n: n = tanh(x_n + r * (W_hn h + b_hn)); h' = n + z * (h - n)."""
    hs = h.shape[-1]
    hw = _hidden_proj(h, w_hh, b_hh)
    r = F.sigmoid(xw[:, 0:hs] + hw[:, 0:hs])
    z = F.sigmoid(xw[:, hs:2 * hs] + hw[:, hs:2 * hs])
    n = F.tanh(xw[:, 2 * hs:3 * hs] + r * hw[:, 2 * hs:3 * hs])
    return n + z * (h - n)


STEPS = {"RNN_TANH": (rnn_tanh_step, 1), "RNN_RELU": (rnn_relu_step, 1),
         "LSTM": (lstm_step, 4), "GRU": (gru_step, 3)}


def _check_common(s, name, supported):
    for attr, want in supported.items():
        v = getattr(s, attr)
        if v != want and not (isinstance(want, tuple) and v in want):
            _b.error(f"For '{name}', {attr}={v!r} is not supported (only {want!r})",
                     kind=ValueError)


def _shape(t, shape, what, name):
    if tuple(t.shape) != tuple(shape):
        _b.error(f"For '{name}', {what} must have shape {tuple(shape)}, got {tuple(t.shape)}",
                 kind=ValueError)


def _steps(x, w_in, b_in):
    """x (T, B, I) @ w_in (I, G) + b_in for all steps at once: (T, B, G)."""
    t, b, i = x.shape
    xw = F.matmul(F.reshape(x, (t * b, i)), w_in)
    if b_in is not None:
        xw = F.add(xw, b_in)
    return F.reshape(xw, (t, b, w_in.shape[1]))


def dynamic_rnn(s, x, w, b, seq_length=None, init_h=None, init_c=None):
    """(y, output_h, output_c, i, j, f, o, tanhc), each (T, B, H): [x_t, h] @ w + b
    split into the gates i, j, f, o (TensorFlow's BlockLSTM order), f gets
    forget_bias; c = f * c + i * j with sigmoid i, f, o and tanh j; h = o * tanh(c)."""
    name = "DynamicRNN"
    _check_common(s, name, {"cell_type": "LSTM", "direction": "UNIDIRECTIONAL", "cell_depth": 1,
                            "use_peephole": False, "num_proj": 0, "time_major": True,
                            "activation": "tanh"})
    if s.keep_prob != 1.0:
        _b.error(f"For '{name}', keep_prob={s.keep_prob} is not supported (only 1.0)",
                 kind=ValueError)
    if seq_length is not None:
        _b.error(f"For '{name}', seq_length must be None (as MindSpore's Ascend kernel)",
                 kind=ValueError)
    xt, wt, bt = _t(x), _t(w), _t(b)
    if xt.ndim != 3:
        _b.error(f"For '{name}', x must be (num_step, batch, input_size), got {tuple(xt.shape)}",
                 kind=ValueError)
    steps, batch, isz = xt.shape
    if wt.ndim != 2 or wt.shape[1] % 4 or wt.shape[0] != isz + wt.shape[1] // 4:
        _b.error(f"For '{name}', w must be (input_size + hidden_size, 4 * hidden_size), got "
                 f"{tuple(wt.shape)} with input_size {isz}", kind=ValueError)
    h = wt.shape[1] // 4
    _shape(bt, (4 * h,), "b", name)
    zero = F.zeros((batch, h), xt.dtype)
    hh = zero if init_h is None else F.reshape(_t(init_h), (batch, h))
    cc = zero if init_c is None else F.reshape(_t(init_c), (batch, h))
    w_x = F.slice(wt, (0, 0), (isz, 4 * h))
    w_h = F.slice(wt, (isz, 0), (h, 4 * h))
    xw = _steps(xt, w_x, bt)
    clip = float(s.cell_clip)
    outs = {k: [] for k in ("h", "c", "i", "j", "f", "o", "tanhc")}
    for t in range(steps):
        g = F.add(xw[t], F.matmul(hh, w_h))
        gi, gj, gf, go = F.split(g, h, 1)
        i = F.sigmoid(gi)
        j = F.tanh(gj)
        f = F.sigmoid(F.add(gf, float(s.forget_bias)))
        o = F.sigmoid(go)
        cc = F.add(F.mul(f, cc), F.mul(i, j))
        if clip > 0:
            cc = F.clip_by_value(cc, -clip, clip)
        tc = F.tanh(cc)
        hh = F.mul(o, tc)
        for k, v in (("h", hh), ("c", cc), ("i", i), ("j", j), ("f", f), ("o", o),
                     ("tanhc", tc)):
            outs[k].append(v)
    st = {k: F.stack(v, 0) for k, v in outs.items()}
    return (st["h"], st["h"], st["c"], st["i"], st["j"], st["f"], st["o"], st["tanhc"])


def dynamic_gru_v2(s, x, weight_input, weight_hidden, bias_input=None, bias_hidden=None,
                   seq_length=None, init_h=None):
    """(y, output_h, update, reset, new, hidden_new), each (T, B, H): with gate_order
    'rzh' (or 'zrh') column blocks of weight_input (I, 3H) / weight_hidden (H, 3H),
    r = σ(x W_ir + b_ir + h W_hr + b_hr), z likewise, hidden_new = h W_hn + b_hn,
    n = tanh(x W_in + b_in + r * hidden_new), h' = (1 - z) * n + z * h."""
    name = "DynamicGRUV2"
    _check_common(s, name, {"direction": "UNIDIRECTIONAL", "cell_depth": 1, "num_proj": 0,
                            "time_major": True, "activation": "tanh", "reset_after": True,
                            "gate_order": ("rzh", "zrh")})
    if s.keep_prob != 1.0:
        _b.error(f"For '{name}', keep_prob={s.keep_prob} is not supported (only 1.0)",
                 kind=ValueError)
    if seq_length is not None:
        _b.error(f"For '{name}', seq_length must be None", kind=ValueError)
    xt, wi, wh = _t(x), _t(weight_input), _t(weight_hidden)
    if xt.ndim != 3:
        _b.error(f"For '{name}', x must be (num_step, batch, input_size), got {tuple(xt.shape)}",
                 kind=ValueError)
    steps, batch, isz = xt.shape
    if wh.ndim != 2 or wh.shape[1] != 3 * wh.shape[0]:
        _b.error(f"For '{name}', weight_hidden must be (hidden_size, 3 * hidden_size), got "
                 f"{tuple(wh.shape)}", kind=ValueError)
    h = wh.shape[0]
    _shape(wi, (isz, 3 * h), "weight_input", name)
    bi = None if bias_input is None else _t(bias_input)
    bh = None if bias_hidden is None else _t(bias_hidden)
    for v, what in ((bi, "bias_input"), (bh, "bias_hidden")):
        if v is not None:
            _shape(v, (3 * h,), what, name)
    hh = F.zeros((batch, h), xt.dtype) if init_h is None else F.reshape(_t(init_h), (batch, h))
    xw = _steps(xt, wi, bi)
    rz = (0, 1) if s.gate_order == "rzh" else (1, 0)
    outs = {k: [] for k in ("h", "z", "r", "n", "hn")}
    clip = float(s.cell_clip)
    for t in range(steps):
        hw = F.matmul(hh, wh)
        if bh is not None:
            hw = F.add(hw, bh)
        xs, hs = F.split(xw[t], h, 1), F.split(hw, h, 1)
        r = F.sigmoid(F.add(xs[rz[0]], hs[rz[0]]))
        z = F.sigmoid(F.add(xs[rz[1]], hs[rz[1]]))
        n = F.tanh(F.add(xs[2], F.mul(r, hs[2])))
        hh = F.add(n, F.mul(z, F.sub(hh, n)))
        if clip > 0:
            hh = F.clip_by_value(hh, -clip, clip)
        for k, v in (("h", hh), ("z", z), ("r", r), ("n", n), ("hn", hs[2])):
            outs[k].append(v)
    st = {k: F.stack(v, 0) for k, v in outs.items()}
    return st["h"], st["h"], st["z"], st["r"], st["n"], st["hn"]


def lstm_weight_size(input_size, hidden_size, num_layers, has_bias, bidirectional):
    """The length of P.LSTM's flat weight (MindSpore's formula: per layer and direction
    4H * (layer input + H), plus 2 * 4H with bias)."""
    d = 2 if bidirectional else 1
    g = 4 * hidden_size
    size = 0
    for layer in range(num_layers):
        inp = input_size if layer == 0 else hidden_size * d
        size += (g * inp + g * hidden_size + (2 * g if has_bias else 0)) * d
    return size


def lstm(s, x, h, c, w):
    """(output, h_n, c_n, reserve, state): the multi-layer LSTM of MindSpore's CPU kernel
    with its flat weight layout: every (layer, direction)'s w_ih (4H, layer input),
    then every w_hh (4H, H), then one bias (4H) per (layer, direction); gates i, f, g, o."""
    name = "LSTM"
    if getattr(s, "proj_size", 0):
        _b.error(f"For '{name}', proj_size > 0 is not supported", kind=ValueError)
    xt, ht, ct, wt = _t(x), _t(h), _t(c), _t(w)
    isz, hsz, layers = int(s.input_size), int(s.hidden_size), int(s.num_layers)
    d = 2 if s.bidirectional else 1
    if xt.ndim != 3 or xt.shape[2] != isz:
        _b.error(f"For '{name}', x must be (seq_len, batch, {isz}), got {tuple(xt.shape)}",
                 kind=ValueError)
    steps, batch = xt.shape[0], xt.shape[1]
    for v, what in ((ht, "h"), (ct, "c")):
        _shape(v, (layers * d, batch, hsz), what, name)
    need = lstm_weight_size(isz, hsz, layers, s.has_bias, s.bidirectional)
    size = int(_np.prod(wt.shape))
    if size != need:
        _b.error(f"For '{name}', w must hold {need} elements for input_size={isz}, "
                 f"hidden_size={hsz}, num_layers={layers}, has_bias={s.has_bias}, "
                 f"bidirectional={s.bidirectional}; got shape {tuple(wt.shape)}", kind=ValueError)
    flat = F.reshape(wt, (size,))
    g = 4 * hsz
    off = 0

    def take(shape):
        nonlocal off
        n = int(_np.prod(shape))
        part = F.reshape(F.slice(flat, (off,), (n,)), shape)
        off += n
        return part

    w_ih = [[take((g, isz if layer == 0 else hsz * d)) for _ in range(d)] for layer in
            range(layers)]
    w_hh = [[take((g, hsz)) for _ in range(d)] for _ in range(layers)]
    bias = [[take((g,)) if s.has_bias else None for _ in range(d)] for _ in range(layers)]
    layer_in = xt
    h_n, c_n = [], []
    for layer in range(layers):
        outs = []
        for k in range(d):
            idx = layer * d + k
            state = (ht[idx], ct[idx])
            xw = _steps(layer_in, F.transpose(w_ih[layer][k], (1, 0)), bias[layer][k])
            seq = [None] * steps
            for t in (range(steps - 1, -1, -1) if k == 1 else range(steps)):
                state = lstm_step(xw[t], state, w_hh[layer][k], None)
                seq[t] = state[0]
            outs.append(F.stack(seq, 0))
            h_n.append(state[0])
            c_n.append(state[1])
        layer_in = outs[0] if d == 1 else F.concat(outs, 2)
        if s.dropout and layer < layers - 1:
            layer_in = F.dropout(layer_in, float(s.dropout))
    placeholder = F.zeros((1, 1, 1), xt.dtype)
    return layer_in, F.stack(h_n, 0), F.stack(c_n, 0), placeholder, placeholder
