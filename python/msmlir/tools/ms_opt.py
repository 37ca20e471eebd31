"""ms-opt: the mlir-opt of msmlir.

Reads MLIR (a file or `-` for stdin), runs a pass pipeline that mixes msmlir's
Python passes (msmlir.passes registry) with every upstream MLIR pass, and
prints the result, with mlir-opt's command line:

    ms-opt in.mlir --canonicalize --convert-mindir-to-linalg='opt=v' -o out.mlir
    ms-opt in.mlir --pass-pipeline='builtin.module(convert-mindir-to-linalg,func.func(cse))'
    ms-opt in.mlir --split-input-file --verify-diagnostics

Passes given as flags run in command-line order. Start-up stays light: the
modules that define our passes are imported only when a pass name is not an
upstream one, or for --help.

Errors are reported as diagnostics on stderr with exit status 1; a Python
traceback is shown only for internal errors with MSMLIR_DEBUG=1.
"""
from __future__ import annotations

import os
import re
import sys

PROG = "ms-opt"
DEFAULT_SPLIT_MARKER = "// -----"


class UsageError(Exception):
    """A command-line problem; the message is printed as is."""


# --- command line -------------------------------------------------------------------

# name -> (kind, dest, help); kind: 'bool' | 'value' | 'optvalue' (value may be omitted)
_OPTIONS = {
    "help": ("bool", "help", "Show this help and exit"),
    "h": ("bool", "help", None),
    "help-hidden": ("bool", "help", None),
    "version": ("bool", "version", "Show the version and exit"),
    "o": ("value", "output", "Output file (default: stdout)"),
    "pass-pipeline": ("value", "pass_pipeline",
                      "Textual pass pipeline, e.g. 'builtin.module(canonicalize,func.func(cse))'"),
    "p": ("value", "pass_pipeline", None),
    "split-input-file": ("optvalue", "split_input_file",
                         "Split the input at '// -----' (or the given marker) and process each "
                         "chunk independently"),
    "output-split-marker": ("value", "output_split_marker",
                            "Marker joining the output chunks (default '// -----')"),
    "verify-diagnostics": ("optvalue", "verify_diagnostics",
                           "Check emitted diagnostics against expected-* comments in the input "
                           "(=all, the default; =only-expected: ignore unexpected ones)"),
    "allow-unregistered-dialect": ("bool", "allow_unregistered",
                                   "Allow operations of unregistered dialects"),
    "no-implicit-module": ("bool", "no_implicit_module",
                           "Do not wrap the input in a builtin.module; the top-level op must be unique"),
    "verify-each": ("bool", "verify_each", "Run the verifier after each pass (default true)"),
    "mlir-disable-threading": ("bool", "disable_threading", "Disable multi-threading in MLIR"),
    "mlir-print-ir-after-all": ("bool", "print_ir_after_all", "Print the IR after each pass"),
    "mlir-print-ir-before-all": ("bool", "print_ir_before_all", "Print the IR before each pass"),
    "mlir-print-ir-after-change": ("bool", "print_ir_after_change",
                                   "With --mlir-print-ir-after-all: only when the pass changed the IR"),
    "mlir-print-ir-after-failure": ("bool", "print_ir_after_failure",
                                    "Print the IR after a pass fails"),
    "mlir-print-ir-module-scope": ("bool", "print_ir_module_scope",
                                   "IR printing prints the whole module (disables threading)"),
    "mlir-timing": ("bool", "timing", "Report the time of each pass"),
    "mlir-pass-statistics": ("bool", "statistics", "Report pass statistics"),
    "mlir-print-debuginfo": ("bool", "print_debuginfo", "Print locations (debug info)"),
    "mlir-pretty-debuginfo": ("bool", "pretty_debuginfo", "Print locations in a readable, unparsable form"),
    "mlir-print-op-generic": ("bool", "print_generic", "Print operations in the generic form"),
    "mlir-print-local-scope": ("bool", "print_local_scope", "Print with local scope (no aliases)"),
    "mlir-print-assume-verified": ("bool", "assume_verified", "Do not verify before printing"),
    "mlir-elide-elementsattrs-if-larger": ("value", "elide_elements",
                                           "Elide ElementsAttrs with more elements than this"),
    "mlir-elide-resource-strings-if-larger": ("value", "elide_resources",
                                              "Elide resources larger than this many characters"),
}

