"""`msmlir.Tensor`: MindSpore's Tensor, a numpy-backed host tensor whose ops run as compiled kernels.

Storage is one C-contiguous, writeable numpy array owned by the Tensor
(`asnumpy()` returns it without a copy, like MindSpore on the CPU). Every
operator and method that computes (``+ - * / // % ** @``, comparisons,
reductions, reshapes, casts, ``t[i]``, ``t[i] = v``) calls `msmlir.ops`, so in
PyNative style each op is a compiled kernel, cached per op and input signature
(shapes, dtypes, compile-time arguments). Python scalar operands are passed to
kernels as 0-d arrays of the result dtype, so ``t * 0.5`` and ``t * 0.25`` share
one kernel. Indexing computes the flat positions of the selected elements on the
host (index arithmetic only, output-sized for basic indices) and moves the data
with one compiled gather kernel per (input shape, result shape), so a loop
``for i in range(n): t[i]`` compiles once.

Interoperability protocol (with `msmlir.jit`, `msmlir.ops` and numpy):

* a Tensor is "array-like" for the frontend: it has ``asnumpy()`` and ``shape``
  and supports ``np.asarray(t)`` (``__array__``, no copy);
* ``Tensor.__msmlir_wrap__`` (a static method ndarray -> Tensor) tells
  `msmlir.jit` functions and eager `msmlir.ops` calls to return Tensors when
  any input was a Tensor (numpy in, numpy out is unchanged);
* inside a jitted function a Tensor is a compile-time constant; its operators
  and methods then build IR through `msmlir.ops` like a traced tensor;
* numpy ufuncs on Tensors (``np.add(t, 1)``, ``ndarray * t``) run the matching
  msmlir op and return a Tensor; other ufuncs fall back to numpy on the host
  values and return numpy arrays.
"""
from __future__ import annotations

import functools
import numbers

import numpy as np

from .. import dtype as _dt

__all__ = ["Tensor", "tensor", "is_tensor"]


def _contig(a):
    """C-contiguous without np.ascontiguousarray's promotion of 0-d arrays to 1-d."""
    return np.asarray(a, order="C")


def _ops():
    from .. import ops
    return ops


def _building() -> bool:
    """True while a jitted function (or an eager op) is being traced."""
    from ..frontend import builder as _b
    return _b.current() is not None


def _run(fn, *args, **kwargs):
    """Runs `fn` (an msmlir.ops function or a composite of them) on Tensors / arrays /
    Python values: inside a trace it just builds IR; outside, it is compiled once per
    signature (msmlir.frontend.jit.eager_call) and run, and the results become Tensors."""
    if _building():
        return fn(*args, **kwargs)
    if getattr(fn, "__msmlir_primitive__", False):
        out = fn(*args, **kwargs)           # an msmlir.ops primitive: its own eager path
    else:
        from ..frontend.jit import eager_call
        out = eager_call(fn, args, kwargs)
    return _wrap(out)


def _wrap(r):
    """Kernel results (numpy) -> Tensors."""
    if isinstance(r, Tensor):
        return r
    if isinstance(r, np.ndarray):
        return Tensor._make(r)
    if isinstance(r, np.generic):
        return Tensor._make(np.asarray(r))
    if isinstance(r, tuple):
        return tuple(_wrap(e) for e in r)
    if isinstance(r, list):
        return [_wrap(e) for e in r]
    return r


_SUPPORTED_NP = {d.np_dtype: d for d in _dt.all_dtypes if d.np_dtype is not None}


def _np_dtype(dtype) -> np.dtype:
    try:
        return _dt.get(dtype).to_numpy()
    except (TypeError, ValueError) as e:
        raise TypeError(f"For 'Tensor', the dtype {dtype!r} is not supported: {e}") from None


def _check_np_dtype(a: np.ndarray) -> np.ndarray:
    if a.dtype not in _SUPPORTED_NP:
        raise TypeError(f"For 'Tensor', numpy dtype {a.dtype} is not supported by msmlir "
                        f"(supported: {', '.join(d.name for d in _dt.all_dtypes)}); "
                        f"convert it first, e.g. with .astype(np.int32)")
    return a


