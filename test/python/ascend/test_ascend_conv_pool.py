"""Convolutions on the cube (forward: Load3D's img2col on chip; gradients: a
GM im2col; batched Mmad), max pooling and its
gradient on the vector path (Gather tables), batched and f16 matmuls on the
cube: numerics of the emitted Ascend C on the emulator vs numpy, tails that
are not multiples of 32 bytes included, the group structure, and what still
falls back (with its reason)."""
import numpy as np
import pytest

import msmlir.ascend as A

pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore::msmlir.ascend.AscendEmulationWarning")]

RNG = np.random.default_rng(3)


def _t(shape, et="f32"):
    return "tensor<" + "".join(f"{d}x" for d in shape) + f"{et}>"


def conv_ref(x, w, stride=(1, 1), pad=(0, 0, 0, 0)):
    """NCHW x OIHW, zero padding (top, bottom, left, right), in float64."""
    x = np.pad(x.astype(np.float64), ((0, 0), (0, 0), pad[:2], pad[2:]))
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    oh, ow = (h - kh) // stride[0] + 1, (wd - kw) // stride[1] + 1
    y = np.zeros((n, o, oh, ow))
    for i in range(kh):
        for j in range(kw):
            win = x[:, :, i:i + stride[0] * (oh - 1) + 1:stride[0], j:j + stride[1] * (ow - 1) + 1:stride[1]]
            y += np.einsum("nchw,oc->nohw", win, w[:, :, i, j])
    return y


def _conv_fn(name, xs, ws, ys, attrs="", bias=None):
    bias_in = f", %b: {_t([ws[0]])}" if bias else ""
    body = f"  %y = mindir.conv2d %x, %w {attrs} : ({_t(xs)}, {_t(ws)}) -> {_t(ys)}\n"
    res = "%y"
    if bias:
        body += (f"  %z = mindir.bias_add %y, %b : ({_t(ys)}, {_t([ws[0]])}) -> {_t(ys)}\n"
                 f"  %r = mindir.relu %z : {_t(ys)}\n")
        res = "%r"
    return (f"func.func @{name}(%x: {_t(xs)}, %w: {_t(ws)}{bias_in}) -> {_t(ys)} {{\n{body}"
            f"  return {res} : {_t(ys)}\n}}")


CONVS = {  # name: (x shape, w shape, y shape, attrs, stride, pads, bias)
    "valid_bias_relu": ((3, 3, 13, 11), (5, 3, 3, 4), (3, 5, 11, 8), "", (1, 1), (0, 0, 0, 0), True),
    "padded": ((2, 2, 9, 7), (4, 2, 3, 3), (2, 4, 9, 7),
               "{pad_mode = #mindir.pad_mode<pad>, pad = array<i64: 1, 1, 1, 1>}", (1, 1), (1, 1, 1, 1), False),
    "stride_h": ((2, 3, 12, 10), (4, 3, 3, 3), (2, 4, 5, 8), "{stride = array<i64: 2, 1>}", (2, 1), (0, 0, 0, 0),
                 False),
    "big_k": ((2, 16, 12, 12), (24, 16, 5, 5), (2, 24, 8, 8), "", (1, 1), (0, 0, 0, 0), True),
    # rows of 150: an im2col row takes two UB tiles, the zero padding several chunks of the zero buffer
    "large_padded": ((1, 1, 150, 150), (2, 1, 3, 3), (1, 2, 150, 150),
                     "{pad_mode = #mindir.pad_mode<pad>, pad = array<i64: 1, 1, 1, 1>}", (1, 1), (1, 1, 1, 1), True),
}


@pytest.fixture(scope="module")
def conv_prog():
    return A.compile("\n".join(_conv_fn(n, *c[:4], bias=c[6]) for n, c in CONVS.items()), fallback=False)


