"""Fusion passes: the graph is cut into kernels, and the ops of a kernel are
fused into as few loop nests as possible.

    graph_kernel_fusion.py  mindir-graph-kernel-fusion: clusters of mindir ops ->
                            mskernel.fused kernels (MindSpore's graph-kernel fusion)
    outline_kernels.py      mskernel-outline-kernels: each kernel -> a private function
                            called from the host graph
    kernel_attrs.py         the kernel's kind/target attributes (no pass)
    inplace_writeback.py    msmlir-inplace-writeback: the parameter updates a kernel can
                            write into the parameter's own buffer (msmlir.inplace)
    row_fusion.py           msmlir-fuse-rows: linalg chains computed row by row (softmax,
                            layernorm, ...) fused into one loop over rows
    bound_elementwise_fusion.py
                            msmlir-bound-elementwise-fusion / msmlir-drop-fusion-barriers:
                            a size bound for upstream linalg-fuse-elementwise-ops
"""
from . import (bound_elementwise_fusion, graph_kernel_fusion, inplace_writeback,  # noqa: F401
               outline_kernels, row_fusion)  # (register the passes)
