"""msmlir's Ascend target from Python: compile a mindir function's kernels to
Ascend C and run them on the CPU emulation of the Ascend C API.

    prog = msmlir.ascend.compile(mindir_text)          # or an ir.Module
    outs = prog.call("f", x, w)                        # the host graph, kernels emulated
    prog.kernels["<kernel function>"].source           # the emitted Ascend C
    print(prog.report())                               # UB/L1/L0, DataCopy, cycles
    prog.write_project("out/")                         # CANN op_host/ op_kernel/ layout

The kernels run on an emulation (lib/ascendc_emu, built with g++), not on an
NPU: a one-time AscendEmulationWarning says so. The host graph (kernel calls,
constants, reshapes) is interpreted in Python with numpy.

For the frontend (`set_context(device_target="Ascend")`): compile the graph's
mindir module with `compile(module_text, soc=...)` instead of
msmlir.compiler.compile_mlir and call `prog.call(name, *arrays)`; the results
are numpy arrays in the function's result order.
"""
from __future__ import annotations

import warnings

import numpy as np

from .emulator import AscendEmulationError, EmulatedKernel, build

__all__ = ["compile", "compile_graph", "AscendProgram", "AscendCompiled", "AscendKernel",
           "AscendEmulationError", "AscendEmulationWarning", "compile_kernel"]


class AscendEmulationWarning(UserWarning):
    """Said once per process: Ascend kernels run on msmlir's CPU emulation, not an NPU."""


_WARNED = False


def _say_emulation():
    global _WARNED
    if not _WARNED:
        _WARNED = True
        warnings.warn("msmlir Ascend target: kernels are Ascend C compiled against msmlir's CPU emulation "
                      "of the Ascend C API (lib/ascendc_emu) and run on the host CPU; this is emulation, "
                      "not an NPU", AscendEmulationWarning, stacklevel=3)


class AscendKernel:
    """One kernel: its plan, emitted sources, report and emulated build."""

    def __init__(self, plan, bug: str = ""):
        from msmlir.passes.ascend import emit
        self.plan = plan
        self.name = plan.kernel
        self.function = plan.func
        self.bug = bug
        self.parts = [AscendKernel(p, bug) for p, _, _ in plan.parts] if plan.parts else []
        # a group's sources are its parts' (each emitted once) + the group launch
        self.sources = ({**{k: v for q in self.parts for k, v in q.sources.items()},
                         f"launch/{plan.kernel}_launch.cpp": emit.group_launch_source(plan)}
                        if self.parts else emit.sources(plan, bug))
        self.source = ("\n".join(k.source for k in self.parts) if self.parts
                       else self.sources[f"op_kernel/{plan.kernel}.cpp"])
        self.report = dict(plan.report or {})
        self._emu: EmulatedKernel | None = None

    def build(self) -> EmulatedKernel:
        if self.parts:
            for k in self.parts:
                k.build()
            return None
        if self._emu is None:
            from msmlir.passes.ascend import emit
            p = self.plan
            n_args = len(p.inputs) + len(p.outputs) + 2
            path = build(p.kernel, self.source, emit.emulator_tiling(p), n_args)
            vals = list(emit.tiling_values(p).values())
            self._emu = EmulatedKernel(p.kernel, path, p.shapes["in"], p.shapes["out"], vals,
                                       emit.tiling_values(p)["blockDim"], p.shapes.get("in_dtypes"),
                                       p.shapes.get("out_dtypes"), emit.tiling_values(p).get("workspaceBytes", 32))
        return self._emu

    def run(self, *inputs) -> list[np.ndarray]:
        """Runs the kernel on the emulator; the measured counters land in
        report['measured'] (DataCopy calls and bytes, vector instructions, peak
        bytes per level)."""
        _say_emulation()
        if self.parts:
            return self._run_group(inputs)
        emu = self.build()
        outs = emu.run(*inputs)
        self.report["measured"] = dict(emu.last_stats)
        sites = (self.plan.scalar or {}).get("check_sites")
        if sites is not None:
            _raise_failed_check(self.name, outs.pop(), sites)
        return [np.reshape(o, shp) for o, shp in zip(outs, self.plan.shapes["out"])]

    def _run_group(self, inputs) -> list[np.ndarray]:
        if len(inputs) != len(self.plan.shapes["in"]):
            raise ValueError(f"{self.name}: {len(self.plan.shapes['in'])} inputs expected, got {len(inputs)}")
        env = {("arg", i): a for i, a in enumerate(inputs)}
        measured: dict = {}
        for k, (_, ins, outs) in zip(self.parts, self.plan.parts):
            res = k.run(*[env[x] for x in ins])
            for x, r in zip(outs, res):
                env[x] = r
            for key, v in k.report["measured"].items():
                measured[key] = max(measured.get(key, 0), v) if key.startswith("peak") else measured.get(key, 0) + v
        self.report["measured"] = measured
        return [np.reshape(env[("out", k)], shp) for k, shp in enumerate(self.plan.shapes["out"])]


