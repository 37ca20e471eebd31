"""The array protocol: what every layer treats as an array, and how results
come back as the caller's tensor type.

Layer 0 so that jit, the function transforms, msmlir.numpy and the runtime
share one definition instead of each keeping its own predicate:

* an *array* is a numpy array or scalar, or an object with ``asnumpy()`` and
  ``shape`` (``msmlir.Tensor``, ``Parameter``, or any user type);
* a type defining ``__msmlir_wrap__`` (a static method ndarray -> object) gets
  its results back wrapped: a jit / eager-op call with such an input returns
  such objects (numpy in, numpy out is unchanged);
* the *host tensor type* (``msmlir.Tensor``) is what functions that create a
  tensor from nothing return in PyNative (``msmlir.numpy.zeros``), and how run-time
  values are shown to host callbacks (``print``). It lives in layer 6, so it is
  not imported here but provided by the package root (providers.py).
"""
from __future__ import annotations

import numpy as np

from . import providers
from .pytree import iter_leaves

__all__ = ["is_array", "as_array", "result_wrapper", "wrap_results", "host_tensor",
           "is_host_tensor", "has_array", "host_wrapper"]


def is_array(v, *, scalars: bool = True) -> bool:
    """Whether `v` is an array (see the module docstring); with scalars=False,
    numpy scalars (np.float32(1), ...) are not arrays but numbers."""
    if isinstance(v, np.ndarray):
        return True
    if isinstance(v, np.generic):
        return scalars
    return hasattr(v, "asnumpy") and hasattr(v, "shape")


def as_array(v) -> np.ndarray:
    """An array's data as a C-contiguous numpy array (no copy when it already is one)."""
    if hasattr(v, "asnumpy") and not isinstance(v, np.ndarray):
        v = v.asnumpy()
    return np.asarray(v, order="C")  # (np.ascontiguousarray would make 0-d arrays 1-d)


def result_wrapper(args, kwargs):
    """The `__msmlir_wrap__` of the first argument (in a tree) whose type has one, or None."""
    for v in iter_leaves([args, kwargs]):
        w = getattr(type(v), "__msmlir_wrap__", None)
        if w is not None:
            return w
    return None


def has_array(args, kwargs) -> bool:
    """Whether an array (numpy array or Tensor-like, not a Python or numpy scalar)
    occurs anywhere in the argument tree."""
    return any(is_array(v, scalars=False) for v in iter_leaves([args, kwargs]))


def host_wrapper():
    """The host tensor type's `__msmlir_wrap__`, or None when none is registered:
    what ops that create a tensor from nothing (`ops.zeros`, `P.Fill`) return
    in PyNative, as MindSpore returns Tensors."""
    cls = providers.get("host_tensor_type")
    return None if cls is None else cls.__msmlir_wrap__


def wrap_results(out, wrap):
    """`out` with every numpy array wrapped by `wrap` (None: unchanged)."""
    if wrap is None:
        return out
    if isinstance(out, np.ndarray):
        return wrap(out)
    if isinstance(out, tuple):
        items = [wrap_results(o, wrap) for o in out]
        return type(out)(*items) if hasattr(out, "_fields") else tuple(items)
    if isinstance(out, list):
        return [wrap_results(o, wrap) for o in out]
    if isinstance(out, dict):
        return {k: wrap_results(o, wrap) for k, o in out.items()}
    return out


def host_tensor(arr):
    """`arr` as a host tensor (numpy array when none is registered)."""
    cls = providers.get("host_tensor_type")
    return arr if cls is None else cls.__msmlir_wrap__(np.asarray(arr))


def is_host_tensor(v) -> bool:
    """Whether `v` is an instance of the host tensor type (subclasses included)."""
    cls = providers.get("host_tensor_type")
    return cls is not None and isinstance(v, cls)
