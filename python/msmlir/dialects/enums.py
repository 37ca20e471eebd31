"""Enum attributes of the msmlir dialects (ODS EnumAttr) <-> their case names.

The enums are generated from dialects/*.td (`-gen-python-enum-bindings`) as
IntEnums whose `str()` is the case name:

* mindir: `PadMode` (valid, same, pad), `GeluApproximate` (tanh, none),
  `DataFormat` (NCHW, NHWC), `ReduceOp` (sum, max, min, prod: collectives);
* mskernel: `KernelTarget` (cpu, gpu, ascend), `FusionKind` (compute, elemwise,
  broadcast, reduce, matmul, conv, opaque), `MemoryScope`.

Their attributes print as `#mindir.pad_mode<same>`, `#mskernel.kind<elemwise>`.
The generated op builders accept an enum member for such an attribute;
`enum_case` builds one from a user string (ValueError for a bad one) and
`enum_name` reads an attribute back as its case name.
"""
from __future__ import annotations

import re
from enum import IntEnum

from mlir import ir

from ._mindir_enum_gen import DataFormat, GeluApproximate, PadMode, ReduceOp
from ._mskernel_enum_gen import FusionKind, KernelTarget, MemoryScope

__all__ = ["enum_case", "enum_name", "is_enum_attr", "PadMode", "GeluApproximate", "DataFormat",
           "ReduceOp",
           "KernelTarget", "FusionKind", "MemoryScope"]

# `#dialect.mnemonic<case>` (the pretty form of our EnumAttrs).
_ENUM_ATTR = re.compile(r"#\w+\.\w+<(\w+)>")
# One attribute of each enum attribute class, to collect their TypeIDs.
_SAMPLES = ("#mindir.pad_mode<valid>", "#mindir.approximate<tanh>", "#mindir.data_format<NCHW>",
            "#mindir.reduce_op<sum>",
            "#mskernel.target<cpu>", "#mskernel.kind<opaque>", "#mskernel.scope<global>")
_typeids: list = []


def enum_case(enum_cls: type[IntEnum], value, what: str | None = None) -> IntEnum:
    """The member of the generated enum `enum_cls` named `value` (a case-name
    string, or already a member). Raises ValueError naming the accepted cases."""
    if isinstance(value, enum_cls):
        return value
    for member in enum_cls:
        if str(member) == value:
            return member
    cases = [str(m) for m in enum_cls]
    choices = ", ".join(repr(c) for c in cases[:-1]) + f" or {cases[-1]!r}"
    raise ValueError(f"{what or enum_cls.__name__} must be {choices}, got {value!r}")


def is_enum_attr(attr) -> bool:
    """Whether `attr` (an ir.Attribute) is one of the msmlir dialects' enum attributes."""
    if not _typeids:  # TypeIDs are process-wide: parse the samples once
        try:
            _typeids.extend(ir.Attribute.parse(a, context=attr.context).typeid for a in _SAMPLES)
        except ir.MLIRError:  # a context without the msmlir dialects holds none of them
            _typeids.clear()
            return False
    return attr.typeid in _typeids


def enum_name(attr, default: str | None = None) -> str | None:
    """Case name of an enum attribute (`#mindir.pad_mode<same>` -> "same"), or
    `default` when `attr` is None (an absent attribute). Accepts the attribute
    or the enum member itself."""
    if attr is None:
        return default
    if isinstance(attr, IntEnum):
        return str(attr)
    m = _ENUM_ATTR.fullmatch(str(attr))
    if m is None:
        raise TypeError(f"expected an msmlir enum attribute, got {attr}")
    return m.group(1)
