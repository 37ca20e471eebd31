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
  - while the device holds the value, the Parameter's class is a subclass of
    its own (`_resident_class`) whose `_data` reads the device copy back first
    (asnumpy, printing, numpy interop, checkpoints, deepcopy: every host access
    goes through `_data`); shape/dtype queries do not copy. Any host access
    makes the host copy the current one (it may be written through the
    returned array), so the next call uploads it again. `to_host(params)` is
    the explicit sync. The class is restored once the host copy is current.

The device side is the program's own runtime library (MLIR's CUDA runtime:
mgpuMemAlloc / mgpuMemcpy on one stream of this module's, synchronized before
the graph's own stream starts). Not verified on a GPU: tested against
test/python/gpu/fake_cuda.c, which counts the copies.
"""
from __future__ import annotations

import ctypes
import functools
import threading
import types
import weakref

import numpy as np

from msmlir.runtime.compiled_module import Signature, _descriptor_class, _c_strides, data_address

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

    def new_buffer(self, nbytes: int) -> int:
        p = self.alloc(max(nbytes, 1), self.stream, False)
        if not p:
            raise MemoryError(f"mgpuMemAlloc of {nbytes} bytes failed")
        return p

    def upload(self, dst: int, host: np.ndarray) -> None:
        self.memcpy(dst, data_address(host), host.nbytes, self.stream)
        self.sync(self.stream)

    def download(self, host: np.ndarray, src: int) -> None:
        self.memcpy(data_address(host), src, host.nbytes, self.stream)
        self.sync(self.stream)


class Residency:
    """One Parameter's device copy: `cur` holds the value when `on_device`;
    `host_current` says whether the host array equals it."""
    __slots__ = ("rt", "nbytes", "cur", "spare", "on_device", "host_current", "base",
                 "__weakref__")

    def __init__(self, rt: DeviceRuntime, nbytes: int, base: type):
        self.rt, self.nbytes, self.base = rt, nbytes, base
        self.cur = rt.new_buffer(nbytes)
        self.spare = 0
        self.on_device = False
        self.host_current = True


_RESIDENT: dict[int, Residency] = {}     # id(Parameter) -> its Residency
_BUFS: dict[int, list] = {}              # id(Parameter) -> [its buffers], freed with it


def _free(key: int, rt: DeviceRuntime, bufs: list) -> None:
    _RESIDENT.pop(key, None)
    _BUFS.pop(key, None)
    for b in bufs:
        if b:
            rt.free(b, rt.stream)


def residency(p, rt: DeviceRuntime) -> Residency:
    """`p`'s Residency on runtime `rt` (made, with a device buffer, on first use)."""
    r = _RESIDENT.get(id(p))
    if r is None:
        r = Residency(rt, p.__dict__["_data"].nbytes, type(p))
        _RESIDENT[id(p)] = r
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
            r.rt.free(b, r.rt.stream)
    r.nbytes, r.spare = nbytes, 0
    r.cur = r.rt.new_buffer(nbytes)
    bufs[:] = [r.cur, 0]


def _spare(p, r: Residency) -> int:
    """The buffer the next update of `p` is written into (made on first use)."""
    if not r.spare:
        r.spare = r.rt.new_buffer(r.nbytes)
        _BUFS[id(p)][1] = r.spare
    return r.spare


def to_host(params) -> None:
    """Makes the host copy of each Parameter current (the explicit sync)."""
    for p in params:
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
            p.__class__ = r.base
        return host


def _mark_on_device(p, r: Residency) -> None:
    r.on_device = True
    if type(p) is r.base:
        p.__class__ = _resident_class(r.base)


# -- the Parameter subclass of a device-resident value ---------------------------------------

def _get_data(self):
    return _fetch(self)


def _set_data(self, value):
    with _LOCK:
        r = _RESIDENT.get(id(self))
        if r is not None:
            r.on_device = False
            r.host_current = True
            self.__class__ = r.base
        self.__dict__["_data"] = value


def _meta(fget, self):
    """A shape/dtype property of the base class, on the (stale) host array:
    those never change while the device holds the value."""
    return fget(types.SimpleNamespace(_data=self.__dict__["_data"]))


def _deepcopy(self, memo):
    _fetch(self)
    return self.__deepcopy__(memo)


def _reduce_ex(self, protocol):
    _fetch(self)
    return self.__reduce_ex__(protocol)


@functools.lru_cache(maxsize=None)
def _resident_class(base: type) -> type:
    ns = {"_data": property(_get_data, _set_data), "__deepcopy__": _deepcopy,
          "__reduce_ex__": _reduce_ex, "__module__": base.__module__,
          "__qualname__": base.__qualname__,
          "__doc__": f"{base.__name__} whose current value is in GPU memory "
                     "(msmlir.gpu.resident)"}
    for name in ("shape", "dtype", "ndim", "size", "itemsize", "nbytes", "strides"):
        prop = getattr(base, name, None)
        if isinstance(prop, property):
            ns[name] = property(functools.partial(_meta, prop.fget))
    return type(base.__name__, (base,), ns)


def is_resident(p) -> bool:
    """Whether `p`'s current value is held on the device (its host array stale or not)."""
    r = _RESIDENT.get(id(p))
    return r is not None and r.on_device


# -- the dispatcher ----------------------------------------------------------------------------

class ResidentDispatcher:
    """Function `name` of a loaded GPU program with its trailing inputs bound
    to Parameters kept on the device: called with the other inputs only (as
    msmlir.runtime's Dispatcher: C-contiguous arrays of the signature's shapes,
    checked by `call`); returns the results that are not written back."""

    def __init__(self, func, sig: Signature, params, rt: DeviceRuntime, name: str):
        self.func, self.rt, self.name = func, rt, name
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
                descs[i].allocated = descs[i].aligned = data_address(a)
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
                o = np.empty(shape, dtype)
                outs.append(o)
                d = descs[n_in + j]
                d.allocated = d.aligned = data_address(o)
            for r_idx, k in self.updates:
                d = descs[n_in + r_idx]
                d.allocated = d.aligned = _spare(self.params[k], res[k])
            self.func(self.packed)
            for r_idx, k in self.updates:               # the update is the current value now
                r = res[k]
                r.cur, r.spare = r.spare, r.cur
                r.host_current = False
                _mark_on_device(self.params[k], r)
            for r_idx, a in self.host_writeback:
                np.copyto(arrays[a], outs[r_idx])
            return tuple(outs[j] for j in self.returned)
