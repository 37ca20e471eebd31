#!/usr/bin/env python3
"""Run MindSpore's own test files with `import mindspore` answered by msmlir.

    python tools/run_mindspore_tests.py DIR_OR_FILE... [-k EXPR] [--files LIST]
                                        [-j 2] [--timeout 60] [--out DIR]

Each test file runs in its own `pytest` subprocess (a crash or a hang costs one
file, and one file's `set_context` cannot leak into the next) with this file
loaded as a pytest plugin (`-p run_mindspore_tests`), which

* installs `msmlir.compat.alias` (`mindspore.*` -> `msmlir.*`, no stubs),
* skips tests whose platform marks name no CPU ("not CPU"; the rule below),
* stops a test after `--timeout` seconds (SIGALRM; the file gets a hard limit
  of 3x that plus a minute), and
* records every test's outcome and the first line of its exception.

The parent then writes `summary.json` and `summary.md` into `--out`: per file
passed / failed / error / timeout / skipped, and failures grouped by cause
(missing module, missing name, argument form, wrong value, no error raised,
other exception by type and normalised first line).

Platform rule: a test's platform marks are its marks named `platform_*` and
`cpu_linux` / `cpu_windows` / `cpu_macos` (MindSpore's `arg_mark(plat_marks=...)`
turns each entry into a mark of that name; older tests use
`pytest.mark.platform_x86_cpu`, `platform_x86_gpu_training`, ...).  A test with
no platform mark runs; one with platform marks runs only if one of them is a
CPU mark (`cpu_linux`, `platform_x86_cpu`, `platform_arm_cpu`,
`platform_x86_cpu_training`); otherwise it is skipped as "not CPU".

MindSpore's tests import helpers from their own tree (`tests.mark_utils`,
`tests.st.utils`), so DIR must lie inside an extracted MindSpore `tests/`
tree; the tool runs pytest from the directory that holds `tests/`.
docs/mindspore-tests.md says how to get the tree and what was measured.
"""
from __future__ import annotations

import argparse
import ast
import collections
import concurrent.futures
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

PLATFORM_CPU = {"cpu_linux", "cpu_windows", "cpu_macos", "platform_x86_cpu", "platform_arm_cpu",
                "platform_x86_cpu_training"}
_RESULTS_ENV = "MSMLIR_MS_RESULTS"
_TIMEOUT_ENV = "MSMLIR_MS_TIMEOUT"


def is_platform_mark(name: str) -> bool:
    return name.startswith("platform_") or name in PLATFORM_CPU


def not_cpu(mark_names) -> list[str] | None:
    """The platform marks that rule a test out of a CPU run, or None if it runs."""
    plat = sorted(n for n in mark_names if is_platform_mark(n))
    if plat and not set(plat) & PLATFORM_CPU:
        return plat
    return None


# ---------------------------------------------------------------- causes

_MS_SPELLING = re.compile(r"\bmsmlir(?=[.'])")


def _norm(text: str) -> str:
    """First line, numbers and array dumps folded, so equal causes group together."""
    line = text.strip().splitlines()[0] if text.strip() else ""
    line = _MS_SPELLING.sub("mindspore", line)
    line = re.sub(r"0x[0-9a-f]+", "0x_", line)
    line = re.sub(r"\[[-0-9.e+, \[\]]{12,}\]", "[...]", line)
    line = re.sub(r"(?<![\w.])-?\d+(\.\d+)?(e[-+]?\d+)?", "N", line)
    return line[:140]


