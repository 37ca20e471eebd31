"""The group check in front of a compiled graph's calls: a graph compiled for
create_group groups raises a ValueError naming a destroyed group before any
MPI call (the reasons are in communication/graphs.py). Here, below both
msmlir.communication and msmlir.parallel, because both wrap their graphs
with it."""
from __future__ import annotations

import re

from . import mpi as _mpi

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
