"""One chunk at a time: a fresh context, parse, run the pipeline, print; the
diagnostics go to stderr, or to the --verify-diagnostics checker."""
from __future__ import annotations

import sys
import time

from .options import Args
from .output import print_op, write_stderr
from .parse import ChunkParser
from .pipeline import Pipeline
from .split import Chunk


class Processor(ChunkParser):
    """Parses, transforms and prints one chunk at a time, each in a fresh context."""

    def __init__(self, args: Args, name: str, text: str, pipeline: Pipeline | None):
        self.args = args
        self.name = name
        self.pipeline = pipeline
        from msmlir import diagnostics
        self.D = diagnostics
        self.buf = diagnostics.SourceBuffer(name, text)
        self.ctx = self.sink = self._handle = None
        self._keep = None
        self.missing: list[str] = []
        self.timing = None   # a timing.TimingReport with --mlir-timing

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
                                              emit=write_stderr,
                                              only_expected=self.args.verify_only_expected)
                         if self.args.verify_diagnostics else None)
        self.errors_reported = 0
        out = ""
        ok = False
        self._new_context()
        try:
            t = time.perf_counter()
            op = self._parse(chunk)
            self._time("Parser", t)
            ok = op is not None
            if ok:
                with self.ctx:
                    ok = self._run_passes(op)
                    if ok:
                        t = time.perf_counter()
                        out = self._print(op)
                        self._time("Output", t)
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

    # --- passes and printing (parsing: parse.ChunkParser) ---

    def _run_passes(self, op) -> bool:
        if self.pipeline is None or not self.pipeline.text:
            return True
        from mlir import ir
        pm = self.pipeline.pass_manager(self.ctx, op, self.args)
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
            if self.timing is None:
                del pm
            else:
                from .pipeline import CaptureStderrFd
                with CaptureStderrFd() as cap:
                    del pm  # prints the pass manager's timing report
                self.timing.add_pass_report(cap.text)
        self._flush()
        if not ok and self.verifier is None and self.errors_reported == before:
            sys.stderr.write(f"{self.name}: error: pass pipeline failed\n")
        return ok

    def _time(self, name: str, t0: float) -> None:
        if self.timing is not None:
            self.timing.add(name, time.perf_counter() - t0)

    def _print(self, op) -> str:
        return print_op(op, self.args, self.rename)
