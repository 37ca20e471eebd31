"""set_context(device_target="GPU"): what a jitted graph gets.

The graph is compiled by msmlir-gpu-pipeline (every kernel mapped to blocks
and threads, lowered through NVVM to PTX) and every kernel is assembled by
ptxas (when the `[gpu]` extra provides it), so a kernel the GPU would reject
is an error here too. Running needs two things this process may lack: a CUDA
device, and msmlir's in-process host runtime for GPU graphs (gpu-to-llvm +
the CUDA runtime), which is not built yet. Either way the call raises
GpuUnavailableError saying what was compiled and checked, why it cannot run,
and the two ways on (device_target="CPU" here, or msmlir.gpu.export_cubin's
cubins + runner on a GPU machine). Nothing falls back to the CPU silently.
"""
from __future__ import annotations

import time

from .compile import compile_gpu
from .device import GpuUnavailableError, cuda_status
from .ptxas import check_program, find_ptxas


def checked_summary(prog) -> str:
    """'N kernels for sm_90, ptxas: ...' of a compiled program."""
    n = len(prog.objects)
    head = f"{n} kernel module{'s' if n != 1 else ''} for {prog.options['chip']}"
    if find_ptxas() is None:
        return head + " (not assembled: no ptxas; install msmlir[gpu])"
    reports = check_program(prog).values()
    regs = max((r.registers for r in reports), default=0)
    shared = max((r.shared for r in reports), default=0)
    spills = sum(r.spills for r in reports)
    return (head + f", all accepted by ptxas (at most {regs} registers and {shared} bytes of "
            f"shared memory per kernel, {spills} with spills)")


def compile_graph(text: str, timings: dict | None = None):
    """Compiles and checks the mindir module text for the GPU, then raises
    GpuUnavailableError (see the module docstring)."""
    t = time.perf_counter()
    prog = compile_gpu(text)
    summary = checked_summary(prog)
    if timings is not None:
        timings["gpu"] = time.perf_counter() - t
    n, why = cuda_status()
    reason = (f"this process has no usable CUDA device ({why})" if n == 0 else
              "msmlir cannot run jitted graphs on the GPU in-process yet (its host runtime "
              "for GPU graphs is not built)")
    raise GpuUnavailableError(
        f"device_target='GPU': compiled {summary}, but cannot run them: {reason}. "
        "Use set_context(device_target='CPU') to run here, or msmlir.gpu.export_cubin to take "
        "the kernels (cubins + launch manifest + a ctypes runner) to a machine with a GPU")
