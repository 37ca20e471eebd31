"""msmlir.Tensor / msmlir.Parameter: construction, printing, ops (compiled kernels) vs numpy,
indexing, numpy / jit / ops interop, and the kernel cache."""
import copy

import numpy as np
import pytest

import msmlir as ms
from msmlir import Parameter, Tensor
from msmlir.frontend import trace as _trace


def arr(t):
    assert isinstance(t, Tensor), type(t)
    return t.asnumpy()


def close(t, ref, **kw):
    a = arr(t)
    ref = np.asarray(ref)
    assert a.shape == ref.shape, (a.shape, ref.shape)
    assert a.dtype == ref.dtype, (a.dtype, ref.dtype)
    np.testing.assert_allclose(a, ref, **kw)


R = np.random.default_rng(0)
X = R.standard_normal((3, 4)).astype(np.float32)
Y = R.standard_normal((3, 4)).astype(np.float32)
I = R.integers(-20, 20, (3, 4)).astype(np.int32)
J = R.integers(1, 7, (3, 4)).astype(np.int32)


# ---------------------------------------------------------------------------
# construction and properties
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("data, dtype", [
    (1.5, ms.float32), (3, ms.int64), (True, ms.bool_), ([1.0, 2.0], ms.float32),
    ([[1, 2], [3, 4]], ms.int64), ([True, False], ms.bool_), (np.float64(2.0), ms.float64),
    (np.arange(3, dtype=np.int32), ms.int32), (np.ones(2, np.float64), ms.float64),
    (np.ones(2, np.float16), ms.float16), (np.int8(3), ms.int8),
])
def test_default_dtypes(data, dtype):
    t = Tensor(data)
    assert t.dtype == dtype
    np.testing.assert_array_equal(t.asnumpy(), np.asarray(data))


def test_constructor_dtype_shape_and_copy():
    src = np.arange(6, dtype=np.float64)
    t = Tensor(src, ms.float32)
    assert t.dtype == ms.float32 and t.shape == (6,)
    src[0] = 100
    assert t.asnumpy()[0] == 0  # the constructor copies
    t2 = Tensor(t, dtype=ms.int32)
    assert t2.dtype == ms.int32 and t2.asnumpy().tolist() == list(range(6))
    assert Tensor([t, t]).shape == (2, 6)
    assert Tensor(1.7, ms.int32).item() == 1
    assert Tensor(np.arange(6), shape=(2, 3)).shape == (2, 3)
    z = Tensor(shape=(2, 3), dtype=ms.float16, init="ones")
    assert z.dtype == ms.float16 and np.all(z.asnumpy() == 1)
    assert z.init_data() is z and not z.has_init


def test_constructor_errors():
    with pytest.raises(TypeError, match="not supported"):
        Tensor(np.ones(2, np.longdouble))
    assert Tensor(np.ones(2, np.uint8)).dtype == ms.uint8   # host-only dtype (issue 12)
    with pytest.raises(TypeError):
        Tensor("abc")
    with pytest.raises(TypeError):
        Tensor({"a": 1})
    with pytest.raises(ValueError):
        Tensor(shape=(2,), dtype=ms.float32)
    with pytest.raises(ValueError, match="ragged"):
        Tensor([[1, 2], [3]])


def test_properties():
    t = Tensor(np.zeros((2, 3, 4), np.float32))
    assert t.shape == (2, 3, 4) and isinstance(t.shape, tuple)
    assert t.ndim == 3 and t.dim() == 3 and t.size == 24 and t.numel() == 24
    assert t.itemsize == 4 and t.nbytes == 96 and t.strides == (48, 16, 4)
    assert t.dtype == ms.float32 and repr(t.dtype) == "Float32"
    assert t.T.shape == (4, 3, 2)
    assert len(t) == 2
    with pytest.raises(TypeError):
        len(Tensor(1.0))


def test_asnumpy_shares_memory_and_from_numpy():
    t = Tensor([1.0, 2.0])
    a = t.asnumpy()
    a[0] = 5
    assert t.asnumpy()[0] == 5
    assert np.asarray(t) is t.asnumpy()
    src = np.arange(3, dtype=np.int32)
    f = Tensor.from_numpy(src)
    src[1] = 9
    assert f.asnumpy()[1] == 9
    assert np.asarray(t, dtype=np.float64).dtype == np.float64


