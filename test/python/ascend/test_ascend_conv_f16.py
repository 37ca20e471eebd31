"""f16 (AMP) convolutions on the cube: the forward img2col formed on chip by
Load3D (16-channel blocks, K in (c1, kh, kw, c0) order), the gradients' f16
im2col in GM (halves in GM and UB), the f16 Mmad accumulating in f32 in L0C,
one rounding to f16 by Fixpipe (F322F16) -- MindSpore/Ascend's f16
convolution. The result is checked bit-exact against numpy: the same img2col
matrix in the same K order, products of halves summed in float32 in the
cube's order (K steps of baseK, each summed from zero then added to L0C --
which a bias Mmad initialised), rounded to f16; and within one f16 ulp of the
float64 convolution. The CPU target accumulates f16 convolutions in f16 (a rounding
per multiply-add), so it is not the reference here."""
import re

import numpy as np
import pytest

import msmlir.ascend as A

pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore::msmlir.ascend.AscendEmulationWarning")]

RNG = np.random.default_rng(14)


def _t(shape, et="f16"):
    return "tensor<" + "".join(f"{d}x" for d in shape) + f"{et}>"


def _im2col(x, kh, kw, oh, ow, stride=(1, 1), dil=(1, 1)):
    """col[n, (c, i, j), (h, v)] = x[n, c, h*sh + i*dh, v*sw + j*dw] (x already padded)."""
    n, c = x.shape[:2]
    col = np.empty((n, c, kh, kw, oh, ow), x.dtype)
    for i in range(kh):
        for j in range(kw):
            col[:, :, i, j] = x[:, :, i * dil[0]:i * dil[0] + stride[0] * (oh - 1) + 1:stride[0],
                                j * dil[1]:j * dil[1] + stride[1] * (ow - 1) + 1:stride[1]]
    return col.reshape(n, c * kh * kw, oh * ow)


