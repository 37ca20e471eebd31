"""More of MindSpore's Tensor methods (issue 12): unfold/fold/col2im (against PyTorch's
im2col/col2im), median, as_strided, renorm, cummax/cummin, random_categorical, bernoulli,
lcm, det / slogdet / logdet / inverse / cholesky / cholesky_inverse (against numpy.linalg,
gradients against finite differences), lgamma / digamma / erfinv (against scipy),
scatter_mul/div/max/min, to_tensor / flush_from_cache / itemset; in PyNative and jit,
with an error for a bad argument each."""
import numpy as np
import pytest
from support.gradcheck import fd

import msmlir as ms

RNG = np.random.default_rng(31)


def T(a):
    return ms.Tensor(a)



@pytest.mark.parametrize("k, d, p, s", [(2, 1, 0, 1), ((2, 3), (1, 2), (1, 0), (2, 1)),
                                        (3, 1, 1, 2)])
def test_unfold_fold_match_torch(k, d, p, s):
    torch = pytest.importorskip("torch")
    x = RNG.standard_normal((2, 3, 7, 8))
    u = T(x).unfold(kernel_size=k, dilation=d, padding=p, stride=s)
    tu = torch.nn.functional.unfold(torch.tensor(x), k, d, p, s).numpy()
    np.testing.assert_allclose(u.asnumpy(), tu, rtol=0, atol=0)
    f = u.fold((7, 8), k, d, p, s)
    tf = torch.nn.functional.fold(torch.tensor(tu), (7, 8), k, d, p, s).numpy()
    np.testing.assert_allclose(f.asnumpy(), tf, rtol=1e-12)
    np.testing.assert_allclose(u.col2im(T(np.array([7, 8])), k, d, p, s).asnumpy(), tf,
                               rtol=1e-12)
    w = RNG.standard_normal(tu.shape)
    g = ms.jit(ms.grad(lambda a: (a.unfold(k, d, p, s) * T(w)).sum()))(T(x)).asnumpy()
    np.testing.assert_allclose(g, torch.nn.functional.fold(torch.tensor(w), (7, 8), k, d, p,
                                                           s).numpy(), rtol=1e-12)
    with pytest.raises(ValueError, match="must be 4-D"):
        T(x[0]).unfold(2)


def test_median_as_strided_renorm():
    x = RNG.standard_normal((4, 6))
    v, i = T(x).median(1)
    srt = np.sort(x, 1)
    np.testing.assert_array_equal(v.asnumpy(), srt[:, 2])        # the lower of the two middle
    np.testing.assert_array_equal(np.take_along_axis(x, i.asnumpy()[:, None], 1)[:, 0],
                                  srt[:, 2])
    assert i.asnumpy().dtype == np.int64
    v, _ = T(x).median(0, keepdims=True)
    assert v.shape == (1, 6)
    got = T(x).as_strided((3, 2), (2, 5), 1).asnumpy()
    np.testing.assert_array_equal(
        got, np.lib.stride_tricks.as_strided(x.reshape(-1)[1:], (3, 2), (16, 40)))
    with pytest.raises(ValueError, match="reach outside"):
        T(x).as_strided((3, 2), (10, 5), 1)
    r = T(x).renorm(2, 0, 1.5).asnumpy()
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    np.testing.assert_allclose(r, np.where(norms > 1.5, x * 1.5 / (norms + 1e-7), x),
                               rtol=1e-12)


@pytest.mark.parametrize("axis", [0, 1])
def test_cummax_cummin(axis):
    x = RNG.integers(0, 5, (6, 7)).astype(np.float32)               # ties on purpose
    for name, fn in (("cummax", np.maximum), ("cummin", np.minimum)):
        v, i = getattr(T(x), name)(axis)
        ref = fn.accumulate(x, axis)
        np.testing.assert_array_equal(v.asnumpy(), ref)
        n = x.shape[axis]
        pos = np.arange(n).reshape((-1, 1) if axis == 0 else (1, -1))
        # the latest index reaching the running extreme
        hit = np.where(x == ref, pos, -1)
        want = np.maximum.accumulate(np.where(hit >= 0, hit, -1), axis)
        np.testing.assert_array_equal(i.asnumpy(), want)
    xi = RNG.integers(-9, 9, (10,)).astype(np.int32)
    np.testing.assert_array_equal(T(xi).cummin(0)[0].asnumpy(), np.minimum.accumulate(xi))


def test_random_categorical_and_bernoulli_statistics():
    logits = np.log(np.array([[0.1, 0.6, 0.3], [0.5, 0.25, 0.25]], np.float32))
    s = T(logits).random_categorical(4000, 3).asnumpy()
    assert s.shape == (2, 4000) and s.dtype == np.int64
    for b in range(2):
        freq = np.bincount(s[b], minlength=3) / 4000
        np.testing.assert_allclose(freq, np.exp(logits[b]), atol=0.03)
    with pytest.raises(ValueError, match="logits must be 2-D"):
        T(logits[0]).random_categorical(3)
    b = T(np.zeros((200, 50), np.float32)).bernoulli(0.3).asnumpy()
    assert set(np.unique(b)) <= {0.0, 1.0} and 0.27 < b.mean() < 0.33


