"""MindSpore 2.x's in-place Tensor methods (`add_`, `masked_fill_`, `index_add_`, ...)
and random fills (msmlir/ops/tensor_extra.py): each writes into the tensor's own buffer
(a numpy view of it sees the change; the dtype stays), returns the tensor, and
inside jit stops with an error naming the method (MindSpore's CPU backend runs
in-place operations in PyNative only)."""
import numpy as np
import pytest

import msmlir as ms

RNG = np.random.default_rng(1212)


def T(a):
    return ms.Tensor(a)


CASES = [
    ("add_", lambda a, b: a + 2 * b, lambda b: ((T(b),), {"alpha": 2})),
    ("sub_", lambda a, b: a - b, lambda b: ((T(b),), {})),
    ("mul_", lambda a, b: a * b, lambda b: ((T(b),), {})),
    ("div_", lambda a, b: a / b, lambda b: ((T(b),), {})),
    ("floor_divide_", lambda a, b: np.floor_divide(a, b), lambda b: ((T(b),), {})),
    ("remainder_", lambda a, b: np.remainder(a, b), lambda b: ((T(b),), {})),
    ("copy_", lambda a, b: b, lambda b: ((T(b),), {})),
    ("clamp_", lambda a, b: np.clip(a, -0.5, 0.5), lambda b: ((-0.5, 0.5), {})),
    ("exp_", lambda a, b: np.exp(a), lambda b: ((), {})),
    ("floor_", lambda a, b: np.floor(a), lambda b: ((), {})),
    ("sigmoid_", lambda a, b: 1 / (1 + np.exp(-a)), lambda b: ((), {})),
    ("sign_", lambda a, b: np.sign(a), lambda b: ((), {})),
    ("tanh_", lambda a, b: np.tanh(a), lambda b: ((), {})),
    ("zero_", lambda a, b: np.zeros_like(a), lambda b: ((), {})),
    ("fill_", lambda a, b: np.full_like(a, 3.5), lambda b: ((3.5,), {})),
]


@pytest.mark.parametrize("name, ref, args", CASES, ids=[c[0] for c in CASES])
def test_inplace_elementwise(name, ref, args):
    a = RNG.standard_normal((3, 4))
    b = RNG.uniform(0.5, 2.0, (3, 4))
    t = T(a)
    view = t.asnumpy()                        # the tensor's own buffer
    pos, kw = args(b)
    assert getattr(t, name)(*pos, **kw) is t
    np.testing.assert_allclose(t.asnumpy(), ref(a, b), rtol=1e-12)
    np.testing.assert_allclose(view, ref(a, b), rtol=1e-12)


def test_inplace_keeps_dtype_and_shape():
    t = T(np.array([1, 2, 3], np.int32))
    t.mul_(2.6)                               # float result cast back to int32
    assert t.dtype == ms.int32
    np.testing.assert_array_equal(t.asnumpy(), [2, 5, 7])
    t = T(np.ones((2, 3), np.float32))
    t.add_(T(np.arange(3, dtype=np.float32)))         # broadcast operand
    np.testing.assert_array_equal(t.asnumpy(), np.ones((2, 3)) + np.arange(3))
    t.div_(T(np.array([2.0], np.float32)), rounding_mode="floor")
    np.testing.assert_array_equal(t.asnumpy(), np.floor((np.ones((2, 3)) + np.arange(3)) / 2))
    t.log_()
    assert t.dtype == ms.float32
    with pytest.raises(ValueError, match="does not match the tensor"):
        T(np.ones(3)).add_(T(np.ones((2, 3))))
    with pytest.raises(ValueError, match="rounding_mode"):
        T(np.ones(3)).div_(2.0, rounding_mode="up")


