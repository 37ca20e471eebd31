"""msmlir-cpu-vectorize-windows: max/avg pooling and their gradients
(mindir.max_pool2d / avg_pool2d / max_pool2d_grad / avg_pool2d_grad)
compiled through the CPU pipeline with the window ops vectorized, compared
with numpy over kernels, strides, paddings (overlapping windows, odd sizes);
plus a check that the window ops left no scalar linalg loops."""
from __future__ import annotations

import numpy as np
import pytest
from cg_helpers import codegen_ir, compile_with, ttype


RNG = np.random.default_rng(11)


def _pads(size, k, s, mode, pad):
    if mode == "valid":
        return 0, 0
    if mode == "pad":
        return tuple(pad)
    out = -(-size // s)
    total = max((out - 1) * s + k - size, 0)
    return total // 2, total - total // 2


def _geom(xs, k, s, mode, pad):
    ph = _pads(xs[2], k[0], s[0], mode, pad[0:2])
    pw = _pads(xs[3], k[1], s[1], mode, pad[2:4])
    oh = (xs[2] + sum(ph) - k[0]) // s[0] + 1
    ow = (xs[3] + sum(pw) - k[1]) // s[1] + 1
    return ph, pw, oh, ow


def _windows(xp, k, s, oh, ow):
    """[N, C, OH, OW, KH*KW] (row-major window order)."""
    n, c = xp.shape[:2]
    out = np.empty((n, c, oh, ow, k[0] * k[1]), xp.dtype)
    for i in range(k[0]):
        for j in range(k[1]):
            out[..., i * k[1] + j] = xp[:, :, i:i + (oh - 1) * s[0] + 1:s[0], j:j + (ow - 1) * s[1] + 1:s[1]]
    return out


def pool_ref(kind, x, dout, k, s, mode, pad):
    """(forward, input gradient) in float64."""
    ph, pw, oh, ow = _geom(x.shape, k, s, mode, pad)
    x64 = x.astype(np.float64)
    d64 = dout.astype(np.float64)
    fill = -np.inf if kind == "max" else 0.0
    xp = np.pad(x64, ((0, 0), (0, 0), ph, pw), constant_values=fill)
    win = _windows(xp, k, s, oh, ow)
    dxp = np.zeros_like(xp)
    if kind == "max":
        y = win.max(-1)
        arg = win.argmax(-1)                      # first max, row-major
        for i in range(k[0]):
            for j in range(k[1]):
                contrib = np.where(arg == i * k[1] + j, d64, 0.0)
                dxp[:, :, i:i + (oh - 1) * s[0] + 1:s[0], j:j + (ow - 1) * s[1] + 1:s[1]] += contrib
    else:
        ones = np.pad(np.ones_like(x64), ((0, 0), (0, 0), ph, pw))
        cnt = np.maximum(_windows(ones, k, s, oh, ow).sum(-1), 1.0)
        y = win.sum(-1) / cnt
        g = d64 / cnt
        for i in range(k[0]):
            for j in range(k[1]):
                dxp[:, :, i:i + (oh - 1) * s[0] + 1:s[0], j:j + (ow - 1) * s[1] + 1:s[1]] += g
    dx = dxp[:, :, ph[0]:ph[0] + x.shape[2], pw[0]:pw[0] + x.shape[3]]
    return y, dx


def pool_module(kind, xs, k, s, mode, pad):
    _, _, oh, ow = _geom(xs, k, s, mode, pad)
    os_ = (xs[0], xs[1], oh, ow)
    tx, to = ttype(xs), ttype(os_)
    a = (f"kernel_size = array<i64: {k[0]}, {k[1]}>, strides = array<i64: {s[0]}, {s[1]}>, "
         f"pad_mode = #mindir.pad_mode<{mode}>, pad = array<i64: {', '.join(map(str, pad))}>")
    if kind == "max":
        bwd = f"""func.func @bwd(%x: {tx}, %d: {to}) -> {tx} {{
  %r = mindir.max_pool2d_grad %x, %d {{{a}}} : ({tx}, {to}) -> {tx}
  return %r : {tx}
}}"""
    else:
        xs_ = ", ".join(map(str, xs))
        bwd = f"""func.func @bwd(%d: {to}) -> {tx} {{
  %r = mindir.avg_pool2d_grad %d {{input_shape = array<i64: {xs_}>, {a}}} : ({to}) -> {tx}
  return %r : {tx}
}}"""
    return f"""
func.func @fwd(%x: {tx}) -> {to} {{
  %r = mindir.{kind}_pool2d %x {{{a}}} : ({tx}) -> {to}
  return %r : {to}
}}
{bwd}""", os_


CASES = [
    # (x shape, kernel, strides, pad_mode, pad)
    ((4, 6, 28, 28), (2, 2), (2, 2), "valid", (0, 0, 0, 0)),     # LeNet
    ((2, 3, 13, 11), (3, 3), (2, 2), "valid", (0, 0, 0, 0)),     # overlapping, odd sizes
    ((2, 4, 15, 17), (3, 2), (1, 2), "same", (0, 0, 0, 0)),
    ((3, 2, 9, 40), (2, 3), (2, 3), "pad", (1, 0, 2, 1)),        # padding, width > vector
    ((2, 3, 12, 12), (3, 3), (1, 1), "pad", (1, 1, 1, 1)),
]


def _id(c):
    return f"x{'x'.join(map(str, c[0]))}_k{c[1][0]}{c[1][1]}_s{c[2][0]}{c[2][1]}_{c[3]}"


@pytest.mark.parametrize("kind", ["max", "avg"])
@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_pool_fwd_and_grad(kind, case):
    xs, k, s, mode, pad = case
    text, os_ = pool_module(kind, xs, k, s, mode, pad)
    cm = compile_with(text, codegen=True)
    x = RNG.standard_normal(xs).astype(np.float32)
    d = RNG.standard_normal(os_).astype(np.float32)
    y_ref, dx_ref = pool_ref(kind, x, d, k, s, mode, pad)
    y = cm.call("fwd", x)
    y = y[0] if isinstance(y, (list, tuple)) else y
    dx = cm.call("bwd", x, d) if kind == "max" else cm.call("bwd", d)
    dx = dx[0] if isinstance(dx, (list, tuple)) else dx
    np.testing.assert_allclose(y, y_ref, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(dx, dx_ref, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("kind", ["max", "avg"])
def test_window_ops_vectorized(kind):
    """No scalar window loop is left: pooling and the gradient's generics are
    all gathers/transfers along the output width, and no remark says otherwise."""
    text, _ = pool_module(kind, (8, 6, 28, 28), (2, 2), (2, 2), "valid", (0, 0, 0, 0))
    out, got = codegen_ir(text)
    assert "linalg.pooling" not in out and "linalg.generic" not in out, out
    assert "vector.gather" in out or "vector.transfer_read" in out
    assert not [g for g in got if "vectorize-windows" in g], got
