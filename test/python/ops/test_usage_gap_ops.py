"""Ops added for the most-used MindSpore names msmlir lacked (issue 12's usage
count): detection primitives, FloatStatus, the *Ext primitives, F.pows/outer/
mixed_precision_cast/randn, C.add_flags; data-dependent ops (PyNative only);
scatter_nd's out-of-range indices raising."""
import numpy as np
import pytest

import msmlir as ms
from msmlir import ops
from msmlir.ops import composite as C
from msmlir.ops import functional as F
from msmlir.ops import operations as P

RNG = np.random.default_rng(7)


def _boxes(n):
    lo = RNG.uniform(0, 20, (n, 2)).astype(np.float32)
    return np.concatenate([lo, lo + RNG.uniform(1, 30, (n, 2)).astype(np.float32)], 1)


def _centres(b):
    b = b.astype(np.float64)
    return ((b[:, 0] + b[:, 2]) / 2, (b[:, 1] + b[:, 3]) / 2, b[:, 2] - b[:, 0] + 1,
            b[:, 3] - b[:, 1] + 1)


MEANS, STDS = (0.0, 0.1, 0.0, -0.1), (0.1, 0.1, 0.2, 0.2)


def _encode_ref(a, g):
    px, py, pw, ph = _centres(a)
    gx, gy, gw, gh = _centres(g)
    d = np.stack([(gx - px) / pw, (gy - py) / ph, np.log(gw / pw), np.log(gh / ph)], 1)
    return (d - MEANS) / STDS


