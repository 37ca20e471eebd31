"""Every msmlir pass, in Python, grouped by phase (in pipeline order).

    graph/      mindir -> mindir rewrites (functionalize assigns, embed parameters,
                expand composites: expanders/ holds one rule per op)
    autodiff/   mindir-autodiff: reverse-mode AD of mindir functions
    vmap/       mindir-vmap: batching of mindir functions
    kernel/     mskernel compute kernels: kernel-level AD, inlining
    lowering/   mindir -> linalg/tensor/arith/math (convert-mindir-to-linalg)
    fusion/     graph-kernel fusion (mindir clusters -> mskernel.fused kernels ->
                outlined kernel functions), then linalg ops of a kernel fused into
                few loop nests (msmlir-fuse-rows)
    poly/       mskernel-poly-schedule: isl polyhedral scheduling of affine loop
                nests (dependences, fusion, tiling from a memory model, marks);
                not yet part of the default CPU pipeline
    bufferize/  memref-level passes run with bufferization
    cpu/        the CPU back end's passes
    common/     helpers shared by several phases (linalg facts, transform
                scripts, remarks); no passes
    pipelines/  named pipelines mixing our passes with upstream ones

Passes are layer L1: they import mlir, msmlir.dialects and msmlir.runtime,
never the frontend. A pass is a function `run(module_op, *, <options>)`
registered with `@register_pass`, its options declared once with typed
`Option`s (see registry.py); `run_pipeline` (and `ms-opt`) accept our
pass names mixed freely with every upstream pass, exactly as mlir-opt spells
pipelines.
"""
from .registry import (Option, PassFailure, PassInfo, PipelineError, get_pass,  # noqa: F401
                       pipeline_pass_manager, register_pass, register_pipeline, registered_passes,
                       run_pipeline)
