"""First-call compile time of B5 / B6 (bench/run.py's train steps), in fresh processes.

Each repetition is a new Python process (nothing cached: the compile cache is
off unless MSMLIR_COMPILE_CACHE is set) that builds the train step exactly as
bench/run.py does and times make() + the first step: wall, process CPU (all
threads: MLIR's pool and the LLVM workers), the main thread's CPU, and the
per-stage wall milliseconds msmlir records (compiled.timings, as
MSMLIR_TIMING=1 prints them). Prints the minimum and median over the
repetitions, and the load average (CPU time is the figure to compare on a
busy machine).

    python bench/first_call.py [--reps 5] [--only B5,B6]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def child(key: str) -> None:
    sys.path.insert(0, HERE)
    import run as bench
    import msmlir as ms
    import msmlir.compiler as mc
    stages: dict = {}
    mc._report_timing = lambda name, timings: stages.update(timings)   # (instead of stderr)
    os.environ["MSMLIR_TIMING"] = "1"
    ms.set_context(mode=ms.GRAPH_MODE)
    case = bench.msmlir_case(key, bench.make_data())
    c0, th0, t0 = time.process_time(), time.thread_time(), time.perf_counter()
    fn = case["make"]()
    loss = fn()
    out = {"wall": time.perf_counter() - t0, "cpu": time.process_time() - c0,
           "main": time.thread_time() - th0, "loss": float(loss),
           "stages": {k: v * 1e3 for k, v in stages.items()}}
    print(json.dumps(out))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--only", default="B5,B6")
    ap.add_argument("--_child", default=None, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a._child:
        return child(a._child)
    for key in a.only.split(","):
        runs = []
        for _ in range(a.reps):
            p = subprocess.run([sys.executable, __file__, "--_child", key],
                               capture_output=True, text=True, check=True)
            runs.append(json.loads(p.stdout.strip().splitlines()[-1]))
        losses = {r["loss"] for r in runs}

        def fmt(vals):
            return f"{min(vals):7.0f} {statistics.median(vals):7.0f}"
        print(f"{key}: {a.reps} fresh processes, load {os.getloadavg()[0]:.1f}, "
              f"loss {'/'.join(map(str, losses))}")
        print(f"  {'ms':24s} {'min':>7s} {'median':>7s}")
        for name, get in (("first call (wall)", lambda r: r["wall"] * 1e3),
                          ("process CPU", lambda r: r["cpu"] * 1e3),
                          ("main thread CPU", lambda r: r["main"] * 1e3)):
            print(f"  {name:24s} {fmt([get(r) for r in runs])}")
        for stage in runs[0]["stages"]:
            print(f"  {'stage ' + stage + ' (wall)':24s} "
                  f"{fmt([r['stages'].get(stage, 0.0) for r in runs])}")


if __name__ == "__main__":
    main()
