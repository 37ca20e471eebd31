"""LLVM dialect -> object code in this process, on any thread.

Why: the LLVM tools (mlir-translate | opt | llc) cost ~45 ms of start-up per
group of functions (mlir-translate alone relocates libMLIR.so: ~30 ms), and
the ExecutionEngine holds the GIL while it compiles. The libraries the MLIR
bindings already loaded have C entry points for all of it:
`mlirTranslateModuleToLLVMIR` (libMLIRPythonCAPI.so) and LLVM's C API
(libLLVM.so: pass builder, target machine, object emission). Called through
ctypes they release the GIL, so several threads compile several modules at
once, each in its own LLVMContext (what LLVM supports for threads).

`translate` turns an LLVM-dialect module into an LLVM module (call it from
one thread at a time per MLIR context: the translation reads the MLIR
module); `Target(level).emit` runs a pass pipeline and the code generator on
it for the host CPU (triple, CPU and its features as `llc -mcpu=native`,
position-independent) and returns the object file's bytes; it may run on
any thread. Both raise CodegenError.
"""
from __future__ import annotations

import ctypes
import platform
import threading
import weakref

from mlir import ir

from .._native import MLIR_LIB_DIR

__all__ = ["CodegenError", "available", "translate", "Target", "emit_object", "assemble",
           "LLVMModule"]

_c = ctypes
_P = ctypes.c_void_p


class CodegenError(RuntimeError):
    """Translation, a pass pipeline or code generation failed."""


# (restype, argtypes) of each C function used
_SIGNATURES = {
    "mlirRegisterAllLLVMTranslations": (None, [_P]),
    "mlirTranslateModuleToLLVMIR": (_P, [_P, _P]),
    "LLVMContextCreate": (_P, []),
    "LLVMModuleCreateWithNameInContext": (_P, [_c.c_char_p, _P]),
    "LLVMSetModuleInlineAsm2": (None, [_P, _c.c_char_p, _c.c_size_t]),
    "LLVMContextDispose": (None, [_P]),
    "LLVMContextSetDiagnosticHandler": (None, [_P, _P, _P]),
    "LLVMGetDiagInfoSeverity": (_c.c_int, [_P]),
    "LLVMGetDiagInfoDescription": (_P, [_P]),
    "LLVMDisposeModule": (None, [_P]),
    "LLVMDisposeMessage": (None, [_P]),
    "LLVMGetHostCPUName": (_P, []),
    "LLVMGetHostCPUFeatures": (_P, []),
    "LLVMGetTargetFromTriple": (_c.c_int, [_c.c_char_p, _c.POINTER(_P), _c.POINTER(_P)]),
    "LLVMCreateTargetMachine": (_P, [_P, _c.c_char_p, _c.c_char_p, _c.c_char_p,
                                     _c.c_int, _c.c_int, _c.c_int]),
    "LLVMDisposeTargetMachine": (None, [_P]),
    "LLVMCreateTargetDataLayout": (_P, [_P]),
    "LLVMDisposeTargetData": (None, [_P]),
    "LLVMSetModuleDataLayout": (None, [_P, _P]),
    "LLVMSetTarget": (None, [_P, _c.c_char_p]),
    "LLVMCreatePassBuilderOptions": (_P, []),
    "LLVMDisposePassBuilderOptions": (None, [_P]),
    "LLVMRunPasses": (_P, [_P, _c.c_char_p, _P, _P]),
    "LLVMGetErrorMessage": (_P, [_P]),
    "LLVMDisposeErrorMessage": (None, [_P]),
    "LLVMTargetMachineEmitToMemoryBuffer": (_c.c_int, [_P, _P, _c.c_int, _c.POINTER(_P),
                                                       _c.POINTER(_P)]),
    "LLVMGetBufferStart": (_P, [_P]),
    "LLVMGetBufferSize": (_c.c_size_t, [_P]),
    "LLVMDisposeMemoryBuffer": (None, [_P]),
}
_TARGETS = {"x86_64": "X86", "aarch64": "AArch64"}
_RELOC_PIC, _CODE_MODEL_DEFAULT, _OBJECT_FILE = 2, 0, 1


