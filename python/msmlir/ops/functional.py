"""`mindspore.ops.functional` (`F`): the functional ops (msmlir.ops) plus the
instances and aliases MindSpore keeps in this module (`F.tensor_add`,
`F.shape`, `F.dtype`, `F.partial`, `F.make_range`, `F.hyper_add`...)."""
from __future__ import annotations

from .composite import HyperMap as _HyperMap   # (first: it loads autodiff, whose names
from .. import ops as _ops                        # grad & co. join msmlir.ops)
from ..ops import *  # noqa: F401,F403
from .operations import CLASSES as _P

_ALIASES = {
    "tensor_add": "add", "tensor_sub": "sub", "tensor_mul": "mul", "tensor_div": "div",
    "tensor_pow": "pow", "tensor_mod": "floor_mod", "tensor_floordiv": "floor_div",
    "neg_tensor": "neg", "tensor_lt": "less", "tensor_le": "less_equal", "tensor_gt": "greater",
    "tensor_ge": "greater_equal", "tensor_eq": "equal", "tensor_ne": "not_equal",
    "bool_and": "logical_and", "bool_or": "logical_or", "bool_not": "logical_not",
    "scalar_to_array": "scalar_to_tensor", "reduce_all": "all", "reduce_any": "any",
    "gather_d": "gather_elements", "gather_nd": "gather_nd", "fill": "fill",
    "sort": "sort", "tile": "tile", "reshape": "reshape", "transpose": "transpose",
    "cast": "cast", "dtype": "dtype", "shape": "shape", "rank": "rank", "size": "size",
    "select": "select", "stop_gradient": "stop_gradient", "depend": "depend",
    "assign": "assign", "zeros_like": "zeros_like", "ones_like": "ones_like",
    "square": "square", "sqrt": "sqrt", "exp": "exp", "log": "log",
}
for _name, _target in _ALIASES.items():
    globals()[_name] = getattr(_ops, _target)

identity = _P["Identity"]()
scalar_cast = _P["ScalarCast"]()
tensor_scatter_update = _ops.tensor_scatter_update
hyper_map = _HyperMap()


def hyper_add(x, y):
    """x + y elementwise over (nested) tuples of tensors."""
    return _HyperMap(_ops.add)(x, y)


def isconstant(x):
    """Whether x is known at compile time (not a tensor)."""
    return not _ops.is_tensor(x)


def tuple_len(x):
    return len(x)


def make_tuple(*args):
    return tuple(args)


def tuple_getitem(x, i):
    return x[i]


list_getitem = tuple_getitem


# ---------------------------------------------------------------------------
# Functional ops of MindSpore's `ops` composed here from msmlir.ops and
# msmlir.numpy (a higher layer than msmlir.ops, which finds them through
# providers.py: `ops.acos` is this module's acos). Each runs as one cached kernel
# in PyNative mode (`primitive`) and builds IR inside jit.
# ---------------------------------------------------------------------------

import builtins as _builtins  # noqa: E402
import numbers as _numbers  # noqa: E402

import numpy as _np  # noqa: E402

from .. import dtype as _dt  # noqa: E402
from .. import numpy as _mnp  # noqa: E402
from ..frontend import builder as _b  # noqa: E402
from ._base import const as _const, primitive as _primitive, to_tensor as _t  # noqa: E402
from .composite import normal, sequence_mask  # noqa: E402,F401

acos = _primitive(lambda input: _mnp.arccos(input))
acosh = _primitive(lambda input: _mnp.arccosh(input))
asin = _primitive(lambda input: _mnp.arcsin(input))
asinh = _primitive(lambda input: _mnp.arcsinh(input))
atan = _primitive(lambda input: _mnp.arctan(input))
atanh = _primitive(lambda input: _mnp.arctanh(input))
atan2 = _primitive(lambda input, other: _mnp.arctan2(input, other))
cosh = _primitive(lambda input: _mnp.cosh(input))
sinh = _primitive(lambda input: _mnp.sinh(input))
tan = _primitive(lambda input: _mnp.tan(input))
for _n, _f in (("acos", acos), ("acosh", acosh), ("asin", asin), ("asinh", asinh),
               ("atan", atan), ("atanh", atanh), ("atan2", atan2), ("cosh", cosh),
               ("sinh", sinh), ("tan", tan)):
    _f.__name__ = _f.__qualname__ = _n
    _f.__doc__ = f"ops.{_n} (elementwise; float32 for integer inputs)."
