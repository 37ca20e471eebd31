"""Numerics of the mindir nn ops (convolution, pooling and their gradients,
softmax family, normalization, dropout, one_hot, cross-entropy), compiled
through msmlir-cpu-pipeline and compared with numpy references.

References compute in float64 with explicit loops over the kernel window on
the padded input. Gradients are also checked against the forward ops: the
adjoint identities <conv(x, w), dy> == <x, dx> == <w, dw> (using the compiled
forward op) and central finite differences of the numpy forward reference
(pooling, in f64).
"""
from __future__ import annotations

import numpy as np

from mindir_cases import Case, bf16_round, check_cases, compile_cases, rng

F32 = dict(rtol=1e-5, atol=1e-5)


def f64(v: float) -> str:
    """An f64 attribute in a form MLIR parses (it rejects '1e-05')."""
    return f"#raw:{float(v):.17e} : f64"


# ----------------------------------------------------------------------------
# References
# ----------------------------------------------------------------------------


def pads_1d(mode, size, k, s, d, lo, hi):
    """(before, after) padding of one dim (MindSpore/TF "same": extra at the end)."""
    eff = d * (k - 1) + 1
    if mode == "valid":
        return 0, 0
    if mode == "pad":
        return lo, hi
    out = -(-size // s)
    total = max((out - 1) * s + eff - size, 0)
    return total // 2, total - total // 2


def window_geometry(shape_hw, k, s, d, mode, pad):
    """[(pad_before, pad_after, out_size)] for H and W."""
    res = []
    for i in range(2):
        lo, hi = pads_1d(mode, shape_hw[i], k[i], s[i], d[i], pad[2 * i], pad[2 * i + 1])
        eff = d[i] * (k[i] - 1) + 1
        out = -(-shape_hw[i] // s[i]) if mode == "same" else (shape_hw[i] + lo + hi - eff) // s[i] + 1
        res.append((lo, hi, out))
    return res


def conv_attrs(stride=(1, 1), pad_mode="valid", pad=(0, 0, 0, 0), dilation=(1, 1), group=1):
    a = {}
    if tuple(stride) != (1, 1):
        a["stride"] = list(stride)
    if pad_mode != "valid":
        a["pad_mode"] = pad_mode
    if tuple(pad) != (0, 0, 0, 0):
        a["pad"] = list(pad)
    if tuple(dilation) != (1, 1):
        a["dilation"] = list(dilation)
    if group != 1:
        a["group"] = group
    return a


def conv_geometry(x_shape, w_shape, a):
    s = a.get("stride", [1, 1])
    d = a.get("dilation", [1, 1])
    (pt, pb, oh), (pl, pr, ow) = window_geometry(x_shape[2:], w_shape[2:], s, d,
                                                 a.get("pad_mode", "valid"), a.get("pad", [0] * 4))
    return s, d, (pt, pb, pl, pr), (oh, ow), a.get("group", 1)


def conv2d_ref(x, w, a):
    s, d, (pt, pb, pl, pr), (oh, ow), g = conv_geometry(x.shape, w.shape, a)
    x = x.astype(np.float64)
    w = w.astype(np.float64)
    n, c = x.shape[:2]
    o, cg, kh, kw = w.shape
    og = o // g
    xp = np.pad(x, ((0, 0), (0, 0), (pt, pb), (pl, pr)))
    out = np.zeros((n, o, oh, ow))
    for gi in range(g):
        xs = xp[:, gi * cg:(gi + 1) * cg]
        ws = w[gi * og:(gi + 1) * og]
        for i in range(kh):
            for j in range(kw):
                patch = xs[:, :, i * d[0]: i * d[0] + (oh - 1) * s[0] + 1: s[0],
                           j * d[1]: j * d[1] + (ow - 1) * s[1] + 1: s[1]]
                out[:, gi * og:(gi + 1) * og] += np.einsum("nchw,oc->nohw", patch, ws[:, :, i, j])
    return out


def conv2d_backprop_input_ref(dy, w, x_shape, a):
    s, d, (pt, pb, pl, pr), (oh, ow), g = conv_geometry(x_shape, w.shape, a)
    dy = dy.astype(np.float64)
    w = w.astype(np.float64)
    n, c, h, wd = x_shape
    o, cg, kh, kw = w.shape
    og = o // g
    dxp = np.zeros((n, c, h + pt + pb, wd + pl + pr))
    for gi in range(g):
        dys = dy[:, gi * og:(gi + 1) * og]
        ws = w[gi * og:(gi + 1) * og]
        for i in range(kh):
            for j in range(kw):
                dxp[:, gi * cg:(gi + 1) * cg, i * d[0]: i * d[0] + (oh - 1) * s[0] + 1: s[0],
                    j * d[1]: j * d[1] + (ow - 1) * s[1] + 1: s[1]] += \
                    np.einsum("nohw,oc->nchw", dys, ws[:, :, i, j])
    return dxp[:, :, pt:pt + h, pl:pl + wd]


def conv2d_backprop_filter_ref(dy, x, w_shape, a):
    s, d, (pt, pb, pl, pr), (oh, ow), g = conv_geometry(x.shape, w_shape, a)
    dy = dy.astype(np.float64)
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pt, pb), (pl, pr)))
    o, cg, kh, kw = w_shape
    og = o // g
    dw = np.zeros(w_shape)
    for gi in range(g):
        xs = xp[:, gi * cg:(gi + 1) * cg]
        dys = dy[:, gi * og:(gi + 1) * og]
        for i in range(kh):
            for j in range(kw):
                patch = xs[:, :, i * d[0]: i * d[0] + (oh - 1) * s[0] + 1: s[0],
                           j * d[1]: j * d[1] + (ow - 1) * s[1] + 1: s[1]]
                dw[gi * og:(gi + 1) * og, :, i, j] = np.einsum("nchw,nohw->oc", patch, dys)
    return dw