def test_lcm_method():
    a = np.array([4, 6, 0, -21], np.int32)
    np.testing.assert_array_equal(T(a).lcm(T(np.array([6, 4, 3, 6], np.int32))).asnumpy(),
                                  np.lcm(a, [6, 4, 3, 6]))


def test_det_slogdet_inverse_and_gradients():
    a = RNG.standard_normal((3, 5, 5))
    a[1, :, 0] = a[1, :, 1] * 0.0 + a[1, :, 0]                      # generic; pivoting needed:
    a[2, 0, 0] = 0.0                                                # a zero leading entry
    np.testing.assert_allclose(T(a).det().asnumpy(), np.linalg.det(a), rtol=1e-10)
    np.testing.assert_allclose(T(a).matrix_determinant().asnumpy(), np.linalg.det(a), rtol=1e-10)
    s, la = T(a).slogdet()
    rs, rla = np.linalg.slogdet(a)
    np.testing.assert_array_equal(s.asnumpy(), rs)
    np.testing.assert_allclose(la.asnumpy(), rla, rtol=1e-10)
    s2, la2 = T(a).log_matrix_determinant()
    np.testing.assert_allclose(la2.asnumpy(), rla, rtol=1e-10)
    ld = T(a).logdet().asnumpy()
    np.testing.assert_allclose(ld[rs > 0], rla[rs > 0], rtol=1e-10)
    assert np.isnan(ld[rs < 0]).all()
    np.testing.assert_allclose(T(a).inverse().asnumpy(), np.linalg.inv(a), rtol=1e-9, atol=1e-12)
    g = ms.grad(lambda m: m.det().sum())(T(a[0])).asnumpy()
    np.testing.assert_allclose(g, fd(lambda m: np.linalg.det(m), a[0]), rtol=1e-6)
    w = RNG.standard_normal((5, 5))
    g = ms.jit(ms.grad(lambda m: (m.inverse() * T(w)).sum()))(T(a[0])).asnumpy()
    np.testing.assert_allclose(g, fd(lambda m: (np.linalg.inv(m) * w).sum(), a[0]),
                               rtol=1e-6, atol=1e-8)
    with pytest.raises(ValueError, match="needs \\(\\.\\.\\., n, n\\) matrices"):
        T(a[:, :, :4]).det()


def test_cholesky_and_cholesky_inverse():
    m = RNG.standard_normal((2, 4, 4))
    spd = m @ m.transpose(0, 2, 1) + 4 * np.eye(4)
    low = T(spd).cholesky().asnumpy()
    np.testing.assert_allclose(low, np.linalg.cholesky(spd), rtol=1e-12)
    up = T(spd).cholesky(upper=True).asnumpy()
    np.testing.assert_allclose(up, np.linalg.cholesky(spd).transpose(0, 2, 1), rtol=1e-12)
    np.testing.assert_allclose(T(low).cholesky_inverse().asnumpy(), np.linalg.inv(spd),
                               rtol=1e-9)
    np.testing.assert_allclose(T(up).cholesky_inverse(upper=True).asnumpy(), np.linalg.inv(spd),
                               rtol=1e-9)
    g = ms.grad(lambda a: a.cholesky().sum())(T(spd[0])).asnumpy()
    np.testing.assert_allclose(g, fd(lambda a: np.linalg.cholesky(a).sum(), spd[0]),
                               rtol=1e-5, atol=1e-8)
    with pytest.raises(ValueError, match="matrices"):
        T(np.ones(3)).cholesky()