def cause_of(exc_type: str, message: str) -> str:
    """Group key for one failure: what a fix in msmlir would have to address."""
    first = message.strip().splitlines()[0] if message.strip() else ""
    # msmlir's compile errors start with the user's location
    first = re.sub(r"^\S+?:\d+:\d+: (error: )?", "", first)
    first_ms = _MS_SPELLING.sub("mindspore", first)
    m = re.match(r"No module named '([\w.]+)'", first_ms)
    if exc_type == "ModuleNotFoundError" and m:
        if m.group(1).split(".")[0] not in ("mindspore", "tests"):
            return f"test-side: needs the Python package {m.group(1).split('.')[0]}"
        return f"missing module {m.group(1)}"
    m = re.match(r"cannot import name '(\w+)' from '([\w.]+)'", first_ms)
    if m:
        return f"missing name {m.group(2)}.{m.group(1)}"
    m = (re.match(r"module 'numpy' has no attribute '(\w+)'", first)
         or re.match(r"`np\.(\w+)` was removed in the NumPy", first))
    if m:
        return f"test-side: numpy 2 has no numpy.{m.group(1)} (test written for numpy 1)"
    m = re.match(r"module '([\w.]+)' has no attribute '(\w+)'", first_ms)
    if m:
        return f"missing name {m.group(1)}.{m.group(2)}"
    m = re.match(r"'module' object has no attribute '(\w+)'", first_ms)
    if m:
        return f"missing name *.{m.group(1)}"
    m = re.match(r"'(\w+)' object has no attribute '(\w+)'", first_ms)
    if m and exc_type in ("AttributeError", "CompileTypeError", "CompileError"):
        return f"missing attribute {m.group(1)}.{m.group(2)}"
    m = re.match(r"type object '(\w+)' has no attribute '(\w+)'", first_ms)
    if m:
        return f"missing attribute {m.group(1)}.{m.group(2)}"
    m = re.search(r"([\w.]+)\(\) got an unexpected keyword argument '(\w+)'", first_ms)
    if m:
        return f"argument form: {m.group(1)}() has no keyword '{m.group(2)}'"
    if exc_type == "Failed" and first.startswith("DID NOT RAISE"):
        return f"no error raised ({first[len('DID NOT RAISE'):].strip()} expected)"
    if exc_type == "AssertionError":
        if (not first or "Not equal to tolerance" in first or "Mismatch" in message
                or first.startswith("assert False") or "allclose" in first
                or first.startswith("assert (") or "array_equal" in first):
            return "wrong value (assertion)"
        return "assertion: " + _norm(first)
    if exc_type == "TestTimeout":
        return "timeout"
    if exc_type == "FixtureLookupError":
        return "test-side: a helper named test_* takes arguments (fixture not found)"
    return f"{exc_type}: {_norm(first)}"


# ---------------------------------------------------------------- plugin (child side)

class TestTimeout(Exception):
    """A test ran past --timeout."""


_records: list[dict] = []


def _record(**rec):
    path = os.environ.get(_RESULTS_ENV)
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(json.dumps(rec) + "\n")


def _excinfo_fields(excinfo):
    if excinfo is None:
        return "", ""
    exc_type = excinfo.type.__name__
    try:
        msg = str(excinfo.value)
    except Exception:  # noqa: BLE001 - a broken __str__ is still a failure to record
        msg = "<unprintable>"
    return exc_type, msg


if os.environ.get(_RESULTS_ENV) is not None:
    # at plugin import, before pytest loads the tests' conftest.py files (which import
    # mindspore themselves)
    from msmlir.compat import alias as _alias
    _alias.install()


def pytest_configure(config):
    if os.environ.get(_RESULTS_ENV) is None:
        return
    for mark in ("level0", "level1", "level2", "level3", "level4", "onecard", "allcards",
                 "dryrun", "essential", "unessential", "env_onecard", "env_single",
                 *PLATFORM_CPU, "platform_gpu", "platform_ascend", "platform_ascend910b",
                 "platform_ascend310p", "platform_x86_gpu_training",
                 "platform_arm_ascend_training", "platform_x86_ascend_training",
                 "platform_arm_ascend910b_training"):
        config.addinivalue_line("markers", f"{mark}: MindSpore test mark")


def pytest_collection_modifyitems(config, items):
    if os.environ.get(_RESULTS_ENV) is None:
        return
    import pytest
    for item in items:
        plat = not_cpu(m.name for m in item.iter_markers())
        if plat:
            item.add_marker(pytest.mark.skip(reason="not CPU: " + ",".join(plat)))


