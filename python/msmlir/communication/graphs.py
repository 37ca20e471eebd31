"""Compiled graphs that run collectives of create_group groups check, at
every call and before any MPI call, that those groups still exist.

Why: a graph compiled for group "g0" loads g0's communicator from its cell
(runtime/mpi.py); after destroy_group("g0") the cell holds MPI_COMM_NULL and
the first collective would abort the whole MPI job (MPI_ERRORS_ARE_FATAL)
with a message that names no group. PyNative collectives check their group
at each call (ops/comm.py); a jit graph is compiled once and called many
times, so the check is here: `compile_graph` (a GRAPH_COMPILERS entry of
frontend/trace.py, registered when msmlir.communication is imported)
compiles a graph whose mindir carries `group = "..."` attributes as the
default CPU path does and wraps its dispatchers, which raise

    ValueError: step: group 'g0' does not exist (destroy_group was called
    after this graph was compiled for it): create_group('g0', [0, 1]) again
    before calling it; no MPI call was made

The check is a dict lookup per group per call. Sharded graphs (msmlir.parallel)
do the same check in their own dispatcher (parallel/compile.py)."""
from __future__ import annotations

from ..runtime.group_check import CheckedModule, groups_of


def compile_graph(text: str, parse, timings: dict, lowered=None):
    """GRAPH_COMPILERS entry: a CPU graph with group collectives, compiled by
    the default path and wrapped in CheckedModule; None for any other, and
    for those msmlir.parallel shards (whichever entry comes first)."""
    groups = groups_of(text) if 'group = "' in text else ()
    if not groups:
        return None
    from ..compiler import compile_module, device_target
    from ..parallel.compile import wants_sharding
    if device_target() not in ("CPU", None) or getattr(lowered, "per_rank_args", ()) \
            or wants_sharding(text):
        return None          # msmlir.parallel's graph compiler takes it (and checks too)
    compiled = compile_module(parse, timings=timings, name=getattr(lowered, "name", None),
                              source=text)
    return CheckedModule(compiled, groups)


def register() -> None:
    from ..frontend.trace import GRAPH_COMPILERS
    if compile_graph not in GRAPH_COMPILERS:
        GRAPH_COMPILERS.append(compile_graph)
