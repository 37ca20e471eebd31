"""LLVM code generation of one lowered module on several threads.

Why: the ExecutionEngine optimizes and compiles a module on one thread, and
the Python bindings hold the GIL while it does, so LLVM was the largest single
cost of compiling a train step. With kernels kept as functions
(msmlir-cpu-pipeline `inline-kernels=false`), a lowered module is a host
function plus one function per kernel: independent units for LLVM.

How: `plan` balances the functions by size into GROUPS_PER_JOB groups per
worker; each group becomes a module of its own (the other functions as
declarations; constant globals copied, they are private), largest first. The
calling thread translates them one after the other (upstream's translation,
llvm_codegen.translate) and `jobs` worker threads run LLVM's pass pipeline
and code generator on them (llvm_codegen.Target.emit: the C APIs of the
libLLVM the bindings loaded, which release the GIL; an LLVMContext per
module, a target machine per worker), each worker taking the next module
when it is done: the work balances itself and translation overlaps code
generation. The objects are linked into one
shared library by shared_object.link (every external call through the
explicit import table) and loaded with shared_object.load: the same code the
disk cache stores, so a library compiled here is stored as is. Kernel
functions get hidden visibility: calls between objects are direct, only the
public functions are exported.

(It replaced `mlir-translate | opt | llc` subprocesses per group of
functions: their start-up was ~45 ms per group, mlir-translate's alone ~30,
and each group's IR went through bytecode and pipes; with the same pipelines
the LLVM stage of B5's/B6's train step went from 0.54/1.15 to 0.40/0.98 s
of CPU, 2 workers, the same code but for a few register choices.)

`MSMLIR_COMPILE_JOBS=N` sets the number of worker threads (default: the CPUs
this process may use that other processes left idle since the compile
started, at most 8; `jobs`). A small module, a module with one function, a
mutable global (it would be duplicated), or libraries without the C
functions keep the in-process ExecutionEngine (the reference path; `plan`
says why).

Optimization level by content: a function with vector code (msmlir's codegen
tiled, vectorized and unrolled it in MLIR) gets VECTOR_PASSES and the code
generator at -O<n>; a function whose loops are all scalar (the plain path:
codegen=false, ops below min-work) keeps `default<O<n>>`, whose loop
vectorizer and unroller are what make such code fast. Why: on vectorized
code O2/O3 add loop vectorization, SLP and more unrolling, which cost ~25% of
LLVM's time (LeNet5's train step: 1.18 -> 0.91 s CPU) for no measurable speed
(B5/B6 steps equal: min of 400 steps, both versions interleaved in one
process); VECTOR_PASSES is O1's function simplification alone (~20-25% less
again, same steps; see there).
"""
from __future__ import annotations

import os
import queue
import shutil
import sys
import threading
import time

from mlir import ir

from . import llvm_codegen

__all__ = ["jobs", "plan", "compile_objects", "ParallelCompileError"]

# A module smaller than this (LLVM dialect ops) goes to the ExecutionEngine:
# linking and loading a library (~5-10 ms) and -O1 save less than they cost
# (CPU time, load ~14: 1230 ops 63-66 ms JIT vs 67-72; 1565 ops 160-169 vs
# 123-127).
MIN_OPS = 1500
MAX_JOBS = 8
# Groups of functions per worker thread (plan).
GROUPS_PER_JOB = 3
# Scalar-loop functions smaller than this in all (a few small loops: B5/B6's
# reductions of 10-64 elements) are not worth `default<O3>` (its loop
# vectorizer and unroller cost ~50 ms on B6's five): they are balanced with
# the others.
MIN_SCALAR_OPS = 2000
# The pass pipeline of functions with vector code (see the module docstring):
# `opt -O1`'s function simplification (its passes and options, as
# `opt -passes='default<O1>' -print-pipeline-passes` prints them) without
# O1's two other parts, the inliner's call-graph walk (kernels are called
# from other modules; the host only calls them) and the module optimization
# tail (loop-load-elim, loop-vectorize forced-only, vector-combine,
# loop-unroll<O1>, more instcombine/licm rounds), and without indvars (16% of
# what was left; the code generator's loop strength reduction rewrites the
# induction variables anyway). Why: on code msmlir vectorized and unrolled
# they cost ~40% of the passes' CPU time and gave nothing. LLVM stage (passes
# + code generation, one thread's CPU, min of 5 interleaved, load ~13): B5
# 320 -> 245 ms, B6 865 -> 679 ms; steps equal (min of 300-400, builds
# interleaved in one process: B5 2.738 vs 2.825 ms for default<O1>, B6 2.562
# vs 2.536-2.547 at load 13), losses bit-identical.
_SIMPLIFYCFG = "simplifycfg<switch-range-to-icmp>"
_INSTCOMBINE = "instcombine<max-iterations=1;no-verify-fixpoint>"
VECTOR_PASSES = ",".join([
    "function(lower-expect,simplifycfg,sroa<modify-cfg>,early-cse)",
    "ipsccp,called-value-propagation,globalopt",
    "function(" + ",".join([
        "mem2reg", _INSTCOMBINE, _SIMPLIFYCFG,
        "sroa<modify-cfg>", "early-cse<memssa>", _SIMPLIFYCFG, _INSTCOMBINE, _SIMPLIFYCFG,
        "reassociate",
        "loop-mssa(loop-instsimplify,loop-simplifycfg,licm<no-allowspeculation>,"
        "loop-rotate<header-duplication;no-prepare-for-lto>,licm<allowspeculation>,"
        "simple-loop-unswitch<no-nontrivial;trivial>)",
        _SIMPLIFYCFG, _INSTCOMBINE,
        "loop(loop-idiom,loop-deletion,loop-unroll-full)",
        "sroa<modify-cfg>", "memcpyopt", "sccp", "bdce", _INSTCOMBINE, "adce", _SIMPLIFYCFG,
        _INSTCOMBINE,
        "loop-mssa(licm<allowspeculation>)"]) + ")"])


