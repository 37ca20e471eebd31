"""msmlir.kernel: user-written kernels as compute definitions (AKG-style DSL).

    import msmlir
    from msmlir.kernel import In, compute, reduce_sum

    @msmlir.kernel                      # or: from msmlir.kernel import kernel; @kernel
    def matmul(a: In[("n", "k")], b: In[("k", "m")]):
        return compute(("n", "m"), lambda i, j: reduce_sum(lambda k: a[i, k] * b[k, j], k="k"))

A kernel becomes an `mskernel.fused {kind = #mskernel.kind<compute>}` op whose body is one
linalg.generic per stage; `Kernel.grad` / the mskernel-autodiff pass /
`msmlir.passes.kernel.differentiate_kernel` generate its backward kernels
(kernel-level AD with zero elimination). See kernel.py and dsl.py.

This module is callable: `msmlir.kernel(fn)` is `msmlir.kernel.kernel(fn)`.
"""
import sys as _sys
import types as _types

from .dsl import (IndexVar, KernelDefinitionError, Tensor, ceil, compute, cos, equal,  # noqa: F401
                  erf, exp, expm1, floor, log, log1p, maximum, minimum, not_equal, power,
                  reduce_max, reduce_min, reduce_sum, relu, rsqrt, select, sigmoid, sin, sqrt,
                  tanh, where)
from .kernel import In, Kernel, kernel  # noqa: F401


class _CallableModule(_types.ModuleType):
    """`@msmlir.kernel` works on the module itself."""

    def __call__(self, fn=None, **options):
        return kernel(fn, **options)


_sys.modules[__name__].__class__ = _CallableModule
