"""Parameter initializers (MindSpore 2.x `mindspore.common.initializer`).

`initializer(init, shape, dtype)` returns a Tensor filled by `init`: an
`Initializer` instance, the name of one ('normal', 'zeros', 'ones',
'xavier_uniform', 'xavier_normal', 'he_uniform', 'he_normal', 'uniform',
'truncatedNormal', 'identity', 'orthogonal', 'dirac', 'varianceScaling';
names are case-insensitive), a number (`Constant`) or a Tensor (returned as is
after a shape check).

Fan rules (MindSpore's): for a shape of rank >= 2, ``fan_in = shape[1] * rf``
and ``fan_out = shape[0] * rf`` with ``rf = prod(shape[2:])`` (1 for rank 2);
rank < 2 raises ValueError for the fan-based initializers.

* Normal(sigma=0.01, mean=0.0): N(mean, sigma^2)
* Uniform(scale=0.07): U(-scale, scale)
* TruncatedNormal(sigma=0.01, mean=0.0, a=-2.0, b=2.0): N(mean, sigma^2) redrawn
  until inside [mean + a*sigma, mean + b*sigma] (MindSpore: "within 2 standard deviations")
* XavierUniform(gain=1): U(-bound, bound), bound = gain * sqrt(6 / (fan_in + fan_out))
* XavierNormal(gain=1): N(0, sigma^2), sigma = gain * sqrt(2 / (fan_in + fan_out))
* HeUniform(negative_slope=0, mode='fan_in', nonlinearity='leaky_relu'):
  U(-bound, bound), bound = gain * sqrt(3 / fan_mode)
* HeNormal(negative_slope=0, mode='fan_in', nonlinearity='leaky_relu'):
  N(0, sigma^2), sigma = gain / sqrt(fan_mode)
  with gain = 1 (linear, conv*, sigmoid), 5/3 (tanh), sqrt(2) (relu),
  sqrt(2 / (1 + negative_slope^2)) (leaky_relu)
* Zero, One, Constant(value), Identity, Orthogonal(gain=1.), Dirac(groups=1),
  Sparse(sparsity, sigma=0.01), VarianceScaling(scale=1.0, mode='fan_in',
  distribution='truncated_normal')

Random initializers draw from the 'init' stream of `msmlir.set_seed`
(`msmlir.seed.generator`), so with a seed the n-th initialization of a
program is the same in every run. A custom initializer subclasses
`Initializer` and overrides `_initialize(self, arr)`, filling the numpy array
`arr` in place.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from .. import dtype as _dt
from ..seed import generator
from ..arraylike import host_tensor, is_host_tensor

__all__ = ["Initializer", "initializer", "TruncatedNormal", "Normal", "Uniform", "HeUniform",
           "HeNormal", "XavierUniform", "XavierNormal", "One", "Zero", "Constant", "Identity",
           "Sparse", "Dirac", "Orthogonal", "VarianceScaling"]

_ALIASES: dict = {}


def _rng() -> np.random.Generator:
    return generator("init")


def _register(*aliases):
    def deco(cls):
        for name in (cls.__name__.lower(),) + aliases:
            _ALIASES.setdefault(name, cls)
        return cls
    return deco


def _assign(arr: np.ndarray, value):
    arr[...] = value
    return arr


def _fans(shape):
    """(fan_in, fan_out) of a weight shape (MindSpore's rule)."""
    shape = tuple(shape)
    if len(shape) < 2:
        raise ValueError(f"'fan_in' and 'fan_out' can not be computed for tensor with fewer than "
                         f"2 dimensions, but got dimensions {len(shape)}.")
    rf = 1
    for d in shape[2:]:
        rf *= d
    return shape[1] * rf, shape[0] * rf


def _fan(shape, mode):
    if not isinstance(mode, str) or mode.lower() not in ("fan_in", "fan_out"):
        raise ValueError(f"'mode' {mode} not supported, please use one of ['fan_in', 'fan_out']")
    fan_in, fan_out = _fans(shape)
    return fan_in if mode.lower() == "fan_in" else fan_out


_LINEAR = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
           "conv_transpose3d", "sigmoid")


def _gain(nonlinearity, param=None) -> float:
    if nonlinearity in _LINEAR:
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif isinstance(param, (int, float)) and not isinstance(param, bool):
            slope = param
        else:
            raise ValueError(f"For 'HeUniform', 'negative_slope' {param!r} is not a valid number; "
                             f"with 'nonlinearity' 'leaky_relu' it must be an int or a float.")
        return math.sqrt(2.0 / (1 + slope ** 2))
    raise ValueError(f"For 'HeUniform', the argument 'nonlinearity' should be one of "
                     f"['sigmoid', 'tanh', 'relu' or 'leaky_relu'], but got {nonlinearity}.")


