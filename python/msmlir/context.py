"""`mindspore.context`: set_context / get_context, the execution modes, and the
auto-parallel context (stored for the distributed work; msmlir runs one process).
The implementation is msmlir/common/context.py."""
from .common.context import (COMPATIBLE, GRAPH_MODE, LAX, PYNATIVE_MODE, STRICT,  # noqa: F401
                             ParallelMode, get_auto_parallel_context, get_context,
                             get_algo_parameters, get_ps_context, reset_algo_parameters,
                             reset_auto_parallel_context, reset_ps_context, set_algo_parameters,
                             set_auto_parallel_context, set_context, set_ps_context)
from .common.context import __all__  # noqa: F401
