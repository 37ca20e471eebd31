"""Fusion passes: groups of ops computed together in one loop nest.

    row_fusion.py   msmlir-fuse-rows: linalg chains computed row by row (softmax,
                    layernorm, ...) fused into one loop over rows
    bound_elementwise_fusion.py
                    msmlir-bound-elementwise-fusion / msmlir-drop-fusion-barriers:
                    a size bound for upstream linalg-fuse-elementwise-ops
"""
from . import bound_elementwise_fusion, row_fusion  # noqa: F401  (register the passes)
