"""The enum attributes of an `mskernel.fused` kernel (`#mskernel.kind<...>`,
`#mskernel.target<...>`), built and read in one place."""
from __future__ import annotations

from mlir import ir

DEFAULTS = {"kind": "opaque", "target": "cpu"}


def kind_attr(kind: str) -> ir.Attribute:
    """The `kind` attribute: the kernel's dominant fusion pattern."""
    return ir.Attribute.parse(f"#mskernel.kind<{kind}>")


def target_attr(target: str) -> ir.Attribute:
    """The `target` attribute: the device the kernel is compiled for."""
    return ir.Attribute.parse(f"#mskernel.target<{target}>")


def case_name(attr: ir.Attribute) -> str:
    """'elemwise' for #mskernel.kind<elemwise>."""
    text = str(attr)
    return text[text.index("<") + 1:text.rindex(">")]


def kernel_attr(op: ir.Operation, name: str) -> str:
    """The case name of the fused op's `kind` or `target` (its default when elided)."""
    return case_name(op.attributes[name]) if name in op.attributes else DEFAULTS[name]
