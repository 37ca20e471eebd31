"""`mindspore.device_context.cpu`: the CPU is always there, one device."""
from . import op_tuning  # noqa: F401

__all__ = ["is_available", "device_count", "op_tuning"]


def is_available() -> bool:
    return True


def device_count() -> int:
    return 1
