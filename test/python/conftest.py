"""pytest setup shared by every suite under test/python.

This directory has no __init__.py, so pytest puts it on sys.path when it loads
this file (rootdir-based "prepend" import mode): the shared helpers import as
`support.*` (support/gradcheck.py, ...) without any sys.path edit. Per-suite
conftest.py files only hold fixtures.
"""
import sys


def pytest_terminal_summary(terminalreporter):
    """Reports the slowest compilations of the mindir-autodiff suite (autodiff +
    CPU pipeline + JIT), when it ran."""
    harness = sys.modules.get("support.ir_autodiff")
    times = getattr(harness, "COMPILE_TIMES", None)
    if not times:
        return
    top = sorted(times.items(), key=lambda kv: -kv[1])[:5]
    terminalreporter.write_sep("-", "slowest gradient compilations (autodiff + pipeline + JIT)")
    for key, t in top:
        terminalreporter.write_line(f"{t:8.3f}s  {key}")
