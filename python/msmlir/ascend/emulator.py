"""Builds an emitted Ascend C kernel against msmlir's CPU emulation of the
Ascend C API (lib/ascendc_emu) and runs it on numpy arrays.

This is emulation on the host CPU, not an NPU: the kernel source is the one a
CANN user would build, compiled here with g++ -O2 against kernel_operator.h
of lib/ascendc_emu, whose API calls check the hardware's rules (capacity,
alignment, queue protocol, use after free, vector counts) and raise.

Builds are cached by a hash of everything that goes into them (wrapper,
kernel source, emulator headers, compiler and flags) in
$MSMLIR_ASCEND_CACHE, else <tmp>/msmlir-ascend-<uid>; a build is written
to a temporary name and renamed into place, so concurrent processes share it.
"""
from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np

CXX_FLAGS = ["-O2", "-std=c++17", "-shared", "-fPIC", "-fvisibility=hidden"]
N_STATS = 11
STAT_NAMES = ("datacopy_calls", "datacopy_bytes", "vector_instructions", "vector_elements", "mmad_calls",
              "mmad_macs", "peak_ub", "peak_l1", "peak_l0a", "peak_l0b", "peak_l0c")


class AscendEmulationError(RuntimeError):
    """An emitted kernel broke an Ascend C rule on the emulator (the message
    names the kernel and the API call), or could not be built."""


def emulator_dir() -> Path:
    """lib/ascendc_emu of this source tree, else the copy installed with the
    wheel (msmlir/_lib/ascendc_emu); $MSMLIR_ASCENDC_EMU overrides."""
    env = os.environ.get("MSMLIR_ASCENDC_EMU")
    if env:
        return Path(env)
    here = Path(__file__).resolve()
    for parent in here.parents:
        cand = parent / "lib" / "ascendc_emu" / "kernel_operator.h"
        if cand.is_file():
            return cand.parent
    installed = here.parents[1] / "_lib" / "ascendc_emu"
    if (installed / "kernel_operator.h").is_file():
        return installed
    raise AscendEmulationError("lib/ascendc_emu (the Ascend C CPU emulation headers) not found; "
                               "set MSMLIR_ASCENDC_EMU to its directory")


def cache_dir() -> Path:
    d = os.environ.get("MSMLIR_ASCEND_CACHE") or os.path.join(tempfile.gettempdir(),
                                                              f"msmlir-ascend-{os.getuid()}")
    p = Path(d)
    p.mkdir(parents=True, exist_ok=True, mode=0o700)
    return p


def _cxx() -> str:
    cxx = os.environ.get("CXX") or shutil.which("g++") or shutil.which("c++")
    if not cxx:
        raise AscendEmulationError("no C++ compiler (g++) to build the emulated Ascend C kernels")
    return cxx


def wrapper_source(kernel: str, n_args: int, tiling_struct: str, kernel_file: str) -> str:
    args = ", ".join(f"args[{i}]" for i in range(n_args))
    return (f"// msmlir: the emulator's harness around {kernel} (not part of the CANN project)\n"
            "#include <cstring>\n"
            '#include "ascendc_emu_runner.h"\n'
            f"{tiling_struct}"
            f'#include "{kernel_file}"\n'
            'extern "C" __attribute__((visibility("default"))) int msmlir_emu_run(uint8_t** args, uint32_t blockDim, '
            "char* err, int errlen, uint64_t* stats) {\n"
            f'  return AscendC::emu::run_blocks("{kernel}", blockDim, err, errlen, stats, [&] {{ {kernel}({args}); }});\n'
            "}\n")


def _headers_digest(d: Path) -> str:
    h = hashlib.sha256()
    for f in sorted(d.glob("*.h")):
        h.update(f.name.encode())
        h.update(f.read_bytes())
    return h.hexdigest()


