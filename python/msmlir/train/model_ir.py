"""What a loaded `.mindir` model may contain: exactly the IR `export` writes.

A model file is data, not code. MLIR can express code that calls into the
process (`llvm.func @system` + `llvm.call`, a `func.func` declaration the JIT
resolves against the process, a `mindir.host_callback`), so `msmlir.load`
checks the parsed module against an allow-list before anything is compiled:

  - ops: `builtin.module`; `func.func` (with a body: no external declarations),
    `func.return`, `func.call`; every `mindir` op except `host_callback`; the
    `scf` control flow the frontend emits; pure `arith`/`math` arithmetic;
    `tensor.extract` of a 0-d tensor and `tensor.empty`; and the kernel-level
    ops of `@msmlir.kernel` compute definitions (`mskernel.fused`/`yield`,
    `linalg.generic`/`yield`/`index`). No `llvm` op, nothing else.
  - symbol references: only the callee of `func.call` and `mindir.grad`, and it
    must name a function defined in the module.
  - attributes: no `llvm.*` attribute anywhere (they steer the LLVM lowering:
    linkage, C interfaces, ...), and `func.func` carries only its structural ones.

The compiler binds external symbols from an allow-list as well
(`msmlir/runtime/linker.py`); this check is the first of the two walls.
"""
from __future__ import annotations

import functools

from mlir import ir

_STRUCTURAL = {
    "builtin.module", "func.func", "func.return", "func.call",
    "scf.if", "scf.while", "scf.condition", "scf.yield", "scf.for",
    "tensor.extract", "tensor.empty",
    "mskernel.fused", "mskernel.yield", "linalg.generic", "linalg.yield", "linalg.index",
}
_PURE_DIALECTS = ("arith.", "math.")
_FORBIDDEN_MINDIR = {"mindir.host_callback"}
_FUNC_ATTRS = {"sym_name", "function_type", "sym_visibility", "arg_attrs", "res_attrs"}
_CALLERS = {"func.call": "callee", "mindir.grad": "callee"}


@functools.cache
def _mindir_ops() -> frozenset:
    from ..dialects import _mindir_ops_gen as gen
    names = {getattr(c, "OPERATION_NAME", None) for c in vars(gen).values()}
    return frozenset(n for n in names if n and n not in _FORBIDDEN_MINDIR)


def _has_symbol_ref(attr: ir.Attribute) -> bool:
    if isinstance(attr, (ir.FlatSymbolRefAttr, ir.SymbolRefAttr)):
        return True
    if isinstance(attr, ir.ArrayAttr):
        return any(_has_symbol_ref(a) for a in attr)
    if isinstance(attr, ir.DictAttr):
        return any(_has_symbol_ref(attr[i].attr) for i in range(len(attr)))
    return False


def _llvm_attr_names(attr: ir.Attribute) -> list[str]:
    """`llvm.*` keys inside (nested) dictionaries, e.g. func arg_attrs."""
    if isinstance(attr, ir.ArrayAttr):
        return [n for a in attr for n in _llvm_attr_names(a)]
    if isinstance(attr, ir.DictAttr):
        out = []
        for i in range(len(attr)):
            named = attr[i]
            if named.name.startswith("llvm."):
                out.append(named.name)
            out += _llvm_attr_names(named.attr)
        return out
    return []


def _where(op) -> str:
    loc = str(op.location)
    return f"'{op.name}' at {loc}" if loc not in ("loc(unknown)", "") else f"'{op.name}'"


def check_loadable(module: ir.Module) -> None:
    """Raises ValueError naming the first op or attribute a model may not hold."""
    mindir = _mindir_ops()
    defined = set()
    for op in module.body.operations:
        if op.operation.name == "func.func" and op.regions[0].blocks:
            defined.add(ir.StringAttr(op.attributes["sym_name"]).value)
    problems: list[str] = []

    def visit(op):
        name = op.name
        if not (name in _STRUCTURAL or name in mindir or name.startswith(_PURE_DIALECTS)):
            problems.append(f"op {_where(op)} is not allowed in a model (only the ops export "
                            f"writes: mindir, func, scf, arith, math, kernels)")
            return ir.WalkResult.INTERRUPT
        if name == "func.func" and not op.regions[0].blocks:
            problems.append(f"external function declaration @"
                            f"{ir.StringAttr(op.attributes['sym_name']).value} is not allowed "
                            f"in a model (every function must have a body)")
            return ir.WalkResult.INTERRUPT
        if name == "tensor.extract" and len(op.operands) != 1:
            problems.append(f"{_where(op)} with indices is not allowed in a model")
            return ir.WalkResult.INTERRUPT
        for attr_name in op.attributes:
            attr = op.attributes[attr_name]
            bad = [attr_name] if attr_name.startswith("llvm.") else _llvm_attr_names(attr)
            if name == "func.func" and attr_name not in _FUNC_ATTRS:
                bad.append(attr_name)
            if bad:
                problems.append(f"attribute '{bad[0]}' on {_where(op)} is not allowed in a model")
                return ir.WalkResult.INTERRUPT
            if _CALLERS.get(name) == attr_name:
                callee = attr.value
                if callee not in defined:
                    problems.append(f"{_where(op)} calls @{callee}, which the model does not "
                                    f"define")
                    return ir.WalkResult.INTERRUPT
            elif _has_symbol_ref(attr):
                problems.append(f"symbol reference in attribute '{attr_name}' of {_where(op)} "
                                f"is not allowed in a model")
                return ir.WalkResult.INTERRUPT
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    if problems:
        raise ValueError(problems[0])
