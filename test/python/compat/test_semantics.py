"""MindSpore 2.x semantics (issue 12, items 3-5): exception types, creation ops
returning Tensors, zero-size tensors, GradOperation(get_by_list) without
weights, the functional ops composed from existing ones, nn.Hardtanh / nn.Pad,
the pooling and cross_entropy arguments, gather(batch_dims), Tensor.transpose
and BatchNorm's moving variance -- each against numpy."""
import math
import pickle

import numpy as np
import pytest

import msmlir as ms
from msmlir import nn, ops

RS = np.random.RandomState(7)


def f32(*shape):
    return RS.randn(*shape).astype(np.float32)


def T(a):
    return ms.Tensor(a)


MODES = [ms.PYNATIVE_MODE, ms.GRAPH_MODE]


def _both(fn, *args):
    """fn(*args) eagerly and compiled: both results (checked equal by the caller)."""
    return fn(*args), ms.jit(fn)(*args)


# ---- exception types -------------------------------------------------------------------

def _shape_error(x):
    return ops.reshape(x, (4, 4))


def _type_error(x):
    return ops.gather(x, ops.cast(x, ms.float32), 0)


def _index_error(x):
    return x[7]


def _unsupported(x):
    global _G   # noqa: PLW0603
    return x


def test_compile_errors_are_also_builtin_exceptions():
    x = T(f32(2, 3))
    for fn, builtin in ((_shape_error, ValueError), (_type_error, TypeError),
                        (_index_error, IndexError), (_unsupported, RuntimeError)):
        with pytest.raises(ms.CompileError) as info:
            ms.jit(fn)(x)
        assert isinstance(info.value, builtin), (fn.__name__, type(info.value).__mro__)
        assert info.value.kind is builtin
        assert "test_semantics.py" in str(info.value)   # still located at the user's line
    with pytest.raises(ValueError):
        ops.reshape(x, (5,))                             # eager: the same types
    with pytest.raises(TypeError):
        ops.concat(x)
    e = ms.CompileError("For 'X', the shape is wrong")
    assert isinstance(e, ValueError) and type(e).__name__ == "CompileValueError"
    e2 = pickle.loads(pickle.dumps(e))
    assert type(e2) is type(e) and e2.msg == e.msg
    assert isinstance(ms.CompileError("x", kind=IndexError), IndexError)
    assert issubclass(ms.CompileTypeError, ms.CompileError)


# ---- creation ops return Tensors in PyNative ----------------------------------------------

@pytest.mark.parametrize("make", [
    lambda: ops.zeros((2, 3)), lambda: ops.ones((2,), ms.int32), lambda: ops.arange(5),
    lambda: ops.fill(ms.float32, (2, 2), 1.5), lambda: ops.full((2,), 3),
    lambda: ops.eye(3), lambda: ops.linspace(0.0, 1.0, 5), lambda: ops.standard_normal((3,)),
    lambda: ops.uniform((3,)), lambda: ops.scalar_to_tensor(2.0),
    lambda: ops.tuple_to_array((1, 2, 3)),
])
def test_creation_ops_return_tensors(make):
    assert isinstance(make(), ms.Tensor)


def test_numpy_in_numpy_out_is_unchanged():
    assert isinstance(ops.add(np.ones(2, np.float32), 1.0), np.ndarray)
    assert isinstance(ops.zeros_like(np.ones(2, np.float32)), np.ndarray)


def test_zero_size_tensors():
    z = ops.zeros((0, 3))
    assert isinstance(z, ms.Tensor) and z.shape == (0, 3)
    y = T(np.zeros((0, 3), np.float32)) + 1
    assert y.shape == (0, 3)
    np.testing.assert_array_equal(ops.reduce_sum(z, 0).asnumpy(), np.zeros(3))
    assert ops.concat((z, T(np.ones((2, 3), np.float32)))).shape == (2, 3)
    assert ops.arange(0).shape == (0,)


def test_grad_operation_get_by_list_without_weights():
    x = T(np.float32([1, 2, 3]))

    def f(v):
        return (v * v).sum()
    assert ops.GradOperation(get_by_list=True)(f)(x) == ()
    g_in, g_w = ops.GradOperation(get_all=True, get_by_list=True)(f)(x)
    np.testing.assert_allclose(g_in[0].asnumpy(), [2, 4, 6])
    assert g_w == ()
    net = nn.Dense(3, 2)
    w = net.trainable_params()
    gw = ops.GradOperation(get_by_list=True)(lambda v: net(v).sum(), w)(T(f32(4, 3)))
    assert len(gw) == 2 and gw[0].shape == (2, 3)


