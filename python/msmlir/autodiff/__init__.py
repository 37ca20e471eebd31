"""msmlir's function transforms, MindSpore 2.x API, by source transformation.

* `grad`, `value_and_grad`, `vjp`, `ops.GradOperation` (grad.py): the frontend
  emits the forward `func.func` of the differentiated function and one
  `mindir.grad` op; the `mindir-autodiff` pass expands it into forward +
  reverse-mode backward (run by `msmlir.jit` before the CPU pipeline while the
  pipeline does not run it itself). `grad(grad(f))` nests grads.
* `vmap` (vmap.py): an IR batching transformation (passes/vmap/,
  pass `mindir-vmap`): per-op batching rules, no loop, no unrolling.
* `custom_bprop` and Cells with `bprop(self, *inputs, out, dout)` (custom.py):
  the callee carries `mindir.bprop = @...`, which mindir-autodiff calls instead of
  differentiating the body (passes/autodiff/custom_bprop.py).

All are usable inside `msmlir.jit` functions (the call is parsed like any call
and builds IR in place) and outside (a small graph is compiled once per input
signature and run; numpy in/out, msmlir.Tensor in -> Tensor out).

Parameters and weights (protocol, see frontend/builder.py "Function frames"):
a Parameter (`msmlir.Parameter`, or an object whose type sets
`__msmlir_parameter__ = True` and has shape/dtype/asnumpy) that compiled code
uses — as `self.w` in a method, a global, an element of a list — is never a
constant: it becomes an argument of the function being built (captured on first
use; callers pass it on, so the public entry takes it as an input fed with the
Parameter's current value at each call). `grad(fn, weights=[...])` builds fn's
forward with the weights bound to its first Parameter arguments and
differentiates w.r.t. those arguments; `net.trainable_params()` of a Cell is
just such a list.

Protocol for `nn.Cell` (written separately): a Cell is a callable object; when
compiled code calls it, the parser parses `type(cell).__call__` (which should
call `self.construct(...)`). A Cell class defining `bprop` (and `construct`) is
called through `custom.cell_call` instead; the Cell base class must therefore
not define a `bprop` attribute itself. Cells called from *traced* code (a
lambda differentiated outside jit) are plain Python calls: their `__call__`
should route to `msmlir.autodiff.custom.cell_call(self, args, kwargs)` when
`msmlir.frontend.builder.current()` is not None and the cell has a bprop.
"""
from .custom import CustomBpropFunction, cell_call, custom_bprop  # noqa: F401
from .grad import GradFunction, GradOperation, grad, value_and_grad, vjp  # noqa: F401
from .vmap import VmapFunction, vmap  # noqa: F401
from .. import ops as _ops

# MindSpore also has them under ops (ops.grad, ops.GradOperation, ...); msmlir.ops is a
# lower layer, so they are added to it here (see msmlir/ops/__init__.py).
for _name in _ops.TRANSFORMS:
    setattr(_ops, _name, globals()[_name])
_ops.__all__ += [n for n in _ops.TRANSFORMS if n not in _ops.__all__]

__all__ = ["grad", "value_and_grad", "vjp", "GradOperation", "GradFunction", "custom_bprop",
           "CustomBpropFunction", "cell_call", "vmap", "VmapFunction"]