def test_item_tolist_conversions():
    assert Tensor([[2.5]]).item() == 2.5 and isinstance(Tensor(3).item(), int)
    assert Tensor([[1, 2], [3, 4]]).item(3) == 4
    with pytest.raises(ValueError):
        Tensor([1, 2]).item()
    assert Tensor([[1, 2]]).tolist() == [[1, 2]]
    assert float(Tensor([1.5])) == 1.5 and int(Tensor(7)) == 7
    assert bool(Tensor([True])) is True
    with pytest.raises(ValueError):
        bool(Tensor([1, 2]))
    assert [0, 1, 2][Tensor(2)] == 2
    with pytest.raises(TypeError):
        [0, 1][Tensor(1.0)]


def test_repr_like_mindspore():
    t = Tensor([[1, 2, 3], [4, 5, 6]], ms.float32)
    assert repr(t) == ("Tensor(shape=[2, 3], dtype=Float32, value=\n"
                       "[[ 1.00000000e+00,  2.00000000e+00,  3.00000000e+00],\n"
                       " [ 4.00000000e+00,  5.00000000e+00,  6.00000000e+00]])")
    assert repr(Tensor([1, 2, 3])) == "Tensor(shape=[3], dtype=Int64, value= [1, 2, 3])"
    assert repr(Tensor([True, False])) == "Tensor(shape=[2], dtype=Bool, value= [ True, False])"
    assert repr(Tensor(7, ms.int32)) == "Tensor(shape=[], dtype=Int32, value= 7)"
    assert str(t) == str(t.asnumpy())
    assert f"{Tensor(0.123456):.3f}" == "0.123" and f"{Tensor([2])}" == "[2]"
    p = Parameter(Tensor(np.zeros((2, 3), np.float32)), name="weight")
    assert repr(p) == "Parameter (name=weight, shape=(2, 3), dtype=Float32, requires_grad=True)"


# ---------------------------------------------------------------------------
# arithmetic vs numpy (each op is a compiled kernel)
# ---------------------------------------------------------------------------

BINARY = [
    ("add", lambda a, b: a + b), ("sub", lambda a, b: a - b), ("mul", lambda a, b: a * b),
    ("truediv", lambda a, b: a / b), ("maximum", None), ("minimum", None),
]


@pytest.mark.parametrize("name, fn", BINARY)
def test_binary_float(name, fn):
    a, b = Tensor(X), Tensor(Y)
    ref = getattr(np, name)(X, Y) if fn is None else fn(X, Y)
    got = getattr(a, name)(b) if fn is None else fn(a, b)
    close(got, ref, rtol=1e-6)


