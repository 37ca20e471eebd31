"""`mindspore.device_context.gpu.op_precision`."""
from .. import _check_bool, _record

__all__ = ["matmul_allow_tf32", "conv_allow_tf32"]


def matmul_allow_tf32(value):
    """TF32 tensor-core matmuls (msmlir-gpu-pipeline's `tf32` option; default off)."""
    _check_bool("matmul_allow_tf32", value)
    from ...common.context import get_context, set_context
    set_context(gpu_config={**(get_context("gpu_config") or {}), "matmul_allow_tf32": value})
    _record("gpu", "matmul_allow_tf32", value)


def conv_allow_tf32(value):
    """Recorded only: msmlir's GPU convolutions are implicit GEMMs in the input's dtype."""
    _check_bool("conv_allow_tf32", value)
    _record("gpu", "conv_allow_tf32", value)
