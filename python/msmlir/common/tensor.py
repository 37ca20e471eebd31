"""`msmlir.Tensor`: MindSpore's Tensor, a numpy-backed host tensor whose ops run as compiled kernels.

Storage is one C-contiguous, writeable numpy array owned by the Tensor
(`asnumpy()` returns it without a copy, like MindSpore on the CPU). Every
operator and method that computes (``+ - * / // % ** @``, comparisons,
reductions, reshapes, casts, ...) is an entry of the tensor-method table
(msmlir/ops/tensor_methods.py), shared with `TensorValue` so that it means the
same inside `jit`; in PyNative style each op is a compiled kernel, cached per op
and input signature (shapes, dtypes, compile-time arguments). Python scalar operands are passed to
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
  and methods then build IR like those of a traced tensor (the same table);
* numpy ufuncs on Tensors (``np.add(t, 1)``, ``ndarray * t``) run the matching
  msmlir op and return a Tensor; other ufuncs fall back to numpy on the host
  values and return numpy arrays.
"""
from __future__ import annotations

import functools
import itertools
import numbers
import weakref

import numpy as np

from .. import dtype as _dt
from .. import ops
from ..frontend import builder as _b
from ..frontend.trace import eager_call
from ..ops import tensor_methods
from ..ops._base import result_dtype

__all__ = ["Tensor", "tensor", "is_tensor"]


def _contig(a):
    """C-contiguous without np.ascontiguousarray's promotion of 0-d arrays to 1-d."""
    return np.asarray(a, order="C")


def _building() -> bool:
    """True while a jitted function (or an eager op) is being traced."""
    return _b.current() is not None


def _run(fn, *args, **kwargs):
    """Runs `fn` (an msmlir.ops function or a composite of them) on Tensors / arrays /
    Python values: inside a trace it just builds IR; outside, it is compiled once per
    signature (msmlir.frontend.trace.eager_call) and run, and the results become Tensors."""
    if _building():
        return fn(*args, **kwargs)
    if getattr(fn, "__msmlir_primitive__", False):
        out = fn(*args, **kwargs)           # an msmlir.ops primitive: its own eager path
    else:
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


_SUPPORTED_NP = {d.np_dtype: d for d in _dt.all_dtypes + _dt.host_dtypes
                 if d.np_dtype is not None}


def _np_dtype(dtype) -> np.dtype:
    try:
        return _dt.get(dtype).to_numpy()
    except (TypeError, ValueError) as e:
        raise TypeError(f"For 'Tensor', the dtype {dtype!r} is not supported: {e}") from None


