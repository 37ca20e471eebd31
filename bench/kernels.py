"""Per-kernel times of a train step (B5 MLP or B6 LeNet5, bench/run.py's data).

Builds the step with save_graphs, then compiles each dumped kernel on its own
(msmlir-cpu-pipeline with the given threads) and times it on random inputs:
min over --runs calls (after warm-ups; threads=1: the calling thread's CPU
time, which other processes do not inflate; else wall time), kernels interleaved round-robin so
that machine noise hits them alike (threads > 1: one kernel at a time, since
each compiled module has its own OpenMP workers and those of the others would
spin on the cores between interleaved calls). Each row: calls per step, us per
call, the kernel's main op(s) (convolutions, pools, matmuls) read from its
mindir text, and for matmuls their multiply-adds and GFLOP/s. `--kernel FILE.mlir ...` times given kernel files instead (e.g.
an edited dump); `--save DIR` keeps the dump. `--ab REV` also compiles every
kernel with the pass modules (passes/**.py, or --ab-paths) as they were at git revision REV
(their source executed over the loaded modules, which re-registers their
passes) and times both versions interleaved in the same process: an A/B
comparison that machine noise hits alike.

    python bench/kernels.py --bench B6|B5 [--threads 1,2] [--runs 200] [--filter conv] [--ab HEAD]

`--breakdown` also splits the whole step (bench/run.py's call, interleaved,
min over --runs) into the frontend (Cell call, trace entry, Parameter
arrays, result Tensor), the dispatcher (descriptors, write-back copies) and
the compiled host function, whose excess over the sum of the per-kernel
times is what the step spends between and around its kernels (allocations,
OpenMP regions, caches left cold by the previous kernel).

Not a test: timings on a shared machine are noisy; compare within one run.
"""
from __future__ import annotations

import argparse
import glob
import os
import re
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def dump_step(key: str, path: str) -> str:
    """The kernels directory of benchmark `key`'s train-step dump under `path`."""
    sys.path.insert(0, HERE)
    import run as R  # bench/run.py: the models and data
    import msmlir as ms
    ms.set_context(mode=ms.GRAPH_MODE, save_graphs=True, save_graphs_path=path)
    d = R.make_data()
    R.msmlir_case(key, d)["make"]()()
    ms.set_context(save_graphs=False)
    dirs = glob.glob(os.path.join(path, "*", "kernels"))
    if not dirs:
        raise SystemExit(f"no kernels dumped under {path}")
    return max(dirs, key=lambda p: len(os.listdir(p)))


def call_counts(kdir: str) -> dict[str, int]:
    """{kernel name: calls per step} from the dumped host graph."""
    counts: dict[str, int] = {}
    for host in glob.glob(os.path.join(os.path.dirname(kdir), "*_kernels.mlir"))[:1]:
        for name in re.findall(r"call @([\w]+)", open(host).read()):
            counts[name] = counts.get(name, 0) + 1
    return counts


_MAIN_OPS = re.compile(r"mindir\.(conv2d\w*|max_pool\w*|avg_pool\w*|matmul|reduce_sum|bias_add_grad)")


def main_ops(text: str) -> str:
    ops = _MAIN_OPS.findall(text)
    return ",".join(sorted(set(ops), key=ops.index)) or "elementwise"


_MM = re.compile(r"mindir\.matmul %\w+, %\w+( \{[^}]*\})? : \(tensor<(\d+)x(\d+)xf32>, tensor<(\d+)x(\d+)xf32>\)")


def macs(text: str) -> int:
    """Multiply-adds of the kernel's mindir.matmul ops (0 if none)."""
    total = 0
    for attrs, a0, a1, b0, b1 in _MM.findall(text):
        ta, tb = "transpose_a = true" in attrs, "transpose_b = true" in attrs
        m, k = (a1, a0) if ta else (a0, a1)
        n = b0 if tb else b1
        total += int(m) * int(k) * int(n)
    return total


