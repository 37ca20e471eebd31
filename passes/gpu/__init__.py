"""The NVVM GPU target: kernels mapped to blocks/threads, gpu.module -> NVVM -> PTX/cubin.

    convert_mskernel_to_gpu  convert-mskernel-to-gpu (bufferize, map, gpu.launch)
    pipelines                msmlir-gpu-pipeline
    target                   chip/features validation, the CUDA tools (no pass)
"""
from . import convert_mskernel_to_gpu, pipelines  # noqa: F401
