"""The NVVM GPU target: kernels mapped to blocks/threads, gpu.module -> NVVM -> PTX/cubin.

    convert_mskernel_to_gpu  convert-mskernel-to-gpu (bufferize, map, gpu.launch)
    mma                      tensor-core (mma.sync) tiles of contractions (used by the above)
    align_workgroup          msmlir-gpu-align-workgroup (16-byte shared buffers for ldmatrix)
    device_buffers           msmlir-gpu-device-buffers (host code on device buffers, for gpu-to-llvm)
    pipelines                msmlir-gpu-pipeline
    target                   chip/features validation, the CUDA tools (no pass)
"""
from . import align_workgroup, convert_mskernel_to_gpu, device_buffers, pipelines  # noqa: F401
