"""The mindir dialect's op classes and enums (generated from dialects/MindIR.td)."""
from ._mindir_ops_gen import *  # noqa: F401,F403
from ._mindir_ops_gen import _Dialect  # noqa: F401
from ._mindir_enum_gen import *  # noqa: F401,F403
