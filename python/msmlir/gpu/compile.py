"""Compiling a mindir module for the GPU, stage by stage (msmlir-gpu-pipeline).

`compile_gpu(text_or_module, ...)` runs GRAPH_PREPARE and the stages of
passes/gpu/pipelines.py (`gpu_stages`) in msmlir's shared context and returns
a `GpuProgram`: the final module (host functions on memrefs calling
`gpu.launch_func`, one `gpu.binary` per device kernel), the PTX (format=isa)
or cubin (format=bin) of each kernel, the launches, and the public
signatures. `stop_after="mapped"` stops at the mapped loop nest (scf.parallel
with #gpu.loop_dim_map attributes): `run_mapped_on_cpu` lowers that with the
CPU pipeline's plain LLVM stage and JIT-compiles it (msmlir.runtime), the CPU
check of every mapping decision.
"""
from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field

from mlir import ir
from mlir.dialects import gpu

from msmlir.compiler import context, public_signatures
from msmlir.passes import run_pipeline
from msmlir.passes.gpu.device_buffers import INPUTS_ATTR, RESIDENT_ATTR
from msmlir.passes.gpu.pipelines import gpu_stages
from msmlir.passes.registry import get_pass
from msmlir.passes.gpu.target import cuda_toolkit
from msmlir.passes.pipelines.cpu import GRAPH_PREPARE, cpu_lowering_stages
from msmlir.runtime.compiled_module import CompiledModule, Signature

MANGLE = "msmlir_gpu__"


@dataclass
class Launch:
    """One gpu.launch_func of a host function (static grid/block)."""
    kernel: str                 # the gpu.binary symbol
    entry: str                  # the kernel function inside it
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    shared: int                 # dynamic shared memory bytes

    @property
    def threads(self) -> int:
        return self.block[0] * self.block[1] * self.block[2]


@dataclass
class GpuProgram:
    module: ir.Module
    signatures: dict[str, Signature]
    options: dict
    objects: dict[str, bytes] = field(default_factory=dict)   # gpu.binary name -> PTX / cubin
    launches: list[Launch] = field(default_factory=list)
    resident: dict[str, int] = field(default_factory=dict)   # name -> device-resident inputs
    device_io: bool = False        # every argument a device buffer (msmlir.gpu.resident)

    @property
    def ptx(self) -> dict[str, str]:
        """gpu.binary name -> PTX text (format=isa)."""
        return {k: v.decode() for k, v in self.objects.items()}


def _options(**given) -> dict:
    out = {k.replace("-", "_"): v for k, v in get_pass("msmlir-gpu-pipeline").defaults().items()}
    for k, v in given.items():
        key = k.replace("-", "_")
        if key not in out:
            raise TypeError(f"msmlir-gpu-pipeline has no option '{k}'")
        out[key] = v
    return out


def _prepare(src) -> tuple[ir.Module, dict[str, Signature]]:
    """Parses (or clones) the module, runs the graph preparation, reads the
    public signatures and mangles the function names (as msmlir.compiler)."""
    ctx = context()
    with ctx:
        if isinstance(src, str):
            module = ir.Module.parse(src)
        else:
            module = ir.Module.parse(src.operation.get_asm(enable_debug_info=True))
        run_pipeline(module, f"builtin.module({GRAPH_PREPARE})")
        sigs = public_signatures(module)
        for op in module.body.operations:
            if op.operation.name == "func.func" and op.regions[0].blocks:
                old = ir.StringAttr(op.attributes["sym_name"]).value
                if "sym_visibility" not in op.attributes:
                    ir.SymbolTable.replace_all_symbol_uses(old, MANGLE + old, module.operation)
                    ir.SymbolTable.set_symbol_name(op, MANGLE + old)
    return module, sigs


@contextlib.contextmanager
def _ptxas_on_path():
    """gpu-module-to-binary runs ptxas (format=bin/fatbin): put the toolkit's on PATH."""
    tk = cuda_toolkit()
    old = os.environ.get("PATH", "")
    if tk is not None:
        os.environ["PATH"] = os.path.join(tk, "bin") + os.pathsep + old
    try:
        yield
    finally:
        os.environ["PATH"] = old


def _const_int(v: ir.Value) -> int:
    op = v.owner.operation
    if op.name != "arith.constant":
        raise ValueError(f"a launch bound that is not a constant: {v}")
    return ir.IntegerAttr(op.attributes["value"]).value


def launches_of(module: ir.Module) -> list[Launch]:
    """Every gpu.launch_func of the module, in program order."""
    found = []

    def visit(op):
        if op.name == "gpu.launch_func":
            ref = ir.SymbolRefAttr(op.attributes["kernel"])
            v = op.opview
            shared = v.dynamicSharedMemorySize
            found.append(Launch(ref.value[0], ref.value[-1],
                                (_const_int(v.gridSizeX), _const_int(v.gridSizeY),
                                 _const_int(v.gridSizeZ)),
                                (_const_int(v.blockSizeX), _const_int(v.blockSizeY),
                                 _const_int(v.blockSizeZ)),
                                _const_int(shared) if shared is not None else 0))
        return ir.WalkResult.ADVANCE
    module.operation.walk(visit)
    return found


def objects_of(module: ir.Module) -> dict[str, bytes]:
    """gpu.binary name -> the bytes of its (single) object."""
    out = {}
    for op in module.body.operations:
        if op.operation.name == "gpu.binary":
            name = ir.StringAttr(op.attributes["sym_name"]).value
            objs = ir.ArrayAttr(op.attributes["objects"])
            out[name] = bytes(gpu.ObjectAttr(objs[0]).object)
    return out