def _from_python(data) -> np.ndarray:
    """Python scalars / nested lists with MindSpore's default dtypes:
    bool -> bool, int -> int64, float -> float32."""
    try:
        arr = np.asarray(data)
    except ValueError as e:
        raise ValueError(f"For 'Tensor', the nested data is ragged or malformed: {e}") from None
    if arr.dtype == object:
        raise TypeError(f"For 'Tensor', cannot convert {type(data).__name__} data with "
                        f"mixed or non-numeric elements to a tensor")
    if arr.dtype.kind == "f":
        arr = arr.astype(np.float32)
    elif arr.dtype.kind in "iu":
        arr = arr.astype(np.int64)
    elif arr.dtype.kind == "b":
        arr = arr.astype(np.bool_)
    elif arr.dtype.kind in "US":
        raise TypeError("For 'Tensor', string data is not supported")
    return arr


def _owned(arr: np.ndarray) -> np.ndarray:
    """A C-contiguous, writeable array that nobody else holds (copies when needed)."""
    if arr.flags.c_contiguous and arr.flags.writeable and arr.flags.owndata:
        return arr
    return np.array(arr, copy=True, order="C")


def _is_scalar(x) -> bool:
    return isinstance(x, (bool, int, float)) or (isinstance(x, np.generic) and not isinstance(x, np.ndarray))


