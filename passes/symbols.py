"""Symbol helpers shared by the passes (and msmlir.kernel)."""
from __future__ import annotations

from mlir import ir


def symbol_names(module: ir.Operation) -> set:
    """The sym_names defined at the top level of a module."""
    return {ir.StringAttr(o.operation.attributes["sym_name"]).value
            for o in module.regions[0].blocks[0].operations
            if "sym_name" in o.operation.attributes}


def unique_symbol(module: ir.Operation, base: str) -> str:
    """`base`, or `base_N` with the smallest N free in the module."""
    names = symbol_names(module)
    name, i = base, 1
    while name in names:
        name = f"{base}_{i}"
        i += 1
    return name
