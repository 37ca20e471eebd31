import os
import sys

sys.path.insert(0, os.path.dirname(__file__))


def pytest_terminal_summary(terminalreporter):
    """Reports the slowest compilations (mindir-autodiff + CPU pipeline + JIT)."""
    adcheck = sys.modules.get("adcheck")
    times = getattr(adcheck, "COMPILE_TIMES", None)
    if not times:
        return
    top = sorted(times.items(), key=lambda kv: -kv[1])[:5]
    terminalreporter.write_sep("-", "slowest gradient compilations (autodiff + pipeline + JIT)")
    for key, t in top:
        terminalreporter.write_line(f"{t:8.3f}s  {key}")