def _load3d_k(wm, col, C, KK, c0=16):
    """(wm [O, C*KK], col [n, C*KK, P]) with K in Load3D's order: ((c1, kh, kw, c0)),
    the channels padded to c0 with zeros."""
    C1, O, (n, _, P) = -(-C // c0), wm.shape[0], col.shape
    w4 = np.zeros((O, C1 * c0, KK), wm.dtype)
    w4[:, :C] = wm.reshape(O, C, KK)
    c4 = np.zeros((n, C1 * c0, KK, P), col.dtype)
    c4[:, :C] = col.reshape(n, C, KK, P)
    return (w4.reshape(O, C1, c0, KK).transpose(0, 1, 3, 2).reshape(O, -1),
            c4.reshape(n, C1, c0, KK, P).transpose(0, 1, 3, 2, 4).reshape(n, -1, P))


def cube_f16(a, b, base_k, per=0, init=None):
    """C = A @ B as the cube computes it for halves: per K step of base_k the
    products summed in float32 from zero in k order, each step added to C;
    rounded to f16 once (Fixpipe). `per` > 0: split-K, slices of `per` steps
    each an f32 partial, the partials summed from zero in slice order by the
    second kernel, which rounds once. `init`: L0C's first value (a bias
    column, f32), every step added to it."""
    a32, b32 = a.astype(np.float32), b.astype(np.float32)
    K = a.shape[-1]
    span = per * base_k if per else K
    total = None
    for s0 in range(0, K, span):
        c = None
        for k0 in range(s0, min(s0 + span, K), base_k):
            s = np.zeros(a32.shape[:-1] + b32.shape[-1:], np.float32)
            for q in range(k0, min(k0 + base_k, K)):
                s = s + a32[..., :, q:q + 1] * b32[..., q:q + 1, :]
            c = (s if init is None else init + s) if c is None else c + s
        total = c if not per else (np.float32(0) + c if total is None else total + c)
    return total.astype(np.float16)


def _ulps(got, ref64, absdot):
    """|got - ref64| in f16 ulps (the spacing of the binade got or the rounded
    ref64 is in, the larger: a correctly rounded value is within 0.5), less
    float32's own summation error bound (K * 2^-24 * sum |products|, which
    cancellation can make large next to a small result's f16 ulp)."""
    r = np.abs(ref64.astype(np.float16))
    ulp = np.maximum(np.spacing(r), np.spacing(np.abs(got.astype(np.float16)))).astype(np.float64)
    err = np.abs(got.astype(np.float64) - ref64) - absdot * 2.0 ** -24 * 64
    return np.maximum(err, 0) / ulp


def _mm_part(k):
    return next(p for p, _, _ in k.plan.parts if p.cube is not None)


FWD = {  # name: (x, w, y, attrs, stride, pad (t, b, l, r), dilation)
    "valid_odd": ((3, 3, 13, 11), (5, 3, 3, 4), (3, 5, 11, 8), "", (1, 1), (0, 0, 0, 0), (1, 1)),
    "padded": ((2, 2, 9, 7), (4, 2, 3, 3), (2, 4, 9, 7),
               "{pad_mode = #mindir.pad_mode<pad>, pad = array<i64: 1, 1, 1, 1>}", (1, 1), (1, 1, 1, 1), (1, 1)),
    "stride_w": ((2, 3, 9, 11), (4, 3, 3, 3), (2, 4, 7, 5), "{stride = array<i64: 1, 2>}", (1, 2), (0, 0, 0, 0),
                 (1, 1)),
    "dilated": ((1, 2, 12, 13), (3, 2, 3, 3), (1, 3, 8, 9), "{dilation = array<i64: 2, 2>}", (1, 1),
                (0, 0, 0, 0), (2, 2)),
    "long_k": ((2, 20, 9, 9), (7, 20, 5, 5), (2, 7, 5, 5), "", (1, 1), (0, 0, 0, 0), (1, 1)),
}


@pytest.mark.parametrize("name", list(FWD))
def test_f16_conv_forward_on_the_cube_is_f32_accumulated(name):
    xs, ws, ys, attrs, stride, pad, dil = FWD[name]
    text = f"""func.func @c(%x: {_t(xs)}, %w: {_t(ws)}) -> {_t(ys)} {{
  %y = mindir.conv2d %x, %w {attrs} : ({_t(xs)}, {_t(ws)}) -> {_t(ys)}
  return %y : {_t(ys)}
}}"""
    prog = A.compile(text, fallback=False)
    x = RNG.standard_normal(xs).astype(np.float16)
    w = RNG.standard_normal(ws).astype(np.float16)
    (y,) = prog.call("c", x, w)
    assert y.dtype == np.float16 and y.shape == ys
    k = next(iter(prog.kernels.values()))
    mm = _mm_part(k)
    split = mm.cube.get("split", 1)           # split-K where the model finds it pays (f32 partials, one rounding)
    assert split == 1 or name == "long_k"
    assert mm.cube["dtype"] == "f16" and mm.cube.get("out_dtype", "f32") == ("f32" if split > 1 else "f16")
    xp = np.pad(x, ((0, 0), (0, 0), pad[:2], pad[2:]))
    col = _im2col(xp, ws[2], ws[3], ys[2], ys[3], stride, dil)
    wm = w.reshape(ws[0], -1)
    assert mm.cube.get("load3d")                                   # every forward case: img2col by Load3D
    wk, ck = _load3d_k(wm, col, xs[1], ws[2] * ws[3])
    ref = cube_f16(wk, ck, mm.cube["tiling"]["baseK"], mm.cube["tiling"]["kPer"] if split > 1 else 0).reshape(ys)
    np.testing.assert_array_equal(y, ref)                          # bit-exact: same order, same roundings
    exact = np.einsum("ok,nkp->nop", wm.astype(np.float64), col.astype(np.float64)).reshape(ys)
    absdot = np.einsum("ok,nkp->nop", np.abs(wm.astype(np.float64)), np.abs(col.astype(np.float64))).reshape(ys)
    assert _ulps(y, exact, absdot).max() <= 1.0
    # the emitted source moves halves and converts once
    assert ("QuantMode_t::F322F16" in k.source) == (split == 1) and "LoadData3DParamsV2<half>(pad," in k.source
    assert split == 1 or re.search(r"Cast\(out0, tC\d, RoundMode::CAST_RINT, colsAl\);", k.source)  # the sum rounds
    assert "colGm" not in k.source and "GlobalTensor<half> aGm, bGm;" in k.source
    assert k.report["bound"] != "scalar fallback"


def test_amp_conv_bias_relu_folds_the_cast_bias_into_the_accumulator():
    """AMP's forward conv kernel: f16 conv + an f32 bias cast to f16 + relu
    (+ the relu mask): the cast by a vector kernel of its own, the bias the
    first Mmad of each tile (bias column x a row of ones: L0C starts at the
    bias), so it is summed in f32 with the products and rounded once; relu
    and the mask in the epilogue."""
    xs, ws, ys = (3, 2, 11, 10), (5, 2, 3, 3), (3, 5, 9, 8)
    text = f"""func.func @c(%x: {_t(xs)}, %w: {_t(ws)}, %b: {_t([5], 'f32')}) -> ({_t(ys)}, {_t(ys, 'i1')}) {{
  %b16 = mindir.cast %b : {_t([5], 'f32')} to {_t([5])}
  %y = mindir.conv2d %x, %w : ({_t(xs)}, {_t(ws)}) -> {_t(ys)}
  %z = mindir.bias_add %y, %b16 : ({_t(ys)}, {_t([5])}) -> {_t(ys)}
  %r = mindir.relu %z : {_t(ys)}
  %zero = mindir.constant dense<0.0> : tensor<f16>
  %m = mindir.greater %r, %zero : ({_t(ys)}, tensor<f16>) -> {_t(ys, 'i1')}
  return %r, %m : {_t(ys)}, {_t(ys, 'i1')}
}}"""
    prog = A.compile(text, fallback=False)
    x = RNG.standard_normal(xs).astype(np.float16)
    w = RNG.standard_normal(ws).astype(np.float16)
    b = RNG.standard_normal(5).astype(np.float32)
    r, m = prog.call("c", x, w, b)
    k = next(iter(prog.kernels.values()))
    names = [p.kernel.rsplit("_", 1)[-1] for p, _, _ in k.plan.parts]
    assert names[0] == "bcast" and "bias" not in names and "mm" in names and names[-1] == "ep", names
    mm = _mm_part(k)
    assert mm.cube["load3d"]["bias"] and "BiasMmad(c1);" in k.source
    wk, ck = _load3d_k(w.reshape(5, -1), _im2col(x, 3, 3, 9, 8), 2, 9)
    b32 = b.astype(np.float16).astype(np.float32)[:, None]
    z = cube_f16(wk, ck, mm.cube["tiling"]["baseK"], init=b32).reshape(ys)
    np.testing.assert_array_equal(r, np.maximum(z, np.float16(0)))
    np.testing.assert_array_equal(m, z > 0)


def test_f16_conv_gradients_on_the_cube():
    """The input gradient (padded dout, rotated filter: an f16 permute and a
    reversed im2col) and the filter gradient (transposed operands, the result
    written transposed by Fixpipe, then extended to f32 and an SGD update, as
    AMP's graph has it), odd shapes, within one f16 ulp of float64."""
    dy_t, w_t, x_t = (2, 5, 8, 7), (5, 3, 3, 3), (2, 3, 10, 9)
    text = f"""func.func @dx(%dy: {_t(dy_t)}, %w: {_t(w_t)}) -> {_t(x_t)} {{
  %r = mindir.conv2d_backprop_input %dy, %w {{input_shape = array<i64: 2, 3, 10, 9>}} : ({_t(dy_t)}, {_t(w_t)}) -> {_t(x_t)}
  return %r : {_t(x_t)}
}}
func.func @dw(%dy: {_t(dy_t)}, %x: {_t(x_t)}, %lr: tensor<f32>, %w: {_t(w_t, 'f32')}) -> {_t(w_t, 'f32')} {{
  %g = mindir.conv2d_backprop_filter %dy, %x {{filter_shape = array<i64: 5, 3, 3, 3>}} : ({_t(dy_t)}, {_t(x_t)}) -> {_t(w_t)}
  %g32 = mindir.cast %g : {_t(w_t)} to {_t(w_t, 'f32')}
  %s = mindir.mul %g32, %lr : ({_t(w_t, 'f32')}, tensor<f32>) -> {_t(w_t, 'f32')}
  %n = mindir.sub %w, %s : ({_t(w_t, 'f32')}, {_t(w_t, 'f32')}) -> {_t(w_t, 'f32')}
  return %n : {_t(w_t, 'f32')}
}}
func.func @dg(%dy: {_t(dy_t)}, %x: {_t(x_t)}) -> {_t(w_t)} {{
  %g = mindir.conv2d_backprop_filter %dy, %x {{filter_shape = array<i64: 5, 3, 3, 3>}} : ({_t(dy_t)}, {_t(x_t)}) -> {_t(w_t)}
  return %g : {_t(w_t)}
}}"""
    prog = A.compile(text, fallback=False)
    dy = RNG.standard_normal(dy_t).astype(np.float16)
    w = RNG.standard_normal(w_t).astype(np.float16)
    x = RNG.standard_normal(x_t).astype(np.float16)
    w32 = RNG.standard_normal(w_t).astype(np.float32)
    lr = np.array(0.1, np.float32)
    dx, dw, adx, adw = np.zeros(x_t), np.zeros(w_t), np.zeros(x_t), np.zeros(w_t)
    d64, ad = dy.astype(np.float64), np.abs(dy.astype(np.float64))
    for i in range(3):
        for j in range(3):
            dx[:, :, i:i + 8, j:j + 7] += np.einsum("nohw,oc->nchw", d64, w[:, :, i, j])
            dw[:, :, i, j] = np.einsum("nohw,nchw->oc", d64, x[:, :, i:i + 8, j:j + 7])
            adx[:, :, i:i + 8, j:j + 7] += np.einsum("nohw,oc->nchw", ad, np.abs(w[:, :, i, j]))
            adw[:, :, i, j] = np.einsum("nohw,nchw->oc", ad, np.abs(x[:, :, i:i + 8, j:j + 7]))
    (got_dx,) = prog.call("dx", dy, w)
    assert got_dx.dtype == np.float16 and _ulps(got_dx, dx, adx).max() <= 1.0
    (got_w,) = prog.call("dw", dy, x, lr, w32)
    (g16,) = prog.call("dg", dy, x)
    assert g16.dtype == np.float16 and _ulps(g16, dw, adw).max() <= 1.0
    # the fused update: w - lr * f32(g16), in f32 as numpy does it
    np.testing.assert_array_equal(got_w, w32 - lr * g16.astype(np.float32))
    for k in prog.kernels.values():
        assert k.report["bound"] != "scalar fallback"
        mm = _mm_part(k)
        assert mm.cube["dtype"] == "f16" and "LocalTensor<half> a2" in mm_source(k)


def mm_source(k):
    return next(p.source for p, (q, _, _) in zip(k.parts, k.plan.parts) if q.cube is not None)


def test_bf16_conv_is_a_clear_error():
    """Neither f32 nor f16: not on the cube (nor the scalar fallback), an error naming the kernel."""
    text = f"""func.func @c(%x: {_t((1, 2, 6, 6), 'bf16')}, %w: {_t((3, 2, 3, 3), 'bf16')}) -> {_t((1, 3, 4, 4), 'bf16')} {{
  %y = mindir.conv2d %x, %w : ({_t((1, 2, 6, 6), 'bf16')}, {_t((3, 2, 3, 3), 'bf16')}) -> {_t((1, 3, 4, 4), 'bf16')}
  return %y : {_t((1, 3, 4, 4), 'bf16')}
}}"""
    with pytest.raises(A.AscendEmulationError, match=r"kernel @\w+: a convolution that is neither f32 nor f16"):
        A.compile(text, fallback=False)
