"""Parameters kept on the GPU across calls, read back to the host only when the host asks.

Why: a compiled train step takes every Parameter (and optimizer state, which
is Parameters too) as an input and returns its update, written back into the
Parameter (Signature.writeback). Copied both ways on every call, a step moves
the whole model over the bus twice; only the batch and the loss need to.

`bind(compiled, name, params)` gives a dispatcher for function `name` whose
trailing inputs are `params` (the frontend's Lowered.params, in order):

  - each Parameter gets a `Residency`: its value in device memory (and, once
    a graph updates it, a second buffer the next update is written into, then
    the two are swapped: the function never reads and writes one buffer);
  - a call uploads a Parameter only when the device copy is not current
    (first use, or the host touched the value since); updates stay on the
    device and the host array becomes stale;
  - while the device holds the value, reading the Parameter's `_data` copies
    the device copy back first (asnumpy, printing, numpy interop,
    checkpoints, deepcopy: every host access goes through `_data`);
    shape/dtype queries do not copy. Any host access makes the host copy the
    current one (it may be written through the returned array), so the next
    call uploads it again. `to_host(params)` is the explicit sync. The hook
    is a data descriptor `_data` (`HostValue`) installed on the Parameter's
    class while any of its instances is on the device (with shape/dtype/...
    properties that read the host array's metadata, and a `__deepcopy__`
    that syncs first), removed when none is: `type(p)` stays what it was
    (`type(p) is Parameter`), and while no value is on the device the class
    is untouched. Cost while installed: a Python-level descriptor call per
    `_data` read of that class's instances (~0.3 us).

Results stay on the device too (`device_io=True`, what set_context(
device_target="GPU") compiles: every argument of the public functions is a
device buffer the caller owns, msmlir-gpu-device-buffers copies none): each
returned array lives in CUDA managed memory (`managed_array`: mgpuMemAlloc
with host sharing, cuMemAllocManaged), a numpy array whose base is a
`ManagedBuffer`. The next kernel that reads it reads it where it is (no
copy; a PyNative op's result feeding the next op never crosses the bus),
and a host read of it is the sync: the driver migrates the pages the host
touches, after the call's stream synchronization. Inputs that are such
arrays are passed as they are; any other input is uploaded into a buffer of
its own per argument slot (reused across calls). This needs concurrent
managed access (Linux, Pascal and later: an H100 has it, `device.
managed_memory_ok`); without it results are copied to host arrays after
each call, with a warning saying so.

The device side is the program's own runtime library (MLIR's CUDA runtime:
mgpuMemAlloc / mgpuMemcpy on one stream of this module's, synchronized before
the graph's own stream starts). Not verified on a GPU: tested against
test/python/gpu/fake_cuda.c, which counts the copies.
"""
from __future__ import annotations

import ctypes
import functools
import threading
import warnings
import weakref

import numpy as np

from msmlir.runtime.compiled_module import Signature, _descriptor_class, _c_strides, data_address

from .allocator import CachingAllocator

_LOCK = threading.RLock()


