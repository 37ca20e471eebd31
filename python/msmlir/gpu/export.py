"""AOT artifact for machines without MLIR: cubins + a JSON launch manifest + a ctypes runner.

`export_cubin(mindir, out_dir, ...)` compiles with msmlir-gpu-pipeline
(format=bin: gpu-module-to-binary runs ptxas, put on PATH from the CUDA
wheel) and writes into out_dir:

  <kernel>.cubin      one per gpu.binary (the ELF cubin gpu-module-to-binary made)
  <global>.npy        the host-side constants (memref.global) kernels read
  manifest.json       the launch manifest (below)
  runner.py           a copy of msmlir/gpu/runner.py: needs only numpy and
                      ctypes + libcuda.so (`python runner.py DIR FUNC in0.npy ...`)

The manifest is read off the host functions as the pipeline leaves them
(memrefs, func.call of kernel functions, gpu.launch_func, memref.copy):
per public function, its buffers (inputs, outputs, temporaries, constants:
shape, dtype, bytes) and its steps in order: `launch` (kernel module,
entry, grid, block, dynamic shared memory, and the argument layout: a memref
is its buffer + element offset + sizes + strides, which the runner expands
into the kernel's (allocated, aligned, offset, sizes..., strides...)
parameters; scalars are typed values) and `copy` (device-to-device). Per
kernel module also the ptxas figures (registers, static shared memory,
spills). A host op the manifest cannot express (control flow on tensors, a
host callback) is an ExportError naming it.
"""
from __future__ import annotations

import json
import math
import os
import shutil

import numpy as np
from mlir import ir

from .compile import MANGLE, compile_gpu
from .replan import compile_checked

MANIFEST_VERSION = 1

_DTYPES = {"f16": "float16", "bf16": "bfloat16", "f32": "float32", "f64": "float64",
           "i1": "bool", "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64",
           "index": "int64"}


class ExportError(ValueError):
    """The compiled program holds something the launch manifest cannot express."""


def _dtype(t: ir.Type) -> str:
    key = str(t)
    if key not in _DTYPES:
        raise ExportError(f"no manifest dtype for element type {key}")
    return _DTYPES[key]


def _layout(t: ir.MemRefType) -> tuple[int, list[int]]:
    strides, offset = t.get_strides_and_offset()
    return offset, list(strides)


class _Host:
    """Interprets the host side of a compiled module into buffers and steps."""

    def __init__(self, module: ir.Module):
        self.funcs, self.globals = {}, {}
        for op in module.body.operations:
            name = op.operation.name
            if name == "func.func":
                self.funcs[ir.StringAttr(op.attributes["sym_name"]).value] = op.operation
            elif name == "memref.global":
                self.globals[ir.StringAttr(op.attributes["sym_name"]).value] = op.operation
        self.buffers: list[dict] = []
        self.steps: list[dict] = []
        self.constants: dict[str, np.ndarray] = {}

    def _buffer(self, kind: str, t: ir.MemRefType, **extra) -> dict:
        shape = list(t.shape)
        b = {"id": len(self.buffers), "kind": kind, "shape": shape,
             "dtype": _dtype(t.element_type),
             "bytes": math.prod(shape) * np.dtype(_dtype(t.element_type)).itemsize, **extra}
        self.buffers.append(b)
        return b

    @staticmethod
    def _view(buf: int, t: ir.MemRefType) -> dict:
        offset, strides = _layout(t)
        return {"kind": "memref", "buffer": buf, "offset": offset, "shape": list(t.shape),
                "strides": strides, "dtype": _dtype(t.element_type)}

    def function(self, fn: ir.Operation, n_inputs: int) -> None:
        env = {}
        for i, arg in enumerate(fn.regions[0].blocks[0].arguments):
            t = ir.MemRefType(arg.type)
            b = self._buffer("input" if i < n_inputs else "output", t, arg=i)
            env[arg] = self._view(b["id"], t)
        self._block(fn.regions[0].blocks[0], env)

    def _scalar(self, op: ir.Operation) -> dict:
        attr = op.attributes["value"]
        t = str(attr.type)
        if isinstance(attr, ir.IntegerAttr) or t in ("index",) or t.startswith("i"):
            return {"kind": "i64" if t in ("index", "i64") else t, "value": ir.IntegerAttr(attr).value}
        if t in ("f16", "f32", "f64"):
            return {"kind": t, "value": ir.FloatAttr(attr).value}
        raise ExportError(f"a host constant of type {t}")

    def _block(self, block: ir.Block, env: dict) -> None:
        for op in block.operations:
            op = op.operation
            name = op.name
            if name == "arith.constant":
                env[op.results[0]] = self._scalar(op)
            elif name in ("memref.alloc", "memref.alloca"):
                t = ir.MemRefType(op.results[0].type)
                env[op.results[0]] = self._view(self._buffer("temp", t)["id"], t)
            elif name == "memref.get_global":
                sym = ir.FlatSymbolRefAttr(op.attributes["name"]).value
                g = self.globals[sym]
                t = ir.MemRefType(op.results[0].type)
                if sym not in self.constants:
                    self.constants[sym] = np.array(ir.DenseElementsAttr(g.attributes["initial_value"]))
                bid = next((b["id"] for b in self.buffers if b.get("file") == f"{sym}.npy"), None)
                if bid is None:
                    bid = self._buffer("constant", t, file=f"{sym}.npy")["id"]
                env[op.results[0]] = self._view(bid, t)
            elif name in ("memref.expand_shape", "memref.collapse_shape", "memref.subview",
                          "memref.cast", "memref.reinterpret_cast"):
                src = env[op.operands[0]]
                t = ir.MemRefType(op.results[0].type)
                env[op.results[0]] = self._view(src["buffer"], t)
            elif name == "func.call":
                callee = self.funcs[ir.FlatSymbolRefAttr(op.attributes["callee"]).value]
                inner = dict(env)
                for arg, v in zip(callee.regions[0].blocks[0].arguments, op.operands):
                    inner[arg] = env[v]
                self._block(callee.regions[0].blocks[0], inner)
            elif name == "gpu.launch_func":
                self.steps.append(self._launch(op, env))
            elif name == "memref.copy":
                src, dst = env[op.operands[0]], env[op.operands[1]]
                for v in (src, dst):
                    if v["strides"] != _c_strides(v["shape"]):
                        raise ExportError("a host memref.copy of a strided view")
                self.steps.append({"op": "copy", "src": src, "dst": dst,
                                   "bytes": math.prod(src["shape"]) *
                                   np.dtype(src["dtype"]).itemsize})
            elif name in ("memref.dealloc", "func.return"):
                continue
            else:
                raise ExportError(f"cannot express host op '{name}' in a launch manifest "
                                  f"(at {op.location})")

    def _launch(self, op: ir.Operation, env: dict) -> dict:
        v = op.opview
        ref = ir.SymbolRefAttr(op.attributes["kernel"]).value

        def num(x):
            s = env.get(x)
            if s is None or s["kind"] == "memref":
                raise ExportError(f"a launch bound that is not a constant (at {op.location})")
            return s["value"]
        args = []
        for a in v.kernelOperands:
            if a not in env:
                raise ExportError(f"a kernel argument computed on the host (at {op.location})")
            args.append(env[a])
        shared = v.dynamicSharedMemorySize
        return {"op": "launch", "module": ref[0], "entry": ref[-1],
                "grid": [num(v.gridSizeX), num(v.gridSizeY), num(v.gridSizeZ)],
                "block": [num(v.blockSizeX), num(v.blockSizeY), num(v.blockSizeZ)],
                "shared": num(shared) if shared is not None else 0, "args": args}