def _check_np_dtype(a: np.ndarray) -> np.ndarray:
    if a.dtype not in _SUPPORTED_NP:
        raise TypeError(f"For 'Tensor', numpy dtype {a.dtype} is not supported by msmlir "
                        f"(supported: "
                        f"{', '.join(d.name for d in _dt.all_dtypes + _dt.host_dtypes)}); "
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


def _adoptable(arr: np.ndarray) -> bool:
    """C-contiguous, writeable, and nobody else's: numpy's own memory, or a
    buffer whose owner says so (`__msmlir_owned__`: msmlir.gpu's results in
    managed memory, which stay on the GPU until the host reads them)."""
    f = arr.flags
    return f.c_contiguous and f.writeable and (
        f.owndata or getattr(arr.base, "__msmlir_owned__", False))


def _owned(arr: np.ndarray) -> np.ndarray:
    """A C-contiguous, writeable array that nobody else holds (copies when needed)."""
    if _adoptable(arr):
        return arr
    return np.array(arr, copy=True, order="C")


class _TensorHookHandle:
    """What Tensor.register_hook returns (MindSpore's `_TensorHookHandle`): `id`, and
    `remove()` to unregister the hook."""

    _ids = itertools.count(1)
    owners: dict = {}       # handle id -> weakref of the tensor holding the hook

    def __init__(self, tensor):
        self.id = next(_TensorHookHandle._ids)
        self.tensor_weakref = weakref.ref(tensor)
        _TensorHookHandle.owners[self.id] = self.tensor_weakref

    def remove(self):
        Tensor.remove_hook(self.id)


class _Capsule:
    """A bare DLPack capsule as the object np.from_dlpack takes (CPU memory only)."""

    def __init__(self, capsule):
        self._capsule = capsule

    def __dlpack__(self, *args, **kwargs):
        return self._capsule

    def __dlpack_device__(self):
        return (1, 0)       # kDLCPU


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
    # inside jit, `Tensor(x)` of tensor values builds the tensor in the graph (frontend/parser.py)
    __msmlir_tensor_constructor__ = True

    def __init__(self, input_data=None, dtype=None, shape=None, init=None, internal=False,
                 const_arg=False, device=None):
        self.const_arg = const_arg
        if input_data is None:
            if init is None and dtype is not None and _is_dynamic(shape):
                # MindSpore's input description for Cell.set_inputs / jit(input_signature)
                self.__class__ = _DynamicShapeTensor
                self._describe(shape, dtype)
                return
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
        """The result-wrapping hook read by msmlir.jit / msmlir.ops (see module docstring).
        A compiled function's fresh output (an owned, contiguous array of a supported
        dtype) is adopted without _make's conversions."""
        if type(arr) is np.ndarray and arr.dtype in _SUPPORTED_NP:
            f = arr.flags     # (_adoptable, inline: every result of every call)
            if f.c_contiguous and f.writeable and (
                    f.owndata or getattr(arr.base, "__msmlir_owned__", False)):
                t = Tensor.__new__(Tensor)
                t.const_arg = False
                t._data = arr
                return t
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

    # ---- MindSpore 2.10's host-side attributes (names from dir(mindspore.Tensor)) ------------
    const_arg = False          # instances set it in __init__; the class default for _make's
    is_meta = False            # no meta device: every msmlir tensor holds its data

    @property
    def data(self) -> "Tensor":
        """A Tensor sharing this tensor's buffer (MindSpore: the data without autograd
        history; msmlir records no history on tensors)."""
        return Tensor.from_numpy(self._data)

    @property
    def device(self) -> str:
        """'CPU': msmlir's tensors live in host memory (MindSpore 2.10 on CPU says 'CPU')."""
        return "CPU"

    def value(self) -> "Tensor":
        """The tensor itself (MindSpore: the value of a tensor or a parameter)."""
        return self

    def data_ptr(self) -> int:
        """The host address of the data (MindSpore on CPU: the host address)."""
        return int(self._data.ctypes.data)

    def data_sync(self, wait=True):
        """No-op: host tensors are always in sync (MindSpore returns None)."""
        return None

    def is_shared(self) -> bool:
        return False

    def get_bytes(self) -> bytes:
        """The raw data as bytes (C order)."""
        return self._data.tobytes()

    def requires_grad_(self, requires_grad=True):
        """Sets the flag `grad` and optimizers read (a Parameter's `requires_grad`); returns
        None, as MindSpore 2.10's Tensor.requires_grad_."""
        if not isinstance(requires_grad, bool):
            raise TypeError(f"For 'Tensor.requires_grad_', requires_grad must be a bool, got "
                            f"{type(requires_grad).__name__}")
        if "requires_grad" in dir(type(self)):      # a Parameter: its own property
            self.requires_grad = requires_grad
        else:
            self._requires_grad = requires_grad

    # Backward hooks. msmlir differentiates compiled graphs, so a hook runs on the gradient
    # of a tensor that `msmlir.grad` / `value_and_grad` differentiates (an argument at a
    # grad_position, or a weight), in PyNative mode, after the compiled backward pass
    # (autodiff/grad.py); tensors created inside the differentiated function are traced
    # values without hooks.
    def register_hook(self, hook):
        """Registers `hook(grad) -> new grad or None` on this tensor's gradient; hooks run
        in registration order. Returns a handle whose `remove()` unregisters it."""
        if not callable(hook):
            raise TypeError(f"Expected a callable hook function, but got "
                            f"{type(hook).__name__}.")
        handle = _TensorHookHandle(self)
        self.__dict__.setdefault("_grad_hooks", {})[handle.id] = hook
        return handle

    def hooks(self) -> list:
        """The registered backward hooks, in registration order."""
        return list(self.__dict__.get("_grad_hooks", {}).values())

    @staticmethod
    def remove_hook(handle_id):
        """Unregisters the hook of handle id `handle_id` (no-op if already removed)."""
        ref = _TensorHookHandle.owners.pop(handle_id, None)
        t = ref() if ref is not None else None
        if t is not None:
            t.__dict__.get("_grad_hooks", {}).pop(handle_id, None)

    def _run_grad_hooks(self, grad):
        """`grad` passed through this tensor's hooks (autodiff/grad.py)."""
        for hook in self.hooks():
            out = hook(grad)
            if out is not None:
                grad = out
        return grad

    # DLPack: numpy's own exporter/importer (the buffer is shared, not copied)
    def __dlpack__(self, *args, **kwargs):
        return self._data.__dlpack__(*args, **kwargs)

    def __dlpack_device__(self):
        return self._data.__dlpack_device__()

    def to_dlpack(self):
        """A DLPack capsule of this tensor's buffer (shared; MindSpore 2.10's to_dlpack)."""
        return self._data.__dlpack__()

    @staticmethod
    def from_dlpack(dlpack) -> "Tensor":
        """A Tensor on the buffer of an object with `__dlpack__` (numpy, torch CPU tensors,
        ...; shared) or of a DLPack capsule (numpy imports a bare capsule read-only: the
        data is copied)."""
        if type(dlpack).__name__ == "PyCapsule":
            dlpack = _Capsule(dlpack)
        try:
            arr = np.from_dlpack(dlpack)
        except ValueError as e:
            if "incorrect name" not in str(e):
                raise
            raise RuntimeError("from_dlpack received an invalid capsule: a DLPack capsule can "
                               "be consumed only once") from None
        return Tensor.from_numpy(arr if arr.flags.writeable else arr.copy())

    def set_dtype(self, dtype):
        """Converts the data to `dtype` in place and returns the dtype (as MindSpore 2.10)."""
        self._data = _owned(_check_np_dtype(self._data.astype(_np_dtype(dtype))))
        return self.dtype

    def to_(self, device=None, non_blocking=False) -> "Tensor":
        """In-place `to(device)`: msmlir tensors stay in host memory; returns the tensor."""
        return self

    def set_(self, source=None, storage_offset=0, size=None, stride=None) -> "Tensor":
        """Makes the tensor hold `source`'s data (a copy; shape and dtype follow it)."""
        if source is None:
            self._data = _owned(np.empty((0,), self._data.dtype))
            return self
        if storage_offset or size is not None or stride is not None:
            raise ValueError("For 'Tensor.set_', storage_offset/size/stride are not supported: "
                             "msmlir tensors own contiguous buffers")
        return self.assign_value(source)

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

    def type(self, dtype=None):
        """Tensor.type(): the dtype's name (a str); Tensor.type(dtype): astype(dtype).
        (Not in the shared method table: a traced tensor's `type` is its MLIR type.)"""
        return str(self.dtype) if dtype is None else self.astype(dtype)

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
            return _run(getattr(ops, name), *inputs)
        conv = [np.asarray(x._data) if isinstance(x, Tensor) else x for x in inputs]
        if "out" in kwargs:
            kwargs["out"] = tuple(o._data if isinstance(o, Tensor) else o for o in kwargs["out"])
        return getattr(ufunc, method)(*conv, **kwargs)

    # ---- indexing --------------------------------------------------------------------------
    def __getitem__(self, index):
        if _building():
            return ops.getitem(self, index)
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


# ---------------------------------------------------------------------------
# Dispatch helpers
# ---------------------------------------------------------------------------

def _strong_scalar(x, other):
    """A Python scalar operand as a 0-d array of the op's result dtype (so that the
    kernel takes it as a runtime input instead of a compile-time constant)."""
    dt = result_dtype(x, other)
    try:
        return np.asarray(x, dtype=dt.to_numpy())
    except (OverflowError, ValueError, TypeError):
        return x


def _strong(a, b):
    """(a, b) with a Python scalar operand made strong (outside a build)."""
    if not _building():
        if _is_scalar(a) and not _is_scalar(b):
            a = _strong_scalar(a, b)
        elif _is_scalar(b) and not _is_scalar(a):
            b = _strong_scalar(b, a)
    return a, b


def _binary(name, a, b):
    a, b = _strong(a, b)
    return _run(getattr(ops, name), a, b)


def _eager_method(name, m):
    """A method of the table (msmlir/ops/tensor_methods.py) as a Tensor method."""
    fn = m.fn
    if m.composite:          # one kernel for the whole method
        def method(self, *args, **kwargs):
            return _run(fn, self, *args, **kwargs)
    elif m.binary:
        def method(self, other):
            return _wrap(fn(*_strong(self, other)))
    else:
        def method(self, *args, **kwargs):
            return _wrap(fn(self, *args, **kwargs))
    method.__name__ = name
    method.__qualname__ = f"Tensor.{name}"
    method.__doc__ = fn.__doc__
    return method


# Every operator and method that computes: the table shared with TensorValue (jit).
tensor_methods.install(Tensor, _eager_method, exclude=("__getitem__",))

_compiled_astype = Tensor.astype


def _astype(self, dtype, copy=True):
    """Tensor.astype(dtype): a compiled cast; host-only dtypes (int16, unsigned,
    complex: the compiler has no such element type; bfloat16, which the CPU
    runtime cannot pass yet, through ml_dtypes) are converted on the host
    with numpy's rules (float -> int truncates toward zero, as the compiled cast)."""
    dt = _dt.get(dtype)
    # bfloat16 too: the CPU runtime has no bf16 buffers yet (ml_dtypes on the host)
    if not (dt.compiled and self.dtype.compiled) or _dt.bfloat16 in (dt, self.dtype):
        if dt is self.dtype and not copy:
            return self
        if dt.np_dtype is None:
            raise TypeError(f"For 'Tensor.astype', {dt!r} has no numpy type here")
        import warnings
        with np.errstate(invalid="ignore", over="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", np.exceptions.ComplexWarning)  # real part, as MS
            return Tensor._make(self._data.astype(dt.np_dtype))
    return _compiled_astype(self, dt, copy)


_astype.__doc__ = _compiled_astype.__doc__ or _astype.__doc__
Tensor.astype = _astype


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
    return ops.gather(ops.reshape(x, (-1,)), pos, 0)


def _k_scatter(x, v, src, pos_shape):
    flat = ops.reshape(x, (-1,))
    v = ops.cast(v, x.dtype)
    if tuple(v.shape) != tuple(pos_shape):
        v = ops.broadcast_to(v, pos_shape)
    vals = ops.reshape(v, (-1,))
    return ops.reshape(ops.gather(ops.concat([flat, vals], 0), src, 0), x.shape)


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


tensor.__msmlir_tensor_constructor__ = True


def is_tensor(obj) -> bool:
    """Whether `obj` is a Tensor (MindSpore's `mindspore.is_tensor`)."""
    return isinstance(obj, Tensor)


def _is_dynamic(shape) -> bool:
    """None (unknown rank) or a shape with None / -1 dims: MindSpore's dynamic shapes."""
    return shape is None or (isinstance(shape, (list, tuple))
                             and any(d is None or d == -1 for d in shape))


class _DynamicShapeTensor(Tensor):
    """`Tensor(shape=[None, 3], dtype=ms.float32)`: describes a dynamic-shape input
    (MindSpore's `Cell.set_inputs` / `jit(input_signature=...)`). It holds no data:
    msmlir compiles one graph per concrete input shape, so it only records the
    declared dtype and rank (dims unknown: -1; rank unknown: shape (-2,))."""

    def _describe(self, shape, dtype):
        self.__dict__["_dyn_shape"] = ((-2,) if shape is None else
                                       tuple(-1 if d is None else int(d) for d in shape))
        self.__dict__["_dyn_dtype"] = dtype

    @property
    def _data(self):
        raise ValueError(f"For 'Tensor', a tensor of dynamic shape {list(self.shape)} holds no "
                         f"data: it only describes an input (Cell.set_inputs, jit's "
                         f"input_signature)")

    @property
    def shape(self) -> tuple:
        return self._dyn_shape

    @property
    def dtype(self):
        return self._dyn_dtype

    @property
    def ndim(self) -> int:
        return -1 if self._dyn_shape == (-2,) else len(self._dyn_shape)

    def __repr__(self) -> str:
        return f"Tensor(shape={list(self.shape)}, dtype={self.dtype!r}, value=<no data>)"

    __str__ = __repr__