# ---- functional ops composed from existing ones (both modes) ---------------------------

def _check(pair, ref, rtol=1e-5, atol=1e-6):
    for got in pair:
        got = got.asnumpy() if hasattr(got, "asnumpy") else np.asarray(got)
        assert got.shape == np.shape(ref)
        np.testing.assert_allclose(got, ref, rtol=rtol, atol=atol)


def test_gather_elements_and_gather_nd():
    x = f32(3, 4)
    idx = np.array([[0, -1], [2, 1], [3, 3]], np.int32)
    _check(_both(lambda a, i: ops.gather_elements(a, 1, i), T(x), T(idx)),
           np.take_along_axis(x, idx % 4, 1))
    idx0 = np.array([[2, 0, 1, 1]], np.int32)
    _check(_both(lambda a, i: ops.gather_elements(a, 0, i), T(x), T(idx0)),
           np.take_along_axis(x, idx0, 0))
    with pytest.raises(IndexError):
        ops.gather_elements(T(x), 1, T(np.array([[4], [0], [0]], np.int32)))
    with pytest.raises(ValueError, match="rank"):
        ops.gather_elements(T(x), 1, T(np.zeros(3, np.int32)))
    x3 = f32(2, 3, 4)
    nd = np.array([[[1, 2], [0, 0]], [[1, 0], [0, 2]]], np.int32)
    _check(_both(ops.gather_nd, T(x3), T(nd)), x3[nd[..., 0], nd[..., 1]])
    with pytest.raises(IndexError):
        ops.gather_nd(T(x3), T(np.array([[2, 0]], np.int32)))


def test_scatter_and_masked_fill():
    idx = np.array([[1, 0], [0, 2], [1, 0]], np.int32)
    upd = np.float32([1, 2, 5])
    ref = np.zeros((2, 3), np.float32)
    np.add.at(ref, (idx[:, 0], idx[:, 1]), upd)
    _check(_both(lambda i, u: ops.scatter_nd(i, u, (2, 3)), T(idx), T(upd)), ref)
    x = f32(3, 4)
    u = f32(2, 4)
    ref2 = x.copy()
    ref2[[2, 0]] = u
    _check(_both(ops.tensor_scatter_update, T(x), T(np.array([[2], [0]], np.int32)), T(u)), ref2)
    m = x > 0
    _check(_both(lambda a, b: ops.masked_fill(a, b, -1.0), T(x), T(m)), np.where(m, -1, x))
    with pytest.raises(TypeError, match="bool"):
        ops.masked_fill(T(x), T(x), 0.0)


def test_clipping_and_normalization():
    x = f32(3, 4) * 3
    n = np.sqrt((x ** 2).sum())
    _check(_both(lambda a: ops.clip_by_norm(a, 1.5), T(x)), x * min(1.5 / (n + 1e-6), 1),
           rtol=1e-5)
    _check(_both(lambda a: ops.clip_by_norm(a, 1e9), T(x)), x)
    y = f32(5)
    gn = math.sqrt((x ** 2).sum() + (y ** 2).sum())
    out = ops.clip_by_global_norm((T(x), T(y)), 2.0)
    np.testing.assert_allclose(out[1].asnumpy(), y * 2 / max(gn, 2), rtol=1e-5)
    _check(_both(lambda a: ops.l2_normalize(a, 1), T(x)),
           x / np.sqrt(np.maximum((x ** 2).sum(1, keepdims=True), 1e-4)))
    _check(_both(lambda a: ops.hardtanh(a, -0.5, 2.0), T(x)), np.clip(x, -0.5, 2.0))
    g = f32(4)
    rstd = 1 / np.sqrt((x ** 2).mean(-1, keepdims=True) + 1e-6)
    y_, r_ = ops.rms_norm(T(x), T(g))
    np.testing.assert_allclose(y_.asnumpy(), x * rstd * g, rtol=1e-5)
    np.testing.assert_allclose(r_.asnumpy(), rstd, rtol=1e-5)


