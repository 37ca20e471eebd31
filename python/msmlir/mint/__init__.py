"""`mindspore.mint`: MindSpore's PyTorch-style functions (argument names and
semantics of torch: `dim`, `keepdim`, `alpha`, ...), the most used ones, as
compositions of msmlir's functional ops (so they compile inside jit and run as
one kernel each in PyNative mode)."""
from __future__ import annotations

from .. import dtype as _ms_dtype
from .. import numpy as _mnp
from .. import ops as _ops
from ..ops import functional as _F
from ..ops._base import primitive as _primitive
from . import nn  # noqa: F401

__all__ = [
    "abs", "add", "sub", "mul", "div", "pow", "exp", "log", "sqrt", "rsqrt", "neg", "sin",
    "cos", "tanh", "sigmoid", "clamp", "where", "matmul", "bmm", "cat", "concat", "stack",
    "split", "reshape", "permute", "transpose", "unsqueeze", "squeeze", "flatten", "gather",
    "index_select", "sum", "mean", "prod", "max", "min", "argmax", "argmin", "cumsum",
    "sort", "topk", "zeros", "ones", "zeros_like", "ones_like", "full", "arange", "eq", "ne",
    "gt", "ge", "lt", "le", "logical_and", "logical_or", "logical_not", "isclose", "tile",
    "broadcast_to", "erf", "floor", "ceil", "round", "maximum", "minimum", "narrow", "tril",
    "triu", "einsum", "masked_select", "linspace", "square", "reciprocal", "log1p", "expm1",
    "atan2", "chunk", "flip", "repeat_interleave", "any", "all", "std", "var", "allclose",
    "normal", "rand", "randn", "softmax", "nonzero", "empty", "remainder", "nan_to_num",
    "scatter", "searchsorted",
]

abs = _ops.abs          # noqa: A001 - MindSpore's names
exp, log, sqrt, rsqrt, neg = _ops.exp, _ops.log, _ops.sqrt, _ops.rsqrt, _ops.neg
sin, cos, tanh, sigmoid, erf = _ops.sin, _ops.cos, _ops.tanh, _ops.sigmoid, _ops.erf
floor, ceil, square, reciprocal = _ops.floor, _ops.ceil, _ops.square, _ops.reciprocal
log1p, expm1, atan2 = _ops.log1p, _ops.expm1, _F.atan2
maximum, minimum, matmul, bmm = _ops.maximum, _ops.minimum, _ops.matmul, _ops.bmm
eq, ne, gt, ge, lt, le = _ops.equal, _ops.not_equal, _ops.greater, _ops.greater_equal, \
    _ops.less, _ops.less_equal
logical_and, logical_or, logical_not = _ops.logical_and, _ops.logical_or, _ops.logical_not
zeros_like, ones_like = _ops.zeros_like, _ops.ones_like
isclose, narrow, flip = _F.isclose, _F.narrow, _F.flip
round = _ops.round      # noqa: A001


@_primitive
def add(input, other, *, alpha=1):
    """input + alpha * other (mint.add)."""
    return _ops.add(input, other if alpha == 1 else _ops.mul(other, alpha))


@_primitive
def sub(input, other, *, alpha=1):
    """input - alpha * other (mint.sub)."""
    return _ops.sub(input, other if alpha == 1 else _ops.mul(other, alpha))


mul = _ops.mul


def div(input, other, *, rounding_mode=None):
    """input / other; rounding_mode None, 'floor' or 'trunc' (mint.div)."""
    return _ops.div(input, other, rounding_mode=rounding_mode)


pow = _ops.pow          # noqa: A001


def clamp(input, min=None, max=None):   # noqa: A002
    return _ops.clamp(input, min, max)


def where(condition, input, other):
    return _ops.select(condition, input, other)


def cat(tensors, dim=0):
    return _ops.concat(tuple(tensors), dim)


concat = cat


def stack(tensors, dim=0):
    return _ops.stack(tuple(tensors), dim)


def split(tensor, split_size_or_sections, dim=0):
    return _ops.split(tensor, split_size_or_sections, dim)


