"""Model export (MindSpore's `export` and `load`): a compiled graph in a file
that runs without the Python source, and is safe to load.

MindIR export file (``*.mindir``), after the common prefix (see `_format`)::

    offset 0   8 bytes   magic  b"MSMLMIR\\0", u32 version (1), u32 reserved, u64 H
    offset 24  H bytes   header: UTF-8 JSON object
                            {"format": "msmlir.mindir", "version": 1, "entry": str,
                             "inputs": [{"shape": [...], "dtype": str}, ...],
                             "outputs": [{"shape": [...], "dtype": str}, ...],
                             "out_spec": tree, "bytecode_nbytes": int, "sha256": hex str,
                             "producer": str}
    offset 24+H          the MLIR bytecode of the mindir-level module (parameters and
                         other captured tensors are embedded as mindir.constant ops,
                         by the mindir-embed-parameters pass)

`load` validates the header like a checkpoint's, checks the SHA-256 of the
bytecode, parses it with MLIR's bytecode reader, checks it against the allow-list
of `model_ir`, and checks that the module's public function `entry` has exactly
the declared input and output types before anything is compiled.

Residual risk, stated plainly: MLIR's bytecode reader is C++ that is not hardened
against hostile input (a crafted payload with a matching checksum can trip an
assertion and abort the process; fuzzing found such inputs). `load` therefore
first parses and verifies the bytecode in a separate, short-lived Python process
(``isolated=True``, the default) and refuses the file if that process fails or
dies; only then is it parsed in this process. That turns crashes into a
`CheckpointFormatError`, but it is not a sandbox: treat model files from
untrusted sources like executables.
"""
from __future__ import annotations

import hashlib
import io
import json
import os
import threading

import numpy as np

from .. import dtype as _dt
from ._format import (ALLOWED, MIR_MAGIC, PREFIX, VERSION, bad, check_array_size, exact_keys,
                      read_dtype, read_header, read_int, read_name, read_shape,
                      write_atomically)

__all__ = ["export", "load", "GraphCell"]


def _jit_target(net, inputs):
    """(JitFunction, call args) for a jitted function, a plain function, a bound
    jitted method or a Cell-like object with `construct`."""
    from ..frontend.jit import BoundJit, JitFunction, jit
    if isinstance(net, JitFunction):
        return net, tuple(inputs)
    if isinstance(net, BoundJit):
        return net.jit_function, (net.__self__,) + tuple(inputs)
    construct = getattr(type(net), "construct", None)
    if construct is not None:
        if isinstance(construct, JitFunction):
            return construct, (net,) + tuple(inputs)
        return jit(construct), (net,) + tuple(inputs)
    if callable(net):
        return jit(net), tuple(inputs)
    raise TypeError(f"For 'export', net must be a function, a msmlir.jit function or a Cell, "
                    f"got {type(net).__name__}")


def _type_spec(t):
    from mlir import ir
    rt = ir.RankedTensorType(t)
    if not rt.has_static_shape:
        raise ValueError(f"export: dynamic shapes are not supported ({t})")
    return {"shape": list(rt.shape), "dtype": _dt.from_mlir(rt.element_type).name}


def _spec_to_json(spec):
    kind = spec[0]
    if kind == "L":
        return "L"
    if kind in ("tuple", "list"):
        return [kind, [_spec_to_json(c) for c in spec[1]]]
    if kind == "C":
        v = spec[1]
        if v is None or isinstance(v, (bool, int, float, str)):
            return ["C", v]
    raise ValueError(f"export: the function's outputs must be tensors (in tuples/lists) or "
                     f"plain constants, got {spec!r:.100}")


def _find_func(module, name):
    for op in module.body.operations:
        if op.operation.name == "func.func":
            from mlir import ir
            if ir.StringAttr(op.attributes["sym_name"]).value == name:
                return op
    return None


