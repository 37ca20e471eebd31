"""Binds the external symbols of a JIT-compiled module, explicitly and only those.

MLIR's ExecutionEngine resolves a module's undefined symbols against the whole
process, and loads `shared_libs` with RTLD_GLOBAL. Both are wrong for msmlir:
the runtime libraries of the MLIR wheel pull in libMLIR.so/libLLVM.so, and
making their symbols global lets other libraries that carry their own MLIR
(PyTorch's Triton) bind to ours and corrupt the heap; and resolving against the
process lets IR that declares `llvm.func @system` call any process function.

So the engine gets no shared libraries. Every function the lowered module
declares without a body must be one of:
  - a JIT Fallback host callback registered for this module,
  - a symbol of the MLIR runtime library (`memrefCopy`) or of LLVM's OpenMP
    runtime (`__kmpc_fork_call`, ... for threads > 1), loaded here RTLD_LOCAL,
    or of the MPI library (`MPI_Allreduce`, `ompi_mpi_comm_world`, ... for
    collectives) once msmlir.communication.init() started MPI (runtime/mpi.py),
  - the communicator cell of a group made by create_group
    (`msmlir_mpi_group_<name>`, runtime/mpi.py),
  - a libm function (the `math` lowering's calls), or one of the few libc
    allocation/memory functions the lowering emits.
Anything else is an `UnresolvedSymbolError` before any code exists.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import os
import threading
from mlir import ir

from .._native import RUNTIME_LIB_DIR

# What the memref/func lowerings call in libc.
LIBC_FUNCTIONS = frozenset({
    "malloc", "free", "calloc", "realloc", "aligned_alloc", "posix_memalign",
    "memcpy", "memmove", "memset", "abort", "puts"})


class UnresolvedSymbolError(RuntimeError):
    """A compiled module declares a function msmlir does not provide."""


_LOCK = threading.Lock()
_LIBS: dict[str, tuple[ctypes.CDLL, str] | None] = {}


class _DlInfo(ctypes.Structure):
    _fields_ = [("dli_fname", ctypes.c_char_p), ("dli_fbase", ctypes.c_void_p),
                ("dli_sname", ctypes.c_char_p), ("dli_saddr", ctypes.c_void_p)]


_dladdr = ctypes.CDLL(None).dladdr
_dladdr.argtypes = [ctypes.c_void_p, ctypes.POINTER(_DlInfo)]
_dladdr.restype = ctypes.c_int


def _defining_file(address: int | None) -> str | None:
    info = _DlInfo()
    if not address or not _dladdr(address, ctypes.byref(info)) or not info.dli_fname:
        return None
    return os.path.realpath(info.dli_fname.decode())


def _symbol(handle: ctypes.CDLL, name: str) -> int | None:
    try:
        return ctypes.cast(getattr(handle, name), ctypes.c_void_p).value
    except AttributeError:
        return None


def _library(key: str, path: str | None, known_symbol: str):
    """(handle, real path) of a library loaded RTLD_LOCAL once; the path is
    where `known_symbol` is defined, i.e. the library file itself."""
    with _LOCK:
        if key not in _LIBS:
            _LIBS[key] = None
            try:
                handle = ctypes.CDLL(path, mode=ctypes.RTLD_LOCAL) if path else None
            except OSError:
                handle = None
            if handle is not None:
                where = _defining_file(_symbol(handle, known_symbol))
                if where is not None:
                    _LIBS[key] = (handle, where)
        return _LIBS[key]


def system_library(name: str) -> str | None:
    """What to dlopen for the C library or libm ("c", "m"): glibc's soname
    (`libm.so.6`), else ctypes.util.find_library's answer. Why: find_library
    runs `ldconfig -p` in a subprocess (~5 ms of a first call), each time."""
    with _LOCK:
        if name not in _SONAMES:
            soname = f"lib{name}.so.6"
            try:
                ctypes.CDLL(soname, mode=ctypes.RTLD_LOCAL)
            except OSError:
                soname = ctypes.util.find_library(name)
            _SONAMES[name] = soname
        return _SONAMES[name]


_SONAMES: dict[str, str | None] = {}


def _address(lib, name: str) -> int | None:
    """`name`'s address if the library itself defines it. dlsym on a handle also
    searches the library's dependencies (libc's `system` through any of them),
    so the defining file is checked with dladdr."""
    if lib is None:
        return None
    handle, where = lib
    address = _symbol(handle, name)
    if address is None or _defining_file(address) != where:
        return None
    return address


def libomp_path() -> str | None:
    """LLVM's OpenMP runtime: $MSMLIR_LIBOMP, else the cmeel-libomp wheel's
    (`<site-packages>/cmeel.prefix/lib/libomp.so`, a dependency of msmlir)."""
    if os.environ.get("MSMLIR_LIBOMP"):
        return os.environ["MSMLIR_LIBOMP"]
    import site
    import sysconfig
    for d in [sysconfig.get_paths()["platlib"], sysconfig.get_paths()["purelib"],
              *site.getsitepackages()]:
        path = os.path.join(d, "cmeel.prefix", "lib", "libomp.so")
        if os.path.exists(path):
            return path
    return None


def _libomp():
    """libomp, its idle workers spinning for KMP_BLOCKTIME ms (read when it
    loads; default here 1, libomp's own is 200): back-to-back kernels and train
    steps find them awake, and they stop competing with the rest of the
    process (PyTorch's and OpenBLAS's threads, Python) soon after."""
    os.environ.setdefault("KMP_BLOCKTIME", "1")
    return _library("omp", libomp_path(), "__kmpc_fork_call")


# MLIR 22's MPI lowering names OpenMPI's predefined reduction ops
# `ompi_mpi_sum`, ...; OpenMPI's mpi.h (and libmpi) call them
# `ompi_mpi_op_sum`, ... (docs/known-issues.md).
MPI_ALIASES = {f"ompi_mpi_{op}": f"ompi_mpi_op_{op}" for op in ("sum", "max", "min", "prod")}


def _libmpi():
    """libmpi (collectives), once msmlir.communication.init() has started MPI."""
    from . import mpi
    if not mpi.initialized():
        raise UnresolvedSymbolError(
            "this graph has collectives (all_reduce, all_gather, ...): call "
            "msmlir.communication.init() before compiling it (and run under mpirun)")
    return _library("mpi", mpi.library_path(), "MPI_Allreduce")


def _libraries(name: str):
    """The libraries a compiled module may call `name` from, in lookup order,
    each loaded on first need (libmlir_c_runner_utils.so brings libMLIR.so
    along; libomp only for OpenMP's entry points)."""
    yield _library("m", system_library("m"), "cos")
    if name.startswith(("__kmpc_", "omp_")):
        yield _libomp()
    if name.startswith(("MPI_", "ompi_")):
        yield _libmpi()
    yield _library("c_runner_utils", str(RUNTIME_LIB_DIR / "libmlir_c_runner_utils.so"),
                   "memrefCopy")


# What LLVM's OpenMPIRBuilder calls for the omp ops our lowering makes
# (parallel regions, static work-sharing loops). They appear only when the
# module is translated to LLVM IR, so a module with omp ops gets them all.
OPENMP_ENTRY_POINTS = (
    "__kmpc_fork_call", "__kmpc_global_thread_num", "__kmpc_push_num_threads",
    "__kmpc_for_static_init_4", "__kmpc_for_static_init_4u", "__kmpc_for_static_init_8",
    "__kmpc_for_static_init_8u", "__kmpc_for_static_fini", "__kmpc_barrier",
    "__kmpc_dispatch_init_8u", "__kmpc_dispatch_next_8u", "__kmpc_dispatch_fini_8u",
    "__kmpc_reduce", "__kmpc_reduce_nowait", "__kmpc_end_reduce", "__kmpc_end_reduce_nowait",
    "__kmpc_critical", "__kmpc_end_critical", "__kmpc_flush")


def _has_openmp(module: ir.Module) -> bool:
    found = []

    def visit(op):
        if op.name.startswith("omp."):
            found.append(op)
            return ir.WalkResult.INTERRUPT
        return ir.WalkResult.ADVANCE
    module.operation.walk(visit)
    return bool(found)


def external_functions(module: ir.Module) -> list[str]:
    """Names of the functions (and globals) an LLVM-dialect module declares but
    does not define: what the JIT would otherwise look up in the process
    (with OpenMP's entry points when the module has omp ops)."""
    names = list(OPENMP_ENTRY_POINTS) if _has_openmp(module) else []
    for op in module.body.operations:
        kind = op.operation.name
        declared = kind == "llvm.func" and not op.regions[0].blocks
        declared |= (kind == "llvm.mlir.global" and "value" not in op.attributes
                     and not op.regions[0].blocks)
        if declared:
            names.append(ir.StringAttr(op.attributes["sym_name"]).value)
    return names


def resolve(names, provided: dict[str, int] | None = None) -> dict[str, int]:
    """Address of every name in `names`: from `provided` (host callbacks), the
    MLIR runtime libraries, libm, or the allowed libc functions. Raises
    UnresolvedSymbolError naming the symbols that are none of these."""
    provided = provided or {}
    out, missing = {}, []
    libc = _library("c", system_library("c"), "malloc")
    for name in names:
        addr = provided.get(name)
        if addr is None and name in LIBC_FUNCTIONS:
            addr = _address(libc, name)
        if addr is None and name.startswith("msmlir_mpi_group_"):
            from . import mpi               # a sub-group's communicator cell (runtime/mpi.py)
            addr = mpi.group_cell_address(name)
        if addr is None:
            for lib in _libraries(name):
                addr = _address(lib, MPI_ALIASES.get(name, name))
                if addr is not None:
                    break
        if addr is None:
            missing.append(name)
        else:
            out[name] = addr
    if missing:
        raise UnresolvedSymbolError(
            "the compiled module calls external function(s) msmlir does not provide: "
            + ", ".join(f"@{n}" for n in missing)
            + " (only the MLIR, OpenMP and MPI runtimes, libm and libc's memory functions "
              "can be called)")
    return out