def _mark_inputs(module: ir.Module, sigs: dict[str, Signature], resident: int = 0,
                 device_io: bool = False) -> None:
    """Each public function's number of inputs (msmlir-gpu-device-buffers:
    those are copied to the device, the out-parameters after them back) and,
    with `resident` > 0, its device-resident arguments: the last `resident`
    inputs (Parameters, msmlir.gpu.resident) and the out-parameters of the
    results written back into them; with `device_io`, every argument (the
    caller passes device or managed buffers: msmlir.gpu.resident)."""
    with module.context:
        i64 = ir.IntegerType.get_signless(64)
        for op in module.body.operations:
            if op.operation.name != "func.func" or "sym_visibility" in op.attributes:
                continue
            name = ir.StringAttr(op.attributes["sym_name"]).value
            sig = sigs.get(name[len(MANGLE):] if name.startswith(MANGLE) else name)
            if sig is None:
                continue
            n_in = len(sig.inputs)
            op.attributes[INPUTS_ATTR] = ir.IntegerAttr.get(i64, n_in)
            if resident > n_in:
                raise ValueError(f"{name}: {resident} resident inputs, but only {n_in} inputs")
            if device_io:
                op.attributes[RESIDENT_ATTR] = ir.ArrayAttr.get(
                    [ir.IntegerAttr.get(i64, i) for i in range(n_in + len(sig.outputs))])
            elif resident:
                first = n_in - resident
                idx = list(range(first, n_in)) + sorted(n_in + r for r, a in sig.writeback
                                                        if a >= first)
                op.attributes[RESIDENT_ATTR] = ir.ArrayAttr.get(
                    [ir.IntegerAttr.get(i64, i) for i in idx])


def _plan_kernels(module: ir.Module, plans: dict[str, dict[str, int]]) -> None:
    """`mskernel.gpu_plan` on the named kernel functions (a ptxas re-plan:
    msmlir.gpu.replan; convert-mskernel-to-gpu reads it)."""
    from msmlir.passes.gpu.convert_mskernel_to_gpu import PLAN_ATTR
    i64 = ir.IntegerType.get_signless(64)
    for op in module.body.operations:
        if op.operation.name != "func.func":
            continue
        plan = plans.get(ir.StringAttr(op.attributes["sym_name"]).value)
        if plan:
            op.attributes[PLAN_ATTR] = ir.DictAttr.get(
                {k: ir.IntegerAttr.get(i64, v) for k, v in plan.items()})


def compile_gpu(src, *, stop_after: str | None = None, host: bool = False,
                resident: int = 0, device_io: bool = False,
                kernel_plans: dict[str, dict[str, int]] | None = None,
                **options) -> GpuProgram:
    """Compiles mindir (text or module) with msmlir-gpu-pipeline; `options` are
    the pipeline's (chip, features, opt_level, format, threads, graph_kernel).
    `stop_after` names a stage of passes/gpu/pipelines.py's gpu_stages
    (kernels, linalg, gpu, device, binary), or "mapped": the mapped loop nest
    that convert-mskernel-to-gpu{launch=false} leaves. `host` adds the stage
    "host" (the LLVM-dialect module of the in-process runtime, msmlir.gpu.host);
    with it, the last `resident` inputs of each public function (and their
    updates) are device buffers the caller keeps (msmlir.gpu.resident), and
    with `device_io` every argument is. `kernel_plans`: {kernel function:
    {"threads": N, "outputs": R}}, per-kernel limits of a ptxas re-plan
    (msmlir.gpu.replan)."""
    opts = _options(**options)
    host = opts.pop("host") or host
    stages = gpu_stages(**opts, launch=stop_after != "mapped", host=host)
    names = [n for n, _ in stages]
    if stop_after is not None and stop_after not in names:
        raise ValueError(f"no stage '{stop_after}' (stages: {', '.join(names)})")
    module, sigs = _prepare(src)
    if host:
        _mark_inputs(module, sigs, resident, device_io)
    with module.context, _ptxas_on_path():
        for name, text in stages:
            if name == "gpu" or name == "mapped":
                _plan_kernels(module, kernel_plans or {})
            run_pipeline(module, f"builtin.module({text})")
            if name == stop_after:
                break
    prog = GpuProgram(module, sigs, opts, device_io=device_io)
    if host and stop_after in (None, "host"):
        return prog                  # (the gpu ops are LLVM now; objects stay embedded)
    if stop_after in (None, "binary"):
        with module.context:
            prog.objects = objects_of(module)
    if stop_after in (None, "gpu", "device", "binary"):
        with module.context:
            prog.launches = launches_of(module)
    return prog


def run_mapped_on_cpu(src, **options) -> CompiledModule:
    """The mapped loop nest of `src` (before any gpu op) JIT-compiled for the
    CPU: `.call(name, *arrays)` runs it. Same stages and options as
    compile_gpu up to "mapped", then the CPU pipeline's plain LLVM stage."""
    prog = compile_gpu(src, stop_after="mapped", **options)
    llvm = dict(cpu_lowering_stages(codegen=False))["llvm"]
    with prog.module.context:
        run_pipeline(prog.module, f"builtin.module({llvm})")
        return CompiledModule(prog.module, prog.signatures, [], MANGLE)
