"""`mindspore.context`: set_context / get_context, the execution modes, and the
auto-parallel context (DATA_PARALLEL: TrainOneStepCell reduces gradients;
SEMI_AUTO_PARALLEL / AUTO_PARALLEL: jit graphs are compiled sharded over the
MPI ranks, msmlir.parallel).
The implementation is msmlir/common/context.py."""
from .common.context import (COMPATIBLE, GRAPH_MODE, LAX, PYNATIVE_MODE, STRICT,  # noqa: F401
                             ParallelMode, get_auto_parallel_context, get_context,
                             get_algo_parameters, get_ps_context, reset_algo_parameters,
                             reset_auto_parallel_context, reset_ps_context, set_algo_parameters,
                             set_auto_parallel_context, set_context, set_ps_context)
from .common.context import __all__  # noqa: F401
# semi-auto / auto parallel: msmlir.parallel plugs its graph compiler into jit
# (frontend/trace.py, GRAPH_COMPILERS) when imported
from . import parallel as _parallel  # noqa: F401,E402