def _normal(mean, sigma, shape):
    if sigma < 0:
        raise ValueError(f"sigma must be non-negative, got {sigma}")
    return _rng().normal(mean, sigma, size=tuple(shape))


def _uniform(lo, hi, shape):
    return _rng().uniform(lo, hi, size=tuple(shape))


def _truncated_normal(mean, sigma, a, b, shape):
    """N(mean, sigma^2) conditioned on [mean + a*sigma, mean + b*sigma] (rejection)."""
    if sigma < 0:
        raise ValueError(f"sigma must be non-negative, got {sigma}")
    if not a < b:
        raise ValueError(f"TruncatedNormal: 'a' ({a}) must be less than 'b' ({b})")
    rng = _rng()
    out = rng.standard_normal(size=tuple(shape))
    bad = (out < a) | (out > b)
    for _ in range(1000):
        n = int(bad.sum())
        if n == 0:
            break
        out[bad] = rng.standard_normal(size=n)
        bad = (out < a) | (out > b)
    else:  # a far-out interval: fall back to clipping the remaining draws
        np.clip(out, a, b, out=out)
    return mean + sigma * out


class Initializer:
    """Base class: subclasses override `_initialize(arr)` to fill the numpy array `arr`."""

    def __init__(self, **kwargs):
        self._kwargs = kwargs
        self._seed = None

    @property
    def seed(self):
        return self._seed

    @seed.setter
    def seed(self, value):
        self._seed = value

    def _initialize(self, arr):
        raise NotImplementedError("Initializer subclasses must override _initialize(arr)")

    def __call__(self, arr):
        return self._initialize(arr)

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self._kwargs.items())
        return f"{type(self).__name__}({args})"


@_register("zeros")
class Zero(Initializer):
    """Fills with 0."""

    def _initialize(self, arr):
        arr.fill(0)


@_register("ones")
class One(Initializer):
    """Fills with 1."""

    def _initialize(self, arr):
        arr.fill(1)


class Constant(Initializer):
    """Fills with `value` (a number or an array broadcastable to the shape)."""

    def __init__(self, value):
        super().__init__(value=value)
        self.value = value

    def _initialize(self, arr):
        _assign(arr, np.asarray(self.value.asnumpy() if hasattr(self.value, "asnumpy")
                                else self.value))


@_register()
class Normal(Initializer):
    """N(mean, sigma^2)."""

    def __init__(self, sigma=0.01, mean=0.0):
        super().__init__(sigma=sigma, mean=mean)
        self.sigma = sigma
        self.mean = mean

    def _initialize(self, arr):
        _assign(arr, _normal(self.mean, self.sigma, arr.shape))


@_register()
class Uniform(Initializer):
    """U(-scale, scale)."""

    def __init__(self, scale=0.07):
        super().__init__(scale=scale)
        self.scale = scale

    def _initialize(self, arr):
        _assign(arr, _uniform(-self.scale, self.scale, arr.shape))


@_register()
class TruncatedNormal(Initializer):
    """N(mean, sigma^2) truncated to [mean + a*sigma, mean + b*sigma] (a=-2, b=2)."""

    def __init__(self, sigma=0.01, mean=0.0, a=-2.0, b=2.0):
        super().__init__(sigma=sigma, mean=mean, a=a, b=b)
        self.sigma = sigma
        self.mean = mean
        self.a = a
        self.b = b

    def _initialize(self, arr):
        _assign(arr, _truncated_normal(self.mean, self.sigma, self.a, self.b, arr.shape))


@_register("xavier_uniform")
class XavierUniform(Initializer):
    """U(-b, b), b = gain * sqrt(6 / (fan_in + fan_out))."""

    def __init__(self, gain=1):
        super().__init__(gain=gain)
        self.gain = gain

    def _initialize(self, arr):
        fan_in, fan_out = _fans(arr.shape)
        bound = self.gain * math.sqrt(6.0 / (fan_in + fan_out))
        _assign(arr, _uniform(-bound, bound, arr.shape))


