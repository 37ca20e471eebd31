"""msmlir: an MLIR-based multi-level deep-learning compiler with a MindSpore-style frontend."""
from . import _native  # noqa: F401  (registers the mindir and mskernel dialects)

__version__ = "0.1.0"

from . import dtype, ops  # noqa: E402,F401
from .dtype import (bfloat16, bool_, float16, float32, float64, int8, int32, int64)  # noqa: E402,F401
from .frontend import CompileError  # noqa: E402,F401
from .frontend.fallback import FallbackWarning, HostCallbackError  # noqa: E402,F401
from .frontend.jit import jit  # noqa: E402,F401
from . import kernel  # noqa: E402,F401  (msmlir.kernel: compute-definition kernels; `@msmlir.kernel` decorates)
# --- MindSpore API independent of autodiff: Tensor/Parameter, initializers, seed, context,
# --- dataset, checkpoints, export (msmlir/common, msmlir/dataset, msmlir/train/serialization.py)
from . import common  # noqa: E402,F401
from .common import initializer  # noqa: E402,F401
from .common.context import GRAPH_MODE, PYNATIVE_MODE, get_context, set_context  # noqa: E402,F401
from .common.parameter import Parameter, ParameterTuple  # noqa: E402,F401
from .common.seed import get_seed, set_seed  # noqa: E402,F401
from .common.tensor import Tensor, is_tensor, tensor  # noqa: E402,F401
from . import dataset, train  # noqa: E402,F401
from .train.serialization import (export, load, load_checkpoint,  # noqa: E402,F401
                                  load_param_into_net, save_checkpoint)
# --- autodiff and function transforms (msmlir/autodiff): grad, value_and_grad, vjp, vmap,
# --- custom_bprop; ops.GradOperation / ops.stop_gradient / ops.depend live in msmlir.ops
from .autodiff import (custom_bprop, grad, value_and_grad, vjp, vmap)  # noqa: E402,F401
from . import nn  # noqa: E402,F401  (msmlir.nn: Cell, layers, losses, optimizers)
from . import numpy  # noqa: E402,F401  (msmlir.numpy: mindspore.numpy-style functions, compiled)
