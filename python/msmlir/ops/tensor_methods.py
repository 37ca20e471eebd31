"""The tensor-method table: one definition of every Tensor operator and method.

`METHODS` maps a name (``__add__``, ``sum``, ``T``, ...) to a `Method`; `install`
puts the table on a tensor class. `msmlir.ops` installs it on `TensorValue`
(a tensor inside `jit`) and `msmlir.Tensor` installs it on itself (PyNative), in
the manner of JAX's `array_methods`, so a method means the same in both modes:
whatever compiles in PyNative compiles inside `jit`, with the same semantics.

Each entry is written once, against the ops: inside a build (jit, or an eager
op being traced) the functions of `msmlir.ops` build IR; called outside on
Tensors they compile and run one kernel each and return Tensors. The flags say
how a class that runs eagerly (Tensor) should call an entry:

* `composite`: several ops, run as one kernel (traced and compiled once per
  input signature) rather than one kernel per op;
* `binary`: an elementwise op whose Python scalar operand should be passed to
  the kernel as a run-time value of the result dtype (``t * 0.5`` and
  ``t * 0.25`` share one kernel) rather than as a compile-time constant.

Host-only behaviour (``item()`` as a Python number, ``asnumpy``, ``__bool__``,
``__setitem__`` on the data, printing) belongs to each class, not to the table.
"""
from __future__ import annotations

from dataclasses import dataclass

import msmlir.frontend.builder as _b

from .. import dtype as _dt
from . import array as _array
from . import math as _math
from . import nn as _nn

__all__ = ["Method", "METHODS", "install"]


@dataclass(frozen=True)
class Method:
    fn: object                  # fn(x, *args, **kwargs); a `property` for attributes
    composite: bool = False
    binary: bool = False


METHODS: dict[str, Method] = {}


def _method(*names, composite=False, binary=False):
    def register(fn):
        for n in names:
            METHODS[n] = Method(fn, composite, binary)
        return fn
    return register


def _def(names, fn, **flags):
    for n in (names,) if isinstance(names, str) else names:
        METHODS[n] = Method(fn, **flags)


def install(cls, wrap=None, exclude=()) -> None:
    """Sets every method of the table on `cls` (except `exclude`):
    `wrap(name, method)` returns the attribute to set (default: the function)."""
    for name, m in METHODS.items():
        if name in exclude:
            continue
        setattr(cls, name, m.fn if wrap is None or isinstance(m.fn, property) else wrap(name, m))


def _fail(exc_type, msg):
    """A usage error: `exc_type` in PyNative, a CompileError at the user's line inside jit."""
    if _b.current() is None:
        raise exc_type(msg)
    _b.error(msg, kind=exc_type)


def _operand_dtype(o):
    dt = getattr(o, "dtype", None)
    if isinstance(dt, _dt.DType):
        return dt
    if dt is not None:          # a numpy array or scalar
        return _dt.from_numpy(dt)
    if isinstance(o, bool):
        return _dt.bool_
    return None


def _axes(axis):
    return tuple(axis) if isinstance(axis, list) else axis


# ---------------------------------------------------------------------------
# Operators
# ---------------------------------------------------------------------------

for _names, _op, _swap in [
        (("__add__", "add"), _math.add, False), (("__radd__",), _math.add, True),
        (("__sub__", "sub", "subtract"), _math.sub, False), (("__rsub__",), _math.sub, True),
        (("__mul__", "mul", "multiply"), _math.mul, False), (("__rmul__",), _math.mul, True),
        (("__truediv__", "div", "divide", "true_divide"), _math.div, False),
        (("__rtruediv__",), _math.div, True),
        (("__floordiv__", "floor_divide"), _math.floor_div, False),
        (("__rfloordiv__",), _math.floor_div, True),
        (("__mod__", "remainder"), _math.floor_mod, False), (("__rmod__",), _math.floor_mod, True),
        (("__pow__", "pow"), _math.pow, False), (("__rpow__",), _math.pow, True),
        (("__matmul__", "matmul"), _math.matmul, False), (("__rmatmul__",), _math.matmul, True),
        (("maximum",), _math.maximum, False), (("minimum",), _math.minimum, False),
        (("__lt__", "less", "lt"), _math.less, False),
        (("__le__", "less_equal", "le"), _math.less_equal, False),
        (("__gt__", "greater", "gt"), _math.greater, False),
        (("__ge__", "greater_equal", "ge"), _math.greater_equal, False),
        (("equal", "eq"), _math.equal, False), (("not_equal", "ne"), _math.not_equal, False),
        (("logical_and",), _math.logical_and, False), (("logical_or",), _math.logical_or, False),
        (("logical_xor",), _math.logical_xor, False),
        (("bitwise_and",), _math.bitwise_and, False), (("bitwise_or",), _math.bitwise_or, False),
        (("bitwise_xor",), _math.bitwise_xor, False),
        (("__lshift__", "bitwise_left_shift"), _math.bitwise_left_shift, False),
        (("__rlshift__",), _math.bitwise_left_shift, True),
        (("__rshift__", "bitwise_right_shift"), _math.bitwise_right_shift, False),
        (("__rrshift__",), _math.bitwise_right_shift, True)]:
    _def(_names, (lambda op: lambda x, o: op(o, x))(_op) if _swap else
         (lambda op: lambda x, o: op(x, o))(_op), binary=True)