_BOOL_TRUE = ("", "true", "1", "yes", "on")
_BOOL_FALSE = ("false", "0", "no", "off")


class Args:
    def __init__(self):
        self.help = False
        self.version = False
        self.input = None
        self.output = None
        self.pass_pipeline = None
        self.split_input_file = None  # None or marker text
        self.output_split_marker = DEFAULT_SPLIT_MARKER
        self.verify_diagnostics = False
        self.verify_only_expected = False
        self.allow_unregistered = False
        self.no_implicit_module = False
        self.verify_each = True
        self.disable_threading = False
        self.print_ir_after_all = False
        self.print_ir_before_all = False
        self.print_ir_after_change = False
        self.print_ir_after_failure = False
        self.print_ir_module_scope = False
        self.timing = False
        self.statistics = False
        self.print_debuginfo = False
        self.pretty_debuginfo = False
        self.print_generic = False
        self.print_local_scope = False
        self.assume_verified = False
        self.elide_elements = None
        self.elide_resources = None
        # ('flag', original_arg, element) | ('pipeline', text): in command-line order
        self.pipeline_parts: list[tuple] = []


def _unknown_argument(arg: str) -> UsageError:
    msg = f"{PROG}: Unknown command line argument '{arg}'.  Try: '{PROG} --help'"
    name = arg.lstrip("-").split("=", 1)[0].split("{", 1)[0]
    guess = _suggest(name)
    if guess:
        msg += f"\n{PROG}: Did you mean '--{guess}'?"
    return UsageError(msg)


def _suggest(name: str) -> str | None:
    import difflib
    cands = [k for k, v in _OPTIONS.items() if v[2]]
    try:
        from msmlir.passes.registry import registered_passes
        cands += list(registered_passes())
    except Exception:
        pass
    m = difflib.get_close_matches(name, cands, n=1, cutoff=0.75)
    return m[0] if m else None


def parse_args(argv: list[str]) -> Args:
    a = Args()
    positional: list[str] = []
    i = 0
    only_positional = False
    while i < len(argv):
        arg = argv[i]
        i += 1
        if only_positional or arg == "-" or not arg.startswith("-"):
            positional.append(arg)
            continue
        if arg == "--":
            only_positional = True
            continue
        body = arg[2:] if arg.startswith("--") else arg[1:]
        m = re.match(r"[A-Za-z0-9_.\-]+", body)
        key = m.group(0) if m else ""
        rest = body[len(key):]
        if key in _OPTIONS:
            kind, dest, _ = _OPTIONS[key]
            if kind == "bool":
                if rest.startswith("="):
                    v = rest[1:].lower()
                    if v in _BOOL_TRUE:
                        val = True
                    elif v in _BOOL_FALSE:
                        val = False
                    else:
                        raise UsageError(f"{PROG}: for the --{key} option: '{rest[1:]}' is invalid "
                                         "value for boolean argument! Try 0 or 1")
                elif rest:
                    raise _unknown_argument(arg)
                else:
                    val = True
                setattr(a, dest, val)
            elif kind == "value":
                if rest.startswith("="):
                    val = rest[1:]
                elif rest and key == "o":
                    val = rest  # -o/path/file
                elif rest:
                    raise _unknown_argument(arg)
                else:
                    if i >= len(argv):
                        dash = "-" if len(key) == 1 else "--"
                        raise UsageError(f"{PROG}: for the {dash}{key} option: requires a value!")
                    val = argv[i]
                    i += 1
                if dest == "pass_pipeline":
                    a.pipeline_parts.append(("pipeline", val))
                    a.pass_pipeline = val
                else:
                    setattr(a, dest, val)
            else:  # optvalue
                if rest.startswith("="):
                    val = rest[1:]
                elif rest:
                    raise _unknown_argument(arg)
                else:
                    val = True
                if dest == "split_input_file":
                    a.split_input_file = DEFAULT_SPLIT_MARKER if val is True or val == "" else val
                elif dest == "verify_diagnostics":
                    if val is not True and val not in ("all", "only-expected", "true", "1"):
                        if val.lower() in _BOOL_FALSE:
                            val = False
                        else:
                            raise UsageError(f"{PROG}: for the --verify-diagnostics option: "
                                             f"Cannot find option named '{val}'!")
                    a.verify_diagnostics = bool(val)
                    a.verify_only_expected = val == "only-expected"
            continue
        # Anything else is a pass: --name, --name=opts, --name{opts}
        if not key:
            raise _unknown_argument(arg)
        if rest.startswith("="):
            opts = rest[1:]
            elem = f"{key}{{{opts}}}" if opts.strip() else key
        elif rest.startswith("{") and rest.endswith("}"):
            elem = key + rest
        elif rest:
            raise _unknown_argument(arg)
        else:
            elem = key
        a.pipeline_parts.append(("flag", arg, key, elem))
    if len(positional) > 1:
        raise UsageError(f"{PROG}: Too many positional arguments specified!\n"
                         f"Can specify at most 1 positional arguments: See: {PROG} --help")
    a.input = positional[0] if positional else "-"
    if a.elide_elements is not None:
        a.elide_elements = _int_option("mlir-elide-elementsattrs-if-larger", a.elide_elements)
    if a.elide_resources is not None:
        a.elide_resources = _int_option("mlir-elide-resource-strings-if-larger", a.elide_resources)
    return a