class Tensor:
    """A tensor (MindSpore 2.x `mindspore.Tensor`).

    Args:
        input_data: a Tensor, Python bool/int/float, (nested) list/tuple, or numpy
            array. Python floats become float32, ints int64, bools bool; numpy arrays
            keep their dtype. The data is copied.
        dtype: an msmlir dtype (``ms.float32``...) to convert the data to.
        shape, init: with ``input_data=None``, the shape and an initializer
            (an `msmlir.common.initializer.Initializer`, its name, or a number)
            that fills the tensor (filled at construction; ``init_data()`` is a no-op).
    """

    __array_priority__ = 1000

    def __init__(self, input_data=None, dtype=None, shape=None, init=None, internal=False,
                 const_arg=False, device=None):
        self.const_arg = const_arg
        if input_data is None:
            if init is None or shape is None:
                raise ValueError("For 'Tensor', 'input_data' is None: both 'shape' and 'init' "
                                 "must be given (static shape tensors need data or an "
                                 "initializer)")
            from .initializer import initializer as _initializer
            src = _initializer(init, shape, dtype if dtype is not None else _dt.float32)
            self._data = src._data
            return
        if init is not None:
            raise ValueError("For 'Tensor', 'init' must be None when 'input_data' is given")
        if isinstance(input_data, Tensor):
            arr = np.array(input_data._data, copy=True)
        elif isinstance(input_data, np.ndarray):
            arr = np.array(input_data, copy=True, order="C")
        elif isinstance(input_data, np.generic):
            arr = np.array(input_data)
        elif isinstance(input_data, (bool, int, float)):
            arr = _from_python(input_data)
        elif isinstance(input_data, (list, tuple)):
            arr = _from_python([np.asarray(e) if isinstance(e, Tensor) else e for e in input_data]
                               if any(isinstance(e, Tensor) for e in input_data) else input_data)
        elif hasattr(input_data, "__array__"):
            arr = np.array(input_data, copy=True)
        else:
            raise TypeError(f"For 'Tensor', the type of 'input_data' should be one of "
                            f"['Tensor', 'ndarray', 'list', 'tuple', 'float', 'int', 'bool'], "
                            f"but got {type(input_data).__name__}.")
        if dtype is not None:
            arr = arr.astype(_np_dtype(dtype), copy=False)
        if shape is not None:
            shape = (shape,) if isinstance(shape, numbers.Integral) else tuple(shape)
            if tuple(arr.shape) != shape:
                arr = arr.reshape(shape)
        self._data = _owned(_check_np_dtype(arr))

    # ---- construction helpers --------------------------------------------------------
    @classmethod
    def _make(cls, arr: np.ndarray) -> "Tensor":
        """Wraps an array that the caller hands over (no copy; kernels' fresh outputs)."""
        t = Tensor.__new__(Tensor)
        t.const_arg = False
        t._data = _owned(_check_np_dtype(np.asarray(arr)))
        return t

    @staticmethod
    def __msmlir_wrap__(arr) -> "Tensor":
        """The result-wrapping hook read by msmlir.jit / msmlir.ops (see module docstring)."""
        return Tensor._make(arr)

    @staticmethod
    def from_numpy(array) -> "Tensor":
        """A Tensor sharing memory with a C-contiguous numpy array (copied if not contiguous)."""
        if not isinstance(array, np.ndarray):
            raise TypeError(f"For 'Tensor.from_numpy', the input must be a numpy.ndarray, "
                            f"but got {type(array).__name__}")
        t = Tensor.__new__(Tensor)
        t.const_arg = False
        t._data = _check_np_dtype(_contig(array))
        return t

    def init_data(self, slice_index=None, shape=None, opt_shape=None):
        """Materializes lazily initialized data (msmlir initializes eagerly: returns self)."""
        return self

    @property
    def has_init(self) -> bool:
        return False

    @property
    def init(self):
        return None

    # ---- properties ----------------------------------------------------------------------
    @property
    def shape(self) -> tuple:
        return tuple(self._data.shape)

    @property
    def dtype(self) -> _dt.DType:
        return _SUPPORTED_NP[self._data.dtype]

    @property
    def ndim(self) -> int:
        return self._data.ndim

    @property
    def size(self) -> int:
        return int(self._data.size)

    @property
    def itemsize(self) -> int:
        return self._data.itemsize

    @property
    def nbytes(self) -> int:
        return int(self._data.nbytes)

    @property
    def strides(self) -> tuple:
        return tuple(self._data.strides)

    @property
    def T(self) -> "Tensor":
        return self.transpose()

    def dim(self) -> int:
        return self.ndim

    ndimension = dim

    def numel(self) -> int:
        return self.size

    nelement = numel

    def is_contiguous(self) -> bool:
        return True

    # ---- host access ---------------------------------------------------------------------
    def asnumpy(self) -> np.ndarray:
        """The tensor's data as a numpy array (shares memory with the tensor)."""
        return self._data

    numpy = asnumpy

    def __array__(self, dtype=None, copy=None):
        a = self._data
        if dtype is not None and np.dtype(dtype) != a.dtype:
            return a.astype(dtype)
        return a.copy() if copy else a

    def item(self, index=None):
        """The value of a one-element tensor (or of element `index`) as a Python number."""
        if index is None:
            if self._data.size != 1:
                raise ValueError(f"For 'Tensor.item', the tensor must have exactly one element "
                                 f"when 'index' is None, but it has {self._data.size}")
            return self._data.item()
        return self._data.item(index)

    def tolist(self):
        return self._data.tolist()

    def copy(self) -> "Tensor":
        return Tensor._make(self._data.copy())

    def __copy__(self):
        return self.copy()

    def __deepcopy__(self, memo):
        out = self.__class__.__new__(self.__class__)
        memo[id(self)] = out
        import copy as _copy
        for k, v in self.__dict__.items():
            setattr(out, k, _copy.deepcopy(v, memo))
        return out

    def assign_value(self, value) -> "Tensor":
        """Replaces the data (shape and dtype may change), like MindSpore's assign_value."""
        if isinstance(value, Tensor):
            self._data = np.array(value._data, copy=True)
        else:
            self._data = Tensor(value)._data
        return self

    # ---- conversions to Python -------------------------------------------------------------
    def _one(self, what):
        if self._data.size != 1:
            raise ValueError(f"only one element tensors can be converted to Python {what}, "
                             f"but got a tensor with {self._data.size} elements")
        return self._data.reshape(-1)[0]

    def __bool__(self):
        if self._data.size != 1:
            raise ValueError("The truth value of a Tensor with more than one element is "
                             "ambiguous. Use .any() or .all()")
        return bool(self._data.reshape(-1)[0])

    def __int__(self):
        return int(self._one("scalars"))

    def __float__(self):
        return float(self._one("scalars"))

    def __index__(self):
        if not (self.dtype.is_int or self.dtype.is_bool):
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self._one("scalars"))

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of unsized object")
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        for i in range(self._data.shape[0]):
            yield self[i]

    __hash__ = object.__hash__

    # ---- printing ------------------------------------------------------------------------
    def __repr__(self) -> str:
        return (f"Tensor(shape={list(self.shape)}, dtype={self.dtype!r}, value="
                f"{_format_value(self._data)})")

    def __str__(self) -> str:
        return str(self._data)

    def __format__(self, spec) -> str:
        """f"{loss:.4f}" formats the value of a one-element tensor; other specs apply
        to str(tensor)."""
        if spec and self._data.size == 1:
            return format(self._data.reshape(-1)[0].item(), spec)
        return format(str(self), spec)

    # ---- numpy ufuncs ----------------------------------------------------------------------
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        name = _UFUNC_OPS.get(ufunc)
        if name is not None and method == "__call__" and not kwargs:
            if len(inputs) == 2:
                return _binary(name, inputs[0], inputs[1])
            return _run(getattr(_ops(), name), *inputs)
        conv = [np.asarray(x._data) if isinstance(x, Tensor) else x for x in inputs]
        if "out" in kwargs:
            kwargs["out"] = tuple(o._data if isinstance(o, Tensor) else o for o in kwargs["out"])
        return getattr(ufunc, method)(*conv, **kwargs)

    # ---- arithmetic ------------------------------------------------------------------------
    def __add__(self, o): return _binary("add", self, o)
    def __radd__(self, o): return _binary("add", o, self)
    def __sub__(self, o): return _binary("sub", self, o)
    def __rsub__(self, o): return _binary("sub", o, self)
    def __mul__(self, o): return _binary("mul", self, o)
    def __rmul__(self, o): return _binary("mul", o, self)
    def __truediv__(self, o): return _binary("div", self, o)
    def __rtruediv__(self, o): return _binary("div", o, self)
    def __floordiv__(self, o): return _binary("floor_div", self, o)
    def __rfloordiv__(self, o): return _binary("floor_div", o, self)
    def __mod__(self, o): return _binary("floor_mod", self, o)
    def __rmod__(self, o): return _binary("floor_mod", o, self)
    def __pow__(self, o): return _binary("pow", self, o)
    def __rpow__(self, o): return _binary("pow", o, self)
    def __matmul__(self, o): return _binary("matmul", self, o)
    def __rmatmul__(self, o): return _binary("matmul", o, self)
    def __neg__(self): return _unary("neg", self)
    def __pos__(self): return self
    def __abs__(self): return _unary("abs", self)

    def __lt__(self, o): return _binary("less", self, o)
    def __le__(self, o): return _binary("less_equal", self, o)
    def __gt__(self, o): return _binary("greater", self, o)
    def __ge__(self, o): return _binary("greater_equal", self, o)

    def __eq__(self, o):
        if o is None:
            return False
        return _binary("equal", self, o)

    def __ne__(self, o):
        if o is None:
            return True
        return _binary("not_equal", self, o)

    def _logical(self, o, name, op, swap=False):
        other_dt = o.dtype if isinstance(o, Tensor) else (
            _dt.from_numpy(o.dtype) if isinstance(o, np.ndarray) else None)
        if not self.dtype.is_bool or (other_dt is not None and not other_dt.is_bool) or \
                (other_dt is None and not isinstance(o, (bool, np.bool_))):
            raise TypeError(f"operator {op} is only supported on bool tensors in msmlir "
                            f"(got {self.dtype}); bitwise integer ops are not supported")
        return _binary(name, o, self) if swap else _binary(name, self, o)

    def __and__(self, o): return self._logical(o, "logical_and", "&")
    def __rand__(self, o): return self._logical(o, "logical_and", "&", True)
    def __or__(self, o): return self._logical(o, "logical_or", "|")
    def __ror__(self, o): return self._logical(o, "logical_or", "|", True)
    def __xor__(self, o): return self._logical(o, "logical_xor", "^")
    def __rxor__(self, o): return self._logical(o, "logical_xor", "^", True)

    def __invert__(self):
        if not self.dtype.is_bool:
            raise TypeError(f"operator ~ is only supported on bool tensors in msmlir "
                            f"(got {self.dtype})")
        return _unary("logical_not", self)

    # ---- indexing --------------------------------------------------------------------------
    def __getitem__(self, index):
        if _building():
            return _ops().getitem(self, index)
        pos = _positions(self.shape, index)
        if pos.size == 0:
            return Tensor._make(np.empty(pos.shape, self._data.dtype))
        flat = pos.reshape(-1) if pos.ndim == 0 else pos
        out = _run(_k_gather, self, flat)
        if pos.ndim == 0:
            out = Tensor._make(out._data.reshape(()))
        return out

    def __setitem__(self, index, value):
        if _building():
            from ..frontend import builder as _b
            _b.error("tensor item assignment is not supported inside jit (tensors are values); "
                     "build a new tensor, e.g. with ops.select or ops.concat")
        pos = _positions(self.shape, index)
        if pos.size == 0:
            return
        if isinstance(value, Tensor):
            v = value
        elif _is_scalar(value):
            try:
                v = np.asarray(value, dtype=self._data.dtype)
            except (OverflowError, ValueError) as e:
                raise ValueError(f"For 'Tensor.__setitem__', cannot store {value!r} in a "
                                 f"{self.dtype} tensor: {e}") from None
        else:
            v = Tensor(value) if not isinstance(value, np.ndarray) else _check_np_dtype(value)
        vshape = tuple(np.shape(v))
        try:
            if np.broadcast_shapes(vshape, pos.shape) != pos.shape:
                raise ValueError
        except ValueError:
            raise ValueError(f"For 'Tensor.__setitem__', the value of shape {list(vshape)} cannot "
                             f"be broadcast to the indexed shape {list(pos.shape)}") from None
        n = self._data.size
        src = np.arange(n, dtype=np.int64)
        src[pos.reshape(-1)] = n + np.arange(pos.size, dtype=np.int64)
        out = _run(_k_scatter, self, v, src, tuple(pos.shape))
        np.copyto(self._data, out._data)

    # ---- shape methods ---------------------------------------------------------------------
    def reshape(self, *shape):
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        return _call("reshape", self, tuple(int(s) for s in shape))

    def view(self, *shape):
        return self.reshape(*shape)

    def view_as(self, other):
        return self.reshape(other.shape)

    def transpose(self, *axes):
        if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
            axes = tuple(axes[0])
        if not axes or (len(axes) == 1 and axes[0] is None):
            axes = tuple(reversed(range(self.ndim)))
        return _call("transpose", self, tuple(axes))

    def permute(self, *axes):
        return self.transpose(*axes)

    def swapaxes(self, axis0, axis1):
        return _call("swapaxes", self, axis0, axis1)

    def flatten(self, order="C", *, start_dim=0, end_dim=-1):
        if order not in ("C", "F"):
            raise ValueError(f"For 'Tensor.flatten', 'order' must be 'C' or 'F', got {order!r}")
        if order == "F":
            return self.transpose().flatten(start_dim=start_dim, end_dim=end_dim)
        return _call("flatten", self, start_dim=start_dim, end_dim=end_dim)

    def ravel(self):
        return self.reshape(-1)

    def squeeze(self, axis=None):
        if isinstance(axis, list):
            axis = tuple(axis)
        return _call("squeeze", self, axis)

    def expand_dims(self, axis):
        return _call("expand_dims", self, axis)

    def unsqueeze(self, dim):
        return self.expand_dims(dim)

    def broadcast_to(self, shape):
        return _call("broadcast_to", self, tuple(shape))

    def expand_as(self, other):
        return self.broadcast_to(other.shape)

    def tile(self, reps):
        return _call("tile", self, tuple(reps) if isinstance(reps, (list, tuple)) else (reps,))

    def gather(self, input_indices, axis, batch_dims=0):
        return _call("gather", self, input_indices, axis, batch_dims)

    # ---- dtype methods ---------------------------------------------------------------------
    def astype(self, dtype, copy=True):
        dt = _dt.get(dtype)
        if dt is self.dtype:
            return self.copy() if copy else self
        return _call("cast", self, dt)

    def to(self, dtype):
        return self.astype(dtype)

    def float(self): return self.astype(_dt.float32)
    def half(self): return self.astype(_dt.float16)
    def double(self): return self.astype(_dt.float64)
    def int(self): return self.astype(_dt.int32)
    def long(self): return self.astype(_dt.int64)
    def bool(self): return self.astype(_dt.bool_)

    # ---- reductions ------------------------------------------------------------------------
    def sum(self, axis=None, dtype=None, keepdims=False, initial=None):
        out = _call("reduce_sum", self, _axes(axis), keepdims, dtype=dtype)
        return out if initial is None else out + initial

    def mean(self, axis=None, keep_dims=False):
        return _call("reduce_mean", self, _axes(axis), keep_dims)

    def prod(self, axis=None, keep_dims=False, dtype=None):
        out = _call("reduce_prod", self, _axes(axis), keep_dims)
        return out if dtype is None else out.astype(dtype)

    def _extreme(self, name, arg, axis, keepdims, initial, where, return_indices, combine):
        if where is not True:
            raise NotImplementedError(f"Tensor.{name}: 'where' is not supported in msmlir")
        out = _call("reduce_" + name, self, _axes(axis), keepdims)
        if initial is not None:
            out = _binary(combine, out, initial)
        if return_indices:
            if axis is not None and not isinstance(axis, int):
                raise ValueError(f"Tensor.{name}: return_indices needs a single int axis")
            return out, _call(arg, self, axis, keepdims)
        return out

    def max(self, axis=None, keepdims=False, *, initial=None, where=True, return_indices=False):
        return self._extreme("max", "argmax", axis, keepdims, initial, where, return_indices,
                             "maximum")

    def min(self, axis=None, keepdims=False, *, initial=None, where=True, return_indices=False):
        return self._extreme("min", "argmin", axis, keepdims, initial, where, return_indices,
                             "minimum")

    amax = max
    amin = min

    def argmax(self, axis=None, keepdims=False):
        return _call("argmax", self, axis, keepdims)

    def argmin(self, axis=None, keepdims=False):
        return _call("argmin", self, axis, keepdims)

    def sort(self, axis=-1, descending=False):
        return _call("sort", self, axis, descending)

    def argsort(self, axis=-1, descending=False):
        return _call("argsort", self, axis, descending)

    def topk(self, k, dim=None, largest=True, sorted=True):
        return _call("topk", self, k, dim, largest, sorted)

    def all(self, axis=None, keep_dims=False):
        return _run(_k_all, self, _axes(axis), keep_dims)

    def any(self, axis=None, keep_dims=False):
        return _run(_k_any, self, _axes(axis), keep_dims)

    def var(self, axis=None, ddof=0, keepdims=False):
        return _run(_k_var, self, _axes(axis), ddof, keepdims)

    def std(self, axis=None, ddof=0, keepdims=False):
        return self.var(axis, ddof, keepdims).sqrt()

    # ---- elementwise methods ---------------------------------------------------------------
    def abs(self): return _unary("abs", self)
    absolute = abs
    def exp(self): return _unary("exp", self)
    def log(self): return _unary("log", self)
    def log1p(self): return _unary("log1p", self)
    def expm1(self): return _unary("expm1", self)
    def sqrt(self): return _unary("sqrt", self)
    def rsqrt(self): return _unary("rsqrt", self)
    def square(self): return _unary("square", self)
    def tanh(self): return _unary("tanh", self)
    def sigmoid(self): return _unary("sigmoid", self)
    def relu(self): return _unary("relu", self)
    def neg(self): return _unary("neg", self)
    negative = neg
    def sign(self): return _unary("sign", self)
    def floor(self): return _unary("floor", self)
    def ceil(self): return _unary("ceil", self)
    def round(self): return _unary("round", self)
    def trunc(self): return _unary("trunc", self)
    def reciprocal(self): return _unary("reciprocal", self)
    def sin(self): return _unary("sin", self)
    def cos(self): return _unary("cos", self)
    def erf(self): return _unary("erf", self)
    def isnan(self): return _unary("isnan", self)
    def isinf(self): return _unary("isinf", self)
    def isfinite(self): return _unary("isfinite", self)
    def logical_not(self): return _unary("logical_not", self)

    def add(self, other): return _binary("add", self, other)
    def sub(self, other): return _binary("sub", self, other)
    subtract = sub
    def mul(self, other): return _binary("mul", self, other)
    multiply = mul
    def div(self, other): return _binary("div", self, other)
    divide = div
    true_divide = div
    def floor_divide(self, other): return _binary("floor_div", self, other)
    def remainder(self, other): return _binary("floor_mod", self, other)
    def pow(self, exponent): return _binary("pow", self, exponent)
    def matmul(self, other): return _binary("matmul", self, other)
    def maximum(self, other): return _binary("maximum", self, other)
    def minimum(self, other): return _binary("minimum", self, other)
    def equal(self, other): return _binary("equal", self, other)
    eq = equal
    def not_equal(self, other): return _binary("not_equal", self, other)
    ne = not_equal
    def less(self, other): return _binary("less", self, other)
    lt = less
    def less_equal(self, other): return _binary("less_equal", self, other)
    le = less_equal
    def greater(self, other): return _binary("greater", self, other)
    gt = greater
    def greater_equal(self, other): return _binary("greater_equal", self, other)
    ge = greater_equal
    def logical_and(self, other): return _binary("logical_and", self, other)
    def logical_or(self, other): return _binary("logical_or", self, other)
    def logical_xor(self, other): return _binary("logical_xor", self, other)

    def clip(self, xmin=None, xmax=None):
        return _call("clamp", self, xmin, xmax)

    def clamp(self, min=None, max=None):
        return _call("clamp", self, min, max)

    def softmax(self, axis=-1):
        return _call("softmax", self, axis)


