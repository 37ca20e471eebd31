"""msmlir-gpu-pipeline: mindir -> kernels mapped to the GPU -> gpu.module -> NVVM -> gpu.binary.

The graph stages are the CPU pipeline's own (`cpu_lowering_stages`: composites
expanded, graph-kernel fusion, kernels outlined, mindir -> linalg); then
convert-mskernel-to-gpu (bufferization, blocks/threads mapping, gpu.launch),
and upstream does the rest: gpu-launch-sink-index-computations (constants
into the launches), gpu-kernel-outlining (one gpu.module per launch),
msmlir-gpu-align-workgroup (16-byte shared buffers for ldmatrix), nvvm-attach-target, the gpu.module lowered to NVVM, and
gpu-module-to-binary (format=isa: PTX text; bin: a cubin, which runs ptxas;
fatbin). The host functions stay on memrefs calling `gpu.launch_func`: the
AOT export (msmlir.gpu.export_cubin) reads them as they are; the in-process
runtime (msmlir.gpu.host) adds the "host" stage of `gpu_stages(host=True)`
(device buffers, gpu-to-llvm, LLVM).

chip/features are validated before anything runs (passes/gpu/target.py): a
combination the NVPTX back end rejects would abort the process.
`gpu_stages(...)` gives the same pipeline as named stages (what
msmlir.gpu compiles with, and what it stops early for the CPU check).
"""
from __future__ import annotations

from ..pipelines.cpu import GRAPH_PREPARE, cpu_lowering_stages
from ..registry import Option, PipelineError, register_pipeline
from .target import TargetError, check_target, cuda_toolkit

OPTIONS = {
    "chip": Option(str, "sm_90", "NVIDIA GPU architecture (sm_NN)"),
    "features": Option(str, "+ptx80", "PTX features (the PTX version: sm_90 needs +ptx78 or later)"),
    "opt-level": Option(int, 3, "LLVM optimization level of the device code (0-3)"),
    "format": Option(str, "isa", "gpu-module-to-binary format: isa (PTX), bin (cubin), fatbin"),
    "threads": Option(int, 256, "threads per block of the mapping (at most 1024)"),
    "block-reductions": Option(bool, True, "row reductions by a block each (shared-memory tree)"),
    "tile-matmul": Option(bool, True, "contractions tiled through shared memory, register tiles"),
    "tensor-cores": Option(bool, True, "f16/bf16 contractions on the tensor cores (mma.sync; "
                           "sm_80 and later)"),
    "tf32": Option(bool, False, "f32 contractions on the tensor cores as TF32 (opt-in)"),
    "fma": Option(bool, True, "device float mul/add contractible into fma"),
    "graph-kernel": Option(bool, True, "graph-kernel fusion (false: one kernel per op)"),
    "poly-schedule": Option(bool, False, "generic kernels mapped from their isl schedule "
                            "(target gpu); contractions and row reductions keep their tiles"),
    "host": Option(bool, False, "also lower the host functions for the in-process runtime "
                   "(device buffers, gpu-to-llvm, LLVM dialect)"),
}

_FORMATS = ("isa", "bin", "fatbin")

# Inside each gpu.module: loops, views and affine to LLVM-ready form, then NVVM.
_DEVICE = ("gpu.module(convert-nvgpu-to-nvvm,convert-scf-to-cf,lower-affine,expand-strided-metadata,"
           "convert-gpu-to-nvvm,canonicalize,cse,reconcile-unrealized-casts)")


# The host side for the in-process runtime: kernels inlined into the public
# functions, every buffer on the device, one stream, MLIR's CUDA runtime calls.
HOST = ("inline,symbol-dce,msmlir-gpu-device-buffers,func.func(gpu-async-region),"
        "expand-strided-metadata,lower-affine,gpu-to-llvm")


