"""Small affine kernels (MLIR text) and a JIT runner, for the poly tests.

`compile_kernel(text, schedule)` parses a module holding one function @k over
memrefs, optionally runs mskernel-poly-schedule on it (`compile_pipeline`: any
pass pipeline, e.g. with mskernel-promote-buffers, and the memory scopes
optionally stripped so that gpu/ascend IR runs on the CPU), lowers it to LLVM
and JIT-compiles it; `call(engine, arrays)` runs it on numpy arrays (in place)
and returns the run time in seconds.
"""
from __future__ import annotations

import ctypes
import re
import time

import numpy as np
from mlir import ir
from mlir.execution_engine import ExecutionEngine
from mlir.runtime import get_ranked_memref_descriptor

from msmlir.passes.registry import run_pipeline

TO_LLVM = ("builtin.module(msmlir-cpu-lower-vectors,func.func(lower-vector-multi-reduction),lower-affine,convert-scf-to-cf,"
           "convert-vector-to-llvm{reassociate-fp-reductions=true},finalize-memref-to-llvm,"
           "convert-math-to-llvm,convert-arith-to-llvm,convert-func-to-llvm,convert-cf-to-llvm,convert-ub-to-llvm,"
           "reconcile-unrealized-casts)")


def compile_kernel(text: str, schedule: str | None):
    """(ExecutionEngine, scheduled MLIR text) of module `text` (its func @k)."""
    ctx = ir.Context()
    with ctx:
        m = ir.Module.parse(text)
        for op in m.body.operations:
            op.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()
        if schedule is not None:
            run_pipeline(m, f"builtin.module(mskernel-poly-schedule{schedule},canonicalize)")
        scheduled = str(m)
        run_pipeline(m, TO_LLVM)
        return ExecutionEngine(m, opt_level=2), scheduled, ctx


SCOPE = re.compile(r", #mskernel\.scope<\w+>")


def strip_scopes(text: str) -> str:
    """`text` with every `#mskernel.scope<...>` memory space erased."""
    return SCOPE.sub("", text)


def compile_pipeline(text: str, passes: str, strip: bool = False, lower: bool = True):
    """(ExecutionEngine, transformed MLIR text, context) of module `text` after
    `passes` (pass pipeline elements inside builtin.module(...)); the result
    must verify; `strip`: memory scopes erased before lowering; not `lower`:
    no engine (None)."""
    ctx = ir.Context()
    with ctx:
        m = ir.Module.parse(text)
        for op in m.body.operations:
            op.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()
        run_pipeline(m, f"builtin.module({passes})")
        assert m.operation.verify()
        out = str(m)
        if not lower:
            return None, out, ctx
        if strip:
            m = ir.Module.parse(strip_scopes(out))
        run_pipeline(m, TO_LLVM)
        return ExecutionEngine(m, opt_level=2), out, ctx


def call(engine, arrays, repeat: int = 1) -> float:
    args = [ctypes.pointer(ctypes.pointer(get_ranked_memref_descriptor(a))) for a in arrays]
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        engine.invoke("k", *args)
        best = min(best, time.perf_counter() - t)
    return best


def ty(shape, et="f32") -> str:
    return "memref<" + "x".join(map(str, shape)) + f"x{et}>" if shape else f"memref<{et}>"


def matmul(m, n, k, et="f32", init=True, ta=False, tb=False) -> str:
    """C = A B (C zeroed first when `init`); `ta`/`tb`: A stored as k x m /
    B as n x k (read transposed)."""
    add, mul = ("arith.addf", "arith.mulf") if et.startswith("f") else ("arith.addi", "arith.muli")
    zero = "0.0" if et.startswith("f") else "0"
    init_nest = f"""
  affine.for %i = 0 to {m} {{
    affine.for %j = 0 to {n} {{
      affine.store %z, %C[%i, %j] : {ty((m, n), et)}
    }}
  }}""" if init else ""
    sa = (k, m) if ta else (m, k)
    sb = (n, k) if tb else (k, n)
    return f"""func.func @k(%A: {ty(sa, et)}, %B: {ty(sb, et)}, %C: {ty((m, n), et)}) {{
  %z = arith.constant {zero} : {et}{init_nest}
  affine.for %i = 0 to {m} {{
    affine.for %j = 0 to {n} {{
      affine.for %l = 0 to {k} {{
        %a = affine.load %A[{'%l, %i' if ta else '%i, %l'}] : {ty(sa, et)}
        %b = affine.load %B[{'%j, %l' if tb else '%l, %j'}] : {ty(sb, et)}
        %c = affine.load %C[%i, %j] : {ty((m, n), et)}
        %p = {mul} %a, %b : {et}
        %s = {add} %c, %p : {et}
        affine.store %s, %C[%i, %j] : {ty((m, n), et)}
      }}
    }}
  }}
  return
}}"""


