"""Lowering of the graph level: mindir -> linalg/tensor/arith/math on tensors.

    convert_mindir_to_linalg.py  convert-mindir-to-linalg (the pass)
    mindir_to_linalg/            its per-op lowerings, grouped by kind
    materialize_collectives.py   msmlir-materialize-collectives (MPI helper bodies,
                                 after bufferization)
"""
from . import convert_mindir_to_linalg, materialize_collectives  # noqa: F401  (register the passes)