def _raise_failed_check(kernel: str, status, sites: list) -> None:
    """The status output of a kernel with run-time checks (site, value, bound,
    count; count 0: every check passed) raised as the CPU target raises it
    (runtime/checks.py: IndexError at the op's location)."""
    from ..runtime import checks
    site, value, bound, count = (int(x) for x in status)
    if count > 0:
        raise checks.failure_error(sites, site, value, bound, count)


class AscendProgram:
    """A compiled module: its kernels (by kernel function name) and host graph."""

    def __init__(self, module, kernels: dict):
        self.module = module
        self.kernels = kernels

    def build_all(self, jobs: int = 0) -> None:
        """Builds every kernel for the emulator, `jobs` g++ at a time (0: the CPU
        count, at most 4); builds are cached, so this is cheap the second time."""
        import os
        from concurrent.futures import ThreadPoolExecutor
        leaves = [p for k in self.kernels.values() for p in (k.parts or [k])]
        jobs = jobs or min(4, os.cpu_count() or 1)
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            list(pool.map(lambda k: k.build(), leaves))
        self._built = True

    def report(self) -> str:
        from msmlir.passes.ascend.cost import format_report, step_estimate
        s = step_estimate(k.report for k in self.kernels.values())
        return "\n".join([format_report(k.report) for k in self.kernels.values()] + [
            f"step: {s['kernels']} kernels, {s['launches']} launches, est-cycles={s['cycles']} "
            f"({s['launch_cycles']} of them launches; ~{s['us']} us at the model's clock)"])

    def write_project(self, directory: str) -> list[str]:
        from msmlir.passes.ascend import cost, emit
        plans = [k.plan for k in self.kernels.values()]
        return emit.write_project(plans, directory, {p.kernel: cost.format_report(p.report) for p in plans})

    def call(self, name: str, *args) -> list[np.ndarray]:
        """Runs host function `name` on numpy arrays; kernels run on the emulator."""
        if not getattr(self, "_built", False):
            self.build_all()
        with self.module.context:
            return self._call(name, *args)

    def _call(self, name: str, *args) -> list[np.ndarray]:
        from mlir import ir
        fn = None
        for op in self.module.body.operations:
            op = op.operation
            if op.name == "func.func" and ir.StringAttr(op.attributes["sym_name"]).value == name:
                fn = op
        if fn is None:
            raise KeyError(f"no function @{name} in the module")
        return self._interpret(fn, [np.asarray(a) for a in args])

    def _interpret(self, fn, args):
        from mlir import ir
        block = fn.regions[0].blocks[0]
        env = {a: v for a, v in zip(block.arguments, args)}
        funcs = {ir.StringAttr(op.operation.attributes["sym_name"]).value: op.operation
                 for op in self.module.body.operations if op.operation.name == "func.func"}
        return self._run_block(ir.StringAttr(fn.attributes["sym_name"]).value, block, env, funcs)

    def _run_block(self, fname, block, env, funcs):
        """Runs the host ops of `block` on numpy values; returns the operands
        of its terminator (func.return or scf.yield)."""
        from mlir import ir
        for op in block.operations:
            op = op.operation
            if op.name in ("func.return", "scf.yield"):
                return [env[v] for v in op.operands]
            if op.name == "func.call":
                callee = ir.FlatSymbolRefAttr(op.attributes["callee"]).value
                ins = [env[v] for v in op.operands]
                k = self.kernels.get(callee)
                outs = k.run(*ins) if k is not None else self._interpret(funcs[callee], ins)
                for r, v in zip(op.results, outs):
                    env[r] = v
            elif op.name == "scf.if":           # the loss-scale step's "update only if finite"
                region = op.regions[0] if bool(np.asarray(env[op.operands[0]])) else op.regions[1]
                outs = self._run_block(fname, region.blocks[0], env, funcs) if len(region.blocks) else []
                for r, v in zip(op.results, outs):
                    env[r] = v
            elif op.name == "tensor.extract":
                env[op.results[0]] = np.asarray(env[op.operands[0]])[tuple(int(env[i]) for i in op.operands[1:])]
            elif op.name == "arith.constant" and isinstance(op.results[0].type, ir.IndexType):
                env[op.results[0]] = ir.IntegerAttr(op.attributes["value"]).value
            elif op.name == "arith.constant":
                attr = op.attributes["value"]
                env[op.results[0]] = _dense_value(attr, op.results[0].type)
            elif op.name in ("tensor.expand_shape", "tensor.collapse_shape", "tensor.reshape"):
                shape = ir.RankedTensorType(op.results[0].type).shape
                env[op.results[0]] = np.reshape(env[op.operands[0]], shape)
            else:
                raise AscendEmulationError(f"@{fname}: host op '{op.name}' is not supported by msmlir.ascend's "
                                           "host runner")
        raise AscendEmulationError(f"@{fname}: a block without a terminator")