def random_input(shape, dtype, rng):
    if dtype == np.bool_:
        return rng.random(shape) > 0.5
    if np.issubdtype(dtype, np.integer):
        return rng.integers(0, 10, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def compile_kernel(path: str):
    """(name, dispatcher, compile seconds) of a dumped kernel file."""
    from msmlir.compiler import compile_mlir
    text = open(path).read()
    name = re.search(r"func\.func (?:private )?@(\w+)", text).group(1)
    text = text.replace(f"func.func private @{name}", f"func.func @{name}", 1)
    # a plain function again: the pipeline cuts it into the same kernel
    text = re.sub(r" attributes \{mskernel\.kind = [^{}]*\}", "", text, count=1)
    t0 = time.perf_counter()
    cm = compile_mlir(text)
    return name, text, cm.dispatcher(name), time.perf_counter() - t0


def use_passes_at(rev: str | None, paths: list[str], base: str) -> None:
    """Executes the changed pass modules under `paths` at git revision `rev`
    (None: the working tree; `base`: the revision compared with) over the
    loaded modules (their passes re-register)."""
    import subprocess
    root = os.path.dirname(HERE)
    changed = subprocess.run(["git", "diff", "--name-only", base, "--", *paths],
                             cwd=root, capture_output=True, text=True, check=True).stdout.split()
    # twice: the second round rebinds the names one changed module imports from another
    for path in 2 * sorted(p for p in changed if p.endswith(".py")):
        name = "msmlir." + path[:-3].replace("/", ".").replace(".__init__", "")
        mod = sys.modules.get(name)
        if mod is None:
            continue
        src = open(os.path.join(root, path)).read() if rev is None else subprocess.run(
            ["git", "show", f"{rev}:{path}"], cwd=root, capture_output=True, text=True,
            check=True).stdout
        exec(compile(src, os.path.join(root, path), "exec"), mod.__dict__)


def step_breakdown(key: str, runs: int) -> dict[str, float]:
    """Seconds (min over `runs`, interleaved) of one train step of `key` as
    bench/run.py calls it, of its Dispatcher call alone and of the compiled
    host function alone (the same argument block)."""
    import gc
    import run as R
    import msmlir as ms
    from msmlir.runtime import compiled_module as cm
    ms.set_context(mode=ms.GRAPH_MODE)
    step = R.msmlir_case(key, R.make_data())["make"]()
    seen = {}
    original = cm.Dispatcher.__call__

    def capture(self, arrays):
        seen[self] = arrays
        return original(self, arrays)
    cm.Dispatcher.__call__ = capture
    try:
        for _ in range(3):
            step()
    finally:
        cm.Dispatcher.__call__ = original
    ((d, arrays),) = seen.items()
    frame = d._frames[-1]
    best = {"step": float("inf"), "dispatcher": float("inf"), "host function": float("inf")}
    calls = {"step": step, "dispatcher": lambda: d(arrays),
             "host function": lambda: d.func(frame.packed)}
    gc.collect()
    for _ in range(runs):
        for what, call in calls.items():
            t0 = time.perf_counter()
            call()
            best[what] = min(best[what], time.perf_counter() - t0)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bench", default="B6", help="B5, B6 or B6nb (bench/run.py's models)")
    ap.add_argument("--threads", default="1", help="comma list of msmlir-cpu-pipeline threads=")
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--filter", default="", help="only kernels whose file name contains this")
    ap.add_argument("--kernel", nargs="*", help="kernel files (default: dump the step's)")
    ap.add_argument("--save", default="", help="dump into this directory (default: a temp dir)")
    ap.add_argument("--ab", default="", help="git revision: also time the kernels compiled "
                                             "with the pass modules at this revision")
    ap.add_argument("--ab-paths", default="passes", help="comma list: the files or folders whose "
                                                         "modules --ab swaps (default: passes)")
    ap.add_argument("--breakdown", action="store_true",
                    help="also time the whole step, its dispatcher call and its host function")
    args = ap.parse_args()
    sys.path.insert(0, HERE)
    if args.kernel:
        files, counts = args.kernel, {}
    else:
        kdir = dump_step(args.bench, args.save or tempfile.mkdtemp(prefix="msmlir_kernels_"))
        print(f"kernels: {kdir}")
        files = sorted(glob.glob(os.path.join(kdir, "*.mlir")))
        counts = call_counts(kdir)
    files = [f for f in files if args.filter in os.path.basename(f)]
    from msmlir.passes.registry import get_pass, parse_options, set_option_defaults
    info = get_pass("msmlir-cpu-pipeline")
    rng = np.random.default_rng(0)
    for threads in [int(t) for t in args.threads.split(",")]:
        set_option_defaults(info.name, parse_options(info, f"threads={threads}"))
        cases = []
        for version in ([args.ab, None] if args.ab else [None]):
            if args.ab:
                use_passes_at(version, args.ab_paths.split(","), args.ab)
            for f in files:
                name, text, d, ct = compile_kernel(f)
                inputs = [random_input(s, np.dtype(dt), rng) for s, dt in d.sig.inputs]
                for _ in range(5):
                    d(inputs)
                label = f"{name} [{version or 'new'}]" if args.ab else name
                cases.append([label, d, inputs, main_ops(text), ct, float("inf"), counts.get(name, 1),
                              macs(text)])
        rounds = [cases] * args.runs if threads == 1 else [[c] * args.runs for c in cases]
        # threads=1: the calling thread's CPU time (other processes on a
        # shared machine do not inflate it); else wall time
        clock = time.thread_time if threads == 1 else time.perf_counter
        for batch in rounds:
            for c in batch:
                t0 = clock()
                c[1](c[2])
                c[5] = min(c[5], clock() - t0)
        how = "interleaved, thread CPU time" if threads == 1 else "one kernel at a time, wall time"
        print(f"\nthreads={threads}: min over {args.runs} calls (us), {how}")
        print("| kernel | ops | calls | us | MMAC | GFLOP/s | compile ms |")
        print("|---|---|---|---|---|---|---|")
        totals: dict[str, float] = {}
        order = sorted(cases, key=lambda c: (-c[5] * c[6]) if not args.ab else (c[0].rsplit(" [", 1)[0], c[0]))
        for name, _, _, ops, ct, t, n, mac in order:
            tag = name.rsplit(" [", 1)[1][:-1] if args.ab else ""
            totals[tag] = totals.get(tag, 0.0) + n * t
            gf = f"{2 * mac / t / 1e9:.0f}" if mac else ""
            print(f"| {name} | {ops} | {n} | {t * 1e6:.1f} | {mac / 1e6:.1f} | {gf} | {ct * 1e3:.0f} |")
        for tag, total in totals.items():
            print(f"| total{' ' + tag if tag else ''} (calls x us) | | | {total * 1e6:.1f} | | | |")
        if args.breakdown and not args.kernel:
            b = step_breakdown(args.bench, args.runs)
            kernels = totals.get("new" if args.ab else "", 0.0)
            print(f"\nthreads={threads}: step {b['step'] * 1e6:.1f} us = frontend "
                  f"{(b['step'] - b['dispatcher']) * 1e6:.1f} + dispatcher "
                  f"{(b['dispatcher'] - b['host function']) * 1e6:.1f} + host function "
                  f"{b['host function'] * 1e6:.1f} (kernels alone {kernels * 1e6:.1f}, around "
                  f"them {(b['host function'] - kernels) * 1e6:.1f})")


if __name__ == "__main__":
    main()
