"""`TensorValue`: a tensor while a jitted function is being compiled.

It wraps one SSA value of a ranked tensor type. Its shape, dtype and ndim are
compile-time Python constants; its Python operators and methods build mindir
ops through `msmlir.ops`, so user code such as ``(x @ w + b).sum(axis=1)`` or
``x[:, 1:, None]`` works on it as on a MindSpore Tensor in graph mode. Its
*value* is only known at run time: `bool()`, `int()`, `float()` and numpy
conversion raise a CompileError.
"""
from __future__ import annotations

from mlir import ir

from .. import dtype as _dt
from . import builder as _b


def _ops():
    from .. import ops
    return ops


class TensorValue:
    """A compile-time tensor: an `mlir.ir.Value` of a ranked tensor type."""

    __slots__ = ("value", "type", "shape", "dtype")
    __array_ufunc__ = None      # numpy defers `ndarray op TensorValue` to us
    __array_priority__ = 1000

    def __init__(self, value):
        if isinstance(value, ir.OpView) or isinstance(value, ir.Operation):
            value = value.result
        t = value.type
        if not isinstance(t, ir.RankedTensorType):
            raise TypeError(f"TensorValue needs a ranked tensor value, got {t}")
        self.value = value
        self.type = t
        self.shape = tuple(t.shape)
        self.dtype = _dt.from_mlir(t.element_type)

    # ---- compile-time properties ------------------------------------------------
    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n

    @property
    def T(self):
        return _ops().transpose(self, tuple(reversed(range(self.ndim))))

    def dim(self) -> int:
        return self.ndim

    def __repr__(self) -> str:
        return f"Tensor(shape={list(self.shape)}, dtype={self.dtype!r})"

    __hash__ = object.__hash__

    # ---- things only known at run time ----------------------------------------
    def _runtime_only(self, what):
        # marked: a library call failing on this is kept as a run-time host call (fallback.py)
        e = _b.make_error(f"{what} of a tensor is only known at run time (tensor {list(self.shape)} "
                          f"{self.dtype}); use the tensor directly as the condition of `if`/`while`, "
                          f"or ops.select for elementwise choices")
        e.needs_runtime_value = True
        raise e

    def __bool__(self):
        self._runtime_only("the truth value")

    def __int__(self):
        self._runtime_only("the Python int value")

    def __float__(self):
        self._runtime_only("the Python float value")

    def __index__(self):
        self._runtime_only("the Python index value")

    def item(self, *index):
        """The one element (or the element at `index`) as a 0-d tensor: in graph mode
        it stands for the Python scalar that is only known at run time."""
        t = self[index if len(index) > 1 else index[0]] if index else self
        if t.size != 1:
            _b.error(f"item() of a tensor with {t.size} elements; pass an index")
        return _ops().reshape(t, ()) if t.shape else t

    def __array__(self, *args, **kwargs):
        e = _b.make_error("a tensor inside a jitted function cannot be converted to a numpy array "
                          "at compile time; use msmlir.ops / msmlir.numpy functions on it")
        e.needs_runtime_value = True
        raise e

    def __len__(self):
        if not self.shape:
            _b.error("len() of a 0-d tensor")
        return self.shape[0]

    def __iter__(self):
        if not self.shape:
            _b.error("iteration over a 0-d tensor")
        return (self[i] for i in range(self.shape[0]))

    def __setitem__(self, key, value):
        _b.error("tensor item assignment is not supported inside jit (tensors are values); "
                 "build a new tensor, e.g. with ops.select or ops.concat")

    # ---- operators -----------------------------------------------------------------
    def __add__(self, o): return _ops().add(self, o)
    def __radd__(self, o): return _ops().add(o, self)
    def __sub__(self, o): return _ops().sub(self, o)
    def __rsub__(self, o): return _ops().sub(o, self)
    def __mul__(self, o): return _ops().mul(self, o)
    def __rmul__(self, o): return _ops().mul(o, self)
    def __truediv__(self, o): return _ops().div(self, o)
    def __rtruediv__(self, o): return _ops().div(o, self)
    def __floordiv__(self, o): return _ops().floor_div(self, o)
    def __rfloordiv__(self, o): return _ops().floor_div(o, self)
    def __mod__(self, o): return _ops().floor_mod(self, o)
    def __rmod__(self, o): return _ops().floor_mod(o, self)
    def __pow__(self, o): return _ops().pow(self, o)
    def __rpow__(self, o): return _ops().pow(o, self)
    def __matmul__(self, o): return _ops().matmul(self, o)
    def __rmatmul__(self, o): return _ops().matmul(o, self)
    def __neg__(self): return _ops().neg(self)
    def __pos__(self): return self
    def __abs__(self): return _ops().abs(self)
    def __divmod__(self, o): return (_ops().floor_div(self, o), _ops().floor_mod(self, o))
    def __rdivmod__(self, o): return (_ops().floor_div(o, self), _ops().floor_mod(o, self))

    def __round__(self, ndigits=None):
        if ndigits is not None:
            _b.error("round(tensor, ndigits) is not supported; use ops.round(x * 10**n) / 10**n")
        return _ops().round(self)

    def __lt__(self, o): return _ops().less(self, o)
    def __le__(self, o): return _ops().less_equal(self, o)
    def __gt__(self, o): return _ops().greater(self, o)
    def __ge__(self, o): return _ops().greater_equal(self, o)

    def __eq__(self, o):
        if o is None:
            return False
        return _ops().equal(self, o)

    def __ne__(self, o):
        if o is None:
            return True
        return _ops().not_equal(self, o)

    def _logical(self, o, fn, name, swap=False):
        ops = _ops()
        other = ops.to_tensor(o, self.dtype)
        if not (self.dtype.is_bool and other.dtype.is_bool):
            _b.error(f"operator {name} needs bool tensors (got {self.dtype} and {other.dtype}); "
                     f"bitwise integer ops are not supported")
        return fn(other, self) if swap else fn(self, other)

    def __and__(self, o): return self._logical(o, _ops().logical_and, "&")
    def __rand__(self, o): return self._logical(o, _ops().logical_and, "&", True)
    def __or__(self, o): return self._logical(o, _ops().logical_or, "|")
    def __ror__(self, o): return self._logical(o, _ops().logical_or, "|", True)
    def __xor__(self, o): return self._logical(o, _ops().not_equal, "^")
    def __rxor__(self, o): return self._logical(o, _ops().not_equal, "^", True)

    def __invert__(self):
        if not self.dtype.is_bool:
            _b.error(f"operator ~ needs a bool tensor (got {self.dtype}); bitwise integer ops "
                     f"are not supported")
        return _ops().logical_not(self)

    # ---- indexing --------------------------------------------------------------------
    def __getitem__(self, index):
        return _ops().getitem(self, index)

    # ---- methods (MindSpore Tensor API) --------------------------------------------------
    def reshape(self, *shape):
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        return _ops().reshape(self, shape)

    view = reshape

    def transpose(self, *axes):
        if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
            axes = tuple(axes[0])
        if not axes:
            axes = tuple(reversed(range(self.ndim)))
        return _ops().transpose(self, axes)

    permute = transpose

    def swapaxes(self, axis0, axis1):
        return _ops().swapaxes(self, axis0, axis1)

    def flatten(self, start_dim=0, end_dim=-1):
        return _ops().flatten(self, start_dim=start_dim, end_dim=end_dim)

    def ravel(self):
        return _ops().reshape(self, (-1,))

    def squeeze(self, axis=None):
        return _ops().squeeze(self, axis)

    def expand_dims(self, axis):
        return _ops().expand_dims(self, axis)

    unsqueeze = expand_dims

    def broadcast_to(self, shape):
        return _ops().broadcast_to(self, shape)

    def expand_as(self, other):
        return _ops().broadcast_to(self, other.shape)

    def tile(self, multiples):
        return _ops().tile(self, multiples)

    def astype(self, dtype):
        return _ops().cast(self, dtype)

    to = astype

    def float(self):
        return _ops().cast(self, _dt.float32)

    def half(self):
        return _ops().cast(self, _dt.float16)

    def sum(self, axis=None, dtype=None, keepdims=False, keep_dims=None):
        return _ops().reduce_sum(self, axis, keepdims if keep_dims is None else keep_dims,
                                 dtype=dtype)

    def mean(self, axis=None, keep_dims=False, keepdims=None):
        return _ops().reduce_mean(self, axis, keep_dims if keepdims is None else keepdims)

    def max(self, axis=None, keepdims=False, keep_dims=None):
        return _ops().reduce_max(self, axis, keepdims if keep_dims is None else keep_dims)

    def min(self, axis=None, keepdims=False, keep_dims=None):
        return _ops().reduce_min(self, axis, keepdims if keep_dims is None else keep_dims)

    amax = max
    amin = min

    def prod(self, axis=None, keep_dims=False, keepdims=None):
        return _ops().reduce_prod(self, axis, keep_dims if keepdims is None else keepdims)

    def all(self, axis=None, keep_dims=False):
        return _ops().all(self, axis, keep_dims)

    def any(self, axis=None, keep_dims=False):
        return _ops().any(self, axis, keep_dims)

    def argmax(self, axis=None, keepdims=False):
        return _ops().argmax(self, axis, keepdims)

    def argmin(self, axis=None, keepdims=False):
        return _ops().argmin(self, axis, keepdims)

    def sort(self, axis=-1, descending=False):
        return _ops().sort(self, axis, descending)

    def argsort(self, axis=-1, descending=False):
        return _ops().argsort(self, axis, descending)

    def topk(self, k, dim=None, largest=True, sorted=True):
        return _ops().topk(self, k, dim, largest, sorted)

    def abs(self): return _ops().abs(self)
    def exp(self): return _ops().exp(self)
    def log(self): return _ops().log(self)
    def sqrt(self): return _ops().sqrt(self)
    def rsqrt(self): return _ops().rsqrt(self)
    def square(self): return _ops().square(self)
    def tanh(self): return _ops().tanh(self)
    def sigmoid(self): return _ops().sigmoid(self)
    def relu(self): return _ops().relu(self)
    def neg(self): return _ops().neg(self)
    def sign(self): return _ops().sign(self)
    def floor(self): return _ops().floor(self)
    def ceil(self): return _ops().ceil(self)
    def round(self): return _ops().round(self)
    def reciprocal(self): return _ops().reciprocal(self)
    def logical_not(self): return _ops().logical_not(self)

    def pow(self, exponent): return _ops().pow(self, exponent)
    def matmul(self, other): return _ops().matmul(self, other)
    def add(self, other): return _ops().add(self, other)
    def sub(self, other): return _ops().sub(self, other)
    def mul(self, other): return _ops().mul(self, other)
    def div(self, other): return _ops().div(self, other)
    def maximum(self, other): return _ops().maximum(self, other)
    def minimum(self, other): return _ops().minimum(self, other)

    def clip(self, xmin=None, xmax=None):
        return _ops().clamp(self, xmin, xmax)

    clamp = clip

    def softmax(self, axis=-1):
        return _ops().softmax(self, axis)

    def stop_gradient(self):
        return _ops().stop_gradient(self)
