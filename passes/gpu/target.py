"""The NVVM target's options and the CUDA tools, as data (no pass).

`check_target(chip, features)` validates a chip / PTX-feature combination
before any NVPTX code generation runs: LLVM aborts the whole process on a
bad one (`LLVM ERROR: PTX version 6.0 does not support target 'sm_90'`, see
shared/research/toolchain-notes.md section 3), so the combination is first
tried by the wheel's `llc` in a child process (cached per combination); an
unknown processor or feature (an LLVM warning there, then the default PTX
6.0 and the abort here) is an error too.

`cuda_toolkit()` is the directory laid out like a CUDA toolkit (bin/ptxas,
nvvm/libdevice/libdevice.10.bc) that gpu-module-to-binary is given: the
`nvidia-cuda-nvcc` wheel's (the optional `gpu` extra: site-packages
nvidia/cu*), else $CUDA_HOME / $CUDA_PATH, else the parent of the `ptxas`
on PATH. `ptxas_path()` is its ptxas.
"""
from __future__ import annotations

import functools
import glob
import os
import re
import shutil
import subprocess
import sys

_CHIP = re.compile(r"^sm_\d{2,3}[af]?$")
_FEATURES = re.compile(r"^(\+[a-z0-9_]+)(,\+[a-z0-9_]+)*$")


class TargetError(ValueError):
    """A chip/features combination the NVPTX back end cannot compile for."""


def _llvm_bin() -> str | None:
    import mlir  # namespace package: no code runs
    for p in list(mlir.__path__):
        cand = os.path.join(os.path.dirname(p), "llvm", "bin")
        if os.path.isfile(os.path.join(cand, "llc")):
            return cand
    return None


@functools.lru_cache(maxsize=64)
def _llc_verdict(chip: str, features: str) -> str | None:
    """None if llc generates PTX for (chip, features), else its complaint."""
    bindir = _llvm_bin()
    if bindir is None:
        return None     # no llc to ask: the static checks above are all there is
    ir_text = ('target triple = "nvptx64-nvidia-cuda"\n'
               "define ptx_kernel void @k() {\n  ret void\n}\n")
    proc = subprocess.run([os.path.join(bindir, "llc"), "-march=nvptx64", f"-mcpu={chip}",
                           f"-mattr={features}", "-o", os.devnull],
                          input=ir_text, capture_output=True, text=True, timeout=60)
    lines = [ln.strip() for ln in proc.stderr.splitlines() if ln.strip()]
    bad = [ln for ln in lines if "not a recognized" in ln or "ERROR" in ln or "error" in ln]
    if proc.returncode != 0 or bad:
        msgs = []
        for ln in bad or lines or [f"llc exited with status {proc.returncode}"]:
            ln = ln.replace("LLVM ERROR: ", "").split(" Either remove")[0]
            ln = ln.replace(" (ignoring processor)", "").replace(" (ignoring feature)", "")
            if ln not in msgs:
                msgs.append(ln)
        return "; ".join(msgs)
    return None


def check_target(chip: str, features: str) -> None:
    """Raises TargetError (a clear message) if NVPTX cannot compile for this
    chip with these PTX features (e.g. sm_90 without +ptx78 or later)."""
    if not _CHIP.match(chip):
        raise TargetError(f"invalid chip '{chip}': expected sm_<NN>[a|f], e.g. sm_90")
    if not _FEATURES.match(features):
        raise TargetError(f"invalid features '{features}': expected +ptx<NN>[,+...], e.g. +ptx80")
    verdict = _llc_verdict(chip, features)
    if verdict is not None:
        raise TargetError(f"chip={chip} features={features} cannot be compiled by the NVPTX "
                          f"back end: {verdict}")


def _wheel_toolkits() -> list[str]:
    found = []
    for base in sys.path:
        for d in sorted(glob.glob(os.path.join(base, "nvidia", "cu*")), reverse=True):
            if os.path.isfile(os.path.join(d, "bin", "ptxas")):
                found.append(d)
    return found


@functools.lru_cache(maxsize=1)
def cuda_toolkit() -> str | None:
    """A directory with bin/ptxas (and nvvm/libdevice when present), or None."""
    cands = _wheel_toolkits()
    for var in ("CUDA_HOME", "CUDA_PATH"):
        if os.environ.get(var):
            cands.append(os.environ[var])
    ptxas = shutil.which("ptxas")
    if ptxas:
        cands.append(os.path.dirname(os.path.dirname(os.path.realpath(ptxas))))
    for d in cands:
        if os.access(os.path.join(d, "bin", "ptxas"), os.X_OK):
            return d
    return None


def ptxas_path() -> str | None:
    """The ptxas executable (the wheel's first, else CUDA_HOME's, else PATH's)."""
    tk = cuda_toolkit()
    if tk is not None:
        return os.path.join(tk, "bin", "ptxas")
    return shutil.which("ptxas")


def libdevice_path() -> str | None:
    tk = cuda_toolkit()
    if tk is None:
        return None
    hits = sorted(glob.glob(os.path.join(tk, "nvvm", "libdevice", "libdevice*.bc")))
    return hits[-1] if hits else None
