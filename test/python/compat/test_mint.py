"""mindspore.mint (torch-style functions) against numpy, eagerly and inside jit."""
import numpy as np
import pytest

import msmlir as ms
from msmlir import mint
from msmlir.mint.nn import functional as MF

RS = np.random.RandomState(2)


def f32(*shape):
    return RS.randn(*shape).astype(np.float32)


X, Y = f32(3, 4), f32(3, 4)
P = (RS.rand(3, 4) + 0.5).astype(np.float32)
IMG = f32(1, 2, 5, 6)


def _sm(x, axis):
    e = np.exp(x - x.max(axis, keepdims=True))
    return e / e.sum(axis, keepdims=True)


CASES = [
    (mint.add, (X, Y), {"alpha": 2.0}, lambda a, b, alpha: a + 2 * b),
    (mint.sub, (X, Y), {"alpha": 0.5}, lambda a, b, alpha: a - 0.5 * b),
    (mint.div, (X * 5, P), {"rounding_mode": "floor"}, lambda a, b, rounding_mode: np.floor(a / b)),
    (mint.clamp, (X, -0.5, 0.5), {}, np.clip),
    (mint.where, (X > 0, X, Y), {}, np.where),
    (mint.cat, ((X, Y), 1), {}, lambda t, d: np.concatenate(t, 1)),
    (mint.stack, ((X, Y), 2), {}, lambda t, d: np.stack(t, 2)),
    (mint.split, (X, 2, 1), {}, lambda x, s, d: tuple(np.split(x, 2, 1))),
    (mint.chunk, (f32(5, 2), 2), {}, None),
    (mint.reshape, (X, (2, 6)), {}, lambda x, s: x.reshape(s)),
    (mint.permute, (f32(2, 3, 4), (2, 0, 1)), {}, lambda x, p: x.transpose(p)),
    (mint.transpose, (f32(2, 3, 4), 0, 2), {}, lambda x, a, b: np.swapaxes(x, 0, 2)),
    (mint.unsqueeze, (X, 1), {}, lambda x, d: np.expand_dims(x, 1)),
    (mint.squeeze, (f32(3, 1, 2), 1), {}, lambda x, d: x[:, 0]),
    (mint.flatten, (f32(2, 3, 4),), {}, lambda x: x.reshape(-1)),
    (mint.gather, (X, 1, np.array([[0, 3], [1, 1], [2, 0]], np.int64)), {},
     lambda x, d, i: np.take_along_axis(x, i, 1)),
    (mint.index_select, (X, 1, np.array([3, 0], np.int32)), {}, lambda x, d, i: x[:, i]),
    (mint.sum, (X, 1), {"keepdim": True}, lambda x, d, keepdim: x.sum(1, keepdims=True)),
    (mint.mean, (X, (0, 1)), {}, lambda x, d: x.mean()),
    (mint.prod, (P, 0), {}, lambda x, d: x.prod(0)),
    (mint.max, (X,), {}, lambda x: x.max()),
    (mint.max, (X, 1), {}, lambda x, d: (x.max(1), x.argmax(1))),
    (mint.min, (X, 0, True), {}, lambda x, d, k: (x.min(0, keepdims=True), x.argmin(0)[None])),
    (mint.argmax, (X, 1), {}, lambda x, d: x.argmax(1)),
    (mint.cumsum, (X, 1), {}, lambda x, d: np.cumsum(x, 1)),
    (mint.sort, (X, 1), {"descending": True}, lambda x, d, descending: (-np.sort(-x, 1),
                                                                       np.argsort(-x, 1, kind="stable"))),
    (mint.topk, (X, 2), {}, lambda x, k: (-np.sort(-x, -1)[:, :2], np.argsort(-x, -1, kind="stable")[:, :2])),
    (mint.tile, (X, (2, 1)), {}, lambda x, r: np.tile(x, r)),
    (mint.broadcast_to, (f32(4), (3, 4)), {}, lambda x, s: np.broadcast_to(x, s)),
    (mint.tril, (X, -1), {}, lambda x, d: np.tril(x, -1)),
    (mint.repeat_interleave, (X, 2, 0), {}, lambda x, r, d: np.repeat(x, 2, 0)),
    (mint.std, (X, 1), {}, lambda x, d: x.std(1, ddof=1)),
    (mint.var, (X, 0), {"correction": 0}, lambda x, d, correction: x.var(0)),
    (mint.any, (X > 1, 1), {}, lambda x, d: x.any(1)),
    (mint.softmax, (X, 0), {}, lambda x, d: _sm(x, 0)),
    (MF.linear, (X, f32(2, 4), f32(2)), {}, lambda x, w, b: x @ w.T + b),
    (MF.log_softmax, (X, 1), {}, lambda x, d: np.log(_sm(x, 1))),
    (MF.mse_loss, (X, Y), {}, lambda a, b: ((a - b) ** 2).mean()),
    (MF.l1_loss, (X, Y), {"reduction": "sum"}, lambda a, b, reduction: np.abs(a - b).sum()),
    (MF.leaky_relu, (X, 0.1), {}, lambda x, s: np.where(x >= 0, x, 0.1 * x)),
    (MF.elu, (X,), {}, lambda x: np.where(x > 0, x, np.expm1(x))),
    (MF.softplus, (X,), {"beta": 2}, lambda x, beta: np.log1p(np.exp(2 * x)) / 2),
    (MF.pad, (X, (1, 2)), {}, lambda x, p: np.pad(x, ((0, 0), (1, 2)))),
    (MF.one_hot, (np.array([0, 2], np.int32), 3), {}, lambda i, n: np.eye(3)[i]),
    (MF.embedding, (np.array([[1, 0]], np.int32), X), {}, lambda i, w: w[i]),
    (MF.max_pool2d, (IMG, 2), {"ceil_mode": True}, None),
    (MF.normalize, (X,), {}, lambda x: x / np.maximum(np.sqrt((x ** 2).sum(1, keepdims=True)), 1e-12)),
]


