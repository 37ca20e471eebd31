"""`CompileError` and the source positions it points at (layer 0: the module builder,
the ops and the parser all raise it, so it sits below all of them)."""
from __future__ import annotations

import linecache
from dataclasses import dataclass


@dataclass(frozen=True)
class SourcePos:
    """A position in the user's source: 1-based line and column (MLIR style)."""
    filename: str
    line: int
    col: int = 1
    end_line: int | None = None
    end_col: int | None = None

    def __str__(self) -> str:
        return f"{self.filename}:{self.line}:{self.col}"

    def source_line(self) -> str:
        return linecache.getline(self.filename, self.line).rstrip("\n")


class CompileError(Exception):
    """A user error found while compiling a jitted function: a shape or type error,
    unsupported syntax, an undefined variable, ...

    `str(err)` reads ``file:line:col: error: message`` followed by the source line,
    a caret under the offending expression and, when the error is inside a helper
    function, the chain of call sites. Attributes: `msg`, `filename`, `lineno`,
    `col` (None when the error has no source position, e.g. in eager mode) and
    `call_stack` (list of (function name, SourcePos) of the enclosing calls)."""

    def __init__(self, msg: str, pos: SourcePos | None = None, call_stack=()):
        self.msg = msg
        self.pos = pos
        self.call_stack = list(call_stack)
        super().__init__(self._format())

    @property
    def filename(self):
        return self.pos.filename if self.pos else None

    @property
    def lineno(self):
        return self.pos.line if self.pos else None

    @property
    def col(self):
        return self.pos.col if self.pos else None

    def _format(self) -> str:
        if self.pos is None:
            return self.msg
        out = [f"{self.pos}: error: {self.msg}"]
        text = self.pos.source_line()
        if text.strip():
            out.append("    " + text)
            start = max(self.pos.col - 1, 0)
            if self.pos.end_line == self.pos.line and self.pos.end_col and self.pos.end_col > start + 1:
                width = self.pos.end_col - 1 - start
            else:
                width = 1
            out.append("    " + " " * start + "^" + "~" * (width - 1))
        for name, site in reversed(self.call_stack):
            out.append(f"  in '{name}', called from {site.filename}:{site.line}")
        return "\n".join(out)


CompileError.__module__ = "msmlir"  # shown as msmlir.CompileError in tracebacks
