"""--mlir-timing: mlir-opt's execution time report, for ms-opt.

Why here and not in MLIR: the Python bindings expose `PassManager.enable_timing()`
(a DefaultTimingManager in tree mode that prints to fd 2 when the pass manager
is destroyed) but neither its display mode nor its root timer, and ms-opt runs
one pass manager per chunk. So the pass manager's own report (every pass,
upstream and msmlir's Python passes alike, which run as real MLIR passes, and
the analyses, `(A) ...`) is captured from fd 2 and parsed into a timer tree;
ms-opt adds its own `Parser` and `Output` timers, merges the chunks (as
mlir-opt's single timing manager does) and prints one report at the end in
`--mlir-timing-display=tree` (default) or `list` form, in the format of
mlir/lib/Support/Timing.cpp (a user-time column only when passes ran on
several threads).
"""
from __future__ import annotations

import re
import sys
import time

DISPLAY_MODES = ("tree", "list")

_DESCRIPTION = "... Execution time report ..."
_TIME = r"\s+(-?\d+\.\d+) \(\s*-?[\d.]+%\)"
_ENTRY = re.compile(rf"^(?:{_TIME})(?:{_TIME})?  (\s*)(\S.*)$")


class Timer:
    """One named timer: wall and user seconds, children in order. A child is
    keyed by its name and how many siblings of that name precede it, so that
    the timers of the same pipeline run on several chunks line up (as
    mlir-opt's single timing manager merges them)."""

    __slots__ = ("name", "wall", "user", "children")

    def __init__(self, name: str, wall: float = 0.0, user: float = 0.0):
        self.name = name
        self.wall = wall
        self.user = user
        self.children: dict[tuple[str, int], Timer] = {}

    def child(self, name: str, nth: int = 0) -> "Timer":
        t = self.children.get((name, nth))
        if t is None:
            t = self.children[(name, nth)] = Timer(name)
        return t

    def add_children(self, timers: list["Timer"]) -> None:
        """Merges `timers` (one report's siblings, in order) into the children."""
        seen: dict[str, int] = {}
        for t in timers:
            nth = seen[t.name] = seen.get(t.name, -1) + 1
            self.child(t.name, nth).merge(t)

    def merge(self, other: "Timer") -> None:
        """Adds `other`'s times and (recursively) its children into this timer."""
        self.wall += other.wall
        self.user += other.user
        self.add_children(list(other.children.values()))


def parse_report(text: str) -> list[Timer]:
    """The top-level timers of a DefaultTimingManager tree report (the `Rest`
    and `Total` lines dropped); raises ValueError on text that is not one."""
    if _DESCRIPTION not in text:
        raise ValueError("not an MLIR execution time report")
    roots: list[Timer] = []
    stack: list[tuple[int, Timer, dict]] = []   # (indent, timer, name counts of its children)
    for line in text.splitlines():
        m = _ENTRY.match(line)
        if m is None:
            continue
        first, second, indent, name = m.groups()
        wall = float(second if second is not None else first)
        user = float(first) if second is not None else wall
        depth = len(indent)
        if depth == 0 and name in ("Rest", "Total"):
            continue
        t = Timer(name, wall, user)
        while stack and stack[-1][0] >= depth:
            stack.pop()
        if stack:
            _, parent, counts = stack[-1]
            nth = counts[name] = counts.get(name, -1) + 1
            parent.children[(name, nth)] = t
        else:
            roots.append(t)
        stack.append((depth, t, {}))
    return roots


class TimingReport:
    """The timers of one ms-opt run: `Parser`, the passes, `Output` (merged
    over the chunks), under a root that runs from `start()` to `print()`."""

    def __init__(self, display: str = "tree"):
        if display not in DISPLAY_MODES:
            raise ValueError(f"unknown timing display mode '{display}'")
        self.display = display
        self.root = Timer("root")
        self._t0 = time.perf_counter()

    def add(self, name: str, seconds: float) -> None:
        t = self.root.child(name)
        t.wall += seconds
        t.user += seconds

    def add_pass_report(self, text: str) -> None:
        """Merges a pass manager's captured report; text that is not a report
        (e.g. other messages printed meanwhile) is passed on to stderr."""
        start = text.find("===")
        other = text[:start] if start >= 0 else text
        if start >= 0:
            self.root.add_children(parse_report(text[start:]))
        if other.strip():
            sys.stderr.write(other)

    def render(self) -> str:
        wall = time.perf_counter() - self._t0
        children = list(self.root.children.values())
        # the user time of a pass run on several threads exceeds its wall time
        user = wall + sum(max(c.user - c.wall, 0.0) for c in children)
        parallel = abs(user - wall) > 1e-9

        def fmt(t_wall: float, t_user: float, name: str, indent: int = 0) -> str:
            s = ""
            if parallel:
                s += f"  {t_user:8.4f} ({_pct(t_user, user):5.1f}%)"
            return s + f"  {t_wall:8.4f} ({_pct(t_wall, wall):5.1f}%)  " + " " * indent + name

        pad = (80 - len(_DESCRIPTION)) // 2
        lines = ["===" + "-" * 73 + "===", " " * pad + _DESCRIPTION, "===" + "-" * 73 + "===",
                 f"  Total Execution Time: {wall:.4f} seconds", "",
                 ("  ----User Time----" if parallel else "") + "  ----Wall Time----  ----Name----"]
        if self.display == "tree":
            def tree(t: Timer, indent: int):
                lines.append(fmt(t.wall, t.user, t.name, indent))
                for c in t.children.values():
                    tree(c, indent + 2)
            for c in children:
                tree(c, 0)
        else:
            merged: dict[str, list[float]] = {}

            def flat(t: Timer):
                acc = merged.setdefault(t.name, [0.0, 0.0])
                acc[0] += t.wall
                acc[1] += t.user
                for c in t.children.values():
                    flat(c)
            for c in children:
                flat(c)
            for name, (w, u) in sorted(merged.items(), key=lambda kv: -kv[1][0]):
                lines.append(fmt(w, u, name))
        rest_w = wall - sum(c.wall for c in children)
        rest_u = user - sum(c.user for c in children)
        lines.append(fmt(rest_w, rest_u, "Rest"))
        lines.append(fmt(wall, user, "Total"))
        return "\n".join(lines) + "\n"

    def print(self) -> None:
        sys.stderr.write(self.render())
        sys.stderr.flush()


def _pct(part: float, total: float) -> float:
    return 100.0 * part / total if total else 0.0
