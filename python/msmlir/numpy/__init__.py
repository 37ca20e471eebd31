"""msmlir.numpy: NumPy-style functions on tensors (mindspore.numpy).

Every function is compiled: inside `msmlir.jit` it builds `mindir` IR like an
`msmlir.ops` function (graph mode); called outside, the whole function is
traced into one kernel, compiled once per input signature and run (PyNative).
Called on numpy arrays it returns numpy arrays; on msmlir.Tensors it returns
Tensors. The creation functions (array, zeros, arange, linspace, eye, ...)
return msmlir.Tensors, as mindspore.numpy does. Shapes, axes, dtypes and
similar arguments must be known at compile time. Errors found while compiling
(bad shapes, out-of-range axes, unsupported arguments) raise
`msmlir.CompileError` with a message starting ``msmlir.numpy.<function>:``.

dtypes follow mindspore.numpy: Python ints become int32 and Python floats
float32; integer inputs of functions that only exist on floats (sqrt, mean,
divide, ...) are computed in float32; sums/products of bool and int8 are
accumulated in int32; indices (argmax, count_nonzero, searchsorted) are int32.

Implemented (by module):

* creation: array, asarray, asfarray, copy, zeros, ones, full, empty (zeros),
  zeros_like, ones_like, full_like, empty_like, arange, linspace, logspace, eye,
  identity, tri, tril, triu, diag, diagflat, diagonal, meshgrid, indices.
* math: add, subtract, multiply, divide, true_divide, floor_divide, remainder,
  mod, fmod, divmod, power, float_power, negative, positive, absolute, abs,
  fabs, sign, sqrt, square, cbrt, reciprocal, maximum, minimum, fmax, fmin,
  clip, copysign, heaviside, hypot, logaddexp, logaddexp2, exp, exp2, expm1,
  log, log2, log10, log1p, sin, cos, tan, arcsin, arccos, arctan, arctan2, sinh,
  cosh, tanh, arcsinh, arccosh, arctanh, deg2rad, rad2deg, radians, degrees,
  floor, ceil, rint, around, round, trunc, fix, sum, mean, prod, amax, amin, max,
  min, ptp, var, std, average, nansum, nanmean, nanmax, nanmin, nanvar, nanstd,
  argmax, argmin, count_nonzero, trace, cumsum, cumprod, nancumsum, diff,
  ediff1d, trapz, dot, vdot, inner, outer, matmul, tensordot, kron, cross,
  multi_dot, matrix_power, searchsorted, cov, corrcoef (without weights).
* logic: equal, not_equal, less, less_equal, greater, greater_equal,
  logical_and, logical_or, logical_xor, logical_not, isfinite, isnan, isinf,
  bitwise_and, bitwise_or, bitwise_xor, invert, bitwise_not, left_shift, right_shift,
  isposinf, isneginf, signbit, isclose, allclose, array_equal, array_equiv,
  all, any, sometrue, isin, in1d, isscalar.
* array manipulation: reshape, ravel, squeeze, expand_dims, transpose,
  swapaxes, moveaxis, rollaxis, concatenate, append, stack, vstack, row_stack,
  hstack, dstack, column_stack, split, array_split, hsplit, vsplit, dsplit, tile,
  repeat, broadcast_to, broadcast_arrays, flip, fliplr, flipud, roll, rot90,
  take, take_along_axis, where (3 arguments), select, choose, atleast_1d,
  atleast_2d, atleast_3d, pad, unravel_index, size, ndim, shape.
* sorting: sort, argsort, msort (stable for every `kind`, NaN last, int32
  indices), median, percentile, quantile (methods linear, lower, higher,
  midpoint, nearest; NaN-propagating).

Also (extras.py): window functions, polynomials, convolve/correlate, gradient,
unwrap, interp, digitize, norm, histogram / histogram_bin_edges / histogramdd /
histogram2d (equal-width bins given by their count), gcd / lcm (Euclid's
algorithm unrolled to its worst case for the dtype: 46 steps for int32, 92 for
int64), apply_along_axis & co.

Data-dependent output shapes, which a statically shaped graph cannot have, run in
PyNative only (inside jit: an error at the user's line): unique, bincount,
argwhere, intersect1d, setdiff1d (msmlir/ops/dynamic.py). The host-only dtypes
int16, uint8..uint64 are MindSpore's dtype objects (a Tensor holds them; compiled
ops refuse them). docs/compat.md lists every mindspore.numpy name
with its status.
"""
from ..dtype import bool_, float16, float32, float64, int8, int32, int64  # noqa: F401
from ..dtype import int16, uint8, uint16, uint32, uint64  # noqa: F401
from ..ops.dynamic import argwhere, intersect1d, setdiff1d  # noqa: F401
from ..frontend import fallback as _fallback
from .array_ops import *  # noqa: F401,F403
from .array_ops import __all__ as _array_all
from .creation import *  # noqa: F401,F403
from .creation import __all__ as _creation_all
from .logic import *  # noqa: F401,F403
from .logic import __all__ as _logic_all
from .math import *  # noqa: F401,F403
from .math import __all__ as _math_all
from .sorting import *  # noqa: F401,F403
from .sorting import __all__ as _sorting_all
from .extras import *  # noqa: F401,F403
from .extras import __all__ as _extras_all

int_ = int32
float_ = float32
pi = 3.141592653589793
e = 2.718281828459045
inf = float("inf")
PINF = inf
NINF = float("-inf")
nan = float("nan")
newaxis = None

_dtypes_all = ["bool_", "float16", "float32", "float64", "int8", "int32", "int64", "int_", "float_",
               "int16", "uint8", "uint16", "uint32", "uint64", "uint"]
uint = uint32
_constants_all = ["pi", "e", "inf", "PINF", "NINF", "nan", "newaxis"]
_dynamic_all = ["argwhere", "intersect1d", "setdiff1d"]
__all__ = sorted(set(_dynamic_all + _array_all + _creation_all + _logic_all + _math_all + _sorting_all + _dtypes_all
                    + _constants_all + _extras_all))

# JIT Fallback's warning on a NumPy call names the function here that compiles it.
_fallback.register_compiled_names("msmlir.numpy", __all__)