def test_losses_and_iou():
    x, z = f32(3, 4), (RS.rand(3, 4) > 0.5).astype(np.float32)
    p = (RS.rand(3, 4) * 0.8 + 0.1).astype(np.float32)
    _check(_both(ops.binary_cross_entropy, T(p), T(z)),
           np.mean(-(z * np.log(p) + (1 - z) * np.log(1 - p))))
    pw = np.float32([1, 2, 3, 1])
    _check(_both(lambda a, b: ops.binary_cross_entropy_with_logits(a, b, None, T(pw), "sum"),
                 T(x), T(z)),
           np.sum((1 + (pw - 1) * z) * np.log1p(np.exp(-x)) + (1 - z) * x), rtol=1e-5)
    d = np.abs(x - p)
    _check(_both(lambda a, b: ops.smooth_l1_loss(a, b, 0.3, "mean"), T(x), T(p)),
           np.mean(np.where(d < 0.3, 0.5 * d * d / 0.3, d - 0.15)))
    a = np.float32([[0, 0, 9, 9], [5, 5, 12, 12]])
    g = np.float32([[0, 0, 9, 9], [8, 8, 9, 9], [20, 20, 21, 21]])
    out = ops.iou(T(a), T(g)).asnumpy()
    assert out.shape == (3, 2)
    np.testing.assert_allclose(out[0, 0], 1.0)
    np.testing.assert_allclose(out[2], [0, 0])
    np.testing.assert_allclose(out[1, 0], 4 / 100)          # +1 areas: 2x2 inside 10x10
    np.testing.assert_allclose(ops.iou(T(a), T(g), "iof").asnumpy()[1, 0], 1.0)


def test_python_level_helpers():
    assert ops.dtype(T(f32(2))) == ms.float32
    assert ops.make_range(4) == (0, 1, 2, 3)
    with pytest.raises(ValueError):
        ops.make_range(0, 3, 0)
    np.testing.assert_array_equal(ops.tuple_to_array((1, 2)).asnumpy(), [1, 2])
    assert ops.tuple_to_array((1, 2)).dtype == ms.int64
    assert ops.tuple_to_array((1.0, 2)).dtype == ms.float32

    def scale(k, x):
        return x * k
    p = ops.partial(scale, 3.0)
    x = T(np.float32([1, 2]))
    np.testing.assert_array_equal(p(x).asnumpy(), [3, 6])

    @ms.jit
    def f(v):
        q = ops.partial(scale, 2.0)
        return q(v) + p(v)
    np.testing.assert_array_equal(f(x).asnumpy(), [5, 10])
    with pytest.raises(TypeError, match="callable"):
        ops.partial(3)


def test_cumsum_flip_eye_linspace():
    x = f32(3, 4)
    _check(_both(lambda a: ops.cumsum(a, 1), T(x)), np.cumsum(x, 1))
    _check(_both(lambda a: ops.cumsum(a, 0, reverse=True), T(x)), np.cumsum(x[::-1], 0)[::-1])
    xi = np.array([[1, 2], [3, 4]], np.int32)
    out = ops.cumsum(T(xi), 0)
    assert out.dtype == ms.int32
    np.testing.assert_array_equal(out.asnumpy(), np.cumsum(xi, 0))
    _check(_both(lambda a: ops.flip(a, (0, 1)), T(x)), x[::-1, ::-1])
    np.testing.assert_array_equal(ops.eye(2, 3, ms.int32).asnumpy(), np.eye(2, 3))
    # Tensor bounds (issue 12): computed at run time
    _check(_both(lambda a, b: ops.linspace(a, b, 6), T(np.float32(-2)), T(np.float32(3))),
           np.linspace(-2, 3, 6), atol=1e-6)
    assert ops.linspace(T(np.float32(1)), T(np.float32(5)), 5).asnumpy()[-1] == 5
    with pytest.raises(ValueError, match="positive"):
        ops.linspace(0.0, 1.0, 0)


# ---- nn additions -------------------------------------------------------------------------