class DeviceRuntime:
    """The mgpu* entry points Python calls itself (the runtime library's own)."""

    def __init__(self, lib: ctypes.CDLL):
        self.lib = lib
        self.alloc = lib.mgpuMemAlloc
        self.alloc.restype, self.alloc.argtypes = ctypes.c_void_p, [
            ctypes.c_uint64, ctypes.c_void_p, ctypes.c_bool]
        self.free = lib.mgpuMemFree
        self.free.restype, self.free.argtypes = None, [ctypes.c_void_p, ctypes.c_void_p]
        self.memcpy = lib.mgpuMemcpy
        self.memcpy.restype, self.memcpy.argtypes = None, [
            ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint64, ctypes.c_void_p]
        self.sync = lib.mgpuStreamSynchronize
        self.sync.restype, self.sync.argtypes = None, [ctypes.c_void_p]
        create = lib.mgpuStreamCreate
        create.restype, create.argtypes = ctypes.c_void_p, []
        self.stream = create()     # (the runtime's calls without a context take a stream)
        self._managed = None
        self.allocator = CachingAllocator(self.alloc, self.free, self.stream)
        self.uploads: dict[int, tuple] = {}     # id(array) -> its device copy (cached_upload)
        self.shadow_bytes = 0

    def managed_ok(self) -> bool:
        """Whether results can live in managed memory (device.managed_memory_ok);
        the first time it cannot, a warning says that results are copied."""
        if self._managed is None:
            from .device import managed_memory_ok
            self._managed, why = managed_memory_ok()
            if not self._managed:
                warnings.warn(f"msmlir GPU: {why}; the results of GPU graphs and PyNative ops "
                              "are copied to the host after every call", RuntimeWarning,
                              stacklevel=3)
        return self._managed

    def new_buffer(self, nbytes: int, managed: bool = False) -> int:
        """A device (or managed) block from the caching allocator."""
        p = self.allocator.malloc(max(nbytes, 1), managed)
        if not p:
            raise MemoryError(f"mgpuMemAlloc{' (managed)' if managed else ''} of {nbytes} "
                              "bytes failed")
        return p

    def release(self, ptr: int) -> None:
        """A block back to the caching allocator (kept for reuse)."""
        self.allocator.free(ptr)

    def upload(self, dst: int, host: np.ndarray) -> None:
        self.memcpy(dst, data_address(host), host.nbytes, self.stream)
        self.sync(self.stream)

    def download(self, host: np.ndarray, src: int) -> None:
        self.memcpy(data_address(host), src, host.nbytes, self.stream)
        self.sync(self.stream)

    def cached_upload(self, a: np.ndarray) -> int:
        """The device copy of host input `a` (C-contiguous), uploaded only when
        it may have changed since its last upload; 0 when `a` is not cached
        (the caller uploads it on this call). The rule (numpy arrays carry no
        version counter):
          - a frozen array (`frozen`: read-only, as is everything it views)
            is uploaded on its first use only;
          - a writeable one (a Tensor's storage) keeps a host shadow copy of
            what was uploaded: each call compares the array with it (memcmp,
            a host read, no bus traffic) and uploads only on a difference, so
            any change, through any alias, is seen; shadows take at most
            SHADOW_BYTES in all (arrays beyond that are uploaded every call);
          - keyed by identity (id + a weak reference: the copy is freed with
            the array) and checked against the array's address, shape, dtype.
        (A writeable view made before an array was set read-only, or setting
        it writeable and back between two calls, escapes the rule for frozen
        arrays: setting an array read-only is the promise that it stays.)"""
        key = id(a)
        hit = self.uploads.get(key)
        if hit is not None:
            ref, ptr, addr, meta, shadow = hit
            if ref() is a and addr == data_address(a) and meta == (a.shape, a.dtype):
                if shadow is None and frozen(a):
                    return ptr
                if shadow is not None:
                    if _memcmp(data_address(a), data_address(shadow), a.nbytes) != 0:
                        self.upload(ptr, a)
                        np.copyto(shadow, a.reshape(-1).view(np.uint8))
                    return ptr
            self._drop(key)
        if not a.nbytes:
            return 0
        if frozen(a):
            shadow = None
        elif self.shadow_bytes + a.nbytes <= SHADOW_BYTES:
            shadow = a.reshape(-1).view(np.uint8).copy()
            self.shadow_bytes += a.nbytes
        else:
            return 0
        ptr = self.new_buffer(a.nbytes)
        self.upload(ptr, a)
        self.uploads[key] = (weakref.ref(a, lambda _, k=key: self._drop(k)), ptr,
                             data_address(a), (a.shape, a.dtype), shadow)
        return ptr

    def _drop(self, key: int) -> None:
        hit = self.uploads.pop(key, None)
        if hit is not None:
            self.release(hit[1])
            if hit[4] is not None:
                self.shadow_bytes -= hit[4].nbytes