def pool_attrs(k, strides=(1, 1), pad_mode="valid", pad=(0, 0, 0, 0)):
    a = {"kernel_size": list(k)}
    if tuple(strides) != (1, 1):
        a["strides"] = list(strides)
    if pad_mode != "valid":
        a["pad_mode"] = pad_mode
    if tuple(pad) != (0, 0, 0, 0):
        a["pad"] = list(pad)
    return a


def pool_windows(x_shape, a):
    """Yields (oh, ow, row slice, col slice) of every window, clipped to the input."""
    k = a["kernel_size"]
    s = a.get("strides", [1, 1])
    (pt, _, oh), (pl, _, ow) = window_geometry(x_shape[2:], k, s, [1, 1],
                                               a.get("pad_mode", "valid"), a.get("pad", [0] * 4))
    h, w = x_shape[2:]
    for i in range(oh):
        for j in range(ow):
            r0, c0 = i * s[0] - pt, j * s[1] - pl
            yield i, j, slice(max(r0, 0), min(r0 + k[0], h)), slice(max(c0, 0), min(c0 + k[1], w))


def out_hw(x_shape, a):
    k = a["kernel_size"]
    s = a.get("strides", [1, 1])
    g = window_geometry(x_shape[2:], k, s, [1, 1], a.get("pad_mode", "valid"), a.get("pad", [0] * 4))
    return g[0][2], g[1][2]


def max_pool_ref(x, a):
    oh, ow = out_hw(x.shape, a)
    y = np.full(x.shape[:2] + (oh, ow), -np.inf, dtype=x.dtype)
    for i, j, rs, cs in pool_windows(x.shape, a):
        y[:, :, i, j] = x[:, :, rs, cs].max(axis=(2, 3))
    return y


def avg_pool_ref(x, a):
    oh, ow = out_hw(x.shape, a)
    y = np.zeros(x.shape[:2] + (oh, ow))
    for i, j, rs, cs in pool_windows(x.shape, a):
        y[:, :, i, j] = x[:, :, rs, cs].astype(np.float64).mean(axis=(2, 3))
    return y


def max_pool_grad_ref(x, dy, a):
    dx = np.zeros(x.shape)
    n, c = x.shape[:2]
    for i, j, rs, cs in pool_windows(x.shape, a):
        win = x[:, :, rs, cs].reshape(n, c, -1)
        first = win.argmax(axis=2)               # first maximum, row-major
        wcols = cs.stop - cs.start
        for b in range(n):
            for ch in range(c):
                r, q = divmod(int(first[b, ch]), wcols)
                dx[b, ch, rs.start + r, cs.start + q] += dy[b, ch, i, j]
    return dx