def _decode_ref(a, d, max_shape, clip=0.016):
    d = d.astype(np.float64) * STDS + MEANS
    r = abs(np.log(clip))
    dw, dh = np.clip(d[:, 2], -r, r), np.clip(d[:, 3], -r, r)
    px, py, pw, ph = _centres(a)
    gx, gy, gw, gh = px + pw * d[:, 0], py + ph * d[:, 1], pw * np.exp(dw), ph * np.exp(dh)
    h, w = max_shape
    return np.stack([np.clip(gx - gw / 2 + 0.5, 0, w), np.clip(gy - gh / 2 + 0.5, 0, h),
                     np.clip(gx + gw / 2 - 0.5, 0, w), np.clip(gy + gh / 2 - 0.5, 0, h)], 1)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_bounding_box_encode_decode(mode):
    a, g = _boxes(7), _boxes(7)
    enc = P.BoundingBoxEncode(means=MEANS, stds=STDS)
    dec = P.BoundingBoxDecode(max_shape=(30, 40), means=MEANS, stds=STDS)
    d = RNG.uniform(-1, 1, (7, 4)).astype(np.float32)
    d[0, 2] = 9.0           # clipped to |log(0.016)|
    if mode == ms.GRAPH_MODE:
        run_enc, run_dec = ms.jit(lambda x, y: enc(x, y)), ms.jit(lambda x, y: dec(x, y))
    else:
        run_enc, run_dec = enc, dec
    np.testing.assert_allclose(run_enc(ms.Tensor(a), ms.Tensor(g)).asnumpy(), _encode_ref(a, g),
                               rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(run_dec(ms.Tensor(a), ms.Tensor(d)).asnumpy(),
                               _decode_ref(a, d, (30, 40)), rtol=1e-5, atol=1e-4)


def test_bounding_box_bad_shape_raises():
    with pytest.raises(ValueError, match="BoundingBoxEncode.*shape \\(n, 4\\)"):
        P.BoundingBoxEncode()(ms.Tensor(np.ones((3, 3), np.float32)),
                              ms.Tensor(np.ones((3, 3), np.float32)))


def test_check_valid():
    b = np.array([[0, 0, 9, 19], [-1, 0, 5, 5], [0, 0, 10, 5], [2, 2, 9, 20]], np.float32)
    out = P.CheckValid()(ms.Tensor(b), ms.Tensor(np.array([20, 10, 1.0], np.float32)))
    # x2 <= w * ratio - 1 = 9, y2 <= h * ratio - 1 = 19, x1, y1 >= 0
    np.testing.assert_array_equal(out.asnumpy(), [True, False, False, False])
    assert out.dtype == ms.bool_


def test_float_status_and_reduce_op():
    fs = P.FloatStatus()
    np.testing.assert_array_equal(fs(ms.Tensor(np.ones(4, np.float32))).asnumpy(), [0.0])
    for bad in (np.inf, -np.inf, np.nan):
        np.testing.assert_array_equal(fs(ms.Tensor(np.array([1, bad], np.float32))).asnumpy(),
                                      [1.0])
    assert fs(ms.Tensor(np.ones(2, np.float16))).dtype == ms.float16
    assert ops.ReduceOp.SUM == "sum" and P.ReduceOp.MAX == "max"


def test_ext_primitives():
    x = RNG.standard_normal((3, 4)).astype(np.float32)
    y = RNG.standard_normal((3, 4)).astype(np.float32)
    np.testing.assert_allclose(P.AddExt()(ms.Tensor(x), ms.Tensor(y), 2.5).asnumpy(),
                               x + 2.5 * y, rtol=1e-6)
    np.testing.assert_allclose(P.SubExt()(ms.Tensor(x), ms.Tensor(y)).asnumpy(), x - y)
    np.testing.assert_allclose(P.SumExt()(ms.Tensor(x), 1, True).asnumpy(),
                               x.sum(1, keepdims=True), rtol=1e-6)
    np.testing.assert_allclose(P.SumExt()(ms.Tensor(x)).asnumpy(), x.sum(), rtol=1e-5)
    parts = P.SplitWithSize()(ms.Tensor(x), (1, 3), 1)
    np.testing.assert_array_equal(parts[1].asnumpy(), x[:, 1:])
    np.testing.assert_array_equal(P.Gelu()(ms.Tensor(x)).asnumpy(),
                                  P.GeLU()(ms.Tensor(x)).asnumpy())     # the old name


def test_functional_additions():
    x = RNG.standard_normal(5).astype(np.float32)
    np.testing.assert_allclose(ops.pows(ms.Tensor(x), 2).asnumpy(), x ** 2, rtol=1e-6)
    np.testing.assert_allclose(ops.outer(ms.Tensor(x), ms.Tensor(x)).asnumpy(), np.outer(x, x),
                               rtol=1e-6)
    t, i, d = F.mixed_precision_cast(ms.float16, (ms.Tensor(x), ms.Tensor([1, 2]),
                                                  {"a": ms.Tensor(x)}))
    assert t.dtype == ms.float16 and i.dtype == ms.int64 and d["a"].dtype == ms.float16
    r = ops.randn(400, 50, seed=3).asnumpy()
    assert r.shape == (400, 50) and r.dtype == np.float32
    assert abs(r.mean()) < 0.05 and abs(r.std() - 1) < 0.05
    with pytest.raises(ValueError, match="randn"):
        ops.randn(-1)

    @C.add_flags(has_effect=True)
    def f(a):
        return a
    assert f._func_graph_flags == {"has_effect": True} and ops.add_flags is C.add_flags


def test_data_dependent_ops_in_pynative():
    x = np.array([[1, 0, 2], [0, 3, 0]], np.float32)
    np.testing.assert_array_equal(ops.nonzero(ms.Tensor(x)).asnumpy(), np.argwhere(x))
    assert ops.nonzero(ms.Tensor(x)).dtype == ms.int64
    rows, cols = ops.nonzero(ms.Tensor(x), as_tuple=True)
    np.testing.assert_array_equal(cols.asnumpy(), np.nonzero(x)[1])
    np.testing.assert_array_equal(ms.Tensor(x).nonzero().asnumpy(), np.argwhere(x))
    m = np.array([True, False, True])
    np.testing.assert_array_equal(ops.masked_select(ms.Tensor(x), ms.Tensor(m)).asnumpy(),
                                  np.broadcast_to(x, (2, 3))[np.broadcast_to(m, (2, 3))])
    np.testing.assert_array_equal(ms.Tensor(x).masked_select(ms.Tensor(x) > 1).asnumpy(), [2, 3])
    np.testing.assert_array_equal(P.MaskedSelect()(ms.Tensor(x), ms.Tensor(m)).asnumpy(),
                                  [1, 2, 0, 0])
    y, idx = P.Unique()(ms.Tensor(np.array([1, 2, 5, 2], np.int32)))
    np.testing.assert_array_equal(y.asnumpy(), [1, 2, 5])
    np.testing.assert_array_equal(idx.asnumpy(), [0, 1, 2, 1])
    y, idx = ms.Tensor(np.array([[3.0, 1.0], [3.0, 2.0]], np.float32)).unique()
    np.testing.assert_array_equal(y.asnumpy(), [1, 2, 3])
    np.testing.assert_array_equal(idx.asnumpy(), [[2, 0], [2, 1]])
    with pytest.raises(TypeError, match="mask must be bool"):
        ops.masked_select(ms.Tensor(x), ms.Tensor(x))


def _uses_nonzero_in_jit(x):
    return ops.nonzero(x)


def test_data_dependent_ops_in_jit_name_the_op_and_line():
    f = ms.jit(_uses_nonzero_in_jit)
    with pytest.raises(RuntimeError, match="'nonzero' has a data-dependent output shape") as e:
        f(ms.Tensor(np.ones(3, np.float32)))
    assert "test_usage_gap_ops.py" in str(e.value)

    class Net(ms.nn.Cell):
        def construct(self, a):
            return a.masked_select(a > 0)
    with pytest.raises(RuntimeError, match="test_usage_gap_ops.py:.*'masked_select' has"):
        ms.jit(Net().construct)(ms.Tensor(np.ones(3, np.float32)))


def test_scatter_nd_out_of_range_raises():
    u = ms.Tensor(np.array([1.0, 2.0, 3.0], np.float32))
    idx = np.array([[0, 1], [2, 2], [0, 1]], np.int32)
    ref = np.zeros((3, 3), np.float32)
    np.add.at(ref, (idx[:, 0], idx[:, 1]), [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(ops.scatter_nd(ms.Tensor(idx), u, (3, 3)).asnumpy(), ref)
    for bad in ([[0, 1], [0, 3], [1, 1]], [[3, 0], [0, 0], [0, 0]]):
        with pytest.raises(IndexError, match="index 3 is out of range for an axis of size 3"):
            ops.scatter_nd(ms.Tensor(np.array(bad, np.int32)), u, (3, 3))

    @ms.jit
    def update(x, i, v):
        return ops.tensor_scatter_update(x, i, v)
    x = ms.Tensor(np.zeros((3, 2), np.float32))
    v = ms.Tensor(np.ones((1, 2), np.float32))
    with pytest.raises(IndexError, match="test_usage_gap_ops.py:.*index 5 is out of range"):
        update(x, ms.Tensor(np.array([[5]], np.int32)), v)
    np.testing.assert_array_equal(update(x, ms.Tensor(np.array([[1]], np.int32)), v).asnumpy(),
                                  [[0, 0], [1, 1], [0, 0]])


def _nms_ref(b, thr):
    order = sorted(range(len(b)), key=lambda i: -b[i, 4])
    out = b[order]
    keep = [True] * len(b)
    for i in range(len(b)):
        if not keep[i]:
            continue
        for j in range(i + 1, len(b)):
            xx1, yy1 = max(out[i, 0], out[j, 0]), max(out[i, 1], out[j, 1])
            xx2, yy2 = min(out[i, 2], out[j, 2]), min(out[i, 3], out[j, 3])
            inter = max(xx2 - xx1, 0) * max(yy2 - yy1, 0)
            a = (out[i, 2] - out[i, 0]) * (out[i, 3] - out[i, 1])
            c = (out[j, 2] - out[j, 0]) * (out[j, 3] - out[j, 1])
            if inter / (a + c - inter) > thr:
                keep[j] = False
    return out, keep


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_nms_with_mask(mode):
    # MindSpore's documented example: the first three survive at iou_threshold 0.1
    bbox = np.array([[100.0, 100.0, 50.0, 68.0, 0.63], [150.0, 75.0, 165.0, 115.0, 0.55],
                     [12.0, 190.0, 288.0, 200.0, 0.9], [28.0, 130.0, 106.0, 172.0, 0.3]])
    bbox[:, 2] += bbox[:, 0]
    bbox[:, 3] += bbox[:, 1]
    nms = P.NMSWithMask(0.1)
    run = ms.jit(lambda b: nms(b)) if mode == ms.GRAPH_MODE else nms
    out, idx, mask = run(ms.Tensor(bbox, ms.float32))
    np.testing.assert_array_equal(idx.asnumpy()[mask.asnumpy()], [0, 1, 2])
    # random overlapping boxes against a direct greedy NMS
    b = np.concatenate([_boxes(30), RNG.uniform(0, 1, (30, 1)).astype(np.float32)], 1)
    out, idx, mask = run(ms.Tensor(b))
    ref_out, keep = _nms_ref(b, 0.1)
    np.testing.assert_array_equal(out.asnumpy(), ref_out)
    np.testing.assert_array_equal(mask.asnumpy(), keep)
    np.testing.assert_array_equal(idx.asnumpy(), np.arange(30))
    assert 0 < sum(keep) < 30
    with pytest.raises(ValueError, match="NMSWithMask.*\\(N, 5\\)"):
        nms(ms.Tensor(np.ones((3, 4), np.float32)))


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_random_choice_with_mask(mode):
    x = RNG.uniform(size=(4, 5, 3)) < 0.3
    rc = P.RandomChoiceWithMask(count=80, seed=5)
    run = ms.jit(lambda a: rc(a)) if mode == ms.GRAPH_MODE else rc
    idx, mask = run(ms.Tensor(x))
    idx, mask = idx.asnumpy(), mask.asnumpy()
    assert idx.shape == (80, 3) and idx.dtype == np.int32 and mask.shape == (80,)
    k = int(x.sum())
    np.testing.assert_array_equal(mask, np.arange(80) < k)      # count > number of Trues
    chosen = {tuple(r) for r in idx[:k]}
    assert chosen == {tuple(r) for r in np.argwhere(x)}         # each True exactly once
    np.testing.assert_array_equal(idx[k:], 0)
    few, fmask = P.RandomChoiceWithMask(count=4, seed=5)(ms.Tensor(x))
    assert fmask.asnumpy().all() and all(x[tuple(r)] for r in few.asnumpy())
    with pytest.raises(TypeError, match="RandomChoiceWithMask.*bool"):
        rc(ms.Tensor(np.ones(3, np.float32)))


def _pool3d_ref(x, k, s, f):
    n, c, d, h, w = x.shape
    dd, hh, ww = ((d - k[0]) // s[0] + 1, (h - k[1]) // s[1] + 1, (w - k[2]) // s[2] + 1)
    o = np.empty((n, c, dd, hh, ww), np.float32)
    for i in range(dd):
        for j in range(hh):
            for m in range(ww):
                o[:, :, i, j, m] = f(x[:, :, i * s[0]:i * s[0] + k[0], j * s[1]:j * s[1] + k[1],
                                       m * s[2]:m * s[2] + k[2]], axis=(2, 3, 4))
    return o


def test_pool3d():
    x = RNG.standard_normal((2, 3, 5, 6, 7)).astype(np.float32)
    np.testing.assert_array_equal(
        P.MaxPool3D(kernel_size=(2, 3, 2), strides=(1, 2, 2))(ms.Tensor(x)).asnumpy(),
        _pool3d_ref(x, (2, 3, 2), (1, 2, 2), np.max))
    np.testing.assert_allclose(P.AvgPool3D(kernel_size=2, strides=2)(ms.Tensor(x)).asnumpy(),
                               _pool3d_ref(x, (2, 2, 2), (2, 2, 2), np.mean), rtol=1e-5,
                               atol=1e-6)
    same = P.MaxPool3D(kernel_size=3, strides=2, pad_mode="SAME")(ms.Tensor(x)).asnumpy()
    pads = []
    for n in x.shape[2:]:
        t = max((-(-n // 2) - 1) * 2 + 3 - n, 0)
        pads.append((t // 2, t - t // 2))
    xp = np.pad(x, ((0, 0), (0, 0)) + tuple(pads), constant_values=-np.inf)
    np.testing.assert_array_equal(same, _pool3d_ref(xp, (3, 3, 3), (2, 2, 2), np.max))
    with pytest.raises(ValueError, match="AvgPool3D.*pad_mode"):
        P.AvgPool3D(kernel_size=2, pad_mode="same")(ms.Tensor(x))
    with pytest.raises(ValueError, match="5-D"):
        P.MaxPool3D(kernel_size=2)(ms.Tensor(x[0]))


def test_mint_additions():
    from msmlir import mint
    x = np.array([-3.0, 4.0, 5.5, -0.5], np.float32)
    np.testing.assert_array_equal(mint.remainder(ms.Tensor(x), 2.0).asnumpy(),
                                  np.remainder(x, 2.0))
    np.testing.assert_array_equal(mint.remainder(ms.Tensor(x), -2.0).asnumpy(),
                                  np.remainder(x, -2.0))
    e = mint.empty(2, 3, dtype=ms.float16)
    assert e.shape == (2, 3) and e.dtype == ms.float16
    np.testing.assert_array_equal(mint.nonzero(ms.Tensor(x > 0)).asnumpy(), [[1], [2]])
    np.testing.assert_array_equal(mint.masked_select(ms.Tensor(x), ms.Tensor(x > 0)).asnumpy(),
                                  [4.0, 5.5])
    y = mint.nan_to_num(ms.Tensor(np.array([np.nan, np.inf, -np.inf, 1], np.float32)), 0.5)
    np.testing.assert_array_equal(y.asnumpy(), [0.5, np.finfo(np.float32).max,
                                                np.finfo(np.float32).min, 1])
    idx = np.array([[2, 0], [0, 1]], np.int64)
    src = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    ref = np.zeros((2, 3), np.float32)
    np.put_along_axis(ref, idx, src, 1)
    np.testing.assert_array_equal(mint.scatter(ms.Tensor(np.zeros((2, 3), np.float32)), 1,
                                               ms.Tensor(idx), ms.Tensor(src)).asnumpy(), ref)
    seq = ms.Tensor(np.array([1.0, 3.0, 5.0], np.float32))
    v = ms.Tensor(np.array([3.0, 6.0, 0.0], np.float32))
    np.testing.assert_array_equal(mint.searchsorted(seq, v).asnumpy(), [1, 3, 0])
    r = mint.searchsorted(seq, v, right=True, out_int32=True)
    np.testing.assert_array_equal(r.asnumpy(), [2, 3, 0])
    assert r.dtype == ms.int32


def test_bincount():
    x = np.array([0, 3, 3, 1, 7], np.int32)
    w = np.array([0.5, 1.0, 2.0, 0.25, 1.5], np.float32)
    np.testing.assert_array_equal(ops.bincount(ms.Tensor(x)).asnumpy(), np.bincount(x))
    np.testing.assert_array_equal(ms.Tensor(x).bincount(ms.Tensor(w), 10).asnumpy(),
                                  np.bincount(x, w, 10).astype(np.float32))
    with pytest.raises(ValueError, match="non-negative"):
        ops.bincount(ms.Tensor(np.array([-1, 2], np.int32)))


def _reverse_sequence_ref(x, lengths, seq_dim, batch_dim):
    out = x.copy()
    for b, n in enumerate(lengths):
        idx = [slice(None)] * x.ndim
        idx[batch_dim] = b
        idx[seq_dim] = slice(0, n)
        out[tuple(idx)] = np.flip(x[tuple(idx)], axis=seq_dim - (seq_dim > batch_dim))
    return out


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_reverse_sequence(mode):
    x = RNG.standard_normal((3, 4, 2)).astype(np.float32)
    lens = np.array([2, 4, 1], np.int32)
    rs = P.ReverseSequence(seq_dim=1)
    run = ms.jit(lambda a, n: rs(a, n)) if mode == ms.GRAPH_MODE else rs
    np.testing.assert_array_equal(run(ms.Tensor(x), ms.Tensor(lens)).asnumpy(),
                                  _reverse_sequence_ref(x, lens, 1, 0))
    x2 = RNG.standard_normal((4, 3, 2)).astype(np.float32)
    lens2 = np.array([1, 3, 4], np.int64)
    np.testing.assert_array_equal(
        ms.Tensor(x2).reverse_sequence(ms.Tensor(lens2), seq_dim=0, batch_dim=1).asnumpy(),
        _reverse_sequence_ref(x2, lens2, 0, 1))
    np.testing.assert_array_equal(ops.reverse_sequence(ms.Tensor(x2), ms.Tensor(lens2), 0, 1)
                                  .asnumpy(), _reverse_sequence_ref(x2, lens2, 0, 1))
    with pytest.raises(ValueError, match="ReverseSequence.*seq_lengths"):
        rs(ms.Tensor(x), ms.Tensor(np.array([1, 2], np.int32)))
