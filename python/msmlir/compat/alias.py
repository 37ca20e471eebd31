"""`import mindspore` answered by msmlir, so MindSpore programs and tests run unchanged.

`install()` puts a meta-path finder in front of `sys.meta_path` that resolves
`mindspore` and every `mindspore.<sub>` to msmlir's module of the same path
(`mindspore.ops.operations` -> `msmlir.ops.operations`): the very same module
object, so `mindspore.Tensor is msmlir.Tensor`.  MindSpore splits some
namespaces over private submodules that msmlir keeps flat (`ops.operations`
has `array_ops`, `math_ops`, `nn_ops`, `_grad_ops`, ... ; `ops.function` has
`array_func`, ...); `RENAMED` points those at the flat namespace, so a name
msmlir lacks fails as a missing attribute of it, not as a missing module.  A
path msmlir has no module for is not faked: the import fails with
`ModuleNotFoundError` naming the `mindspore` path.

A real `mindspore` already imported is left alone (install raises): the two
must not be mixed in one process.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys

__all__ = ["RENAMED", "install", "uninstall", "target_of", "installed"]

# MindSpore module path -> msmlir module path, where the two layouts differ.
# Every other `mindspore.X` maps to `msmlir.X` when msmlir has that module.
_OPS_SUBMODULES = (
    "array_ops", "math_ops", "nn_ops", "random_ops", "image_ops", "sparse_ops", "other_ops",
    "comm_ops", "control_ops", "debug_ops", "linalg_ops", "spectral_ops", "inner_ops",
    "custom_ops", "manually_defined", "_grad_ops", "_inner_ops", "_sequence_ops",
    "_quant_ops", "_scalar_ops", "_embedding_cache_ops", "_infer_ops", "_rl_inner_ops",
    "_csr_ops", "_ocr_ops", "_thor_ops", "_tensor_array", "_map_tensor_ops", "_pyfunc_registry",
)
RENAMED = {
    **{f"mindspore.ops.operations.{m}": "msmlir.ops.operations" for m in _OPS_SUBMODULES},
    "mindspore.ops.function.linalg_func": "msmlir.ops.function",
    "mindspore.ops.function.sparse_func": "msmlir.ops.function",
    "mindspore.ops.function.clip_func": "msmlir.ops.function",
    "mindspore.ops.function.grad": "msmlir.ops.function",
    "mindspore.ops.function.grad.grad_func": "msmlir.ops.function",
    "mindspore.ops.function.debug_func": "msmlir.ops.function",
    "mindspore.ops.function.image_func": "msmlir.ops.function",
    "mindspore.ops.function.spectral_func": "msmlir.ops.function",
    "mindspore.ops.function.other_func": "msmlir.ops.function",
    "mindspore.ops.function.parameter_func": "msmlir.ops.function",
    "mindspore.ops.function.vmap_func": "msmlir.ops.function",
    # generated functional ops and Primitive classes: msmlir.ops has both (by __getattr__)
    "mindspore.ops.auto_generate": "msmlir.ops",
    "mindspore.ops.auto_generate.gen_ops_def": "msmlir.ops",
    "mindspore.ops.auto_generate.gen_ops_prim": "msmlir.ops.operations",
    "mindspore.ops.composite.base": "msmlir.ops.composite",
    "mindspore.ops.composite.math_ops": "msmlir.ops.composite",
    "mindspore.ops.composite.array_ops": "msmlir.ops.composite",
    "mindspore.ops.composite.random_ops": "msmlir.ops.composite",
    "mindspore.ops.composite.multitype_ops": "msmlir.ops.composite",
    "mindspore.nn.layer.activation": "msmlir.nn",
    "mindspore.nn.layer.basic": "msmlir.nn",
    "mindspore.nn.layer.conv": "msmlir.nn",
    "mindspore.nn.layer.normalization": "msmlir.nn",
    "mindspore.nn.layer.pooling": "msmlir.nn",
    "mindspore.nn.layer.embedding": "msmlir.nn",
    "mindspore.nn.layer.math": "msmlir.nn",
    "mindspore.nn.layer.container": "msmlir.nn",
    "mindspore.nn.optim.optimizer": "msmlir.nn.optim",
    "mindspore.nn.optim.momentum": "msmlir.nn.optim",
    "mindspore.nn.optim.adam": "msmlir.nn.optim",
    "mindspore.nn.optim.sgd": "msmlir.nn.optim",
    "mindspore.nn.loss.loss": "msmlir.nn",
    "mindspore.nn.wrap.cell_wrapper": "msmlir.nn",
    "mindspore.nn.wrap.loss_scale": "msmlir.nn",
    "mindspore.train.serialization": "msmlir",
    "mindspore.train.callback": "msmlir.train.callback",
    "mindspore.train.model": "msmlir.train",
    "mindspore.common.np_dtype": "msmlir.dtype",
}

_MS = "mindspore"
_OURS = "msmlir"


def target_of(fullname: str) -> str | None:
    """The msmlir module that answers `fullname` (a `mindspore...` path), or None:
    msmlir's module of the same path, else the `RENAMED` entry."""
    if fullname != _MS and not fullname.startswith(_MS + "."):
        return None
    name = _OURS + fullname[len(_MS):]
    try:
        if importlib.util.find_spec(name) is not None:
            return name
    except (ImportError, ValueError):
        pass
    return RENAMED.get(fullname)


