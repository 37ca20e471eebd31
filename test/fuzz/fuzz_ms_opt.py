"""Mutation fuzzer for `ms-opt`: is every bad input a located diagnostic?

Takes the lit corpus (every `test/**/*.mlir`, split at `// -----`), mutates
chunks (edge-case integers and shapes, other element types, other op names,
deleted/duplicated lines, flipped and invalid-UTF-8 bytes, ...) and runs each
mutant through ms-opt with one of several pass lists. Each run is classified:

  success     exit 0
  diagnostic  exit != 0 with an `error:` message
  traceback   a Python traceback or "internal error" (a bug in msmlir)
  silent      exit != 0 and nothing said (a bug)
  abort       the process died on a signal; split by where: `upstream` (one
              of the known MLIR assertions of docs/known-issues.md), `msmlir`
              (our C++), `unknown` (anything else: counted as ours)
  hang        no answer within --timeout seconds

Runs are fast because ms-opt runs in persistent worker processes (its `main`
called per input with stdout/stderr redirected at the file-descriptor level);
a worker that dies or hangs is recorded and replaced.

    python test/fuzz/fuzz_ms_opt.py --count 20000 --seed 1 --save /tmp/fuzz-out

Exit status 1 when any traceback, silent failure, hang, or abort other than a
known upstream one was seen.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import re
import select
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PASS_LISTS = [
    [],
    ["--canonicalize"],
    ["--mindir-autodiff"],
    ["--convert-mindir-to-linalg"],
    ["--mindir-vmap"],
    ["--mskernel-autodiff"],
    ["--mindir-autodiff", "--inline", "--mindir-functionalize-assign"],
    ["--pass-pipeline=builtin.module(msmlir-cpu-pipeline)"],
    ["--split-input-file", "--verify-diagnostics"],
]

EDGE_INTS = ["0", "-1", "1", "2", "7", "-7", "65536", "2147483647", "-2147483648",
             "4294967296", "9223372036854775807", "-9223372036854775808",
             "9223372036854775808", "1099511627776", "99999999999999999999"]
ELEM_TYPES = ["f16", "bf16", "f32", "f64", "i1", "i8", "i16", "i32", "i64", "index",
              "complex<f32>", "f8E4M3FN", "i7", "none", "tensor<2xf32>", "!llvm.ptr"]
JUNK = ["\xff", "\x00", "{", "}", "(", ")", "<", ">", ":", "%", "@", "\"", "#", "!",
        "// -----", "^bb1:", "\u2603", "\\ff", "\"\\ff\""]

_INT = re.compile(r"(?<![\w.%#@])-?\d+(?![\w.])")
_ELEM = re.compile(r"\b(f16|bf16|f32|f64|i1|i8|i32|i64|index)\b")
_OP = re.compile(r"\b(mindir|mskernel|linalg|arith|scf|tensor|func)\.[a-z_]+\b")
_DIMS = re.compile(r"tensor<((?:\d+x)+)")


def corpus() -> list[str]:
    chunks = []
    for path in sorted((ROOT / "test").rglob("*.mlir")):
        if "Output" in path.parts:
            continue
        text = path.read_text(errors="replace")
        chunks += [c for c in text.split("// -----") if c.strip()]
    return chunks


def _sub_one(rng, pattern, text, choices):
    matches = list(pattern.finditer(text))
    if not matches:
        return None
    m = rng.choice(matches)
    new = rng.choice(choices) if isinstance(choices, list) else choices(m)
    return text[:m.start()] + new + text[m.end():]


def mutate(rng: random.Random, text: str, op_names: list[str]) -> str:
    """One to three random mutations of `text`."""
    for _ in range(rng.randint(1, 3)):
        kind = rng.randrange(9)
        lines = text.split("\n")
        out = None
        if kind == 0:
            out = _sub_one(rng, _INT, text, EDGE_INTS)
        elif kind == 1:
            out = _sub_one(rng, _ELEM, text, ELEM_TYPES)
        elif kind == 2:
            out = _sub_one(rng, _OP, text, op_names)
        elif kind == 3 and len(lines) > 1:
            del lines[rng.randrange(len(lines))]
            out = "\n".join(lines)
        elif kind == 4 and lines:
            i = rng.randrange(len(lines))
            lines.insert(i, lines[rng.randrange(len(lines))])
            out = "\n".join(lines)
        elif kind == 5 and text:
            i = rng.randrange(len(text))
            out = text[:i] + rng.choice(JUNK) + text[i + 1:]
        elif kind == 6:
            out = _sub_one(rng, _DIMS, text, lambda m: "tensor<" + "x".join(
                rng.choice(["0", "1", "3", "?", "1099511627776", "-1"])
                for _ in m.group(1).split("x")[:-1]) + "x")
        elif kind == 7 and text:   # swap two lines
            if len(lines) > 2:
                i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
                lines[i], lines[j] = lines[j], lines[i]
                out = "\n".join(lines)
        elif kind == 8:            # truncate
            out = text[:rng.randrange(max(1, len(text)))]
        if out is not None:
            text = out
    return text


# --- the worker: ms-opt's main in a loop ------------------------------------

def worker_loop() -> None:
    from msmlir.tools.ms_opt import main
    answers = os.fdopen(os.dup(1), "w")
    for line in sys.stdin:
        job = json.loads(line)
        out_fd = os.open(job["out"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        err_fd = os.open(job["err"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        saved = os.dup(1), os.dup(2)
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(out_fd, 1)
        os.dup2(err_fd, 2)
        try:
            rc = main(job["argv"])
        except SystemExit as e:
            rc = e.code if isinstance(e.code, int) else 1
        except BaseException as e:  # noqa: BLE001  (a crash of main itself)
            import traceback
            traceback.print_exc()
            rc = 99
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            for fd in (*saved, out_fd, err_fd):
                os.close(fd)
        answers.write(json.dumps({"rc": rc}) + "\n")
        answers.flush()


class Worker:
    def __init__(self):
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--worker"], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
            start_new_session=True)

    def kill(self):
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait()


# Upstream MLIR assertions that invalid input can trip before msmlir sees the
# IR (docs/known-issues.md, with a minimal repro each).
KNOWN_UPSTREAM_ABORTS = [
    r"getIntOrFloatBitWidth\(\) const: Assertion .isIntOrFloat\(\)",       # array<index: ...>
    r"integer overflow in element count computation",                     # dense constant
    r"expected a ranked tensor or memref in LinalgInterface::getRank",     # unranked linalg
    r"attributes may never be null",                                      # int64 overflow
    r"isDynamicDim\(unsigned int\) const .*invalid index for shaped type",  # dim of -1
    r"To = mlir::AffineConstantExpr; From = mlir::AffineExpr",           # conv stride 2^63
    r"Cannot destroy a value that still has uses",                        # parser cleanup (21)
    r"willBeValidAffineMap\(dimCount, symbolCount, results\)",            # collapse index 2^63 (23)
]


def _abort_origin(err: str) -> str:
    """`upstream` only for the known upstream assertions; an assertion in
    msmlir's C++ or an unrecognised crash counts against msmlir."""
    if any(re.search(sig, err) for sig in KNOWN_UPSTREAM_ABORTS):
        return "upstream"
    if re.search(r"MindIR\w*\.(cpp|h)|MSKernel\w*\.(cpp|h)|libMSMLIRDialects", err):
        return "msmlir"
    return "unknown"