class ParallelCompileError(RuntimeError):
    """LLVM failed on the parallel path (the caller falls back to the JIT)."""


def jobs() -> int:
    """How many worker threads compile: MSMLIR_COMPILE_JOBS, else the CPUs of
    this process that other processes leave idle (at most MAX_JOBS). Why:
    more threads than free cores only add switching (and their memory).

    Idle CPUs are measured over the compile so far (`mark` at its start,
    /proc/stat's idle time since): the CPU this process kept busy then
    (the MLIR stages) is the one its workers start on, so it counts as free. Without a window of at
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
    functions are balanced by size (`nested`: the module has OpenMP regions,
    whose ops count too) over GROUPS_PER_JOB groups per worker, largest
    first: the workers, each taking the next group, end at about the same
    time, and each module's fixed cost (~1.5 ms) is paid a few times only.
    Functions with scalar loops only (`scalar_loops`) are grouped apart when
    they are worth `default<O<n>>` (MIN_SCALAR_OPS)."""
    n = jobs() if n_jobs is None else n_jobs
    why = llvm_codegen.available()
    if why:
        return [], f"no in-process LLVM code generation ({why})"
    funcs = _functions(module, nested)
    if len(funcs) < 2:
        return [], "one function"
    total = sum(c for _, _, c in funcs)
    if total < MIN_OPS:
        return [], f"small module ({total} ops)"
    if _mutable_globals(module):
        return [], "mutable globals"
    scalar = [f for f in funcs if scalar_loops(f[1])]
    if sum(c for _, _, c in scalar) < MIN_SCALAR_OPS:
        scalar = []     # a few small loops: not worth modules of their own
    vector = [f for f in funcs if f not in scalar]
    groups = _balance(vector, GROUPS_PER_JOB * n)
    groups += [(c, ScalarGroup(names)) for c, names in _balance(scalar, GROUPS_PER_JOB * n)]
    return [names for _, names in sorted(groups, key=lambda g: -g[0])], ""


class ScalarGroup(list):
    """A group of plan's that gets `default<O<n>>` (scalar loops worth it); a
    plain list is a group of vector code, VECTOR_PASSES."""


def _balance(funcs: list, n: int) -> list[tuple[int, list[str]]]:
    """`funcs` in at most n groups of about equal size (longest first, each to
    the lightest group): [(ops, names)]."""
    groups: list[list] = [[0, []] for _ in range(min(n, len(funcs)))]
    for name, _, c in sorted(funcs, key=lambda f: -f[2]):
        g = min(groups, key=lambda g: g[0])
        g[0] += c
        g[1].append(name)
    return [(c, names) for c, names in groups if names]


# LLVM dialect ops that exist only in vector code (a function with one of them
# was vectorized by msmlir's codegen)
_VECTOR_OPS = frozenset(("llvm.shufflevector", "llvm.insertelement", "llvm.extractelement",
                         "llvm.intr.masked.load", "llvm.intr.masked.store",
                         "llvm.intr.masked.gather", "llvm.intr.masked.scatter"))


def scalar_loops(func) -> bool:
    """Whether the llvm.func `func` branches (loops) and has no vector value:
    code LLVM's loop vectorizer may still speed up (it gets `default<O<n>>`). The
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
    msmlir.writeback, ...) that the translation to LLVM IR does not know."""
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