def _int_option(name, v):
    try:
        return int(v)
    except ValueError:
        raise UsageError(f"{PROG}: for the --{name} option: '{v}' value invalid for uint argument!")


# --- pipeline ---------------------------------------------------------------------

def _get_pass(name: str):
    """The msmlir pass `name` (None if not ours); the first call imports the
    modules that define our passes."""
    from msmlir.passes import registry
    try:
        return registry.get_pass(name)
    except Exception as e:  # a pass module that fails to import
        if os.environ.get("MSMLIR_DEBUG"):
            raise
        raise UsageError(f"{PROG}: error: cannot load the msmlir passes: "
                         f"{type(e).__name__}: {e}") from None


def _clean_pipeline_error(text: str) -> str:
    lines = [ln.rstrip() for ln in str(text).strip().splitlines()]
    return "\n".join(ln for ln in lines if ln)


class _CaptureStderrFd:
    """Captures what C++ writes to file descriptor 2 (llvm::errs()), e.g. the
    option parser's messages, so that they can be folded into one diagnostic."""

    def __enter__(self):
        import tempfile
        self.text = ""
        try:
            sys.stderr.flush()
            self._tmp = tempfile.TemporaryFile(mode="w+b")
            self._saved = os.dup(2)
            os.dup2(self._tmp.fileno(), 2)
        except OSError:
            self._saved = None
        return self

    def __exit__(self, *exc):
        if self._saved is not None:
            os.dup2(self._saved, 2)
            os.close(self._saved)
            self._tmp.seek(0)
            self.text = self._tmp.read().decode("utf-8", "replace")
            self._tmp.close()
        return False


def _pipeline_message(err, captured: str = "") -> str:
    """The text of a pipeline error, with what the C++ option parser printed."""
    parts = [ln.strip().lstrip(":").strip() for ln in captured.splitlines()]
    parts = [p for p in parts if p]
    msg = _clean_pipeline_error(err)
    return "\n".join(parts + ([msg] if msg else []))


