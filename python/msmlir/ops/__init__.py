"""msmlir.ops: the functional op namespace (MindSpore names and argument conventions).

Each function builds the matching `mindir` op when called inside a jitted
function on compile-time tensors (`msmlir.frontend.values.TensorValue`):
Python scalars become constants of the other operand's dtype, mixed dtypes are
promoted with `mindir.cast`, and shape errors raise `msmlir.CompileError` at the
user's line. Called outside `jit` on numpy arrays, a function compiles and runs
its op eagerly (PyNative style) and returns numpy arrays.
"""
from ._base import is_tensor, to_tensor  # noqa: F401
from .array import *  # noqa: F401,F403
from .array import __all__ as _array_all
from .math import *  # noqa: F401,F403
from .math import __all__ as _math_all
from .math import mat_mul  # noqa: F401
from .nn import *  # noqa: F401,F403
from .nn import __all__ as _nn_all
from .custom import Custom  # noqa: F401  (ops.Custom, func_type="pyfunc")

__all__ = ["is_tensor", "to_tensor", "mat_mul", "Custom"] + _array_all + _math_all + _nn_all

# Function transforms, also under ops as in MindSpore (ops.GradOperation, ops.grad,
# ops.value_and_grad, ops.vmap); implemented in msmlir.autodiff.
from ..autodiff import GradOperation, custom_bprop, grad, value_and_grad, vjp, vmap  # noqa: E402,F401

__all__ += ["GradOperation", "grad", "value_and_grad", "vmap", "vjp", "custom_bprop"]
