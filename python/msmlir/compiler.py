"""The compiler driver: a module of mindir functions -> native CPU code.

`compile_module` (or `compile_mlir` for text) runs `msmlir-cpu-pipeline` on
the module and hands the lowered module to the runtime
(msmlir/runtime/compiled_module.py), which JIT-compiles it with MLIR's
ExecutionEngine. Each public function's tensor results become caller-allocated
out-parameters, so `CompiledModule.call` passes numpy arrays in and out
without copies (inputs that are not C-contiguous are made so first).

All msmlir IR lives in one shared MLIR context (`context()`); build modules in
it so that the frontend, the passes and the runtime can exchange IR.

With the compile cache on (`set_context(enable_compile_cache=True,
compile_cache_path=...)` or `MSMLIR_COMPILE_CACHE=DIR`, see
runtime/compile_cache.py), compiled modules are cached by content: the key is
a hash of the module's text (with its locations), the pipeline options and
the optimization level. A module compiled before in the process is reused
(`_MEMORY`, bounded); the native code is also stored on disk as a shared
library, which a later process loads instead of compiling (the disk key also
holds the msmlir/MLIR versions, msmlir's sources and the host CPU). Without
it, every call compiles (jit and the eager ops keep their own per-signature
caches), so a pass patched at run time (tests) always takes effect.

MSMLIR_TIMING=1 prints one line per compiled module: the milliseconds of each
stage (frontend build, clone, graph prepare, each lowering stage, "jit" =
LLVM code generation in process, or "llvm-parallel" = LLVM code generation by
groups of functions in parallel subprocesses, runtime/parallel_compile.py),
or of the cache lookup that replaced them. MSMLIR_TIMING=passes adds MLIR's
execution time report (every pass, as `ms-opt --mlir-timing` prints it) of
each lowering stage.

LLVM code generation: a lowered module of several functions (kernels are
functions, msmlir-cpu-pipeline's `inline-kernels=false`) of at least
parallel_compile.MIN_OPS ops is translated and compiled in process (upstream's
translation and LLVM's C API, runtime/llvm_codegen.py, on MSMLIR_COMPILE_JOBS
worker threads: default the cores other processes left idle during the compile
so far, at most 8; the calls release the GIL) and linked into a shared library
(the form the disk cache stores), with LLVM's -O1 function simplification for vectorized
functions (runtime/parallel_compile.py says why); a small module or one with
host callbacks uses the in-process ExecutionEngine. Both give bit-identical
results (test/python/runtime/test_parallel_compile.py).
"""
from __future__ import annotations

import hashlib
import os
import shutil
import sys
import tempfile
import threading
import time
import warnings
from collections import OrderedDict

import numpy as np
from mlir import ir

from . import _native
from .runtime import checks, compile_cache, parallel_compile, shared_object
from .runtime.compiled_module import CompiledModule, Signature, host_callbacks_of, tensor_signature
from msmlir.passes import run_pipeline
from msmlir.passes.fusion.outline_kernels import KERNEL_ATTR, STATS_ATTR
from msmlir.passes.pipelines.cpu import GRAPH_PREPARE, cpu_lowering_stages
from msmlir.passes.registry import get_pass, parse_options, pipeline_pass_manager

_CONTEXT: ir.Context | None = None
_LOCK = threading.Lock()


def context() -> ir.Context:
    """The process-wide MLIR context holding all msmlir IR."""
    global _CONTEXT
    if _CONTEXT is None:
        _CONTEXT = ir.Context()
        _native.load_dialects(_CONTEXT)
    return _CONTEXT


# msmlir-cpu-pipeline in two steps: the graph-level expansion that fixes the
# public signatures (read in between), then the lowering to LLVM.
_PREPARE = f"builtin.module({GRAPH_PREPARE})"


def _lowering_stages() -> list[tuple[str, str]]:
    """msmlir-cpu-pipeline after GRAPH_PREPARE, with the pipeline's current
    option defaults, as named stages."""
    info = get_pass("msmlir-cpu-pipeline")
    return cpu_lowering_stages(**parse_options(info, None))


