"""Vectorizing map (pass `mindir-vmap`): batches a function op by op.

    engine.py        the Batcher (values as (value, bdim)), IR helpers, VmapError
    registry.py      the batching rules, one per op name
    elementwise.py   rules of elementwise/broadcasting ops
    reductions.py    rules of reductions and single-axis ops
    array.py         rules of shape and indexing ops
    nn.py            rules of matmul, normalization, convolution, pooling, losses
    control_flow.py  rules of func.call, host callbacks, tensor.extract, scf.if/for/while
    vmap.py          the pass and `expand_declaration` (the frontend's entry point)
"""
from . import array, control_flow, elementwise, nn, reductions  # noqa: F401  (register the rules)
from .engine import VmapError, batched_type  # noqa: F401
from .vmap import VMAP_ATTR, axes_attr, expand_declaration  # noqa: F401
