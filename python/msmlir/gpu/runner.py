"""Runs a function exported by msmlir.gpu.export_cubin: numpy + ctypes + libcuda.so only.

    python runner.py DIR FUNCTION in0.npy in1.npy ... [--out OUTDIR]
    # or: from runner import Program; Program(DIR).run(FUNCTION, [arrays]) -> [arrays]

Reads DIR/manifest.json, loads every cubin (cuModuleLoadData), allocates the
function's buffers on the device (cuMemAlloc), uploads the inputs and the
constants, replays the steps in order on the default stream (cuLaunchKernel
with the arguments packed into one parameter buffer, aligned as the kernel's
.param space: CU_LAUNCH_PARAM_BUFFER_POINTER; cuMemcpyDtoD for copies), then
downloads the outputs. A memref argument expands to the kernel parameters
(allocated, aligned, offset, sizes..., strides...) of MLIR's memref
descriptor. $MSMLIR_LIBCUDA names the library (default libcuda.so.1).

This file is copied next to the manifest and must not import msmlir.
"""
from __future__ import annotations

import ctypes
import json
import os
import struct
import sys

import numpy as np

CU_LAUNCH_PARAM_END = 0
CU_LAUNCH_PARAM_BUFFER_POINTER = 1
CU_LAUNCH_PARAM_BUFFER_SIZE = 2
_SCALARS = {"i64": ("q", 8), "i32": ("i", 4), "i16": ("h", 2), "i8": ("b", 1),
            "f16": ("e", 2), "f32": ("f", 4), "f64": ("d", 8)}


class CudaError(RuntimeError):
    pass


def pack_args(args: list, address: dict) -> bytes:
    """The kernel parameter buffer of a launch's manifest arguments;
    `address` maps buffer ids to device pointers."""
    out = bytearray()

    def put(fmt, size, value):
        out.extend(b"\0" * (-len(out) % size))
        out.extend(struct.pack("<" + fmt, value))
    for a in args:
        if a["kind"] == "memref":
            ptr = address[a["buffer"]]
            put("Q", 8, ptr)
            put("Q", 8, ptr)
            put("q", 8, a["offset"])
            for d in a["shape"]:
                put("q", 8, d)
            for s in a["strides"]:
                put("q", 8, s)
        elif a["kind"] in _SCALARS:
            fmt, size = _SCALARS[a["kind"]]
            put(fmt, size, a["value"])
        else:
            raise ValueError(f"unknown argument kind {a['kind']!r}")
    return bytes(out)