def avg_pool_grad_ref(dy, x_shape, a):
    dx = np.zeros(x_shape)
    for i, j, rs, cs in pool_windows(x_shape, a):
        cnt = (rs.stop - rs.start) * (cs.stop - cs.start)
        dx[:, :, rs, cs] += dy[:, :, i:i + 1, j:j + 1].astype(np.float64) / cnt
    return dx


# ----------------------------------------------------------------------------
# Convolution
# ----------------------------------------------------------------------------

# (x shape, w shape, attrs): odd sizes, stride 2, dilation 2, groups 2/4 (depthwise),
# every pad mode, asymmetric explicit padding, a kernel larger than the padding.
CONV_CONFIGS = [
    ((2, 3, 7, 9), (4, 3, 3, 3), conv_attrs()),
    ((1, 3, 9, 8), (5, 3, 3, 2), conv_attrs(stride=(2, 2))),
    ((2, 4, 8, 7), (6, 4, 3, 3), conv_attrs(pad_mode="same")),
    ((1, 4, 9, 10), (4, 4, 3, 4), conv_attrs(stride=(2, 3), pad_mode="same")),
    ((1, 2, 11, 9), (3, 2, 3, 3), conv_attrs(dilation=(2, 2), pad_mode="same")),
    ((2, 4, 9, 9), (6, 2, 3, 3), conv_attrs(pad_mode="pad", pad=(1, 2, 0, 3), dilation=(2, 1),
                                            group=2)),
    ((1, 4, 10, 11), (8, 1, 3, 3), conv_attrs(stride=(2, 2), pad_mode="pad", pad=(1, 1, 1, 1),
                                              group=4)),
    ((1, 6, 8, 8), (4, 3, 2, 2), conv_attrs(stride=(2, 2), group=2, pad_mode="same")),
    ((1, 2, 6, 7), (3, 2, 3, 3), conv_attrs(stride=(3, 2), pad_mode="pad", pad=(4, 0, 0, 3))),
    ((1, 2, 7, 7), (2, 2, 1, 1), conv_attrs(stride=(2, 2))),
]


def _conv_case_data(i, xs, ws, a):
    r = rng(100 + i)
    x = r.standard_normal(xs).astype(np.float32)
    w = r.standard_normal(ws).astype(np.float32)
    _, _, _, (oh, ow), _ = conv_geometry(xs, ws, a)
    dy = r.standard_normal((xs[0], ws[0], oh, ow)).astype(np.float32)
    return x, w, dy


def _conv_cases():
    cases = []
    for i, (xs, ws, a) in enumerate(CONV_CONFIGS):
        x, w, dy = _conv_case_data(i, xs, ws, a)
        y = conv2d_ref(x, w, a).astype(np.float32)
        cases.append(Case("mindir.conv2d", [x, w], y, a, **F32, label=f"config {i}"))
        dx = conv2d_backprop_input_ref(dy, w, xs, a).astype(np.float32)
        cases.append(Case("mindir.conv2d_backprop_input", [dy, w], dx,
                          dict(a, input_shape=list(xs)), **F32, label=f"config {i}"))
        dw = conv2d_backprop_filter_ref(dy, x, ws, a).astype(np.float32)
        cases.append(Case("mindir.conv2d_backprop_filter", [dy, x], dw,
                          dict(a, filter_shape=list(ws)), **F32, label=f"config {i}"))
    return cases


def test_conv2d_and_gradients():
    check_cases(_conv_cases())