# ---------------------------------------------------------------------------
# Dispatch helpers
# ---------------------------------------------------------------------------

def _call(name, *args, **kwargs):
    return _run(getattr(_ops(), name), *args, **kwargs)


def _unary(name, x):
    return _run(getattr(_ops(), name), x)


def _strong_scalar(x, other):
    """A Python scalar operand as a 0-d array of the op's result dtype (so that the
    kernel takes it as a runtime input instead of a compile-time constant)."""
    from ..ops._base import result_dtype
    dt = result_dtype(x, other)
    try:
        return np.asarray(x, dtype=dt.to_numpy())
    except (OverflowError, ValueError, TypeError):
        return x


def _binary(name, a, b):
    if not _building():
        if _is_scalar(a) and not _is_scalar(b):
            a = _strong_scalar(a, b)
        elif _is_scalar(b) and not _is_scalar(a):
            b = _strong_scalar(b, a)
    return _run(getattr(_ops(), name), a, b)


def _axes(axis):
    if isinstance(axis, list):
        return tuple(axis)
    return axis


_UFUNC_OPS = {
    np.add: "add", np.subtract: "sub", np.multiply: "mul", np.true_divide: "div",
    np.floor_divide: "floor_div", np.remainder: "floor_mod", np.power: "pow",
    np.matmul: "matmul", np.maximum: "maximum", np.minimum: "minimum", np.equal: "equal",
    np.not_equal: "not_equal", np.less: "less", np.less_equal: "less_equal",
    np.greater: "greater", np.greater_equal: "greater_equal", np.negative: "neg",
    np.absolute: "abs", np.exp: "exp", np.log: "log", np.sqrt: "sqrt", np.tanh: "tanh",
    np.sin: "sin", np.cos: "cos", np.floor: "floor", np.ceil: "ceil", np.sign: "sign",
    np.logical_and: "logical_and", np.logical_or: "logical_or", np.logical_not: "logical_not",
    np.logical_xor: "logical_xor", np.square: "square", np.reciprocal: "reciprocal",
}