def pytest_collectreport(report):
    if os.environ.get(_RESULTS_ENV) is None or not report.failed:
        return
    exc_type, msg = "CollectionError", str(report.longrepr)
    lr = report.longrepr
    # pytest's import-error text ends with "E   <Type>: <message>" lines
    text = str(lr)
    found = re.findall(r"^E\s+(\w+(?:Error|Exception|Warning|Exit)?): (.*)$", text, re.M)
    if found:
        exc_type, msg = found[-1]
    elif "Interrupted" in text:
        exc_type = "CollectionError"
    _record(nodeid=report.nodeid, outcome="collect-error", exc_type=exc_type,
            message=msg[:500], cause=cause_of(exc_type, msg))


def _alarm(signum, frame):
    raise TestTimeout(f"test ran past {os.environ.get(_TIMEOUT_ENV)} s")


def _timed(fn):
    import pytest

    @pytest.hookimpl(hookwrapper=True)
    def wrapper(item):
        limit = float(os.environ.get(_TIMEOUT_ENV) or 0)
        if limit > 0:
            old = signal.signal(signal.SIGALRM, _alarm)
            signal.setitimer(signal.ITIMER_REAL, limit)
        try:
            yield
        finally:
            if limit > 0:
                signal.setitimer(signal.ITIMER_REAL, 0)
                signal.signal(signal.SIGALRM, old)
    wrapper.__name__ = fn.__name__
    return wrapper


def _hooks():
    try:
        import pytest
    except ImportError:
        return {}

    @_timed
    def pytest_runtest_call(item):  # noqa: ARG001
        pass

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(item, call):
        outcome = yield
        rep = outcome.get_result()
        if os.environ.get(_RESULTS_ENV) is None:
            return
        if rep.when == "call" or rep.failed or (rep.skipped and rep.when == "setup"):
            if rep.passed:
                _record(nodeid=item.nodeid, outcome="passed", seconds=round(rep.duration, 3))
                return
            if rep.skipped:
                reason = rep.longrepr[2] if isinstance(rep.longrepr, tuple) else str(rep.longrepr)
                _record(nodeid=item.nodeid, outcome="skipped", reason=str(reason)[:200])
                return
            exc_type, msg = _excinfo_fields(call.excinfo)
            kind = "failed" if rep.when == "call" else "error"
            if exc_type == "TestTimeout":
                kind = "timeout"
            _record(nodeid=item.nodeid, outcome=kind, when=rep.when, exc_type=exc_type,
                    message=msg[:500], cause=cause_of(exc_type, msg),
                    seconds=round(rep.duration, 3))
    return {"pytest_runtest_call": pytest_runtest_call,
            "pytest_runtest_makereport": pytest_runtest_makereport}


globals().update(_hooks())


# ---------------------------------------------------------------- parent side

def tests_root(path: Path) -> Path:
    """The directory holding the `tests` package that `path` lies in (MindSpore's
    helpers import as `tests.mark_utils`; many test folders have no __init__.py)."""
    d = (path if path.is_dir() else path.parent).resolve()
    for cand in (d, *d.parents):
        if cand.name == "tests" and (cand / "__init__.py").exists():
            return cand.parent
    raise SystemExit(f"{path} is not inside a MindSpore `tests/` tree")


def collect_files(paths, names=None):
    files = []
    for p in map(Path, paths):
        if p.is_file():
            files.append(p.resolve())
        else:
            files.extend(sorted(q.resolve() for q in p.rglob("test_*.py")))
    if names:
        wanted = set(names)
        files = [f for f in files if f.name in wanted or f.stem in wanted or str(f) in wanted]
    return files