def test_conv2d_adjoint_identity():
    """<conv(x, w), dy> == <x, dx(dy, w)> == <w, dw(dy, x)> with the compiled ops."""
    cases = []
    for i, (xs, ws, a) in enumerate(CONV_CONFIGS):
        x, w, dy = _conv_case_data(i, xs, ws, a)
        dummy_y = np.zeros(dy.shape, np.float32)
        cases.append(Case("mindir.conv2d", [x, w], dummy_y, a))
        cases.append(Case("mindir.conv2d_backprop_input", [dy, w], np.zeros(xs, np.float32),
                          dict(a, input_shape=list(xs))))
        cases.append(Case("mindir.conv2d_backprop_filter", [dy, x], np.zeros(ws, np.float32),
                          dict(a, filter_shape=list(ws))))
    mod = compile_cases(cases)
    for i, (xs, ws, a) in enumerate(CONV_CONFIGS):
        x, w, dy = _conv_case_data(i, xs, ws, a)
        y, = mod.call(f"f{3 * i}", x, w)
        dx, = mod.call(f"f{3 * i + 1}", dy, w)
        dw, = mod.call(f"f{3 * i + 2}", dy, x)
        lhs = np.vdot(y.astype(np.float64), dy)
        scale = np.abs(y).sum() * np.abs(dy).max() + 1.0
        assert abs(lhs - np.vdot(x.astype(np.float64), dx)) <= 1e-5 * scale, f"config {i} dx"
        assert abs(lhs - np.vdot(w.astype(np.float64), dw)) <= 1e-5 * scale, f"config {i} dw"


def test_conv2d_other_float_types():
    r = rng(7)
    a = conv_attrs(stride=(2, 2), pad_mode="same", group=2)
    x = r.standard_normal((1, 4, 7, 7))
    w = r.standard_normal((4, 2, 3, 3))
    cases = [Case("mindir.conv2d", [x, w], conv2d_ref(x, w, a), a, rtol=1e-12, atol=1e-12)]
    xh, wh = x.astype(np.float16), w.astype(np.float16)
    cases.append(Case("mindir.conv2d", [xh, wh], conv2d_ref(xh, wh, a).astype(np.float16), a,
                      rtol=1e-2, atol=2e-2))
    xb, wb = bf16_round(x), bf16_round(w)          # run on bf16 (cast inside the function)
    cases.append(Case("mindir.conv2d", [xb, wb], conv2d_ref(xb, wb, a).astype(np.float32), a,
                      rtol=2e-2, atol=1e-1, via="bf16"))
    check_cases(cases)


# ----------------------------------------------------------------------------
# Pooling
# ----------------------------------------------------------------------------

POOL_CONFIGS = [
    ((2, 3, 8, 8), pool_attrs((2, 2), (2, 2))),                       # LeNet-style
    ((1, 2, 7, 9), pool_attrs((3, 3), (2, 2))),                       # overlapping, valid
    ((1, 2, 7, 8), pool_attrs((3, 3), (2, 2), "same")),               # overlapping, same
    ((2, 2, 5, 6), pool_attrs((3, 2), (1, 2), "same")),
    ((1, 3, 6, 7), pool_attrs((3, 3), (2, 3), "pad", (1, 0, 2, 1))),
    ((1, 1, 9, 9), pool_attrs((2, 3), (3, 2), "valid")),              # stride > kernel
    ((1, 2, 5, 5), pool_attrs((5, 5), (1, 1), "same")),               # kernel = input
]


def _pool_data(i, xs, a, ties=False):
    r = rng(200 + i)
    if ties:   # few distinct values: many ties inside windows
        x = r.integers(-2, 3, size=xs).astype(np.float32)
    else:
        x = r.standard_normal(xs).astype(np.float32)
    oh, ow = out_hw(xs, a)
    dy = r.standard_normal((xs[0], xs[1], oh, ow)).astype(np.float32)
    return x, dy


def test_pooling_and_gradients():
    cases = []
    for i, (xs, a) in enumerate(POOL_CONFIGS):
        for ties in (False, True):
            x, dy = _pool_data(i, xs, a, ties)
            lab = f"config {i}" + (" ties" if ties else "")
            cases.append(Case("mindir.max_pool2d", [x], max_pool_ref(x, a), a, label=lab))
            cases.append(Case("mindir.max_pool2d_grad", [x, dy],
                              max_pool_grad_ref(x, dy, a).astype(np.float32), a, **F32, label=lab))
        cases.append(Case("mindir.avg_pool2d", [x], avg_pool_ref(x, a).astype(np.float32), a,
                          **F32, label=f"config {i}"))
        cases.append(Case("mindir.avg_pool2d_grad", [dy],
                          avg_pool_grad_ref(dy, xs, a).astype(np.float32),
                          dict(a, input_shape=list(xs)), **F32, label=f"config {i}"))
    check_cases(cases)


