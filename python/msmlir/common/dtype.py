"""`mindspore.common.dtype` (`mstype`): the dtypes and their helpers; the same
objects as `msmlir.dtype` (msmlir/dtype.py, layer 0)."""
from ..dtype import *  # noqa: F401,F403
from ..dtype import __all__  # noqa: F401
from ..dtype import DType, get  # noqa: F401
