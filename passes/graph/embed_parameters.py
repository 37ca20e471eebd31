"""mindir-embed-parameters: arguments with a known value become constants.

`msmlir.jit` passes the Parameters a function captures as extra (trailing)
arguments of its entry function, so one compiled graph serves every value of
them. An exported model must be self-contained instead (MindSpore embeds the
parameters too): each argument whose argument attribute
`msmlir.embed_value` holds its value (an elements attribute of exactly the
argument's type) is replaced by a `mindir.constant` of that value at the top
of the function, and removed from the function's signature and `arg_attrs`.
Callers are not rewritten, so a function that is called in the module is
refused; `export` runs the pass on its entry function's module after
`mark_embedded` has attached the values.
"""
from __future__ import annotations

from mlir import ir

from msmlir.dialects import mindir

from ..registry import PassFailure, register_pass

EMBED_ATTR = "msmlir.embed_value"


def mark_embedded(func: ir.Operation, index: int, value: ir.Attribute) -> None:
    """Attaches `value` (an elements attribute of the argument's type) to argument
    `index` of `func`, for mindir-embed-parameters to turn into a constant."""
    n = len(func.regions[0].blocks[0].arguments)
    if "arg_attrs" in func.attributes:
        attrs = list(ir.ArrayAttr(func.attributes["arg_attrs"]))
    else:
        attrs = [ir.DictAttr.get({}) for _ in range(n)]
    entries = {a.name: a.attr for a in ir.DictAttr(attrs[index])}
    entries[EMBED_ATTR] = value
    attrs[index] = ir.DictAttr.get(entries)
    func.attributes["arg_attrs"] = ir.ArrayAttr.get(attrs)


def _called(module: ir.Operation) -> set[str]:
    """Names of the functions some func.call in the module calls."""
    names: set[str] = set()

    def visit(op):
        if op.name == "func.call":
            names.add(ir.FlatSymbolRefAttr(op.attributes["callee"]).value)
        return ir.WalkResult.ADVANCE
    module.walk(visit)
    return names


def _embed(func: ir.Operation, called: set[str]) -> bool:
    if "arg_attrs" not in func.attributes or not func.regions[0].blocks:
        return True
    attrs = list(ir.ArrayAttr(func.attributes["arg_attrs"]))
    values = {}
    for i, d in enumerate(attrs):
        d = ir.DictAttr(d)
        if EMBED_ATTR in d:
            values[i] = d[EMBED_ATTR]
    if not values:
        return True
    name = ir.StringAttr(func.attributes["sym_name"]).value
    if name in called:
        func.location.emit_error(
            f"cannot embed the arguments of @{name}: it is called in the module "
            f"(its callers would still pass them)")
        return False
    block = func.regions[0].blocks[0]
    ok = True
    for i, value in values.items():
        arg = block.arguments[i]
        try:
            vtype = value.type
        except Exception:  # noqa: BLE001  (not a typed attribute)
            vtype = None
        if vtype != arg.type:
            func.location.emit_error(f"argument {i} of @{name} has type {arg.type}, but its "
                                     f"{EMBED_ATTR} has type {vtype}")
            ok = False
    if not ok:
        return False
    with ir.InsertionPoint.at_block_begin(block), ir.Location.unknown():
        for i, value in values.items():
            arg = block.arguments[i]
            arg.replace_all_uses_with(mindir.ConstantOp(value, results=[arg.type]).result)
    for i in sorted(values, reverse=True):
        block.erase_argument(i)
    keep = [i for i in range(len(attrs)) if i not in values]
    ftype = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
    inputs = list(ftype.inputs)
    func.attributes["function_type"] = ir.TypeAttr.get(
        ir.FunctionType.get([inputs[i] for i in keep], list(ftype.results)))
    func.attributes["arg_attrs"] = ir.ArrayAttr.get([attrs[i] for i in keep])
    return True


@register_pass("mindir-embed-parameters",
               "Replace function arguments carrying msmlir.embed_value by mindir.constant ops")
def run(module: ir.Operation) -> None:
    called = _called(module)
    ok = True
    for op in module.regions[0].blocks[0].operations:
        if op.operation.name == "func.func":
            ok = _embed(op.operation, called) and ok
    if not ok:
        raise PassFailure()
