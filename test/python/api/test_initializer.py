"""msmlir.common.initializer: names, fan rules, distributions' statistics, seeding."""
import math

import numpy as np
import pytest

import msmlir as ms
from msmlir import Parameter, Tensor
from msmlir.common.initializer import (Constant, Dirac, HeNormal, HeUniform, Identity,
                                       Initializer, Normal, One, Orthogonal, Sparse,
                                       TruncatedNormal, Uniform, VarianceScaling, XavierNormal,
                                       XavierUniform, Zero, _fans, initializer)

BIG = (256, 400)        # 102400 samples: std estimates within ~1%


def values(init, shape=BIG, dtype=ms.float32):
    t = initializer(init, shape, dtype)
    assert isinstance(t, Tensor) and t.shape == tuple(shape) and t.dtype == dtype
    return t.asnumpy().astype(np.float64)


@pytest.mark.parametrize("shape, fan_in, fan_out", [
    ((3, 5), 5, 3), ((16, 3, 5, 5), 75, 400), ((8, 4, 3), 12, 24), ((2, 3, 2, 2, 2), 24, 16),
])
def test_fan_rules(shape, fan_in, fan_out):
    assert _fans(shape) == (fan_in, fan_out)


def test_fan_needs_two_dims():
    for init in ("xavier_uniform", "he_uniform", "he_normal", XavierNormal()):
        with pytest.raises(ValueError, match="fewer than 2 dimensions"):
            initializer(init, [5], ms.float32)


def test_constant_initializers():
    assert np.all(values("zeros", (3, 4)) == 0)
    assert np.all(values("ones", (3, 4)) == 1)
    assert np.all(values(Zero(), (2,)) == 0) and np.all(values(One(), (2,)) == 1)
    assert np.all(values(Constant(3.5), (2, 2)) == 3.5)
    assert np.all(values(2, (2, 2)) == 2)                      # a number -> Constant
    t = initializer("ones", [2, 3], ms.int32)
    assert t.dtype == ms.int32 and t.asnumpy().sum() == 6
    assert initializer(Zero(), 4).shape == (4,)
    h = initializer("ones", (2,), ms.float16)
    assert h.dtype == ms.float16


def test_normal_and_uniform_statistics():
    v = values(Normal(sigma=0.2, mean=1.0))
    assert abs(v.mean() - 1.0) < 0.005 and abs(v.std() - 0.2) / 0.2 < 0.02
    v = values("normal")                                       # sigma 0.01
    assert abs(v.std() - 0.01) / 0.01 < 0.02 and abs(v.mean()) < 3e-4
    v = values(Uniform(scale=0.5))
    assert v.min() >= -0.5 and v.max() <= 0.5
    assert abs(v.std() - 0.5 / math.sqrt(3)) / (0.5 / math.sqrt(3)) < 0.02
    v = values("uniform")                                      # scale 0.07
    assert np.abs(v).max() <= 0.07 and np.abs(v).max() > 0.069


def test_truncated_normal():
    v = values(TruncatedNormal(sigma=0.1))
    assert np.abs(v).max() <= 0.2 + 1e-7                       # within 2 sigma
    # std of N(0, s^2) truncated to [-2s, 2s] is 0.8796 s
    assert abs(v.std() - 0.087962566) / 0.087962566 < 0.02
    v = values("truncatedNormal")
    assert np.abs(v).max() <= 0.02 + 1e-8
    v = values("TRUNCATEDNORMAL", (10, 10))
    v = values(TruncatedNormal(sigma=1.0, mean=3.0, a=-1.0, b=0.5))
    assert v.min() >= 2.0 - 1e-6 and v.max() <= 3.5 + 1e-6


def test_xavier():
    fi, fo = BIG[1], BIG[0]
    bound = math.sqrt(6.0 / (fi + fo))
    v = values("xavier_uniform")
    assert np.abs(v).max() <= bound and np.abs(v).max() > 0.99 * bound
    assert abs(v.std() - bound / math.sqrt(3)) / (bound / math.sqrt(3)) < 0.02
    v = values(XavierUniform(gain=2.0))
    assert np.abs(v).max() <= 2 * bound and np.abs(v).max() > 1.98 * bound
    shape = (32, 16, 3, 3)
    fi, fo = 16 * 9, 32 * 9
    v = values(XavierNormal(gain=1.5), shape)
    want = 1.5 * math.sqrt(2.0 / (fi + fo))
    assert abs(v.std() - want) / want < 0.03