def test_inplace_indexing():
    a = RNG.standard_normal((5, 3))
    t = T(a)
    src = RNG.standard_normal((2, 3))
    t.index_add_(0, T(np.array([4, 1])), T(src), alpha=2)
    want = a.copy()
    want[[4, 1]] += 2 * src
    np.testing.assert_allclose(t.asnumpy(), want, rtol=1e-12)
    t.index_copy_(1, T(np.array([2])), T(np.full((5, 1), 7.0)))
    want[:, 2] = 7.0
    np.testing.assert_array_equal(t.asnumpy(), want)
    t.index_fill_(0, T(np.array([0], np.int32)), -1.0)
    want[0] = -1.0
    np.testing.assert_array_equal(t.asnumpy(), want)
    m = np.zeros((5, 3), bool)
    m[1, 1] = m[3, 0] = True
    t.masked_fill_(T(m), 9.0)
    want[m] = 9.0
    np.testing.assert_array_equal(t.asnumpy(), want)
    t.masked_scatter_(T(m), T(np.array([100.0, 200.0, 300.0])))
    want[m] = [100.0, 200.0]
    np.testing.assert_array_equal(t.asnumpy(), want)
    t.put_(T(np.array([0, -1])), T(np.array([11.0, 12.0])))
    want.reshape(-1)[[0, -1]] = [11.0, 12.0]
    np.testing.assert_array_equal(t.asnumpy(), want)
    t.put_(T(np.array([0, 0])), T(np.array([1.0, 2.0])), accumulate=True)
    want.reshape(-1)[0] += 3.0
    np.testing.assert_array_equal(t.asnumpy(), want)
    t.index_put_((T(np.array([2])), T(np.array([1]))), T(np.array([5.5])))
    want[2, 1] = 5.5
    np.testing.assert_array_equal(t.asnumpy(), want)
    idx = np.array([[0, 4, 2]])
    t.scatter_(0, T(idx), T(np.array([[1.0, 2.0, 3.0]])))
    want[0, 0], want[4, 1], want[2, 2] = 1.0, 2.0, 3.0
    np.testing.assert_array_equal(t.asnumpy(), want)
    t.scatter_(0, T(idx), value=4.0)
    want[0, 0] = want[4, 1] = want[2, 2] = 4.0
    np.testing.assert_array_equal(t.asnumpy(), want)
    t.scatter_add_(0, T(idx), T(np.array([[1.0, 1.0, 1.0]])))
    want[0, 0] += 1
    want[4, 1] += 1
    want[2, 2] += 1
    np.testing.assert_array_equal(t.asnumpy(), want)
    sq = T(np.zeros((3, 3)))
    sq.fill_diagonal_(2.0)
    np.testing.assert_array_equal(sq.asnumpy(), 2 * np.eye(3))
    c = T(np.ones((2, 2)))
    c.addmm_(T(np.eye(2)), T(np.full((2, 2), 3.0)), beta=2, alpha=0.5)
    np.testing.assert_array_equal(c.asnumpy(), 2 + 0.5 * np.full((2, 2), 3.0))


def test_inplace_parameter_and_jit_error():
    p = ms.Parameter(T(np.zeros(3, np.float32)), name="p")
    p.add_(1.0)
    np.testing.assert_array_equal(p.asnumpy(), np.ones(3))

    @ms.jit
    def f(x):
        x.add_(1.0)
        return x

    with pytest.raises(RuntimeError, match=r"Tensor\.add_ changes the tensor in place"):
        f(T(np.zeros(3, np.float32)))


def test_random_fills_distribution():
    n = 40000
    t = T(np.zeros(n, np.float32))
    assert t.uniform_(-2.0, 3.0) is t
    u = t.asnumpy().copy()
    assert u.min() >= -2.0 and u.max() < 3.0 and abs(u.mean() - 0.5) < 0.05
    t.normal_(1.0, 2.0)
    z = t.asnumpy()
    assert abs(z.mean() - 1.0) < 0.05 and abs(z.std() - 2.0) < 0.05
    assert not np.array_equal(z, T(np.zeros(n, np.float32)).normal_(1.0, 2.0).asnumpy())
    t.exponential_(4.0)
    e = t.asnumpy()
    assert e.min() >= 0 and abs(e.mean() - 0.25) < 0.01
    t.bernoulli_(0.3)
    assert set(np.unique(t.asnumpy())) <= {0.0, 1.0} and abs(t.asnumpy().mean() - 0.3) < 0.02
    r = T(np.zeros(n, np.int32)).random_(3, 7).asnumpy()
    assert r.dtype == np.int32 and set(np.unique(r)) == {3, 4, 5, 6}
    c = T(np.zeros(n)).cauchy(1.0, 0.5).asnumpy()
    assert abs(np.median(c) - 1.0) < 0.03
    ln = T(np.zeros(n)).log_normal(0.5, 0.25).asnumpy()
    assert abs(np.log(ln).mean() - 0.5) < 0.01 and abs(np.log(ln).std() - 0.25) < 0.01
    uo = T(np.zeros(n)).uniform(0.0, 2.0).asnumpy()
    assert uo.min() >= 0 and uo.max() < 2 and abs(uo.mean() - 1.0) < 0.03
    probs = np.array([[0.1, 0.0, 0.9], [0.5, 0.5, 0.0]], np.float32)
    draws = T(probs).multinomial(4000, True).asnumpy()
    assert draws.shape == (2, 4000) and not (draws[0] == 1).any() and not (draws[1] == 2).any()
    assert abs((draws[0] == 2).mean() - 0.9) < 0.03 and abs((draws[1] == 0).mean() - 0.5) < 0.03
    with pytest.raises(ValueError, match="lambd must be > 0"):
        t.exponential_(0.0)
    with pytest.raises(ValueError, match="must be > from_"):
        T(np.zeros(3)).random_(5, 5)


def test_random_default_bounds():
    r = T(np.zeros(2000, np.float32)).random_(5).asnumpy()     # [5, 2^24]
    assert r.min() >= 5 and r.max() <= 2 ** 24 and r.max() > 2 ** 23
    i = T(np.zeros(2000, np.int32)).random_().asnumpy()
    assert i.min() >= 0 and i.max() > 2 ** 30