def _dense_attr(arr: np.ndarray):
    """A DenseElementsAttr holding `arr` exactly (shape, dtype and bits; bool -> i1)."""
    from mlir import ir
    arr = np.asarray(arr, order="C")
    d = _dt.from_numpy(arr.dtype)
    ttype = ir.RankedTensorType.get(list(arr.shape), d.to_mlir())
    if d is _dt.bool_:
        return ir.DenseElementsAttr.get(np.packbits(arr.reshape(-1), bitorder="little"),
                                        type=ttype, signless=True)
    return ir.DenseElementsAttr.get(arr.reshape(-1) if arr.ndim == 0 else arr, type=ttype)


def _embed_parameters(module, func, params):
    """Embeds the current values of the entry's trailing Parameter arguments
    (msmlir.jit passes captured Parameters as extra inputs): marks each argument
    with its value and runs mindir-embed-parameters, which turns them into
    mindir.constant ops, so the exported graph is self-contained."""
    if not params:
        return
    from mlir import ir
    from ..passes import run_pipeline
    from ..passes.graph.embed_parameters import mark_embedded
    n_args = len(func.regions[0].blocks[0].arguments)
    first = n_args - len(params)
    if first < 0:
        raise RuntimeError("export: the entry function has fewer arguments than Parameters")
    with ir.Location.unknown():
        for k, p in enumerate(params):
            arg = func.regions[0].blocks[0].arguments[first + k]
            arr = np.asarray(p.asnumpy())
            if tuple(arr.shape) != tuple(ir.RankedTensorType(arg.type).shape):
                raise RuntimeError(f"export: Parameter {getattr(p, 'name', '?')} has shape "
                                   f"{arr.shape}, the graph expects {arg.type}")
            mark_embedded(func, first + k, _dense_attr(arr))
    run_pipeline(module, "builtin.module(mindir-embed-parameters)")


def _reject_host_callbacks(module):
    """A graph with JIT Fallback callbacks needs the Python code they call: not exportable."""
    from ..runtime.host_callbacks import callbacks_in
    found = [origin for _, origin, _ in callbacks_in(module)]
    if found:
        raise ValueError(f"export: the graph calls back into Python at run time (JIT Fallback: "
                         f"{', '.join(found)}), so it cannot run without the Python source; "
                         f"compile those parts with msmlir.ops / msmlir.numpy (or remove print)")


def export(net, *inputs, file_name, file_format="MINDIR", **kwargs):
    """Exports `net` (a msmlir.jit function, a plain function or a Cell-like object
    with `construct`) specialized to `inputs` as a `.mindir` file (MLIR bytecode of
    the mindir module plus a header; see the module docstring). Python values among
    `inputs` are baked into the graph; the tensors are its inputs.

    file_format="CUBIN": `file_name` is a directory that receives the graph
    compiled for NVIDIA GPUs, its Parameters embedded as constants: one cubin
    per kernel, manifest.json (launches, grid/block, shared memory, argument
    layout) and runner.py, which runs it with only libcuda.so and numpy
    (msmlir.gpu.export_cubin; `kwargs` are msmlir-gpu-pipeline's options,
    e.g. chip="sm_90"). Returns the manifest's path."""
    fmt = file_format.upper() if isinstance(file_format, str) else None
    if fmt not in ("MINDIR", "CUBIN"):
        raise ValueError(f"For 'export', file_format must be 'MINDIR' or 'CUBIN' (msmlir does "
                         f"not write {file_format!r})")
    if not isinstance(file_name, (str, os.PathLike)):
        raise TypeError("For 'export', file_name must be a str")
    path = os.fspath(file_name)
    if fmt == "MINDIR" and not path.endswith(".mindir"):
        path += ".mindir"
    jf, args = _jit_target(net, inputs)
    lowered = jf.lower_module(*args)
    from mlir import ir
    from ..frontend.jit import BUILD_LOCK
    with BUILD_LOCK, lowered.context:
        # a copy: the jitted function's cached module stays as it is
        module = ir.Module.parse(lowered.module.operation.get_asm(enable_debug_info=True))
        _reject_host_callbacks(module)
        func = _find_func(module, lowered.name)
        if func is None:
            raise RuntimeError(f"export: entry function {lowered.name} not found in the module")
        _embed_parameters(module, func, list(getattr(lowered, "params", ()) or ()))
        if fmt == "CUBIN":
            text = module.operation.get_asm(enable_debug_info=True)
    if fmt == "CUBIN":
        from ..gpu import export_cubin
        return export_cubin(text, path, **kwargs)
    with BUILD_LOCK, lowered.context:
        module.operation.verify()
        ftype = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
        in_specs = [_type_spec(t) for t in ftype.inputs]
        out_specs = [_type_spec(t) for t in ftype.results]
        buf = io.BytesIO()
        module.operation.write_bytecode(buf)
    bytecode = buf.getvalue()
    from .. import __version__
    header = json.dumps({
        "format": "msmlir.mindir", "version": VERSION, "entry": lowered.name,
        "inputs": in_specs, "outputs": out_specs, "out_spec": _spec_to_json(lowered.out_spec),
        "bytecode_nbytes": len(bytecode), "sha256": hashlib.sha256(bytecode).hexdigest(),
        "producer": f"msmlir {__version__}"}, allow_nan=False).encode()

    def write(f):
        f.write(PREFIX.pack(MIR_MAGIC, VERSION, 0, len(header)))
        f.write(header)
        f.write(bytecode)
    write_atomically(path, write)