def _dense_value(attr, typ):
    from mlir import ir
    t = ir.RankedTensorType(typ)
    d = ir.DenseElementsAttr(attr)
    if d.is_splat:
        s = d.get_splat_value()
        v = ir.FloatAttr(s).value if isinstance(s, ir.FloatAttr) else ir.IntegerAttr(s).value
        return np.full(t.shape, v, dtype=np.float32 if isinstance(s, ir.FloatAttr) else np.int32)
    return np.array(d)


def compile(source, *, soc: str = "Ascend910B", graph_kernel: bool = True, tile_elems: int = 0,
            cores: int = 0, fallback: bool = True, bug: str = "") -> AscendProgram:
    """Compiles mindir text (or an ir.Module in msmlir's context) through the
    Ascend pipeline's stages and plans every kernel. `bug` plants an emitter
    bug (tests): 'unaligned-copy', 'missing-deque', 'ub-overflow'. `fallback`:
    kernels the vector/cube planners cannot express run as scalar-loop Ascend
    C kernels (their report says `scalar fallback`); false: an error."""
    from mlir import ir

    from msmlir.compiler import context
    from msmlir.passes import run_pipeline
    from msmlir.passes.ascend.lower_to_ascend import lower_module
    from msmlir.passes.ascend.pipeline import ascend_stages
    from msmlir.passes.ascend.plan import Unsupported
    if bug not in ("", "unaligned-copy", "missing-deque", "ub-overflow"):
        raise ValueError(f"unknown planted bug '{bug}'")
    ctx = context() if isinstance(source, str) else source.context
    with ctx, ir.Location.unknown():
        module = ir.Module.parse(source) if isinstance(source, str) else source
        for _, text in ascend_stages(graph_kernel=graph_kernel):
            run_pipeline(module, f"builtin.module({text})")
        try:
            plans = lower_module(module.operation, soc=soc, cores=cores, tile_elems=tile_elems,
                                 ub_scale=4 if bug == "ub-overflow" else 1, fallback=fallback)
        except Unsupported as e:
            raise AscendEmulationError(f"mskernel-lower-to-ascend: {e}") from None
    kernels = {p.func: AscendKernel(p, bug if bug != "ub-overflow" else "") for p in plans}
    return AscendProgram(module, kernels)


def compile_kernel(source, **kw) -> AscendKernel:
    """The single kernel of `source` (compile() of a one-kernel module)."""
    prog = compile(source, **kw)
    if len(prog.kernels) != 1:
        raise ValueError(f"{len(prog.kernels)} kernels, expected 1")
    return next(iter(prog.kernels.values()))


class _AscendDispatcher:
    """The call path of one function for the jit frontend: runs the host graph
    on the emulator, copies parameter updates (msmlir.writeback) into the
    caller's arrays and returns the other results, as the CPU Dispatcher."""

    def __init__(self, program: AscendProgram, name: str, sig):
        self.program, self.name, self.sig = program, name, sig
        written = {r for r, _ in sig.writeback}
        self.returned = tuple(i for i in range(len(sig.outputs)) if i not in written)

    def __call__(self, arrays):
        outs = self.program.call(self.name, *arrays)
        for r, a in self.sig.writeback:
            np.copyto(arrays[a], np.asarray(outs[r]).astype(arrays[a].dtype, copy=False))
        return tuple(np.asarray(outs[i]) for i in self.returned)


class AscendCompiled:
    """What msmlir.compiler.compile_module returns under
    set_context(device_target="Ascend"): the CompiledModule interface the jit
    frontend uses (`signatures`, `call`, `dispatcher`, `timings`), on a program
    whose kernels run on the Ascend C emulation."""

    def __init__(self, program: AscendProgram, signatures: dict, timings: dict):
        self.program, self.signatures, self.timings = program, signatures, timings
        self._dispatchers: dict = {}

    def dispatcher(self, name: str) -> _AscendDispatcher:
        d = self._dispatchers.get(name)
        if d is None:
            d = self._dispatchers[name] = _AscendDispatcher(self.program, name, self.signatures[name])
        return d

    def call(self, name: str, *args):
        from ..runtime.compiled_module import checked_arguments
        d = self.dispatcher(name)
        return d(checked_arguments(name, args, d.sig))


def compile_graph(module, timings: dict | None = None) -> AscendCompiled:
    """A jitted graph (mindir text or module) compiled for the Ascend target,
    behind the CompiledModule interface the jit frontend uses: what
    set_context(device_target="Ascend") runs."""
    import time
    from msmlir.compiler import public_signatures
    timings = dict(timings or {})
    t = time.perf_counter()
    program = compile(module)
    timings["ascend"] = time.perf_counter() - t
    with program.module.context:
        signatures = public_signatures(program.module, mark_c_interface=False, unmangle=False)
    return AscendCompiled(program, signatures, timings)
