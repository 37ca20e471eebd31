"""mskernel-print-schedule: reports the schedule mskernel-poly-schedule chose.

For each function carrying `mskernel.schedule`, emits a remark at the
function: `mskernel-print-schedule: tile-sizes: l2 256x256x256 > l1 32x32x32 |
target: <memory model> | reductions: ... | schedule: <isl schedule tree>`,
then, after mskernel-promote-buffers, `| promoted: <memref> <box> -> <buffer
type> at <level> (in|out|in+out); ...` (ms-opt prints remarks;
--verify-diagnostics and FileCheck on stderr can check them). The IR is not
changed.
"""
from __future__ import annotations

from mlir import ir

from ..common.diagnostics import emit_remark
from ..registry import register_pass
from .poly_schedule import ATTR_SCHEDULE, _funcs

ATTR_PROMOTED = "mskernel.promoted"  # set by mskernel-promote-buffers (promote.py)


@register_pass("mskernel-print-schedule", "remarks with the isl schedule and tile sizes of each function")
def run(module: ir.Operation):
    for func in _funcs(module):
        if ATTR_SCHEDULE in func.attributes:
            text = ir.StringAttr(func.attributes[ATTR_SCHEDULE]).value
            if ATTR_PROMOTED in func.attributes:
                text += " | promoted: " + ir.StringAttr(func.attributes[ATTR_PROMOTED]).value
            emit_remark(func.location, f"mskernel-print-schedule: {text}")
