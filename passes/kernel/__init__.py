"""Kernel-level passes: compute kernels (mskernel.fused {kind = #mskernel.kind<compute>}).

    autodiff.py       differentiate_kernel(): AKG-style operator-level AD, the
                      entry point graph-level AD calls for kernels without a bprop
    autodiff_pass.py  mskernel-autodiff: backward functions of kernels (ms-opt, lit)
    graph_hook.py     the fallback registered with mindir-autodiff (cross-level AD)
    inline.py         mskernel-inline-kernels: kernels -> their bodies (CPU)
    expr.py           scalar expression DAG: parse / simplify (zero elimination) / emit
    derivative.py     derivative rules of arith/math ops
    structure.py      a kernel body as linalg.generic stages
    builders.py       small IR builders shared with the msmlir.kernel DSL
"""
from . import autodiff_pass, inline  # noqa: F401  (register the passes)
from .autodiff import differentiate_kernel  # noqa: F401
from .expr import KernelADError  # noqa: F401
from .graph_hook import kernel_fallback, register as _register_with_graph_ad  # noqa: F401
from .inline import inline_kernel  # noqa: F401

# graph-level AD (mindir-autodiff) differentiates compute kernels through us
_register_with_graph_ad()
