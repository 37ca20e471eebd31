"""`TensorValue`: a tensor while a jitted function is being compiled.

It wraps one SSA value of a ranked tensor type. Its shape, dtype and ndim are
compile-time Python constants. Its Python operators and methods are those of
`msmlir.Tensor`: the one table of msmlir/ops/tensor_methods.py, which
`msmlir.ops` installs here when it is imported (this module is below the ops),
so user code such as ``(x @ w + b).sum(axis=1)`` or ``x[:, 1:, None]`` works
on it as on a MindSpore Tensor. Its *value* is only known at run time:
`bool()`, `int()`, `float()` and numpy conversion raise a CompileError.
"""
from __future__ import annotations

from mlir import ir

from .. import dtype as _dt
from . import builder as _b


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
        return t.reshape(()) if t.shape else t

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