@pytest.mark.parametrize("kwargs, gain", [
    ({}, math.sqrt(2.0)),                                         # leaky_relu, slope 0
    ({"negative_slope": 0.2}, math.sqrt(2.0 / (1 + 0.04))),
    ({"nonlinearity": "relu"}, math.sqrt(2.0)),
    ({"nonlinearity": "tanh"}, 5.0 / 3),
    ({"nonlinearity": "sigmoid"}, 1.0),
    ({"nonlinearity": "linear", "mode": "fan_out"}, 1.0),
])
def test_he_uniform(kwargs, gain):
    shape = (64, 32, 3, 3)
    fan = 32 * 9 if kwargs.get("mode", "fan_in") == "fan_in" else 64 * 9
    bound = gain * math.sqrt(3.0 / fan)
    v = values(HeUniform(**kwargs), shape)
    assert np.abs(v).max() <= bound + 1e-7 and np.abs(v).max() > 0.99 * bound
    assert abs(v.std() - bound / math.sqrt(3)) / (bound / math.sqrt(3)) < 0.03


def test_he_normal_and_names():
    shape = (128, 64, 2, 2)
    v = values("he_normal", shape)
    want = math.sqrt(2.0) / math.sqrt(64 * 4)
    assert abs(v.std() - want) / want < 0.02
    v = values(HeNormal(mode="fan_out", nonlinearity="relu"), shape)
    want = math.sqrt(2.0) / math.sqrt(128 * 4)
    assert abs(v.std() - want) / want < 0.02
    v = values("he_uniform", (300, 200))
    assert np.abs(v).max() <= math.sqrt(6.0 / 200)
    with pytest.raises(ValueError):
        initializer(HeUniform(mode="fan_avg"), (2, 2))
    with pytest.raises(ValueError):
        initializer(HeUniform(nonlinearity="swish"), (2, 2))


def test_other_initializers():
    np.testing.assert_array_equal(values(Identity(), (2, 3)), np.eye(2, 3))
    q = values(Orthogonal(), (6, 4))
    np.testing.assert_allclose(q.T @ q, np.eye(4), atol=1e-5)
    d = values(Dirac(), (4, 4, 3, 3))
    assert d.sum() == 4 and all(d[i, i, 1, 1] == 1 for i in range(4))
    s = values(Sparse(sparsity=0.5, sigma=0.1), (10, 7))
    assert all((s[:, c] == 0).sum() >= 5 for c in range(7))
    v = values(VarianceScaling(scale=2.0, mode="fan_avg", distribution="untruncated_normal"))
    want = math.sqrt(2.0 / ((BIG[0] + BIG[1]) / 2))
    assert abs(v.std() - want) / want < 0.02
    v = values(VarianceScaling(distribution="uniform"))
    assert np.abs(v).max() <= math.sqrt(3.0 / BIG[1])
    v = values("varianceScaling")            # truncated normal, std sqrt(1/fan_in)
    assert abs(v.std() - math.sqrt(1.0 / BIG[1])) / math.sqrt(1.0 / BIG[1]) < 0.03
    with pytest.raises(ValueError):
        VarianceScaling(scale=0)


def test_initializer_arguments():
    t = Tensor(np.ones((2, 3), np.float32))
    assert initializer(t, [2, 3]) is t
    with pytest.raises(ValueError):
        initializer(t, [3, 2])
    with pytest.raises(ValueError, match="was not found"):
        initializer("no_such_init", [2])
    with pytest.raises(TypeError):
        initializer([1, 2], [2])
    with pytest.raises(ValueError, match="positive integer"):
        initializer("zeros", [2, 0])
    with pytest.raises(ValueError):
        initializer("zeros", [-1])
    assert initializer("Normal", [2, 2]).shape == (2, 2)       # names are case-insensitive


def test_seeded_determinism():
    ms.set_seed(42)
    a = [values(n, (5, 7)) for n in ("normal", "xavier_uniform", "truncatedNormal", "he_normal")]
    ms.set_seed(42)
    b = [values(n, (5, 7)) for n in ("normal", "xavier_uniform", "truncatedNormal", "he_normal")]
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    assert not np.array_equal(a[0], values("normal", (5, 7)))   # the stream advances
    ms.set_seed(43)
    assert not np.array_equal(a[0], values("normal", (5, 7)))


def test_custom_initializer_and_tensor_init():
    class Ramp(Initializer):
        def _initialize(self, arr):
            arr[:] = np.arange(arr.size).reshape(arr.shape)

    np.testing.assert_array_equal(values(Ramp(), (2, 3)), np.arange(6).reshape(2, 3))
    t = Tensor(shape=(3, 3), dtype=ms.float32, init=Identity())
    np.testing.assert_array_equal(t.asnumpy(), np.eye(3))
    p = Parameter(initializer("normal", [4, 3], ms.float32), name="w")
    assert p.shape == (4, 3) and p.name == "w"
    assert ms.initializer is ms.common.initializer