class Program:
    def __init__(self, directory: str, lib: str | None = None):
        self.dir = directory
        with open(os.path.join(directory, "manifest.json")) as f:
            self.manifest = json.load(f)
        self.cu = ctypes.CDLL(lib or os.environ.get("MSMLIR_LIBCUDA", "libcuda.so.1"))
        self._check(self.cu.cuInit(0), "cuInit")
        dev, ctx = ctypes.c_int(), ctypes.c_void_p()
        self._check(self.cu.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet")
        self._check(self.cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev),
                    "cuDevicePrimaryCtxRetain")
        self._check(self.cu.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
        self.modules, self.functions = {}, {}
        self._images = []
        for name, m in self.manifest["modules"].items():
            with open(os.path.join(directory, m["file"]), "rb") as f:
                image = ctypes.create_string_buffer(f.read())
            self._images.append(image)
            mod = ctypes.c_void_p()
            self._check(self.cu.cuModuleLoadData(ctypes.byref(mod), image), "cuModuleLoadData")
            self.modules[name] = mod

    def _check(self, status: int, what: str) -> None:
        if status != 0:
            raise CudaError(f"{what} failed with CUDA error {status}")

    def _function(self, module: str, entry: str):
        key = (module, entry)
        f = self.functions.get(key)
        if f is None:
            f = ctypes.c_void_p()
            self._check(self.cu.cuModuleGetFunction(ctypes.byref(f), self.modules[module],
                                                    entry.encode()), "cuModuleGetFunction")
            self.functions[key] = f
        return f

    def run(self, function: str, inputs: list) -> list:
        fn = self.manifest["functions"][function]
        cu = self.cu
        address, outputs = {}, {}
        try:
            for b in fn["buffers"]:
                ptr = ctypes.c_uint64()
                self._check(cu.cuMemAlloc_v2(ctypes.byref(ptr), ctypes.c_size_t(max(b["bytes"], 1))),
                            "cuMemAlloc")
                address[b["id"]] = ptr.value
                host = None
                if b["kind"] == "input":
                    host = np.ascontiguousarray(inputs[b["arg"]], dtype=b["dtype"])
                    if list(host.shape) != b["shape"]:
                        raise ValueError(f"input {b['arg']}: shape {host.shape}, expected {b['shape']}")
                elif b["kind"] == "constant":
                    host = np.ascontiguousarray(np.load(os.path.join(self.dir, b["file"]),
                                                        allow_pickle=False), dtype=b["dtype"])
                if host is not None and b["bytes"]:
                    self._check(cu.cuMemcpyHtoD_v2(ctypes.c_uint64(ptr.value),
                                                   host.ctypes.data_as(ctypes.c_void_p),
                                                   ctypes.c_size_t(b["bytes"])), "cuMemcpyHtoD")
            for step in fn["steps"]:
                if step["op"] == "launch":
                    self._launch(step, address)
                elif step["op"] == "copy":
                    src, dst, item = step["src"], step["dst"], np.dtype(step["src"]["dtype"]).itemsize
                    self._check(cu.cuMemcpyDtoD_v2(
                        ctypes.c_uint64(address[dst["buffer"]] + dst["offset"] * item),
                        ctypes.c_uint64(address[src["buffer"]] + src["offset"] * item),
                        ctypes.c_size_t(step["bytes"])), "cuMemcpyDtoD")
            self._check(cu.cuCtxSynchronize(), "cuCtxSynchronize")
            for b in fn["buffers"]:
                if b["kind"] == "output":
                    out = np.empty(b["shape"], dtype=b["dtype"])
                    if b["bytes"]:
                        self._check(cu.cuMemcpyDtoH_v2(out.ctypes.data_as(ctypes.c_void_p),
                                                       ctypes.c_uint64(address[b["id"]]),
                                                       ctypes.c_size_t(b["bytes"])), "cuMemcpyDtoH")
                    outputs[b["arg"]] = out
        finally:
            for ptr in address.values():
                cu.cuMemFree_v2(ctypes.c_uint64(ptr))
        return [outputs[k] for k in sorted(outputs)]

    def _launch(self, step: dict, address: dict) -> None:
        f = self._function(step["module"], step["entry"])
        params = pack_args(step["args"], address)
        buf = ctypes.create_string_buffer(params, len(params))
        size = ctypes.c_size_t(len(params))
        extra = (ctypes.c_void_p * 5)(CU_LAUNCH_PARAM_BUFFER_POINTER, ctypes.addressof(buf),
                                      CU_LAUNCH_PARAM_BUFFER_SIZE, ctypes.addressof(size),
                                      CU_LAUNCH_PARAM_END)
        g, b = step["grid"], step["block"]
        self._check(self.cu.cuLaunchKernel(f, *[ctypes.c_uint(x) for x in g],
                                           *[ctypes.c_uint(x) for x in b],
                                           ctypes.c_uint(step["shared"]), ctypes.c_void_p(0),
                                           ctypes.c_void_p(0), extra),
                    f"cuLaunchKernel({step['entry']})")


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    out_dir = None
    if "--out" in argv:
        i = argv.index("--out")
        out_dir = argv[i + 1]
        del argv[i:i + 2]
    if len(argv) < 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    directory, function, files = argv[0], argv[1], argv[2:]
    outs = Program(directory).run(function, [np.load(p, allow_pickle=False) for p in files])
    for i, o in enumerate(outs):
        if out_dir:
            os.makedirs(out_dir, exist_ok=True)
            np.save(os.path.join(out_dir, f"out{i}.npy"), o, allow_pickle=False)
        else:
            print(f"output {i}: {o.dtype}{list(o.shape)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