def static_test_count(path: Path) -> tuple[int, int]:
    """(test functions, of which CPU-runnable by their decorator marks) -- for files that
    fail before pytest can collect them."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8", errors="replace"))
    except SyntaxError:
        return 0, 0
    total = cpu = 0
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
            total += 1
            src = " ".join(ast.unparse(d) for d in node.decorator_list)
            marks = set(re.findall(r"(platform_\w+|cpu_linux|cpu_windows|cpu_macos)", src))
            if not_cpu(marks) is None:
                cpu += 1
    return total, cpu


def run_file(path: Path, root: Path, out: Path, index: int, timeout: float, kexpr: str | None,
             python: str):
    results = out / "results" / f"{index:05d}.jsonl"
    results.unlink(missing_ok=True)
    env = dict(os.environ)
    tools = str(Path(__file__).resolve().parent)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (tools, str(root), env.get("PYTHONPATH")) if p)
    env[_RESULTS_ENV] = str(results)
    env[_TIMEOUT_ENV] = str(timeout)
    cmd = [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "run_mindspore_tests",
           "--rootdir", str(root), "-c", os.devnull, "--tb=line", "-W", "ignore",
           "--no-header", str(path)]
    if kexpr:
        cmd[3:3] = ["-k", kexpr]
    t0 = time.monotonic()
    usage0 = _child_cpu()
    try:
        proc = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True,
                              timeout=timeout * 3 + 60)
        rc, tail = proc.returncode, (proc.stdout + proc.stderr)[-3000:]
    except subprocess.TimeoutExpired as e:
        rc, tail = "file-timeout", str(e.stdout or "")[-3000:]
    wall = time.monotonic() - t0
    recs = []
    if results.exists():
        for line in results.read_text(encoding="utf-8").splitlines():
            try:
                recs.append(json.loads(line))
            except json.JSONDecodeError:
                pass
    return {"file": str(path.relative_to(root)), "rc": rc, "wall": round(wall, 2),
            "cpu": round(_child_cpu() - usage0, 2), "records": recs, "tail": tail,
            "static": static_test_count(path)}


def _child_cpu():
    import resource
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def summarize(runs):
    files = []
    totals = collections.Counter()
    causes = collections.Counter()
    examples = collections.defaultdict(list)
    for run in runs:
        c = collections.Counter()
        note = ""
        for r in run["records"]:
            if "exc_type" in r:
                r["cause"] = cause_of(r["exc_type"], r.get("message", ""))
            if r["outcome"] == "collect-error":
                c["collect-error"] += 1
                note = r["cause"]
                continue
            out = r["outcome"]
            if out == "skipped":
                out = "skipped-not-cpu" if "not CPU:" in r.get("reason", "") else "skipped"
            if out in ("failed", "error") and r["cause"].startswith("test-side"):
                out = "test-side"
            c[out] += 1
            if out in ("failed", "error", "timeout", "test-side"):
                causes[r["cause"]] += 1
                if len(examples[r["cause"]]) < 3:
                    examples[r["cause"]].append(r["nodeid"])
        ran = sum(c[k] for k in ("passed", "failed", "error", "timeout"))
        if c["collect-error"] or (not run["records"] and run["rc"] not in (0, 5)):
            # the file never got to run its tests: count its CPU tests statically
            n = run["static"][1]
            if note.startswith("test-side"):
                c["test-side"] += n
                causes[note] += n
                n = 0
            if not note:
                note = (f"file rc {run['rc']}: " + _norm(run.get("tail", "").strip().splitlines()[-1]
                                                         if run.get("tail", "").strip() else ""))
            c["not-collected"] += n
            causes[note] += n
            if len(examples[note]) < 3:
                examples[note].append(run["file"])
        elif run["rc"] == "file-timeout" or (run["rc"] not in (0, 1, 5) and ran):
            c["file-aborted"] += 1
            note = f"file rc {run['rc']} after {ran} tests"
            causes[note] += 1
            examples[note].append(run["file"])
        totals.update(c)
        files.append({"file": run["file"], **c, "wall": run["wall"], "cpu": run["cpu"],
                      "note": note})
    return {"files": files, "totals": dict(totals),
            "causes": causes.most_common(), "examples": dict(examples)}


def markdown(summary, top=40):
    t = collections.Counter(summary["totals"])
    run = t["passed"] + t["failed"] + t["error"] + t["timeout"]
    denom = run + t["not-collected"]
    lines = [
        f"files: {len(summary['files'])} run of {summary.get('files_cpu', '?')} with CPU tests "
        f"({summary.get('files_not_cpu', 0)} more with no CPU test by their marks, not "
        f"started); tests run: {run} (passed {t['passed']}, failed "
        f"{t['failed']}, error {t['error']}, timeout {t['timeout']}); skipped not-CPU "
        f"{t['skipped-not-cpu']}, skipped by the test {t['skipped']}; test-side problems "
        f"(not counted) {t['test-side']}; CPU tests in files that failed before collection "
        f"(static count): {t['not-collected']}",
        "",
        f"pass rate: {t['passed']}/{run} of the tests that ran"
        + (f" = {100 * t['passed'] / run:.1f}%" if run else "")
        + f"; {t['passed']}/{denom} counting uncollected CPU tests"
        + (f" = {100 * t['passed'] / denom:.1f}%" if denom else ""),
        "", "| count | cause | e.g. |", "|---:|---|---|"]
    for cause, n in summary["causes"][:top]:
        ex = summary["examples"].get(cause, [""])[0]
        lines.append(f"| {n} | {cause.replace('|', '/')} | {ex} |")
    lines += ["", "| file | passed | failed | error | timeout | skip (not CPU) | skip | "
              "uncollected | note |", "|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    for f in summary["files"]:
        lines.append(f"| {f['file']} | {f.get('passed', 0)} | {f.get('failed', 0)} | "
                     f"{f.get('error', 0)} | {f.get('timeout', 0)} | "
                     f"{f.get('skipped-not-cpu', 0)} | {f.get('skipped', 0)} | "
                     f"{f.get('not-collected', 0)} | {f['note'].replace('|', '/')} |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="+", help="MindSpore test files or directories")
    ap.add_argument("-k", dest="kexpr", help="pytest -k expression")
    ap.add_argument("--files", help="a file listing test file names to keep (one a line)")
    ap.add_argument("--sample", type=int, default=0,
                    help="run a random sample of this many files (of those with CPU tests)")
    ap.add_argument("--seed", type=int, default=0, help="seed of --sample")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per test")
    ap.add_argument("--out", default="ms_test_results")
    ap.add_argument("--python", default=sys.executable)
    args = ap.parse_args(argv)

    names = None
    if args.files:
        names = [s.strip() for s in Path(args.files).read_text().splitlines() if s.strip()]
    files = collect_files(args.paths, names)
    if not files:
        ap.error("no test files found")
    # a file whose every test is marked for Ascend/GPU only is not started
    n_all = len(files)
    files = [f for f in files if static_test_count(f)[1] or not static_test_count(f)[0]]
    n_cpu = len(files)
    if args.sample and args.sample < len(files):
        import random
        files = sorted(random.Random(args.seed).sample(files, args.sample))
    root = tests_root(files[0])
    out = Path(args.out)
    (out / "results").mkdir(parents=True, exist_ok=True)
    runs = [None] * len(files)
    t0 = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futs = {pool.submit(run_file, f, root, out, i, args.timeout, args.kexpr, args.python): i
                for i, f in enumerate(files)}
        for done, fut in enumerate(concurrent.futures.as_completed(futs), 1):
            i = futs[fut]
            runs[i] = fut.result()
            c = collections.Counter(r["outcome"] for r in runs[i]["records"])
            if runs[i]["rc"] not in (0, 1, 5):
                c[f"rc={runs[i]['rc']}"] += 1
            print(f"[{done}/{len(files)}] {runs[i]['file']}: " +
                  " ".join(f"{k} {v}" for k, v in sorted(c.items())) + f" ({runs[i]['wall']} s)",
                  flush=True)
    summary = summarize(runs)
    summary["files_not_cpu"] = n_all - n_cpu
    summary["files_cpu"] = n_cpu
    summary["wall_s"] = round(time.monotonic() - t0, 1)
    summary["cpu_s"] = round(sum(r["cpu"] for r in runs), 1)
    summary["runs"] = [{**{k: v for k, v in r.items() if k != "tail"}, "tail": r["tail"][-300:]}
                       for r in runs]
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    md = markdown(summary)
    (out / "summary.md").write_text(md)
    print(md.split("\n| file |")[0])
    print(f"wall {summary['wall_s']} s, child CPU {summary['cpu_s']} s; details in {out}/summary.md")


if __name__ == "__main__":
    main()
