"""set_context(device_target="GPU"): what a jitted graph gets.

The graph is compiled by msmlir-gpu-pipeline (every kernel mapped to blocks
and threads, lowered through NVVM to PTX) and every kernel is assembled by
ptxas (when the `[gpu]` extra provides it), so a kernel the GPU would reject
is an error here too (and one that spills or exceeds a limit is re-planned
with smaller tiles: msmlir.gpu.replan). With a CUDA device in the process the graph then runs
through the in-process host runtime (msmlir.gpu.host: gpu-to-llvm + MLIR's
CUDA runtime, buffers kept on the device across the graph's kernels, results
kept on the device in managed memory across graphs and PyNative ops; not yet
verified on a GPU). Without one the call raises GpuUnavailableError saying
what was compiled and checked, why it cannot run, and the two ways on
(device_target="CPU" here, or msmlir.gpu.export_cubin's cubins + runner on a
GPU machine). Nothing falls back to the CPU silently.
"""
from __future__ import annotations

import time

from .compile import compile_gpu
from .device import GpuUnavailableError, cuda_status
from .ptxas import check_program, find_ptxas
from .replan import compile_checked


def checked_summary(prog, reports=None, replans=()) -> str:
    """'N kernels for sm_90, ptxas: ...' of a compiled program (`reports`:
    its ptxas reports when already checked, `replans`: msmlir.gpu.replan's)."""
    n = len(prog.objects)
    head = f"{n} kernel module{'s' if n != 1 else ''} for {prog.options['chip']}"
    if find_ptxas() is None:
        return head + " (not assembled: no ptxas; install msmlir[gpu])"
    reports = (reports if reports is not None else check_program(prog)).values()
    regs = max((r.registers for r in reports), default=0)
    shared = max((r.shared for r in reports), default=0)
    spills = sum(r.spills for r in reports)
    again = f", {len({p.kernel for p in replans})} re-planned" if replans else ""
    return (head + f", all accepted by ptxas (at most {regs} registers and {shared} bytes of "
            f"shared memory per kernel, {spills} with spills{again})")


def compile_graph(text: str, timings: dict | None = None, params=None):
    """With a CUDA device: the mindir module text compiled for the in-process
    runtime (msmlir.gpu.host) and loaded, a GpuModule. `params`: the
    Parameters fed as the trailing inputs of its one public function (the
    frontend's Lowered.params); given, they stay on the device across calls
    (msmlir.gpu.resident) and the module's function takes the other inputs
    only (`owns_parameters` is then True). Without a device: the kernels
    compiled and checked by ptxas, then GpuUnavailableError (see the module
    docstring)."""
    t = time.perf_counter()
    n, why = cuda_status()
    if n:
        from .device import device_target
        from .host import compile_host, load
        chip, features, fmt = device_target()
        if find_ptxas() is None:
            fmt = "isa"              # PTX, compiled by the driver
        compiled = load(compile_host(text, chip=chip, features=features, format=fmt,
                                     resident=len(params or ()), device_io=True))
        compiled.owns_parameters = bool(params)
        if params:
            name, = compiled.signatures
            compiled.bind_parameters(name, params)
        if timings is not None:
            timings["gpu"] = time.perf_counter() - t
        return compiled
    if find_ptxas() is None:
        prog, reports, replans = compile_gpu(text), None, []
    else:       # kernels ptxas finds spilling or over a limit re-planned (replan.py)
        prog, reports, replans = compile_checked(text)
    summary = checked_summary(prog, reports, replans)
    if timings is not None:
        timings["gpu"] = time.perf_counter() - t
    raise GpuUnavailableError(
        f"device_target='GPU': compiled {summary}, but cannot run them: this process has no "
        f"usable CUDA device ({why}). Use set_context(device_target='CPU') to run here, or "
        "msmlir.gpu.export_cubin to take the kernels (cubins + launch manifest + a ctypes "
        "runner) to a machine with a GPU")
