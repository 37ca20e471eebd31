"""ptxas in the loop, acted on: kernels that spill or exceed a limit are re-planned with smaller tiles.

`compile_checked(src, **options)` compiles a mindir module for the GPU
(format=isa), assembles every kernel with `ptxas -v` (ptxas.check_program)
and, for each kernel whose report has problems, compiles again with smaller
tiles for that kernel alone (compile_gpu's `kernel_plans`, read by
convert-mskernel-to-gpu as `mskernel.gpu_plan`), at most `retries` times:

  spills / registers    a contraction's register tile halved (outputs per
                        thread: 64 -> 32 -> 16 ...: fewer accumulators live in
                        registers), and where that is at its floor, or for
                        other kernels, the threads per block halved
  registers x threads   the threads per block halved (also the block tiles
    > 64 Ki, smem       of a contraction or of the poly schedule: less shared
    > 48 KiB            memory)

Why not just report: ptxas knows the real register allocation, the planner
only estimates it (targets.GPU.registers_per_point, plan_matmul's tile
levels); a spill costs local-memory traffic on every access. Each re-plan is
an MLIR remark (`ptxas re-plan: kernel @f (binary b): <figures>; <old> ->
<new limits>: <new tiles>; now <figures>`). `maxrregcount` > 0 is ptxas's
register budget per thread (to check a register-starved configuration; the
compiled program itself is not built with it).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from mlir import ir

from .compile import GpuProgram, _options, compile_gpu
from .ptxas import KernelReport, check_program

FLOOR_THREADS = 32
FLOOR_OUTPUTS = 1


@dataclass
class Replan:
    kernel: str                 # the kernel function
    binary: str                 # its gpu.binary
    before: KernelReport
    old: dict
    new: dict
    after: KernelReport | None = None
    tiles: str = ""             # the kernel's mapping after the re-plan

    def message(self) -> str:
        lim = lambda p: f"threads <= {p['threads']}, outputs per thread <= {p['outputs']}"  # noqa: E731,E501
        now = figures(self.after) if self.after is not None else "?"
        return (f"ptxas re-plan: kernel @{self.kernel} ({self.binary}): {figures(self.before)}; "
                f"re-planned with {lim(self.new)} (was {lim(self.old)}): {self.tiles}; "
                f"ptxas now: {now}")


def figures(r: KernelReport) -> str:
    spill = (f"{r.spill_stores} bytes spill stores, {r.spill_loads} bytes spill loads"
             if r.spills else "no spills")
    return (f"{r.registers} registers x {r.threads} threads, {r.shared} bytes smem, {spill}"
            + (f" ({'; '.join(r.problems)})" if r.problems else ""))


def owners(module: ir.Module) -> dict[str, str]:
    """gpu.binary name -> the function whose gpu.launch_func launches it."""
    out = {}
    for op in module.body.operations:
        if op.operation.name != "func.func":
            continue
        name = ir.StringAttr(op.attributes["sym_name"]).value

        def visit(o, name=name):
            if o.name == "gpu.launch_func":
                out[ir.SymbolRefAttr(o.attributes["kernel"]).value[0]] = name
            return ir.WalkResult.ADVANCE
        op.operation.walk(visit)
    return out


def tiles(prog: GpuProgram, kernel: str) -> str:
    """The kernel's mapping: its mskernel.gpu_mapping and its launches' blocks."""
    from msmlir.passes.gpu.schedule_mapping import ATTR_MAPPING
    own = owners(prog.module)
    blocks = sorted({"x".join(map(str, la.block)) for la in prog.launches
                     if own.get(la.kernel) == kernel})
    text = f"blocks of {', '.join(blocks)} threads"
    with prog.module.context:
        for op in prog.module.body.operations:
            if op.operation.name == "func.func" and \
                    ir.StringAttr(op.attributes["sym_name"]).value == kernel and \
                    ATTR_MAPPING in op.attributes:
                text = ir.StringAttr(op.attributes[ATTR_MAPPING]).value + "; " + text
    return text


_OUTPUTS = re.compile(r"(\d+)x(\d+) outputs per thread")


def _smaller(plan: dict, r: KernelReport, mapping: str) -> dict:
    """The next, smaller limits for a kernel with problems: register-starved
    with a register tile (its mapping says "RMxRN outputs per thread"): half
    of that tile; else half the threads."""
    new = dict(plan)
    starved = r.spills or r.registers >= 255
    m = _OUTPUTS.search(mapping)
    outputs = int(m.group(1)) * int(m.group(2)) if m else 0
    if starved and outputs > FLOOR_OUTPUTS:
        new["outputs"] = min(plan["outputs"], outputs) // 2
    elif plan["threads"] > FLOOR_THREADS:
        new["threads"] = plan["threads"] // 2
    return new


def compile_checked(src, *, retries: int = 3, maxrregcount: int = 0, remarks: bool = True,
                    **options) -> tuple[GpuProgram, dict[str, KernelReport], list[Replan]]:
    """(program, {binary: ptxas report}, the re-plans made); see the module
    docstring. `options` are compile_gpu's (format must stay isa)."""
    if options.get("format", "isa") != "isa":
        raise ValueError("compile_checked assembles PTX itself: format must be 'isa'")
    threads = _options(**options)["threads"]
    plans: dict[str, dict] = {}
    done: list[Replan] = []
    pending: list[Replan] = []
    for attempt in range(retries + 1):
        prog = compile_gpu(src, kernel_plans=plans, **options)
        reports = check_program(prog, remarks=False, maxrregcount=maxrregcount)
        own = owners(prog.module)
        by_kernel = {own.get(b): r for b, r in reports.items()}
        for p in pending:
            p.after = by_kernel.get(p.kernel)
            p.tiles = tiles(prog, p.kernel)
            done.append(p)
        pending = []
        bad = {b: r for b, r in reports.items() if r.problems}
        if not bad or attempt == retries:
            break
        for b, r in bad.items():
            kernel = own.get(b)
            if kernel is None:
                continue
            old = plans.get(kernel, {"threads": threads, "outputs": 64})
            new = _smaller(old, r, tiles(prog, kernel))
            if new != old:
                plans[kernel] = new
                pending.append(Replan(kernel, b, r, old, new))
        if not pending:
            break
    if remarks and (done or any(r.problems for r in reports.values())):
        from msmlir.passes.common.diagnostics import emit_remark
        loc = prog.module.operation.location
        for p in done:
            emit_remark(loc, p.message())
        for b, r in reports.items():
            if r.problems:
                emit_remark(loc, f"ptxas: kernel {b} {'; '.join(r.problems)} (after "
                                 f"{sum(p.binary == b for p in done)} re-plans)")
    return prog, reports, done
