"""The mindir dialect's op classes (generated from dialects/MindIR.td)."""
from ._mindir_ops_gen import *  # noqa: F401,F403
from ._mindir_ops_gen import _Dialect  # noqa: F401
