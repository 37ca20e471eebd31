"""Lowering of the graph level: mindir -> linalg/tensor/arith/math on tensors.

    convert_mindir_to_linalg.py  convert-mindir-to-linalg (the pass)
    mindir_to_linalg/            its per-op lowerings, grouped by kind
"""
from . import convert_mindir_to_linalg  # noqa: F401  (registers the pass)