class _Loader(importlib.abc.Loader):
    def __init__(self, target: str):
        self.target = target

    def create_module(self, spec):
        module = importlib.import_module(self.target)
        self._spec = module.__spec__
        return module

    def exec_module(self, module):
        # already executed; the import system has just set `__spec__` to the
        # alias's spec: give the msmlir module its own back
        module.__spec__ = self._spec


def _spec_for(fullname: str, ours: str):
    module = importlib.import_module(ours)
    return importlib.machinery.ModuleSpec(fullname, _Loader(ours),
                                          is_package=hasattr(module, "__path__"))


class _Finder(importlib.abc.MetaPathFinder):
    """First on sys.meta_path: `mindspore.*`."""

    def find_spec(self, fullname, path=None, target=None):
        ours = target_of(fullname)
        return None if ours is None else _spec_for(fullname, ours)


class _LateFinder(importlib.abc.MetaPathFinder):
    """Last on sys.meta_path: `from mindspore.ops.operations import _grad_ops` asks
    for `msmlir.ops.operations._grad_ops` (the parent's real name); answered
    only when msmlir has no such module."""

    def find_spec(self, fullname, path=None, target=None):
        if not fullname.startswith(_OURS + "."):
            return None
        ours = RENAMED.get(_MS + fullname[len(_OURS):])
        return None if ours is None or ours == fullname else _spec_for(fullname, ours)


_FINDER = _Finder()
_LATE = _LateFinder()


def installed() -> bool:
    return _FINDER in sys.meta_path


def install() -> None:
    """Answer `import mindspore` (and its submodules) with msmlir in this process."""
    if installed():
        return
    real = sys.modules.get(_MS)
    if real is not None and not getattr(real, "__name__", "").startswith(_OURS):
        raise RuntimeError("a real `mindspore` is already imported in this process; "
                           "msmlir.compat.alias.install() would mix the two")
    sys.meta_path.insert(0, _FINDER)
    sys.meta_path.append(_LATE)


def uninstall() -> None:
    """Remove the finder and the `mindspore` entries it put into sys.modules."""
    for finder in (_FINDER, _LATE):
        if finder in sys.meta_path:
            sys.meta_path.remove(finder)
    for name in [n for n in sys.modules if n == _MS or n.startswith(_MS + ".")]:
        if getattr(sys.modules[name], "__name__", "").startswith(_OURS):
            del sys.modules[name]