@_method("__eq__", binary=True)
def _eq(x, o):
    if o is None:
        return False
    return _math.equal(x, o)


@_method("__ne__", binary=True)
def _ne(x, o):
    if o is None:
        return True
    return _math.not_equal(x, o)


def _logical(op, sym, swap=False):
    """&, |, ^: logical on bools, bitwise on integers (as MindSpore's Tensor)."""
    def fn(x, o):
        other = _operand_dtype(o)
        if x.dtype.is_float or other is not None and other.is_float or isinstance(o, float):
            _fail(TypeError, f"operator {sym} needs bool or integer tensors (got {x.dtype} and "
                             f"{other if other is not None else type(o).__name__})")
        return op(o, x) if swap else op(x, o)
    return fn


_def("__and__", _logical(_math.bitwise_and, "&"), binary=True)
_def("__rand__", _logical(_math.bitwise_and, "&", True), binary=True)
_def("__or__", _logical(_math.bitwise_or, "|"), binary=True)
_def("__ror__", _logical(_math.bitwise_or, "|", True), binary=True)
_def("__xor__", _logical(_math.bitwise_xor, "^"), binary=True)
_def("__rxor__", _logical(_math.bitwise_xor, "^", True), binary=True)


@_method("__invert__", "invert", "bitwise_not")
def _invert(x):
    if x.dtype.is_float:
        _fail(TypeError, f"operator ~ needs a bool or integer tensor (got {x.dtype})")
    return _math.invert(x)


@_method("__pos__")
def _pos(x):
    return x


@_method("__divmod__")
def _divmod(x, o):
    return x // o, x % o


@_method("__rdivmod__")
def _rdivmod(x, o):
    return o // x, o % x


@_method("__round__")
def _round(x, ndigits=None):
    if ndigits is not None:
        _fail(TypeError, "round(tensor, ndigits) is not supported; use ops.round(x * 10**n) / 10**n")
    return _math.round(x)


@_method("__getitem__")
def _getitem(x, index):
    return _array.getitem(x, index)


# ---------------------------------------------------------------------------
# Elementwise methods
# ---------------------------------------------------------------------------

for _names, _op in [
        (("__neg__", "neg", "negative"), _math.neg), (("__abs__", "abs", "absolute"), _math.abs),
        (("exp",), _math.exp), (("log",), _math.log), (("log1p",), _math.log1p),
        (("expm1",), _math.expm1), (("sqrt",), _math.sqrt), (("rsqrt",), _math.rsqrt),
        (("square",), _math.square), (("tanh",), _math.tanh), (("sigmoid",), _math.sigmoid),
        (("relu",), _math.relu), (("sign",), _math.sign),
        (("floor",), _math.floor), (("ceil",), _math.ceil), (("round",), _math.round),
        (("trunc",), _math.trunc), (("reciprocal",), _math.reciprocal), (("sin",), _math.sin),
        (("cos",), _math.cos), (("erf",), _math.erf), (("isnan",), _math.isnan),
        (("isinf",), _math.isinf), (("isfinite",), _math.isfinite),
        (("logical_not",), _math.logical_not), (("stop_gradient",), _math.stop_gradient)]:
    _def(_names, (lambda op: lambda x: op(x))(_op))


@_method("clip")
def _clip(x, xmin=None, xmax=None):
    return _math.clamp(x, xmin, xmax)


@_method("clamp")
def _clamp(x, min=None, max=None):
    return _math.clamp(x, min, max)