@pytest.mark.parametrize("name", sorted(CONVS))
def test_conv_forward_on_the_cube(conv_prog, name):
    xs, ws, ys, _, stride, pads, bias = CONVS[name]
    x = RNG.standard_normal(xs).astype(np.float32)
    w = RNG.standard_normal(ws).astype(np.float32)
    args = [x, w]
    ref = conv_ref(x, w, stride, pads)
    if bias:
        b = RNG.standard_normal(ws[0]).astype(np.float32)
        args.append(b)
        ref = np.maximum(ref + b[None, :, None, None], 0)
    (y,) = conv_prog.call(name, *args)
    np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-4)
    k = [k for k in conv_prog.kernels.values() if k.plan.shapes["in"][:2] == [list(xs), list(ws)]][0]
    parts = [p.kernel.rsplit("_", 1)[-1] for p, _, _ in k.plan.parts]
    # (split-K, where the cost model takes it: the cube's partials then their vector sum, "ksum")
    parts = [p for p in parts if p != "ksum"]
    # Load3D: the filter and the input made channel-minor where C > 1 (transposes), no im2col, the
    # bias summed in L0C by the cube kernel itself
    assert parts[-2 if bias else -1] == "mm" and "im2col" not in parts and "bias" not in parts
    assert ("wt" in parts) == (xs[1] > 1 and ws[2] * ws[3] > 1) and ("x" in parts) == (xs[1] > 1)
    assert (parts[-1] == "ep") == bias
    mm = next(p for p in k.parts if p.name.endswith("_mm"))
    assert "Mmad(c1, a2, b2, mp);" in mm.source and "LoadData(b2, b1, LoadData3DParamsV2<float>(pad," in mm.source
    kp = -(-xs[1] // 8) * 8 * ws[2] * ws[3]          # K in Load3D's order, channels padded to C0 = 8
    assert mm.report["measured"]["mmad_macs"] == xs[0] * ws[0] * ys[2] * ys[3] * (kp + (1 if bias else 0))
    # no GM workspace larger than an operand or the result (the im2col's was C*KH*KW x OH*OW per image)
    assert max(int(np.prod(w_)) for w_ in k.plan.workspaces) <= max(np.prod(xs), np.prod(ws), np.prod(ys))
    if name == "large_padded":          # a band of the map per output tile, not the whole image in L1
        assert mm.plan.cube["load3d"]["pix_max"] < xs[2] * xs[3]
    assert k.report["bound"] != "scalar fallback" and "Load3D" in k.report["tile"]


def test_padded_conv_gradients_on_the_cube():
    """pad_mode=pad 1: the input gradient's dout padded by 1 (3x3 window), the
    filter gradient's input padded then transposed (im2col zero fill)."""
    dy_t, w_t, x_t = (2, 4, 6, 5), (4, 3, 3, 3), (2, 3, 6, 5)
    attrs = "pad_mode = #mindir.pad_mode<pad>, pad = array<i64: 1, 1, 1, 1>"
    text = f"""func.func @dx(%dy: {_t(dy_t)}, %w: {_t(w_t)}) -> {_t(x_t)} {{
  %r = mindir.conv2d_backprop_input %dy, %w {{input_shape = array<i64: 2, 3, 6, 5>, {attrs}}} : ({_t(dy_t)}, {_t(w_t)}) -> {_t(x_t)}
  return %r : {_t(x_t)}
}}
func.func @dw(%dy: {_t(dy_t)}, %x: {_t(x_t)}) -> {_t(w_t)} {{
  %g = mindir.conv2d_backprop_filter %dy, %x {{filter_shape = array<i64: 4, 3, 3, 3>, {attrs}}} : ({_t(dy_t)}, {_t(x_t)}) -> {_t(w_t)}
  return %g : {_t(w_t)}
}}"""
    prog = A.compile(text, fallback=False)
    dy = RNG.standard_normal(dy_t).astype(np.float32)
    w = RNG.standard_normal(w_t).astype(np.float32)
    x = RNG.standard_normal(x_t).astype(np.float32)
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (1, 1), (1, 1)))
    dxp = np.zeros(xp.shape)
    dw = np.zeros(w_t)
    for i in range(3):
        for j in range(3):
            dxp[:, :, i:i + 6, j:j + 5] += np.einsum("nohw,oc->nchw", dy.astype(np.float64), w[:, :, i, j])
            dw[:, :, i, j] = np.einsum("nohw,nchw->oc", dy.astype(np.float64), xp[:, :, i:i + 6, j:j + 5])
    np.testing.assert_allclose(prog.call("dx", dy, w)[0], dxp[:, :, 1:-1, 1:-1], rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(prog.call("dw", dy, x)[0], dw, rtol=1e-5, atol=1e-4)
    assert all(any(p.dma is not None and p.dma.get("padded") for p, _, _ in k.plan.parts) for k in prog.kernels.values())


def test_conv_gradients_on_the_cube():
    """The input gradient (padded dout, rotated filter: a permute + a reversed
    im2col) and the filter gradient (transposed input and dout, the result
    written transposed by Fixpipe, fused with an SGD update)."""
    dy_t, w_t, x_t = (2, 6, 8, 7), (6, 3, 3, 3), (2, 3, 10, 9)
    text = f"""func.func @dx(%dy: {_t(dy_t)}, %w: {_t(w_t)}) -> {_t(x_t)} {{
  %r = mindir.conv2d_backprop_input %dy, %w {{input_shape = array<i64: 2, 3, 10, 9>}} : ({_t(dy_t)}, {_t(w_t)}) -> {_t(x_t)}
  return %r : {_t(x_t)}
}}
func.func @dw(%dy: {_t(dy_t)}, %x: {_t(x_t)}, %lr: tensor<f32>, %w: {_t(w_t)}) -> {_t(w_t)} {{
  %g = mindir.conv2d_backprop_filter %dy, %x {{filter_shape = array<i64: 6, 3, 3, 3>}} : ({_t(dy_t)}, {_t(x_t)}) -> {_t(w_t)}
  %s = mindir.mul %g, %lr : ({_t(w_t)}, tensor<f32>) -> {_t(w_t)}
  %n = mindir.sub %w, %s : ({_t(w_t)}, {_t(w_t)}) -> {_t(w_t)}
  return %n : {_t(w_t)}
}}"""
    prog = A.compile(text, fallback=False)
    dy = RNG.standard_normal(dy_t).astype(np.float32)
    w = RNG.standard_normal(w_t).astype(np.float32)
    x = RNG.standard_normal(x_t).astype(np.float32)
    lr = np.array(0.1, np.float32)
    # reference gradients of y = conv(x, w): dx[n,c,h+i,v+j] += dy[n,o,h,v] w[o,c,i,j]; dw = sum dy * window
    dx = np.zeros(x_t)
    dw = np.zeros(w_t)
    for i in range(3):
        for j in range(3):
            dx[:, :, i:i + 8, j:j + 7] += np.einsum("nohw,oc->nchw", dy.astype(np.float64), w[:, :, i, j])
            dw[:, :, i, j] = np.einsum("nohw,nchw->oc", dy.astype(np.float64), x[:, :, i:i + 8, j:j + 7])
    (got_dx,) = prog.call("dx", dy, w)
    np.testing.assert_allclose(got_dx, dx, rtol=1e-5, atol=1e-4)
    (got_w,) = prog.call("dw", dy, x, lr, w)
    np.testing.assert_allclose(got_w, w - 0.1 * dw, rtol=1e-5, atol=1e-4)
    for k in prog.kernels.values():
        names = [p.kernel.rsplit("_", 1)[-1] for p, _, _ in k.plan.parts]
        assert "im2col" in names and "mm" in names and "wt" in names, names
    src = "\n".join(k.source for k in prog.kernels.values())
    assert "if (flip) { kh = KH - 1 - kh; kw = KW - 1 - kw; }" in src


# ----------------------------------------------------------------------------- strided, dilated, grouped
def conv_grads_ref(x, w, dy, stride, dil, pad, group=1):
    """(y, dx, dw) of y = conv(x, w) (NCHW / OIHW, zero padding (t, b, l, r),
    `group` channel groups) for the given dy, in float64."""
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    og = o // group
    oh, ow = dy.shape[2:]
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), pad[:2], pad[2:]))
    y, dxp, dw = np.zeros(dy.shape), np.zeros(xp.shape), np.zeros(w.shape)
    for g in range(group):
        ci, oi = slice(g * cg, (g + 1) * cg), slice(g * og, (g + 1) * og)
        for i in range(kh):
            for j in range(kw):
                win = (slice(None), ci, slice(i * dil[0], i * dil[0] + stride[0] * (oh - 1) + 1, stride[0]),
                       slice(j * dil[1], j * dil[1] + stride[1] * (ow - 1) + 1, stride[1]))
                y[:, oi] += np.einsum("nchw,oc->nohw", xp[win], w[oi, :, i, j])
                dxp[win] += np.einsum("nohw,oc->nchw", dy[:, oi].astype(np.float64), w[oi, :, i, j])
                dw[oi, :, i, j] = np.einsum("nohw,nchw->oc", dy[:, oi].astype(np.float64), xp[win])
    return y, dxp[:, :, pad[0]:pad[0] + h, pad[2]:pad[2] + wd], dw