def _cmp(got, ref):
    if isinstance(ref, tuple):
        assert len(got) == len(ref)
        for g, r in zip(got, ref):
            _cmp(g, r)
        return
    got = got.asnumpy() if hasattr(got, "asnumpy") else np.asarray(got)
    ref = np.asarray(ref)
    assert got.shape == ref.shape, (got.shape, ref.shape)
    np.testing.assert_allclose(got.astype(np.float64), ref.astype(np.float64), rtol=2e-5, atol=2e-5)


def _to(a):
    if isinstance(a, np.ndarray):
        return ms.Tensor(a)
    if isinstance(a, tuple) and a and isinstance(a[0], np.ndarray):
        return tuple(ms.Tensor(e) for e in a)
    return a


def _ref(fn, args, kwargs, ref):
    if ref is not None:
        return ref(*args, *kwargs.values())
    if fn is mint.chunk:
        return (args[0][:3], args[0][3:])
    x = args[0]      # max_pool2d, kernel 2, ceil_mode on a 5 x 6 map: 3 x 3
    xp = np.full((1, 2, 6, 6), -np.inf, np.float32)
    xp[:, :, :5, :6] = x
    return xp.reshape(1, 2, 3, 2, 3, 2).max((3, 5))


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0].__name__}-{i}" for i, c in enumerate(CASES)])
def test_mint_function(case):
    fn, args, kwargs, ref = case
    expected = _ref(fn, args, kwargs, ref)
    _cmp(fn(*[_to(a) for a in args], **kwargs), expected)

    def graph(*a):
        return fn(*a, **kwargs)
    _cmp(ms.jit(graph)(*[_to(a) for a in args]), expected)


def test_creation_and_layers():
    assert mint.zeros(2, 3).shape == (2, 3) and mint.ones((4,), dtype=ms.int32).dtype == ms.int32
    np.testing.assert_array_equal(mint.arange(1, 7, 2).asnumpy(), [1, 3, 5])
    np.testing.assert_array_equal(mint.full((2,), 7).asnumpy(), [7, 7])
    assert mint.rand(3, 4).shape == (3, 4) and mint.randn((5,)).shape == (5,)
    assert mint.allclose(ms.Tensor(X), ms.Tensor(X + 1e-9))
    lin = mint.nn.Linear(4, 2, bias=False)
    assert lin(ms.Tensor(X)).shape == (3, 2)
    np.testing.assert_allclose(lin(ms.Tensor(X)).asnumpy(), X @ lin.weight.asnumpy().T, rtol=1e-5)
    assert mint.nn.Flatten()(ms.Tensor(f32(2, 3, 4))).shape == (2, 12)
    # data-dependent output shape: runs in PyNative, refused inside jit
    np.testing.assert_array_equal(mint.masked_select(ms.Tensor(X), ms.Tensor(X > 0)).asnumpy(),
                                  X[X > 0])
    with pytest.raises(RuntimeError, match="'masked_select' has a data-dependent output shape"):
        ms.jit(lambda a: mint.masked_select(a, a > 0))(ms.Tensor(X))
    with pytest.raises(ValueError, match="num_classes"):
        MF.one_hot(ms.Tensor(np.array([1], np.int32)))
