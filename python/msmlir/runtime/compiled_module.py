"""A compiled module loaded in the process: native code called on numpy arrays.

The runtime side of `msmlir.compiler`: `CompiledModule` JIT-compiles a lowered
module with MLIR's ExecutionEngine (every external symbol bound explicitly,
linker.py, including the host callbacks), and `call` passes numpy arrays in
and out through memref descriptors without copies, copies parameter updates
back into the caller's arrays (write-back), re-raises the errors of host
callbacks (host_callbacks.py) and raises failed run-time checks (checks.py).
"""
from __future__ import annotations

import ctypes
import sys
import weakref
from dataclasses import dataclass, field

import numpy as np
from mlir import ir
from mlir.execution_engine import ExecutionEngine

from . import allocator, checks, host_callbacks, linker

__all__ = ["CompiledModule", "Dispatcher", "Signature", "data_address", "tensor_signature", "numpy_dtype", "host_callbacks_of"]

_NP_OF = {
    "f16": np.float16, "f32": np.float32, "f64": np.float64,
    "i1": np.bool_, "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
}


def numpy_dtype(t: ir.Type) -> np.dtype:
    key = str(t)
    if key not in _NP_OF:
        raise TypeError(f"no numpy dtype for MLIR element type {key} on the CPU runtime")
    return np.dtype(_NP_OF[key])


@dataclass
class Signature:
    inputs: list[tuple[tuple[int, ...], np.dtype]]
    outputs: list[tuple[tuple[int, ...], np.dtype]]
    # (result index, argument index): results copied into the caller's
    # argument arrays after the call (parameter updates, see
    # passes/graph/functionalize_assign.py); they are not returned.
    writeback: list[tuple[int, int]]
    # the write-back pairs the compiled code may compute in the argument's own
    # array (passes/fusion/inplace_writeback.py): the runtime passes that
    # array as the out-parameter and copies nothing
    inplace: list[tuple[int, int]] = field(default_factory=list)


def tensor_signature(t: ir.Type) -> tuple[tuple[int, ...], np.dtype]:
    rt = ir.RankedTensorType(t)
    if not rt.has_static_shape:
        raise TypeError(f"the CPU runtime needs static shapes, got {t}")
    return tuple(rt.shape), numpy_dtype(rt.element_type)


_DESC_CLASSES: dict = {}


def _descriptor_class(ndim: int):
    """The ctypes struct of a rank-`ndim` memref descriptor; the two pointers
    are plain c_void_p (same layout as typed pointers, cheaper to set)."""
    cls = _DESC_CLASSES.get(ndim)
    if cls is None:
        fields = [("allocated", ctypes.c_void_p), ("aligned", ctypes.c_void_p),
                  ("offset", ctypes.c_longlong)]
        if ndim:
            fields += [("shape", ctypes.c_longlong * ndim), ("strides", ctypes.c_longlong * ndim)]
        cls = _DESC_CLASSES[ndim] = type("MemRefDescriptor", (ctypes.Structure,),
                                         {"_fields_": fields})
    return cls


def _c_strides(shape) -> list[int]:
    out, acc = [], 1
    for d in reversed(shape):
        out.append(acc)
        acc *= max(d, 1)
    return out[::-1]


_ANY_BYTES = ctypes.c_char * 0


def data_address(arr: np.ndarray) -> int:
    """Address of a C-contiguous array's first element (no `arr.ctypes`, 3x faster)."""
    try:
        return ctypes.addressof(_ANY_BYTES.from_buffer(arr))
    except (TypeError, ValueError, BufferError):   # read-only: the slower way
        return arr.ctypes.data