def build(kernel: str, kernel_source: str, tiling_struct: str, n_args: int) -> Path:
    """The shared library of `kernel_source` built against the emulator (cached)."""
    emu = emulator_dir()
    cxx = _cxx()
    kfile = f"{kernel}.cpp"
    wrapper = wrapper_source(kernel, n_args, tiling_struct, kfile)
    key = hashlib.sha256("\0".join([wrapper, kernel_source, _headers_digest(emu), cxx, *CXX_FLAGS])
                         .encode()).hexdigest()[:24]
    out = cache_dir() / f"{kernel[:60]}-{key}.so"
    if out.is_file():
        return out
    with tempfile.TemporaryDirectory(dir=cache_dir()) as tmp:
        Path(tmp, kfile).write_text(kernel_source)
        Path(tmp, "wrapper.cpp").write_text(wrapper)
        so = Path(tmp, "k.so")
        cmd = [cxx, *CXX_FLAGS, f"-I{emu}", f"-I{tmp}", str(Path(tmp, "wrapper.cpp")), "-o", str(so)]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            raise AscendEmulationError(f"{kernel}: the emitted Ascend C does not compile against the "
                                       f"emulator:\n{r.stderr[-4000:]}")
        os.replace(so, out)
    return out


class EmulatedKernel:
    """One emitted kernel, built for the emulator: `run(*inputs) -> [outputs]`."""

    def __init__(self, kernel: str, lib_path: Path, in_shapes, out_shapes, tiling: list[int], block_dim: int,
                 in_dtypes=None, out_dtypes=None, workspace_bytes: int = 32):
        self.kernel, self.path = kernel, lib_path
        self.in_dtypes = [np.dtype(d) for d in (in_dtypes or ["float32"] * len(in_shapes))]
        self.out_dtypes = [np.dtype(d) for d in (out_dtypes or ["float32"] * len(out_shapes))]
        self.in_shapes = [tuple(s) for s in in_shapes]
        self.out_shapes = [tuple(s) for s in out_shapes]
        self.tiling = np.array(tiling, dtype=np.uint32)
        self.block_dim = block_dim
        self.workspace_bytes = max(32, int(workspace_bytes))
        self._lib = ctypes.CDLL(str(lib_path))
        self._fn = self._lib.msmlir_emu_run
        self._fn.restype = ctypes.c_int
        self._fn.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_uint32, ctypes.c_char_p, ctypes.c_int,
                             ctypes.POINTER(ctypes.c_uint64)]
        self.last_stats: dict = {}

    def run(self, *inputs) -> list[np.ndarray]:
        if len(inputs) != len(self.in_shapes):
            raise ValueError(f"{self.kernel}: {len(self.in_shapes)} inputs expected, got {len(inputs)}")
        ins = []
        for i, (a, shp, dt) in enumerate(zip(inputs, self.in_shapes, self.in_dtypes)):
            a = np.asarray(a, dtype=dt, order="C")         # bool: one byte, 0/1 (uint8 in GM)
            if a.shape != shp:
                raise ValueError(f"{self.kernel}: input {i} has shape {a.shape}, expected {shp}")
            ins.append(a)
        outs = [np.full(s, np.nan, dtype=np.float32) if dt == np.float32 else np.zeros(s, dtype=dt)
                for s, dt in zip(self.out_shapes, self.out_dtypes)]
        workspace = np.zeros(self.workspace_bytes, dtype=np.uint8)
        ptrs = [a.ctypes.data for a in ins + outs] + [workspace.ctypes.data, self.tiling.ctypes.data]
        argv = (ctypes.c_void_p * len(ptrs))(*ptrs)
        err = ctypes.create_string_buffer(2048)
        stats = (ctypes.c_uint64 * N_STATS)()
        rc = self._fn(argv, self.block_dim, err, len(err), stats)
        self.last_stats = dict(zip(STAT_NAMES, list(stats)))
        if rc != 0:
            raise AscendEmulationError(err.value.decode(errors="replace"))
        return outs