arccos, arcsin, arctan, arctan2 = acos, asin, atan, atan2
accumulate_n = addn           # noqa: F405
inv = reciprocal              # noqa: F405
top_k = topk                  # noqa: F405
scalar_to_array = scalar_to_tensor   # noqa: F405
fills = full_like             # noqa: F405
expand = broadcast_to         # noqa: F405


@_primitive
def lerp(input, end, weight):
    """input + weight * (end - input) (ops.lerp)."""
    return add(input, mul(weight, sub(end, input)))   # noqa: F405


@_primitive
def logit(input, eps=None):
    """log(x / (1 - x)), x clamped to [eps, 1 - eps] when eps is given (ops.logit)."""
    x = _t(input)
    if eps is not None:
        x = clamp(x, eps, 1.0 - eps)   # noqa: F405
    return log(div(x, sub(1.0, x)))   # noqa: F405


@_primitive
def xlogy(input, other):
    """input * log(other), 0 where input == 0 (ops.xlogy)."""
    x, y = _t(input), _t(other)
    prod_ = mul(x, log(y))   # noqa: F405
    return select(equal(x, 0), zeros_like(prod_), prod_)   # noqa: F405


@_primitive
def xdivy(x, y):
    """x / y, 0 where x == 0 (ops.xdivy)."""
    q = div(x, y)   # noqa: F405
    return select(equal(x, 0), zeros_like(q), q)   # noqa: F405


@_primitive
def truncate_div(input_x, input_y):
    """Division rounded toward zero (ops.truncate_div)."""
    return div(input_x, input_y, rounding_mode="trunc")   # noqa: F405


@_primitive
def truncate_mod(x, y):
    """x - truncate_div(x, y) * y: the sign of x, as C's fmod (ops.truncate_mod)."""
    return sub(x, mul(div(x, y, rounding_mode="trunc"), y))   # noqa: F405


@_primitive
def approximate_equal(x, y, tolerance=1e-5):
    """|x - y| < tolerance (ops.approximate_equal)."""
    return less(abs(sub(x, y)), tolerance)   # noqa: F405


isclose = _primitive(lambda input, other, rtol=1e-05, atol=1e-08, equal_nan=False:
                     _mnp.isclose(input, other, rtol, atol, equal_nan))
isclose.__name__ = "isclose"


@_primitive
def std(input, axis=None, ddof=0, keepdims=False):
    """Standard deviation over `axis` with `ddof` (ops.std, MindSpore 2.x)."""
    return _mnp.std(input, axis, ddof, keepdims)


@_primitive
def var(input, axis=None, ddof=0, keepdims=False):
    """Variance over `axis` with `ddof` (ops.var)."""
    return _mnp.var(input, axis, ddof, keepdims)


@_primitive
def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    """Vector/matrix norm (ops.norm): ord None/'fro' (2-norm of the elements over
    `dim`, all by default), a number p (sum |x|^p)^(1/p) or +-inf (max/min |x|)
    over `dim`; other matrix norms are not supported."""
    x = _t(A)
    if not x.dtype.is_float:
        x = cast(x, _dt.float32)   # noqa: F405
    if dtype is not None:
        x = cast(x, dtype)   # noqa: F405
    axes = () if dim is None else dim
    if ord is None or ord == "fro" or ord == 2:
        return sqrt(reduce_sum(square(x), axes, keepdim))   # noqa: F405
    if ord == float("inf"):
        return reduce_max(abs(x), axes, keepdim)   # noqa: F405
    if ord == float("-inf"):
        return reduce_min(abs(x), axes, keepdim)   # noqa: F405
    if isinstance(ord, _numbers.Real) and not isinstance(ord, bool) and ord > 0:
        return pow(reduce_sum(pow(abs(x), float(ord)), axes, keepdim), 1.0 / ord)  # noqa: F405
    _b.error(f"norm: ord={ord!r} is not supported (None, 'fro', p > 0, inf, -inf)",
             kind=ValueError)


