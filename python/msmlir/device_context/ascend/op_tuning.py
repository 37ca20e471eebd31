"""`mindspore.device_context.ascend.op_tuning`: CANN tuning switches, recorded only."""
from .. import _record

__all__ = ["op_compile", "aoe_tune_mode", "aoe_job_type"]


def op_compile(value):
    _record("ascend", "op_compile", bool(value))


def aoe_tune_mode(mode):
    _record("ascend", "aoe_tune_mode", mode)


def aoe_job_type(job):
    _record("ascend", "aoe_job_type", job)
