"""The pass pipeline of the command line: flags and --pass-pipeline text mixing
msmlir's Python passes with upstream ones, validated once, added per chunk."""
from __future__ import annotations

import os
import sys

from .options import PROG, Args, UsageError, unknown_argument
from .output import write_stderr


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


class CaptureStderrFd:
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
        with CaptureStderrFd() as cap:
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
                    raise unknown_argument(arg)
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
        with CaptureStderrFd() as cap:
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
            write_stderr(cap.text)

    def pass_manager(self, ctx, op, args: Args):
        """A PassManager running this pipeline on `op`, with the command line's
        verifier, IR printing, timing and statistics settings."""
        a = args
        anchor = op.name if a.no_implicit_module else "builtin.module"
        pm = self.make_pass_manager(ctx, anchor)
        self.add_to(pm)
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
        return pm