@_primitive
def dot(input, other):
    """numpy-style dot product (ops.dot)."""
    return _mnp.dot(input, other)


@_primitive
def tensor_dot(x1, x2, axes):
    """Contraction over `axes` (ops.tensor_dot, numpy's tensordot)."""
    return _mnp.tensordot(x1, x2, axes)


@_primitive
def ger(input, vec2):
    """Outer product of two vectors (ops.ger)."""
    return _mnp.outer(input, vec2)


@_primitive
def narrow(input, axis, start, length):
    """The `length` elements from `start` along `axis` (ops.narrow)."""
    x = _t(input)
    a = axis + x.ndim if axis < 0 else axis
    begin = [0] * x.ndim
    size = list(x.shape)
    begin[a], size[a] = start, length
    return slice(x, tuple(begin), tuple(size))   # noqa: F405


@_primitive
def count_nonzero(x, axis=(), keep_dims=False, dtype=_dt.int32):
    """The number of non-zero elements over `axis` (ops.count_nonzero)."""
    ax = None if axis == () else axis
    return cast(_mnp.count_nonzero(x, ax, keep_dims), dtype)   # noqa: F405


@_primitive
def diag(input):
    """A diagonal matrix from a vector (ops.diag)."""
    return _mnp.diag(input)


@_primitive
def repeat_elements(x, rep, axis=0):
    """Each element repeated `rep` times along `axis` (ops.repeat_elements)."""
    return _mnp.repeat(x, rep, axis)


def meshgrid(*inputs, indexing="xy"):
    """Coordinate matrices (ops.meshgrid); a tuple argument is unpacked."""
    if len(inputs) == 1 and isinstance(inputs[0], (tuple, list)):
        inputs = tuple(inputs[0])
    return tuple(_mnp.meshgrid(*inputs, indexing=indexing))


def range(start, end, step):   # noqa: A001 - MindSpore's name
    """ops.range: [start, end) by step (Python numbers)."""
    return arange(start, end, step)   # noqa: F405


def dyn_shape(input_x):
    """The shape as a 1-D int64 tensor (ops.dyn_shape)."""
    return tuple_to_array(shape(input_x)) if shape(input_x) else zeros((0,), _dt.int64)  # noqa


@_primitive
def inplace_update(x, v, indices):
    """x with rows `indices` (axis 0) replaced by v (ops.inplace_update)."""
    idx = _t(indices if not isinstance(indices, int) else (indices,), _dt.int32)
    return tensor_scatter_update(x, reshape(idx, (-1, 1)), v)   # noqa: F405


@_primitive
def inplace_add(x, v, indices):
    """x with v added to rows `indices` (ops.inplace_add)."""
    xt = _t(x)
    idx = _t(indices if not isinstance(indices, int) else (indices,), _dt.int32)
    vt = _t(v)
    if vt.ndim < xt.ndim:
        vt = expand_dims(vt, 0)   # noqa: F405
    return add(xt, scatter_nd(reshape(idx, (-1, 1)), vt, xt.shape))   # noqa: F405


@_primitive
def inplace_sub(x, v, indices):
    """x with v subtracted from rows `indices` (ops.inplace_sub)."""
    return inplace_add(x, neg(v), indices)   # noqa: F405


