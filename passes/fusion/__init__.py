"""Fusion passes: groups of ops computed together in one loop nest.

    row_fusion.py   msmlir-fuse-rows: linalg chains computed row by row (softmax,
                    layernorm, ...) fused into one loop over rows
"""
from . import row_fusion  # noqa: F401  (registers the pass)