def _check_out_spec(path, s, depth=0):
    if depth > 64:
        raise bad(path, "out_spec is nested too deeply")
    if s == "L":
        return 1
    if isinstance(s, list) and len(s) == 2 and s[0] in ("tuple", "list") and \
            isinstance(s[1], list):
        return sum(_check_out_spec(path, c, depth + 1) for c in s[1])
    if isinstance(s, list) and len(s) == 2 and s[0] == "C" and \
            (s[1] is None or isinstance(s[1], (bool, int, float, str))):
        return 0
    raise bad(path, f"invalid out_spec element {s!r:.80}")


def _unflatten(s, it):
    if s == "L":
        return next(it)
    kind, body = s
    if kind == "C":
        return body
    items = [_unflatten(c, it) for c in body]
    return tuple(items) if kind == "tuple" else items


class GraphCell:
    """A graph loaded by `msmlir.load`: calling it with tensors of the exported shapes
    and dtypes compiles the graph once (cached) and runs it; no Python source is
    needed. Returns Tensors (a tuple/list of them for structured outputs)."""

    def __init__(self, path, header, bytecode):
        self.file_name = path
        self.entry = header["entry"]
        self.input_specs = [(tuple(i["shape"]), ALLOWED[i["dtype"]]) for i in header["inputs"]]
        self.output_specs = [(tuple(o["shape"]), ALLOWED[o["dtype"]])
                             for o in header["outputs"]]
        self._out_spec = header["out_spec"]
        self._bytecode = bytecode
        self._compiled = None
        self._lock = threading.Lock()
        self.module = self._parse()

    def _parse(self):
        from mlir import ir
        from .model_ir import check_loadable
        from ..compiler import context
        from ..frontend.jit import BUILD_LOCK
        ctx = context()
        with BUILD_LOCK, ctx:
            try:
                module = ir.Module.parse(self._bytecode)
            except Exception as e:  # noqa: BLE001  (MLIRError and friends)
                raise bad(self.file_name, f"the MLIR bytecode does not parse: {e}") from None
            try:   # before anything else looks at it: only what export writes
                check_loadable(module)
            except ValueError as e:
                raise bad(self.file_name, str(e)) from None
            func = _find_func(module, self.entry)
            if func is None or "sym_visibility" in func.attributes:
                raise bad(self.file_name, f"the module has no public function '{self.entry}'")
            ftype = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
            try:
                ins = [_type_spec(t) for t in ftype.inputs]
                outs = [_type_spec(t) for t in ftype.results]
            except Exception as e:  # noqa: BLE001
                raise bad(self.file_name, f"unsupported function type: {e}") from None
            want_in = [{"shape": list(s), "dtype": d.name} for s, d in self.input_specs]
            want_out = [{"shape": list(s), "dtype": d.name} for s, d in self.output_specs]
            if ins != want_in or outs != want_out:
                raise bad(self.file_name, "the module's function type does not match the "
                                           "header's inputs/outputs")
            try:
                module.operation.verify()
            except Exception as e:  # noqa: BLE001
                raise bad(self.file_name, f"the module does not verify: {e}") from None
        return module

    def _compile(self):
        with self._lock:
            if self._compiled is None:
                from mlir import ir
                from ..compiler import compile_module, context
                from ..frontend.jit import BUILD_LOCK
                from ..frontend.trace import expand_transforms
                with BUILD_LOCK, context():
                    copy = ir.Module.parse(self._bytecode)
                    expand_transforms(copy)   # mindir.grad ops -> mindir-autodiff, as jit does
                self._compiled = compile_module(copy)
        return self._compiled

    def __call__(self, *inputs):
        from ..common.tensor import Tensor
        flat = []

        def rec(v):
            if isinstance(v, (tuple, list)):
                for e in v:
                    rec(e)
            else:
                flat.append(v)
        rec(inputs)
        if len(flat) != len(self.input_specs):
            raise TypeError(f"GraphCell({os.path.basename(self.file_name)}) takes "
                            f"{len(self.input_specs)} tensor inputs, got {len(flat)}")
        arrays = []
        for i, (v, (shape, d)) in enumerate(zip(flat, self.input_specs)):
            a = v.asnumpy() if hasattr(v, "asnumpy") else np.asarray(v)
            if tuple(a.shape) != shape or a.dtype != d.np_dtype:
                raise ValueError(f"GraphCell input {i}: expected {d.name}{list(shape)}, got "
                                 f"{a.dtype}{list(a.shape)}")
            arrays.append(a)
        outs = self._compile().call(self.entry, *arrays)
        it = iter(Tensor._make(np.asarray(o)) for o in outs)
        return _unflatten(self._out_spec, it)

    def __repr__(self):
        ins = ", ".join(f"{d.name}{list(s)}" for s, d in self.input_specs)
        return f"<GraphCell {self.entry}({ins}) from {self.file_name}>"