@_primitive
def matrix_band_part(x, lower, upper):
    """Zeroes everything outside the band [-lower, upper] of the last two dims
    (negative: keep the whole triangle) (ops.matrix_band_part)."""
    t = _t(x)
    m, n = t.shape[-2:]
    i = _np.arange(m)[:, None]
    j = _np.arange(n)[None, :]
    keep = _np.ones((m, n), bool)
    if lower >= 0:
        keep &= (i - j) <= lower
    if upper >= 0:
        keep &= (j - i) <= upper
    return select(_const(keep), t, zeros_like(t))   # noqa: F405


# ---- activations / losses ------------------------------------------------------------

@_primitive
def celu(x, alpha=1.0):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1)) (ops.celu)."""
    return add(maximum(x, 0.0), minimum(mul(alpha, expm1(div(x, alpha))), 0.0))  # noqa: F405


@_primitive
def selu(input_x):
    """scale * (max(0, x) + min(0, alpha * (exp(x) - 1))) (ops.selu)."""
    alpha, scale = 1.67326324, 1.05070098
    return mul(scale, add(maximum(input_x, 0.0), minimum(mul(alpha, expm1(input_x)), 0.0)))  # noqa


@_primitive
def fast_gelu(x):
    """x * sigmoid(1.702 x) (ops.fast_gelu)."""
    return mul(x, sigmoid(mul(1.702, x)))   # noqa: F405


@_primitive
def hardswish(x):
    """x * relu6(x + 3) / 6 (ops.hardswish)."""
    return mul(x, div(relu6(add(x, 3.0)), 6.0))   # noqa: F405


@_primitive
def hardsigmoid(input):
    """relu6(x + 3) / 6 (ops.hardsigmoid)."""
    return div(relu6(add(input, 3.0)), 6.0)   # noqa: F405


@_primitive
def hardshrink(x, lambd=0.5):
    """x where |x| > lambd, else 0 (ops.hardshrink)."""
    t = _t(x)
    return select(greater(abs(t), lambd), t, zeros_like(t))   # noqa: F405


@_primitive
def soft_shrink(x, lambd=0.5):
    """x - lambd * sign(x) where |x| > lambd, else 0 (ops.soft_shrink)."""
    t = _t(x)
    return select(greater(abs(t), lambd), sub(t, mul(sign(t), lambd)), zeros_like(t))  # noqa


softshrink = soft_shrink


@_primitive
def mish(x):
    """x * tanh(softplus(x)) (ops.mish)."""
    return mul(x, tanh(softplus(x)))   # noqa: F405


@_primitive
def softsign(x):
    """x / (1 + |x|) (ops.softsign)."""
    return div(x, add(abs(x), 1.0))   # noqa: F405


@_primitive
def prelu(x, weight):
    """max(0, x) + weight * min(0, x), weight per channel (dim 1) (ops.prelu)."""
    t = _t(x)
    w = _t(weight)
    if t.ndim >= 2 and w.ndim == 1 and w.shape[0] == t.shape[1]:
        w = reshape(w, (1, w.shape[0]) + (1,) * (t.ndim - 2))   # noqa: F405
    return add(maximum(t, 0.0), mul(w, minimum(t, 0.0)))   # noqa: F405


@_primitive
def kl_div(logits, labels, reduction="mean"):
    """labels * (log(labels) - logits), 0 where labels == 0 (ops.kl_div);
    reduction 'none' / 'sum' / 'mean' (over elements) / 'batchmean' (sum / N)."""
    y = _t(labels)
    loss = sub(xlogy(y, y), mul(y, logits))   # noqa: F405
    if reduction == "none":
        return loss
    if reduction == "sum":
        return reduce_sum(loss)   # noqa: F405
    if reduction == "mean":
        return reduce_mean(loss)   # noqa: F405
    if reduction == "batchmean":
        return div(reduce_sum(loss), float(_t(loss).shape[0]))   # noqa: F405
    _b.error(f"kl_div: reduction must be 'none', 'sum', 'mean' or 'batchmean', got "
             f"{reduction!r}")


@_primitive
def cdist(x1, x2, p=2.0):
    """p-norm distances between the rows of x1 [B?, P, M] and x2 [B?, R, M] (ops.cdist)."""
    a, b = _t(x1), _t(x2)
    d = abs(sub(expand_dims(a, -2), expand_dims(b, -3)))   # noqa: F405
    if p == 2.0:
        return sqrt(reduce_sum(square(d), -1))   # noqa: F405
    if p == float("inf"):
        return reduce_max(d, -1)   # noqa: F405
    if p <= 0:
        _b.error(f"cdist: p must be > 0, got {p}")
    return pow(reduce_sum(pow(d, float(p)), -1), 1.0 / p)   # noqa: F405


def _adaptive_matrix(n_in, n_out):
    """[n_out, n_in] averaging matrix of adaptive pooling's windows
    [floor(i * n_in / n_out), ceil((i + 1) * n_in / n_out))."""
    m = _np.zeros((n_out, n_in))
    for i in _builtins.range(n_out):
        s = (i * n_in) // n_out
        e = -((-(i + 1) * n_in) // n_out)
        m[i, s:e] = 1.0 / (e - s)
    return m


@_primitive
def adaptive_avg_pool2d(input, output_size):
    """Adaptive average pooling of the last two dims to `output_size` (ops.adaptive_avg_pool2d;
    None in output_size keeps that dim)."""
    x = _t(input)
    if not x.dtype.is_float:
        x = cast(x, _dt.float32)   # noqa: F405
    h, w = x.shape[-2:]
    if isinstance(output_size, int):
        output_size = (output_size, output_size)
    oh = h if output_size[0] is None else output_size[0]
    ow = w if output_size[1] is None else output_size[1]
    ah = _const(_adaptive_matrix(h, oh), x.dtype)
    aw = _const(_adaptive_matrix(w, ow).T, x.dtype)
    return matmul(matmul(ah, x), aw)   # noqa: F405


@_primitive
def adaptive_avg_pool1d(input, output_size):
    """Adaptive average pooling of the last dim to `output_size` (ops.adaptive_avg_pool1d)."""
    x = _t(input)
    if not x.dtype.is_float:
        x = cast(x, _dt.float32)   # noqa: F405
    return matmul(x, _const(_adaptive_matrix(x.shape[-1], output_size).T, x.dtype))  # noqa


@_primitive
def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None):
    """Resize of an NCHW tensor (ops.interpolate): mode 'nearest' (source
    floor(i * in / out)) or 'bilinear' (half-pixel centres; align_corners=True:
    corner-aligned), by `size` or `scale_factor`."""
    x = _t(input)
    if x.ndim != 4:
        _b.error(f"interpolate: only 4-D (NCHW) inputs are supported, got rank {x.ndim}")
    if (size is None) == (scale_factor is None):
        _b.error("interpolate: exactly one of size and scale_factor must be given")
    if size is None:
        sf = scale_factor if isinstance(scale_factor, (tuple, list)) else (scale_factor,) * 2
        size = (int(_np.floor(x.shape[2] * sf[0])), int(_np.floor(x.shape[3] * sf[1])))
    elif isinstance(size, int):
        size = (size, size)
    if mode == "nearest":
        if align_corners:
            _b.error("interpolate: align_corners is only for the linear modes")
        return resize_nearest_neighbor(x, size)   # noqa: F405
    if mode == "bilinear":
        return resize_bilinear(x, size, bool(align_corners), not align_corners)  # noqa: F405
    _b.error(f"interpolate: mode {mode!r} is not supported ('nearest', 'bilinear')",
             kind=ValueError)


def assign_add(variable, value):
    """variable += value (ops.assign_add)."""
    return assign(variable, add(variable, value))   # noqa: F405


def assign_sub(variable, value):
    """variable -= value (ops.assign_sub)."""
    return assign(variable, sub(variable, value))   # noqa: F405


print_ = _P["Print"]()


@_primitive
def erfc(input):
    """1 - erf(input) (ops.erfc)."""
    return sub(1.0, erf(input))   # noqa: F405


@_primitive
def tensor_scatter_add(input_x, indices, updates):
    """input_x with updates added at the index tuples (ops.tensor_scatter_add)."""
    return add(input_x, scatter_nd(indices, updates, shape(input_x)))   # noqa: F405


@_primitive
def tensor_scatter_sub(input_x, indices, updates):
    """input_x with updates subtracted at the index tuples (ops.tensor_scatter_sub)."""
    return sub(input_x, scatter_nd(indices, updates, shape(input_x)))   # noqa: F405


def _rows(var, indices):
    return expand_dims(_t(indices, None if hasattr(indices, "dtype") else _dt.int32), -1)  # noqa


@_primitive
def scatter_nd_add(input_x, indices, updates, use_locking=False):
    """input_x (a Parameter) += scatter_nd(indices, updates) (ops.scatter_nd_add)."""
    return assign(input_x, tensor_scatter_add(input_x, indices, updates))   # noqa: F405


@_primitive
def scatter_nd_sub(input_x, indices, updates, use_locking=False):
    """input_x (a Parameter) -= scatter_nd(indices, updates) (ops.scatter_nd_sub)."""
    return assign(input_x, tensor_scatter_sub(input_x, indices, updates))   # noqa: F405


@_primitive
def scatter_add(input_x, indices, updates):
    """Rows `indices` (axis 0) of the Parameter input_x += updates (ops.scatter_add)."""
    return assign(input_x, add(input_x, scatter_nd(_rows(input_x, indices), updates,  # noqa
                                                   shape(input_x))))   # noqa: F405


@_primitive
def scatter_sub(input_x, indices, updates):
    """Rows `indices` of the Parameter input_x -= updates (ops.scatter_sub)."""
    return assign(input_x, sub(input_x, scatter_nd(_rows(input_x, indices), updates,  # noqa
                                                   shape(input_x))))   # noqa: F405


@_primitive
def scatter_update(input_x, indices, updates):
    """Rows `indices` of the Parameter input_x = updates (ops.scatter_update)."""
    return assign(input_x, tensor_scatter_update(input_x, _rows(input_x, indices),  # noqa
                                                 updates))


@_primitive
def index_add(x, indices, y, axis, use_lock=True, check_index_bound=True):
    """x with the slices of y added at `indices` along `axis` (ops.index_add)."""
    return _P["IndexAdd"](axis)._impl(x, indices, y)


@_primitive
def index_fill(x, axis, index, value):
    """x with the slices at `index` along `axis` set to `value` (ops.index_fill)."""
    t = _t(x)
    a = axis + t.ndim if axis < 0 else axis
    idx = reshape(_t(index, None if hasattr(index, "dtype") else _dt.int32), (-1, 1))  # noqa
    hit = reduce_any(equal(idx, _const(_np.arange(t.shape[a]), idx.dtype)), 0)   # noqa: F405
    shp = [1] * t.ndim
    shp[a] = t.shape[a]
    v = cast(_t(value) if hasattr(value, "dtype") else _const(_np.asarray(value), t.dtype),  # noqa
             t.dtype)
    return select(reshape(hit, tuple(shp)), broadcast_to(v, t.shape), t)   # noqa: F405


def _pool1d(x, kernel_size, stride, padding, ceil_mode, mode, count_include_pad=True):
    t = expand_dims(_t(x), -2)                 # [N, C, 1, L]  # noqa: F405
    k = kernel_size[0] if isinstance(kernel_size, (tuple, list)) else kernel_size
    st = k if stride is None else (stride[0] if isinstance(stride, (tuple, list)) else stride)
    p = padding[0] if isinstance(padding, (tuple, list)) else padding
    out = window_pool2d(t, (1, k), (1, st), (0, p), 1, ceil_mode, mode,   # noqa: F405
                        count_include_pad)
    return squeeze(out, -2)   # noqa: F405


@_primitive
def avg_pool1d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False,
               count_include_pad=True):
    """1-D average pooling of [N, C, L] (ops.avg_pool1d)."""
    return _pool1d(input_x, kernel_size, stride, padding, ceil_mode, "avg", count_include_pad)


@_primitive
def max_pool1d(input_x, kernel_size, stride=None, padding=0, ceil_mode=False):
    """1-D max pooling of [N, C, L]."""
    return _pool1d(input_x, kernel_size, stride, padding, ceil_mode, "max")


def _channel_dropout(x, p, training, what, ndim):
    t = _t(x)
    if t.ndim != ndim:
        _b.error(f"{what}: the input must be {ndim}-D, got rank {t.ndim}")
    if not 0 <= p <= 1:
        _b.error(f"{what}: p must be in [0, 1], got {p}", kind=ValueError)
    if not training or p == 0:
        return t
    if p == 1:
        return zeros_like(t)   # noqa: F405
    keep = less(random_uniform(t.shape[:2] + (1,) * (ndim - 2), 0,   # noqa: F405
                               dtype=t.dtype), 1.0 - p)
    return mul(t, mul(cast(keep, t.dtype), 1.0 / (1.0 - p)))   # noqa: F405


@_primitive
def dropout2d(input, p=0.5, training=True):
    """Zeroes whole channels of [N, C, H, W] with probability p, scaling the rest
    by 1/(1-p) (ops.dropout2d)."""
    return _channel_dropout(input, p, training, "dropout2d", 4)


@_primitive
def dropout3d(input, p=0.5, training=True):
    """Channel dropout of [N, C, D, H, W] (ops.dropout3d)."""
    return _channel_dropout(input, p, training, "dropout3d", 5)


@_primitive
def bernoulli(input, p=0.5, seed=None):
    """1 with probability p (a number or a tensor), else 0, in input's shape and
    dtype (ops.bernoulli)."""
    t = _t(input)
    u = random_uniform(t.shape, 0 if seed is None else seed)   # noqa: F405
    return cast(less(u, p), t.dtype if t.dtype.is_float else _dt.float32)   # noqa: F405


@_primitive
def standard_laplace(shape, seed=0, seed2=0):
    """Laplace(0, 1) samples (ops.standard_laplace)."""
    return _P["StandardLaplace"](seed, seed2)._impl(shape)


def blackman_window(window_length, periodic=True, *, dtype=None):
    """The Blackman window (ops.blackman_window)."""
    n = int(window_length)
    if n == 1:
        w = _np.ones(1)
    else:
        m = n if periodic else n - 1
        k = _np.arange(n)
        w = 0.42 - 0.5 * _np.cos(2 * _np.pi * k / m) + 0.08 * _np.cos(4 * _np.pi * k / m)
    return tensor(w, dtype if dtype is not None else _dt.float32)   # noqa: F405



from .dynamic import bincount, masked_select, nonzero, unique  # noqa: E402,F401

pows = pow                    # noqa: F405  (MindSpore's F.pows = tensor_pow)
outer = ger


def mixed_precision_cast(dst_type, input_x):
    """Casts the floating-point tensors in `input_x` (a tensor, or tuples, lists and
    dicts of them) to `dst_type`; everything else passes through (MindSpore's AMP
    helper F.mixed_precision_cast)."""
    if isinstance(input_x, (tuple, list)):
        return type(input_x)(mixed_precision_cast(dst_type, x) for x in input_x)
    if isinstance(input_x, dict):
        return {k: mixed_precision_cast(dst_type, v) for k, v in input_x.items()}
    dt = getattr(input_x, "dtype", None)
    if getattr(dt, "is_float", False) and dt is not dst_type:
        return cast(input_x, dst_type)   # noqa: F405
    return input_x


def reverse_sequence(x, seq_lengths, seq_dim, batch_dim=0):
    """Per batch entry, the first seq_lengths[b] elements along seq_dim reversed
    (ops.reverse_sequence)."""
    return _P["ReverseSequence"](seq_dim, batch_dim)(x, seq_lengths)


floor_divide = floor_div     # noqa: F405  (ops.floor_divide)


@_primitive
def mm(input, mat2):
    """The matrix product of two 2-D tensors (ops.mm)."""
    a, b = _t(input), _t(mat2)
    if a.ndim != 2 or b.ndim != 2:
        _b.error(f"For 'mm', both inputs must be 2-D, got shapes {tuple(a.shape)} and "
                 f"{tuple(b.shape)}", kind=ValueError)
    return matmul(a, b)   # noqa: F405


def intopk(x1, x2, k):
    """Whether x2[i] is among the k largest entries of row x1[i] (ops.intopk)."""
    return _P["InTopK"](k)(x1, x2)


@_primitive
def moe_token_permute(tokens, indices, num_out_tokens=None, padded_mode=False):
    """MoE token permutation (ops.moe_token_permute; operations/_moe.py)."""
    from .operations._moe import moe_token_permute as impl
    return impl(tokens, indices, num_out_tokens, padded_mode)


@_primitive
def moe_token_unpermute(permuted_tokens, sorted_indices, probs=None, padded_mode=False,
                        restore_shape=None):
    """The inverse of moe_token_permute, weighted by probs (ops.moe_token_unpermute)."""
    from .operations._moe import moe_token_unpermute_fn as impl
    return impl(permuted_tokens, sorted_indices, probs, padded_mode, restore_shape)


def randn(*size, dtype=None, seed=None):
    """Standard-normal samples of shape `size` (ops.randn; float32 by default)."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    if not _builtins.all(isinstance(d, _numbers.Integral) and not isinstance(d, bool) and d >= 0
               for d in size):
        raise ValueError(f"For 'randn', the shape must be non-negative ints, got {size!r}")
    out = standard_normal(tuple(int(d) for d in size), seed)   # noqa: F405
    return out if dtype is None or dtype is _dt.float32 else cast(out, dtype)   # noqa: F405


