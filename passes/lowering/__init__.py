"""Lowering passes: mindir -> linalg/tensor/arith/math."""
from . import convert_mindir_to_linalg  # noqa: F401
from . import widen_bool_memrefs  # noqa: F401
from . import distinct_return_buffers  # noqa: F401