STRIDED = {  # name: (x shape, w shape, stride, dilation, pads (t, b, l, r), group); tails: no dim a multiple of 8
    "stride2_pad": ((2, 3, 11, 13), (5, 3, 3, 3), (2, 2), (1, 1), (1, 1, 1, 1), 1),
    "stride3_dil23": ((2, 3, 17, 19), (4, 3, 3, 2), (3, 3), (2, 3), (0, 0, 0, 0), 1),
    "width_stride_dil_h": ((1, 2, 10, 9), (3, 2, 3, 3), (1, 2), (2, 1), (0, 0, 0, 0), 1),
    # padding beyond the window's reach: the input gradient reads a cropped dout
    "pad_beyond": ((1, 2, 7, 7), (3, 2, 2, 2), (1, 1), (1, 1), (3, 3, 3, 3), 1),
    "group3_stride2": ((2, 6, 11, 13), (9, 2, 3, 3), (2, 2), (1, 1), (1, 1, 1, 1), 3),
    "depthwise": ((1, 4, 12, 11), (4, 1, 3, 2), (1, 2), (2, 1), (0, 0, 0, 0), 4),
    # rows of 150: an item's rows take several UB tiles of the Gather im2col
    "large_stride2": ((1, 1, 150, 150), (2, 1, 3, 3), (2, 2), (1, 1), (1, 1, 1, 1), 1),
}


