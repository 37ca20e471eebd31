"""msmlir's Python frontend: `jit` compiles a function by source transformation, not tracing.
parser.py interprets the function's AST at compile time: Python values are folded, tensors are TensorValues.
values.py: TensorValue wraps an SSA tensor; its operators/methods call msmlir.ops, which build mindir ops.
Python-valued if/for/while are folded or unrolled; tensor-valued if/while become scf.if/scf.while on tensors.
Helpers become func.func private specializations; ops carry user file:line locations; errors are CompileError.
"""
from .errors import CompileError, SourcePos  # noqa: F401
from .jit import JitFunction  # noqa: F401  (the decorator is msmlir.jit; msmlir.frontend.jit is its module)
from .values import TensorValue  # noqa: F401

__all__ = ["JitFunction", "CompileError", "SourcePos", "TensorValue"]
