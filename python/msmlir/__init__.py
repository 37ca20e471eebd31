"""msmlir: an MLIR-based multi-level deep-learning compiler with a MindSpore-style frontend."""
from . import _native  # noqa: F401  (registers the mindir and mskernel dialects)

__version__ = "0.1.0"
