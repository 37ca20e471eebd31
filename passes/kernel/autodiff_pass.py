"""mskernel-autodiff: generates backward functions of compute kernels (kernel-level AD).

For every `func.func @f` carrying `mskernel.grad = {name = "f_grad"}` (and
optionally `wrt = array<i64: ...>`, the argument numbers to differentiate;
default: every floating-point tensor argument), where @f applies one
`mskernel.fused` compute kernel to its arguments and returns its results, the
pass adds

    func.func @f_grad(<f's arguments>, <one gradient per f result>) -> (<one gradient per wrt>)

which runs the forward kernel and the backward kernel built by
`differentiate_kernel`. A gradient that is structurally zero is returned as
`arith.constant dense<0.0>` -- no kernel computes it. The attribute is removed
from @f.

This is the kernel-level entry of autodiff usable from ms-opt and lit tests;
graph-level AD (mindir-autodiff) calls `differentiate_kernel` directly.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import func

from ..registry import Option, PassFailure, register_pass
from .autodiff import differentiate_kernel
from .builders import splat_constant
from .expr import FLOAT_TYPES, KernelADError


def _funcs(module: ir.Operation):
    for op in module.regions[0].blocks[0].operations:
        op = op.operation
        if op.name == "func.func":
            yield op


def _spec(f: ir.Operation):
    d = ir.DictAttr(f.attributes["mskernel.grad"])
    if "name" not in d:
        raise KernelADError("mskernel.grad needs a 'name' (the gradient function to create)")
    name = ir.StringAttr(d["name"]).value
    wrt = None
    if "wrt" in d:
        wrt = list(ir.DenseI64ArrayAttr(d["wrt"]))
    return name, wrt


@register_pass("mskernel-autodiff",
               "Generate backward functions of compute kernels (kernel-level AD, functions "
               "marked mskernel.grad)",
               options={"zero-elimination": Option(bool, True, "simplify derivatives and drop "
                                                   "structurally zero terms and gradients "
                                                   "(false: naive chain rule)")})
def mskernel_autodiff(module: ir.Operation, *, zero_elimination: bool):
    failed = False
    for f in list(_funcs(module)):
        if "mskernel.grad" not in f.attributes:
            continue
        try:
            _generate(module, f, zero_elimination)
        except KernelADError as e:
            (e.loc or f.location).emit_error(f"kernel-level autodiff: {e}")
            failed = True
    if failed:
        raise PassFailure()


def _generate(module: ir.Operation, f: ir.Operation, zero_elim: bool):
    name, wrt = _spec(f)
    fname = ir.StringAttr(f.attributes["sym_name"]).value
    block = f.regions[0].blocks[0]
    ops = [o.operation for o in block.operations]
    kernels = [o for o in ops if o.name == "mskernel.fused"]
    ret = ops[-1]
    if len(kernels) != 1 or len(ops) != 2:
        raise KernelADError(f"@{fname} must consist of one mskernel.fused kernel and a return")
    kernel = kernels[0]
    args = list(block.arguments)
    for o in kernel.operands:
        if o not in args:
            raise KernelADError(f"the kernel of @{fname} must take @{fname}'s arguments directly")
    ftype = ir.FunctionType(ir.TypeAttr(f.attributes["function_type"]).value)
    for t in [*ftype.inputs, *ftype.results]:
        if isinstance(t, ir.ShapedType) and not ir.ShapedType(t).has_static_shape:
            raise KernelADError(f"@{fname} has the dynamically shaped type {t}: kernel-level "
                                f"autodiff needs static shapes")
    if wrt is None:
        wrt = [i for i, t in enumerate(ftype.inputs)
               if isinstance(t, ir.RankedTensorType)
               and str(ir.RankedTensorType(t).element_type) in FLOAT_TYPES]
    for i in wrt:
        if not 0 <= i < len(args):
            raise KernelADError(f"wrt argument {i} out of range")
    returned = list(ret.operands)
    results = list(kernel.results)
    for r in returned:
        if r not in results:
            raise KernelADError(f"@{fname} must return results of its kernel")

    seen = set()
    for r in returned:
        if results.index(r) in seen:
            raise KernelADError(f"@{fname} returns kernel result #{results.index(r)} twice")
        seen.add(results.index(r))

    failure = None
    in_types = list(ftype.inputs) + list(ftype.results)
    out_types = [ftype.inputs[i] for i in wrt]
    with f.location, ir.InsertionPoint(module.regions[0].blocks[0]):
        g = func.FuncOp(name, ir.FunctionType.get(in_types, out_types))
        gblock = g.add_entry_block()
        with ir.InsertionPoint(gblock):
            gargs = list(gblock.arguments)
            fwd = kernel.clone()
            for i, o in enumerate(kernel.operands):
                fwd.operands[i] = gargs[args.index(o)]
            douts = [None] * len(results)
            for j, r in enumerate(returned):
                douts[results.index(r)] = gargs[len(args) + j]
            # kernel inputs that are the wrt arguments (an argument may feed several)
            positions = {}
            for p, o in enumerate(kernel.operands):
                positions.setdefault(args.index(o), []).append(p)
            wanted = sorted({p for i in wrt for p in positions.get(i, [])})
            try:
                grads = differentiate_kernel(fwd, wanted, douts, zero_elimination=zero_elim) \
                    if wanted else []
            except KernelADError as e:
                failure = KernelADError(str(e), e.loc or kernel.location)
            if failure is not None:
                grads = [None] * len(wanted)
            by_pos = dict(zip(wanted, grads))
            outs = []
            for i in wrt:
                acc = None
                for p in positions.get(i, []):
                    gval = by_pos.get(p)
                    if gval is None:
                        continue
                    acc = gval if acc is None else ir.Operation.create(
                        "mindir.add", results=[gval.type], operands=[acc, gval]).result
                if acc is None:
                    acc = _zeros(ftype.inputs[i])
                outs.append(acc)
            func.ReturnOp(outs)
            if not any(_has_uses(r) for r in fwd.results):
                fwd.erase()  # no gradient needed the forward results
    if failure is not None:
        g.operation.erase()
        raise failure
    del f.attributes["mskernel.grad"]


def _has_uses(v: ir.Value) -> bool:
    for _ in v.uses:
        return True
    return False


def _zeros(t: ir.Type) -> ir.Value:
    return splat_constant(ir.RankedTensorType(t), 0.0)
