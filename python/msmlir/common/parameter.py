"""`msmlir.Parameter`: a named, trainable Tensor (MindSpore 2.x `mindspore.Parameter`).

A Parameter is a Tensor with a `name`, a `requires_grad` flag and in-place
updates (`set_data`, ``p[i] = v``). Arithmetic on a Parameter returns plain
Tensors. Inside a jitted function a Parameter is, like any Tensor, a
compile-time constant (Cells and autodiff decide how parameters become inputs).
"""
from __future__ import annotations

import numbers

import numpy as np

from .. import dtype as _dt
from .tensor import Tensor, _check_np_dtype

__all__ = ["Parameter", "ParameterTuple"]


def _contig(a):
    """C-contiguous without np.ascontiguousarray's promotion of 0-d arrays to 1-d."""
    return np.asarray(a, order="C")


class Parameter(Tensor):
    """A trainable tensor.

    Args:
        default_input: a Tensor (possibly from `initializer(...)`), numpy array,
            int (-> int32) or float (-> float32). The data is copied.
        name: the parameter's name (default ``"Parameter"``; Cells rename it after
            the attribute that holds it).
        requires_grad: whether optimizers and `grad` should update it.
        layerwise_parallel, parallel_optimizer: accepted for compatibility.
    """

    __msmlir_parameter__ = True   # a function argument in compiled code (frontend/builder.py)

    def __init__(self, default_input, name=None, requires_grad=True, layerwise_parallel=False,
                 parallel_optimizer=True, storage_format="", device=None):
        if isinstance(default_input, (bool, np.bool_)):
            raise ValueError("For 'Parameter', the 'default_input' can not be a bool.")
        if isinstance(default_input, Tensor):
            arr = np.array(default_input._data, copy=True)
        elif isinstance(default_input, numbers.Integral):
            arr = np.asarray(default_input, dtype=np.int32)
        elif isinstance(default_input, numbers.Real):
            arr = np.asarray(default_input, dtype=np.float32)
        elif isinstance(default_input, np.ndarray):
            arr = np.array(_check_np_dtype(default_input), copy=True, order="C")
        elif isinstance(default_input, (list, tuple)):
            arr = Tensor(default_input)._data
        else:
            raise TypeError(f"For 'Parameter', the type of 'default_input' should be one of "
                            f"['Tensor', 'numpy.ndarray', 'int', 'float', 'list', 'tuple'], but "
                            f"got {type(default_input).__name__}.")
        self.const_arg = False
        self._data = _contig(arr)
        self.name = name
        self.requires_grad = requires_grad
        self.layerwise_parallel = bool(layerwise_parallel)
        self.parallel_optimizer = bool(parallel_optimizer)
        self.is_init = False

    # ---- attributes ----------------------------------------------------------------------
    @property
    def name(self) -> str:
        return self._name

    @name.setter
    def name(self, name):
        if name is None:
            name = "Parameter"
        if not isinstance(name, str):
            raise TypeError(f"For 'Parameter', the 'name' must be a str, but got "
                            f"{type(name).__name__}.")
        if not name:
            raise ValueError("For 'Parameter', the 'name' must not be empty.")
        self._name = name

    @property
    def requires_grad(self) -> bool:
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        if not isinstance(value, (bool, np.bool_)):
            raise TypeError(f"For 'Parameter', 'requires_grad' must be a bool, but got "
                            f"{type(value).__name__}.")
        self._requires_grad = bool(value)

    @property
    def data(self) -> "Parameter":
        """The parameter itself (MindSpore's `Parameter.data`)."""
        return self

    def value(self) -> Tensor:
        """The current value as a Tensor (a copy)."""
        return Tensor._make(self._data.copy())

    # ---- updates -------------------------------------------------------------------------
    def set_data(self, data, slice_shape=False) -> "Parameter":
        """Replaces the value. The new data must have the parameter's shape; a dtype of
        lower or equal precision is converted to the parameter's dtype, a higher one
        raises TypeError (as in MindSpore)."""
        if isinstance(data, (bool, np.bool_)):
            raise TypeError("For 'Parameter.set_data', the new data can not be a bool")
        if isinstance(data, Tensor):
            new = data
        elif isinstance(data, (numbers.Real, np.generic)):
            if self.dtype.is_int and isinstance(data, float):
                raise TypeError(f"For 'Parameter.set_data', a float can not be assigned to the "
                                f"{self.dtype} parameter '{self.name}'")
            new = Tensor(np.full(self.shape, data, dtype=self._data.dtype))  # fills
        elif isinstance(data, np.ndarray):
            new = Tensor(data)
        else:
            raise TypeError(f"For 'Parameter.set_data', the new data must be a Tensor, int or "
                            f"float, but got {type(data).__name__}.")
        if tuple(new.shape) != tuple(self.shape) and not slice_shape:
            raise ValueError(f"For 'Parameter.set_data', the shape of the new data must be the "
                             f"same as the parameter '{self.name}': {list(self.shape)}, but got "
                             f"{list(new.shape)}.")
        if new.dtype is not self.dtype:
            if _dt.promote_types(self.dtype, new.dtype) is not self.dtype:
                raise TypeError(f"For 'Parameter.set_data', the dtype of the new data "
                                f"({new.dtype}) can not be converted implicitly to the dtype of "
                                f"the parameter '{self.name}' ({self.dtype}).")
            new = new.astype(self.dtype)
        self._data = np.array(new._data, copy=True, order="C")
        return self

    def init_data(self, layout=None, set_sliced=False) -> "Parameter":
        self.is_init = True
        return self

    def clone(self, init="same") -> "Parameter":
        """A new Parameter with the same name and flags; `init` 'same' copies the data,
        otherwise (an initializer, its name, a number or a Tensor) fills a tensor of
        the same shape and dtype."""
        if isinstance(init, str) and init == "same":
            src = self
        else:
            from .initializer import initializer
            src = initializer(init, self.shape, self.dtype)
        p = Parameter(src, name=self.name, requires_grad=self.requires_grad,
                      layerwise_parallel=self.layerwise_parallel,
                      parallel_optimizer=self.parallel_optimizer)
        return p

    def copy(self) -> "Parameter":
        return self.clone()

    # ---- printing ------------------------------------------------------------------------
    def __str__(self) -> str:
        return (f"Parameter (name={self.name}, shape={self.shape}, dtype={self.dtype!r}, "
                f"requires_grad={self.requires_grad})")

    __repr__ = __str__


class ParameterTuple(tuple):
    """A tuple of Parameters (MindSpore's `ParameterTuple`); names must be unique."""

    def __new__(cls, iterable):
        items = list(iterable)
        names = set()
        for p in items:
            if not isinstance(p, Parameter):
                raise TypeError(f"ParameterTuple: all elements must be Parameters, got "
                                f"{type(p).__name__}")
            if p.name in names and p.name != "Parameter":
                raise ValueError(f"ParameterTuple: duplicate parameter name '{p.name}'")
            names.add(p.name)
        return super().__new__(cls, items)

    def clone(self, prefix, init="same"):
        out = []
        for p in self:
            c = p.clone(init)
            c.name = f"{prefix}.{p.name}"
            out.append(c)
        return ParameterTuple(out)