def test_pool_gradients_finite_differences():
    """Compiled f64 pooling gradients vs central differences of the numpy
    forward references (inputs without ties, so max pooling is differentiable)."""
    cfgs = [POOL_CONFIGS[2], POOL_CONFIGS[4]]
    cases, data = [], []
    for i, (xs, a) in enumerate(cfgs):
        r = rng(300 + i)
        x = r.permutation(np.prod(xs)).reshape(xs).astype(np.float64) * 0.01
        oh, ow = out_hw(xs, a)
        dy = r.standard_normal((xs[0], xs[1], oh, ow))
        data.append((x, dy, a))
        cases.append(Case("mindir.max_pool2d_grad", [x, dy], np.zeros(xs), a))
        cases.append(Case("mindir.avg_pool2d_grad", [dy], np.zeros(xs),
                          dict(a, input_shape=list(xs))))
    mod = compile_cases(cases)
    eps = 1e-4
    for k, (x, dy, a) in enumerate(data):
        dmax, = mod.call(f"f{2 * k}", x, dy)
        davg, = mod.call(f"f{2 * k + 1}", dy)
        for fwd, got in ((max_pool_ref, dmax), (avg_pool_ref, davg)):
            fd = np.zeros(x.shape)
            for idx in np.ndindex(x.shape):
                xp, xm = x.copy(), x.copy()
                xp[idx] += eps
                xm[idx] -= eps
                fd[idx] = (np.vdot(fwd(xp, a), dy) - np.vdot(fwd(xm, a), dy)) / (2 * eps)
            np.testing.assert_allclose(got, fd, rtol=1e-6, atol=1e-8, err_msg=fwd.__name__)


# ----------------------------------------------------------------------------
# Softmax family, normalization, losses
# ----------------------------------------------------------------------------


def softmax_ref(x, axis):
    x = x.astype(np.float64)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def log_softmax_ref(x, axis):
    x = x.astype(np.float64)
    m = x.max(axis=axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))


def test_softmax_log_softmax():
    r = rng(1)
    cases = []
    for shape, axis in [((7, 13), -1), ((7, 13), 0), ((2, 5, 3), 1), ((9,), 0)]:
        x = (r.standard_normal(shape) * 3).astype(np.float32)
        attrs = {} if axis == -1 else {"axis": axis}
        cases.append(Case("mindir.softmax", [x], softmax_ref(x, axis).astype(np.float32), attrs,
                          rtol=1e-5, atol=1e-7))
        cases.append(Case("mindir.log_softmax", [x], log_softmax_ref(x, axis).astype(np.float32),
                          attrs, **F32))
    # large logits: stable (no overflow) thanks to the max subtraction
    big = np.array([[1000.0, 1001.0, 999.0], [-1000.0, -1002.0, -1001.0]], np.float32)
    cases.append(Case("mindir.softmax", [big], softmax_ref(big, -1).astype(np.float32),
                      rtol=1e-5, atol=1e-7))
    cases.append(Case("mindir.log_softmax", [big], log_softmax_ref(big, -1).astype(np.float32),
                      **F32))
    xb = bf16_round(r.standard_normal((5, 12)) * 2)
    cases.append(Case("mindir.softmax", [xb], softmax_ref(xb, -1).astype(np.float32),
                      rtol=2e-2, atol=4e-3, via="bf16"))
    xh = (r.standard_normal((5, 12)) * 2).astype(np.float16)
    cases.append(Case("mindir.log_softmax", [xh], log_softmax_ref(xh, -1).astype(np.float16),
                      rtol=5e-3, atol=5e-3))
    check_cases(cases)


def layer_norm_ref(x, g, b, bna, bpa, eps):
    x64 = x.astype(np.float64)
    axes = tuple(range(bna, x.ndim))
    mean = x64.mean(axis=axes, keepdims=True)
    var = ((x64 - mean) ** 2).mean(axis=axes, keepdims=True)
    rstd = 1.0 / np.sqrt(var + eps)
    y = (x64 - mean) * rstd * g.astype(np.float64) + b.astype(np.float64)
    return y, mean, rstd


