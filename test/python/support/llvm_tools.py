"""The LLVM command-line tools of the pinned wheels, for tests that read
assembly (msmlir itself compiles in process: runtime/llvm_codegen.py)."""
from __future__ import annotations

import os


def llvm_tools() -> tuple[str, str, str] | None:
    """(mlir-translate, opt, llc) from the installed mlir/llvm wheels, or None."""
    import mlir
    for p in list(mlir.__path__):
        site = os.path.dirname(p)
        cand = (os.path.join(site, "mlir", "bin", "mlir-translate"),
                os.path.join(site, "llvm", "bin", "opt"),
                os.path.join(site, "llvm", "bin", "llc"))
        if all(os.access(c, os.X_OK) for c in cand):
            return cand
    return None