@_register("xavier_normal")
class XavierNormal(Initializer):
    """N(0, s^2), s = gain * sqrt(2 / (fan_in + fan_out))."""

    def __init__(self, gain=1):
        super().__init__(gain=gain)
        self.gain = gain

    def _initialize(self, arr):
        fan_in, fan_out = _fans(arr.shape)
        _assign(arr, _normal(0.0, self.gain * math.sqrt(2.0 / (fan_in + fan_out)), arr.shape))


@_register("he_uniform")
class HeUniform(Initializer):
    """U(-b, b), b = gain(nonlinearity, negative_slope) * sqrt(3 / fan_mode)."""

    def __init__(self, negative_slope=0, mode="fan_in", nonlinearity="leaky_relu"):
        super().__init__(negative_slope=negative_slope, mode=mode, nonlinearity=nonlinearity)
        self.negative_slope = negative_slope
        self.mode = mode
        self.nonlinearity = nonlinearity

    def _initialize(self, arr):
        fan = _fan(arr.shape, self.mode)
        bound = math.sqrt(3.0) * _gain(self.nonlinearity, self.negative_slope) / math.sqrt(fan)
        _assign(arr, _uniform(-bound, bound, arr.shape))


@_register("he_normal")
class HeNormal(Initializer):
    """N(0, s^2), s = gain(nonlinearity, negative_slope) / sqrt(fan_mode)."""

    def __init__(self, negative_slope=0, mode="fan_in", nonlinearity="leaky_relu"):
        super().__init__(negative_slope=negative_slope, mode=mode, nonlinearity=nonlinearity)
        self.negative_slope = negative_slope
        self.mode = mode
        self.nonlinearity = nonlinearity

    def _initialize(self, arr):
        fan = _fan(arr.shape, self.mode)
        std = _gain(self.nonlinearity, self.negative_slope) / math.sqrt(fan)
        _assign(arr, _normal(0.0, std, arr.shape))


@_register()
class Identity(Initializer):
    """A 2-D identity matrix (ones on the main diagonal)."""

    def _initialize(self, arr):
        if arr.ndim != 2:
            raise ValueError(f"For Identity initializer, the dimension of the initialized tensor "
                             f"should be 2, but got {arr.ndim}.")
        _assign(arr, np.eye(arr.shape[0], arr.shape[1]))


@_register()
class Sparse(Initializer):
    """2-D: N(0, sigma^2) with ceil(sparsity * rows) zeros in each column."""

    def __init__(self, sparsity, sigma=0.01):
        super().__init__(sparsity=sparsity, sigma=sigma)
        self.sparsity = sparsity
        self.sigma = sigma

    def _initialize(self, arr):
        if arr.ndim != 2:
            raise ValueError(f"For Sparse initializer, the dimension of the initialized tensor "
                             f"should be 2, but got {arr.ndim}.")
        rows, cols = arr.shape
        zeros = int(np.ceil(self.sparsity * rows))
        data = _normal(0.0, self.sigma, arr.shape)
        rng = _rng()
        for c in range(cols):
            data[rng.permutation(rows)[:zeros], c] = 0.0
        _assign(arr, data)