_SAVE_GRAPHS: dict = {"path": None, "count": 0}
_LAST_STATS: dict = {}


def save_graphs(path: str | None) -> None:
    """Dump every compiled module after each stage, and each kernel, under
    `path` (None: stop). `set_context(save_graphs=True, save_graphs_path=...)`
    calls this."""
    _SAVE_GRAPHS["path"] = path


def _dump_dir(module: ir.Module) -> str | None:
    path = _SAVE_GRAPHS["path"]
    if path is None:
        return None
    _SAVE_GRAPHS["count"] += 1
    names = [ir.StringAttr(op.attributes["sym_name"]).value.removeprefix(_MANGLE)
             for op in module.body.operations
             if op.operation.name == "func.func" and "sym_visibility" not in op.attributes]
    d = os.path.join(path, f"graph_{_SAVE_GRAPHS['count']:03d}_{(names or ['module'])[0]}")
    os.makedirs(os.path.join(d, "kernels"), exist_ok=True)
    return d


def _dump(d: str | None, index: int, stage: str, module: ir.Module) -> None:
    if d is None:
        return
    with open(os.path.join(d, f"{index:02d}_{stage}.mlir"), "w") as f:
        f.write(module.operation.get_asm(enable_debug_info=True))
    if stage == "kernels":
        for op in module.body.operations:
            if op.operation.name == "func.func" and KERNEL_ATTR in op.attributes:
                name = ir.StringAttr(op.attributes["sym_name"]).value
                with open(os.path.join(d, "kernels", f"{name}.mlir"), "w") as f:
                    f.write(op.operation.get_asm(enable_debug_info=True))


def kernel_stats(module: ir.Module) -> dict:
    """{kernels, calls, bytes} that mskernel-outline-kernels recorded on the module."""
    if STATS_ATTR not in module.operation.attributes:
        return {}
    stats = ir.DictAttr(module.operation.attributes[STATS_ATTR])
    return {k: ir.IntegerAttr(stats[k]).value for k in ("kernels", "calls", "bytes")}


def last_kernel_summary() -> str:
    """One line on the kernels of the last compiled module: kernel calls per
    call of its functions (a call inside a loop counts once), distinct
    kernels, and the bytes those calls read and write."""
    s = _LAST_STATS
    if not s:
        return "no module compiled yet"
    return (f"{s['calls']} kernel calls ({s['kernels']} distinct kernels), "
            f"{s['bytes'] / 1e6:.2f} MB read+written by kernels")


_MANGLE = "msmlir__"


def _mangle_function_names(module: ir.Module):
    """Prefixes every function's symbol: user functions named like C library
    functions (`exp`, `free`, ...) would otherwise be taken for them by the
    lowering (math -> libm calls) and the JIT's symbol resolution."""
    for op in module.body.operations:
        if op.operation.name == "func.func" and op.regions[0].blocks:
            old = ir.StringAttr(op.attributes["sym_name"]).value
            ir.SymbolTable.replace_all_symbol_uses(old, _MANGLE + old, module.operation)
            ir.SymbolTable.set_symbol_name(op, _MANGLE + old)


def timing_enabled() -> bool:
    """Whether MSMLIR_TIMING asks for a compile-time line per compiled graph."""
    return os.environ.get("MSMLIR_TIMING", "") not in ("", "0", "false", "off")


def _pass_timing_enabled() -> bool:
    """MSMLIR_TIMING=passes: also MLIR's execution time report of each stage."""
    return os.environ.get("MSMLIR_TIMING", "") == "passes"


def _run_stage(module: ir.Module, text: str, stage: str, timed: bool = False) -> None:
    """Runs one stage's pipeline, then verifies the module once.

    Why not after each pass (the pass manager's default): verifying the whole
    module after each of the ~60 passes was ~30% of the MLIR half's CPU time
    (LeNet5's train step: 245 of 860 ms); ms-opt and the lit tests still
    verify after each pass. `timed` (MSMLIR_TIMING=passes): with MLIR's pass
    timing; the report goes to stderr when the pass manager goes."""
    if not timed:
        run_pipeline(module, text, verify_each=False)
    else:
        print(f"msmlir timing: passes of stage {stage}", file=sys.stderr, flush=True)
        pm = pipeline_pass_manager(text, module.context, verify_each=False)
        pm.enable_timing()
        try:
            pm.run(module.operation)
        finally:
            del pm
    _verify(module, f"msmlir-cpu-pipeline stage '{stage}' produced invalid IR")


