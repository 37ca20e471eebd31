"""msmlir-cpu-conv-to-matmul: the forward convolution and both gradients
(mindir.conv2d / conv2d_backprop_input / conv2d_backprop_filter, all lowered
to linalg.conv_2d_nchw_fchw) compiled through the CPU pipeline with the
im2col + packed-matmul path, compared with numpy (float64) over strides,
dilations, paddings and odd sizes; plus checks that the path was taken and
the remarks of the cases it leaves alone."""
from __future__ import annotations

import numpy as np
import pytest
from cg_helpers import codegen_ir, compile_with, ttype

from msmlir.passes.registry import option_defaults

RNG = np.random.default_rng(7)


def _pads(size, k, s, d, mode, pad):
    if mode == "valid":
        return 0, 0
    if mode == "pad":
        return pad
    eff = d * (k - 1) + 1
    out = -(-size // s)
    total = max((out - 1) * s + eff - size, 0)
    return total // 2, total - total // 2


def _geometry(x_shape, w_shape, stride, dilation, mode, pad):
    ph = _pads(x_shape[2], w_shape[2], stride[0], dilation[0], mode, pad[0:2])
    pw = _pads(x_shape[3], w_shape[3], stride[1], dilation[1], mode, pad[2:4])
    hp, wp = x_shape[2] + sum(ph), x_shape[3] + sum(pw)
    oh = (hp - (dilation[0] * (w_shape[2] - 1) + 1)) // stride[0] + 1
    ow = (wp - (dilation[1] * (w_shape[3] - 1) + 1)) // stride[1] + 1
    return ph, pw, oh, ow


def _windows(xp, kh, kw, oh, ow, stride, dilation):
    """[N, C, KH, KW, OH, OW] view of the padded input's windows."""
    n, c = xp.shape[:2]
    out = np.empty((n, c, kh, kw, oh, ow), xp.dtype)
    for i in range(kh):
        for j in range(kw):
            h0, w0 = i * dilation[0], j * dilation[1]
            out[:, :, i, j] = xp[:, :, h0:h0 + (oh - 1) * stride[0] + 1:stride[0],
                                 w0:w0 + (ow - 1) * stride[1] + 1:stride[1]]
    return out


def conv_ref(x, w, stride, dilation, mode, pad):
    ph, pw, oh, ow = _geometry(x.shape, w.shape, stride, dilation, mode, pad)
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), ph, pw))
    win = _windows(xp, w.shape[2], w.shape[3], oh, ow, stride, dilation)
    return np.einsum("ncijhw,fcij->nfhw", win, w.astype(np.float64))


def conv_grads_ref(x, w, dout, stride, dilation, mode, pad):
    """(dx, dw) of conv_ref, by the adjoint of the window gather."""
    ph, pw, oh, ow = _geometry(x.shape, w.shape, stride, dilation, mode, pad)
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), ph, pw))
    kh, kw = w.shape[2:]
    win = _windows(xp, kh, kw, oh, ow, stride, dilation)
    d = dout.astype(np.float64)
    dw = np.einsum("ncijhw,nfhw->fcij", win, d)
    dwin = np.einsum("nfhw,fcij->ncijhw", d, w.astype(np.float64))
    dxp = np.zeros_like(xp)
    for i in range(kh):
        for j in range(kw):
            h0, w0 = i * dilation[0], j * dilation[1]
            dxp[:, :, h0:h0 + (oh - 1) * stride[0] + 1:stride[0],
                w0:w0 + (ow - 1) * stride[1] + 1:stride[1]] += dwin[:, :, i, j]
    dx = dxp[:, :, ph[0]:ph[0] + x.shape[2], pw[0]:pw[0] + x.shape[3]]
    return dx, dw


def _attrs(stride, dilation, mode, pad):
    return (f"stride = array<i64: {stride[0]}, {stride[1]}>, "
            f"dilation = array<i64: {dilation[0]}, {dilation[1]}>, "
            f"pad_mode = #mindir.pad_mode<{mode}>, pad = array<i64: {', '.join(map(str, pad))}>")