@_method("softmax")
def _softmax(x, axis=-1):
    return _nn.softmax(x, axis)


# ---------------------------------------------------------------------------
# Shape methods
# ---------------------------------------------------------------------------

@_method("reshape")
def _reshape(x, *shape):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    return _array.reshape(x, tuple(shape))


@_method("view")
def _view(x, *shape):
    return x.reshape(*shape)


@_method("view_as")
def _view_as(x, other):
    return x.reshape(other.shape)


@_method("transpose")
def _transpose(x, *axes):
    """x.transpose() reverses the dims; x.transpose(perm) / x.transpose(*perm)
    permutes them; x.transpose(dim0, dim1) -- two ints -- swaps two dims, as
    MindSpore 2.x's Tensor.transpose does (measured on 2.10: on a 2-D tensor
    transpose(0, 1) swaps the axes)."""
    if len(axes) == 2 and all(isinstance(a, int) and not isinstance(a, bool) for a in axes):
        return _array.swapaxes(x, axes[0], axes[1])
    if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
        axes = tuple(axes[0])
    if not axes or (len(axes) == 1 and axes[0] is None):
        axes = tuple(reversed(range(x.ndim)))
    return _array.transpose(x, tuple(axes))


@_method("permute")
def _permute(x, *axes):
    return x.transpose(*axes)


METHODS["T"] = Method(property(lambda x: x.transpose()))


@_method("swapaxes")
def _swapaxes(x, axis0, axis1):
    return _array.swapaxes(x, axis0, axis1)


@_method("flatten")
def _flatten(x, order="C", *, start_dim=0, end_dim=-1):
    if order not in ("C", "F"):
        _fail(ValueError, f"For 'Tensor.flatten', 'order' must be 'C' or 'F', got {order!r}")
    if order == "F":
        x = x.transpose()
    return _array.flatten(x, start_dim=start_dim, end_dim=end_dim)


@_method("ravel")
def _ravel(x):
    return x.reshape(-1)


@_method("squeeze")
def _squeeze(x, axis=None):
    return _array.squeeze(x, _axes(axis))


@_method("expand_dims")
def _expand_dims(x, axis):
    return _array.expand_dims(x, axis)


@_method("unsqueeze")
def _unsqueeze(x, dim):
    return x.expand_dims(dim)


@_method("broadcast_to")
def _broadcast_to(x, shape):
    return _array.broadcast_to(x, tuple(shape))


@_method("expand_as")
def _expand_as(x, other):
    return x.broadcast_to(other.shape)


@_method("tile")
def _tile(x, reps):
    return _array.tile(x, tuple(reps) if isinstance(reps, (list, tuple)) else (reps,))


@_method("gather")
def _gather(x, input_indices, axis, batch_dims=0):
    return _array.gather(x, input_indices, axis, batch_dims)


# ---------------------------------------------------------------------------
# dtype methods
# ---------------------------------------------------------------------------

@_method("astype")
def _astype(x, dtype, copy=True):
    dt = _dt.get(dtype)
    if dt is x.dtype:
        copy_ = getattr(x, "copy", None)   # a host tensor has data to copy; a traced value not
        return copy_() if copy and copy_ is not None else x
    return _math.cast(x, dt)


@_method("to")
def _to(x, dtype):
    return x.astype(dtype)


for _name, _dtype in [("float", _dt.float32), ("half", _dt.float16), ("double", _dt.float64),
                      ("int", _dt.int32), ("long", _dt.int64), ("bool", _dt.bool_)]:
    _def(_name, (lambda d: lambda x: x.astype(d))(_dtype))


# ---------------------------------------------------------------------------
# Reductions
# ---------------------------------------------------------------------------

def _keep(keepdims, keep_dims):
    return keepdims if keep_dims is None else keep_dims


@_method("sum", composite=True)
def _sum(x, axis=None, dtype=None, keepdims=False, initial=None, *, keep_dims=None):
    out = _math.sum(x, _axes(axis), _keep(keepdims, keep_dims), dtype=dtype)
    return out if initial is None else _math.add(out, initial)


@_method("mean")
def _mean(x, axis=None, keep_dims=False, *, keepdims=None):
    return _math.reduce_mean(x, _axes(axis), _keep(keep_dims, keepdims))


@_method("prod", composite=True)
def _prod(x, axis=None, keep_dims=False, dtype=None, *, keepdims=None):
    return _math.prod(x, _axes(axis), _keep(keep_dims, keepdims), dtype=dtype)


