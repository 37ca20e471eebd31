"""`mindspore.ops.function`: the functional ops, by MindSpore's submodules
(`array_func`, `math_func`, `nn_func`, `random_func`, ...). They are the same
functions as `msmlir.ops` (re-exported, no copies)."""
from ..functional import *  # noqa: F401,F403
from ..functional import __all__  # noqa: F401
from . import array_func, math_func, nn_func, random_func  # noqa: F401