# ---------------------------------------------------------------------------
# Composite kernels (traced into one module each; cached by eager_call)
# ---------------------------------------------------------------------------

def _k_gather(x, pos):
    ops = _ops()
    return ops.gather(ops.reshape(x, (-1,)), pos, 0)


def _k_scatter(x, v, src, pos_shape):
    ops = _ops()
    flat = ops.reshape(x, (-1,))
    v = ops.cast(v, x.dtype)
    if tuple(v.shape) != tuple(pos_shape):
        v = ops.broadcast_to(v, pos_shape)
    vals = ops.reshape(v, (-1,))
    return ops.reshape(ops.gather(ops.concat([flat, vals], 0), src, 0), x.shape)


def _as_bool_int(x):
    ops = _ops()
    if x.dtype.is_bool:
        return ops.cast(x, _dt.int32)
    return ops.cast(ops.not_equal(x, 0), _dt.int32)


def _k_all(x, axis, keep_dims):
    ops = _ops()
    return ops.cast(ops.reduce_min(_as_bool_int(x), () if axis is None else axis, keep_dims),
                    _dt.bool_)


def _k_any(x, axis, keep_dims):
    ops = _ops()
    return ops.cast(ops.reduce_max(_as_bool_int(x), () if axis is None else axis, keep_dims),
                    _dt.bool_)


