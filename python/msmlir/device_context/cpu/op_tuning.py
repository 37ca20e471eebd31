"""`mindspore.device_context.cpu.op_tuning`."""
from .. import _record

__all__ = ["threads_num"]


def threads_num(num):
    """CPU operator threads: MindSpore's context key `runtime_num_threads`."""
    if isinstance(num, bool) or not isinstance(num, int) or num <= 0:
        raise ValueError(f"For 'threads_num', the argument must be a positive int, but got "
                         f"{num!r}.")
    from ...common.context import set_context
    set_context(runtime_num_threads=num)
    _record("cpu", "threads_num", num)