def _verify(module: ir.Module, what: str) -> None:
    try:
        module.operation.verify()
    except ir.MLIRError as e:
        raise ir.MLIRError(f"{what}: {e.message}", e.error_diagnostics) from None


def _report_timing(name: str, timings: dict) -> None:
    total = sum(timings.values())
    parts = " ".join(f"{k} {v * 1e3:.1f}" for k, v in timings.items())
    print(f"msmlir timing {name}: {total * 1e3:.1f} ms = {parts}", file=sys.stderr, flush=True)


def public_signatures(module: ir.Module, mark_c_interface: bool = True,
                      unmangle: bool = True) -> dict[str, Signature]:
    """{name: Signature} of the module's public functions, as the runtime calls
    them (tensor types, parameter write-back pairs); `unmangle` drops the
    mangling prefix from the names; with `mark_c_interface` each function also
    gets llvm.emit_c_interface."""
    signatures: dict[str, Signature] = {}
    for op in module.body.operations:
        if op.operation.name != "func.func" or "sym_visibility" in op.attributes:
            continue
        if not op.regions[0].blocks:
            continue
        name = ir.StringAttr(op.attributes["sym_name"]).value
        if unmangle:
            name = name.removeprefix(_MANGLE)
        ftype = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)
        writeback = []
        if "msmlir.writeback" in op.attributes:
            writeback = [tuple(ir.IntegerAttr(x).value for x in pair)
                         for pair in ir.ArrayAttr(op.attributes["msmlir.writeback"])]
        signatures[name] = Signature([tensor_signature(t) for t in ftype.inputs],
                                     [tensor_signature(t) for t in ftype.results], writeback)
        if mark_c_interface:
            op.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()
    return signatures


def _read_inplace(module: ir.Module, signatures: dict) -> None:
    """Signature.inplace from the public functions' `msmlir.inplace` (set by
    msmlir-inplace-writeback on bufferized code; the LLVM lowering drops it)."""
    for op in module.body.operations:
        if op.operation.name != "func.func" or "msmlir.inplace" not in op.attributes:
            continue
        name = ir.StringAttr(op.attributes["sym_name"]).value.removeprefix(_MANGLE)
        if name in signatures:
            signatures[name].inplace = [tuple(ir.IntegerAttr(x).value for x in pair)
                                        for pair in ir.ArrayAttr(op.attributes["msmlir.inplace"])]


def _compile(module: ir.Module, opt_level: int, timings: dict, pic: bool = False) -> CompiledModule:
    parallel_compile.mark()     # (the window over which it measures idle CPUs)
    t = time.perf_counter()
    with module.context:
        _verify(module, "invalid input module")   # (the stages verify only their results)
        _run_stage(module, _PREPARE, "prepare")
        signatures = public_signatures(module)
        callbacks = host_callbacks_of(module)
        _mangle_function_names(module)
        now = time.perf_counter()
        timings["prepare"] = now - t
        t = now
        dump = _dump_dir(module)
        _dump(dump, 0, "graph", module)
        # stage by stage (a pass manager each costs well under a millisecond):
        # the timing of each stage, and the dumps of save_graphs
        per_pass = _pass_timing_enabled()
        for i, (stage, text) in enumerate(_lowering_stages(), 1):
            _run_stage(module, f"builtin.module({text})", stage, timed=per_pass)
            now = time.perf_counter()
            timings[stage] = now - t
            t = now
            _dump(dump, i, stage, module)
            _read_inplace(module, signatures)
        stats = kernel_stats(module)
        _LAST_STATS.clear()
        _LAST_STATS.update(stats)
    compiled = None
    if not callbacks:
        compiled = _compile_parallel(module, signatures, opt_level, keep_library=pic)
    if compiled is not None:
        timings["llvm-parallel"] = time.perf_counter() - t
    else:
        compiled = CompiledModule(module, signatures, callbacks, _MANGLE, opt_level, pic=pic)
        timings["jit"] = time.perf_counter() - t
    compiled.kernel_stats = stats
    compiled.timings = timings
    return compiled


