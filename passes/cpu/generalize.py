"""msmlir-cpu-generalize: named linalg ops -> linalg.generic.

Rewrites every named structured op (linalg.matmul left by
msmlir-cpu-pack-matmul, linalg.transpose, linalg.broadcast, linalg.reduce,
linalg.map, ...) into the equivalent `linalg.generic`, with the transform
dialect's `structured.generalize`. Fills, generics, convolutions and pooling
are left as they are (convolutions: msmlir-cpu-conv-to-matmul or the plain
convert-linalg-to-loops path; pooling ops are generalized later by
msmlir-cpu-tile-vectorize, after row fusion, which would take their window
reductions for rows).

Why: row fusion (msmlir-fuse-rows) and the tile+vectorize strategies
(msmlir-cpu-tile-vectorize) read an op's indexing maps and iterator types;
generalizing first gives them one form to read, so a transpose or a
broadcast is tiled and vectorized like any elementwise op.

The whole function is generalized in one script; if the interpreter fails,
the function is restored and a remark at the function says its named ops
keep the plain path.
"""
from __future__ import annotations

from mlir import ir

from ..common.diagnostics import emit_remark
from ..common.linalg import funcs, is_structured, keeps_named_form, walk_ops
from ..common.transform import ANY, Script, apply_or_restore, strip_attrs
from ..registry import register_pass

GEN_TAG = "msmlir.cg_generalize"


def generalize_func(func: ir.Operation, pred=None) -> ir.Operation:
    """Generalizes the named ops of `func` (those `pred` accepts; default: all
    but fills, convolutions and pooling); returns the function (a restored
    copy if the interpreter failed)."""
    s = Script()
    gen = False
    for op in walk_ops(func, [], is_structured):
        if (pred(op) if pred is not None else not keeps_named_form(op.name)):
            op.attributes[GEN_TAG] = ir.UnitAttr.get()
            gen = True
    if not gen:
        return func
    g = s.fresh("g")
    s.emit(f"{g} = transform.structured.match attributes{{{GEN_TAG}}} in %root : ({ANY}) -> {ANY}")
    s.emit(f"transform.structured.generalize {g} : ({ANY}) -> {ANY}")
    func, error = apply_or_restore(func, s.text())
    strip_attrs(func, (GEN_TAG,))
    if error is not None:
        emit_remark(func.location, "msmlir-cpu-generalize: generalization failed; the named "
                                   f"linalg ops of this function keep the plain path: {error}")
    return func


@register_pass("msmlir-cpu-generalize",
               "Named linalg ops (but fills, convolutions, pooling) -> linalg.generic, the form "
               "row fusion and tile+vectorize read")
def generalize(module: ir.Operation):
    for func in list(funcs(module)):
        try:
            generalize_func(func)
        except Exception as e:  # noqa: BLE001 - a strategy bug must not fail compilation
            strip_attrs(module, (GEN_TAG,))
            emit_remark(func.location, "msmlir-cpu-generalize: internal error, the function keeps "
                                       f"its named linalg ops: {type(e).__name__}: {e}")