def test_layer_norm():
    r = rng(2)
    cases = []
    for shape, bna, bpa, eps in [((4, 16), -1, -1, 1e-5), ((2, 3, 8), 1, 1, 1e-5),
                                 ((2, 3, 8), 1, -1, 1e-3), ((3, 5, 7), 2, 1, 1e-5),
                                 ((6, 5), 0, 0, 1e-5)]:
        x = (r.standard_normal(shape) * 2 + 1).astype(np.float32)
        rank = len(shape)
        pshape = shape[bpa % rank:]
        g = r.standard_normal(pshape).astype(np.float32)
        b = r.standard_normal(pshape).astype(np.float32)
        y, m, s = layer_norm_ref(x, g, b, bna % rank, bpa % rank, eps)
        attrs = {"begin_norm_axis": bna, "begin_params_axis": bpa, "epsilon": f64(eps)}
        cases.append(Case("mindir.layer_norm", [x, g, b],
                          [y.astype(np.float32), m.astype(np.float32), s.astype(np.float32)],
                          attrs, **F32))
    check_cases(cases)


def batch_norm_ref(x, scale, bias, mean, var, training, eps):
    x64 = x.astype(np.float64)
    axes = tuple(i for i in range(x.ndim) if i != 1)
    if training:
        mean = x64.mean(axis=axes)
        var = x64.var(axis=axes)
    bshape = [1, -1] + [1] * (x.ndim - 2)
    y = (x64 - mean.reshape(bshape)) / np.sqrt(var.reshape(bshape).astype(np.float64) + eps)
    y = y * scale.reshape(bshape) + bias.reshape(bshape)
    return y, mean, var


def test_batch_norm():
    r = rng(3)
    cases = []
    for shape in [(2, 3, 5, 4), (4, 6), (3, 2, 7)]:
        c = shape[1]
        x = (r.standard_normal(shape) * 2 + 0.5).astype(np.float32)
        scale = r.standard_normal(c).astype(np.float32)
        bias = r.standard_normal(c).astype(np.float32)
        mm = r.standard_normal(c).astype(np.float32)
        mv = (r.random(c) + 0.5).astype(np.float32)
        for training in (True, False):
            y, m, v = batch_norm_ref(x, scale, bias, mm, mv, training, 1e-3)
            cases.append(Case("mindir.batch_norm", [x, scale, bias, mm, mv],
                              [y.astype(np.float32), np.float32(m), np.float32(v)],
                              {"is_training": training, "epsilon": f64(1e-3)}, **F32,
                              label="train" if training else "eval"))
    check_cases(cases)


GAMMA = 0x9E3779B97F4A7C15
M64 = (1 << 64) - 1
STREAM_DROPOUT = 3


def _mix64_int(z):
    z &= M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def splitmix_uniform(seed, n, bits=24, offset=0):
    """The counter-based generator of the lowering (builders.py), in numpy:
    element i is the (i+1)-th splitmix64 output seeded with the tensor key
    k = mix(mix(seed * G + stream + 1) + offset * G), dropout's stream is 3."""
    k = _mix64_int(_mix64_int(seed * GAMMA + STREAM_DROPOUT + 1) + offset * GAMMA)
    with np.errstate(over="ignore"):
        z = np.uint64(k) + (np.arange(n, dtype=np.uint64) + np.uint64(1)) * np.uint64(GAMMA)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    return (z >> np.uint64(64 - bits)).astype(np.float64) * 2.0 ** -bits