def conv_module(x_shape, w_shape, stride, dilation, mode, pad) -> tuple[str, tuple]:
    """@fwd(x, w), @dx(dout, w), @dw(dout, x) in one module."""
    _, _, oh, ow = _geometry(x_shape, w_shape, stride, dilation, mode, pad)
    o_shape = (x_shape[0], w_shape[0], oh, ow)
    tx, tw, to = ttype(x_shape), ttype(w_shape), ttype(o_shape)
    a = _attrs(stride, dilation, mode, pad)
    xs = ", ".join(map(str, x_shape))
    ws = ", ".join(map(str, w_shape))
    text = f"""
func.func @fwd(%x: {tx}, %w: {tw}) -> {to} {{
  %r = mindir.conv2d %x, %w {{{a}}} : ({tx}, {tw}) -> {to}
  return %r : {to}
}}
func.func @dx(%d: {to}, %w: {tw}) -> {tx} {{
  %r = mindir.conv2d_backprop_input %d, %w {{input_shape = array<i64: {xs}>, {a}}} : ({to}, {tw}) -> {tx}
  return %r : {tx}
}}
func.func @dw(%d: {to}, %x: {tx}) -> {tw} {{
  %r = mindir.conv2d_backprop_filter %d, %x {{filter_shape = array<i64: {ws}>, {a}}} : ({to}, {tx}) -> {tw}
  return %r : {tw}
}}"""
    return text, o_shape


CASES = [
    # (x shape, w shape, stride, dilation, pad_mode, pad)
    ((8, 3, 12, 12), (8, 3, 3, 3), (1, 1), (1, 1), "valid", (0, 0, 0, 0)),     # LeNet-like, F < P
    ((4, 6, 14, 14), (16, 6, 5, 5), (1, 1), (1, 1), "valid", (0, 0, 0, 0)),
    ((3, 5, 13, 11), (7, 5, 3, 4), (2, 1), (1, 1), "pad", (1, 2, 0, 3)),       # odd sizes, stride 2
    ((2, 4, 15, 17), (6, 4, 3, 3), (1, 2), (2, 1), "same", (0, 0, 0, 0)),      # dilation, W stride 2
    ((4, 3, 16, 16), (8, 3, 3, 3), (2, 2), (2, 2), "pad", (2, 2, 2, 2)),       # strided rows: gathers
    ((1, 8, 9, 9), (40, 8, 3, 3), (1, 1), (1, 1), "same", (0, 0, 0, 0)),       # F > P: col is A
    ((2, 2, 70, 70), (4, 2, 3, 3), (1, 1), (1, 1), "valid", (0, 0, 0, 0)),     # rows > 64 split
    ((3, 4, 8, 20), (5, 4, 2, 7), (1, 3), (1, 1), "pad", (0, 1, 3, 3)),        # kw row beats strided ow
    ((64, 32, 1, 1), (48, 32, 1, 1), (1, 1), (1, 1), "valid", (0, 0, 0, 0)),   # 1x1 images
    ((2, 16, 8, 8), (32, 16, 1, 1), (1, 1), (1, 1), "valid", (0, 0, 0, 0)),    # pointwise
]


def _ids(c):
    return f"x{'x'.join(map(str, c[0]))}_w{'x'.join(map(str, c[1]))}_s{c[2][0]}{c[2][1]}_d{c[3][0]}{c[3][1]}_{c[4]}"


@pytest.mark.parametrize("case", CASES, ids=[_ids(c) for c in CASES])
def test_conv_fwd_and_grads(case):
    x_shape, w_shape, stride, dilation, mode, pad = case
    text, o_shape = conv_module(*case)
    cm = compile_with(text, codegen=True)
    x = RNG.standard_normal(x_shape).astype(np.float32)
    w = RNG.standard_normal(w_shape).astype(np.float32)
    d = RNG.standard_normal(o_shape).astype(np.float32)
    dx_ref, dw_ref = conv_grads_ref(x, w, d, stride, dilation, mode, pad)
    for name, args, ref in (("fwd", (x, w), conv_ref(x, w, stride, dilation, mode, pad)),
                            ("dx", (d, w), dx_ref), ("dw", (d, x), dw_ref)):
        got = cm.call(name, *args)
        got = got[0] if isinstance(got, (list, tuple)) else got
        scale = np.abs(ref).max() + 1
        np.testing.assert_allclose(got, ref, rtol=2e-5 * scale, atol=2e-5 * scale, err_msg=name)


