"""Late binding of higher layers, wired by the package root.

Now and then a lower layer needs an object that a higher layer defines: the
host tensor type (`msmlir.Tensor`, layer 6) for tensors made from nothing and
for values shown to host callbacks; the function transforms (`msmlir.autodiff`,
layer 5) that MindSpore also lists under `msmlir.ops` (layer 3). The lower
module does not import the higher one: it calls `get(name)`, and
msmlir/__init__.py, which may import anything, registers for each name a
function that imports and returns it, called on first use (so registering
imports nothing and `import msmlir` stays light).
"""
from __future__ import annotations

__all__ = ["register", "get"]

_LOADERS: dict = {}


def register(name: str, load) -> None:
    """Registers `load()`, which imports and returns the object called `name`."""
    _LOADERS[name] = load


def get(name: str):
    """The object registered as `name`, or None when nothing is registered."""
    load = _LOADERS.get(name)
    return None if load is None else load()