def _extreme(name, arg, combine):
    def fn(x, axis=None, keepdims=False, *, initial=None, where=True, return_indices=False,
           keep_dims=None):
        if where is not True:
            _fail(NotImplementedError, f"Tensor.{name}: 'where' is not supported in msmlir")
        if return_indices and axis is not None and not isinstance(axis, int):
            _fail(ValueError, f"Tensor.{name}: return_indices needs a single int axis")
        keep = _keep(keepdims, keep_dims)
        if isinstance(axis, int) and name in ("max", "min"):
            # MindSpore 2.10: Tensor.max(axis) is ArgMaxWithValue (gradient to the first
            # maximum), Tensor.max() / amax a ReduceMax (ties share it) -- recorded
            out, index = getattr(_math, name)(x, axis, keep)
        else:
            out = getattr(_math, "reduce_" + name.lstrip("a"))(x, _axes(axis), keep)
            index = None
        if initial is not None:
            out = combine(out, initial)
        if return_indices:
            return out, (_math.cast(arg(x, axis, keep), _dt.int64) if index is None else index)
        return out
    return fn


_def("max", _extreme("max", _math.argmax, _math.maximum))
_def("min", _extreme("min", _math.argmin, _math.minimum))
_def("amax", _extreme("amax", _math.argmax, _math.maximum))
_def("amin", _extreme("amin", _math.argmin, _math.minimum))


@_method("argmax")
def _argmax(x, axis=None, keepdims=False):
    return _math.argmax(x, axis, keepdims)


@_method("argmin")
def _argmin(x, axis=None, keepdims=False):
    return _math.argmin(x, axis, keepdims)


@_method("all")
def _all(x, axis=None, keep_dims=False):
    return _math.all(x, _axes(axis), keep_dims)


@_method("any")
def _any(x, axis=None, keep_dims=False):
    return _math.any(x, _axes(axis), keep_dims)


@_method("var", composite=True)
def _var(x, axis=None, ddof=0, keepdims=False):
    if not x.dtype.is_float:
        x = _math.cast(x, _dt.float32)
    axis = _axes(axis)
    axes = tuple(range(x.ndim)) if axis is None else (axis if isinstance(axis, tuple) else (axis,))
    n = 1
    for a in axes:
        n *= x.shape[a]
    m = _math.reduce_mean(x, axes, True)
    d = _math.sub(x, m)
    s = _math.reduce_sum(_math.mul(d, d), axes, keepdims)
    return _math.div(s, float(max(n - ddof, 0)))


@_method("std", composite=True)
def _std(x, axis=None, ddof=0, keepdims=False):
    return _math.sqrt(_var(x, axis, ddof, keepdims))


# ---------------------------------------------------------------------------
# Sorting
# ---------------------------------------------------------------------------

@_method("sort")
def _sort(x, axis=-1, descending=False):
    return _array.sort(x, axis, descending)


@_method("argsort")
def _argsort(x, axis=-1, descending=False):
    return _array.argsort(x, axis, descending)


@_method("topk")
def _topk(x, k, dim=None, largest=True, sorted=True):
    return _array.topk(x, k, dim, largest, sorted)


# ---------------------------------------------------------------------------
# Methods implemented in layer 5 (msmlir/ops/tensor_extra.py: they compose the
# functional ops of ops/functional.py and msmlir.numpy). The table installs a stub
# per name; the implementation is looked up through msmlir/providers.py on first
# use. (name -> kind: "compute" runs as one kernel in PyNative, "python" returns a
# Python value, "property" is an attribute.)
# ---------------------------------------------------------------------------