# The isolated check's child: dies with its parent (PR_SET_PDEATHSIG), and
# by itself once it has used its CPU-time budget (a reader that spins on a
# crafted payload cannot outlive the check as an orphan).
_ISOLATED_CHECK = r"""
import ctypes, os, resource, sys
parent, limit = int(sys.argv[1]), int(sys.argv[2])
ctypes.CDLL(None).prctl(1, 9)                  # PR_SET_PDEATHSIG = SIGKILL
if os.getppid() != parent:                     # the loader died before prctl
    os._exit(3)
resource.setrlimit(resource.RLIMIT_CPU, (limit, limit + 1))
from mlir import ir
from msmlir import _native
ctx = ir.Context()
_native.load_dialects(ctx)
data = sys.stdin.buffer.read()
with ctx:
    module = ir.Module.parse(data)
    module.operation.verify()
sys.stdout.write("msmlir-bytecode-ok")
"""

DEFAULT_LOAD_TIMEOUT = 20.0


def _load_timeout(nbytes: int, timeout) -> float:
    """Seconds the isolated check may take: `timeout`, else MSMLIR_LOAD_TIMEOUT,
    else 20 s; plus one second per 32 MiB of bytecode (big embedded weights)."""
    if timeout is None:
        env = os.environ.get("MSMLIR_LOAD_TIMEOUT")
        try:
            timeout = float(env) if env else DEFAULT_LOAD_TIMEOUT
        except ValueError:
            raise ValueError(f"MSMLIR_LOAD_TIMEOUT must be a number of seconds, got {env!r}")
    if not timeout > 0:
        raise ValueError(f"For 'load', timeout must be a positive number of seconds, "
                         f"got {timeout!r}")
    return float(timeout) + nbytes / (32 << 20)


