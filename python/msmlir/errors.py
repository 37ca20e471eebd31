"""`CompileError` and the source positions it points at (layer 0: the module builder,
the ops and the parser all raise it, so it sits below all of them).

Every CompileError is also the built-in exception MindSpore raises for the same
case, so `except TypeError` / `ValueError` / `IndexError` / `RuntimeError`
written for MindSpore catches it: `CompileError(msg)` is an instance of one of
`CompileTypeError`, `CompileValueError`, `CompileIndexError`,
`CompileRuntimeError` or `CompileNameError`, chosen by
the `kind` argument (the built-in class) or, without it, from the message
(`classify`).
"""
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


_TYPE_WORDS = ("must be an int", "must be a python int", "must be a bool", "must be a str",
               "must be a tuple", "must be a list", "must be a float", "must be a number",
               "expected a tensor", "got a tensor", "got the string", "cannot convert",
               "integer tensor", "bool tensor", "float tensor", "dtype", "is not supported by "
               "msmlir", "not a msmlir element type", "positional argument", "keyword argument",
               "unexpected keyword", "missing a required", "takes ", "not callable",
               "is not iterable", "unsupported operand", "must contain ints",
               "must be known at compile time", "not subscriptable",
               "no registered function", "has no attribute")
_INDEX_WORDS = ("out of bounds", "too many indices", "index out of range",
                "an index can only have")
_VALUE_WORDS = ("shape", "rank", "dim", "axis", "axes", "size", "out of range", "permutation",
                "must be positive", "must be non-negative", "broadcast", "must be in",
                "must not be", "must be >", "must be <", "divisible", "sections", "empty",
                "must be one of", "must be 'none'", "mode", "reduction", "padding", "stride",
                "kernel", "length", "equal", "match", "negative", "zero", "duplicate")


def classify(msg: str):
    """The built-in exception class MindSpore raises for an error with this
    message: NameError (an undefined name), IndexError (indexing out of bounds), TypeError (wrong kind of argument),
    ValueError (wrong shape or value), else RuntimeError."""
    m = msg.lower()
    if m.startswith("name ") and "is not defined" in m:
        return NameError
    if any(w in m for w in _INDEX_WORDS):
        return IndexError
    if any(w in m for w in _TYPE_WORDS):
        return TypeError
    if any(w in m for w in _VALUE_WORDS):
        return ValueError
    return RuntimeError


class CompileError(Exception):
    """A user error found while compiling a jitted function: a shape or type error,
    unsupported syntax, an undefined variable, ...

    `str(err)` reads ``file:line:col: error: message`` followed by the source line,
    a caret under the offending expression and, when the error is inside a helper
    function, the chain of call sites. Attributes: `msg`, `filename`, `lineno`,
    `col` (None when the error has no source position, e.g. in eager mode) and
    `call_stack` (list of (function name, SourcePos) of the enclosing calls)."""

    def __new__(cls, msg: str = "", pos: SourcePos | None = None, call_stack=(), kind=None):
        if cls is CompileError:
            if isinstance(kind, type) and issubclass(kind, CompileError):
                cls = kind
            else:
                cls = _BY_KIND.get(kind if kind is not None else classify(str(msg)),
                                   CompileRuntimeError)
        return super().__new__(cls)

    def __init__(self, msg: str, pos: SourcePos | None = None, call_stack=(), kind=None):
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


    def __reduce__(self):
        return (_rebuild, (type(self), self.msg, self.pos, tuple(self.call_stack)))

    @property
    def kind(self):
        """The built-in exception class this error also is."""
        for k, c in _BY_KIND.items():
            if isinstance(self, c):
                return k
        return RuntimeError


def _rebuild(cls, msg, pos, call_stack):
    return cls(msg, pos, call_stack)


class CompileTypeError(CompileError, TypeError):
    """A CompileError MindSpore raises as TypeError (wrong kind of argument)."""


class CompileValueError(CompileError, ValueError):
    """A CompileError MindSpore raises as ValueError (wrong shape or value)."""


class CompileIndexError(CompileError, IndexError):
    """A CompileError MindSpore raises as IndexError (index out of bounds)."""


class CompileRuntimeError(CompileError, RuntimeError):
    """A CompileError MindSpore raises as RuntimeError (unsupported construct, ...)."""


class CompileNameError(CompileError, NameError):
    """A CompileError MindSpore raises as NameError (an undefined name)."""

# (no AttributeError kind: `hasattr` and `__getattr__` fallbacks would swallow it)


_BY_KIND = {TypeError: CompileTypeError, ValueError: CompileValueError,
            IndexError: CompileIndexError, RuntimeError: CompileRuntimeError,
            NameError: CompileNameError}

for _c in (CompileError, CompileTypeError, CompileValueError, CompileIndexError,
           CompileRuntimeError, CompileNameError):
    _c.__module__ = "msmlir"  # shown as msmlir.CompileError in tracebacks
