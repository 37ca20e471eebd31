"""The in-process GPU host runtime: a compiled graph run from Python through MLIR's CUDA runtime.

`compile_host(mindir, ...)` compiles with msmlir-gpu-pipeline plus its "host"
stage (passes/gpu/pipelines.py): the kernels as cubins (format=bin, ptxas;
PTX for the driver's JIT when there is no ptxas) embedded in the module's
gpu.binary ops, the host functions on device buffers (msmlir-gpu-device-
buffers: inputs copied to the device once, every intermediate tensor in
device memory across the graph's kernels, outputs copied back once) and
lowered by gpu-to-llvm to calls of MLIR's CUDA runtime (mgpuMemAlloc,
mgpuMemcpy, mgpuLaunchKernel on one stream, ...). `load(prog)` JIT-compiles
that module with MLIR's ExecutionEngine: the gpu.binary ops become embedded
images loaded by a global constructor (mgpuModuleLoad), run by
`initialize()`. The result is a msmlir.runtime CompiledModule: `.call(name,
*arrays)` with numpy in and out, as on the CPU. Device memory comes from a
caching allocator (allocator.py): the host code's mgpuMemAlloc / mgpuMemFree
are bound to it, so a graph called again reuses its buffers.

With `device_io=True` (what set_context(device_target="GPU") compiles:
msmlir.gpu.graph) every argument is a device buffer the caller passes:
GpuModule's dispatcher (msmlir.gpu.resident.ResidentDispatcher) uploads a
host input into a buffer per argument slot, passes a managed-memory result
of an earlier call as it is, and returns results in managed memory, so
graphs and PyNative ops chain on the device and the host's read is the copy.

A jitted graph's Parameters (weights, optimizer state) can stay on the
device across calls: compile_host(..., resident=n) marks the last n inputs
of each public function, and the out-parameters of their updates, as device
buffers the caller owns (msmlir-gpu-device-buffers' `msmlir.gpu_resident`);
`GpuModule.bind_parameters(name, params)` then feeds them from
msmlir.gpu.resident, which uploads a Parameter only when the host changed
it and reads an updated one back only when the host asks for its value.

The runtime library is the wheel's `mlir/lib/libmlir_cuda_runtime.so`,
loaded RTLD_LOCAL (it needs `libcuda.so.1`), its mgpu* entry points bound
explicitly into the engine (msmlir.runtime.linker's rule: nothing resolved
against the whole process). Without a usable CUDA device (no driver library,
no device: device.cuda_status) or without that library, `load` raises
GpuUnavailableError saying why; nothing falls back to the CPU.

Not verified on a GPU yet: this path was built and its compilation (LLVM IR
translation included) tested on a machine without one.
"""
from __future__ import annotations

import ctypes
import os

from mlir.execution_engine import ExecutionEngine

from msmlir.runtime import checks, linker
from msmlir.runtime.compiled_module import CompiledModule

from .compile import MANGLE, GpuProgram, compile_gpu
from .device import GpuUnavailableError, cuda_status
from .ptxas import find_ptxas
from .resident import DeviceRuntime, ResidentDispatcher

# What gpu-to-llvm and the gpu.launch_func / gpu.binary translation call.
MGPU_FUNCTIONS = (
    "mgpuStreamCreate", "mgpuStreamDestroy", "mgpuStreamSynchronize", "mgpuStreamWaitEvent",
    "mgpuEventCreate", "mgpuEventDestroy", "mgpuEventRecord", "mgpuEventSynchronize",
    "mgpuMemAlloc", "mgpuMemFree", "mgpuMemcpy", "mgpuMemset16", "mgpuMemset32",
    "mgpuModuleLoad", "mgpuModuleLoadJIT", "mgpuModuleUnload", "mgpuModuleGetFunction",
    "mgpuLaunchKernel", "mgpuSetDefaultDevice")


def runtime_library_path() -> str:
    """The MLIR wheel's CUDA runtime ($MSMLIR_CUDA_RUNTIME overrides it)."""
    if os.environ.get("MSMLIR_CUDA_RUNTIME"):
        return os.environ["MSMLIR_CUDA_RUNTIME"]
    import mlir
    for p in list(mlir.__path__):
        cand = os.path.join(p, "lib", "libmlir_cuda_runtime.so")
        if os.path.exists(cand):
            return cand
    return "libmlir_cuda_runtime.so"


def compile_host(src, *, resident: int = 0, device_io: bool = False, **options) -> GpuProgram:
    """mindir (text or module) -> the LLVM-dialect module of the in-process
    runtime (stage "host"); `options` are msmlir-gpu-pipeline's; the last
    `resident` inputs of each public function are Parameters kept on the
    device (GpuModule.bind_parameters); `device_io`: every argument is a
    device buffer, results stay on the device (msmlir.gpu.resident: what
    set_context(device_target="GPU") runs). Needs no GPU."""
    options = {k.replace("-", "_"): v for k, v in options.items()}
    options.setdefault("format", "bin" if find_ptxas() is not None else "isa")
    prog = compile_gpu(src, host=True, resident=resident, device_io=device_io, **options)
    prog.resident = {name: resident for name in prog.signatures} if resident else {}
    return prog


