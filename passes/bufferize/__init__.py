"""memref-level passes that run with bufferization (upstream one-shot-bufferize
and the buffer passes do the rest; see pipelines/cpu.py).

    readonly_arguments.py       msmlir-readonly-arguments: public functions' tensor
                                arguments not writable (before one-shot-bufferize)
    distinct_return_buffers.py  msmlir-distinct-return-buffers: one buffer per
                                returned result (before buffer-results-to-out-params)
    widen_bool_memrefs.py       msmlir-widen-bool-memrefs: i1 memrefs stored as i8
                                (before the memref -> LLVM lowering)
"""
from . import distinct_return_buffers, readonly_arguments, widen_bool_memrefs  # noqa: F401  (register the passes)