def _compile_parallel(module: ir.Module, signatures: dict, opt_level: int,
                      keep_library: bool) -> CompiledModule | None:
    """The module's native code compiled by groups of functions on worker
    threads and linked into a shared library (runtime/parallel_compile.py),
    or None: the ExecutionEngine compiles it (small module, an LLVM error;
    MSMLIR_DEBUG=1 says why). `keep_library`: keep the library file
    (`compiled.library_file`, `compiled.library_imports`) for the disk cache;
    the caller removes its directory."""
    if not shared_object.supported():
        return None
    threads = get_pass("msmlir-cpu-pipeline").defaults()["threads"]
    with module.context:
        groups, why = parallel_compile.plan(module, nested=threads > 1)
    if not groups:
        parallel_compile.debug(f"in-process JIT ({why})")
        return None
    tmp = tempfile.mkdtemp(prefix="msmlir-llvm-")
    try:
        with module.context:
            objects = parallel_compile.compile_objects(
                module, groups, tmp, opt_level,
                entries=tuple(f"_mlir_ciface_{_MANGLE}{n}" for n in signatures))
            check_sites = checks.sites_of(module)
        lib = os.path.join(tmp, "module.so")
        imports = shared_object.link(objects, lib, tmp)
        with open(lib, "rb") as f:
            shared_object.check_library(
                f.read(), imports, [f"_mlir__mlir_ciface_{_MANGLE}{n}" for n in signatures])
        library = shared_object.load(lib, imports, {checks.SYMBOL: checks.ADDRESS})
        compiled = CompiledModule.from_library(library, signatures, check_sites, _MANGLE)
    except (parallel_compile.ParallelCompileError, shared_object.LinkError,
            linker_errors()) as e:
        shutil.rmtree(tmp, ignore_errors=True)
        parallel_compile.debug(f"falls back to the in-process JIT: {type(e).__name__}: {e}")
        if type(e) not in _STORE_WARNED:
            _STORE_WARNED.add(type(e))
            warnings.warn(f"msmlir: parallel LLVM compilation failed, compiling in process "
                          f"instead ({type(e).__name__}: {str(e)[:500]})", RuntimeWarning,
                          stacklevel=5)
        return None
    compiled.llvm_ir = module
    compiled.parallel_groups = len(groups)
    if keep_library:
        compiled.library_file, compiled.library_imports = lib, imports
    else:
        shutil.rmtree(tmp, ignore_errors=True)   # (the loaded library stays mapped)
    return compiled


def linker_errors():
    from .runtime.linker import UnresolvedSymbolError
    return UnresolvedSymbolError


# --- the compile cache ------------------------------------------------------------------

_MEMORY: "OrderedDict[str, CompiledModule]" = OrderedDict()
MEMORY_ENTRIES = 256        # compiled modules kept for reuse within the process
_STORE_WARNED: set = set()


def cache_key(text: str, opt_level: int) -> str:
    """The in-process key of a module: its text (with locations), the pipeline
    options in effect and the LLVM optimization level."""
    options = sorted(get_pass("msmlir-cpu-pipeline").defaults().items())
    h = hashlib.sha256(text.encode())
    h.update(repr((opt_level, options, _MANGLE)).encode())
    return h.hexdigest()


def disk_key(key: str) -> str:
    """The on-disk key: the in-process key and compile_cache.stamp() (versions,
    sources, host CPU)."""
    return hashlib.sha256(f"{key}:{compile_cache.stamp()}".encode()).hexdigest()


def clear_memory_cache() -> None:
    with _LOCK:
        _MEMORY.clear()