def test_int_arithmetic_and_floor_ops():
    a, b = Tensor(I), Tensor(J)
    close(a + b, I + J)
    close(a - b, I - J)
    close(a * b, I * J)
    close(a // b, I // J)
    close(a % b, I % J)
    close(-a, -I)
    close(abs(a), np.abs(I))
    close(a / b, (I / J).astype(np.float32), rtol=1e-6)  # true division promotes to float32


def test_pow_and_unary_methods():
    t = Tensor(np.abs(X) + 0.5)
    xa = np.abs(X) + 0.5
    close(t ** 2, xa ** 2, rtol=1e-5)
    close(2.0 ** t, 2.0 ** xa, rtol=1e-5)
    for name, ref in [("exp", np.exp), ("log", np.log), ("sqrt", np.sqrt), ("tanh", np.tanh),
                      ("square", np.square), ("floor", np.floor), ("ceil", np.ceil),
                      ("neg", np.negative), ("abs", np.abs), ("reciprocal", np.reciprocal)]:
        close(getattr(t, name)(), ref(xa).astype(np.float32), rtol=2e-6, atol=1e-6)
    close(t.sigmoid(), (1 / (1 + np.exp(-xa))).astype(np.float32), rtol=1e-5)
    close(Tensor(X).relu(), np.maximum(X, 0))
    close(Tensor(X).clip(-0.5, 0.5), np.clip(X, -0.5, 0.5))


def test_scalars_both_sides_and_promotion():
    a = Tensor(X)
    close(a + 1, X + 1)
    close(2 - a, 2 - X)
    close(a * 0.5, X * np.float32(0.5))
    close(3.0 / (a + 10), (3.0 / (X + 10)).astype(np.float32), rtol=1e-6)
    i = Tensor(I)
    r = i + 2.5
    assert r.dtype == ms.float32
    np.testing.assert_allclose(arr(r), I + 2.5)
    assert (i * 2).dtype == ms.int32
    assert (i / 2).dtype == ms.float32
    d = Tensor(X.astype(np.float64))
    assert (d + 1.0).dtype == ms.float64
    assert (Tensor(X) + Tensor(X.astype(np.float64))).dtype == ms.float64
    assert (Tensor(I) + Tensor(X)).dtype == ms.float32


def test_broadcasting_and_matmul():
    a = Tensor(X)
    row = Tensor(Y[0])
    close(a + row, X + Y[0])
    close(a * Tensor(Y[:, :1]), X * Y[:, :1])
    w = R.standard_normal((4, 5)).astype(np.float32)
    close(a @ Tensor(w), X @ w, rtol=1e-5, atol=1e-6)
    close(a @ w, X @ w, rtol=1e-5, atol=1e-6)   # Tensor @ ndarray
    close(X @ Tensor(w), X @ w, rtol=1e-5, atol=1e-6)  # ndarray @ Tensor -> Tensor
    close(a.matmul(Tensor(w)), X @ w, rtol=1e-5, atol=1e-6)


def test_comparisons_and_logical():
    a, b = Tensor(X), Tensor(Y)
    for got, ref in [(a < b, X < Y), (a <= b, X <= Y), (a > b, X > Y), (a >= b, X >= Y),
                     (a == b, X == Y), (a != b, X != Y), (a > 0, X > 0), (0.5 < a, 0.5 < X)]:
        assert got.dtype == ms.bool_
        np.testing.assert_array_equal(arr(got), ref)
    m, n = a > 0, b > 0
    np.testing.assert_array_equal(arr(m & n), (X > 0) & (Y > 0))
    np.testing.assert_array_equal(arr(m | n), (X > 0) | (Y > 0))
    np.testing.assert_array_equal(arr(m ^ n), (X > 0) ^ (Y > 0))
    np.testing.assert_array_equal(arr(~m), ~(X > 0))
    assert (a == None) is False and (a != None) is True  # noqa: E711
    np.testing.assert_array_equal(arr(Tensor(I) & Tensor(I + 1)), I & (I + 1))   # bitwise on ints
    np.testing.assert_array_equal(arr(~Tensor(I)), ~I)
    with pytest.raises(TypeError):
        a & b                                                                    # not on floats
    with pytest.raises(TypeError):
        ~a


def test_bool_tensor_kernels():
    m = Tensor(X > 0)
    np.testing.assert_array_equal(arr(m.reshape(4, 3)), (X > 0).reshape(4, 3))
    np.testing.assert_array_equal(arr(m.T), (X > 0).T)
    np.testing.assert_array_equal(arr(m[1]), (X > 0)[1])
    assert bool(m.any()) == bool((X > 0).any()) and bool(m.all()) == bool((X > 0).all())
    np.testing.assert_array_equal(arr(m.all(axis=1)), (X > 0).all(axis=1))
    np.testing.assert_array_equal(arr(m.astype(ms.float32)), (X > 0).astype(np.float32))
    np.testing.assert_array_equal(arr(Tensor(X).astype(ms.bool_)), X.astype(bool))


# ---------------------------------------------------------------------------
# reductions and shape methods
# ---------------------------------------------------------------------------

def test_reductions():
    t = Tensor(X)
    close(t.sum(), np.sum(X), rtol=1e-5)
    close(t.sum(axis=1), X.sum(axis=1), rtol=1e-5)
    close(t.sum(axis=(0, 1), keepdims=True), X.sum(axis=(0, 1), keepdims=True), rtol=1e-5)
    close(t.mean(0), X.mean(0), rtol=1e-5)
    close(t.mean(axis=1, keep_dims=True), X.mean(axis=1, keepdims=True), rtol=1e-5)
    close(t.max(), X.max())
    close(t.min(axis=0), X.min(axis=0))
    close(t.max(axis=1, keepdims=True), X.max(axis=1, keepdims=True))
    v, i = t.max(axis=1, return_indices=True)
    close(v, X.max(axis=1))
    np.testing.assert_array_equal(arr(i), X.argmax(axis=1))
    np.testing.assert_array_equal(arr(t.argmax(axis=0)), X.argmax(axis=0))
    np.testing.assert_array_equal(arr(t.argmin()), X.argmin())
    close(t.prod(axis=0), X.prod(axis=0), rtol=1e-5)
    close(t.var(), np.var(X), rtol=1e-5)
    close(t.std(axis=0, ddof=1), np.std(X, axis=0, ddof=1), rtol=1e-5)
    close(Tensor(I).sum(), np.sum(I, dtype=np.int64))  # int32 sums to int64 (MindSpore 2.10 Tensor.sum; P.ReduceSum keeps int32)


def test_shape_methods():
    t = Tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    a = t.asnumpy()
    close(t.reshape(6, 4), a.reshape(6, 4))
    close(t.reshape((4, -1)), a.reshape(4, -1))
    close(t.view(24), a.reshape(24))
    close(t.transpose(), a.transpose())
    close(t.transpose(1, 0, 2), a.transpose(1, 0, 2))
    close(t.transpose((2, 0, 1)), a.transpose(2, 0, 1))
    close(t.swapaxes(0, 2), a.swapaxes(0, 2))
    close(t.flatten(), a.flatten())
    close(t.flatten(order="F"), a.flatten(order="F"))
    close(t.ravel(), a.ravel())
    close(t.expand_dims(1), a[:, None])
    close(t.expand_dims(1).squeeze(), a)
    close(Tensor(np.ones((1, 3, 1))).squeeze(0), np.ones((3, 1)))
    close(t.astype(ms.int32), a.astype(np.int32))
    close(Tensor(a[0, 0]).broadcast_to((3, 4)), np.broadcast_to(a[0, 0], (3, 4)))


def test_copy_is_independent():
    t = Tensor([1.0, 2.0])
    c = t.copy()
    c[0] = 10
    assert t.asnumpy()[0] == 1
    d = copy.deepcopy(t)
    d[1] = 7
    assert t.asnumpy()[1] == 2


# ---------------------------------------------------------------------------
# indexing
# ---------------------------------------------------------------------------

A = np.arange(60, dtype=np.float32).reshape(3, 4, 5)

BASIC = [1, -1, (0, 1), (slice(None), 2), (1, slice(1, 3)), (Ellipsis, 1), (None, 0),
         (slice(None, None, -1),), (slice(0, 3, 2), slice(None), slice(4, 0, -2)),
         (0, None, slice(1, 3), Ellipsis), (2, 3, 4), (Ellipsis,), ()]


@pytest.mark.parametrize("index", BASIC, ids=[repr(b) for b in BASIC])
def test_getitem_basic(index):
    got = Tensor(A)[index]
    np.testing.assert_array_equal(arr(got), A[index])
    assert arr(got).shape == A[index].shape


def test_getitem_advanced():
    t = Tensor(A)
    np.testing.assert_array_equal(arr(t[[0, 2]]), A[[0, 2]])
    np.testing.assert_array_equal(arr(t[Tensor([2, 0])]), A[[2, 0]])
    np.testing.assert_array_equal(arr(t[:, [1, 3], 0]), A[:, [1, 3], 0])
    mask = A > 30
    np.testing.assert_array_equal(arr(t[Tensor(mask)]), A[mask])
    np.testing.assert_array_equal(arr(t[t > 50]), A[A > 50])
    assert t[t > 1000].shape == (0,)


def test_getitem_errors():
    t = Tensor(A)
    with pytest.raises(IndexError):
        t[3]
    with pytest.raises(IndexError):
        t[0, 0, 0, 0]
    with pytest.raises(IndexError):
        t[..., ...]


def test_setitem():
    a = A.copy()
    t = Tensor(A)
    view = t.asnumpy()
    t[0] = 1.5
    a[0] = 1.5
    t[1, :, 2] = Tensor(np.arange(4, dtype=np.float32))
    a[1, :, 2] = np.arange(4)
    t[2, 1:3] = np.full((2, 5), -2.0)            # float64 value cast to float32
    a[2, 1:3] = -2.0
    t[t > 50] = 0
    a[a > 50] = 0
    t[..., -1] = Tensor(np.float32(9))
    a[..., -1] = 9
    np.testing.assert_array_equal(arr(t), a)
    assert view is t.asnumpy()                   # in place
    it = Tensor(np.zeros(4, np.int32))
    it[1] = 2.7
    it[[2, 3]] = Tensor([5, 6])
    np.testing.assert_array_equal(arr(it), [0, 2, 5, 6])
    b = Tensor(np.zeros(3, bool))
    b[1] = True
    b[2] = 5.0
    np.testing.assert_array_equal(arr(b), [False, True, True])
    with pytest.raises(ValueError):
        t[0] = np.ones(3)


def test_iteration_compiles_one_kernel():
    t = Tensor(np.arange(12, dtype=np.float32).reshape(6, 2))
    list(t)  # warm
    before = len(_trace._EAGER_CACHE)
    rows = [r for r in t]
    assert len(_trace._EAGER_CACHE) == before
    for i, r in enumerate(rows):
        np.testing.assert_array_equal(arr(r), [2 * i, 2 * i + 1])
    for i in range(6):
        t[i] = i
    before = len(_trace._EAGER_CACHE)
    for i in range(6):
        t[i] = -i
    assert len(_trace._EAGER_CACHE) == before


def test_scalar_operands_share_a_kernel():
    t = Tensor(X)
    t * 0.5
    before = len(_trace._EAGER_CACHE)
    for s in (0.25, 1.5, -3.0, 7):
        close(t * s, X * np.float32(s))
    assert len(_trace._EAGER_CACHE) == before


# ---------------------------------------------------------------------------
# interop: numpy ufuncs, msmlir.ops, msmlir.jit
# ---------------------------------------------------------------------------

def test_numpy_ufuncs():
    t = Tensor(X)
    r = np.add(t, 1)
    assert isinstance(r, Tensor)
    close(r, X + 1)
    r = Y * t
    assert isinstance(r, Tensor)
    close(r, Y * X)
    close(np.exp(t), np.exp(X), rtol=2e-6)
    cs = np.cumsum(t)          # no msmlir op: numpy on the host values
    assert isinstance(cs, np.ndarray)
    np.testing.assert_allclose(cs, np.cumsum(X), rtol=1e-5)


def test_ops_accept_and_return_tensors():
    t = Tensor(X)
    r = ms.ops.add(t, t)
    assert isinstance(r, Tensor)
    close(r, X + X)
    r = ms.ops.concat([t, Tensor(Y)], 0)
    assert isinstance(r, Tensor) and r.shape == (6, 4)
    assert isinstance(ms.ops.add(X, X), np.ndarray)  # numpy in, numpy out


def test_jit_accepts_and_returns_tensors():
    @ms.jit
    def f(x, y):
        return x * y + 1.0, (x - y).sum()

    a, b = f(Tensor(X), Tensor(Y))
    assert isinstance(a, Tensor) and isinstance(b, Tensor)
    close(a, X * Y + 1, rtol=1e-6)
    close(b, np.sum(X - Y), rtol=1e-4)
    n = f(X, Y)
    assert isinstance(n[0], np.ndarray)
    s = ms.jit(lambda x: x * 2)(Tensor(3.0))
    assert s.shape == () and s.item() == 6.0


def test_tensors_as_constants_inside_jit():
    w = Tensor(R.standard_normal((4, 2)).astype(np.float32))
    p = Parameter(Tensor(np.ones(2, np.float32)), name="b")

    @ms.jit
    def f(x):
        h = x @ w + p
        return h.reshape(-1).sum() + w.T.sum() + w[1, 0]

    wa = w.asnumpy()
    ref = (X @ wa + 1).sum() + wa.sum() + wa[1, 0]
    close(f(Tensor(X)), np.float32(ref), rtol=1e-4)


# ---------------------------------------------------------------------------
# Parameter
# ---------------------------------------------------------------------------

def test_parameter_basics():
    p = Parameter(Tensor(np.ones((2, 3), np.float32)), name="w")
    assert isinstance(p, Tensor) and p.name == "w" and p.requires_grad
    assert Parameter(np.zeros(2)).name == "Parameter"
    assert Parameter(1).dtype == ms.int32 and Parameter(1.0).dtype == ms.float32
    with pytest.raises(ValueError):
        Parameter(True)
    with pytest.raises(TypeError):
        Parameter("x")
    p.requires_grad = False
    assert not p.requires_grad
    with pytest.raises(TypeError):
        p.requires_grad = 1
    p.name = "layer.w"
    assert p.name == "layer.w"
    with pytest.raises(TypeError):
        p.name = 3
    out = p * 2
    assert type(out) is Tensor
    close(out, np.full((2, 3), 2, np.float32))
    assert p.data is p
    src = Tensor(np.zeros(2, np.float32))
    q = Parameter(src)
    q[0] = 1
    assert src.asnumpy()[0] == 0  # Parameter copies its input


def test_parameter_set_data():
    p = Parameter(Tensor(np.zeros((2, 2), np.float32)), name="w")
    view = p.value()
    r = p.set_data(Tensor(np.ones((2, 2), np.float32)))
    assert r is p and np.all(p.asnumpy() == 1) and np.all(view.asnumpy() == 0)
    p.set_data(Tensor(np.full((2, 2), 3, np.int32)))  # int -> float32: implicit conversion
    assert p.dtype == ms.float32 and np.all(p.asnumpy() == 3)
    with pytest.raises(TypeError):
        p.set_data(Tensor(np.ones((2, 2), np.float64)))  # would lose precision
    with pytest.raises(ValueError):
        p.set_data(Tensor(np.ones((3, 2), np.float32)))
    p.set_data(2.5)
    assert np.all(p.asnumpy() == 2.5)
    ip = Parameter(Tensor([1, 2], ms.int32), name="i")
    with pytest.raises(TypeError):
        ip.set_data(1.5)


def test_parameter_clone_and_copy():
    p = Parameter(Tensor(np.arange(4, dtype=np.float32)), name="w", requires_grad=False)
    c = p.clone()
    assert isinstance(c, Parameter) and c.name == "w" and c.requires_grad is False
    c[0] = 100
    assert p.asnumpy()[0] == 0
    z = p.clone(init="zeros")
    assert np.all(z.asnumpy() == 0) and z.shape == p.shape and z.dtype == p.dtype
    d = copy.deepcopy(p)
    assert isinstance(d, Parameter) and d.name == "w"
    d[1] = 50
    assert p.asnumpy()[1] == 1
    pt = ms.ParameterTuple([p, Parameter(Tensor([1.0]), name="b")])
    assert len(pt) == 2
    with pytest.raises(ValueError):
        ms.ParameterTuple([p, p.clone()])


# ---------------------------------------------------------------------------
# context and seed
# ---------------------------------------------------------------------------

def test_context():
    assert ms.get_context("mode") == ms.PYNATIVE_MODE
    assert ms.GRAPH_MODE == 0 and ms.PYNATIVE_MODE == 1
    ms.set_context(mode=ms.GRAPH_MODE, device_target="cpu")
    assert ms.get_context("mode") == ms.GRAPH_MODE
    assert ms.get_context("device_target") == "CPU"
    with pytest.raises(ValueError):
        ms.set_context(mode=3)
    with pytest.raises(ValueError):
        ms.set_context(device_target="TPU")
    with pytest.raises(ValueError):
        ms.set_context(no_such_key=1)
    with pytest.raises(ValueError):
        ms.get_context("no_such_key")
    ms.set_context(device_target="gpu")             # MindSpore accepts any case
    assert ms.get_context("device_target") == "GPU"
    ms.set_context(device_target="CPU")


def test_set_seed():
    ms.set_seed(5)
    assert ms.get_seed() == 5
    a = np.random.rand()
    ms.set_seed(5)
    assert np.random.rand() == a           # seeds numpy too, like MindSpore
    with pytest.raises(TypeError):
        ms.set_seed(1.5)
    with pytest.raises(ValueError):
        ms.set_seed(-1)


def test_zero_d_tensors_keep_their_shape_through_jit():
    c = Tensor(2.0)
    f = ms.jit(lambda x: x * c)
    assert f(Tensor(3.0)).shape == () and f(Tensor(3.0)).item() == 6.0
    assert ms.ops.add(Tensor(1.0), Tensor(2.0)).shape == ()
    assert ms.jit(lambda x: x + 1)(np.float32(1)).shape == ()