def _k_var(x, axis, ddof, keepdims):
    ops = _ops()
    if not x.dtype.is_float:
        x = ops.cast(x, _dt.float32)
    axes = tuple(range(x.ndim)) if axis is None else (axis if isinstance(axis, tuple) else (axis,))
    n = 1
    for a in axes:
        n *= x.shape[a]
    m = ops.reduce_mean(x, axes, True)
    d = ops.sub(x, m)
    s = ops.reduce_sum(ops.mul(d, d), axes, keepdims)
    return ops.div(s, float(max(n - ddof, 0)))


# ---------------------------------------------------------------------------
# Indexing: flat positions of the selected elements (numpy semantics)
# ---------------------------------------------------------------------------

def _index_item(i):
    """Tensor indices -> numpy arrays; other items unchanged."""
    if isinstance(i, Tensor):
        return i._data
    return i


def _is_basic(item) -> bool:
    return item is None or item is Ellipsis or isinstance(item, slice) or (
        isinstance(item, (numbers.Integral, np.integer)) and not isinstance(item, (bool, np.bool_)))


@functools.lru_cache(maxsize=256)
def _c_strides(shape):
    st, acc = [], 1
    for d in reversed(shape):
        st.append(acc)
        acc *= d
    return tuple(reversed(st))


def _positions(shape, index) -> np.ndarray:
    """int64 array of the flat (C-order) positions that `x[index]` selects, with the
    shape of `x[index]`. Basic indices cost O(result); advanced ones O(x.size)."""
    shape = tuple(shape)
    if not isinstance(index, tuple):
        index = (index,)
    index = tuple(_index_item(i) for i in index)
    if not all(_is_basic(i) for i in index):
        base = np.arange(int(np.prod(shape, dtype=np.int64)), dtype=np.int64).reshape(shape)
        try:
            return _contig(base[index])
        except IndexError as e:
            raise IndexError(f"For 'Tensor' indexing: {e}") from None
    n_ell = sum(1 for i in index if i is Ellipsis)
    if n_ell > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    n_used = sum(1 for i in index if i is not None and i is not Ellipsis)
    if n_used > len(shape):
        raise IndexError(f"too many indices for tensor: tensor is {len(shape)}-dimensional, "
                         f"but {n_used} were indexed")
    items = []
    for i in index:
        if i is Ellipsis:
            items.extend([slice(None)] * (len(shape) - n_used))
        else:
            items.append(i)
    if n_ell == 0:
        items.extend([slice(None)] * (len(shape) - n_used))
    strides = _c_strides(shape)
    offset = 0
    vecs = []        # one per output axis
    dim = 0
    for it in items:
        if it is None:
            vecs.append(np.zeros(1, np.int64))
            continue
        size_d = shape[dim]
        if isinstance(it, slice):
            vecs.append(np.arange(*it.indices(size_d), dtype=np.int64) * strides[dim])
        else:
            i = int(it)
            if not -size_d <= i < size_d:
                raise IndexError(f"index {i} is out of bounds for axis {dim} with size {size_d}")
            offset += (i + size_d if i < 0 else i) * strides[dim]
        dim += 1
    out_shape = tuple(len(v) for v in vecs)
    pos = np.full(out_shape, offset, dtype=np.int64)
    k = len(vecs)
    for ax, v in enumerate(vecs):
        if len(v) > 1 or v.any():
            pos += v.reshape((1,) * ax + (len(v),) + (1,) * (k - ax - 1))
    return pos


# ---------------------------------------------------------------------------
# repr
# ---------------------------------------------------------------------------

def _format_value(a: np.ndarray) -> str:
    if a.ndim == 0:
        return " " + str(a.item() if a.dtype.kind != "f" else a)
    if a.dtype.kind == "f":
        fmt = {"float_kind": lambda x: f"{x: .8e}"}
    else:
        fmt = None
    body = np.array2string(a, separator=", ", formatter=fmt, threshold=1000, edgeitems=3,
                           max_line_width=120)
    return ("\n" if a.ndim >= 2 else " ") + body


def tensor(input_data=None, dtype=None, shape=None, init=None):
    """Creates a Tensor (MindSpore's `mindspore.tensor`)."""
    return Tensor(input_data, dtype, shape, init)


def is_tensor(obj) -> bool:
    """Whether `obj` is a Tensor (MindSpore's `mindspore.is_tensor`)."""
    return isinstance(obj, Tensor)