class Pipeline:
    """The pipeline text built from the command line, validated once."""

    def __init__(self, args: Args, ctx):
        self.text = ""
        self.needs_registry = False
        self._build(args, ctx)

    @staticmethod
    def _upstream_error(ctx, elem: str) -> str | None:
        """None when upstream MLIR accepts `elem`, else the error text."""
        from mlir.passmanager import PassManager
        pm = PassManager("builtin.module", context=ctx)
        with _CaptureStderrFd() as cap:
            try:
                pm.add(elem)
                err = None
            except ValueError as e:
                err = e
        if err is None:
            return None
        return _pipeline_message(err, cap.text)

    def _build(self, args: Args, ctx) -> None:
        from msmlir.passes import registry
        elems: list[str] = []
        for part in args.pipeline_parts:
            if part[0] == "flag":
                _, arg, name, elem = part
                err = self._upstream_error(ctx, name)
                if err is None or "does not refer to a registered pass" not in err:
                    # An upstream pass (possibly needing options): check the options.
                    if elem != name:
                        err = self._upstream_error(ctx, elem)
                    if err is not None:
                        raise UsageError(f"{PROG}: for the --{name} option: {err}")
                    elems.append(elem)
                    continue
                info = _get_pass(name)
                if info is None:
                    raise _unknown_argument(arg)
                self.needs_registry = True
                _, opts = registry.parse_element(elem)
                try:
                    options = registry.parse_options(info, opts)
                    if info.expand is not None:
                        info.expand(**options)  # validates the expansion's options
                except registry.PipelineError as e:
                    raise UsageError(f"{PROG}: for the --{name} option: {e}")
                elems.append(elem)
            else:
                text = registry.strip_anchor(part[1])
                for elem in registry.split_elements(text):
                    name, _ = registry.parse_element(elem)
                    if "(" in name:
                        continue  # nested op pipeline: upstream only
                    if self._upstream_error(ctx, name) is None:
                        continue
                    if _get_pass(name) is not None:
                        self.needs_registry = True
                if text.strip():
                    elems.append(text)
        self.text = ",".join(e for e in elems if e)
        # Validate the whole pipeline once, as it will be added per chunk.
        self.add_to(self.make_pass_manager(ctx))

    def make_pass_manager(self, ctx, anchor: str = "builtin.module"):
        from mlir.passmanager import PassManager
        return PassManager(anchor, context=ctx)

    def add_to(self, pm) -> None:
        if not self.text:
            return
        from msmlir.passes import registry
        with _CaptureStderrFd() as cap:
            try:
                if self.needs_registry:
                    registry.add_to_pass_manager(pm, self.text)
                else:
                    pm.add(self.text)
                err = None
            except (ValueError, registry.PipelineError) as e:
                err = e
        if err is not None:
            msg = _pipeline_message(err, cap.text)
            if not msg.startswith("MLIR Textual PassPipeline Parser"):
                msg = f"{PROG}: invalid pass pipeline: {msg}"
            raise UsageError(msg)
        if cap.text:
            _write_stderr(cap.text)


# --- parsing ------------------------------------------------------------------------

_SINGLE_OP = re.compile(r"source must contain a single top-level operation, found: (\d+)")


class Chunk:
    def __init__(self, text: str, line: int, col: int, index: int):
        self.text = text  # the chunk only
        self.line = line  # 1-based position of the chunk start in the original buffer
        self.col = col
        self.index = index

    def padded(self) -> str:
        """The chunk placed at its original line and column."""
        return "\n" * (self.line - 1) + " " * (self.col - 1) + self.text


def split_chunks(text: str, marker: str | None) -> list[Chunk]:
    if not marker:
        return [Chunk(text, 1, 1, 0)]
    chunks, start, idx = [], 0, 0
    while True:
        j = text.find(marker, start)
        if j < 0:
            break
        chunks.append((start, j))
        start = j + len(marker)
    chunks.append((start, len(text)))
    out = []
    for k, (a, b) in enumerate(chunks):
        line = text.count("\n", 0, a) + 1
        col = a - (text.rfind("\n", 0, a) + 1) + 1
        out.append(Chunk(text[a:b], line, col, k))
    return out