SHADOW_BYTES = 256 * 1024 * 1024      # host shadow copies of writeable inputs, in all
_memcmp = ctypes.CDLL(None).memcmp
_memcmp.restype, _memcmp.argtypes = ctypes.c_int, [ctypes.c_void_p, ctypes.c_void_p,
                                                   ctypes.c_size_t]


def frozen(a: np.ndarray) -> bool:
    """Whether nothing can write `a`'s memory through `a` or what it views:
    `a` and every ndarray base read-only, the last base (if any) a read-only
    buffer (bytes, a read-only mmap). Such a host input is uploaded once
    with no check after (DeviceRuntime.cached_upload); a writeable one may
    have changed through any alias and is compared with a shadow copy."""
    x = a
    while isinstance(x, np.ndarray):
        if x.flags.writeable:
            return False
        x = x.base
    if x is None:
        return True
    try:
        return memoryview(x).readonly
    except TypeError:
        return False


class ManagedBuffer:
    """A managed-memory allocation a numpy array is a view of (its `base`):
    the array protocol for numpy, `__msmlir_owned__` for Tensor (nobody else
    holds it: adopted without a copy), freed when the last view goes."""
    __slots__ = ("__array_interface__", "ptr", "__weakref__")
    __msmlir_owned__ = True

    def __init__(self, rt: DeviceRuntime, shape, dtype):
        dtype = np.dtype(dtype)
        nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
        ptr = rt.new_buffer(nbytes, managed=True)
        self.ptr = ptr
        self.__array_interface__ = {"shape": tuple(shape), "typestr": dtype.str,
                                    "descr": dtype.descr, "data": (ptr, False), "version": 3}
        _MANAGED[ptr] = nbytes
        weakref.finalize(self, _free_managed, rt, ptr).atexit = False


_MANAGED: dict[int, int] = {}            # managed allocation address -> bytes


def _free_managed(rt: DeviceRuntime, ptr: int) -> None:
    _MANAGED.pop(ptr, None)
    rt.release(ptr)


def managed_array(rt: DeviceRuntime, shape, dtype) -> np.ndarray:
    """A fresh C-contiguous array in managed memory (device and host see it)."""
    return np.asarray(ManagedBuffer(rt, shape, dtype))


def is_managed(a) -> bool:
    """Whether array `a` starts at a managed allocation of ours (a kernel reads it as it is)."""
    return isinstance(a, np.ndarray) and a.size > 0 and data_address(a) in _MANAGED


class Residency:
    """One Parameter's device copy: `cur` holds the value when `on_device`;
    `host_current` says whether the host array equals it."""
    __slots__ = ("rt", "nbytes", "cur", "spare", "on_device", "host_current", "__weakref__")

    def __init__(self, rt: DeviceRuntime, nbytes: int):
        self.rt, self.nbytes = rt, nbytes
        self.cur = rt.new_buffer(nbytes)
        self.spare = 0
        self.on_device = False
        self.host_current = True


_RESIDENT: dict[int, Residency] = {}     # id(Parameter) -> its Residency
_PARAMS = weakref.WeakValueDictionary()   # id(Parameter) -> the Parameter (to_host())
_BUFS: dict[int, list] = {}              # id(Parameter) -> [its buffers], freed with it
_ON_DEVICE: set[int] = set()             # id(Parameter) of those whose value the device holds


def _free(key: int, rt: DeviceRuntime, bufs: list) -> None:
    _RESIDENT.pop(key, None)
    _ON_DEVICE.discard(key)
    _uninstall_idle()
    _BUFS.pop(key, None)
    for b in bufs:
        if b:
            rt.release(b)