@pytest.mark.parametrize("case", CASES[:4], ids=[_ids(c) for c in CASES[:4]])
def test_conv_path_taken(case):
    """All three convolutions became im2col + packed matmul (no linalg.conv,
    no remark); unit-stride rows are contiguous reads, not gathers."""
    text, _ = conv_module(*case)
    out, remarks = codegen_ir(text)
    assert "linalg.conv" not in out
    assert out.count("vector.contract") >= 3
    assert not [r for r in remarks if "conv-to-matmul" in r], remarks
    if case[2] == (1, 1):
        assert "vector.gather" not in out


CHUNKED = [CASES[0], CASES[3], CASES[5], ((2, 16, 12, 12), (8, 16, 3, 3), (1, 1), (1, 1), "valid", (0, 0, 0, 0))]


@pytest.mark.parametrize("case", CHUNKED, ids=[_ids(c) for c in CHUNKED])
def test_conv_chunked(case):
    """A small im2col budget: loops over batch chunks (forward, input
    gradient) and channel chunks accumulating into C (filter gradient)."""
    with option_defaults("msmlir-cpu-conv-to-matmul", {"col-chunk": 1024}):
        text, _ = conv_module(*case)
        out, _ = codegen_ir(text)
        assert "scf.for" in out and "linalg.conv" not in out
        test_conv_fwd_and_grads(case)


def _linalg_conv(n, c, h, w, f, kh, kw, oh, ow, stride, dilation):
    tx, tw, to = ttype((n, c, h, w)), ttype((f, c, kh, kw)), ttype((n, f, oh, ow))
    return f"""
func.func @acc(%x: {tx}, %w: {tw}, %o: {to}) -> {to} {{
  %r = linalg.conv_2d_nchw_fchw {{dilations = dense<[{dilation[0]}, {dilation[1]}]> : tensor<2xi64>,
                                  strides = dense<[{stride[0]}, {stride[1]}]> : tensor<2xi64>}}
      ins(%x, %w : {tx}, {tw}) outs(%o : {to}) -> {to}
  return %r : {to}
}}"""


@pytest.mark.parametrize("chunk", [1 << 17, 512])
@pytest.mark.parametrize("dims", [
    (1, 8, 9, 9, 64, 3, 3, (1, 1), (1, 1)),      # N = 1, F > P: C[P, F]
    (1, 4, 20, 20, 8, 3, 3, (1, 1), (1, 1)),     # N = 1, F < P: C[F, P] is the output
    (4, 3, 11, 13, 12, 3, 2, (2, 1), (1, 2)),    # N > 1
], ids=["n1_many_filters", "n1_direct", "batch"])
def test_conv_accumulates_into_init(dims, chunk):
    """A convolution whose init is not a fill adds into it."""
    n, c, h, w, f, kh, kw, stride, dilation = dims
    oh = (h - dilation[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (w - dilation[1] * (kw - 1) - 1) // stride[1] + 1
    x = RNG.standard_normal((n, c, h, w)).astype(np.float32)
    wt = RNG.standard_normal((f, c, kh, kw)).astype(np.float32)
    o = RNG.standard_normal((n, f, oh, ow)).astype(np.float32)
    text = _linalg_conv(n, c, h, w, f, kh, kw, oh, ow, stride, dilation)
    with option_defaults("msmlir-cpu-conv-to-matmul", {"col-chunk": chunk}):
        assert "linalg.conv" not in codegen_ir(text)[0]
        cm = compile_with(text, codegen=True)
    ref = o.astype(np.float64) + conv_ref(x, wt, stride, dilation, "valid", (0, 0, 0, 0))
    got = cm.call("acc", x, wt, o)  # (the plain path may update `o` in place)
    got = got[0] if isinstance(got, (list, tuple)) else got
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4)