@_register()
class Dirac(Initializer):
    """Dirac delta for 3/4/5-D convolution weights (identity-preserving), per group."""

    def __init__(self, groups=1):
        super().__init__(groups=groups)
        self.groups = groups

    def _initialize(self, arr):
        shape = arr.shape
        if len(shape) not in (3, 4, 5):
            raise ValueError(f"For Dirac initializer, only support to initialize tensor with "
                             f"dimension of 3, 4 or 5, but got {len(shape)}.")
        if shape[0] % self.groups != 0:
            raise ValueError(f"For Dirac initializer, the first dimension of the initialized "
                             f"tensor must be divisible by groups, but got first dimension "
                             f"{shape[0]}, groups {self.groups}.")
        data = np.zeros(shape)
        per = shape[0] // self.groups
        centre = tuple(s // 2 for s in shape[2:])
        for g in range(self.groups):
            for d in range(min(per, shape[1])):
                data[(g * per + d, d) + centre] = 1
        _assign(arr, data)


@_register()
class Orthogonal(Initializer):
    """A (semi-)orthogonal matrix (trailing dims flattened), times `gain`."""

    def __init__(self, gain=1.0):
        super().__init__(gain=gain)
        self.gain = gain

    def _initialize(self, arr):
        if arr.ndim < 2:
            raise ValueError(f"For Orthogonal initializer, the dimension of the initialized tensor "
                             f"should be no less than 2, but got {arr.ndim}.")
        rows = arr.shape[0]
        cols = int(np.prod(arr.shape)) // rows
        data = _normal(0.0, 1.0, (rows, cols))
        if rows < cols:
            data = data.T
        q, r = np.linalg.qr(data)
        q = q * np.sign(np.diag(r))
        if rows < cols:
            q = q.T
        _assign(arr, (q * self.gain).reshape(arr.shape))


@_register()
class VarianceScaling(Initializer):
    """std = sqrt(scale / n), n = fan_in, fan_out or their mean ('fan_avg');
    'truncated_normal' (std / 0.87962566103423978, truncated at 2 std),
    'untruncated_normal' or 'uniform' (limit sqrt(3 * scale / n))."""

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal"):
        super().__init__(scale=scale, mode=mode, distribution=distribution)
        if scale <= 0.0:
            raise ValueError(f"For VarianceScaling initializer, the argument 'scale' must be "
                             f"greater than 0, but got {scale}.")
        if mode not in ("fan_in", "fan_out", "fan_avg"):
            raise ValueError(f"For VarianceScaling initializer, the argument 'mode' must be "
                             f"fan_in, fan_out or fan_avg, but got {mode}.")
        if distribution not in ("uniform", "truncated_normal", "untruncated_normal"):
            raise ValueError(f"For VarianceScaling initializer, the argument 'distribution' must "
                             f"be uniform, truncated_normal or untruncated_normal, but got "
                             f"{distribution}.")
        self.scale = scale
        self.mode = mode
        self.distribution = distribution

    def _initialize(self, arr):
        fan_in, fan_out = _fans(arr.shape)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}[self.mode]
        scale = self.scale / max(1.0, n)
        if self.distribution == "truncated_normal":
            data = _truncated_normal(0.0, math.sqrt(scale) / 0.87962566103423978, -2.0, 2.0,
                                     arr.shape)
        elif self.distribution == "untruncated_normal":
            data = _normal(0.0, math.sqrt(scale), arr.shape)
        else:
            limit = math.sqrt(3.0 * scale)
            data = _uniform(-limit, limit, arr.shape)
        _assign(arr, data)


def _norm_shape(shape):
    if shape is None:
        return None
    if isinstance(shape, numbers.Integral) and not isinstance(shape, bool):
        shape = (int(shape),)
    elif isinstance(shape, (list, tuple)):
        shape = tuple(shape)
    else:
        raise TypeError(f"For 'initializer', the argument 'shape' must be an int, list or tuple, "
                        f"but got {type(shape).__name__}.")
    for v in shape:
        if isinstance(v, bool) or not isinstance(v, numbers.Integral) or v <= 0:
            raise ValueError(f"For 'initializer', the argument 'shape' is invalid, the value of "
                             f"'shape' must be positive integer, but got {shape}")
    return tuple(int(v) for v in shape)


def initializer(init, shape=None, dtype=_dt.float32):
    """A Tensor of `shape` and `dtype` filled by `init` (see the module docstring)."""
    if is_host_tensor(init):
        if shape is not None:
            want = (shape,) if isinstance(shape, numbers.Integral) else tuple(shape)
            if tuple(init.shape) != want:
                raise ValueError(f"For 'initializer', the shape of the 'init' argument should be "
                                 f"same as the argument 'shape', but got the 'init' shape "
                                 f"{list(init.shape)} and the 'shape' {list(want)}.")
        return init
    if isinstance(init, bool) or not isinstance(init, (numbers.Number, str, Initializer)):
        raise TypeError(f"For 'initializer', the type of the 'init' argument should be 'Tensor', "
                        f"'number', 'string' or 'initializer', but got {type(init)}.")
    shape = _norm_shape(shape)
    if shape is None:
        raise ValueError("For 'initializer', the argument 'shape' must be given")
    if isinstance(init, str):
        cls = _ALIASES.get(init.lower())
        if cls is None:
            raise ValueError(f"For 'initializer', the class corresponding to '{init}' was not "
                             f"found.")
        init = cls()
    elif isinstance(init, numbers.Number):
        init = Constant(init)
    np_dtype = _dt.get(dtype).to_numpy()
    arr = np.zeros(shape, dtype=np_dtype)
    with np.errstate(invalid="ignore", over="ignore"):
        out = init(arr)
    if isinstance(out, np.ndarray) and out is not arr and out.shape == arr.shape:
        arr[...] = out  # initializers that return their result instead of filling `arr`
    return host_tensor(arr)   # a Tensor (this module is below common/tensor.py, which uses it)
