"""msmlir.ops: the functional op namespace (MindSpore names and argument conventions).

Each function builds the matching `mindir` op when called inside a jitted
function on compile-time tensors (`msmlir.frontend.values.TensorValue`):
Python scalars become constants of the other operand's dtype, mixed dtypes are
promoted with `mindir.cast`, and shape errors raise `msmlir.CompileError` at the
user's line. Called outside `jit` on numpy arrays, a function compiles and runs
its op eagerly (PyNative style) and returns numpy arrays.

Importing this package installs the tensor-method table (tensor_methods.py) on
`TensorValue`. MindSpore's function transforms under `ops` (`ops.grad`,
`ops.value_and_grad`, `ops.GradOperation`, `ops.vmap`, `ops.vjp`,
`ops.custom_bprop`) are implemented by `msmlir.autodiff`, a higher layer, which
adds them to this namespace when it is imported; until then, the first use of
one of these names has it imported through msmlir/providers.py (this package
does not import autodiff).

MindSpore's Primitive classes (`ops.MatMul(transpose_b=True)`, `ops.Cast()`)
and the submodules `ops.operations` (P), `ops.functional` (F), `ops.function`
and `ops.composite` (C) are found the same way (see `__getattr__` below).
"""
from ._base import is_tensor, to_tensor  # noqa: F401
from .array import *  # noqa: F401,F403
from .array import __all__ as _array_all
from .math import *  # noqa: F401,F403
from .math import __all__ as _math_all
from .math import mat_mul  # noqa: F401
from .nn import *  # noqa: F401,F403
from .nn import __all__ as _nn_all
from .composed import *  # noqa: F401,F403
from .composed import __all__ as _composed_all
from .custom import Custom  # noqa: F401  (ops.Custom, func_type="pyfunc")
from .primitive import (Primitive, PrimitiveWithCheck, PrimitiveWithInfer,  # noqa: F401
                        constexpr, prim_attr_register)
from . import tensor_methods as _tensor_methods
from .. import providers as _providers
from ..frontend.values import TensorValue as _TensorValue

__all__ = (["is_tensor", "to_tensor", "mat_mul", "Custom", "Primitive", "PrimitiveWithInfer",
            "PrimitiveWithCheck", "constexpr", "prim_attr_register"]
           + _array_all + _math_all + _nn_all + _composed_all)

_tensor_methods.install(_TensorValue)

# Installed by msmlir.autodiff (see the module docstring).
TRANSFORMS = ("GradOperation", "grad", "value_and_grad", "vmap", "vjp", "custom_bprop")


# MindSpore's submodules of `ops` and the names they add to it (the Primitive
# classes `ops.MatMul`, `ops.composite`'s HyperMap & co., ...) live in higher
# layers (msmlir/ops/operations, composite.py, functional.py, function/); they are
# imported on first use through msmlir/providers.py ("ops_extensions").
SUBMODULES = ("operations", "composite", "functional", "function")


def __getattr__(name):
    if name in TRANSFORMS and _providers.get("function_transforms") is not None \
            and name in globals():   # msmlir.autodiff has just added it
        return globals()[name]
    if not name.startswith("__"):
        ext = _providers.get("ops_extensions")
        if ext is not None:
            value = ext(name)
            if value is not None:
                globals()[name] = value
                return value
    raise AttributeError(f"module 'msmlir.ops' has no attribute {name!r}")