def _strided_text(xs, ws, stride, dil, pads, group):
    h, w = xs[2] + pads[0] + pads[1], xs[3] + pads[2] + pads[3]
    ys = (xs[0], ws[0], (h - dil[0] * (ws[2] - 1) - 1) // stride[0] + 1,
          (w - dil[1] * (ws[3] - 1) - 1) // stride[1] + 1)
    a = (f"group = {group}, stride = array<i64: {stride[0]}, {stride[1]}>, dilation = array<i64: {dil[0]}, "
         f"{dil[1]}>" + (f", pad_mode = #mindir.pad_mode<pad>, pad = array<i64: {', '.join(map(str, pads))}>"
                         if any(pads) else ""))
    b = _t([ws[0]])
    return ys, f"""func.func @fwd(%x: {_t(xs)}, %w: {_t(ws)}, %b: {b}) -> {_t(ys)} {{
  %y = mindir.conv2d %x, %w {{{a}}} : ({_t(xs)}, {_t(ws)}) -> {_t(ys)}
  %z = mindir.bias_add %y, %b : ({_t(ys)}, {b}) -> {_t(ys)}
  return %z : {_t(ys)}
}}
func.func @dx(%dy: {_t(ys)}, %w: {_t(ws)}) -> {_t(xs)} {{
  %r = mindir.conv2d_backprop_input %dy, %w {{input_shape = array<i64: {', '.join(map(str, xs))}>, {a}}} : ({_t(ys)}, {_t(ws)}) -> {_t(xs)}
  return %r : {_t(xs)}
}}
func.func @dw(%dy: {_t(ys)}, %x: {_t(xs)}) -> {_t(ws)} {{
  %g = mindir.conv2d_backprop_filter %dy, %x {{filter_shape = array<i64: {', '.join(map(str, ws))}>, {a}}} : ({_t(ys)}, {_t(xs)}) -> {_t(ws)}
  return %g : {_t(ws)}
}}"""


@pytest.mark.parametrize("name", sorted(STRIDED))
def test_strided_dilated_grouped_conv_and_gradients_on_the_cube(name):
    """Width strides, dilations and groups, forward (+ bias) and both gradients,
    with fallback=False: im2col by Gather where the window's columns are not a
    run (width stride, the strided input gradient's interleaved dout, a crop;
    elsewhere the cost model picks between the two im2col forms), the forward
    by Load3D (pad_beyond: on the GM im2col, some output rows read only
    padding), the cube batched over (image, group)."""
    xs, ws, stride, dil, pads, group = STRIDED[name]
    ys, text = _strided_text(xs, ws, stride, dil, pads, group)
    prog = A.compile(text, fallback=False)
    x = RNG.standard_normal(xs).astype(np.float32)
    w = RNG.standard_normal(ws).astype(np.float32)
    b = RNG.standard_normal(ws[0]).astype(np.float32)
    dy = RNG.standard_normal(ys).astype(np.float32)
    y_ref, dx_ref, dw_ref = conv_grads_ref(x, w, dy, stride, dil, pads, group)
    np.testing.assert_allclose(prog.call("fwd", x, w, b)[0], y_ref + b[None, :, None, None], rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(prog.call("dx", dy, w)[0], dx_ref, rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(prog.call("dw", dy, x)[0], dw_ref, rtol=1e-5, atol=1e-4)
    for k in prog.kernels.values():
        assert k.report["bound"] != "scalar fallback"
        mm = next(p for p, _, _ in k.plan.parts if p.cube is not None)
        assert mm.cube["tiling"]["bG"] == group and mm.double_buffer
        if "backprop" not in k.function:
            if name == "pad_beyond":     # its first output rows read only padding (Load3D needs l1H >= 1)
                assert "reads only padding" in k.plan.load3d_skipped
            else:                        # forward: Load3D, its strides, dilations and pads as given
                t = mm.cube["tiling"]
                assert mm.cube["load3d"] and not any(p.dma for p, _, _ in k.plan.parts)
                assert (t["sh"], t["sw"], t["dh"], t["dw"], t["pt"], t["pl"]) == (*stride, *dil, pads[0], pads[2])
                continue
        im = next(p for p, _, _ in k.plan.parts if p.dma is not None and p.dma["kind"] == "im2col")
        if "backprop_input" in k.function:       # interleaved dout (stride > 1) or a crop: Gather
            assert im.dma["gather"] == (stride != (1, 1) or max(pads) >= min(ws[2:]))
            assert im.dma["tiling"]["ry"] == stride[0] and im.dma["tiling"]["rx"] == stride[1]
        elif "backprop_filter" in k.function:    # dilated by the forward stride, strided by its dilation
            assert im.dma["tiling"]["dh"] == stride[0] and im.dma["tiling"]["sw"] == dil[1]
            assert im.dma["gather"] or dil[1] == 1        # required for a width stride, else the model's choice
        else:
            assert im.dma["gather"] or stride[1] == 1
            assert "bias" in [p.kernel.rsplit("_", 1)[-1] for p, _, _ in k.plan.parts]
        if name == "large_stride2" and im.dma["gather"]:
            assert im.dma["tiling"]["tileRows"] < min(ys[2], xs[2])


def test_f16_strided_conv_is_on_the_cube():
    """An f16 convolution (width stride: Load3D's strideW) is on the cube
    now, f32-accumulated (test_ascend_conv_f16.py has the numerics); with
    fallback=False it compiles."""
    text = _conv_fn("c", (1, 2, 9, 9), (3, 2, 3, 3), (1, 3, 7, 4), "{stride = array<i64: 1, 2>}").replace("f32", "f16")
    k = next(iter(A.compile(text, fallback=False).kernels.values()))
    assert k.report["bound"] != "scalar fallback" and "fallback_reason" not in k.report
    assert [p.kernel.rsplit("_", 1)[-1] for p, _, _ in k.plan.parts] == ["wt", "x", "mm"]
    mm = k.plan.parts[2][0]
    assert mm.cube["dtype"] == "f16" and mm.cube["load3d"] and mm.cube["tiling"]["sw"] == 2


# ----------------------------------------------------------------------------- pooling
POOLS = [(4, 6, 28, 28, 2), (2, 5, 10, 10, 2), (3, 2, 9, 13, 3), (1, 3, 7, 6, 2)]   # n, c, h, w, window


def _pool_fns(n, c, h, w, k):
    xs, ys = (n, c, h, w), (n, c, (h - k) // k + 1, (w - k) // k + 1)
    attrs = f"{{kernel_size = array<i64: {k}, {k}>, strides = array<i64: {k}, {k}>}}"
    return f"""func.func @fwd(%x: {_t(xs)}) -> {_t(ys)} {{
  %y = mindir.max_pool2d %x {attrs} : ({_t(xs)}) -> {_t(ys)}
  return %y : {_t(ys)}
}}
func.func @bwd(%x: {_t(xs)}, %dy: {_t(ys)}) -> {_t(xs)} {{
  %d = mindir.max_pool2d_grad %x, %dy {attrs} : ({_t(xs)}, {_t(ys)}) -> {_t(xs)}
  return %d : {_t(xs)}
}}"""


def pool_refs(x, dy, k):
    n, c, h, w = x.shape
    oh, ow = (h - k) // k + 1, (w - k) // k + 1
    win = x[:, :, :oh * k, :ow * k].reshape(n, c, oh, k, ow, k).transpose(0, 1, 2, 4, 3, 5).reshape(n, c, oh, ow, k * k)
    first = win.argmax(-1)                                   # the first (row-major) maximum
    dx = np.zeros_like(x, dtype=np.float64)
    for i in range(k):
        for j in range(k):
            dx[:, :, i:oh * k:k, j:ow * k:k] = np.where(first == i * k + j, dy, 0)
    return win.max(-1), dx


@pytest.mark.parametrize("shape", POOLS)
def test_max_pool_and_gradient_on_the_vector_path(shape):
    n, c, h, w, k = shape
    prog = A.compile(_pool_fns(*shape), fallback=False)
    x = RNG.standard_normal((n, c, h, w)).astype(np.float32)
    x[0, 0, :2, :2] = 1.5                                      # ties: the first maximum gets the gradient
    dy = RNG.standard_normal((n, c, (h - k) // k + 1, (w - k) // k + 1)).astype(np.float32)
    y_ref, dx_ref = pool_refs(x, dy, k)
    (y,) = prog.call("fwd", x)
    np.testing.assert_array_equal(y, y_ref)
    (dx,) = prog.call("bwd", x, dy)
    np.testing.assert_array_equal(dx, dx_ref)
    for kern in prog.kernels.values():
        assert kern.plan.pool is not None and "Gather(" in kern.source and "GetValue" not in kern.source
        assert kern.report["measured"]["peak_ub"] <= 192 * 1024
    bwd = next(k_ for k_ in prog.kernels.values() if k_.plan.pool["kind"] == "max_grad")
    assert "Compare(bits, g, m, CMPMODE::EQ, cnt);" in bwd.source


def test_f16_pooling_is_on_the_vector_path():
    """Overlapping max-pool gradients and padded pooling are on the vector path
    (test_ascend_f16_avgpool.py), f16 pooling too (half in GM, an f32 image on
    chip; test_ascend_pool_f16_dilated.py): no scalar fallback."""
    xs, ys = (1, 2, 9, 9), (1, 2, 4, 4)
    attrs = "{kernel_size = array<i64: 3, 3>, strides = array<i64: 2, 2>}"
    text = f"""func.func @p(%x: {_t(xs, 'f16')}) -> {_t(ys, 'f16')} {{
  %y = mindir.max_pool2d %x {attrs} : ({_t(xs, 'f16')}) -> {_t(ys, 'f16')}
  return %y : {_t(ys, 'f16')}
}}"""
    prog = A.compile(text, fallback=False)
    x = RNG.standard_normal(xs).astype(np.float16)
    (y,) = prog.call("p", x)
    ref = np.max([x[:, :, i:i + 7:2, j:j + 7:2] for i in range(3) for j in range(3)], 0)
    assert y.dtype == np.float16
    np.testing.assert_array_equal(y, ref)
    assert next(iter(prog.kernels.values())).plan.pool["f16"]


# ----------------------------------------------------------------------------- bias gradient (split.py)
@pytest.mark.parametrize("shape", [(3, 5, 7, 9), (4, 16, 10, 10)])
def test_bias_gradient_as_row_then_column_kernels(shape):
    """db[c] = sum over n, h, w: a row-mode kernel (partial sums over h, w,
    the masked gradient as a second result), then a column-mode kernel (the
    sum over n and the SGD update of the bias)."""
    n, c, h, w = shape
    x, b = _t(shape), _t([c])
    text = f"""func.func @db(%dy: {x}, %m: {x}, %lr: tensor<f32>, %b: {b}) -> ({x}, {b}) {{
  %g = mindir.mul %dy, %m : ({x}, {x}) -> {x}
  %s = mindir.reduce_sum %g {{axes = array<i64: 0, 2, 3>}} : ({x}) -> {b}
  %u = mindir.mul %s, %lr : ({b}, tensor<f32>) -> {b}
  %r = mindir.sub %b, %u : ({b}, {b}) -> {b}
  return %g, %r : {x}, {b}
}}"""
    prog = A.compile(text, fallback=False)
    dy = RNG.standard_normal(shape).astype(np.float32)
    m = (RNG.random(shape) > 0.5).astype(np.float32)
    bias = RNG.standard_normal(c).astype(np.float32)
    g, nb = prog.call("db", dy, m, np.array(0.5, np.float32), bias)
    np.testing.assert_array_equal(g, dy * m)
    np.testing.assert_allclose(nb, bias - 0.5 * (dy.astype(np.float64) * m).sum((0, 2, 3)), rtol=1e-5, atol=1e-5)
    k = next(iter(prog.kernels.values()))
    assert [p.mode for p, _, _ in k.plan.parts] == ["row", "col"] and k.plan.workspaces == [[n, c]]
    assert "ReduceSum(" in k.parts[0].source


# ----------------------------------------------------------------------------- batched and f16 matmul
@pytest.mark.parametrize("B,M,K,N", [(2, 8, 16, 4), (3, 70, 100, 50), (2, 130, 200, 140)])
def test_batched_matmul_on_the_cube(B, M, K, N):
    text = f"""func.func @f(%a: {_t((B, M, K))}, %b: {_t((B, K, N))}) -> {_t((B, M, N))} {{
  %m = mindir.batch_matmul %a, %b : ({_t((B, M, K))}, {_t((B, K, N))}) -> {_t((B, M, N))}
  return %m : {_t((B, M, N))}
}}"""
    prog = A.compile(text, fallback=False)
    a = RNG.standard_normal((B, M, K)).astype(np.float32)
    b = RNG.standard_normal((B, K, N)).astype(np.float32)
    (c,) = prog.call("f", a, b)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b, rtol=1e-5, atol=1e-4)
    k = next(iter(prog.kernels.values()))
    assert k.plan.cube["batch"] == B and k.report["measured"]["mmad_macs"] == B * M * N * K
    assert "uint32_t t = tileBegin + s / kSteps, b = t / batchTiles, r = t % batchTiles;" in k.source


@pytest.mark.parametrize("M,K,N,out", [(24, 40, 20, "f16"), (130, 300, 70, "f16"), (33, 50, 17, "f32")])
def test_f16_matmul_accumulates_in_f32(M, K, N, out):
    if out == "f16":
        body = f"""  %m = mindir.matmul %a, %b : ({_t((M, K), 'f16')}, {_t((K, N), 'f16')}) -> {_t((M, N), 'f16')}
  return %m : {_t((M, N), 'f16')}"""
    else:   # f16 operands, the product kept in f32
        body = f"""  %a32 = mindir.cast %a : {_t((M, K), 'f16')} to {_t((M, K))}
  %b32 = mindir.cast %b : {_t((K, N), 'f16')} to {_t((K, N))}
  %m = mindir.matmul %a32, %b32 : ({_t((M, K))}, {_t((K, N))}) -> {_t((M, N))}
  return %m : {_t((M, N))}"""
    text = f"""func.func @h(%a: {_t((M, K), 'f16')}, %b: {_t((K, N), 'f16')}) -> {_t((M, N), out)} {{
{body}
}}"""
    a = RNG.standard_normal((M, K)).astype(np.float16)
    b = RNG.standard_normal((K, N)).astype(np.float16)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    if out == "f32":
        # the two casts fuse into one kernel over two iteration spaces: still the scalar fallback
        prog = A.compile(text)
        (c,) = prog.call("h", a, b)
        np.testing.assert_allclose(c, ref, rtol=1e-5, atol=1e-4)
        return
    prog = A.compile(text, fallback=False)
    (c,) = prog.call("h", a, b)
    assert c.dtype == np.float16
    # f32 accumulation, one rounding to f16 at the end (Fixpipe F322F16): within one f16 ulp of exact
    np.testing.assert_allclose(c.astype(np.float64), ref, rtol=1e-3, atol=2e-3)
    k = next(iter(prog.kernels.values()))
    assert k.plan.cube["dtype"] == "f16" and "LocalTensor<half> a2" in k.source
    assert "QuantMode_t::F322F16" in k.source and "LoadData(a2[i * kf * 256]" in k.source
    # two L0A buffers (double buffering) of baseM x baseK halves
    assert k.report["l0a_bytes"] == 2 * k.plan.cube["tiling"]["baseM"] * k.plan.cube["tiling"]["baseK"] * 2


# ----------------------------------------------------------------------------- emulator rules added
RULES = r"""
using namespace AscendC;
class K {
 public:
  void Run(GM_ADDR x, GM_ADDR y, uint32_t mode) {
    xGm.SetGlobalBuffer((__gm__ float*)x, 64); yGm.SetGlobalBuffer((__gm__ float*)y, 64);
    pipe.InitBuffer(q, 1, 256); pipe.InitBuffer(tb, 256);
    LocalTensor<float> t = q.AllocTensor<float>();
    DataCopy(t, xGm, 64);
    q.EnQue(t);
    LocalTensor<float> u = q.DeQue<float>();
    LocalTensor<uint32_t> off = tb.Get<uint32_t>();
    LocalTensor<float> r = rb.Get<float>();
    for (uint32_t i = 0; i < 64; ++i) off.SetValue(i, (63 - i) * 4);        // reverse
    if (mode == 1) off.SetValue(5, 256);                                     // outside the source
    if (mode == 2) off.SetValue(5, 2);                                       // not element aligned
    Gather(r, u, off, 0, 64);
    DataCopy(yGm, r, 64);
    q.FreeTensor(u);
  }
  TPipe pipe; TQueBind<QuePosition::VECIN, QuePosition::VECOUT, 1> q; TBuf<TPosition::VECCALC> tb, rb;
  GlobalTensor<float> xGm, yGm;
};
extern "C" __global__ __aicore__ void rules(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling) {
  GET_TILING_DATA(td, tiling);
  K k; k.pipe.InitBuffer(k.rb, 256); k.Run(x, y, td.mode);
}
"""


@pytest.mark.parametrize("mode,what", [(0, None), (1, "offset 256 of element 5 is outside the source's 256 bytes"),
                                       (2, "offset 2 of element 5 is not a multiple of the element size")])
def test_gather_rules(mode, what):
    from msmlir.ascend.emulator import EmulatedKernel, build
    tiling = ("struct RulesTilingData { uint32_t mode; };\n"
              "#define GET_TILING_DATA(v, p) RulesTilingData v; std::memcpy(&v, (p), sizeof(v))\n")
    k = EmulatedKernel("rules", build("rules", RULES, tiling, 4), [(64,)], [(64,)], [mode], 1)
    x = RNG.standard_normal(64).astype(np.float32)
    if what is None:
        np.testing.assert_array_equal(k.run(x)[0], x[::-1])
        return
    with pytest.raises(A.AscendEmulationError) as e:
        k.run(x)
    assert str(e.value).startswith("rules: Gather: ") and what in str(e.value), str(e.value)


def test_fixpipe_conversion_needs_quant_mode():
    from msmlir.passes.ascend import emit
    text = f"""func.func @h(%a: {_t((16, 16), 'f16')}, %b: {_t((16, 16), 'f16')}) -> {_t((16, 16), 'f16')} {{
  %m = mindir.matmul %a, %b : ({_t((16, 16), 'f16')}, {_t((16, 16), 'f16')}) -> {_t((16, 16), 'f16')}
  return %m : {_t((16, 16), 'f16')}
}}"""
    k = A.compile_kernel(text)
    bad = k.source.replace(", QuantMode_t::F322F16", "")
    from msmlir.ascend.emulator import EmulatedKernel, build
    p = k.plan
    lib = build(p.kernel + "_noquant", bad.replace(p.kernel, p.kernel + "_noquant"), emit.emulator_tiling(p), 5)
    ek = EmulatedKernel(p.kernel + "_noquant", lib, p.shapes["in"], p.shapes["out"],
                        list(emit.tiling_values(p).values()), 1, p.shapes["in_dtypes"], p.shapes["out_dtypes"])
    a = np.eye(16, dtype=np.float16)
    with pytest.raises(A.AscendEmulationError, match=r"Fixpipe\(L0C->GM\): an f32 -> f16 Fixpipe needs quantPre"):
        ek.run(a, a)
