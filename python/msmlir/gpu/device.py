"""Is there a CUDA device in this process? (ctypes + libcuda only, nothing compiled)

`cuda_device_count()` loads the driver library ($MSMLIR_LIBCUDA, default
libcuda.so.1) and asks cuInit/cuDeviceGetCount; 0 when the library is absent or
the driver has no device. `require_device()` raises GpuUnavailableError with
the reason: what set_context(device_target="GPU") should say when it cannot
run what it compiled (and ptxas-checked).
"""
from __future__ import annotations

import ctypes
import os


class GpuUnavailableError(RuntimeError):
    """Compiled for the GPU, but there is no CUDA device to run on."""


def cuda_status() -> tuple[int, str]:
    """(devices, why none): the CUDA driver asked for its device count; why is
    "" when there is one (what require_device and the GPU device target say)."""
    name = os.environ.get("MSMLIR_LIBCUDA", "libcuda.so.1")
    try:
        cu = ctypes.CDLL(name)
    except OSError as e:
        return 0, f"no CUDA driver library ({name}: {e})"
    status = cu.cuInit(0)
    if status != 0:
        return 0, f"cuInit failed with CUDA error {status}"
    n = ctypes.c_int(0)
    status = cu.cuDeviceGetCount(ctypes.byref(n))
    if status != 0:
        return 0, f"cuDeviceGetCount failed with CUDA error {status}"
    return n.value, "" if n.value else "the CUDA driver reports no device"


def cuda_device_count() -> int:
    return cuda_status()[0]


def require_device() -> None:
    n, why = cuda_status()
    if n == 0:
        raise GpuUnavailableError(f"cannot run on the GPU: {why}. The program was compiled (and "
                                  "its kernels checked by ptxas); export it with "
                                  "msmlir.gpu.export_cubin to run it on a machine with a GPU")
