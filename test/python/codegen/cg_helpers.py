"""Helpers for the CPU codegen tests: compile with chosen msmlir-cpu-pipeline options.

(A uniquely named module: several test directories have a conftest.py.)
"""
from __future__ import annotations

from mlir import ir

from msmlir.compiler import compile_mlir, context
from msmlir.passes import run_pipeline
from msmlir.passes.pipelines.cpu import _TO_LINALG, tensor_codegen
from msmlir.passes.registry import option_defaults


def pipeline_options(**opts):
    """Temporarily changes the defaults of msmlir-cpu-pipeline's options
    (compile_mlir always runs `msmlir-cpu-pipeline` with its defaults)."""
    return option_defaults("msmlir-cpu-pipeline", {k.replace("_", "-"): v for k, v in opts.items()})


def compile_with(text: str, **opts):
    """compile_mlir with msmlir-cpu-pipeline options; the codegen strategies
    apply to every op (min-work=0) unless the test says otherwise."""
    opts.setdefault("min_work", 0)
    with pipeline_options(**opts):
        return compile_mlir(text)


def ttype(shape, elem="f32") -> str:
    return "tensor<" + "".join(f"{d}x" for d in shape) + f"{elem}>"


def codegen_ir(text: str, before: str = "") -> tuple[str, list[str]]:
    """The codegen stage on tensors of a mindir module (as text) and the
    remarks it emitted; `before`: passes run first (e.g. the kernels stage)."""
    got = []

    def handler(diag):
        got.append(str(diag.message))
        return True
    ctx = context()
    h = ctx.attach_diagnostic_handler(handler)
    try:
        with ctx:
            m = ir.Module.parse(text)
            head = f"{before}," if before else ""
            run_pipeline(m, f"builtin.module({head}{_TO_LINALG},{tensor_codegen(1, 0)})")
            return str(m), got
    finally:
        h.detach()


def reduce_text(op: str, shape, axes) -> str:
    """A function applying mindir reduction `op` (reduce_sum, reduce_max, ...)
    over `axes` of an f32 tensor of `shape` (keep_dims = false)."""
    t = ttype(shape)
    out = ttype(tuple(d for i, d in enumerate(shape) if i not in axes))
    return f"""
func.func @f(%x: {t}) -> {out} {{
  %r = "mindir.{op}"(%x) {{axes = array<i64: {", ".join(map(str, axes))}>, keep_dims = false}} : ({t}) -> {out}
  return %r : {out}
}}"""

