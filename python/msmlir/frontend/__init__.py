"""msmlir's Python frontend: `jit` compiles a function by source transformation, not tracing.

Layers (DESIGN.md): builder.py (build state, errors at the user's line),
values.py (`TensorValue`) and trace.py (`ModuleBuilder`, eager execution) sit
below `msmlir.ops`; parser.py (the AST interpreter, with source.py,
control_flow.py, builtin_calls.py), fallback.py (JIT Fallback) and jit.py sit
above it. Importing a submodule runs this file first, so it imports nothing
itself: `JitFunction` is loaded on first use.

parser.py interprets the function's AST at compile time: Python values are folded, tensors are
TensorValues whose operators/methods (the table of msmlir/ops/tensor_methods.py) build mindir ops.
Python-valued if/for/while are folded or unrolled; tensor-valued if/while become scf.if/scf.while.
Helpers become func.func private specializations; ops carry user file:line locations; errors are
CompileError.
"""
from ..errors import CompileError, SourcePos  # noqa: F401

__all__ = ["JitFunction", "CompileError", "SourcePos", "TensorValue"]


def __getattr__(name):
    if name == "JitFunction":
        from .jit import JitFunction
        return JitFunction
    if name == "TensorValue":
        from .values import TensorValue
        return TensorValue
    raise AttributeError(f"module 'msmlir.frontend' has no attribute {name!r}")
