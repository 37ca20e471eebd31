"""MLIR remarks from Python passes.

The Python bindings can emit errors (`Location.emit_error`) but not remarks or
warnings, so `emit_remark` has upstream MLIR emit it: the transform dialect's
`transform.debug.emit_param_as_remark ... at %anchor` reports
`mlir::emitRemark(anchor.getLoc())`, and the `transform-interpreter` pass run
by a PassManager leaves non-error diagnostics to the context's handlers
(ms-opt prints them and checks them with --verify-diagnostics; a Python caller
sees them with `Context.attach_diagnostic_handler`; with no handler they are
dropped, as in MLIR). The anchor is an empty op carrying the location, in a
scratch module: the IR being transformed is not touched. (The op appends its
parameters, here none, after a space: the message ends with one space.)

Used for fallbacks: a pass that gives up on an optimization and leaves an op
on the plain path says so with a remark at that op's location.
"""
from __future__ import annotations

from mlir import ir
from mlir.passmanager import PassManager

_ANCHOR = "msmlir.remark_anchor"

_SCRIPT = """module attributes {{transform.with_named_sequence}} {{
  transform.named_sequence @__transform_main(%root: !transform.any_op {{transform.readonly}}) {{
    %anchor = transform.structured.match attributes{{{anchor}}} in %root : (!transform.any_op) -> !transform.any_op
    %none = transform.structured.match ops{{["{anchor}"]}} in %root : (!transform.any_op) -> !transform.any_op
    %no_params = transform.foreach %none : !transform.any_op -> !transform.any_param {{
    ^bb0(%x: !transform.any_op):
      %c = transform.param.constant 0 : i64 -> !transform.any_param
      transform.yield %c : !transform.any_param
    }}
    transform.debug.emit_param_as_remark %no_params, "{message}" at %anchor : !transform.any_param, !transform.any_op
    transform.yield
  }}
}}
"""


def _mlir_string(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")


def emit_remark(loc: ir.Location, message: str) -> None:
    """Emits an MLIR remark `message` at `loc` (in loc's context)."""
    ctx = loc.context
    with ctx:
        scratch = ir.Module.parse(_SCRIPT.format(anchor=_ANCHOR, message=_mlir_string(message)))
        ir.Operation.create("func.func", loc=loc, regions=1, ip=ir.InsertionPoint(scratch.body),
                            attributes={"sym_name": ir.StringAttr.get("anchor"),
                                        "sym_visibility": ir.StringAttr.get("private"),
                                        "function_type": ir.TypeAttr.get(ir.FunctionType.get([], [])),
                                        _ANCHOR: ir.UnitAttr.get()})
        PassManager.parse("builtin.module(transform-interpreter)").run(scratch.operation)
