"""ms-opt: the mlir-opt of msmlir.

Reads MLIR (a file or `-` for stdin), runs a pass pipeline that mixes msmlir's
Python passes (msmlir.passes registry) with every upstream MLIR pass, and
prints the result, with mlir-opt's command line:

    ms-opt in.mlir --canonicalize --convert-mindir-to-linalg='opt=v' -o out.mlir
    ms-opt in.mlir --pass-pipeline='builtin.module(convert-mindir-to-linalg,func.func(cse))'
    ms-opt in.mlir --split-input-file --verify-diagnostics

Passes given as flags run in command-line order. Start-up stays light (lit
starts ms-opt once per test): the modules that define our passes are imported
only when a pass name is not an upstream one, or for --help, and the frontend
never. The parts: options (command line, --help), split (--split-input-file),
pipeline (pass flags and --pass-pipeline), parse (implicit module), processor
(one chunk; diagnostics and --verify-diagnostics), output (printing, -o),
timing (--mlir-timing, --mlir-timing-display=tree|list).

Errors are reported as diagnostics on stderr with exit status 1; a Python
traceback is shown only for internal errors with MSMLIR_DEBUG=1.
"""
from __future__ import annotations

import os
import sys

from .options import PROG, UsageError, help_text, parse_args
from .output import write_output, write_stderr
from .pipeline import Pipeline
from .processor import Processor
from .split import split_chunks

__all__ = ["main", "run"]


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


def _crash_context(argv, name, chunk, n_chunks) -> str:
    """What stderr says if MLIR aborts on this chunk (see lib/Registration.cpp)."""
    last = chunk.line + chunk.text.count("\n")
    where = f"{name}, lines {chunk.line}-{last}"
    if n_chunks > 1:
        where += f" (chunk {chunk.index + 1} of {n_chunks} of --split-input-file)"
    return (f"\n{PROG}: crashed while parsing, verifying and running the passes on {where}.\n"
            f"{PROG}: this input makes MLIR or msmlir fail an internal check (a bug; "
            f"docs/known-issues.md lists the known upstream ones).\n"
            f"{PROG}: reproduce with: {PROG} {' '.join(argv)}\n")


def run(argv: list[str]) -> int:
    args = parse_args(argv)
    if args.help:
        sys.stdout.write(help_text())
        return 0
    if args.version:
        import msmlir
        sys.stdout.write(f"{PROG} (msmlir {msmlir.__version__}), MLIR 22\n")
        return 0
    report = None
    if args.timing:
        from .timing import TimingReport
        report = TimingReport(args.timing_display)
    import msmlir  # noqa: F401  registers mindir and mskernel into every context
    from mlir import ir

    pipeline = None
    if args.pipeline_parts:
        vctx = ir.Context()
        vctx.allow_unregistered_dialects = True
        pipeline = Pipeline(args, vctx)
    name, text = _read_input(args.input)
    proc = Processor(args, name, text, pipeline)
    proc.timing = report
    outputs, ok = [], True
    from msmlir._native import set_crash_context
    chunks = split_chunks(text, args.split_input_file)
    for chunk in chunks:
        set_crash_context(_crash_context(argv, name, chunk, len(chunks)))
        cok, out = proc.run_chunk(chunk)
        ok = ok and cok
        outputs.append(out)
    set_crash_context("")
    if proc.missing:
        write_stderr("".join(proc.missing))
    status = write_output(args, outputs, ok)
    if report is not None:
        report.print()
    return status


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

