"""`mindspore.device_context.gpu`: CUDA devices as the driver reports them."""
from . import op_precision, op_tuning  # noqa: F401

__all__ = ["is_available", "device_count", "op_precision", "op_tuning"]


def device_count() -> int:
    from ...gpu.device import cuda_device_count
    return cuda_device_count()


def is_available() -> bool:
    return device_count() > 0