def _isolated_parse_check(path, bytecode, timeout):
    """Parses and verifies `bytecode` in a child Python process first, so that a payload
    that crashes or hangs MLIR's bytecode reader is rejected instead of taking this
    process with it."""
    import math
    import subprocess
    import sys
    limit = max(1, math.ceil(timeout))
    try:
        r = subprocess.run([sys.executable, "-I", "-c", _ISOLATED_CHECK, str(os.getpid()),
                            str(limit)], input=bytecode, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise bad(path, f"parsing the MLIR bytecode did not finish within {timeout:.0f} s "
                        f"(isolated check; a crafted or corrupt payload can make MLIR's "
                        f"reader spin; raise load(..., timeout=) or MSMLIR_LOAD_TIMEOUT for "
                        f"a very large model)") from None
    if r.returncode != 0 or r.stdout != b"msmlir-bytecode-ok":
        if r.returncode in (-9, -24):   # SIGKILL / SIGXCPU: its CPU-time budget ran out
            raise bad(path, f"parsing the MLIR bytecode did not finish within {limit} s of "
                            f"CPU time (isolated check)")
        how = f"exit status {r.returncode}" if r.returncode >= 0 else f"signal {-r.returncode}"
        tail = r.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or [""]
        raise bad(path, f"the MLIR bytecode does not parse or verify (isolated check: {how}; "
                        f"{tail[0][:300]})")


def load(file_name, isolated=True, timeout=None, **kwargs):
    """Loads a `.mindir` file written by `export` as a callable `GraphCell`.
    With `isolated` (default), the bytecode is first parsed in a child process
    (see the module docstring) that may take `timeout` seconds (default
    MSMLIR_LOAD_TIMEOUT or 20 s, plus 1 s per 32 MiB of bytecode)."""
    if kwargs.get("dec_key") is not None:
        raise NotImplementedError("load: encrypted models are not supported")
    if not isinstance(file_name, (str, os.PathLike)):
        raise TypeError("For 'load', file_name must be a str")
    path = os.fspath(file_name)
    if not os.path.isfile(path):
        raise ValueError(f"For 'load', the file {path} does not exist")
    with open(path, "rb") as f:
        header, after, size = read_header(f, path, MIR_MAGIC, "MindIR model")
        exact_keys(path, header, {"format", "version", "entry", "inputs", "outputs", "out_spec",
                                   "bytecode_nbytes", "sha256", "producer"}, "header")
        if header["format"] != "msmlir.mindir":   # the version: read_header
            raise bad(path, "header does not describe an msmlir MindIR v1 model")
        read_name(path, header["entry"], "entry")
        if not isinstance(header["producer"], str):
            raise bad(path, "producer must be a string")
        for key in ("inputs", "outputs"):
            specs = header[key]
            if not isinstance(specs, list) or len(specs) > 100_000:
                raise bad(path, f"{key} must be a list")
            for i, s in enumerate(specs):
                exact_keys(path, s, {"shape", "dtype"}, f"{key}[{i}]")
                shape = read_shape(path, s["shape"], f"{key}[{i}]")
                d = read_dtype(path, s["dtype"], f"{key}[{i}]")
                check_array_size(path, shape, d.np_dtype.itemsize, f"{key}[{i}]")
        n_leaves = _check_out_spec(path, header["out_spec"])
        if n_leaves != len(header["outputs"]):
            raise bad(path, f"out_spec has {n_leaves} tensors but outputs lists "
                             f"{len(header['outputs'])}")
        nbytes = read_int(path, header["bytecode_nbytes"], "bytecode_nbytes")
        if after + nbytes != size:
            raise bad(path, f"bytecode_nbytes {nbytes} does not match the file size "
                             f"({size - after} bytes after the header)")
        digest = header["sha256"]
        if not isinstance(digest, str) or len(digest) != 64:
            raise bad(path, "sha256 must be a 64-character hex string")
        bytecode = f.read(nbytes)
    if len(bytecode) != nbytes or hashlib.sha256(bytecode).hexdigest() != digest.lower():
        raise bad(path, "the bytecode does not match its SHA-256 checksum")
    if not bytecode.startswith(b"ML\xefR"):
        raise bad(path, "the payload is not MLIR bytecode")
    if isolated:
        _isolated_parse_check(path, bytecode, _load_timeout(len(bytecode), timeout))
    return GraphCell(path, header, bytecode)
