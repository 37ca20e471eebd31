"""Diagnostics as mlir-opt shows them, and the `--verify-diagnostics` matcher.

Used by `ms-opt` (msmlir.tools.ms_opt); usable from Python too:

    sink = DiagnosticCollector()
    handle = ctx.attach_diagnostic_handler(sink)
    ctx.emit_error_diagnostics = True   # errors reach the handler, in order
    ...
    buf = SourceBuffer("file.mlir", text)
    for d in sink.take():
        sys.stderr.write(format_diagnostic(d, buf))

Formatting follows MLIR's SourceMgrDiagnosticHandler / llvm::SMDiagnostic:
`<file>:<line>:<col>: <severity>: <message>`, then the source line and a caret
when the location is in the buffer being processed (tabs expanded to 8 columns).
Verification follows SourceMgrDiagnosticVerifierHandler:
`// expected-(error|warning|note|remark)[ @+N|@-N|@above|@below|@unknown] {{msg}}`,
where `msg` is a substring of the diagnostic; with `expected-error-re` (etc.)
`{{re}}` blocks inside `msg` are regular expressions.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

SEVERITIES = ("error", "warning", "note", "remark")


@dataclass
class Diag:
    """A copy of an mlir.ir.Diagnostic that outlives the handler callback."""
    severity: str  # 'error' | 'warning' | 'note' | 'remark'
    location: object  # mlir.ir.Location (or None)
    message: str
    notes: list = field(default_factory=list)

    @staticmethod
    def from_mlir(d) -> "Diag":
        sev = getattr(d.severity, "name", str(d.severity)).split(".")[-1].lower()
        try:
            message = str(d.message)
        except (UnicodeDecodeError, RuntimeError):
            # the bindings cannot hand over a message holding invalid UTF-8 (it
            # quotes such bytes of the input); say so rather than drop it
            message = ("(message not shown: it holds bytes that are not valid UTF-8, "
                       "e.g. from a string attribute such as \"\\ff\")")
        return Diag(sev, d.location, message, [Diag.from_mlir(n) for n in d.notes])


class DiagnosticCollector:
    """A diagnostic handler (for ctx.attach_diagnostic_handler) that records
    every diagnostic and marks it handled.

    `rename` maps a parse buffer name (e.g. "-") to the name to report."""

    def __init__(self):
        self.diags: list[Diag] = []

    def __call__(self, d) -> bool:
        try:
            self.diags.append(Diag.from_mlir(d))
        except Exception as e:  # never let a Python error escape into C++, never drop
            try:
                loc = d.location
            except Exception:  # noqa: BLE001
                loc = None
            self.diags.append(Diag("error", loc, f"(a diagnostic could not be read: "
                                                 f"{type(e).__name__}: {e})"))
        return True

    def take(self) -> list[Diag]:
        out, self.diags = self.diags, []
        return out


# --- locations ----------------------------------------------------------------

def file_line_col(loc, rename: dict | None = None):
    """(file, line, col) of the first FileLineColLoc inside `loc` (pre-order, as
    Location::findInstanceOf), or None."""
    if loc is None:
        return None
    try:
        if loc.is_a_file():
            name = loc.filename
            if rename and name in rename:
                name = rename[name]
            return name, loc.start_line, loc.start_col
        if loc.is_a_name():
            return file_line_col(loc.child_loc, rename)
        if loc.is_a_callsite():
            return file_line_col(loc.callee, rename) or file_line_col(loc.caller, rename)
        if loc.is_a_fused():
            for sub in loc.locations:
                r = file_line_col(sub, rename)
                if r:
                    return r
    except Exception:
        return None
    return None


def _loc_text(loc) -> str:
    return str(loc) if loc is not None else "loc(unknown)"


def _same_loc(a, b) -> bool:
    try:
        return a is not None and b is not None and (a == b or str(a) == str(b))
    except Exception:
        return False


# --- source buffers and printing -------------------------------------------------

class SourceBuffer:
    """The text being processed under the name its locations use."""

    def __init__(self, name: str, text: str):
        self.name = name
        self.text = text
        self.lines = text.split("\n")

    def line(self, lineno: int) -> str | None:
        if 1 <= lineno <= len(self.lines):
            return self.lines[lineno - 1].rstrip("\r")
        return None


TAB_STOP = 8


def _source_snippet(line: str, col0: int, ranges=()) -> str:
    """The source line and caret line as llvm::SMDiagnostic prints them."""
    n = len(line)
    caret = [" "] * (n + 1)
    for a, b in ranges:
        for i in range(max(a, 0), min(b, len(caret))):
            caret[i] = "~"
    caret[col0 if 0 <= col0 <= n else n] = "^"
    caret_s = "".join(caret).rstrip(" ")
    out, col = [], 0
    for ch in line:
        if ch == "\t":
            out.append(" ")
            col += 1
            while col % TAB_STOP:
                out.append(" ")
                col += 1
        else:
            out.append(ch)
            col += 1
    src = "".join(out)
    out, col = [], 0
    for i, ch in enumerate(caret_s):
        if i < n and line[i] == "\t":
            out.append(ch)
            col += 1
            while col % TAB_STOP:
                out.append(ch)
                col += 1
        else:
            out.append(ch)
            col += 1
    return src + "\n" + "".join(out) + "\n"


def format_at(buf: SourceBuffer | None, line: int, col: int, severity: str, message: str,
              name: str | None = None, show_source: bool = True, ranges=()) -> str:
    """`name:line:col: severity: message` plus the source line when available."""
    name = name if name is not None else (buf.name if buf else "<unknown>")
    text = f"{name}:{line}:{col}: {severity}: {message}\n"
    if show_source and buf is not None and name == buf.name:
        src = buf.line(line)
        if src is not None:
            text += _source_snippet(src, col - 1, ranges)
    return text


def format_location_message(loc, severity: str, message: str, buf: SourceBuffer | None,
                            rename: dict | None = None, show_source: bool = True) -> str:
    flc = file_line_col(loc, rename)
    if flc is None:
        s = _loc_text(loc)
        prefix = "" if s == "loc(unknown)" else s + ": "
        return f"{prefix}{severity}: {message}\n" if prefix else f"{severity}: {message}\n"
    name, line, col = flc
    return format_at(buf, line, col, severity, message, name=name, show_source=show_source)


def format_diagnostic(d: Diag, buf: SourceBuffer | None, rename: dict | None = None) -> str:
    """A diagnostic and its notes, as mlir-opt prints them."""
    out = format_location_message(d.location, d.severity, d.message, buf, rename)
    prev = d.location
    for n in d.notes:
        out += format_location_message(n.location, n.severity, n.message, buf, rename,
                                       show_source=not _same_loc(prev, n.location))
        prev = n.location
    return out


# --- verification -------------------------------------------------------------------

_EXPECTED = re.compile(
    r"expected-(error|note|remark|warning)(-re)? *(@([+-][0-9]+|above|below|unknown))? *\{\{(.*)\}\}$")

# Notes the context adds to every op diagnostic while printOpOnDiagnostic is on;
# mlir-opt turns that off under --verify-diagnostics.
_OP_NOTE_PREFIX = "see current operation:"


@dataclass
class Expected:
    kind: str
    line: int | None  # None: @unknown
    substring: str
    at_line: int  # where the expected-* comment is
    at_col: int  # column of "expected-"
    regex: re.Pattern | None = None
    matched: bool = False

    def match(self, msg: str) -> bool:
        if self.regex is None:
            return self.substring in msg
        return self.regex.search(msg) is not None


def _compile_expected(substring: str):
    """Literal text with {{regex}} blocks, as ExpectedDiag::computeRegex."""
    if "{{" not in substring:
        return None, None
    parts, rest = [], substring
    while rest:
        i = rest.find("{{")
        if i < 0:
            parts.append(re.escape(rest))
            break
        parts.append(re.escape(rest[:i]))
        rest = rest[i + 2:]
        j = rest.find("}}")
        if j < 0:
            return None, "found start of regex with no end '}}'"
        block = rest[:j]
        try:
            re.compile(block)
        except re.error as e:
            return None, f"invalid regex: {e}"
        parts.append("(" + block + ")")
        rest = rest[j + 2:]
    return re.compile("".join(parts)), None


class DiagnosticVerifier:
    """Matches emitted diagnostics against the expected-* comments of a buffer.

    Feed every diagnostic to `process`; mismatches are reported through
    `emit(text)` as they happen (by default collected in `self.output`);
    `finish()` returns whether verification succeeded and the text of the
    expectations that were not produced (mlir-opt reports those last).

    `buf` is the whole file (for source lines in messages); `expect_text`, if
    given, is the part whose expected-* comments apply (a split chunk, placed
    at its original lines)."""

    def __init__(self, buf: SourceBuffer, rename: dict | None = None,
                 expect_text: str | None = None, emit=None, only_expected: bool = False):
        self.buf = buf
        self.only_expected = only_expected  # ignore diagnostics nobody expected
        self.rename = rename if rename is not None else {}
        self.expected: list[Expected] = []
        self.output: list[str] = []
        self.emit = emit or self.output.append
        self.ok = True
        self._parse(expect_text if expect_text is not None else buf.text)

    def _parse(self, text: str):
        lines = text.split("\n")
        pending_below: list[Expected] = []
        last_non_designator = 0  # 1-based line; 0: none
        for idx, raw in enumerate(lines):
            lineno = idx + 1
            m = _EXPECTED.search(raw.rstrip())
            if not m:
                for e in pending_below:
                    e.line = lineno
                pending_below = []
                last_non_designator = lineno
                continue
            kind, designator, substring = m.group(1), m.group(4), m.group(5)
            e = Expected(kind, lineno, substring, lineno, m.start() + 1)
            if m.group(2):  # expected-<kind>-re: {{regex}} blocks in the text
                e.regex, err = _compile_expected(substring)
                if err:
                    self.ok = False
                    self.emit(format_at(self.buf, lineno, m.start() + 1, "error", err))
                    continue
            if designator:
                if designator[0] in "+-":
                    off = int(designator[1:])
                    e.line = lineno + off if designator[0] == "+" else lineno - off
                elif designator == "unknown":
                    e.line = None
                elif designator == "above":
                    e.line = last_non_designator
                else:  # below
                    e.line = len(lines)
                    pending_below.append(e)
            self.expected.append(e)

    def process(self, d: Diag) -> None:
        self._process_one(d)
        for n in d.notes:
            if n.message.startswith(_OP_NOTE_PREFIX):
                continue
            self._process_one(n)

    def _process_one(self, d: Diag) -> None:
        flc = file_line_col(d.location, self.rename)
        if flc is None:
            for e in self.expected:
                if e.line is None and e.match(d.message) and e.kind == d.severity:
                    e.matched = True
                    return
            if self.only_expected:
                return
            self.ok = False
            self.emit(format_location_message(
                d.location, "error", f"unexpected {d.severity}: {d.message}", self.buf, self.rename))
            return
        name, line, _ = flc
        near = None
        if name == self.buf.name:
            for e in self.expected:
                if e.line == line and e.match(d.message):
                    if e.kind == d.severity:
                        e.matched = True
                        return
                    near = e
        if self.only_expected:
            return
        self.ok = False
        if near is not None:
            self.emit(format_at(
                self.buf, near.at_line, near.at_col, "error",
                f"'{d.severity}' diagnostic emitted when expecting a '{near.kind}'"))
        else:
            self.emit(format_location_message(
                d.location, "error", f"unexpected {d.severity}: {d.message}", self.buf, self.rename))

    def finish(self) -> tuple[bool, str]:
        missing = []
        for e in self.expected:
            if not e.matched:
                self.ok = False
                missing.append(format_at(
                    self.buf, e.at_line, e.at_col, "error",
                    f'expected {e.kind} "{e.substring}" was not produced',
                    ranges=[(e.at_col - 1, e.at_col - 1 + len(e.substring))]))
        return self.ok, "".join(missing)
