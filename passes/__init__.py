"""Every msmlir pass, in Python, grouped by level.

    graph/      mindir -> mindir (composite expansion, ...)
    lowering/   mindir -> linalg/tensor/arith/math (convert-mindir-to-linalg)
    pipelines/  named pipelines mixing our passes with upstream ones

A pass is a function `run(module_op, **options)` registered with
`@register_pass`; `run_pipeline` (and `ms-opt`) accept our pass names mixed
freely with every upstream pass, exactly as mlir-opt spells pipelines.
"""
from .registry import (PassFailure, PassInfo, PipelineError, get_pass, pipeline_pass_manager,  # noqa: F401
                       register_pass, register_pipeline, registered_passes, run_pipeline)
