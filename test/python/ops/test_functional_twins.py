"""Functional ops added as twins of Tensor methods (ops/functional.py `_METHOD_OPS`) and
a few used in real MindSpore code (roll, softmin, tanhshrink, matrix_solve,
choice_with_mask): against numpy, in PyNative and inside jit, an error case each."""
import numpy as np
import pytest

import msmlir as ms
from msmlir import ops

RNG = np.random.default_rng(2024)


def T(a):
    return ms.Tensor(a)


def both(fn, *args):
    eager = fn(*[T(a) if isinstance(a, np.ndarray) else a for a in args])
    arrays = [a for a in args if isinstance(a, np.ndarray)]

    def f(*ts):
        it = iter(ts)
        return fn(*[next(it) if isinstance(a, np.ndarray) else a for a in args])
    graph = ms.jit(f)(*[T(a) for a in arrays])

    def np_(r):
        return tuple(np_(e) for e in r) if isinstance(r, tuple) else r.asnumpy()
    return np_(eager), np_(graph)


def test_linear_algebra_twins():
    a = RNG.standard_normal((2, 4, 4))
    spd = a @ np.swapaxes(a, -1, -2) + 4 * np.eye(4)
    for got in both(ops.cholesky, spd):
        np.testing.assert_allclose(got, np.linalg.cholesky(spd), rtol=1e-12)
    for got in both(ops.matrix_determinant, a):
        np.testing.assert_allclose(got, np.linalg.det(a), rtol=1e-12)
    sign, logdet = ops.log_matrix_determinant(T(a))
    ws, wl = np.linalg.slogdet(a)
    np.testing.assert_array_equal(sign.asnumpy(), ws)
    np.testing.assert_allclose(logdet.asnumpy(), wl, rtol=1e-12)
    np.testing.assert_allclose(ops.cholesky_inverse(T(np.linalg.cholesky(spd[0]))).asnumpy(),
                               np.linalg.inv(spd[0]), rtol=1e-10)
    b = RNG.standard_normal((2, 4, 3))
    for got in both(ops.matrix_solve, a, b):
        np.testing.assert_allclose(got, np.linalg.solve(a, b), rtol=1e-10)
    np.testing.assert_allclose(ops.matrix_solve(T(a), T(b), True).asnumpy(),
                               np.linalg.solve(np.swapaxes(a, -1, -2), b), rtol=1e-10)
    s, u, v = ops.svd(T(a[0]))
    np.testing.assert_allclose(s.asnumpy(), np.linalg.svd(a[0], compute_uv=False), rtol=1e-12)
    with pytest.raises(ValueError, match="full_matrices=True"):
        ops.svd(T(a[0]), full_matrices=True)


def test_scans_order_and_scatter_twins():
    x = RNG.standard_normal((3, 6))
    for v, i in both(lambda t: ops.cummax(t, 1), x):
        np.testing.assert_array_equal(v, np.maximum.accumulate(x, 1))
    for v, i in both(lambda t: ops.cummin(t, 0), x):
        np.testing.assert_array_equal(v, np.minimum.accumulate(x, 0))
    v, i = ops.median(T(x), 1)
    np.testing.assert_array_equal(v.asnumpy(), np.sort(x, 1)[:, 2])
    t = RNG.uniform(1, 2, (4, 3))
    idx = np.array([[1], [3], [1]])
    upd = RNG.uniform(1, 2, (3, 3))
    for name, op in (("mul", np.multiply), ("div", np.divide), ("max", np.maximum),
                     ("min", np.minimum)):
        want = t.copy()
        for k in range(3):
            want[idx[k, 0]] = op(want[idx[k, 0]], upd[k])
        for got in both(getattr(ops, f"tensor_scatter_{name}"), t, idx, upd):
            np.testing.assert_allclose(got, want, rtol=1e-12)
    r = ops.renorm(T(x), 2, 0, 1.0).asnumpy()
    n = np.linalg.norm(x, axis=1, keepdims=True)
    np.testing.assert_allclose(r, np.where(n > 1.0, x / (n + 1e-7), x), rtol=1e-12)


def test_small_elementwise_and_sampling():
    x = RNG.standard_normal((3, 5))
    for got in both(lambda t: ops.roll(t, 2, 1), x):
        np.testing.assert_array_equal(got, np.roll(x, 2, 1))
    for got in both(ops.softmin, x):
        e = np.exp(-x - (-x).max(-1, keepdims=True))
        np.testing.assert_allclose(got, e / e.sum(-1, keepdims=True), rtol=1e-12)
    for got in both(ops.tanhshrink, x):
        np.testing.assert_allclose(got, x - np.tanh(x), rtol=1e-12, atol=1e-15)
    m = RNG.random((4, 5)) < 0.3
    idx, mask = ops.choice_with_mask(T(m), 30, 3)
    k = int(m.sum())
    assert {tuple(r) for r in idx.asnumpy()[:k]} == {tuple(r) for r in np.argwhere(m)}
    np.testing.assert_array_equal(mask.asnumpy(), np.arange(30) < k)
    y, i = ops.unique_with_pad(T(np.array([4, 1, 4, 2], np.int32)), 0)
    np.testing.assert_array_equal(y.asnumpy(), [1, 2, 4, 0])
    out = ops.unique_consecutive(T(np.array([1, 1, 3, 3, 1])))
    np.testing.assert_array_equal(out.asnumpy(), [1, 3, 1])
    coo = ops.dense_to_sparse_coo(T(np.array([[0.0, 2.0], [3.0, 0.0]])))
    np.testing.assert_array_equal(coo.to_dense().asnumpy(), [[0.0, 2.0], [3.0, 0.0]])
    c = ops.random_categorical(T(np.log(np.array([[0.2, 0.8]], np.float32))), 4000, 1)
    assert abs(c.asnumpy().mean() - 0.8) < 0.03
    with pytest.raises(TypeError, match="bool"):
        ops.choice_with_mask(T(np.ones(3, np.float32)))