def residency(p, rt: DeviceRuntime) -> Residency:
    """`p`'s Residency on runtime `rt` (made, with a device buffer, on first use)."""
    r = _RESIDENT.get(id(p))
    if r is None:
        r = Residency(rt, p.__dict__["_data"].nbytes)
        _RESIDENT[id(p)] = r
        _PARAMS[id(p)] = p
        bufs = _BUFS[id(p)] = [r.cur, 0]
        weakref.finalize(p, _free, id(p), rt, bufs).atexit = False   # (no driver calls at exit)
    elif r.rt is not rt:
        raise RuntimeError(f"Parameter '{getattr(p, 'name', '?')}' is resident on another "
                           "GPU runtime")
    return r


def _resize(p, r: Residency, nbytes: int) -> None:
    """New buffers for a Parameter whose host value changed size (set_data with
    slice_shape, assign_value); only while the host copy is the current one."""
    bufs = _BUFS[id(p)]
    for b in bufs:
        if b:
            r.rt.release(b)
    r.nbytes, r.spare = nbytes, 0
    r.cur = r.rt.new_buffer(nbytes)
    bufs[:] = [r.cur, 0]


def _spare(p, r: Residency) -> int:
    """The buffer the next update of `p` is written into (made on first use)."""
    if not r.spare:
        r.spare = r.rt.new_buffer(r.nbytes)
        _BUFS[id(p)][1] = r.spare
    return r.spare


def to_host(params=None) -> None:
    """Makes the host copy of each Parameter current (the explicit sync); of
    every Parameter with a device copy when `params` is None."""
    for p in (list(_PARAMS.values()) if params is None else params):
        _fetch(p)


def _fetch(p) -> np.ndarray:
    """The host array of `p`, current; the device copy is no longer trusted."""
    with _LOCK:
        host = p.__dict__["_data"]
        r = _RESIDENT.get(id(p))
        if r is not None and r.on_device:
            if not r.host_current:
                if host.nbytes != r.nbytes:
                    raise RuntimeError(f"Parameter '{getattr(p, 'name', '?')}': host array of "
                                       f"{host.nbytes} bytes, device copy of {r.nbytes}")
                r.rt.download(host, r.cur)
                r.host_current = True
            r.on_device = False
            _ON_DEVICE.discard(id(p))
            _uninstall_idle()
        return host


def _mark_on_device(p, r: Residency) -> None:
    r.on_device = True
    _ON_DEVICE.add(id(p))
    _install(type(p))


# -- the hook on the Parameter class: host reads of a device-resident value --------------------

class HostValue:
    """`_data` of a Parameter class some of whose instances are on the device:
    a read of a device-resident one copies the device's value back first
    (_fetch); a write makes the host value the current one."""
    __slots__ = ()

    def __get__(self, obj, cls=None):
        if obj is None:
            return self
        if id(obj) in _ON_DEVICE:
            return _fetch(obj)
        try:
            return obj.__dict__["_data"]
        except KeyError:
            raise AttributeError("_data") from None

    def __set__(self, obj, value):
        with _LOCK:
            r = _RESIDENT.get(id(obj))
            obj.__dict__["_data"] = value
            if r is not None:
                r.on_device = False
                r.host_current = True
                _ON_DEVICE.discard(id(obj))
                _uninstall_idle()


class _Host:
    """The host array alone, for the metadata properties (never copied back:
    shape and dtype do not change while the device holds the value)."""
    __slots__ = ("_data",)

    def __init__(self, data):
        self._data = data


def _meta(fget, self):
    try:
        return fget(_Host(self.__dict__["_data"]))
    except KeyError:
        raise AttributeError("_data") from None


_INSTALLED: dict[type, dict] = {}     # class -> what _install replaced (restored when idle)
_MISSING = object()


