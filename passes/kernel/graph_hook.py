"""Cross-level AD: graph-level autodiff differentiates compute kernels through
kernel-level AD.

`mindir-autodiff` (passes/autodiff) asks its fallbacks for ops without a
registered bprop; this module registers one that claims every `mskernel.fused`
kernel whose body kernel-level AD understands (linalg.generic stages) and
returns a rule building its backward kernel with `differentiate_kernel`, for
the operands the graph-level engine says need a gradient (`needs_grad`).
Kernels with other bodies (e.g. graph kernels of mindir ops) are left to
other rules / fallbacks.
"""
from __future__ import annotations

from mlir import ir

from ..autodiff import AutodiffError, needs_grad, register_fallback, unregister_fallback
from .autodiff import differentiate_kernel
from .expr import FLOAT_TYPES, KernelADError
from .structure import analyze


def _is_float_tensor(v: ir.Value) -> bool:
    t = v.type
    return isinstance(t, ir.RankedTensorType) and str(t.element_type) in FLOAT_TYPES


def kernel_bprop(op, douts):
    """Graph-level bprop rule of a compute kernel: (op, douts) -> dins."""
    operands = list(op.operation.operands)
    wrt = [i for i, v in enumerate(operands) if needs_grad(i) and _is_float_tensor(v)]
    dins = [None] * len(operands)
    if not wrt:
        return dins
    try:
        grads = differentiate_kernel(op, wrt, list(douts))
    except KernelADError as e:
        raise AutodiffError(f"kernel-level autodiff: {e}", op.operation.location) from None
    for i, g in zip(wrt, grads):
        dins[i] = g
    return dins


def kernel_fallback(op):
    """Fallback hook for mindir-autodiff: a rule for compute kernels, else None."""
    if op.operation.name != "mskernel.fused":
        return None
    try:
        analyze(op)
    except KernelADError:
        return None
    return kernel_bprop


def register() -> None:
    """Registers kernel_fallback with graph-level AD (idempotent)."""
    unregister_fallback(kernel_fallback)
    register_fallback(kernel_fallback)