class Processor:
    """Parses, transforms and prints one chunk at a time, each in a fresh context."""

    def __init__(self, args: Args, name: str, text: str, pipeline: Pipeline | None):
        self.args = args
        self.name = name
        self.text = text
        self.pipeline = pipeline
        from msmlir import diagnostics
        self.D = diagnostics
        self.buf = diagnostics.SourceBuffer(name, text)
        self.ctx = self.sink = self._handle = None
        self._keep = None
        self.missing: list[str] = []

    # --- contexts and diagnostics ---

    def _new_context(self):
        from mlir import ir
        self._drop_context()
        ctx = ir.Context()
        if self.args.allow_unregistered:
            ctx.allow_unregistered_dialects = True
        if self.args.disable_threading or self.args.print_ir_module_scope:
            ctx.enable_multithreading(False)
        self.sink = self.D.DiagnosticCollector()
        self._handle = ctx.attach_diagnostic_handler(self.sink)
        # Errors reach our handler too (in emission order) instead of being
        # captured into the MLIRError the bindings raise.
        ctx.emit_error_diagnostics = True
        self.ctx = ctx
        return ctx

    def _drop_context(self):
        self._keep = None
        if self._handle is not None:
            try:
                self._handle.detach()
            except Exception:
                pass
        self._handle = None
        self.ctx = None

    def _flush(self) -> None:
        for d in self.sink.take():
            if self.verifier is not None:
                self.verifier.process(d)
            else:
                if d.severity == "error":
                    self.errors_reported += 1
                sys.stderr.write(self.D.format_diagnostic(d, self.buf, self.rename))
        sys.stderr.flush()

    # --- one chunk ---

    def run_chunk(self, chunk: Chunk) -> tuple[bool, str]:
        """(success, printed output) of one chunk."""
        D = self.D
        self.rename: dict = {}
        self.verifier = (D.DiagnosticVerifier(self.buf, self.rename, expect_text=chunk.padded(),
                                              emit=_write_stderr,
                                              only_expected=self.args.verify_only_expected)
                         if self.args.verify_diagnostics else None)
        self.errors_reported = 0
        out = ""
        ok = False
        self._new_context()
        try:
            op = self._parse(chunk)
            ok = op is not None
            if ok:
                with self.ctx:
                    ok = self._run_passes(op)
                    if ok:
                        out = self._print(op)
            op = None
        finally:
            if self.sink is not None:
                self._flush()
            self._drop_context()
        if self.verifier is not None:
            vok, missing = self.verifier.finish()
            self.missing.append(missing)  # reported after all chunks, as mlir-opt
            return vok, out if ok else ""
        return ok, out

    # --- parsing ---

    def _parse(self, chunk: Chunk):
        """The chunk's top-level op (an implicit module unless
        --no-implicit-module), or None after reporting errors."""
        from mlir import ir
        text = chunk.padded()
        with self.ctx:
            try:
                op = ir.Operation.parse(text, source_name=self.name).operation
            except ir.MLIRError:
                op = None
            diags = self.sink.take()
            if op is not None:
                self.sink.diags[:0] = diags
                self._flush()
                if self.args.no_implicit_module or op.name == "builtin.module":
                    self._keep = op
                    return op
                return self._wrap([op], chunk)
            errs = [d for d in diags if d.severity == "error"]
            m = _SINGLE_OP.search(errs[0].message) if len(errs) == 1 else None
            if m is None or self.args.no_implicit_module:
                self.sink.diags[:0] = diags
                self._flush()
                return None
            if int(m.group(1)) == 0:
                self.sink.diags[:0] = diags[:0] + [d for d in diags if d.severity != "error"]
                self._flush()
                return self._wrap([], chunk)
        # Several top-level ops: parse again in a fresh context (the first
        # attempt already created its resources and would rename them).
        return self._parse_multi(chunk)

    def _implicit_module_loc(self, chunk: Chunk):
        from mlir import ir
        if chunk.index == 0:
            return ir.Location.file(self.name, 0, 0)
        return ir.Location.file(self.name, chunk.line, chunk.col)

    def _wrap(self, ops, chunk: Chunk):
        """A builtin.module at mlir-opt's implicit-module location holding `ops`."""
        from mlir import ir
        with self.ctx:
            module = ir.Module.create(self._implicit_module_loc(chunk))
            for op in ops:
                module.body.append(op)
        self._keep = module
        return module.operation

    def _top_level_positions(self, text: str):
        """(line, col) of the first and last top-level op, from a throwaway parse."""
        from mlir import ir
        probe = ir.Context()
        probe.allow_unregistered_dialects = self.args.allow_unregistered
        probe.attach_diagnostic_handler(self.D.DiagnosticCollector())
        try:
            with probe:
                module = ir.Module.parse(text)
                locs = [self.D.file_line_col(op.location) for op in module.body.operations]
                locs = [x[1:] for x in locs if x]
                del module
        except ir.MLIRError:
            return None, None
        return (locs[0], locs[-1]) if locs else (None, None)

    def _parse_multi(self, chunk: Chunk):
        """Wraps the top-level ops in `module {` ... `}` written where no token
        moves (on the blank or comment line before the first op), so every
        location stays exact; else parses anonymously and renames "-"."""
        from mlir import ir
        text = chunk.padded()
        first, last = self._top_level_positions(text)
        wrapped = self._wrap_text(text, first, last)
        if wrapped is not None:
            self._new_context()
            with self.ctx:
                try:
                    op = ir.Operation.parse(wrapped, source_name=self.name).operation
                except ir.MLIRError:
                    op = None
                if op is not None and op.name == "builtin.module":
                    self._flush()
                    inner = [o.operation for o in op.regions[0].blocks[0].operations]
                    module = self._wrap(inner, chunk)
                    op.erase()
                    return module
        # Exact but anonymous: the parser names the buffer "-"; report it as ours.
        self._new_context()
        self.rename["-"] = self.name
        with self.ctx:
            try:
                module = ir.Module.parse(text)
            except ir.MLIRError:
                self._flush()
                return None
            self._flush()
        self._keep = module
        return module.operation

    @staticmethod
    def _wrap_text(text: str, first, last) -> str | None:
        if first is None:
            return None
        lines = text.split("\n")
        line, col = first
        if line < 2 or line > len(lines):
            return None
        if lines[line - 1][:col - 1].strip():
            return None
        prev = lines[line - 2]
        if not re.fullmatch(r"\s*(//.*)?", prev):
            return None
        lines[line - 2] = "module {" + prev
        # Close before a trailing resource section ({-# ... #-}), else at the end.
        for k in range(max(last[0], line), len(lines)):
            if lines[k].startswith("{-#"):
                lines[k] = "}" + lines[k]
                return "\n".join(lines)
        return "\n".join(lines) + "\n}"

    # --- passes and printing ---

    def _run_passes(self, op) -> bool:
        if self.pipeline is None or not self.pipeline.text:
            return True
        from mlir import ir
        a = self.args
        anchor = op.name if a.no_implicit_module else "builtin.module"
        pm = self.pipeline.make_pass_manager(self.ctx, anchor)
        self.pipeline.add_to(pm)
        pm.enable_verifier(a.verify_each)
        if (a.print_ir_after_all or a.print_ir_before_all or a.print_ir_after_change
                or a.print_ir_after_failure):
            pm.enable_ir_printing(
                print_before_all=a.print_ir_before_all,
                print_after_all=a.print_ir_after_all or a.print_ir_after_change,
                print_module_scope=a.print_ir_module_scope,
                print_after_change=a.print_ir_after_change,
                print_after_failure=a.print_ir_after_failure,
                large_elements_limit=a.elide_elements,
                enable_debug_info=a.print_debuginfo,
                print_generic_op_form=a.print_generic)
        if a.timing:
            pm.enable_timing()
        if a.statistics:
            pm.enable_statistics()
        before = self.errors_reported
        # While passes run, errors go to the MLIRError that pm.run raises (not
        # straight to our handler), so that a Python pass that catches an
        # MLIRError of its own (a speculative parse, a verify) keeps it private.
        self.ctx.emit_error_diagnostics = False
        try:
            pm.run(op)
            ok = True
        except ir.MLIRError as e:
            ok = False
            self.sink.diags.extend(self.D.Diag.from_mlir(d) for d in e.error_diagnostics)
        finally:
            self.ctx.emit_error_diagnostics = True
            del pm  # prints the timing report, if any
        self._flush()
        if not ok and self.verifier is None and self.errors_reported == before:
            sys.stderr.write(f"{self.name}: error: pass pipeline failed\n")
        return ok

    def _print(self, op) -> str:
        a = self.args
        kw = dict(enable_debug_info=a.print_debuginfo or a.pretty_debuginfo,
                  pretty_debug_info=a.pretty_debuginfo,
                  print_generic_op_form=a.print_generic,
                  use_local_scope=a.print_local_scope,
                  assume_verified=a.assume_verified)
        if a.elide_elements is not None:
            kw["large_elements_limit"] = a.elide_elements
        if a.elide_resources is not None:
            kw["large_resource_limit"] = a.elide_resources
        text = op.get_asm(**kw)
        if self.rename and kw["enable_debug_info"]:
            for old, new in self.rename.items():
                text = text.replace(f'loc("{old}":', f'loc("{_escape(new)}":')
        return text + "\n"