def validate(*, chip: str, features: str, opt_level: int, format: str, threads: int) -> None:
    try:
        check_target(chip, features)
    except TargetError as e:
        raise PipelineError(str(e)) from None
    if not 0 <= opt_level <= 3:
        raise PipelineError(f"opt-level={opt_level} is not in 0..3")
    if format not in _FORMATS:
        raise PipelineError(f"format={format} is not one of {', '.join(_FORMATS)}")
    if not 1 <= threads <= 1024:
        raise PipelineError(f"threads={threads} is not in 1..1024")


def has_mma(chip: str) -> bool:
    """Whether the chip has mma.sync for f16/bf16/tf32 (sm_80 and later)."""
    return int("".join(ch for ch in chip[3:] if ch.isdigit())) >= 80


def binary(format: str) -> str:
    tk = cuda_toolkit()
    opts = f"format={format}"
    if tk is not None and " " not in tk:
        opts += f" toolkit={tk}"
    return f"gpu-module-to-binary{{{opts}}}"


def gpu_stages(*, chip: str, features: str, opt_level: int, format: str, threads: int,
               block_reductions: bool, graph_kernel: bool, tile_matmul: bool = True,
               tensor_cores: bool = True, tf32: bool = False, fma: bool = True,
               poly_schedule: bool = False, launch: bool = True,
               host: bool = False) -> list[tuple[str, str]]:
    """The pipeline after GRAPH_PREPARE as named stages; launch=False stops at
    the mapped loop nest (stage "mapped", what the CPU check runs). Tensor
    cores (mma.sync m16n8k16 / m16n8k8) need sm_80 or later: off below.
    host=True adds stage "host": the host functions on device buffers
    (msmlir-gpu-device-buffers), one stream (gpu-async-region), MLIR's CUDA
    runtime calls (gpu-to-llvm) and the CPU pipeline's LLVM lowering: an
    LLVM-dialect module with the gpu.binary ops, what the ExecutionEngine
    runs in-process (msmlir.gpu.host)."""
    validate(chip=chip, features=features, opt_level=opt_level, format=format, threads=threads)
    graph = dict(cpu_lowering_stages(graph_kernel=graph_kernel, codegen=False))
    mma = tensor_cores and has_mma(chip)
    gpu = (f"convert-mskernel-to-gpu{{threads={threads} "
           f"block-reductions={str(block_reductions).lower()} "
           f"tile-matmul={str(tile_matmul).lower()} tensor-cores={str(mma).lower()} "
           f"tf32={str(tf32 and mma).lower()} fma={str(fma).lower()} "
           f"cp-async={str(has_mma(chip)).lower()} "
           f"poly-schedule={str(poly_schedule).lower()} "
           f"launch={str(launch).lower()}}}")
    stages = [("kernels", graph["kernels"]), ("linalg", graph["linalg"])]
    if not launch:
        return stages + [("mapped", gpu)]
    host_stage = [("host", HOST + "," + graph["llvm"])] if host else []
    return stages + [
        ("gpu", gpu),
        ("device", f"gpu-launch-sink-index-computations,gpu-kernel-outlining,"
                   f"msmlir-gpu-align-workgroup,nvvm-attach-target{{chip={chip} features={features} O={opt_level}}},{_DEVICE}"),
        ("binary", binary(format))] + host_stage


@register_pipeline("msmlir-gpu-pipeline",
                   "mindir -> kernels mapped to blocks/threads -> gpu.module -> NVVM -> gpu.binary "
                   "(PTX / cubin)", options=OPTIONS)
def gpu_pipeline(*, chip: str, features: str, opt_level: int, format: str, threads: int,
                 block_reductions: bool, tile_matmul: bool, tensor_cores: bool, tf32: bool,
                 fma: bool, graph_kernel: bool, poly_schedule: bool, host: bool) -> str:
    stages = gpu_stages(chip=chip, features=features, opt_level=opt_level, format=format,
                        threads=threads, block_reductions=block_reductions,
                        graph_kernel=graph_kernel, tile_matmul=tile_matmul,
                        tensor_cores=tensor_cores, tf32=tf32, fma=fma,
                        poly_schedule=poly_schedule, host=host)
    return ",".join([GRAPH_PREPARE] + [text for _, text in stages])