def chunk(input, chunks, dim=0):
    n = input.shape[dim]
    return _ops.split(input, -(-n // chunks), dim)


def reshape(input, shape):
    return _ops.reshape(input, tuple(shape))


def permute(input, dims):
    return _ops.transpose(input, tuple(dims))


def transpose(input, dim0, dim1):
    """Swaps dims dim0 and dim1 (mint.transpose, torch's)."""
    return _ops.swapaxes(input, dim0, dim1)


def unsqueeze(input, dim):
    return _ops.expand_dims(input, dim)


def squeeze(input, dim=None):
    if dim is None:
        return _ops.squeeze(input)
    d = dim if dim >= 0 else dim + len(input.shape)
    return _ops.squeeze(input, d) if input.shape[d] == 1 else input


def flatten(input, start_dim=0, end_dim=-1):
    return _ops.flatten(input, start_dim=start_dim, end_dim=end_dim)


def gather(input, dim, index):
    """torch.gather: out[i][j] = input[index[i][j]][j] for dim 0 (= ops.gather_elements)."""
    return _ops.gather_elements(input, dim, index)


def index_select(input, dim, index):
    """Slices of input along dim at the 1-D index (mint.index_select)."""
    return _ops.gather(input, index, dim)


def _dims(dim):
    return () if dim is None else (tuple(dim) if isinstance(dim, (list, tuple)) else dim)


def sum(input, dim=None, keepdim=False, *, dtype=None):   # noqa: A001
    out = _ops.sum(input, _dims(dim), keepdim)     # bool/int -> int64 (MindSpore 2.10)
    return out if dtype is None else _ops.cast(out, dtype)


def mean(input, dim=None, keepdim=False, *, dtype=None):
    out = _ops.reduce_mean(input if dtype is None else _ops.cast(input, dtype), _dims(dim),
                           keepdim)
    return out


def prod(input, dim=None, keepdim=False, *, dtype=None):
    out = _ops.prod(input, _dims(dim), keepdim)    # bool/int -> int64 (MindSpore 2.10)
    return out if dtype is None else _ops.cast(out, dtype)


def max(input, dim=None, keepdim=False):   # noqa: A001
    """The maximum of all elements, or (values, indices) along `dim` (torch.max)."""
    if dim is None:
        return _ops.reduce_max(input)
    return _ops.max(input, dim, keepdim)


def min(input, dim=None, keepdim=False):   # noqa: A001
    if dim is None:
        return _ops.reduce_min(input)
    return _ops.min(input, dim, keepdim)


def argmax(input, dim=None, keepdim=False):
    return _ops.argmax(input, dim, keepdim)


def argmin(input, dim=None, keepdim=False):
    return _ops.argmin(input, dim, keepdim)


def any(input, dim=None, keepdim=False):   # noqa: A001
    return _ops.any(input, dim, keepdim)


def all(input, dim=None, keepdim=False):   # noqa: A001
    return _ops.all(input, dim, keepdim)


def std(input, dim=None, *, correction=1, keepdim=False):
    return _F.std(input, dim, correction, keepdim)


def var(input, dim=None, *, correction=1, keepdim=False):
    return _F.var(input, dim, correction, keepdim)


def cumsum(input, dim, *, dtype=None):
    return _ops.cumsum(input, dim, dtype)


def sort(input, dim=-1, descending=False, stable=False):
    return _ops.sort(input, dim, descending)


def topk(input, k, dim=-1, largest=True, sorted=True):   # noqa: A002
    return _ops.topk(input, k, dim, largest, sorted)


def tile(input, dims):
    return _ops.tile(input, tuple(dims))


def broadcast_to(input, size):
    return _ops.broadcast_to(input, tuple(size))


def tril(input, diagonal=0):
    return _mnp.tril(input, diagonal)


def triu(input, diagonal=0):
    return _mnp.triu(input, diagonal)


def repeat_interleave(input, repeats, dim=None):
    return _mnp.repeat(input, repeats, dim)


def zeros(*size, dtype=None):
    size = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else size
    return _ops.zeros(size, dtype)


def ones(*size, dtype=None):
    size = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else size
    return _ops.ones(size, dtype)


def full(size, fill_value, *, dtype=None):
    return _ops.full(tuple(size), fill_value, dtype=dtype)


def arange(start=0, end=None, step=1, *, dtype=None):
    return _ops.arange(start, end, step, dtype=dtype)


def linspace(start, end, steps, *, dtype=None):
    out = _ops.linspace(start, end, steps)
    return out if dtype is None else _ops.cast(out, dtype)


def einsum(equation, *operands):
    raise NotImplementedError("mint.einsum is not supported by msmlir yet")


from ..ops.dynamic import masked_select, nonzero  # noqa: E402,F401  (PyNative only)


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether all elements are close (a Python bool, host-side)."""
    return bool(_mnp.allclose(input, other, rtol, atol, equal_nan))


def normal(mean=0.0, std=1.0, size=None, *, generator=None):
    if size is None:
        raise ValueError("mint.normal: size must be given (scalar mean/std)")
    return _ops.add(_ops.mul(_ops.standard_normal(tuple(size)), std), mean)


def rand(*size, dtype=None, generator=None):
    size = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else size
    return _ops.uniform(size, 0.0, 1.0, dtype=dtype)


def randn(*size, dtype=None, generator=None):
    size = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else size
    out = _ops.standard_normal(size)
    return out if dtype is None else _ops.cast(out, dtype)


def softmax(input, dim, *, dtype=None):
    x = input if dtype is None else _ops.cast(input, dtype)
    return _ops.softmax(x, dim)



def empty(*size, dtype=None):
    """A tensor of `size` (mint.empty: contents unspecified; msmlir's are zeros)."""
    return zeros(*size, dtype=dtype)


@_primitive
def remainder(input, other):
    """input - floor(input / other) * other: the sign of `other` (mint.remainder)."""
    return _ops.floor_mod(input, other)


def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    """NaN -> nan, +inf -> posinf (default: the dtype's max), -inf -> neginf."""
    return input.nan_to_num(nan, posinf, neginf) if hasattr(input, "nan_to_num") else \
        _ops.to_tensor(input).nan_to_num(nan, posinf, neginf)


def scatter(input, dim, index, src):
    """input with src written at `index` along `dim` (mint.scatter; the inverse of
    gather). A scalar src fills."""
    if not hasattr(src, "shape"):
        src = _ops.full(tuple(index.shape), src, dtype=input.dtype)
    return _F.tensor_scatter_elements(input, index, src, dim)


def searchsorted(sorted_sequence, values, *, out_int32=False, right=False, side=None,
                 sorter=None):
    """Insertion positions of `values` in the sorted last dim (1-D sequences)."""
    side = side if side is not None else ("right" if right else "left")
    out = _mnp.searchsorted(sorted_sequence, values, side, sorter)
    return _ops.cast(out, _ms_dtype.int32 if out_int32 else _ms_dtype.int64)