def _write_stderr(text: str) -> None:
    sys.stderr.write(text)
    sys.stderr.flush()


def _escape(s: str) -> str:
    return s.replace("\\", "\\\\").replace('"', '\\"')


# --- help ---------------------------------------------------------------------------

def _fmt_default(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (list, tuple)):
        return ",".join(map(str, v))
    return str(v)


def help_text() -> str:
    lines = [
        "OVERVIEW: msmlir modular optimizer driver (the mlir-opt of msmlir)",
        "",
        f"USAGE: {PROG} [options] <input file>",
        "",
        "  <input file> is an MLIR file, or '-' (the default) for stdin.",
        "",
        "OPTIONS:",
    ]
    for key, (kind, _, h) in _OPTIONS.items():
        if not h:
            continue
        if kind == "value":
            flag = f"-{key} <value>" if len(key) == 1 else f"--{key}=<value>"
        elif kind == "optvalue":
            flag = f"--{key}[=<value>]"
        else:
            flag = f"--{key}"
        lines.append(f"  {flag:<48} - {h}")
    lines += [
        "",
        "PASSES:",
        "  Every pass below, and every upstream MLIR pass accepted by mlir-opt",
        "  (e.g. --canonicalize, --cse, --convert-linalg-to-loops, --one-shot-bufferize),",
        "  is accepted as a flag, applied in command-line order:",
        "    --<pass>   --<pass>='opt1=v1 opt2=v2'   --<pass>{opt1=v1 opt2=v2}",
        "  or inside --pass-pipeline='builtin.module(...)'.",
        "",
        "  msmlir passes:",
    ]
    from msmlir.passes.registry import registered_passes
    try:
        ours = registered_passes()
    except Exception as e:  # a pass module that fails to import
        ours = {}
        lines.append(f"    (cannot load the msmlir passes: {type(e).__name__}: {e})")
    for name, info in ours.items():
        kind = " (pipeline)" if info.expand is not None else ""
        lines.append(f"    --{name:<44} - {info.summary}{kind}")
        for opt, spec in info.options.items():
            typ, default, h = (tuple(spec) + (None, None, None))[:3]
            tname = getattr(typ, "__name__", str(typ))
            lines.append(f"        {opt + '=<' + tname + '>':<42} - {h or ''} (default: {_fmt_default(default)})")
    return "\n".join(lines) + "\n"


