"""mskernel-print-schedule: reports the schedule mskernel-poly-schedule chose.

For each function carrying `mskernel.schedule`, emits a remark at the
function: `mskernel-print-schedule: tile-sizes: 32x32x32 | l1: ... |
reductions: ... | schedule: <isl schedule tree>` (ms-opt prints remarks;
--verify-diagnostics and FileCheck on stderr can check them). The IR is not
changed.
"""
from __future__ import annotations

from mlir import ir

from ..common.diagnostics import emit_remark
from ..registry import register_pass
from .poly_schedule import ATTR_SCHEDULE, _funcs


@register_pass("mskernel-print-schedule", "remarks with the isl schedule and tile sizes of each function")
def run(module: ir.Operation):
    for func in _funcs(module):
        if ATTR_SCHEDULE in func.attributes:
            text = ir.StringAttr(func.attributes[ATTR_SCHEDULE]).value
            emit_remark(func.location, f"mskernel-print-schedule: {text}")
