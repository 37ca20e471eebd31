"""The integer bitwise ops (mindir.bitwise_*/left_shift/right_shift): ops.bitwise_*,
ops.invert, the Tensor operators & | ^ ~ << >>, the Primitives BitwiseAnd/Or/Xor,
LeftShift, RightShift, Invert and msmlir.numpy's, against numpy, compiled and in
PyNative, on int8/int32/int64 with numpy's results for out-of-range shifts; bools
use the logical ops; floats are refused."""
import numpy as np
import pytest

import msmlir as ms
import msmlir.numpy as mnp
from msmlir import ops
from msmlir.ops import operations as P

RNG = np.random.default_rng(4)
DTYPES = [np.int8, np.int32, np.int64]


def _ints(dt, shape):
    info = np.iinfo(dt)
    return RNG.integers(info.min, info.max, shape, dtype=dt, endpoint=True)


def _shifts(dt, shape):
    bits = np.iinfo(dt).bits
    s = RNG.integers(-3, bits + 3, shape).astype(dt)            # incl. < 0 and >= width
    s.flat[:4] = [0, bits - 1, bits, -1][:s.size]
    return s


BINARY = [(ops.bitwise_and, np.bitwise_and), (ops.bitwise_or, np.bitwise_or),
          (ops.bitwise_xor, np.bitwise_xor)]


def _np_shift(fn, x, s):
    """numpy's shift with its results for shifts outside [0, bits) spelled out."""
    bits = np.iinfo(x.dtype).bits
    ok = (s >= 0) & (s < bits)
    out = fn(x, np.where(ok, s, 0).astype(x.dtype))
    fill = np.zeros_like(x) if fn is np.left_shift else np.where(x < 0, -1, 0).astype(x.dtype)
    return np.where(ok, out, fill)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("compiled", [False, True])
def test_against_numpy(dt, compiled):
    x, y = _ints(dt, (3, 5)), _ints(dt, (5,))
    s = _shifts(dt, (3, 5))
    wrap = ms.jit if compiled else (lambda f: f)
    for op, ref in BINARY:
        np.testing.assert_array_equal(wrap(lambda a, b: op(a, b))(ms.Tensor(x), ms.Tensor(y))
                                      .asnumpy(), ref(x, y))
    np.testing.assert_array_equal(wrap(lambda a: ops.invert(a))(ms.Tensor(x)).asnumpy(), ~x)
    np.testing.assert_array_equal(
        wrap(lambda a, b: ops.bitwise_left_shift(a, b))(ms.Tensor(x), ms.Tensor(s)).asnumpy(),
        _np_shift(np.left_shift, x, s))
    np.testing.assert_array_equal(
        wrap(lambda a, b: ops.bitwise_right_shift(a, b))(ms.Tensor(x), ms.Tensor(s)).asnumpy(),
        _np_shift(np.right_shift, x, s))


def test_numpy_module_matches_numpy_in_range():
    x = _ints(np.int32, (6,))
    s = RNG.integers(0, 32, 6).astype(np.int32)
    for name in ("bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift"):
        np.testing.assert_array_equal(np.asarray(getattr(mnp, name)(x, s)),
                                      getattr(np, name)(x, s), err_msg=name)
    np.testing.assert_array_equal(np.asarray(mnp.invert(x)), np.invert(x))
    np.testing.assert_array_equal(mnp.bitwise_not(ms.Tensor(x)).asnumpy(), np.bitwise_not(x))


def test_tensor_operators_methods_and_primitives():
    a = np.array([5, -3, 8, 0], np.int32)
    b = np.array([1, 2, 3, 31], np.int32)
    ta, tb = ms.Tensor(a), ms.Tensor(b)

    @ms.jit
    def f(x, y):
        return (x & y) | (x ^ 6), ~x, x << y, x >> 1, 3 & x, 1 << y

    got = [t.asnumpy() for t in f(ta, tb)]
    for g, r in zip(got, [(a & b) | (a ^ 6), ~a, a << b, a >> 1, 3 & a, 1 << b]):
        np.testing.assert_array_equal(g, r)
    np.testing.assert_array_equal((ta & tb).asnumpy(), a & b)
    np.testing.assert_array_equal(ta.bitwise_xor(tb).asnumpy(), a ^ b)
    np.testing.assert_array_equal(ta.invert().asnumpy(), ~a)
    np.testing.assert_array_equal(ta.bitwise_right_shift(tb).asnumpy(), a >> b)
    for prim, ref in ((P.BitwiseAnd(), a & b), (P.BitwiseOr(), a | b), (P.BitwiseXor(), a ^ b),
                      (P.LeftShift(), a << b), (P.RightShift(), a >> b)):
        np.testing.assert_array_equal(prim(ta, tb).asnumpy(), ref)
    np.testing.assert_array_equal(P.Invert()(ta).asnumpy(), ~a)


def test_bools_use_logical_ops():
    p = np.array([True, True, False, False])
    q = np.array([True, False, True, False])
    tp, tq = ms.Tensor(p), ms.Tensor(q)
    np.testing.assert_array_equal((tp & tq).asnumpy(), p & q)
    np.testing.assert_array_equal(ops.bitwise_or(tp, tq).asnumpy(), p | q)
    np.testing.assert_array_equal(ops.bitwise_xor(tp, tq).asnumpy(), p ^ q)
    np.testing.assert_array_equal((~tp).asnumpy(), ~p)
    assert ops.bitwise_and(tp, tq).dtype == ms.bool_


def test_vmap_and_grad_through_integer_bitwise():
    f = ms.vmap(lambda a, b: ops.bitwise_left_shift(a, b))
    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    np.testing.assert_array_equal(np.asarray(f(x, np.ones((2, 3), np.int32))), x << 1)
    g = ms.grad(lambda v, k: (v * ops.cast(ops.bitwise_and(k, 1), ms.float32)).sum())
    np.testing.assert_array_equal(np.asarray(g(np.ones(3, np.float32),
                                               np.array([1, 2, 3], np.int32))), [1, 0, 1])


def test_errors():
    x = ms.Tensor(np.ones(3, np.float32))
    with pytest.raises(TypeError, match="integer or bool tensors, got float32"):
        ops.bitwise_and(x, x)
    with pytest.raises(TypeError, match="integer tensors, got bool"):
        ops.bitwise_left_shift(ms.Tensor(np.ones(2, bool)), ms.Tensor(np.ones(2, bool)))
    with pytest.raises(TypeError, match="operator ~ needs a bool or integer tensor"):
        ~x

    def f(a):
        return ops.invert(a)

    with pytest.raises(ms.CompileError, match="integer or bool tensor, got float32") as e:
        ms.jit(f)(x)
    assert e.value.filename == __file__ and e.value.lineno == f.__code__.co_firstlineno + 1
