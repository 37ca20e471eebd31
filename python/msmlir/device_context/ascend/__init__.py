"""`mindspore.device_context.ascend`: no Ascend device in an msmlir process (its Ascend
target runs generated Ascend C on the CPU emulation), so none is available."""
from . import op_precision, op_tuning  # noqa: F401

__all__ = ["is_available", "device_count", "op_precision", "op_tuning"]


def is_available() -> bool:
    return False


def device_count() -> int:
    return 0