def _np_pool(x, k, s, p, d, ceil, mode, include_pad=True, divisor=None):
    n, c, h, w = x.shape

    def out_size(size):
        num = size + 2 * p - d * (k - 1) - 1
        o = (-(-num // s) if ceil else num // s) + 1
        if ceil and (o - 1) * s >= size + p:
            o -= 1
        return o
    oh, ow = out_size(h), out_size(w)
    fill = -np.inf if mode == "max" else 0.0
    xp = np.full((n, c, h + 2 * p + k * d + s, w + 2 * p + k * d + s), fill)
    xp[:, :, p:p + h, p:p + w] = x
    out = np.zeros((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            win = xp[:, :, i * s:i * s + (k - 1) * d + 1:d, j * s:j * s + (k - 1) * d + 1:d]
            if mode == "max":
                out[:, :, i, j] = win.max((2, 3))
                continue
            hs, ws = i * s - p, j * s - p
            he, we = min(hs + k, h + p), min(ws + k, w + p)
            if divisor:
                cnt = divisor
            elif include_pad:
                cnt = (he - hs) * (we - ws)
            else:
                cnt = (min(he, h) - max(hs, 0)) * (min(we, w) - max(ws, 0))
            out[:, :, i, j] = win.sum((2, 3)) / cnt
    return out


@pytest.mark.parametrize("mode", MODES)
def test_pooling_dilation_ceil_mode(mode):
    x = f32(2, 3, 7, 8)
    ms.set_context(mode=mode)
    try:
        for kw, ref in [
            (dict(kernel_size=3, stride=2, ceil_mode=True), (3, 2, 0, 1, True)),
            (dict(kernel_size=2, stride=1, dilation=2), (2, 1, 0, 2, False)),
            (dict(kernel_size=3, stride=2, pad_mode="pad", padding=1, dilation=2,
                  ceil_mode=True), (3, 2, 1, 2, True)),
        ]:
            out = nn.MaxPool2d(**kw)(T(x)).asnumpy()
            np.testing.assert_allclose(out, _np_pool(x, *ref, "max"), rtol=1e-6)
        for kw, ref, extra in [
            (dict(kernel_size=3, stride=2, ceil_mode=True), (3, 2, 0, 1, True), {}),
            (dict(kernel_size=3, stride=2, pad_mode="pad", padding=1, ceil_mode=True),
             (3, 2, 1, 1, True), {}),
            (dict(kernel_size=3, stride=2, pad_mode="pad", padding=1, count_include_pad=False),
             (3, 2, 1, 1, False), {"include_pad": False}),
            (dict(kernel_size=2, stride=2, divisor_override=3), (2, 2, 0, 1, False),
             {"divisor": 3}),
        ]:
            out = nn.AvgPool2d(**kw)(T(x)).asnumpy()
            np.testing.assert_allclose(out, _np_pool(x, *ref, "avg", **extra), rtol=1e-5,
                                       atol=1e-6)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


@pytest.mark.parametrize("mode", MODES)
def test_hardtanh_and_pad_cells(mode):
    x = f32(2, 3) * 2
    ms.set_context(mode=mode)
    try:
        np.testing.assert_allclose(nn.Hardtanh(-0.5, 1.0)(T(x)).asnumpy(), np.clip(x, -0.5, 1))
        out = nn.Pad(((1, 2), (0, 1)))(T(x)).asnumpy()
        np.testing.assert_array_equal(out, np.pad(x, ((1, 2), (0, 1))))
        out = nn.Pad(((2, 1),))(T(x)).asnumpy()     # pairs for the trailing dims
        np.testing.assert_array_equal(out, np.pad(x, ((0, 0), (2, 1))))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    with pytest.raises(ValueError, match="less than"):
        nn.Hardtanh(1.0, 0.0)
    with pytest.raises(TypeError, match="paddings"):
        nn.Pad([[1, 1]])
    with pytest.raises(ValueError, match="CONSTANT"):
        nn.Pad(((1, 1),), mode="REFLECT")
    assert isinstance(nn.get_activation("hardtanh"), nn.Hardtanh)


def test_cross_entropy_weight_and_label_smoothing():
    x = f32(5, 4)
    t = np.array([0, 3, -100, 1, 2], np.int32)
    w = (RS.rand(4) + 0.5).astype(np.float32)
    logp = x - np.log(np.exp(x).sum(1, keepdims=True))
    keep = t != -100
    ts = np.where(keep, t, 0)
    nll = -w[ts] * logp[np.arange(5), ts] * keep
    smooth = -(logp * w).sum(1) * keep
    for eps in (0.0, 0.2):
        ref = ((1 - eps) * nll + eps / 4 * smooth).sum() / (w[ts] * keep).sum()
        _check(_both(lambda a, b, c: ops.cross_entropy(a, b, c, label_smoothing=eps),
                     T(x), T(t), T(w)), ref, rtol=1e-5)
    _check(_both(lambda a, b, c: ops.cross_entropy(a, b, c, reduction="none"), T(x), T(t), T(w)),
           nll, rtol=1e-5)
    p = np.abs(f32(5, 4))
    p /= p.sum(1, keepdims=True)
    ps = p * 0.9 + 0.1 / 4
    _check(_both(lambda a, b: ops.cross_entropy(a, b, label_smoothing=0.1), T(x), T(p)),
           np.mean(-(logp * ps).sum(1)), rtol=1e-5)


def test_gather_batch_dims():
    p = f32(2, 3, 5, 4)
    idx = RS.randint(-5, 5, (2, 3, 6)).astype(np.int32)
    ref = np.stack([np.stack([p[b, c][idx[b, c]] for c in range(3)]) for b in range(2)])
    _check(_both(lambda a, i: ops.gather(a, i, 2, batch_dims=2), T(p), T(idx)), ref)
    p2 = f32(2, 3, 5)
    idx2 = RS.randint(0, 5, (2, 4)).astype(np.int32)
    ref2 = np.stack([p2[b][:, idx2[b]] for b in range(2)])
    _check(_both(lambda a, i: ops.gather(a, i, 2, batch_dims=1), T(p2), T(idx2)), ref2)
    with pytest.raises(IndexError):
        ops.gather(T(p2), T(np.array([[5], [0]], np.int32)), 2, batch_dims=1)
    with pytest.raises(ValueError, match="batch dims"):
        ops.gather(T(p2), T(np.zeros((3, 1), np.int32)), 1, batch_dims=1)


# ---- item 5: Tensor.transpose(0, 1) and BatchNorm2d's moving variance ----------------------

class _Linear(nn.Cell):
    def __init__(self):
        super().__init__()
        self.weight = ms.Parameter(T(f32(3, 4)), name="weight")

    def construct(self, x):
        return ops.matmul(x, self.weight.transpose(0, 1))


@pytest.mark.parametrize("mode", MODES)
def test_tensor_transpose_two_ints_swaps_axes(mode):
    x = f32(2, 4)
    ms.set_context(mode=mode)
    try:
        net = _Linear()
        np.testing.assert_allclose(net(T(x)).asnumpy(), x @ net.weight.asnumpy().T, rtol=1e-5)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    y = T(f32(2, 3, 4))
    assert y.transpose(0, 2).shape == (4, 3, 2)               # two ints: swap
    assert y.transpose(1, 2, 0).shape == (3, 4, 2)            # a permutation
    assert y.transpose((1, 0, 2)).shape == (3, 2, 4)
    assert y.transpose().shape == (4, 3, 2)


@pytest.mark.parametrize("mode", MODES)
def test_batchnorm2d_moving_variance_unbiased_on_cpu(mode):
    x = f32(4, 3, 2, 2) * 2 + 1
    ms.set_context(mode=mode)
    try:
        bn = nn.BatchNorm2d(3).set_train()
        bn(T(x))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert ms.get_context("device_target") == "CPU"
    uv = x.var(axis=(0, 2, 3), ddof=1)
    np.testing.assert_allclose(bn.moving_variance.asnumpy(), 0.9 + 0.1 * uv, rtol=1e-5)


# ---- callables that close over tensors, passed to a helper (issue 12) ----------------------

def _apply_fn(t, g):
    return g(t)


def _add2(a, b):
    return a + b


_apply_jit = ms.jit(_apply_fn)


def _closure_cases(x):
    import functools
    y = x * 2

    def local(t):
        return t * y
    return (_apply_fn(x, functools.partial(_add2, x)), _apply_jit(x, ops.partial(_add2, y)),
            _apply_fn(x, lambda t: t + y), _apply_jit(x, local))


def test_callables_closing_over_tensors_passed_to_helpers():
    x = f32(2, 3)
    outs = ms.jit(_closure_cases)(T(x))
    refs = (x + x, x + 2 * x, x + 2 * x, x * 2 * x)
    for o, r in zip(outs, refs):
        np.testing.assert_allclose(o.asnumpy(), r, rtol=1e-6)

    class Scale:
        def __init__(self, k):
            self.k = k

        def __call__(self, t):
            return t * self.k
    np.testing.assert_allclose(_apply_jit(T(x), Scale(3.0)).asnumpy(), 3 * x, rtol=1e-6)


def _undefined(x):
    return x + not_defined_anywhere   # noqa: F821


def test_undefined_name_is_a_name_error():
    with pytest.raises(NameError) as info:
        ms.jit(_undefined)(T(f32(2)))
    assert isinstance(info.value, ms.CompileError) and "not_defined_anywhere" in str(info.value)
