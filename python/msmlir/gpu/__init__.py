"""msmlir's NVVM GPU target, from Python.

    compile_gpu(mindir, chip=, features=, ...)  msmlir-gpu-pipeline, stage by stage -> GpuProgram
    run_mapped_on_cpu(mindir, ...)               the mapped loop nest JIT-compiled for the CPU
    ptxas.check_program(prog)                    every kernel assembled by ptxas -v (registers,
                                                 shared memory, spills; remarks on spills/limits)
    replan.compile_checked(mindir, ...)          compile + ptxas; kernels that spill / exceed limits
                                                 re-planned with smaller tiles (bounded, remarks)
    export_cubin(mindir, out_dir, ...)           cubins + launch manifest + a ctypes/libcuda runner
    host.compile_host(mindir) / host.load(prog)  the in-process runtime: host code on device
                                                 buffers through MLIR's CUDA runtime (JIT)
    graph.compile_graph(text, params=...)        the same for a jitted graph or a PyNative op:
                                                 its Parameters kept on the device across calls,
                                                 its results in managed memory (resident)
    device.cuda_device_count() / require_device() whether this process can run on a GPU

set_context(device_target="GPU") hands jitted graphs to graph.compile_graph:
with a CUDA device they run in-process (msmlir.gpu.host; not yet verified on
a GPU); without one they are compiled and ptxas-checked, then a
GpuUnavailableError says why they cannot run.
"""
from .compile import GpuProgram, Launch, compile_gpu, run_mapped_on_cpu  # noqa: F401
from .device import GpuUnavailableError, cuda_device_count, require_device  # noqa: F401


def export_cubin(src, out_dir: str, **options) -> str:
    """msmlir.gpu.export.export_cubin (imported on first use)."""
    from .export import export_cubin as export
    return export(src, out_dir, **options)