def _descriptor(arr: np.ndarray):
    """A memref descriptor viewing the C-contiguous `arr` (no copy)."""
    d = _descriptor_class(arr.ndim)()
    d.allocated = d.aligned = data_address(arr)
    d.offset = 0
    if arr.ndim:
        d.shape[:] = arr.shape
        d.strides[:] = [s // arr.itemsize for s in arr.strides]
    return d


def host_callbacks_of(module: ir.Module) -> list:
    """The registered JIT Fallback callbacks the module's mindir.host_callback ops call."""
    found = []
    for name, _, loc in host_callbacks.callbacks_in(module):
        cb = host_callbacks.lookup(name)
        if cb is None:
            raise host_callbacks.HostCallbackError(
                f"{loc}: host callback @{name} is not registered in this process (a module "
                f"with JIT Fallback callbacks only runs in the process that built it)")
        if cb not in found:
            found.append(cb)
    return found


class _Frame:
    """The argument block of one call in flight: a descriptor per input and
    output, the packed `void**` the `_mlir_ciface` wrapper takes, the output
    arrays, and the last input arrays seen (weakly) with their addresses."""
    __slots__ = ("packed", "ins", "outs", "out_descs", "seen", "keep", "aliased")


class Dispatcher:
    """The steady-state call path of one compiled function.

    Everything that depends only on the signature is built once: descriptor
    structs with their (static) shapes and strides, the packed argument array.
    A call sets the inputs' data addresses (skipped when the same array object
    comes again), runs the code and returns the outputs. Output arrays are
    reused across calls when nobody else holds them: written-back results never
    leave the runtime, and a returned result whose caller has dropped it (its
    reference count is back to the frame's own) is overwritten by the next call
    instead of allocating a new array. A result the caller still holds, or any
    view of it, is never written again. Frames are taken from a free list, so
    concurrent calls from several threads each get their own."""

    def __init__(self, module: "CompiledModule", name: str, func, sig: Signature):
        self.module = module     # keeps the code alive
        self.name = name
        self.func = func
        self.sig = sig
        self.n_in = len(sig.inputs)
        written = {r for r, _ in sig.writeback}
        self.returned = tuple(i for i in range(len(sig.outputs)) if i not in written)
        self.writeback = tuple(sig.writeback)
        # in place only when nothing else observes a half-updated parameter:
        # no host callbacks, no run-time checks that raise after the run
        inplace = () if (module.callbacks or module.check_sites) else tuple(sig.inplace)
        self.inplace = tuple(p for p in inplace if p in self.writeback)
        self.copied = tuple(p for p in self.writeback if p not in self.inplace)
        self.callbacks = bool(module.callbacks)
        self.check_sites = module.check_sites
        self._frames: list[_Frame] = []

    def _frame(self) -> _Frame:
        f = _Frame()
        sig = self.sig
        descs = []
        for shape, _ in sig.inputs:
            d = _descriptor_class(len(shape))()
            if shape:
                d.shape[:] = shape
                d.strides[:] = _c_strides(shape)
            descs.append(d)
        f.outs = [np.empty(shape, dtype) for shape, dtype in sig.outputs]
        f.out_descs = [_descriptor(o) for o in f.outs]
        f.ins = descs
        f.seen = [None] * self.n_in
        f.aliased = False
        ptrs = [ctypes.c_void_p(ctypes.addressof(d)) for d in descs + f.out_descs]
        f.packed = (ctypes.c_void_p * len(ptrs))(*[ctypes.addressof(p) for p in ptrs])
        f.keep = ptrs
        return f

    def __call__(self, arrays):
        """Runs the function on C-contiguous arrays of the signature's shapes and
        dtypes (not checked here: `CompiledModule.call` checks); returns the
        results that are not written back, as a tuple."""
        frames = self._frames
        f = frames.pop() if frames else self._frame()
        try:
            seen, ins = f.seen, f.ins
            changed = []
            for i, a in enumerate(arrays):
                s = seen[i]
                if s is None or s() is not a:
                    d = ins[i]
                    d.allocated = d.aligned = data_address(a)
                    seen[i] = weakref.ref(a)
                    changed.append(i)
            if changed and self.inplace:
                self._alias(f, arrays, changed)
            outs = f.outs
            for j in self.returned:
                if sys.getrefcount(outs[j]) > 2:      # the caller still has the last result
                    shape, dtype = self.sig.outputs[j]
                    o = outs[j] = np.empty(shape, dtype)
                    d = f.out_descs[j]
                    d.allocated = d.aligned = data_address(o)
            if self.callbacks:
                host_callbacks.take_errors()
            if self.check_sites:
                checks.clear()
            self.func(f.packed)
            if self.callbacks:  # errors raised inside host callbacks, re-raised here
                errors = host_callbacks.take_errors()
                if errors:
                    raise errors[0]
            if self.check_sites:  # failed run-time checks (checks.py)
                checks.raise_failures(self.check_sites)
            for r, a in (self.copied if f.aliased else self.writeback):
                np.copyto(arrays[a], outs[r])
            return tuple([outs[j] for j in self.returned])
        finally:
            frames.append(f)

    def _alias(self, f: _Frame, arrays, changed) -> None:
        """Points each in-place result's out-parameter at its argument's array
        (when the inputs change), unless that array overlaps another input:
        then this frame computes into its own arrays and copies back. When
        only other inputs changed (a new batch each step), only they are
        checked against the targets: O(changed x targets), not O(inputs x
        targets) per step."""
        targets = [a for _, a in self.inplace]
        if f.aliased and not set(changed).intersection(targets):
            if not any(np.may_share_memory(arrays[i], arrays[a]) for i in changed for a in targets):
                return
        ok = all(arrays[a].flags.writeable for a in targets) and all(
            j == a or not np.may_share_memory(arrays[a], b)
            for a in targets for j, b in enumerate(arrays))
        for r, a in self.inplace:
            d = f.out_descs[r]
            d.allocated = d.aligned = data_address(arrays[a] if ok else f.outs[r])
        f.aliased = ok


def checked_arguments(name: str, args, sig) -> list:
    """`args` as numpy arrays, checked against the signature's inputs (the
    `call` path of every compiled-module kind: CPU, Ascend, sharded)."""
    if len(args) != len(sig.inputs):
        raise TypeError(f"{name} takes {len(sig.inputs)} arguments, got {len(args)}")
    arrays = []
    for i, (a, (shape, dtype)) in enumerate(zip(args, sig.inputs)):
        a = np.asarray(a)
        if a.shape != shape or a.dtype != dtype:
            raise TypeError(f"argument {i} of {name}: expected {dtype}{list(shape)}, "
                            f"got {a.dtype}{list(a.shape)}")
        arrays.append(a)
    return arrays


class CompiledModule:
    """Native code for the public functions of a lowered module: `signatures`
    maps each (unmangled) name to its `Signature`; `callbacks` are the host
    callbacks the module calls."""

    def __init__(self, module: ir.Module, signatures: dict, callbacks: list, mangle: str,
                 opt_level: int = 3, *, pic: bool = False):
        allocator.tune_malloc()      # the runtime starts with the first compiled module
        self.llvm_ir = module
        self.signatures = signatures
        self.callbacks = callbacks
        self.check_sites = checks.sites_of(module)
        self.library = None
        with module.context:
            provided = {cb.name: cb.address for cb in callbacks}
            provided[checks.SYMBOL] = checks.ADDRESS
            symbols = linker.resolve(linker.external_functions(module), provided)
            # pic: position-independent code, so that the object can be linked into a
            # shared library for the compile cache (runtime/shared_object.py)
            self.engine = ExecutionEngine(module, opt_level=opt_level, enable_pic=pic)
        for name, address in symbols.items():
            self.engine.raw_register_runtime(name, ctypes.c_void_p(address))
        self._funcs = {name: self.engine.lookup(mangle + name) for name in signatures}
        self._dispatchers: dict[str, Dispatcher] = {}

    @classmethod
    def from_library(cls, library, signatures: dict, check_sites: list,
                     mangle: str) -> "CompiledModule":
        """A module loaded from the compile cache: `library` is the dlopened
        shared library (shared_object.load) of a module compiled before with
        these signatures (no host callbacks: such modules are not cached)."""
        from .shared_object import function_address
        allocator.tune_malloc()
        self = cls.__new__(cls)
        self.llvm_ir = None
        self.engine = None
        self.library = library
        self.signatures = signatures
        self.callbacks = []
        self.check_sites = check_sites
        proto = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
        self._funcs = {name: proto(function_address(library, f"_mlir__mlir_ciface_{mangle}{name}"))
                       for name in signatures}
        self._dispatchers = {}
        return self

    def dispatcher(self, name: str) -> Dispatcher:
        """The fast call path of function `name` (see `Dispatcher`)."""
        d = self._dispatchers.get(name)
        if d is None:
            if name not in self.signatures:
                raise KeyError(f"no public function '{name}' in the compiled module "
                               f"(have: {', '.join(self.signatures)})")
            d = self._dispatchers[name] = Dispatcher(self, name, self._funcs[name],
                                                     self.signatures[name])
        return d

    def call(self, name: str, *args) -> tuple[np.ndarray, ...]:
        """Runs function `name` on numpy arrays; returns its results (those that
        are not written back into the arguments)."""
        d = self._dispatchers.get(name) or self.dispatcher(name)
        inputs = checked_arguments(name, args, d.sig)
        if not all(a.flags.c_contiguous for a in inputs):
            return self._call_copying(d, inputs)
        return d(inputs)

    @staticmethod
    def _call_copying(d: Dispatcher, inputs: list) -> tuple:
        """Inputs that are not C-contiguous run on contiguous copies; written-back
        results then go to the caller's arrays, not to the copies."""
        contiguous = [np.asarray(a, order="C") for a in inputs]
        moved = [(a, c) for a, c in zip(inputs, contiguous) if a is not c]
        out = d(contiguous)
        if moved and d.writeback:
            targets = {a for _, a in d.writeback}
            for i, (a, c) in enumerate(zip(inputs, contiguous)):
                if a is not c and i in targets:
                    np.copyto(a, c)
        return out
