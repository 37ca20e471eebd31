"""Names and behaviours that running MindSpore's own CPU tests against msmlir found
missing (tools/run_mindspore_tests.py, docs/mindspore-tests.md), each against numpy or
MindSpore's documented semantics, with the errors they raise."""
import numpy as np
import pytest

import msmlir as ms
from msmlir import Tensor, nn, ops
from msmlir.ops import operations as P

R = np.random.RandomState(0)


def _adaptive_max_ref(x, out, nd):
    """numpy adaptive max pooling of the last `nd` dims (values, flat int64 indices)."""
    dims = x.shape[-nd:]
    lead = x.shape[:-nd]
    spans = [[((i * n) // o, -((-(i + 1) * n) // o)) for i in range(o)] for n, o in zip(dims, out)]
    vals = np.zeros(lead + tuple(out), x.dtype)
    idx = np.zeros(lead + tuple(out), np.int64)
    for pos in np.ndindex(*out):
        sl = tuple(slice(*spans[d][p]) for d, p in enumerate(pos))
        win = x[(Ellipsis,) + sl].reshape(lead + (-1,))
        vals[(Ellipsis,) + pos] = win.max(-1)
        local = win.argmax(-1)
        sizes = [s.stop - s.start for s in sl]
        coords = np.unravel_index(local, sizes)
        glob = [c + s.start for c, s in zip(coords, sl)]
        idx[(Ellipsis,) + pos] = np.ravel_multi_index(glob, dims)
    return vals, idx


@pytest.mark.parametrize("shape, out", [((2, 3, 5, 7), (2, 3)), ((3, 6, 6), (4, 4)),
                                        ((1, 2, 4, 4), (4, 4)), ((1, 1, 5, 3), (1, 1))])
def test_adaptive_max_pool2d(shape, out):
    x = R.randn(*shape).astype(np.float32)
    y, i = ops.adaptive_max_pool2d(Tensor(x), out, return_indices=True)
    want_y, want_i = _adaptive_max_ref(x, out, 2)
    np.testing.assert_array_equal(y.asnumpy(), want_y)
    np.testing.assert_array_equal(i.asnumpy(), want_i)
    assert i.dtype == ms.int64
    np.testing.assert_array_equal(nn.AdaptiveMaxPool2d(out)(Tensor(x)).asnumpy(), want_y)
    py, pi = P.AdaptiveMaxPool2D(out)(Tensor(x))
    np.testing.assert_array_equal(pi.asnumpy(), want_i)


def test_adaptive_max_pool2d_none_keeps_dim_and_jit():
    x = R.randn(2, 2, 5, 6).astype(np.float32)

    @ms.jit
    def f(t):
        return ops.adaptive_max_pool2d(t, (None, 4))
    np.testing.assert_array_equal(f(Tensor(x)).asnumpy(), _adaptive_max_ref(x, (5, 4), 2)[0])


def test_adaptive_max_pool1d():
    x = R.randn(2, 3, 10).astype(np.float32)
    y, i = ops.adaptive_max_pool1d(Tensor(x), 4, True)
    want_y, want_i = _adaptive_max_ref(x, (4,), 1)
    np.testing.assert_array_equal(y.asnumpy(), want_y)
    np.testing.assert_array_equal(i.asnumpy(), want_i)
    np.testing.assert_array_equal(nn.AdaptiveMaxPool1d(4)(Tensor(x)).asnumpy(), want_y)


def test_adaptive_max_pool_gradient_goes_to_the_maxima():
    x = np.array([[[1., 5., 2., 0.], [3., 4., 9., 8.]]], np.float32)
    g = ms.grad(lambda t: ops.reduce_sum(ops.adaptive_max_pool2d(t, (1, 2))))(Tensor(x))
    np.testing.assert_array_equal(g.asnumpy(), [[[0, 1, 0, 0], [0, 0, 1, 0]]])


def test_adaptive_max_pool_errors():
    with pytest.raises(ValueError, match="output_size must have 2 elements"):
        ops.adaptive_max_pool2d(Tensor(np.ones((1, 4, 4), np.float32)), (1, 2, 3))
    with pytest.raises(ValueError, match="must be 3-D or 4-D"):
        ops.adaptive_max_pool2d(Tensor(np.ones((4, 4), np.float32)), 2)


def test_bidense():
    x1, x2 = R.randn(3, 5, 2).astype(np.float32), R.randn(3, 5, 4).astype(np.float32)
    w, b = R.randn(6, 2, 4).astype(np.float32), R.randn(6).astype(np.float32)
    want = np.einsum("...i,oij,...j->...o", x1, w, x2) + b
    np.testing.assert_allclose(ops.bidense(Tensor(x1), Tensor(x2), Tensor(w), Tensor(b)).asnumpy(),
                               want, rtol=1e-5, atol=1e-5)
    cell = nn.BiDense(2, 4, 6)
    assert cell.weight.shape == (6, 2, 4) and cell.bias.shape == (6,)
    assert np.abs(cell.weight.asnumpy()).max() <= 1 / np.sqrt(2)
    got = cell(Tensor(x1), Tensor(x2)).asnumpy()
    ref = np.einsum("...i,oij,...j->...o", x1, cell.weight.asnumpy(), x2) + cell.bias.asnumpy()
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="weight must be"):
        ops.bidense(Tensor(x1), Tensor(x2), Tensor(w[:, :, :3]))
    with pytest.raises(ValueError, match="in1_channels"):
        nn.BiDense(0, 4, 6)


@pytest.mark.parametrize("shape, dim", [((4, 3), None), ((3, 5), None), ((2, 3, 4), 1),
                                        ((2, 4, 3), -1)])
def test_cross(shape, dim):
    a, b = R.randn(*shape).astype(np.float32), R.randn(*shape).astype(np.float32)
    axis = dim if dim is not None else shape.index(3)
    np.testing.assert_allclose(ops.cross(Tensor(a), Tensor(b), dim).asnumpy(),
                               np.cross(a, b, axis=axis), rtol=1e-5, atol=1e-6)
    from msmlir.ops import functional as F
    assert F.cross is ops.cross


def test_cross_error():
    with pytest.raises(ValueError, match="no dim of size 3"):
        ops.cross(Tensor(np.ones((2, 4), np.float32)), Tensor(np.ones((2, 4), np.float32)))


def test_embedding_lookup():
    params = R.randn(5, 3).astype(np.float32)
    idx = np.array([[2, 6], [0, 3]], np.int32)          # offset 1: 6-1=5 is out of range
    want = np.where(((idx - 1 >= 0) & (idx - 1 < 5))[..., None], params[np.clip(idx - 1, 0, 4)], 0)
    np.testing.assert_array_equal(P.EmbeddingLookup()(Tensor(params), Tensor(idx), 1).asnumpy(),
                                  want)
    np.testing.assert_array_equal(ops.embedding_lookup(Tensor(params), Tensor(idx)).asnumpy(),
                                  np.where((idx < 5)[..., None], params[np.clip(idx, 0, 4)], 0))


def test_dynamic_shape_tensor_and_set_inputs():
    t = Tensor(shape=[None, 3], dtype=ms.float32)
    assert isinstance(t, Tensor) and t.shape == (-1, 3) and t.dtype == ms.float32 and t.ndim == 2
    assert Tensor(shape=None, dtype=ms.int32).shape == (-2,)
    with pytest.raises(ValueError, match="holds no data"):
        t.asnumpy()

    class Net(nn.Cell):
        def construct(self, x):
            return x * 2

    net = Net()
    net.set_inputs(t)
    assert net.get_inputs() == (t,)
    for n in (2, 5):                     # each concrete shape compiles its own graph
        np.testing.assert_array_equal(net(Tensor(np.ones((n, 3), np.float32))).asnumpy(), 2)
    with pytest.raises(ValueError, match="both 'shape' and 'init'"):
        Tensor(shape=[2, 3], dtype=ms.float32)     # static shape: data or init needed


def test_device_context_and_set_device():
    from msmlir import device_context as dc
    from msmlir.common.context import _reset_context
    try:
        ms.set_device("CPU", 0)
        assert ms.get_context("device_target") == "CPU"
        dc.cpu.op_tuning.threads_num(3)
        assert ms.get_context("runtime_num_threads") == 3
        dc.gpu.op_precision.matmul_allow_tf32(True)
        assert ms.get_context("gpu_config")["matmul_allow_tf32"] is True
        dc.ascend.op_precision.precision_mode("force_fp32")
        assert dc.get_settings()[("ascend", "precision_mode")] == "force_fp32"
        assert dc.cpu.is_available() and dc.cpu.device_count() == 1
        assert not dc.ascend.is_available()
        with pytest.raises(ValueError, match="threads_num"):
            dc.cpu.op_tuning.threads_num(0)
        with pytest.raises(ValueError, match="conv_fprop_algo"):
            dc.gpu.op_tuning.conv_fprop_algo("fastest")
        with pytest.raises(TypeError, match="conv_allow_tf32"):
            dc.gpu.op_precision.conv_allow_tf32(1)
        with pytest.raises(ValueError, match="device_target"):
            ms.set_device("TPU")
    finally:
        _reset_context()
    assert ms.STRICT == 0 and ms.COMPATIBLE == 1 and ms.LAX == 2


@pytest.mark.parametrize("prim, axis, ref", [
    (P.ReduceAll, 0, lambda x: x.all(0)), (P.ReduceAny, 0, lambda x: x.any(0)),
    (P.ReduceAll, -1, lambda x: x.all(-1)), (P.ReduceAny, (0, 1), lambda x: x.any((0, 1))),
    (P.ReduceAll, (), lambda x: x.all()),
])
def test_reduce_all_any_axis_zero_is_an_axis(prim, axis, ref):
    """axis=0 reduces dim 0 (it was read as 'no axis given', i.e. all dims)."""
    x = np.array([[True, False, True], [True, True, False]])
    np.testing.assert_array_equal(prim()(Tensor(x), axis).asnumpy(), ref(x))


def test_reduce_logsumexp_and_std_axis_zero():
    x = R.randn(3, 4).astype(np.float32)
    np.testing.assert_allclose(P.ReduceLogSumExp()(Tensor(x), 0).asnumpy(),
                               np.log(np.exp(x).sum(0)), rtol=1e-5)
    std, mean = P.ReduceStd(axis=0)(Tensor(x))
    np.testing.assert_allclose(std.asnumpy(), x.std(0, ddof=1), rtol=1e-5)
    np.testing.assert_allclose(mean.asnumpy(), x.mean(0), rtol=1e-5)


@pytest.mark.parametrize("bad", [1, 2.5, "str", (1, 2)])
def test_rank_of_a_non_tensor_is_a_type_error(bad):
    with pytest.raises(TypeError, match="For 'Rank', the input must be a Tensor"):
        P.Rank()(bad)
    assert P.Rank()(Tensor(np.ones((2, 3), np.float32))) == 2


@pytest.mark.parametrize("p", [0.0, 1.0, 2.0, 3.0, float("inf")])
@pytest.mark.parametrize("shape", [(5, 3), (2, 4, 6)])
def test_pdist(p, shape):
    x = R.randn(*shape).astype(np.float32)
    x[..., 0, 1] = x[..., 1, 1]          # a zero component for p = 0
    n = shape[-2]
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    d = np.abs(np.stack([x[..., i, :] - x[..., j, :] for i, j in pairs], -2))
    want = ((d != 0).sum(-1) if p == 0 else d.max(-1) if p == float("inf")
            else (d ** p).sum(-1) ** (1 / p))
    np.testing.assert_allclose(ops.pdist(Tensor(x), p).asnumpy(), want, rtol=1e-5, atol=1e-6)


def test_pdist_gradient_is_finite_and_matches_finite_differences():
    x = R.randn(4, 3)
    g = ms.grad(lambda t: ops.reduce_sum(ops.pdist(t)))(Tensor(x)).asnumpy()
    assert np.isfinite(g).all()

    def f(v):
        n = v.shape[0]
        return sum(np.linalg.norm(v[i] - v[j]) for i in range(n) for j in range(i + 1, n))
    eps = 1e-6
    num = np.zeros_like(x)
    for k in np.ndindex(*x.shape):
        a, b = x.copy(), x.copy()
        a[k] += eps
        b[k] -= eps
        num[k] = (f(a) - f(b)) / (2 * eps)
    np.testing.assert_allclose(g, num, rtol=1e-5, atol=1e-7)


def test_pdist_errors():
    with pytest.raises(ValueError, match="at least 2-D"):
        ops.pdist(Tensor(np.ones(3, np.float32)))
    with pytest.raises(ValueError, match="p must be >= 0"):
        ops.pdist(Tensor(np.ones((3, 2), np.float32)), -1.0)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_hinge_embedding_and_huber_loss(reduction):
    x = R.randn(3, 4).astype(np.float32)
    y = np.where(R.rand(3, 4) > 0.5, 1, -1).astype(np.float32)
    red = {"none": lambda v: v, "mean": np.mean, "sum": np.sum}[reduction]
    hinge = np.where(y == 1, x, np.maximum(0, 0.7 - x))
    np.testing.assert_allclose(
        ops.hinge_embedding_loss(Tensor(x), Tensor(y), 0.7, reduction).asnumpy(), red(hinge),
        rtol=1e-5, atol=1e-6)
    t = R.randn(3, 4).astype(np.float32)
    d = np.abs(x - t)
    huber = np.where(d < 0.5, 0.5 * d * d, 0.5 * (d - 0.25))
    np.testing.assert_allclose(ops.huber_loss(Tensor(x), Tensor(t), reduction, 0.5).asnumpy(),
                               red(huber), rtol=1e-5, atol=1e-6)


def test_loss_errors_and_bool_ddof():
    x = Tensor(np.ones((2, 2), np.float32))
    with pytest.raises(ValueError, match="reduction must be"):
        ops.huber_loss(x, x, "avg")
    with pytest.raises(ValueError, match="delta must be positive"):
        ops.huber_loss(x, x, "mean", 0.0)
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_allclose(ops.var(Tensor(a), 1, True).asnumpy(), a.var(1, ddof=1))
    np.testing.assert_allclose(ops.std(Tensor(a), 1, False).asnumpy(), a.std(1))
    from msmlir.common import JitConfig, mutable     # mindspore.common's names
    assert mutable is ms.mutable and JitConfig is ms.JitConfig