def _remember(key: str, compiled: CompiledModule) -> None:
    _MEMORY[key] = compiled
    _MEMORY.move_to_end(key)
    while len(_MEMORY) > MEMORY_ENTRIES:
        _MEMORY.popitem(last=False)


def _metadata(compiled: CompiledModule) -> dict:
    return {"mangle": _MANGLE,
            "functions": {name: {"inputs": [[list(s), d.name] for s, d in sig.inputs],
                                 "outputs": [[list(s), d.name] for s, d in sig.outputs],
                                 "writeback": [list(p) for p in sig.writeback],
                                 "inplace": [list(p) for p in sig.inplace]}
                          for name, sig in compiled.signatures.items()},
            "check_sites": list(compiled.check_sites),
            "kernel_stats": dict(getattr(compiled, "kernel_stats", {}) or {})}


def _load(disk, key: str) -> CompiledModule | None:
    """The module of a valid disk entry, or None (an unusable one is removed
    with a warning by the cache, or here when it cannot be loaded)."""
    found = disk.load(key)
    if found is None:
        return None
    meta, path, data = found
    try:
        if meta.get("mangle") != _MANGLE:
            raise ValueError("another symbol mangling")
        shared_object.check_library(
            data, list(meta["imports"]),
            [f"_mlir__mlir_ciface_{_MANGLE}{name}" for name in meta["functions"]])
        signatures = {name: Signature([(tuple(s), np.dtype(d)) for s, d in f["inputs"]],
                                      [(tuple(s), np.dtype(d)) for s, d in f["outputs"]],
                                      [tuple(p) for p in f["writeback"]],
                                      [tuple(p) for p in f.get("inplace", [])])
                      for name, f in meta["functions"].items()}
        compiled = CompiledModule.from_library(
            shared_object.load(path, list(meta["imports"]), {checks.SYMBOL: checks.ADDRESS}),
            signatures, list(meta["check_sites"]), _MANGLE)
    except Exception as e:  # noqa: BLE001  (any defect of the entry: recompile)
        disk.invalid(key, f"{type(e).__name__}: {e}")
        return None
    compiled.kernel_stats = dict(meta.get("kernel_stats") or {})
    return compiled


def _store(disk, key: str, compiled: CompiledModule) -> None:
    """Writes the compiled module to the disk cache (failures only warn: the
    module is compiled and runs either way)."""
    tmp = disk.temp_dir()
    try:
        lib = os.path.join(tmp, "module.so")
        built = getattr(compiled, "library_file", None)
        if built is not None:         # compiled in parallel: already a library
            shutil.copyfile(built, lib)
            imports = list(compiled.library_imports)
        else:
            obj = os.path.join(tmp, "module.o")
            compiled.engine.dump_to_object_file(obj)
            imports = shared_object.link(obj, lib, tmp)
        with open(lib, "rb") as f:
            shared_object.check_library(f.read())
        meta = dict(_metadata(compiled), imports=imports)
        disk.store(key, meta, tmp, lib)
    except Exception as e:  # noqa: BLE001
        disk.discard(tmp)
        reason = f"{type(e).__name__}: {e}"
        if type(e) not in _STORE_WARNED:
            _STORE_WARNED.add(type(e))
            warnings.warn(f"msmlir compile cache: a compiled graph could not be stored "
                          f"({reason})", compile_cache.CompileCacheWarning, stacklevel=4)


def _hit(compiled: CompiledModule, timings: dict, what: str, t0: float) -> CompiledModule:
    timings[what] = time.perf_counter() - t0
    stats = getattr(compiled, "kernel_stats", {}) or {}
    _LAST_STATS.clear()
    _LAST_STATS.update(stats)
    return compiled


# Where and how jitted graphs run, set through set_context /
# set_auto_parallel_context; the jit cache keys include all of it, so a graph
# compiled before a change is recompiled. "parallel": (parallel_mode, device_num, full_batch).
_DEVICE = {"target": "CPU", "parallel": ("stand_alone", 1, False)}