DELEGATED = {
    **{n: "compute" for n in (
        "acos", "arccos", "asin", "arcsin", "atan", "arctan", "asinh", "arcsinh", "atanh",
        "arctanh", "arccosh", "cosh", "tan", "atan2", "arctan2", "inv", "logit", "xdivy", "xlogy",
        "lerp", "hardshrink", "soft_shrink", "approximate_equal", "isclose", "erfc", "sgn",
        "positive", "sinc", "nan_to_num", "deg2rad", "rad2deg", "float_power", "fmod",
        "heaviside", "hypot", "isneginf", "isposinf", "log10", "log2", "logaddexp",
        "logaddexp2", "signbit", "copysign", "addcdiv", "addcmul", "logsumexp", "norm",
        "cumsum", "cumprod", "ptp", "argmax_with_value", "argmin_with_value", "trace", "msort",
        "unsorted_segment_max", "unsorted_segment_min", "unsorted_segment_prod", "bmm", "mm",
        "ger", "inner", "cross", "addmm", "addmv", "addr", "baddbmm", "addbmm", "expand", "flip",
        "fliplr", "flipud", "rot90", "roll", "diag", "diagflat", "diagonal", "tril", "triu",
        "narrow", "gather_elements", "gather_nd", "masked_fill", "inplace_update", "take",
        "repeat", "repeat_interleave", "select", "where", "split", "chunk", "tensor_split",
        "hsplit", "vsplit", "dsplit", "unbind", "top_k", "reshape_as", "resize", "t", "choose",
        "fill", "fills", "new_ones", "new_zeros", "searchsorted", "reverse", "index_add",
        "index_fill", "scatter_add", "scatter_sub", "sum_to_size", "isreal", "real", "conj",
        "angle", "ldexp", "reverse_sequence", "unfold", "fold", "median",
        "as_strided", "renorm", "cummax", "cummin", "random_categorical", "bernoulli", "lcm",
        "det", "matrix_determinant", "slogdet", "log_matrix_determinant", "logdet", "inverse",
        "cholesky", "cholesky_inverse", "lgamma", "digamma", "erfinv", "scatter_mul",
        "scatter_div", "scatter_max", "scatter_min", "unique_with_pad", "i0", "igamma",
        "igammac", "svd")},
    **{n: "python" for n in ("is_floating_point", "is_signed", "is_complex", "short",
                             "set_const_arg", "nonzero", "masked_select", "unique",
                             "bincount", "to_tensor", "flush_from_cache", "itemset", "col2im",
                             "unique_consecutive", "to_coo", "to_csr")},
    **{n: "property" for n in ("mT", "mH", "H", "adjoint")},
    # MindSpore 2.x additions (msmlir/ops/tensor_extra.py, last section)
    **{n: "compute" for n in (
        "acosh", "sinh", "frac", "mvlgamma", "fmax", "fmin", "gcd", "imag", "clone",
        "allclose", "aminmax", "count_nonzero", "nansum", "nanmean", "nanmedian",
        "nanquantile", "quantile", "kthvalue", "logcumsumexp", "histc", "cov", "diff", "dot",
        "outer", "matrix_power", "moveaxis", "movedim", "swapdims", "index_select",
        "index_put", "masked_scatter", "diagonal_scatter", "slice_scatter", "select_scatter",
        "scatter", "fill_diagonal", "new_full", "new_empty", "multinomial", "uniform",
        "cauchy", "log_normal", "triangular_solve", "cholesky_solve", "lu_solve", "qr",
        "lstsq", "geqrf", "orgqr", "ormqr", "nextafter")},
    # in place: PyNative only (the write into the tensor's buffer is on the host)
    **{n: "python" for n in (
        "add_", "sub_", "mul_", "div_", "floor_divide_", "remainder_", "addmm_", "clamp_",
        "copy_", "exp_", "floor_", "log_", "erfinv_", "sigmoid_", "sign_", "tanh_", "zero_", "fill_",
        "fill_diagonal_", "index_add_", "index_copy_", "index_fill_", "index_put_",
        "masked_fill_", "masked_scatter_", "put_", "scatter_", "scatter_add_", "bernoulli_",
        "exponential_", "normal_", "random_", "uniform_",
        "argwhere", "bfloat16", "byte", "contiguous", "is_pinned", "pin_memory", "move_to",
        "storage", "untyped_storage", "stride", "storage_offset", "type_as")},
}


def _delegate(name):
    def stub(x, *args, **kwargs):
        from .. import providers
        impl = providers.get("tensor_method_extensions")
        if impl is None:
            _fail(RuntimeError, f"Tensor.{name} needs msmlir's layer-5 ops (import msmlir)")
        return impl[name](x, *args, **kwargs)
    stub.__name__ = name
    stub.__qualname__ = f"Tensor.{name}"
    stub.__doc__ = f"MindSpore's Tensor.{name} (msmlir/ops/tensor_extra.py)."
    return stub


for _name, _kind in DELEGATED.items():
    if _name in METHODS:
        continue
    if _kind == "property":
        METHODS[_name] = Method(property(_delegate(_name)))
    else:
        METHODS[_name] = Method(_delegate(_name), composite=_kind == "compute")
