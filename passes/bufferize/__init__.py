"""memref-level passes that run with bufferization (upstream one-shot-bufferize
and the buffer passes do the rest; see pipelines/cpu.py).

    readonly_arguments.py       msmlir-readonly-arguments: public functions' tensor
                                arguments not writable (before one-shot-bufferize)
    forward_call_outputs.py     msmlir-forward-call-outputs: a kernel call writes its
                                results straight into the caller's output buffers
    distinct_return_buffers.py  msmlir-distinct-return-buffers: one buffer per
                                returned result (before buffer-results-to-out-params)
    widen_bool_memrefs.py       msmlir-widen-bool-memrefs: i1 memrefs stored as i8
                                (before the memref -> LLVM lowering)
"""
from . import (distinct_return_buffers, forward_call_outputs, readonly_arguments,  # noqa: F401
               widen_bool_memrefs)  # (register the passes)