def test_lgamma_digamma_erfinv_match_scipy():
    sp = pytest.importorskip("scipy.special")
    x = np.concatenate([np.linspace(0.01, 30, 60), np.linspace(-4.7, -0.3, 15),
                        [0.5, 1.0, 2.0, 1e-3]])
    np.testing.assert_allclose(T(x).lgamma().asnumpy(), sp.gammaln(x), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(T(x).digamma().asnumpy(), sp.digamma(x), rtol=1e-9, atol=1e-11)
    y = np.concatenate([np.linspace(-0.999999, 0.999999, 101), [0.0, 0.5, -0.3]])
    np.testing.assert_allclose(T(y).erfinv().asnumpy(), sp.erfinv(y), rtol=1e-10, atol=1e-12)
    e = T(np.array([1.0, -1.0, 1.5])).erfinv().asnumpy()
    assert e[0] == np.inf and e[1] == -np.inf and np.isnan(e[2])
    g = ms.grad(lambda a: a.lgamma().sum())(T(x[:60])).asnumpy()
    np.testing.assert_allclose(g, sp.digamma(x[:60]), rtol=1e-8)
    f32 = T(y.astype(np.float32)).erfinv().asnumpy()
    assert f32.dtype == np.float32
    np.testing.assert_allclose(f32, sp.erfinv(y.astype(np.float32)), rtol=2e-5, atol=1e-6)


def test_scatter_reductions():
    x = RNG.standard_normal((5, 3))
    idx = np.array([[1], [3], [1]], np.int32)                      # row 1 twice: compounds
    u = RNG.standard_normal((3, 3)) + 2.0
    for name, op in (("mul", np.multiply), ("div", np.divide), ("max", np.maximum),
                     ("min", np.minimum)):
        want = x.copy()
        for i, row in enumerate(idx[:, 0]):
            want[row] = op(want[row], u[i])
        got = getattr(T(x), f"scatter_{name}")(T(idx), T(u)).asnumpy()
        np.testing.assert_allclose(got, want, rtol=1e-12, err_msg=name)
    nd = np.array([[0, 1], [4, 2]], np.int32)
    got = T(x).scatter_max(T(nd), T(np.array([9.0, -9.0]))).asnumpy()
    want = x.copy()
    want[0, 1], want[4, 2] = 9.0, max(x[4, 2], -9.0)
    np.testing.assert_array_equal(got, want)


def test_host_helpers():
    t = T(np.arange(6, dtype=np.float32).reshape(2, 3))
    assert t.to_tensor() is t
    assert t.flush_from_cache() is None
    t.itemset(4, 40.0)
    t.itemset((0, 1), 10.0)
    np.testing.assert_array_equal(t.asnumpy(), [[0, 10, 2], [3, 40, 5]])
    one = T(np.array([1.5], np.float32))
    one.itemset(2.5)
    assert one.asnumpy()[0] == 2.5
    with pytest.raises(ValueError, match="one-element tensor"):
        t.itemset(1.0)


def test_i0_igamma_igammac_match_scipy():
    sp = pytest.importorskip("scipy.special")
    x = np.concatenate([np.linspace(-40, 40, 81), [0.0, 1e-3, 29.99, 30.01]])
    np.testing.assert_allclose(T(x).i0().asnumpy(), sp.i0(x), rtol=1e-13)
    a = np.array([0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 0.1, 3.0, 7.5])
    z = np.array([0.2, 3.0, 1.0, 5.0, 20.0, 25.0, 0.0, 7.0, 0.01])
    np.testing.assert_allclose(T(a).igamma(T(z)).asnumpy(), sp.gammainc(a, z), rtol=1e-12,
                               atol=1e-15)
    np.testing.assert_allclose(T(a).igammac(T(z)).asnumpy(), sp.gammaincc(a, z), rtol=1e-12,
                               atol=1e-15)


def test_unique_with_pad_and_unique_consecutive():
    y, i = T(np.array([5, 1, 2, 2, 3, 5], np.int32)).unique_with_pad(0)
    np.testing.assert_array_equal(y.asnumpy(), [1, 2, 3, 5, 0, 0])
    np.testing.assert_array_equal(i.asnumpy(), [3, 0, 1, 1, 2, 3])
    y, i = ms.jit(lambda a: a.unique_with_pad(-1))(T(np.array([2.0, 2.0, 7.0])))
    np.testing.assert_array_equal(y.asnumpy(), [2.0, 7.0, -1.0])
    with pytest.raises(ValueError, match="must be 1-D"):
        T(np.ones((2, 2))).unique_with_pad(0)
    out, idx, cnt = T(np.array([1, 1, 2, 2, 3, 1, 1, 2])).unique_consecutive(True, True)
    np.testing.assert_array_equal(out.asnumpy(), [1, 2, 3, 1, 2])
    np.testing.assert_array_equal(idx.asnumpy(), [0, 0, 1, 1, 2, 3, 3, 4])
    np.testing.assert_array_equal(cnt.asnumpy(), [2, 2, 1, 2, 1])
    m = np.array([[1, 1], [1, 1], [2, 0], [1, 1]])
    np.testing.assert_array_equal(T(m).unique_consecutive(axis=0).asnumpy(), [[1, 1], [2, 0],
                                                                              [1, 1]])
    with pytest.raises(ms.CompileError, match="data-dependent output shape"):
        ms.jit(lambda a: a.unique_consecutive())(T(m))


@pytest.mark.parametrize("shape", [(5, 3), (3, 4), (2, 3, 3)])
def test_svd_matches_numpy(shape):
    a = RNG.standard_normal(shape)
    s, u, v = T(a).svd()
    s, u, v = s.asnumpy(), u.asnumpy(), v.asnumpy()
    np.testing.assert_allclose(s, np.linalg.svd(a, compute_uv=False), rtol=1e-12)
    np.testing.assert_allclose(u @ (s[..., None] * np.swapaxes(v, -1, -2)), a, atol=1e-12)
    k = min(shape[-2:])
    np.testing.assert_allclose(np.swapaxes(u, -1, -2) @ u, np.broadcast_to(np.eye(k), u.shape[:-2]
                                                                          + (k, k)), atol=1e-12)
    np.testing.assert_allclose(T(a).svd(compute_uv=False).asnumpy(), s, rtol=1e-12)
    if len(shape) == 2:
        g = ms.grad(lambda m: m.svd(compute_uv=False).sum())(T(a)).asnumpy()
        np.testing.assert_allclose(
            g, fd(lambda m: np.linalg.svd(m, compute_uv=False).sum(), a), rtol=1e-6)
    with pytest.raises(ValueError, match="full_matrices=True is not supported"):
        T(a).svd(full_matrices=True)
