"""The source of user functions: what jit parses, and what it calls directly.

`get_source_function` finds and parses a function's source once (cached per
file and code object); `is_user_function` tells user code (parsed) from
library code and msmlir's own primitives (called as they are).
"""
from __future__ import annotations

import ast
import inspect
import os
import sysconfig
import textwrap
import types
from dataclasses import dataclass, field

from ..errors import SourcePos

@dataclass
class SourceFunction:
    """A parsed user function: its AST, file, globals and closure."""
    fn: types.FunctionType
    node: ast.FunctionDef
    filename: str
    globals: dict
    closure: dict = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.fn.__name__

    def pos(self, node) -> SourcePos:
        return SourcePos(self.filename, node.lineno, node.col_offset + 1,
                         getattr(node, "end_lineno", None),
                         (node.end_col_offset + 1) if getattr(node, "end_col_offset", None) is not None else None)


_SOURCE_CACHE: dict = {}


def _closure_vars(fn) -> dict:
    out = {}
    for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
        try:
            out[name] = cell.cell_contents
        except ValueError:  # an empty cell: not yet assigned
            pass
    return out


def _def_lines(code) -> tuple[list[str], int] | None:
    """The lines of `code`'s def (decorators included), cut by indentation:
    from its first line up to the next line (not blank, not a comment) that
    is not indented deeper than the def. inspect.getsourcelines finds the
    block by tokenizing it in Python (~0.2 ms a function, a fifth of a
    train step's tracing); a cut that does not parse as the def (a string
    or bracket reaching back to the def's indentation) falls back to it."""
    import linecache
    linecache.checkcache(code.co_filename)     # (a file edited since: re-read, as inspect does)
    lines = linecache.getlines(code.co_filename)
    start = code.co_firstlineno
    if not lines or start > len(lines):
        return None
    first = lines[start - 1]
    indent = len(first) - len(first.lstrip())
    end, body = start, False
    for i in range(start, len(lines)):
        stripped = lines[i].lstrip()
        if not stripped or stripped.startswith("#"):
            continue
        deeper = len(lines[i]) - len(stripped) > indent
        if not deeper and (body or not stripped.startswith(("def ", "async def ", "@"))):
            break
        body = body or deeper
        end = i + 1
    return lines[start - 1:end], start


def _parse_def(lines: list[str], start: int, name: str):
    """The def `name` parsed from its lines (starting at line `start`), with
    the file's line numbers, or None."""
    src = "".join(lines)
    wrapped = bool(lines) and lines[0][:1] in (" ", "\t")
    text = "if 1:\n" + src if wrapped else src
    try:
        tree = ast.parse(text)
    except SyntaxError:
        try:  # e.g. a function whose continuation lines are indented oddly
            tree = ast.parse(textwrap.dedent(src))
            wrapped = False
        except SyntaxError:
            return None
    ast.increment_lineno(tree, start - 1 - (1 if wrapped else 0))
    body = tree.body[0].body if wrapped else tree.body
    for st in body:
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)) and st.name == name:
            return st
    return None


def get_source_function(fn) -> SourceFunction | None:
    """Parses `fn`'s source once (per code object); None if it has no source.

    A decorated function (functools.wraps) is parsed as the wrapper it is,
    not unwrapped: a wrapper may change arguments or results, so only its own
    code says what the call does. Its call of the wrapped function resolves
    through the wrapper's closure to that function object, which is then
    parsed with its own source, globals and closure."""
    code = fn.__code__
    # code objects compare equal across files (co_filename is not part of ==): key by both
    key = (code.co_filename, code)
    cached = _SOURCE_CACHE.get(key)
    if cached is None:
        # By the code object, never by `fn`: a functools.wraps wrapper carries
        # the wrapped function's __name__ and __wrapped__ (which
        # inspect.getsourcelines(fn) follows), so looking it up by `fn` found
        # the wrapped function's def and parsed it with the WRAPPER's globals
        # and file (names undefined, errors at the wrong file:line).
        found = _def_lines(code)
        node = _parse_def(*found, code.co_name) if found else None
        if node is None:
            try:
                lines, start = inspect.getsourcelines(code)
            except (OSError, TypeError):
                return None
            node = _parse_def(lines, start, code.co_name)
            if node is None:
                return None
        cached = (node, code.co_filename)
        _SOURCE_CACHE[key] = cached
    node, filename = cached
    return SourceFunction(fn, node, filename, fn.__globals__, _closure_vars(fn))


_LIB_PATHS = tuple({os.path.realpath(p) for key in ("stdlib", "platstdlib", "purelib", "platlib")
                    if (p := sysconfig.get_paths().get(key))})
_PRIMITIVE_MODULES = ("msmlir.ops", "msmlir.frontend", "msmlir.dtype", "msmlir.dialects",
                      "msmlir.compiler", "msmlir._native", "msmlir.runtime",
                      "msmlir.errors", "msmlir.pytree", "msmlir.arraylike", "msmlir.providers",
                      "msmlir.autodiff",  # grad/vmap/custom_bprop: called, they build IR
                      "msmlir.numpy")


def is_user_function(f) -> bool:
    """Functions whose source is parsed (as opposed to called directly):
    Python functions outside the standard library, site-packages and msmlir's
    own primitive modules (msmlir's other modules, e.g. nn, are parsed)."""
    if not isinstance(f, types.FunctionType) or f.__name__ == "<lambda>":
        return False
    if getattr(f, "__msmlir_primitive__", False):   # ops._base.primitive's wrapper, wherever
        return False                                 # it is defined: called, not parsed
    mod = f.__module__ or ""
    if mod == "msmlir" or mod.startswith("msmlir."):
        return not mod.startswith(_PRIMITIVE_MODULES)
    filename = os.path.realpath(f.__code__.co_filename)
    return not filename.startswith(_LIB_PATHS)


def has_custom_bprop(f) -> bool:
    """A MindSpore Cell with a user-defined `bprop(self, *inputs, out, dout)`:
    an object (not a function or class) with `construct` and `bprop` methods
    written in user code (see msmlir.autodiff.custom)."""
    if isinstance(f, (type, types.FunctionType, types.BuiltinFunctionType, types.MethodType)):
        return False
    bprop = getattr(type(f), "bprop", None)
    construct = getattr(type(f), "construct", None)
    return is_user_function(bprop) and construct is not None