# --- main -------------------------------------------------------------------------

def _read_input(path: str) -> tuple[str, str]:
    if path == "-":
        data = sys.stdin.buffer.read()
        name = "<stdin>"
    else:
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as e:
            raise UsageError(f"{PROG}: cannot open input file '{path}': {e.strerror or e}")
        name = path
    if data.startswith(b"ML\xefR"):
        raise UsageError(f"{PROG}: {name}: MLIR bytecode input is not supported; use textual IR")
    return name, data.decode("utf-8", errors="replace")


def run(argv: list[str]) -> int:
    args = parse_args(argv)
    if args.help:
        sys.stdout.write(help_text())
        return 0
    if args.version:
        import msmlir
        sys.stdout.write(f"{PROG} (msmlir {msmlir.__version__}), MLIR 22\n")
        return 0
    import msmlir  # noqa: F401  registers mindir and mskernel into every context
    from mlir import ir

    pipeline = None
    if args.pipeline_parts:
        vctx = ir.Context()
        vctx.allow_unregistered_dialects = True
        pipeline = Pipeline(args, vctx)
    name, text = _read_input(args.input)
    proc = Processor(args, name, text, pipeline)
    outputs, ok = [], True
    for chunk in split_chunks(text, args.split_input_file):
        cok, out = proc.run_chunk(chunk)
        ok = ok and cok
        outputs.append(out)
    if proc.missing:
        _write_stderr("".join(proc.missing))
    marker = args.output_split_marker
    result = (marker + "\n" if marker else "").join(outputs)
    if args.output and args.output != "-":
        if ok:
            try:
                with open(args.output, "w") as f:
                    f.write(result)
            except OSError as e:
                sys.stderr.write(f"{PROG}: cannot open output file '{args.output}': "
                                 f"{e.strerror or e}\n")
                return 1
    else:
        sys.stdout.write(result)
        sys.stdout.flush()
    return 0 if ok else 1


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        return run(argv)
    except UsageError as e:
        sys.stderr.write(str(e).rstrip("\n") + "\n")
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): silence the final flush.
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except Exception:
            pass
        return 1
    except Exception as e:  # an internal error: one line unless debugging
        if os.environ.get("MSMLIR_DEBUG"):
            import traceback
            traceback.print_exc()
        else:
            sys.stderr.write(f"{PROG}: internal error: {type(e).__name__}: {e}\n"
                             f"{PROG}: (set MSMLIR_DEBUG=1 for a traceback)\n")
        return 1


if __name__ == "__main__":
    sys.exit(main())