def _install(cls: type) -> None:
    """HostValue as `cls._data`, the metadata properties reading the host
    array's, and a deepcopy that syncs first (Tensor's copies the instance
    dict); undone by _uninstall_idle once no instance is on the device, so
    the class costs nothing while none is."""
    if cls in _INSTALLED:
        return
    with _LOCK:
        if cls in _INSTALLED or isinstance(getattr(cls, "_data", None), HostValue):
            return                   # (or inherited from an installed base)
        saved = {}
        for name in ("shape", "dtype", "ndim", "size", "itemsize", "nbytes", "strides"):
            prop = getattr(cls, name, None)
            if isinstance(prop, property):
                saved[name] = cls.__dict__.get(name, _MISSING)
                setattr(cls, name, property(functools.partial(_meta, prop.fget),
                                            doc=prop.__doc__))
        deepcopy = getattr(cls, "__deepcopy__", None)
        if deepcopy is not None:
            def __deepcopy__(self, memo, _base=deepcopy):
                if id(self) in _ON_DEVICE:
                    _fetch(self)
                return _base(self, memo)
            saved["__deepcopy__"] = cls.__dict__.get("__deepcopy__", _MISSING)
            cls.__deepcopy__ = __deepcopy__
        saved["_data"] = cls.__dict__.get("_data", _MISSING)
        cls._data = HostValue()
        _INSTALLED[cls] = saved


def _uninstall_idle() -> None:
    """Restores the classes once no Parameter's value is on the device (the
    instance dict's `_data` is then every Parameter's current value)."""
    with _LOCK:
        if _ON_DEVICE or not _INSTALLED:
            return
        for cls, saved in _INSTALLED.items():
            for name, old in saved.items():
                if old is _MISSING:
                    delattr(cls, name)
                else:
                    setattr(cls, name, old)
        _INSTALLED.clear()


def is_resident(p) -> bool:
    """Whether `p`'s current value is held on the device (its host array stale or not)."""
    r = _RESIDENT.get(id(p))
    return r is not None and r.on_device


# -- the dispatcher ----------------------------------------------------------------------------