def test_dropout():
    r = rng(4)
    cases, expect = [], []
    for shape, kp, seed in [((64, 33), 0.75, 7), ((5, 4, 3), 0.5, 0), ((100,), 1.0, 3),
                            ((64, 33), 0.75, 8)]:
        x = r.standard_normal(shape).astype(np.float32)
        u = splitmix_uniform(seed, x.size).reshape(shape)
        mask = (u < kp).astype(np.float32)
        y = x * mask / np.float32(kp)
        cases.append(Case("mindir.dropout", [x], [y, mask], {"keep_prob": f64(kp), "seed": seed}))
        expect.append((mask, kp))
    # with the run-time offset operand (0: the same as without it)
    x = r.standard_normal((64, 33)).astype(np.float32)
    off_masks = []
    for off in (0, 1, 2, -7, 2 ** 40 + 1):
        u = splitmix_uniform(7, x.size, offset=off).reshape(x.shape)
        mask = (u < 0.75).astype(np.float32)
        off_masks.append(mask)
        cases.append(Case("mindir.dropout", [x, np.array(off, np.int64)],
                          [x * mask / np.float32(0.75), mask],
                          {"keep_prob": f64(0.75), "seed": 7}, label=f"offset {off}"))
    check_cases(cases)
    # the mask keeps about keep_prob of the elements, and another seed differs
    m0, kp = expect[0]
    assert abs(m0.mean() - kp) < 0.03
    assert (m0 != expect[3][0]).mean() > 0.2
    # offset 0 is the op without an offset; other offsets give other masks
    assert np.array_equal(off_masks[0], m0)
    for m in off_masks[1:]:
        assert (m != m0).mean() > 0.2 and abs(m.mean() - 0.75) < 0.03


def test_one_hot():
    r = rng(5)
    idx = np.array([0, 3, 9, -1, 10, 2], np.int32)
    on, off = np.float32(2.5), np.float32(-1.0)
    eye = np.where(np.arange(10)[None, :] == idx[:, None], on, off).astype(np.float32)
    idx2 = r.integers(0, 4, size=(2, 3)).astype(np.int64)
    oh2 = (np.arange(4)[:, None, None] == idx2[None]).astype(np.int32)
    idx3 = np.array([1, 0, 2, 5], np.int8)
    oh3 = np.where(np.arange(3)[None, :] == idx3[:, None], 0.5, -0.5)
    check_cases([
        Case("mindir.one_hot", [idx, np.array(on), np.array(off)], eye, {"depth": 10}),
        Case("mindir.one_hot", [idx, np.array(on), np.array(off)], eye.T.copy(),
             {"depth": 10, "axis": 0}),
        Case("mindir.one_hot", [idx2, np.array(1, np.int32), np.array(0, np.int32)], oh2,
             {"depth": 4, "axis": 0}),
        Case("mindir.one_hot", [idx2, np.array(1, np.int32), np.array(0, np.int32)],
             np.moveaxis(oh2, 0, 1).copy(), {"depth": 4, "axis": 1}),
        Case("mindir.one_hot", [idx3, np.array(0.5), np.array(-0.5)], oh3, {"depth": 3}),
        Case("mindir.one_hot", [idx3, np.array(True), np.array(False)], oh3 > 0, {"depth": 3}),
        # i8 indices with depth > 256: no wrap-around of the compared position
        Case("mindir.one_hot", [np.array([44, 1, -1], np.int8), np.array(1.0, np.float32),
                                np.array(0.0, np.float32)],
             (np.arange(301)[None, :] == np.array([44, 1, -1])[:, None]).astype(np.float32),
             {"depth": 301}),
    ])


def test_softmax_cross_entropy():
    r = rng(6)
    cases = []
    for n, c in [(4, 10), (7, 3), (1, 5)]:
        logits = (r.standard_normal((n, c)) * 3).astype(np.float32)
        labels = r.random((n, c)).astype(np.float32)
        labels /= labels.sum(axis=1, keepdims=True)
        loss = -(labels * log_softmax_ref(logits, 1)).sum(axis=1)
        grad = softmax_ref(logits, 1) - labels
        cases.append(Case("mindir.softmax_cross_entropy_with_logits", [logits, labels],
                          [loss.astype(np.float32), grad.astype(np.float32)], **F32))
        for dt in (np.int32, np.int64):
            cls = r.integers(0, c, size=n).astype(dt)
            onehot = np.eye(c)[cls]
            loss = -(onehot * log_softmax_ref(logits, 1)).sum(axis=1)
            grad = softmax_ref(logits, 1) - onehot
            cases.append(Case("mindir.sparse_softmax_cross_entropy_with_logits", [logits, cls],
                              [loss.astype(np.float32), grad.astype(np.float32)], **F32))
    check_cases(cases)