class _Parts:
    """What every function's module is made of, built once per module: the
    functions (with the packed wrappers of the entries), their declarations,
    and the other top-level ops (constant globals, declarations), without
    the attributes the translation does not know."""

    def __init__(self, module: ir.Module, entries: set[str]) -> None:
        self.module = module
        self.attrs = {}
        attrs = module.operation.attributes
        for name in [a if isinstance(a, str) else a.name for a in attrs]:
            if name.startswith("llvm.") or name.startswith("dlti."):
                self.attrs[name] = attrs[name]
        self.order: list = []          # (name or None, op) in module order
        self.decls: dict = {}
        self.wrappers: dict = {}
        with module.context, ir.Location.unknown():
            self.holder = ir.Module.parse("module {}")
            with ir.InsertionPoint(self.holder.body):
                for op in module.body.operations:
                    if op.operation.name == "llvm.func" and op.regions[0].blocks:
                        name = ir.StringAttr(op.attributes["sym_name"]).value
                        self.order.append((name, op))
                        self.decls[name] = _declaration(op)
                        if name in entries:
                            ftype = str(op.attributes["function_type"])
                            wrapper = ir.Module.parse(
                                f'module {{ "llvm.func"() <{{function_type = {ftype}, '
                                f'sym_name = "{name}"}}> ({{}}) : () -> ()\n'
                                f"{_packed_wrapper(name, ftype)} }}")
                            ops = list(wrapper.body.operations)
                            self.wrappers[name] = ops[1].detach_from_parent()
                    else:
                        new = op.operation.clone()
                        _strip_foreign_attributes(new)
                        self.order.append((None, new))

    def group_module(self, group: set[str]) -> ir.Module:
        """A module defining only the functions of `group`."""
        with self.module.context, ir.Location.unknown():
            clone = ir.Module.parse("module {}")
            for name, attr in self.attrs.items():
                clone.operation.attributes[name] = attr
            with ir.InsertionPoint(clone.body):
                for name, op in self.order:
                    if name is None or name not in group:
                        (op if name is None else self.decls[name]).operation.clone()
                        continue
                    new = op.operation.clone()
                    _strip_foreign_attributes(new)
                    if "sym_visibility" in new.attributes:
                        # a kernel: called from the other objects, not exported
                        del new.attributes["sym_visibility"]
                        new.attributes["visibility_"] = ir.Attribute.parse("1 : i64")
                    if name in self.wrappers:
                        self.wrappers[name].operation.clone()
        return clone


def pipeline(scalar: bool, opt_level: int) -> tuple[str, int]:
    """(pass pipeline, code generator level) of a group: `default<O<n>>`
    for scalar loops, VECTOR_PASSES for vector code (module docstring)."""
    level = max(0, min(int(opt_level), 3))
    if scalar or level < 1:
        return f"default<O{level}>", level
    return VECTOR_PASSES, level


def compile_objects(module: ir.Module, groups: list[list[str]], workdir: str,
                    opt_level: int = 3, entries: tuple[str, ...] = (),
                    n_jobs: int | None = None) -> list[str]:
    """Compiles each group of `module`'s functions to an object file in
    `workdir` on `n_jobs` worker threads (default `jobs()`); returns their
    paths. A ScalarGroup gets `default<O<opt_level>>`, any other
    VECTOR_PASSES (`pipeline`). `entries`: the functions that also get the
    ExecutionEngine's packed wrapper `_mlir_<name>`. Raises
    ParallelCompileError."""
    n = max(1, min(jobs() if n_jobs is None else n_jobs, len(groups)))
    paths = [os.path.join(workdir, f"part{i}.o") for i in range(len(groups))]
    work: queue.Queue = queue.Queue()
    errors: list = []

    def worker() -> None:
        targets: dict = {}              # level -> this thread's llvm_codegen.Target
        try:
            while True:
                item = work.get()
                if item is None:
                    return
                i, llvm_module, passes, level = item
                if errors:
                    llvm_module.dispose()
                    continue
                try:
                    if level not in targets:
                        targets[level] = llvm_codegen.Target(level)
                    data = targets[level].emit(llvm_module, passes)
                    with open(paths[i], "wb") as f:
                        f.write(data)
                except Exception as e:  # noqa: BLE001  (reported by the calling thread)
                    errors.append(e)
        finally:
            for t in targets.values():
                t.close()

    threads = [threading.Thread(target=worker, name=f"msmlir-llvm-{k}", daemon=True)
               for k in range(n)]
    for t in threads:
        t.start()
    try:
        with module.context:
            parts = _Parts(module, set(entries))
            for i, group in enumerate(groups):
                if errors:
                    break
                part = parts.group_module(set(group))
                scalar = isinstance(group, ScalarGroup)
                llvm_module = llvm_codegen.translate(part)
                del part
                work.put((i, llvm_module, *pipeline(scalar, opt_level)))
    except Exception as e:  # noqa: BLE001  (the caller falls back to the JIT)
        errors.append(e)
    finally:
        for _ in threads:
            work.put(None)
        for t in threads:
            t.join()
    if errors:
        raise ParallelCompileError(f"{type(errors[0]).__name__}: {errors[0]}")
    return paths


def debug(msg: str) -> None:
    if os.environ.get("MSMLIR_DEBUG"):
        print(f"msmlir parallel compile: {msg}", file=sys.stderr)


def rmtree(path: str) -> None:
    shutil.rmtree(path, ignore_errors=True)