def set_device_target(target: str) -> None:
    """Where jitted graphs run (set_context(device_target=...)): 'CPU', or
    'Ascend' (the frontend hands them to msmlir.ascend.compile_graph: Ascend C
    kernels on msmlir's emulation); 'GPU' graphs still compile for the CPU
    (context.py says so)."""
    _DEVICE["target"] = target


def device_target() -> str:
    return _DEVICE["target"]


def set_parallel_mode(mode: str, device_num: int, full_batch: bool = False) -> None:
    """set_auto_parallel_context's parallel_mode / device_num (msmlir.parallel
    compiles SEMI_AUTO / AUTO_PARALLEL graphs sharded over the ranks)."""
    _DEVICE["parallel"] = (mode, device_num, full_batch)


def compile_module(module, opt_level: int = 3, *, timings: dict | None = None,
                   name: str | None = None, source: str | None = None) -> CompiledModule:
    """Compiles a module of mindir functions (the module is lowered in place,
    unless the compile cache has it; pass a clone to keep the mindir form).

    `source`: the module's text with its locations, when the caller has it
    (the compile cache's key; printed here otherwise when the cache is on);
    `module` may then be a function returning the module, called only when
    the cache misses.
    `timings`: seconds already spent on this module by earlier stages (the
    frontend's), extended here with one entry per pipeline stage and "jit"
    (LLVM: ExecutionEngine creation and symbol lookup), or "cache" (memory) /
    "disk-cache" for a hit; the result keeps them as `compiled.timings`. With
    MSMLIR_TIMING=1 in the environment, one line per compiled module goes to
    stderr (`name` labels it)."""
    timings = dict(timings or {})
    t0 = time.perf_counter()
    compiled = key = dkey = None
    # dumps (save_graphs) are made by compiling: no cache then
    disk = _disk_cache() if _SAVE_GRAPHS["path"] is None else None
    if disk is not None:
        if source is None:
            with module.context:
                source = module.operation.get_asm(enable_debug_info=True)
        key = cache_key(source, opt_level)
        with _LOCK:
            compiled = _MEMORY.get(key)
            if compiled is not None:
                _MEMORY.move_to_end(key)
                compiled = _hit(compiled, timings, "cache", t0)
        if compiled is None and "mindir.host_callback" not in source:
            dkey = disk_key(key)
            compiled = _load(disk, dkey)
            if compiled is not None:
                with _LOCK:
                    _remember(key, compiled)
                    compiled = _hit(compiled, timings, "disk-cache", t0)
                compiled.timings = timings
        if compiled is None:
            timings["cache"] = time.perf_counter() - t0
    if compiled is None:
        if callable(module) and not isinstance(module, ir.Module):
            module = module()
        with _LOCK:
            compiled = _MEMORY.get(key) if key is not None else None
            if compiled is None:
                compiled = _compile(module, opt_level, timings, pic=dkey is not None)
                if dkey is not None and not compiled.callbacks:
                    t = time.perf_counter()
                    _store(disk, dkey, compiled)
                    timings["disk-store"] = time.perf_counter() - t
                built = getattr(compiled, "library_file", None)
                if built is not None:
                    shutil.rmtree(os.path.dirname(built), ignore_errors=True)
                    compiled.library_file = None
                if key is not None:
                    _remember(key, compiled)
                compiled.timings = timings
    if timing_enabled():
        _report_timing(name or "/".join(compiled.signatures) or "module", timings)
    return compiled


def _disk_cache():
    """The compile cache in effect, or None (off, refused, or no way to link here)."""
    disk = compile_cache.active()
    if disk is not None and not shared_object.supported():
        if "link" not in _STORE_WARNED:
            _STORE_WARNED.add("link")
            warnings.warn("msmlir compile cache: no C compiler (cc) to link compiled graphs "
                          "with, or an unsupported machine: the compile cache is off",
                          compile_cache.CompileCacheWarning, stacklevel=4)
        return None
    return disk


def compile_mlir(text: str, source_name: str = "<mlir>", opt_level: int = 3) -> CompiledModule:
    """Parses MLIR text in the shared context and compiles it."""
    ctx = context()
    with ctx:
        module = ir.Module.parse(text)
    return compile_module(module, opt_level)
