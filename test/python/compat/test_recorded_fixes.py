"""Behaviours changed to MindSpore 2.10's after replaying its recorded values
(test_mindspore_values.py): checked here against numpy, with the errors the new
arguments can raise."""
import numpy as np
import pytest

import msmlir as ms
from msmlir import ops
from msmlir import numpy as mnp
from msmlir.ops import operations as P


def test_squeeze_keeps_named_non_unit_dims():
    x = ms.Tensor(np.zeros((2, 1, 3), np.float32))
    assert ops.squeeze(x, (0, 1)).shape == (2, 3)       # dim 0 (size 2) stays
    assert P.Squeeze(0)(x).shape == (2, 1, 3)


def test_one_hot_dtype_follows_on_value():
    idx = ms.Tensor(np.array([1, 0, 2], np.int32))
    assert ops.one_hot(idx, 3).dtype == ms.int64                 # Python int 1
    assert ops.one_hot(idx, 3, 1.0, 0.0).dtype == ms.float32
    np.testing.assert_array_equal(ops.one_hot(idx, 3).asnumpy(),
                                  np.eye(3, dtype=np.int64)[[1, 0, 2]])


def test_unique_order():
    x = ms.Tensor(np.array([3, 1, 3, 2, 1], np.int32))
    y, idx = ops.unique(x)                         # MindSpore 2.10 CPU: first occurrence
    np.testing.assert_array_equal(y.asnumpy(), [3, 1, 2])
    np.testing.assert_array_equal(idx.asnumpy(), [0, 1, 0, 2, 1])
    np.testing.assert_array_equal(y.asnumpy()[idx.asnumpy()], x.asnumpy())
    np.testing.assert_array_equal(x.unique()[0].asnumpy(), [1, 2, 3])    # sorted
    np.testing.assert_array_equal(mnp.unique(x).asnumpy(), [1, 2, 3])


def _avg_ref(x, k, s, p, count_pad):
    n, c, h, w = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    ones = np.pad(np.ones((h, w)), p)
    oh, ow = (h + 2 * p - k) // s + 1, (w + 2 * p - k) // s + 1
    out = np.zeros((n, c, oh, ow), np.float32)
    for i in range(oh):
        for j in range(ow):
            win = xp[:, :, i * s:i * s + k, j * s:j * s + k].sum((2, 3))
            cnt = k * k if count_pad else ones[i * s:i * s + k, j * s:j * s + k].sum()
            out[:, :, i, j] = win / cnt
    return out


@pytest.mark.parametrize("count_pad", [True, False])
def test_avg_pool2d_count_include_pad(count_pad):
    x = np.random.default_rng(0).standard_normal((2, 3, 7, 7)).astype(np.float32)
    got = ops.avg_pool2d(ms.Tensor(x), 3, 2, 1, count_include_pad=count_pad).asnumpy()
    np.testing.assert_allclose(got, _avg_ref(x, 3, 2, 1, count_pad), rtol=1e-5, atol=1e-6)


def test_avg_pool2d_divisor_override_and_errors():
    x = np.random.default_rng(1).standard_normal((1, 2, 4, 4)).astype(np.float32)
    got = ops.avg_pool2d(ms.Tensor(x), 2, 2, 0, divisor_override=3).asnumpy()
    want = x.reshape(1, 2, 2, 2, 2, 2).sum((3, 5)) / 3
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="window_pool2d"):
        ops.avg_pool2d(ms.Tensor(x), 2, 2, 0, ceil_mode=True)


def test_new_functional_ops_against_numpy():
    rng = np.random.default_rng(2)
    a = rng.standard_normal((3, 4)).astype(np.float32)
    b = rng.standard_normal((3, 4)).astype(np.float32)
    t = ms.Tensor(a)
    np.testing.assert_allclose(ops.triu(t, 1).asnumpy(), np.triu(a, 1))
    np.testing.assert_allclose(ops.tril(t, -1).asnumpy(), np.tril(a, -1))
    np.testing.assert_allclose(ops.elu(t, 0.5).asnumpy(), np.where(a > 0, a, 0.5 * np.expm1(a)),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ops.l1_loss(t, ms.Tensor(b), "sum").asnumpy(),
                               np.abs(a - b).sum(), rtol=1e-5)
    cos = (a * b).sum(1) / np.sqrt((a * a).sum(1) * (b * b).sum(1))
    np.testing.assert_allclose(ops.cosine_similarity(t, ms.Tensor(b)).asnumpy(), cos, rtol=1e-5)
    np.testing.assert_allclose(ops.cumprod(t, 1).asnumpy(), np.cumprod(a, 1), rtol=1e-5)
    assert ops.cumprod(ms.Tensor(np.arange(1, 5, dtype=np.int32)), 0).dtype == ms.int64
    with pytest.raises(ValueError, match="reduction"):
        ops.l1_loss(t, ms.Tensor(b), "avg")


def test_arg_with_value_index_is_int64():
    x = ms.Tensor(np.array([[1.0, 5.0, 2.0], [7.0, 0.0, 3.0]], np.float32))
    idx, val = P.ArgMaxWithValue(axis=1)(x)
    assert idx.dtype == ms.int64
    np.testing.assert_array_equal(idx.asnumpy(), [1, 0])
    np.testing.assert_array_equal(val.asnumpy(), [5.0, 7.0])
    assert P.ArgMinWithValue(axis=0)(x)[0].dtype == ms.int64