def classify(rc, died, hung, err: str) -> str:
    if hung:
        return "hang"
    if died is not None:
        return f"abort:{_abort_origin(err)}"
    if "Traceback (most recent call last)" in err or re.search(r"^ms-opt: internal error",
                                                                err, re.M):
        return "traceback"
    if rc == 0:
        return "success"
    if "error" in err.lower():
        return "diagnostic"
    return "silent"


BAD = ("traceback", "silent", "abort:msmlir", "abort:unknown", "hang")


def fuzz(count: int, seed: int, workers: int, timeout: float, save: Path | None,
         log=print) -> Counter:
    rng = random.Random(seed)
    chunks = corpus()
    op_names = sorted({m.group(0) for c in chunks for m in _OP.finditer(c)})
    tmp = Path(tempfile.mkdtemp(prefix="msmlir-fuzz-"))
    pool = [Worker() for _ in range(max(1, workers))]
    counts: Counter = Counter()
    examples: dict[str, list] = {}
    jobs = []
    for i in range(count):
        text = mutate(rng, rng.choice(chunks), op_names)
        passes = rng.choice(PASS_LISTS)
        jobs.append((i, text, passes))
    start = time.time()
    pending = list(reversed(jobs))
    busy: dict[int, tuple] = {}
    try:
        while pending or busy:
            # one job per idle worker; results collected in order of arrival
            for w_i, w in enumerate(pool):
                if w_i in busy or not pending:
                    continue
                i, text, passes = pending.pop()
                src = tmp / f"in{w_i}.mlir"
                src.write_bytes(text.encode("utf-8", "surrogateescape"))
                out, err = str(tmp / f"out{w_i}"), str(tmp / f"err{w_i}")
                w.proc.stdin.write(json.dumps({"argv": [*passes, str(src)], "out": out,
                                               "err": err}) + "\n")
                w.proc.stdin.flush()
                busy[w_i] = (i, text, passes, err, time.time())
            streams = {pool[w_i].proc.stdout: w_i for w_i in busy}
            ready, _, _ = select.select(list(streams), [], [], 0.5)
            now = time.time()
            finished = [streams[s] for s in ready]
            finished += [w_i for w_i, b in busy.items() if now - b[4] > timeout
                         and w_i not in finished]
            for w_i in finished:
                i, text, passes, err_path, t0 = busy.pop(w_i)
                w = pool[w_i]
                rc = died = None
                hung = False
                if w.proc.stdout in ready:
                    line = w.proc.stdout.readline()
                    if line:
                        rc = json.loads(line)["rc"]
                    else:
                        code = w.proc.wait()
                        died = -code if code < 0 else code
                else:
                    hung = True
                    w.kill()
                if hung or died is not None:
                    pool[w_i] = Worker()
                err = Path(err_path).read_text(errors="replace") if os.path.exists(
                    err_path) else ""
                kind = classify(rc, died, hung, err)
                counts[kind] += 1
                if kind != "success" and kind != "diagnostic":
                    examples.setdefault(kind, []).append((i, passes, err[-400:]))
                    if save is not None:
                        save.mkdir(parents=True, exist_ok=True)
                        (save / f"{kind.replace(':', '-')}-{i}.mlir").write_bytes(
                            text.encode("utf-8", "surrogateescape"))
                        (save / f"{kind.replace(':', '-')}-{i}.txt").write_text(
                            " ".join(["ms-opt", *passes]) + "\n" + err)
    finally:
        for w in pool:
            w.kill()
    elapsed = time.time() - start
    log(f"{count} inputs in {elapsed:.0f} s: " +
        ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    for kind, ex in sorted(examples.items()):
        for i, passes, err in ex[:3]:
            last = [ln for ln in err.strip().splitlines() if ln.strip()][-1:] or [""]
            log(f"  {kind} #{i} (ms-opt {' '.join(passes)}): {last[0][:200]}")
    return counts


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--timeout", type=float, default=30.0)
    ap.add_argument("--save", type=Path, default=None,
                    help="directory for the inputs that were not success/diagnostic")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        worker_loop()
        return 0
    counts = fuzz(args.count, args.seed, args.workers, args.timeout, args.save)
    return 1 if any(counts[k] for k in BAD) else 0


if __name__ == "__main__":
    sys.exit(main())
