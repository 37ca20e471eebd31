"""The mskernel dialect's op classes and enums (generated from dialects/MSKernel.td)."""
from ._mskernel_ops_gen import *  # noqa: F401,F403
from ._mskernel_enum_gen import *  # noqa: F401,F403