class _Api:
    """The C functions, the host target and its CPU (found once)."""

    def __init__(self) -> None:
        machine = platform.machine().lower()
        machine = {"amd64": "x86_64", "arm64": "aarch64"}.get(machine, machine)
        if machine not in _TARGETS:
            raise CodegenError(f"no LLVM target for {machine}")
        # already loaded by the bindings: this only gets a handle (RTLD_LOCAL);
        # LLVM's C API is found through its dependency libLLVM.so
        lib = ctypes.CDLL(str(MLIR_LIB_DIR / "libMLIRPythonCAPI.so"), mode=ctypes.RTLD_LOCAL)
        init = [f"LLVMInitialize{_TARGETS[machine]}{p}"
                for p in ("TargetInfo", "Target", "TargetMC", "AsmPrinter", "AsmParser")]
        try:
            for name, (res, args) in _SIGNATURES.items():
                fn = getattr(lib, name)
                fn.restype, fn.argtypes = res, args
                setattr(self, name, fn)
            for name in init:
                fn = getattr(lib, name)
                fn.restype, fn.argtypes = None, []
                fn()
        except AttributeError as e:
            raise CodegenError(f"the MLIR/LLVM libraries lack a C function: {e}") from None
        self.triple = f"{machine}-unknown-linux-gnu".encode()
        self.cpu = self.message(self.LLVMGetHostCPUName())
        self.features = self.message(self.LLVMGetHostCPUFeatures())
        target, err = _P(), _P()
        if self.LLVMGetTargetFromTriple(self.triple, _c.byref(target), _c.byref(err)):
            raise CodegenError(self.message(err.value).decode(errors="replace"))
        self.target = target
        self.contexts: "weakref.WeakSet" = weakref.WeakSet()

    def message(self, p) -> bytes:
        """An LLVM-allocated C string's bytes (the string is freed)."""
        if not p:
            return b""
        s = ctypes.string_at(p)
        self.LLVMDisposeMessage(p)
        return s


_LOCK = threading.Lock()
_STATE: dict = {}


def _api() -> _Api:
    with _LOCK:
        if "api" not in _STATE:
            try:
                _STATE["api"] = _Api()
            except (OSError, CodegenError) as e:
                _STATE["api"] = e
        api = _STATE["api"]
    if isinstance(api, Exception):
        raise CodegenError(str(api))
    return api


def available() -> str:
    """"" when in-process code generation works here, else why not."""
    try:
        _api()
    except CodegenError as e:
        return str(e)
    return ""


_capsule = ctypes.pythonapi.PyCapsule_GetPointer
_capsule.restype = ctypes.c_void_p
_capsule.argtypes = [ctypes.py_object, ctypes.c_char_p]


_DIAGNOSTIC_HANDLER = ctypes.CFUNCTYPE(None, _P, _P)
_ERRORS: dict[int, list[str]] = {}      # LLVMContext -> its error diagnostics
_DS_ERROR = 0


@_DIAGNOSTIC_HANDLER
def _on_diagnostic(info, context) -> None:
    """LLVM's diagnostics of a context of ours: errors are kept (and raised
    by Target.emit). Without a handler LLVM prints an error and exits the
    process (an inline-asm error, a backend's "unsupported")."""
    api = _STATE.get("api")
    if not isinstance(api, _Api):
        return
    if api.LLVMGetDiagInfoSeverity(info) == _DS_ERROR:
        text = api.message(api.LLVMGetDiagInfoDescription(info)).decode(errors="replace")
        _ERRORS.setdefault(context or 0, []).append(text)


def _new_context(api: "_Api") -> int:
    ctx = api.LLVMContextCreate()
    api.LLVMContextSetDiagnosticHandler(ctx, ctypes.cast(_on_diagnostic, _P), ctx)
    return ctx


class LLVMModule:
    """An LLVM module in an LLVMContext of its own (both freed together,
    by Target.emit or `dispose`)."""

    def __init__(self, context: int, module: int) -> None:
        self.context, self.module = context, module

    def errors(self) -> list[str]:
        """The error diagnostics LLVM reported for this module so far."""
        return list(_ERRORS.get(self.context, ()))

    def dispose(self) -> None:
        if self.context:
            api = _api()
            api.LLVMDisposeModule(self.module)
            api.LLVMContextDispose(self.context)
            _ERRORS.pop(self.context, None)
            self.context = self.module = None

    def __del__(self) -> None:
        try:
            self.dispose()
        except Exception:  # noqa: BLE001  (interpreter shutdown)
            pass


