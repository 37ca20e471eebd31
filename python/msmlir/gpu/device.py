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


# compute capability -> (chip, PTX features) the NVPTX back end of these wheels compiles for
# (and how the kernels are shipped: cubins from the wheel's ptxas; PTX for the driver to
# compile where that ptxas (CUDA 13) no longer knows the chip, and for newer devices)
_TARGETS = {(7, 0): ("sm_70", "+ptx60", "isa"), (7, 5): ("sm_75", "+ptx63", "bin"),
            (8, 0): ("sm_80", "+ptx70", "bin"), (8, 6): ("sm_86", "+ptx71", "bin"),
            (8, 7): ("sm_87", "+ptx74", "bin"), (8, 9): ("sm_89", "+ptx78", "bin"),
            (9, 0): ("sm_90", "+ptx80", "bin")}


def device_target(ordinal: int = 0) -> tuple[str, str, str]:
    """(chip, features, format) to compile for CUDA device `ordinal`: its own
    chip (_TARGETS); a newer device gets sm_90 PTX, which its driver
    compiles (PTX is forward compatible). Needs a device (cuda_status)."""
    cu = ctypes.CDLL(os.environ.get("MSMLIR_LIBCUDA", "libcuda.so.1"))
    dev, major, minor = ctypes.c_int(), ctypes.c_int(), ctypes.c_int()
    if cu.cuDeviceGet(ctypes.byref(dev), ordinal) != 0 or \
            cu.cuDeviceGetAttribute(ctypes.byref(major), 75, dev) != 0 or \
            cu.cuDeviceGetAttribute(ctypes.byref(minor), 76, dev) != 0:
        raise GpuUnavailableError(f"cannot read the compute capability of CUDA device {ordinal}")
    cc = (major.value, minor.value)
    if cc in _TARGETS:
        return _TARGETS[cc]
    if cc > (9, 0):
        return "sm_90", "+ptx80", "isa"
    raise GpuUnavailableError(f"CUDA device {ordinal} (compute capability {cc[0]}.{cc[1]}) is "
                              "older than msmlir's GPU target supports (sm_70)")


def managed_memory_ok(ordinal: int = 0) -> tuple[bool, str]:
    """(ok, why not): whether device `ordinal` lets the host and the device use
    managed memory concurrently (CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY and
    CONCURRENT_MANAGED_ACCESS: Linux, Pascal and later), which results kept
    in managed memory need (msmlir.gpu.resident)."""
    cu = ctypes.CDLL(os.environ.get("MSMLIR_LIBCUDA", "libcuda.so.1"))
    dev, managed, concurrent = ctypes.c_int(), ctypes.c_int(), ctypes.c_int()
    if cu.cuDeviceGet(ctypes.byref(dev), ordinal) != 0 or \
            cu.cuDeviceGetAttribute(ctypes.byref(managed), 83, dev) != 0 or \
            cu.cuDeviceGetAttribute(ctypes.byref(concurrent), 89, dev) != 0:
        return False, f"cannot read the managed-memory attributes of CUDA device {ordinal}"
    if not managed.value:
        return False, f"CUDA device {ordinal} has no managed memory"
    if not concurrent.value:
        return False, f"CUDA device {ordinal} has no concurrent managed access"
    return True, ""


def cuda_device_count() -> int:
    return cuda_status()[0]


def require_device() -> None:
    n, why = cuda_status()
    if n == 0:
        raise GpuUnavailableError(f"cannot run on the GPU: {why}. The program was compiled (and "
                                  "its kernels checked by ptxas); export it with "
                                  "msmlir.gpu.export_cubin to run it on a machine with a GPU")