_COMPOSED = [
    "acos", "acosh", "asin", "asinh", "atan", "atanh", "atan2", "cosh", "sinh", "tan", "arccos",
    "arcsin", "arctan", "arctan2", "accumulate_n", "inv", "top_k", "scalar_to_array", "fills",
    "expand", "lerp", "logit", "xlogy", "xdivy", "truncate_div", "truncate_mod",
    "approximate_equal", "isclose", "std", "var", "norm", "dot", "tensor_dot", "ger", "narrow",
    "count_nonzero", "diag", "repeat_elements", "meshgrid", "range", "dyn_shape",
    "inplace_update", "inplace_add", "inplace_sub", "matrix_band_part", "celu", "selu",
    "fast_gelu", "hardswish", "hardsigmoid", "hardshrink", "soft_shrink", "softshrink", "mish",
    "softsign", "prelu", "kl_div", "cdist", "adaptive_avg_pool2d", "adaptive_avg_pool1d",
    "interpolate", "assign_add", "assign_sub", "normal", "sequence_mask", "print_", "erfc",
    "tensor_scatter_add", "tensor_scatter_sub", "scatter_nd_add", "scatter_nd_sub",
    "scatter_add", "scatter_sub", "scatter_update", "index_add", "index_fill", "avg_pool1d",
    "max_pool1d", "dropout2d", "dropout3d", "bernoulli", "standard_laplace", "blackman_window",
    "pows", "outer", "mixed_precision_cast", "randn", "masked_select", "nonzero", "unique",
    "bincount", "reverse_sequence", "moe_token_permute", "moe_token_unpermute",
    "floor_divide", "mm", "intopk",
]

__all__ = sorted(set(_ops.__all__) | set(_ALIASES) | set(_COMPOSED) | {
    "identity", "scalar_cast", "tensor_scatter_update", "hyper_map", "hyper_add", "isconstant",
    "tuple_len", "make_tuple", "tuple_getitem", "list_getitem"})
