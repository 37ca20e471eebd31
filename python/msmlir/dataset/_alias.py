"""Registers alias submodules (MindSpore's legacy module paths such as
`mindspore.dataset.vision.c_transforms`) of a plain module, so that
``import msmlir.dataset.vision.c_transforms`` and ``from msmlir.dataset.vision import
py_transforms`` work without turning the module into a package."""
from __future__ import annotations

import sys
import types


def alias_module(parent, name, doc, members):
    """Creates `parent.name` holding `members` (a dict), registered in sys.modules."""
    full = f"{parent.__name__}.{name}"
    mod = types.ModuleType(full, doc)
    mod.__dict__.update(members)
    mod.__all__ = [k for k in members if not k.startswith("_")]
    mod.__package__ = parent.__name__
    sys.modules[full] = mod
    setattr(parent, name, mod)
    return mod
