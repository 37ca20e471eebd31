"""`mindspore.ops.function.array_func`: the functional ops of msmlir.ops (the same
functions; MindSpore splits them by kind, msmlir keeps one namespace)."""
from ..functional import *  # noqa: F401,F403
from ..functional import __all__  # noqa: F401