def _runtime_library() -> ctypes.CDLL:
    """libmlir_cuda_runtime.so (RTLD_LOCAL), or GpuUnavailableError."""
    path = runtime_library_path()
    try:
        return ctypes.CDLL(path, mode=ctypes.RTLD_LOCAL)
    except OSError as e:
        raise GpuUnavailableError(f"cannot load MLIR's CUDA runtime ({path}: {e})") from None


def _runtime_symbols(lib: ctypes.CDLL) -> dict[str, int]:
    """{mgpu* name: address} of the runtime library."""
    out = {}
    for name in MGPU_FUNCTIONS:
        try:
            out[name] = ctypes.cast(getattr(lib, name), ctypes.c_void_p).value
        except AttributeError:
            continue
    return out


_RUNTIMES: dict[str, DeviceRuntime] = {}


class GpuModule(CompiledModule):
    """A loaded GPU program (CompiledModule's `call` / `dispatcher`); functions
    bound with `bind_parameters` take their non-Parameter inputs only and keep
    the Parameters on the device across calls (msmlir.gpu.resident)."""

    def bind_parameters(self, name: str, params) -> ResidentDispatcher:
        """Function `name`, its last len(params) inputs fed from `params`, kept
        on the device (the program must be compiled with resident=len(params))."""
        if self.resident.get(name, 0) != len(params) and not (self.device_io and not params):
            raise ValueError(f"{name} was compiled with {self.resident.get(name, 0)} "
                             f"device-resident inputs, not {len(params)}")
        d = ResidentDispatcher(self._funcs[name], self.signatures[name], params,
                               self._runtime(), name, self.device_io)
        d.module = self           # keeps the code alive
        self._dispatchers[name] = d
        return d

    def dispatcher(self, name: str):
        """Function `name`'s call path: with `device_io`, a ResidentDispatcher
        without Parameters (device buffers in, managed results out)."""
        d = self._dispatchers.get(name)
        if d is None and self.device_io and name in self.signatures:
            d = self.bind_parameters(name, [])
        return d or super().dispatcher(name)

    def _runtime(self) -> DeviceRuntime:
        return runtime(*self._runtime_lib)


def runtime(path: str, lib: ctypes.CDLL) -> DeviceRuntime:
    """The DeviceRuntime of runtime library `path`: one stream for Python's own
    copies and one caching allocator (allocator.py) per library, shared by
    every program loaded with it (their host code allocates through it too)."""
    if path not in _RUNTIMES:
        _RUNTIMES[path] = DeviceRuntime(lib)
    return _RUNTIMES[path]


def load(prog: GpuProgram, opt_level: int = 3) -> GpuModule:
    """JIT-compiles a compile_host program and loads its kernels on the
    device; raises GpuUnavailableError when this process cannot run it."""
    n, why = cuda_status()
    if n == 0:
        raise GpuUnavailableError(f"cannot run on the GPU: {why}")
    path = runtime_library_path()
    lib = _runtime_library()
    mgpu = _runtime_symbols(lib)
    # the host code's gpu.alloc / gpu.dealloc (every intermediate buffer of a call)
    # through the caching allocator: driver allocations on the first call only
    mgpu.update(runtime(path, lib).allocator.entry_points())
    module = prog.module
    self = GpuModule.__new__(GpuModule)
    self.llvm_ir, self.signatures, self.callbacks = module, prog.signatures, []
    self.library, self._dispatchers = None, {}
    self.resident = dict(prog.resident)
    self.device_io = prog.device_io
    self._runtime_lib = (path, lib)
    with module.context:
        self.check_sites = checks.sites_of(module)
        symbols = linker.resolve(linker.external_functions(module),
                                 {**mgpu, checks.SYMBOL: checks.ADDRESS})
        self.engine = ExecutionEngine(module, opt_level=opt_level)
    for name, address in {**mgpu, **symbols}.items():
        self.engine.raw_register_runtime(name, ctypes.c_void_p(address))
    self.engine.initialize()          # global constructors: mgpuModuleLoad of each kernel
    self._funcs = {name: self.engine.lookup(MANGLE + name) for name in prog.signatures}
    return self


def compile_and_load(src, params=None, **options) -> GpuModule:
    """compile_host + load; with `params` (the trailing inputs of the one public
    function, Parameters) they are bound and kept on the device."""
    if not params:
        return load(compile_host(src, **options))
    compiled = load(compile_host(src, resident=len(params), **options))
    name, = compiled.signatures
    compiled.bind_parameters(name, params)
    return compiled
