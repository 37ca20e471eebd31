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

import re

from ..runtime import mpi as _mpi

_GROUP = re.compile(r'\bgroup = "((?:[^"\\]|\\.)*)"')


def _unescape(s: str) -> str:
    """An MLIR string attribute's printed body -> the string (\\XX hex, \\\\, \\")."""
    out, i = bytearray(), 0
    while i < len(s):
        if s[i] == "\\" and re.fullmatch(r"[0-9A-Fa-f]{2}", s[i + 1:i + 3]):
            out.append(int(s[i + 1:i + 3], 16))
            i += 3
        elif s[i] == "\\" and i + 1 < len(s):
            out += s[i + 1].encode()
            i += 2
        else:
            out += s[i].encode()
            i += 1
    return out.decode("utf-8", "replace")


def groups_of(text: str) -> tuple[str, ...]:
    """The create_group groups whose collectives the mindir module `text` runs."""
    return tuple(sorted({_unescape(m) for m in _GROUP.findall(text)}))


def check_groups(groups, name: str) -> None:
    """ValueError naming the first group of `groups` that no longer exists."""
    for g in groups:
        if _mpi.group(g) is None:
            old = _mpi.known_group(g)
            again = f"create_group({g!r}, {old.ranks})" if old is not None else \
                f"create_group({g!r}, rank_ids)"
            raise ValueError(f"{name}: group {g!r} does not exist (destroy_group was called after "
                             f"this graph was compiled for it): {again} again before calling "
                             "it; no MPI call was made")


class CheckedDispatcher:
    """A dispatcher whose call first checks the graph's groups."""

    def __init__(self, inner, groups, name: str):
        self.inner, self.groups, self.name = inner, groups, name

    @property
    def sig(self):
        return self.inner.sig

    def __call__(self, arrays):
        check_groups(self.groups, self.name)
        return self.inner(arrays)

    def __getattr__(self, attr):
        return getattr(self.inner, attr)


class CheckedModule:
    """A CompiledModule's interface (call, dispatcher, the rest forwarded)
    with the group check in front of every call."""

    def __init__(self, compiled, groups):
        self.compiled, self.groups = compiled, tuple(groups)
        self._dispatchers: dict = {}

    def dispatcher(self, name: str) -> CheckedDispatcher:
        d = self._dispatchers.get(name)
        if d is None:
            d = self._dispatchers[name] = CheckedDispatcher(self.compiled.dispatcher(name),
                                                            self.groups, name)
        return d

    def call(self, name: str, *args):
        check_groups(self.groups, name)
        return self.compiled.call(name, *args)

    def __getattr__(self, attr):
        return getattr(self.compiled, attr)


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