def transposed_chain(m, n, et="f32") -> str:
    """T[i,j] = X[i,j] * 2 + 1 ; Y[j,i] = T[i,j] * T[i,j] (second nest reads transposed)."""
    return f"""func.func @k(%X: {ty((m, n), et)}, %T: {ty((m, n), et)}, %Y: {ty((n, m), et)}) {{
  %two = arith.constant 2.0 : {et}
  %one = arith.constant 1.0 : {et}
  affine.for %i = 0 to {m} {{
    affine.for %j = 0 to {n} {{
      %x = affine.load %X[%i, %j] : {ty((m, n), et)}
      %a = arith.mulf %x, %two : {et}
      %b = arith.addf %a, %one : {et}
      affine.store %b, %T[%i, %j] : {ty((m, n), et)}
    }}
  }}
  affine.for %j = 0 to {n} {{
    affine.for %i = 0 to {m} {{
      %t = affine.load %T[%i, %j] : {ty((m, n), et)}
      %s = arith.mulf %t, %t : {et}
      affine.store %s, %Y[%j, %i] : {ty((n, m), et)}
    }}
  }}
  return
}}"""


def reduce_axis(shape, axis: int, et="f32") -> str:
    """R[other dims] = sum over `axis` of X (R zeroed first), for a 3-d X."""
    out = [d for a, d in enumerate(shape) if a != axis]
    ivs = ["%i0", "%i1", "%i2"]
    out_ivs = [v for a, v in enumerate(ivs) if a != axis]
    loops = "".join(f"{'  ' * (a + 1)}affine.for {ivs[a]} = 0 to {shape[a]} {{\n" for a in range(3))
    close = "".join(f"{'  ' * (a + 1)}}}\n" for a in reversed(range(3)))
    ind = "  " * 4
    return f"""func.func @k(%X: {ty(shape, et)}, %R: {ty(out, et)}) {{
  %z = arith.constant 0.0 : {et}
  affine.for %a = 0 to {out[0]} {{
    affine.for %b = 0 to {out[1]} {{
      affine.store %z, %R[%a, %b] : {ty(out, et)}
    }}
  }}
{loops}{ind}%x = affine.load %X[{', '.join(ivs)}] : {ty(shape, et)}
{ind}%r = affine.load %R[{', '.join(out_ivs)}] : {ty(out, et)}
{ind}%s = arith.addf %r, %x : {et}
{ind}affine.store %s, %R[{', '.join(out_ivs)}] : {ty(out, et)}
{close}  return
}}"""


def stencil(n, et="f32") -> str:
    """A[i][j] = A[i-1][j+1] + B[i][j] (loop-carried, forbids interchange), then
    C[i][j] = A[i][j-1] + A[i-1][j] (shifted reads of the first nest)."""
    return f"""func.func @k(%A: {ty((n, n), et)}, %B: {ty((n, n), et)}, %C: {ty((n, n), et)}) {{
  affine.for %i = 1 to {n} {{
    affine.for %j = 0 to {n - 1} {{
      %a = affine.load %A[%i - 1, %j + 1] : {ty((n, n), et)}
      %b = affine.load %B[%i, %j] : {ty((n, n), et)}
      %s = arith.addf %a, %b : {et}
      affine.store %s, %A[%i, %j] : {ty((n, n), et)}
    }}
  }}
  affine.for %i = 1 to {n} {{
    affine.for %j = 1 to {n} {{
      %a = affine.load %A[%i, %j - 1] : {ty((n, n), et)}
      %b = affine.load %A[%i - 1, %j] : {ty((n, n), et)}
      %s = arith.addf %a, %b : {et}
      affine.store %s, %C[%i, %j] : {ty((n, n), et)}
    }}
  }}
  return
}}"""


def triangular(n, et="f32") -> str:
    """L[i][j] = sum_{k<=j} X[i][k] for j <= i (bounds affine in outer IVs)."""
    return f"""func.func @k(%X: {ty((n, n), et)}, %L: {ty((n, n), et)}) {{
  affine.for %i = 0 to {n} {{
    affine.for %j = 0 to affine_map<(d0) -> (d0 + 1)>(%i) {{
      affine.for %k = 0 to affine_map<(d0) -> (d0 + 1)>(%j) {{
        %x = affine.load %X[%i, %k] : {ty((n, n), et)}
        %l = affine.load %L[%i, %j] : {ty((n, n), et)}
        %s = arith.addf %l, %x : {et}
        affine.store %s, %L[%i, %j] : {ty((n, n), et)}
      }}
    }}
  }}
  return
}}"""