class ResidentDispatcher:
    """Function `name` of a loaded GPU program with its trailing inputs bound
    to Parameters kept on the device: called with the other inputs only (as
    msmlir.runtime's Dispatcher: C-contiguous arrays of the signature's shapes,
    checked by `call`); returns the results that are not written back.
    `device_io`: the program takes every argument as a device buffer (the
    module docstring): inputs uploaded unless managed, results in managed
    memory (host arrays, copied back, where the device lacks concurrent
    managed access)."""

    def __init__(self, func, sig: Signature, params, rt: DeviceRuntime, name: str,
                 device_io: bool = False):
        self.func, self.rt, self.name = func, rt, name
        self.device_io = device_io
        self.managed = device_io and rt.managed_ok()
        self.params = list(params)
        n_in = len(sig.inputs)
        self.n_user = n_user = n_in - len(self.params)
        if n_user < 0:
            raise ValueError(f"{name} takes {n_in} inputs, fewer than its "
                             f"{len(self.params)} Parameters")
        for p, (shape, dtype) in zip(self.params, sig.inputs[n_user:]):
            host = p.__dict__["_data"]
            if host.shape != shape or host.dtype != dtype:
                raise TypeError(f"Parameter '{getattr(p, 'name', p)}' is {host.dtype}"
                                f"{list(host.shape)}, but {name} was compiled for "
                                f"{dtype}{list(shape)}")
        self.full = sig
        # what the caller sees: its own inputs; every written-back result of a
        # Parameter stays on the device (written back into a user input: as before)
        self.updates = [(r, a - n_user) for r, a in sig.writeback if a >= n_user]
        self.host_writeback = [(r, a) for r, a in sig.writeback if a < n_user]
        self.sig = Signature(list(sig.inputs[:n_user]), list(sig.outputs),
                             list(self.host_writeback))
        self.writeback = self.host_writeback          # (CompiledModule._call_copying)
        # device_io: a device buffer per user input (uploads) and, without
        # managed memory, per output (downloads), made on first use
        self.in_bufs = [0] * n_user
        self.out_bufs = [0] * len(sig.outputs)
        written = {r for r, _ in sig.writeback}
        self.returned = tuple(j for j in range(len(sig.outputs)) if j not in written)
        self.on_device_outs = {r for r, _ in self.updates}
        descs = [_descriptor_class(len(shape))() for shape, _ in sig.inputs + sig.outputs]
        for d, (shape, _) in zip(descs, sig.inputs + sig.outputs):
            d.offset = 0
            if shape:
                d.shape[:] = shape
                d.strides[:] = _c_strides(shape)
        self.descs = descs
        ptrs = [ctypes.c_void_p(ctypes.addressof(d)) for d in descs]
        self.packed = (ctypes.c_void_p * len(ptrs))(*[ctypes.addressof(p) for p in ptrs])
        self.keep = ptrs
        self.lock = threading.Lock()

    def residencies(self) -> list[Residency]:
        return [residency(p, self.rt) for p in self.params]

    def __call__(self, arrays):
        with self.lock, _LOCK:
            res = self.residencies()
            descs, n_user, n_in = self.descs, self.n_user, len(self.full.inputs)
            for i, a in enumerate(arrays):
                ptr = data_address(a)
                if self.device_io and ptr not in _MANAGED:
                    ptr = self.rt.cached_upload(a)      # a frozen array: uploaded once
                    if not ptr:
                        if not self.in_bufs[i]:
                            self.in_bufs[i] = self.rt.new_buffer(a.nbytes)
                        ptr = self.in_bufs[i]
                        self.rt.upload(ptr, a)
                descs[i].allocated = descs[i].aligned = ptr
            for k, (p, r) in enumerate(zip(self.params, res)):
                if not r.on_device:                   # first use, or the host touched it
                    host = p.__dict__["_data"]
                    shape, dtype = self.full.inputs[n_user + k]
                    if host.shape != shape or host.dtype != dtype:
                        raise TypeError(f"Parameter '{getattr(p, 'name', p)}' is now "
                                        f"{host.dtype}{list(host.shape)}, but {self.name} was "
                                        f"compiled for {dtype}{list(shape)}")
                    if not host.flags.c_contiguous:
                        host = p.__dict__["_data"] = np.ascontiguousarray(host)
                    if host.nbytes != r.nbytes:
                        _resize(p, r, host.nbytes)
                    self.rt.upload(r.cur, host)
                    r.host_current = True
                    _mark_on_device(p, r)
                d = descs[n_user + k]
                d.allocated = d.aligned = r.cur
            outs = []
            for j, (shape, dtype) in enumerate(self.full.outputs):
                if j in self.on_device_outs:
                    outs.append(None)
                    continue
                d = descs[n_in + j]
                if self.managed:
                    o = managed_array(self.rt, shape, dtype)
                    ptr = o.base.ptr
                elif self.device_io:
                    o = np.empty(shape, dtype)
                    if not self.out_bufs[j]:
                        self.out_bufs[j] = self.rt.new_buffer(o.nbytes)
                    ptr = self.out_bufs[j]
                else:
                    o = np.empty(shape, dtype)
                    ptr = data_address(o)
                outs.append(o)
                d.allocated = d.aligned = ptr
            for r_idx, k in self.updates:
                d = descs[n_in + r_idx]
                d.allocated = d.aligned = _spare(self.params[k], res[k])
            self.func(self.packed)
            if self.device_io and not self.managed:     # (copies: said once, on_unmanaged)
                for j in self.returned + tuple(r for r, _ in self.host_writeback):
                    if outs[j] is not None and outs[j].nbytes:
                        self.rt.download(outs[j], self.out_bufs[j])
            for r_idx, k in self.updates:               # the update is the current value now
                r = res[k]
                r.cur, r.spare = r.spare, r.cur
                r.host_current = False
                _mark_on_device(self.params[k], r)
            for r_idx, a in self.host_writeback:
                np.copyto(arrays[a], outs[r_idx])
            return tuple(outs[j] for j in self.returned)
