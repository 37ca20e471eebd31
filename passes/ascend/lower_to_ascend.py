"""mskernel-lower-to-ascend: each outlined kernel (linalg on tensors) -> Ascend C.

Why: the Ascend target's kernels are Ascend C source (what a CANN user builds),
not LLVM IR; this pass is where msmlir's kernel level meets the Ascend C
programming model. For every kernel function (`mskernel.kind`) it plans the
kernel (plan.py, vector.py, cube.py, conv.py, pool.py, split.py: roles of the
values, UB/L1/L0 buffers, TQue double buffering, tiles from the UB budget,
multi-core split) and records on the function `mskernel.target =
#mskernel.target<ascend>`, `ascend.kernel` (the kernel's symbol) and
`ascend.report` (UB/L1/L0 bytes, double buffering, DataCopy calls, estimated
cycles; cost.py), also reported as a remark.

Vector kernels (elementwise chains, broadcasts, last-axis reductions such as
softmax / layernorm, first-axis column sums; also the vector parts of
groups: matmul / conv epilogues, split sums) are lowered to the `ascendc`
dialect: one `ascendc.kernel` op each, placed in the module after its
kernel function (to_ascendc.py; verified by the dialect's verifiers), and
their Ascend C is printed from that op alone (emit_ascendc.py). Cube
(matmul, conv's GEMMs), transpose, data-movement (im2col, permute), pooling
and scalar-fallback kernels have no ascendc ops yet: they are emitted from
their plans (cube.py, group.py, conv.py, pool.py, scalar.py).

`emit-dir=DIR` writes the CANN custom-operator project (op_kernel/, op_host/,
launch/, report.txt) there. The host graph is left as it is (it runs on the
CPU). A kernel the vector/cube planners cannot express becomes a scalar-loop
Ascend C kernel (scalar.py), reported as `scalar fallback` with the reason;
with `fallback=false` it is an error at the kernel function naming the
reason. Nothing falls back to the CPU.
"""
from __future__ import annotations

from mlir import ir

from ..common.diagnostics import emit_remark
from ..registry import Option, PassFailure, register_pass

NAME = "mskernel-lower-to-ascend"
KERNEL_ATTR = "mskernel.kind"


def kernel_symbol(func_name: str) -> str:
    """The Ascend kernel's symbol for kernel function `func_name` (a C identifier)."""
    base = func_name[4:] if func_name.startswith(("cpu_", "gpu_")) else func_name
    if base.startswith("ascend_"):
        return base
    return "ascend_" + "".join(c if c.isalnum() or c == "_" else "_" for c in base)


def kernel_funcs(module: ir.Operation):
    for op in module.regions[0].blocks[0].operations:
        op = op.operation
        if op.name == "func.func" and KERNEL_ATTR in op.attributes and len(op.regions[0].blocks):
            yield op


def lower_module(module: ir.Operation, *, soc: str = "Ascend910B", cores: int = 0, tile_elems: int = 0,
                 ub_scale: int = 1, fallback: bool = True, errors: list | None = None) -> list:
    """Plans every kernel of `module`; returns the plans. A kernel that cannot be
    planned is reported by `errors.append((func, message))` (raises
    plan.Unsupported when `errors` is None)."""
    from . import cost
    from .plan import Unsupported
    plans = []
    for f in kernel_funcs(module):
        name = ir.StringAttr(f.attributes["sym_name"]).value
        try:
            plan = plan_kernel(f, kernel_symbol(name), soc=soc, cores=cores, tile_elems=tile_elems,
                               ub_scale=ub_scale, fallback=fallback)
        except Unsupported as e:
            if errors is None:
                raise Unsupported(f"kernel @{name}: {e}") from None
            errors.append((f, f"{NAME}: kernel @{name}: {e}"))
            continue
        for part, _, _ in plan.parts or []:
            part.report = cost.report(part)
        plan.report = cost.report(plan)
        try:
            _lower_to_ascendc(plan, f, ub_scale)
        except ValueError as e:
            if errors is None:
                raise Unsupported(f"kernel @{name}: {e}") from None
            errors.append((f, f"{NAME}: kernel @{name}: {e}"))
            continue
        plans.append(plan)
        with f.context:
            f.attributes["mskernel.target"] = ir.Attribute.parse("#mskernel.target<ascend>")
            f.attributes["ascend.kernel"] = ir.StringAttr.get(plan.kernel)
            f.attributes["ascend.report"] = ir.StringAttr.get(cost.format_report(plan.report))
    return plans