def _c_strides(shape) -> list[int]:
    out, acc = [], 1
    for d in reversed(shape):
        out.append(acc)
        acc *= d
    return out[::-1]


def export_cubin(src, out_dir: str, **options) -> str:
    """Compiles mindir (text or module) for the GPU and writes the cubins,
    constants, manifest.json and runner.py into out_dir; returns the manifest
    path. `options`: msmlir-gpu-pipeline's (chip, features, opt_level,
    threads, graph_kernel)."""
    options = {k.replace("-", "_"): v for k, v in options.items()}
    options.pop("format", None)
    # ptxas first: kernels that spill or exceed a limit re-planned (replan.py),
    # the cubins then built with those plans
    _, reports, replans = compile_checked(src, remarks=False, **options)
    plans = {p.kernel: p.new for p in replans}        # (the last plan of each kernel)
    prog = compile_gpu(src, format="bin", kernel_plans=plans, **options)
    os.makedirs(out_dir, exist_ok=True)
    host = _Host(prog.module)
    functions = {}
    with prog.module.context:
        for name, sig in prog.signatures.items():
            host.buffers, host.steps = [], []
            host.function(host.funcs[MANGLE + name], len(sig.inputs))
            functions[name] = {"buffers": host.buffers, "steps": host.steps,
                               "n_inputs": len(sig.inputs), "n_outputs": len(sig.outputs),
                               "writeback": [list(p) for p in sig.writeback]}
    modules = {}
    for kname, blob in prog.objects.items():
        if blob[:4] != b"\x7fELF":
            raise ExportError(f"kernel {kname}: gpu-module-to-binary did not produce a cubin")
        with open(os.path.join(out_dir, f"{kname}.cubin"), "wb") as f:
            f.write(blob)
        r = reports.get(kname)
        modules[kname] = {"file": f"{kname}.cubin", "bytes": len(blob),
                          "registers": r.registers if r else None,
                          "shared_static": r.shared if r else None,
                          "spill_bytes": (r.spill_stores + r.spill_loads) if r else None}
    for sym, arr in host.constants.items():
        np.save(os.path.join(out_dir, f"{sym}.npy"), arr, allow_pickle=False)
    manifest = {"version": MANIFEST_VERSION, "chip": prog.options["chip"],
                "features": prog.options["features"], "modules": modules, "functions": functions}
    path = os.path.join(out_dir, "manifest.json")
    with open(path, "w") as f:
        json.dump(manifest, f, indent=1)
    shutil.copyfile(os.path.join(os.path.dirname(__file__), "runner.py"),
                    os.path.join(out_dir, "runner.py"))
    return path
