"""Loads the C++ dialect library into the one MLIR of this process.

The library is linked against the bindings' libMLIRPythonCAPI.so (DT_NEEDED +
RUNPATH), so loading it after `mlir.ir` reuses the copy of MLIR the bindings
loaded. It is loaded RTLD_LOCAL: nothing of MLIR/LLVM becomes global in the
process, so libraries that carry their own MLIR (PyTorch's Triton) keep
binding to theirs. The dialects are
inserted into the bindings' global DialectRegistry, which every
`mlir.ir.Context` appends (and loads) when it is created, so every context made
after `import msmlir` knows mindir, mskernel and ascendc.
"""
from __future__ import annotations

import ctypes
import os
from pathlib import Path

import mlir
from mlir import ir
from mlir._mlir_libs import get_dialect_registry

MLIR_ROOT = Path(list(mlir.__path__)[0])
MLIR_LIB_DIR = MLIR_ROOT / "_mlir_libs"
RUNTIME_LIB_DIR = MLIR_ROOT / "lib"


def _library_path() -> Path:
    override = os.environ.get("MSMLIR_DIALECT_LIB")
    candidates = [Path(override)] if override else []
    # An editable install keeps built files in site-packages, sources in the repo.
    import msmlir
    candidates += [Path(p) / "_lib" / "libMSMLIRDialects.so" for p in msmlir.__path__]
    for c in candidates:
        if c.is_file():
            return c
    raise ImportError(
        "msmlir: the dialect library libMSMLIRDialects.so was not found "
        f"(looked in {', '.join(map(str, candidates))}); install the package with "
        "`pip install .` so that it is built")


LIB_PATH = _library_path()
_lib = ctypes.CDLL(str(LIB_PATH), mode=ctypes.RTLD_LOCAL)
_lib.msmlirRegisterDialects.argtypes = [ctypes.c_void_p]
_lib.msmlirLoadDialects.argtypes = [ctypes.c_void_p]
_lib.msmlirSetCrashContext.argtypes = [ctypes.c_char_p]

_capsule_ptr = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_ptr.restype = ctypes.c_void_p
_capsule_ptr.argtypes = [ctypes.py_object, ctypes.c_char_p]


def _c_ptr(obj, name: bytes) -> int:
    return _capsule_ptr(obj._CAPIPtr, name)


def set_crash_context(text: str) -> None:
    """What to print on stderr if the process dies on a signal from here on
    (MLIR asserts on some invalid inputs); "" clears it. Used by ms-opt."""
    _lib.msmlirSetCrashContext(text.encode("utf-8", "replace"))


def load_dialects(context: ir.Context) -> None:
    """Loads mindir and mskernel into `context` (needed only for contexts
    created with load_on_create_dialects or before msmlir was imported)."""
    _lib.msmlirLoadDialects(_c_ptr(context, b"mlir.ir.Context._CAPIPtr"))


_lib.msmlirRegisterDialects(_c_ptr(get_dialect_registry(), b"mlir.ir.DialectRegistry._CAPIPtr"))

# Let the bindings find our op classes (msmlir.dialects.<namespace>) when they
# wrap an operation, as they do for upstream dialects under mlir.dialects.
from mlir._mlir_libs._mlir import globals as _mlir_globals  # noqa: E402

_mlir_globals.append_dialect_search_prefix("msmlir.dialects")
