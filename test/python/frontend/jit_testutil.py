"""Helpers of the frontend tests: FileCheck on IR text, and running a check in
a child process (so that a crash in the CPU pipeline cannot end the session)."""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import textwrap

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))


def filecheck(ir_text: str, checks: str) -> None:
    """Runs FileCheck (the `filecheck` package) with `checks` on `ir_text`."""
    with tempfile.NamedTemporaryFile("w", suffix=".checks", delete=False) as f:
        f.write(textwrap.dedent(checks))
        path = f.name
    try:
        r = subprocess.run([sys.executable, "-m", "filecheck", path], input=ir_text,
                           capture_output=True, text=True)
    finally:
        os.unlink(path)
    assert r.returncode == 0, f"FileCheck failed:\n{r.stdout}{r.stderr}\n--- input ---\n{ir_text}"


PIPELINE_MARK = "MSMLIR-PIPELINE-ERROR:"


def run_in_child(module: str, function: str, timeout: int = 300) -> None:
    """Runs `module.function()` in a fresh Python process. A failing assertion
    fails the test; an error (or a crash) while compiling the module with
    msmlir-cpu-pipeline marks it xfail with the pipeline's message, since the
    frontend's IR is checked by the IR tests and the lowering is not the
    frontend's."""
    code = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {HERE!r})
        from mlir import ir
        import {module} as m
        from msmlir.frontend import jit as J
        _compile = J.Lowered.compile
        def compile_or_report(self):
            try:
                return _compile(self)
            except ir.MLIRError as e:
                print({PIPELINE_MARK!r}, str(e).splitlines()[1:3], flush=True)
                sys.exit(3)
        J.Lowered.compile = compile_or_report
        m.{function}()
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout,
                       cwd=HERE)
    out = r.stdout + r.stderr
    if r.returncode == 0:
        return
    if r.returncode == 3 and PIPELINE_MARK in out:
        pytest.xfail("msmlir-cpu-pipeline cannot compile this program yet: "
                     + out.split(PIPELINE_MARK, 1)[1].strip()[:300])
    if r.returncode < 0:
        last = [ln for ln in out.splitlines() if ln.strip()][-1:] or ["(no output)"]
        pytest.xfail(f"the CPU pipeline crashed (signal {-r.returncode}) compiling this program: "
                     f"{last[0][:300]}")
    pytest.fail(f"{module}.{function} failed (exit {r.returncode}):\n{out[-4000:]}", pytrace=False)