def translate(module: ir.Module) -> LLVMModule:
    """The LLVM IR of an LLVM-dialect module (upstream's translation, as
    `mlir-translate --mlir-to-llvmir`)."""
    api = _api()
    ctx = module.context
    with _LOCK:
        if ctx not in api.contexts:
            api.mlirRegisterAllLLVMTranslations(_capsule(ctx._CAPIPtr, b"mlir.ir.Context._CAPIPtr"))
            api.contexts.add(ctx)
    llvm_ctx = _new_context(api)
    mod = api.mlirTranslateModuleToLLVMIR(
        _capsule(module.operation._CAPIPtr, b"mlir.ir.Operation._CAPIPtr"), llvm_ctx)
    if not mod:
        api.LLVMContextDispose(llvm_ctx)
        raise CodegenError("the translation to LLVM IR failed (see the diagnostics above)")
    return LLVMModule(llvm_ctx, mod)


class Target:
    """The host's code generator at one level (0-3, as `llc -O<level>`): an
    LLVM TargetMachine for the host CPU (triple, CPU name and features as
    `-mcpu=native`), position-independent. One thread at a time may use it;
    reusing it for several modules saves building the subtarget (~1 ms
    each). `close` frees it."""

    def __init__(self, level: int) -> None:
        api = self.api = _api()
        self.level = max(0, min(int(level), 3))
        self.tm = api.LLVMCreateTargetMachine(api.target, api.triple, api.cpu, api.features,
                                              self.level, _RELOC_PIC, _CODE_MODEL_DEFAULT)
        if not self.tm:
            raise CodegenError("no target machine for the host")

    def emit(self, m: LLVMModule, passes: str) -> bytes:
        """Runs the new pass manager's pipeline `passes` ("" none; as
        `opt -passes=...`, "default<O1>" is `opt -O1`) on `m`, then the code
        generator; returns the object file. Consumes `m`."""
        api = self.api
        try:
            api.LLVMSetTarget(m.module, api.triple)
            layout = api.LLVMCreateTargetDataLayout(self.tm)
            api.LLVMSetModuleDataLayout(m.module, layout)
            api.LLVMDisposeTargetData(layout)
            if passes:
                options = api.LLVMCreatePassBuilderOptions()
                err = api.LLVMRunPasses(m.module, passes.encode(), self.tm, options)
                api.LLVMDisposePassBuilderOptions(options)
                if err:
                    text = api.LLVMGetErrorMessage(err)
                    msg = ctypes.string_at(text).decode(errors="replace")
                    api.LLVMDisposeErrorMessage(text)
                    raise CodegenError(f"LLVM passes '{passes}': {msg}")
            err, buf = _P(), _P()
            if api.LLVMTargetMachineEmitToMemoryBuffer(self.tm, m.module, _OBJECT_FILE,
                                                       _c.byref(err), _c.byref(buf)):
                raise CodegenError("code generation failed: "
                                   + api.message(err.value).decode(errors="replace"))
            try:
                if m.errors():
                    raise CodegenError("code generation failed: " + "; ".join(m.errors())[:2000])
                return ctypes.string_at(api.LLVMGetBufferStart(buf), api.LLVMGetBufferSize(buf))
            finally:
                api.LLVMDisposeMemoryBuffer(buf)
        finally:
            m.dispose()

    def close(self) -> None:
        if self.tm:
            self.api.LLVMDisposeTargetMachine(self.tm)
            self.tm = None

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001  (interpreter shutdown)
            pass


def emit_object(m: LLVMModule, passes: str, level: int) -> bytes:
    """`Target(level).emit(m, passes)` with a target machine of its own."""
    target = Target(level)
    try:
        return target.emit(m, passes)
    finally:
        target.close()


def assemble(asm: str) -> bytes:
    """The object file of assembly text `asm` (GNU syntax of the host, as
    `as` reads it): module-level inline assembly of an empty LLVM module,
    through LLVM's integrated assembler (no `as` process)."""
    api = _api()
    llvm_ctx = _new_context(api)
    mod = api.LLVMModuleCreateWithNameInContext(b"asm", llvm_ctx)
    data = asm.encode()
    api.LLVMSetModuleInlineAsm2(mod, data, len(data))
    return emit_object(LLVMModule(llvm_ctx, mod), "", 0)