def test_parameter_scatters():
    for kind, op in (("mul", np.multiply), ("div", np.divide), ("max", np.maximum),
                     ("min", np.minimum)):
        base = RNG.uniform(1, 2, (4, 3))
        p = ms.Parameter(T(base.copy()), name="p")
        idx = np.array([1, 3, 1], np.int32)
        upd = RNG.uniform(1, 2, (3, 3))
        out = getattr(ops, f"scatter_{kind}")(p, T(idx), T(upd))
        want = base.copy()
        for k in range(3):
            want[idx[k]] = op(want[idx[k]], upd[k])
        np.testing.assert_allclose(p.asnumpy(), want, rtol=1e-12)
        np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-12)
        q = ms.Parameter(T(base.copy()), name="q")
        nd = np.array([[0, 1], [2, 2], [0, 1]], np.int32)
        u = RNG.uniform(1, 2, 3)
        getattr(ops, f"scatter_nd_{kind}")(q, T(nd), T(u))
        want = base.copy()
        for k in range(3):
            want[tuple(nd[k])] = op(want[tuple(nd[k])], u[k])
        np.testing.assert_allclose(q.asnumpy(), want, rtol=1e-12)


def test_bessel_i0_i0e_and_matrix_diagonals():
    sp = pytest.importorskip("scipy.special")
    x = np.concatenate([np.linspace(-40, 40, 81), [700.0, -1000.0]])
    for got in both(ops.bessel_i0e, x):
        np.testing.assert_allclose(got, sp.i0e(x), rtol=1e-13)
    np.testing.assert_allclose(ops.bessel_i0(T(x[:81])).asnumpy(), sp.i0(x[:81]), rtol=1e-13)
    for shp in ((2, 3, 4), (2, 4, 3)):
        a = RNG.standard_normal(shp)
        k = min(shp[-2:])
        for got in both(ops.matrix_diag_part, a):
            np.testing.assert_array_equal(got, np.diagonal(a, 0, -2, -1))
        d = RNG.standard_normal((2, k))
        want = a.copy()
        for b in range(2):
            want[b, np.arange(k), np.arange(k)] = d[b]
        for got in both(ops.matrix_set_diag, a, d):
            np.testing.assert_array_equal(got, want)
    v = RNG.standard_normal((2, 3))
    want = np.full((2, 3, 3), 7.0)
    for b in range(2):
        want[b, np.arange(3), np.arange(3)] = v[b]
    np.testing.assert_array_equal(ops.matrix_diag(T(v), padding_value=7.0).asnumpy(), want)
    with pytest.raises(ValueError, match="only k=0"):
        ops.matrix_diag_part(T(v), k=1)


def test_laplace_shuffle_same_type_shape_and_wrappers():
    s = ops.laplace((40000,), T(np.float32(1.0)), T(np.float32(2.0)), seed=3).asnumpy()
    assert abs(np.median(s) - 1.0) < 0.05 and abs(np.abs(s - 1.0).mean() - 2.0) < 0.05
    x = np.arange(12.0).reshape(6, 2)
    y = ops.shuffle(T(x), seed=4).asnumpy()
    assert sorted(map(tuple, y)) == sorted(map(tuple, x)) and not np.array_equal(y, x)
    t = T(x)
    assert ops.same_type_shape(t, T(x + 1)) is t
    with pytest.raises(TypeError, match="dtypes differ"):
        ops.same_type_shape(t, T(x.astype(np.float32)))
    with pytest.raises(ValueError, match="shapes differ"):
        ops.same_type_shape(t, T(x[:3]))
    np.testing.assert_array_equal(ops.padding(T(np.array([[1.0], [2.0]])), 3).asnumpy(),
                                  [[1.0, 0.0, 0.0], [2.0, 0.0, 0.0]])
    anchors = np.array([[0.0, 0.0, 9.0, 9.0], [2.0, 2.0, 5.0, 7.0]], np.float32)
    gts = np.array([[1.0, 1.0, 8.0, 10.0], [2.0, 3.0, 6.0, 6.0]], np.float32)
    deltas = ops.bounding_box_encode(T(anchors), T(gts))
    back = ops.bounding_box_decode(T(anchors), deltas, (20, 20), wh_ratio_clip=0.016)
    np.testing.assert_allclose(back.asnumpy(), gts, rtol=1e-5, atol=1e-5)
    valid = ops.check_valid(T(np.array([[0, 0, 5, 5], [0, 0, 50, 5]], np.float32)),
                            T(np.array([10, 10, 1.0], np.float32)))
    np.testing.assert_array_equal(valid.asnumpy(), [True, False])
    img = RNG.standard_normal((1, 4, 4, 1)).astype(np.float32)
    crop = ops.crop_and_resize(T(img), T(np.array([[0, 0, 1, 1]], np.float32)),
                               T(np.array([0], np.int32)), (4, 4))
    np.testing.assert_allclose(crop.asnumpy(), img, rtol=1e-6)