def _lower_to_ascendc(plan, f: ir.Operation, ub_scale: int) -> None:
    """The ascendc.kernel op of every vector kernel of `plan` (itself or its
    parts), inserted after kernel function `f` in part order (plan.ir)."""
    from . import to_ascendc
    after = f
    for p in [q for q, _, _ in plan.parts] if plan.parts else [plan]:
        if to_ascendc.is_vector(p):
            p.ir = to_ascendc.build(p, after=after, ub_scale=ub_scale)
            after = p.ir


def plan_kernel(fn: ir.Operation, kernel: str, *, soc: str = "Ascend910B", cores: int = 0,
                tile_elems: int = 0, ub_scale: int = 1, fallback: bool = True) -> Plan:
    """The plan of kernel function `fn` (raises Unsupported). `ub_scale` > 1
    sizes tiles against a larger UB than the target has (a planted bug, for
    the emulator's tests). `fallback`: a kernel the vector/cube planners cannot
    express becomes a scalar-loop kernel (scalar.py) instead of an error."""
    from dataclasses import replace

    from ..common.linalg import matmul_info
    from ..poly import targets
    from . import conv, cube, group, movement, pool, split, vector
    from .plan import SOCS, Unsupported, _Planner
    model = targets.make("ascend")
    model = replace(model, ub=model.ub * ub_scale)
    soc_cores = SOCS.get(soc)
    if soc_cores is None:
        raise Unsupported(f"unknown soc '{soc}' (one of {', '.join(SOCS)})")

    def build_vector(f, name):
        p = _Planner(f, name, model, cores or soc_cores[0], soc, tile_elems)
        p.analyse()
        return vector.build(p)

    def structured():
        body = [op.operation for op in fn.regions[0].blocks[0].operations]
        if conv.conv_op(fn) is not None:
            return conv.plan_conv(fn, kernel, soc=soc, cores=(cores or soc_cores[0], cores or soc_cores[1]),
                                  model=model, build_vector=build_vector)
        if pool.pool_kind(fn) is not None:
            return pool.plan_pool(fn, kernel, soc=soc, cores=cores or soc_cores[0], model=model)
        if any(op.name in ("linalg.matmul", "linalg.batch_matmul") or matmul_info(op) is not None for op in body):
            try:
                return cube.plan_matmul(fn, kernel, soc=soc, cores=cores or soc_cores[1], model=model)
            except Unsupported:
                return group.plan_group(fn, kernel, soc=soc, cores=(cores or soc_cores[0], cores or soc_cores[1]),
                                        model=model, tile_elems=tile_elems, build_vector=build_vector)
        try:
            return build_vector(fn, kernel)
        except Unsupported:
            try:        # slices, splits, concatenations, stacks, tiles, transposes: MTE copy kernels
                return movement.plan_movement(fn, kernel, soc=soc, cores=cores or soc_cores[0], model=model)
            except Unsupported:
                pass
            if split.applies(fn):
                return split.plan_split(fn, kernel, soc=soc, build_vector=build_vector)
            if split.independent_parts(fn):
                return split.plan_parts(fn, kernel, soc=soc, build_vector=build_vector)
            raise

    try:
        return structured()
    except Unsupported as e:
        if not fallback:
            raise
        from . import scalar
        try:
            return scalar.plan_scalar(fn, kernel, soc=soc, reason=str(e))
        except Unsupported as e2:
            raise Unsupported(f"{e}; the scalar fallback: {e2}") from None



@register_pass(NAME, "outlined kernels (linalg on tensors) -> Ascend C kernels, host tiling and "
                     "launch stubs (CANN custom-operator layout)",
               options={"soc": Option(str, "Ascend910B", "target SoC (core counts; memory model of "
                                                         "passes/poly/targets.py)"),
                        "emit-dir": Option(str, "", "write the CANN custom-operator project here"),
                        "tile-elems": Option(int, 0, "largest full tile in elements (0: from the UB "
                                                     "budget only)"),
                        "cores": Option(int, 0, "cores to split over (0: the SoC's)"),
                        "fallback": Option(bool, True, "kernels the vector/cube planners cannot express "
                                                       "become scalar-loop kernels (false: an error)")})
def lower_to_ascend(module: ir.Operation, *, soc: str, emit_dir: str, tile_elems: int, cores: int,
                    fallback: bool):
    from . import cost, emit
    errors: list = []
    plans = lower_module(module, soc=soc, cores=cores, tile_elems=tile_elems, fallback=fallback, errors=errors)
    for f, msg in errors:
        f.location.emit_error(msg)
    if errors:
        raise PassFailure()
    for plan in plans:
        f = next(g for g in kernel_funcs(module) if ir.StringAttr(g.attributes["sym_name"]).value == plan.func)
        emit_remark(f.location, f"{NAME}: {cost.format_report(plan.report)}")
    if emit_dir:
        emit.write_project(plans, emit_dir, {p.kernel: cost.format_report(p.report) for p in plans})
