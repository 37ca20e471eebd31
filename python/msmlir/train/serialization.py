"""Checkpoints and model export (MindSpore's `save_checkpoint`, `load_checkpoint`,
`load_param_into_net`, `export`, `load`), in file formats that are safe to load.

Nothing here uses pickle, eval or any other way of turning file contents into
code; every field read from a file is validated before it is used, and the
memory a load allocates is bounded by the file's size.

Checkpoint file (``*.ckpt``), all integers little-endian::

    offset 0   8 bytes   magic  b"MSMLCKPT"
    offset 8   u32       format version (1)
    offset 12  u32       reserved (0)
    offset 16  u64       H = length of the header
    offset 24  H bytes   header: UTF-8 JSON object
                            {"format": "msmlir.checkpoint", "version": 1,
                             "tensors": [{"name": str, "dtype": str, "shape": [int, ...],
                                          "offset": int, "nbytes": int}, ...],
                             "strings": {name: str, ...}}
    D = 24 + H rounded up to a multiple of 64
    offset D   data region: each tensor's raw C-order little-endian bytes at
               D + offset (offsets are 64-byte aligned when written)

Loading checks: the magic and version; H <= 64 MiB and within the file; the
header is strict JSON (no NaN/Infinity, no duplicate keys) with exactly the keys
above; names are non-empty strings (at most 4096 characters), unique across
tensors and strings; dtype is one of the allow-list (float16, float32, float64,
int8, int32, int64, bool, and bfloat16 when ml_dtypes is installed); shape is a
list of at most 32 non-negative ints; nbytes == prod(shape) * itemsize; offset
and nbytes are non-negative ints with the region inside the file; regions do
not overlap; bool bytes are 0 or 1. Any violation raises
`CheckpointFormatError` (a ValueError) naming the file and the field.

MindIR export file (``*.mindir``)::

    offset 0   8 bytes   magic  b"MSMLMIR\\0"
    offset 8   u32       format version (1)
    offset 12  u32       reserved (0)
    offset 16  u64       H = length of the header
    offset 24  H bytes   header: UTF-8 JSON object
                            {"format": "msmlir.mindir", "version": 1, "entry": str,
                             "inputs": [{"shape": [...], "dtype": str}, ...],
                             "outputs": [{"shape": [...], "dtype": str}, ...],
                             "out_spec": tree, "bytecode_nbytes": int, "sha256": hex str,
                             "producer": str}
    offset 24+H          the MLIR bytecode of the mindir-level module (parameters and
                         other captured tensors are embedded as mindir.constant ops)

`load` validates the header like a checkpoint's, checks the SHA-256 of the
bytecode, parses it with MLIR's bytecode reader, and checks that the module's
public function `entry` has exactly the declared input and output types before
anything is compiled.

Residual risk, stated plainly: MLIR's bytecode reader is C++ that is not hardened
against hostile input (a crafted payload with a matching checksum can trip an
assertion and abort the process; fuzzing found such inputs). `load` therefore
first parses and verifies the bytecode in a separate, short-lived Python process
(``isolated=True``, the default) and refuses the file if that process fails or
dies; only then is it parsed in this process. That turns crashes into a
`CheckpointFormatError`, but it is not a sandbox: treat model files from
untrusted sources like executables. Checkpoints carry no code at all.
"""
from __future__ import annotations

import hashlib
import io
import json
import numbers
import os
import struct
import tempfile
import threading

import numpy as np

from .. import dtype as _dt

__all__ = ["save_checkpoint", "load_checkpoint", "load_param_into_net", "export", "load",
           "GraphCell", "CheckpointFormatError"]


def _contig(a):
    """C-contiguous without np.ascontiguousarray's promotion of 0-d arrays to 1-d."""
    return np.asarray(a, order="C")


_CKPT_MAGIC = b"MSMLCKPT"
_MIR_MAGIC = b"MSMLMIR\0"
_VERSION = 1
_PREFIX = struct.Struct("<8sIIQ")      # magic, version, reserved, header length
_ALIGN = 64
MAX_HEADER_BYTES = 64 << 20
MAX_TENSORS = 1_000_000
MAX_NAME_CHARS = 4096
MAX_RANK = 32


class CheckpointFormatError(ValueError):
    """A checkpoint or exported model file is malformed or unsafe to load."""


# ---------------------------------------------------------------------------
# dtype allow-list
# ---------------------------------------------------------------------------

def _allowed_dtypes() -> dict:
    out = {}
    for d in _dt.all_dtypes:
        if d.np_dtype is not None:
            out[d.name] = d
    return out


_ALLOWED = _allowed_dtypes()


def _le(np_dtype: np.dtype) -> np.dtype:
    """The little-endian variant of a dtype (the file byte order)."""
    d = np.dtype(np_dtype)
    return d if np.little_endian or d.itemsize == 1 else d.newbyteorder("<")


# ---------------------------------------------------------------------------
# Strict JSON header
# ---------------------------------------------------------------------------

def _no_dupes(pairs):
    out = {}
    for k, v in pairs:
        if k in out:
            raise ValueError(f"duplicate key {k!r}")
        out[k] = v
    return out


def _reject_constant(name):
    raise ValueError(f"non-finite number {name} is not allowed")


def _bad(path, msg):
    return CheckpointFormatError(f"{path}: {msg}")


def _read_header(f, path, magic, what):
    """Reads and validates the fixed prefix and the JSON header; returns
    (header dict, offset just after the header, file size)."""
    size = os.fstat(f.fileno()).st_size
    raw = f.read(_PREFIX.size)
    if len(raw) < _PREFIX.size:
        raise _bad(path, f"file too short to be an msmlir {what} ({size} bytes)")
    got_magic, version, _reserved, hlen = _PREFIX.unpack(raw)
    if got_magic != magic:
        hint = ""
        if raw[:1] == b"\x80":
            hint = " (it looks like a Python pickle, which msmlir never loads)"
        raise _bad(path, f"not an msmlir {what} (bad magic {got_magic!r}){hint}")
    if version != _VERSION:
        raise _bad(path, f"unsupported {what} format version {version} (supported: {_VERSION})")
    if hlen > MAX_HEADER_BYTES or hlen > size - _PREFIX.size:
        raise _bad(path, f"header length {hlen} is larger than the file allows "
                         f"({size - _PREFIX.size} bytes after the prefix, limit "
                         f"{MAX_HEADER_BYTES})")
    text = f.read(hlen)
    if len(text) != hlen:
        raise _bad(path, "truncated header")
    try:
        header = json.loads(text.decode("utf-8", errors="strict"),
                            object_pairs_hook=_no_dupes, parse_constant=_reject_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise _bad(path, f"header is not valid strict JSON: {e}") from None
    if not isinstance(header, dict):
        raise _bad(path, "header must be a JSON object")
    return header, _PREFIX.size + hlen, size


def _int(path, v, what, lo=0, hi=None):
    if isinstance(v, bool) or not isinstance(v, int):
        raise _bad(path, f"{what} must be an integer, got {type(v).__name__}")
    if v < lo or (hi is not None and v > hi):
        raise _bad(path, f"{what} {v} is out of range")
    return v


def _name(path, v, what="name"):
    if not isinstance(v, str):
        raise _bad(path, f"{what} must be a string, got {type(v).__name__}")
    if not v or len(v) > MAX_NAME_CHARS:
        raise _bad(path, f"{what} must have 1..{MAX_NAME_CHARS} characters")
    return v


def _dtype(path, v, what):
    if not isinstance(v, str) or v not in _ALLOWED:
        raise _bad(path, f"{what}: dtype {v!r} is not allowed (allowed: {sorted(_ALLOWED)})")
    return _ALLOWED[v]


def _shape(path, v, what):
    if not isinstance(v, list) or len(v) > MAX_RANK:
        raise _bad(path, f"{what}: shape must be a list of at most {MAX_RANK} integers")
    return tuple(_int(path, d, f"{what}: dimension") for d in v)


def _exact_keys(path, d, keys, what):
    if not isinstance(d, dict):
        raise _bad(path, f"{what} must be a JSON object")
    if set(d) != set(keys):
        raise _bad(path, f"{what} must have exactly the keys {sorted(keys)}, got {sorted(d)}")


# ---------------------------------------------------------------------------
# Checkpoints: save
# ---------------------------------------------------------------------------

def _as_array(value, name):
    from ..common.tensor import Tensor
    if isinstance(value, Tensor):
        arr = value.asnumpy()
    elif hasattr(value, "asnumpy"):
        arr = np.asarray(value.asnumpy())
    elif isinstance(value, np.ndarray):
        arr = value
    elif isinstance(value, (bool, np.bool_)):
        arr = np.asarray(value, np.bool_)
    elif isinstance(value, numbers.Integral):
        arr = np.asarray(value, np.int64)
    elif isinstance(value, numbers.Real):
        arr = np.asarray(value, np.float32)
    else:
        raise TypeError(f"For 'save_checkpoint', the data of '{name}' must be a Tensor, "
                        f"Parameter, numpy array, number or str, got {type(value).__name__}")
    try:
        d = _dt.from_numpy(arr.dtype)
    except TypeError:
        raise TypeError(f"For 'save_checkpoint', '{name}' has dtype {arr.dtype}, which msmlir "
                        f"checkpoints do not store (allowed: {sorted(_ALLOWED)})") from None
    if d.name not in _ALLOWED:
        raise TypeError(f"For 'save_checkpoint', '{name}' has dtype {d.name}, which is not "
                        f"allowed in msmlir checkpoints")
    return d, _contig(arr)


def _param_name(path, param):
    """The checkpoint key of a Cell parameter: its `name` (as in MindSpore, where Cells
    prefix parameter names with their attribute path), else the yielded path."""
    name = getattr(param, "name", None)
    return name if isinstance(name, str) and name else path


def _collect(save_obj):
    """[(name, value)] from a Cell (parameters_and_names), a list of
    {'name', 'data'} dicts or a {name: value} dict."""
    if hasattr(save_obj, "parameters_and_names"):
        return [(_param_name(n, p), p) for n, p in save_obj.parameters_and_names()]
    if isinstance(save_obj, dict):
        return list(save_obj.items())
    if isinstance(save_obj, (list, tuple)):
        out = []
        for i, item in enumerate(save_obj):
            if not isinstance(item, dict) or set(item) != {"name", "data"}:
                raise TypeError(f"For 'save_checkpoint', each element of a list save_obj must be "
                                f"a dict with the keys 'name' and 'data' (element {i}: {item!r:.80})")
            out.append((item["name"], item["data"]))
        return out
    raise TypeError(f"For 'save_checkpoint', save_obj must be a Cell, a list of "
                    f"{{'name', 'data'}} dicts or a dict, got {type(save_obj).__name__}")


def save_checkpoint(save_obj, ckpt_file_name, integrated_save=True, async_save=False,
                    append_dict=None, enc_key=None, enc_mode="AES-GCM", choice_func=None,
                    **kwargs):
    """Saves parameters to `ckpt_file_name` ('.ckpt' is appended when missing).

    `save_obj`: a Cell (anything with `parameters_and_names()`; saved under each
    parameter's `name`, else the yielded name), a list of
    ``{'name': str, 'data': Tensor}`` dicts, or a ``{name: Tensor}`` dict.
    `append_dict` adds ``{name: int | float | bool | str | Tensor}`` entries;
    `choice_func(name) -> bool` selects what is saved. The file is written to a
    temporary file and renamed into place."""
    if enc_key is not None:
        raise NotImplementedError("save_checkpoint: encrypted checkpoints are not supported")
    if not isinstance(ckpt_file_name, (str, os.PathLike)):
        raise TypeError(f"For 'save_checkpoint', ckpt_file_name must be a str, got "
                        f"{type(ckpt_file_name).__name__}")
    path = os.fspath(ckpt_file_name)
    if not path.endswith(".ckpt"):
        path += ".ckpt"
    items = _collect(save_obj)
    if append_dict is not None:
        if not isinstance(append_dict, dict):
            raise TypeError("For 'save_checkpoint', append_dict must be a dict")
        items += list(append_dict.items())

    tensors, strings, seen = [], {}, set()
    for name, value in items:
        if not isinstance(name, str) or not name or len(name) > MAX_NAME_CHARS:
            raise ValueError(f"For 'save_checkpoint', names must be non-empty strings of at most "
                             f"{MAX_NAME_CHARS} characters, got {name!r:.80}")
        if choice_func is not None and not choice_func(name):
            continue
        if name in seen:
            raise ValueError(f"For 'save_checkpoint', the name '{name}' appears twice")
        seen.add(name)
        if isinstance(value, str):
            strings[name] = value
            continue
        d, arr = _as_array(value, name)
        tensors.append((name, d, arr))

    entries, offset = [], 0
    for name, d, arr in tensors:
        entries.append({"name": name, "dtype": d.name, "shape": list(arr.shape),
                        "offset": offset, "nbytes": int(arr.nbytes)})
        offset += -(-arr.nbytes // _ALIGN) * _ALIGN
    header = json.dumps({"format": "msmlir.checkpoint", "version": _VERSION, "tensors": entries,
                         "strings": strings}, ensure_ascii=False, allow_nan=False).encode()
    data_start = -(-(_PREFIX.size + len(header)) // _ALIGN) * _ALIGN

    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".ckpt", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(_PREFIX.pack(_CKPT_MAGIC, _VERSION, 0, len(header)))
            f.write(header)
            f.write(b"\0" * (data_start - _PREFIX.size - len(header)))
            pos = 0
            for (name, d, arr), e in zip(tensors, entries):
                f.write(b"\0" * (e["offset"] - pos))
                f.write(memoryview(_contig(arr.astype(_le(arr.dtype), copy=False))
                                   .reshape(-1).view(np.uint8)))
                pos = e["offset"] + e["nbytes"]
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return None


# ---------------------------------------------------------------------------
# Checkpoints: load
# ---------------------------------------------------------------------------

def _read_checkpoint(path):
    """{name: numpy array | str}, validated (see the module docstring)."""
    with open(path, "rb") as f:
        header, after, size = _read_header(f, path, _CKPT_MAGIC, "checkpoint")
        _exact_keys(path, header, {"format", "version", "tensors", "strings"}, "header")
        if header["format"] != "msmlir.checkpoint" or header["version"] != _VERSION:
            raise _bad(path, f"header describes {header['format']!r} version "
                             f"{header['version']!r}, not an msmlir checkpoint v{_VERSION}")
        data_start = -(-after // _ALIGN) * _ALIGN
        data_len = size - data_start
        if data_len < 0:
            raise _bad(path, "file ends before the data region")
        tensors = header["tensors"]
        strings = header["strings"]
        if not isinstance(tensors, list) or len(tensors) > MAX_TENSORS:
            raise _bad(path, f"'tensors' must be a list of at most {MAX_TENSORS} entries")
        if not isinstance(strings, dict):
            raise _bad(path, "'strings' must be a JSON object")
        names, specs = set(), []
        for i, e in enumerate(tensors):
            what = f"tensor #{i}"
            _exact_keys(path, e, {"name", "dtype", "shape", "offset", "nbytes"}, what)
            name = _name(path, e["name"], f"{what}: name")
            what = f"tensor '{name}'"
            if name in names:
                raise _bad(path, f"duplicate name '{name}'")
            names.add(name)
            d = _dtype(path, e["dtype"], what)
            shape = _shape(path, e["shape"], what)
            nbytes = _int(path, e["nbytes"], f"{what}: nbytes")
            offset = _int(path, e["offset"], f"{what}: offset")
            count = 1
            for s in shape:
                count *= s
            if count * d.np_dtype.itemsize != nbytes:
                raise _bad(path, f"{what}: nbytes {nbytes} does not match shape {list(shape)} "
                                 f"of {d.name} ({count * d.np_dtype.itemsize} bytes)")
            if offset + nbytes > data_len:
                raise _bad(path, f"{what}: data [{offset}, {offset + nbytes}) lies outside the "
                                 f"data region of {data_len} bytes")
            specs.append((offset, nbytes, name, d, shape))
        for k, v in strings.items():
            _name(path, k, "string entry name")
            if not isinstance(v, str):
                raise _bad(path, f"string entry '{k}' must be a string")
            if k in names:
                raise _bad(path, f"duplicate name '{k}'")
        ordered = sorted(specs, key=lambda s: (s[0], s[1]))
        end = 0
        for offset, nbytes, name, _, _ in ordered:
            if nbytes and offset < end:
                raise _bad(path, f"tensor '{name}': data overlaps the previous tensor's data")
            end = max(end, offset + nbytes)

        out = {}
        for offset, nbytes, name, d, shape in specs:
            arr = np.empty(shape, dtype=d.np_dtype)
            if nbytes:
                f.seek(data_start + offset)
                view = arr.reshape(-1).view(np.uint8)
                got = f.readinto(memoryview(view))
                if got != nbytes:
                    raise _bad(path, f"tensor '{name}': truncated data")
                if not np.little_endian and np.dtype(d.np_dtype).itemsize > 1:
                    arr = arr.view(_le(d.np_dtype)).astype(d.np_dtype)
                if d is _dt.bool_ and view.max() > 1:
                    raise _bad(path, f"tensor '{name}': bool data must be bytes 0 or 1")
            out[name] = arr
        out.update(strings)
    return out


def load_checkpoint(ckpt_file_name, net=None, strict_load=False, filter_prefix=None,
                    dec_key=None, dec_mode="AES-GCM", specify_prefix=None, choice_func=None,
                    **kwargs):
    """Loads a checkpoint: {name: Parameter} (string entries stay str). With `net`,
    the parameters are also loaded into it (`load_param_into_net`). `specify_prefix`
    keeps only names with that prefix (str or list), `filter_prefix` drops them,
    `choice_func(name) -> bool` selects."""
    if dec_key is not None:
        raise NotImplementedError("load_checkpoint: encrypted checkpoints are not supported")
    if not isinstance(ckpt_file_name, (str, os.PathLike)):
        raise TypeError(f"For 'load_checkpoint', ckpt_file_name must be a str, got "
                        f"{type(ckpt_file_name).__name__}")
    path = os.fspath(ckpt_file_name)
    if not os.path.isfile(path):
        raise ValueError(f"For 'load_checkpoint', the checkpoint file {path} does not exist")

    def prefixes(p, what):
        if p is None:
            return None
        p = (p,) if isinstance(p, str) else tuple(p)
        if not all(isinstance(x, str) and x for x in p):
            raise TypeError(f"For 'load_checkpoint', {what} must be a non-empty str or a list "
                            f"of them")
        return p

    keep = prefixes(specify_prefix, "specify_prefix")
    drop = prefixes(filter_prefix, "filter_prefix")
    from ..common.parameter import Parameter
    from ..common.tensor import Tensor
    result = {}
    for name, value in _read_checkpoint(path).items():
        if keep is not None and not name.startswith(keep):
            continue
        if drop is not None and name.startswith(drop):
            continue
        if choice_func is not None and not choice_func(name):
            continue
        result[name] = value if isinstance(value, str) else \
            Parameter(Tensor._make(value), name=name)
    if net is not None:
        load_param_into_net(net, result, strict_load=strict_load)
    return result


def load_param_into_net(net, parameter_dict, strict_load=False, remove_redundancy=False):
    """Copies `parameter_dict` values into the parameters of `net` (anything with
    `parameters_and_names()`; matched by each parameter's `name`, else the yielded name). A different dtype of the same
    kind (float/int) is converted unless `strict_load`; a different shape raises.
    Returns (param_not_load, ckpt_not_load): net parameters missing from the dict,
    and dict entries the net has no parameter for."""
    if not hasattr(net, "parameters_and_names"):
        raise TypeError(f"For 'load_param_into_net', net must be a Cell (with "
                        f"parameters_and_names()), got {type(net).__name__}")
    if not isinstance(parameter_dict, dict):
        raise TypeError(f"For 'load_param_into_net', parameter_dict must be a dict, got "
                        f"{type(parameter_dict).__name__}")
    from ..common.tensor import Tensor
    param_not_load, used = [], set()
    for path, param in net.parameters_and_names():
        name = _param_name(path, param)
        if name not in parameter_dict:
            param_not_load.append(name)
            continue
        new = parameter_dict[name]
        if isinstance(new, str) or not (isinstance(new, (Tensor, np.ndarray)) or
                                        hasattr(new, "asnumpy")):
            raise TypeError(f"For 'load_param_into_net', the checkpoint value of '{name}' is "
                            f"not a tensor ({type(new).__name__})")
        new = new if isinstance(new, Tensor) else Tensor(np.asarray(
            new.asnumpy() if hasattr(new, "asnumpy") else new))
        if tuple(new.shape) != tuple(param.shape):
            raise RuntimeError(f"For 'load_param_into_net', {name} in the net has shape "
                               f"{list(param.shape)} but the checkpoint has "
                               f"{list(new.shape)}")
        pdt = _dt.get(param.dtype)
        if new.dtype is not pdt:
            same_kind = (new.dtype.is_float and pdt.is_float) or (new.dtype.is_int and pdt.is_int)
            if strict_load or not same_kind:
                raise RuntimeError(f"For 'load_param_into_net', {name} in the net has dtype "
                                   f"{pdt} but the checkpoint has {new.dtype}"
                                   f"{' (strict_load)' if strict_load else ''}")
            new = new.astype(pdt)
        if hasattr(param, "set_data"):
            param.set_data(new)
        else:
            raise TypeError(f"For 'load_param_into_net', the parameter '{name}' has no set_data")
        used.add(name)
    ckpt_not_load = [k for k, v in parameter_dict.items() if k not in used and
                     not isinstance(v, str)]
    return param_not_load, ckpt_not_load


# ---------------------------------------------------------------------------
# Export / load of compiled graphs
# ---------------------------------------------------------------------------

def _jit_target(net, inputs):
    """(JitFunction, call args) for a jitted function, a plain function, a bound
    jitted method or a Cell-like object with `construct`."""
    from ..frontend.jit import JitFunction, _BoundJit, jit
    if isinstance(net, JitFunction):
        return net, tuple(inputs)
    if isinstance(net, _BoundJit):
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


def _embed_parameters(func, params):
    """Replaces the entry's trailing Parameter arguments (msmlir.jit passes captured
    Parameters as extra inputs) by mindir.constant ops holding their current values,
    so the exported graph is self-contained (MindSpore embeds parameters too)."""
    if not params:
        return
    from mlir import ir
    from ..dialects import mindir
    block = func.regions[0].blocks[0]
    n_args = len(block.arguments)
    first = n_args - len(params)
    if first < 0:
        raise RuntimeError("export: the entry function has fewer arguments than Parameters")
    with ir.InsertionPoint.at_block_begin(block), ir.Location.unknown():
        for k, p in enumerate(params):
            arg = block.arguments[first + k]
            arr = np.asarray(p.asnumpy())
            if tuple(arr.shape) != tuple(ir.RankedTensorType(arg.type).shape):
                raise RuntimeError(f"export: Parameter {getattr(p, 'name', '?')} has shape "
                                   f"{arr.shape}, the graph expects {arg.type}")
            const = mindir.ConstantOp(_dense_attr(arr), results=[arg.type])
            arg.replace_all_uses_with(const.result)
    for k in reversed(range(first, n_args)):
        block.erase_argument(k)
    ftype = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
    func.attributes["function_type"] = ir.TypeAttr.get(
        ir.FunctionType.get(list(ftype.inputs)[:first], list(ftype.results)))
    if "arg_attrs" in func.attributes:
        attrs = list(ir.ArrayAttr(func.attributes["arg_attrs"]))[:first]
        func.attributes["arg_attrs"] = ir.ArrayAttr.get(attrs)


def _reject_host_callbacks(module):
    """A graph with JIT Fallback callbacks needs the Python code they call: not exportable."""
    from ..frontend.fallback import callbacks_in
    found = [origin for _, origin, _ in callbacks_in(module)]
    if found:
        raise ValueError(f"export: the graph calls back into Python at run time (JIT Fallback: "
                         f"{', '.join(found)}), so it cannot run without the Python source; "
                         f"compile those parts with msmlir.ops / msmlir.numpy (or remove print)")


def export(net, *inputs, file_name, file_format="MINDIR", **kwargs):
    """Exports `net` (a msmlir.jit function, a plain function or a Cell-like object
    with `construct`) specialized to `inputs` as a `.mindir` file (MLIR bytecode of
    the mindir module plus a header; see the module docstring). Python values among
    `inputs` are baked into the graph; the tensors are its inputs."""
    if not isinstance(file_format, str) or file_format.upper() != "MINDIR":
        raise ValueError(f"For 'export', file_format must be 'MINDIR' (msmlir does not write "
                         f"{file_format!r})")
    if not isinstance(file_name, (str, os.PathLike)):
        raise TypeError("For 'export', file_name must be a str")
    path = os.fspath(file_name)
    if not path.endswith(".mindir"):
        path += ".mindir"
    jf, args = _jit_target(net, inputs)
    lowered = jf.lower_module(*args)
    from mlir import ir
    from ..frontend.jit import _BUILD_LOCK
    with _BUILD_LOCK, lowered.context:
        # a copy: the jitted function's cached module stays as it is
        module = ir.Module.parse(lowered.module.operation.get_asm(enable_debug_info=True))
        _reject_host_callbacks(module)
        func = _find_func(module, lowered.name)
        if func is None:
            raise RuntimeError(f"export: entry function {lowered.name} not found in the module")
        _embed_parameters(func, list(getattr(lowered, "params", ()) or ()))
        module.operation.verify()
        ftype = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
        in_specs = [_type_spec(t) for t in ftype.inputs]
        out_specs = [_type_spec(t) for t in ftype.results]
        buf = io.BytesIO()
        module.operation.write_bytecode(buf)
    bytecode = buf.getvalue()
    from .. import __version__
    header = json.dumps({
        "format": "msmlir.mindir", "version": _VERSION, "entry": lowered.name,
        "inputs": in_specs, "outputs": out_specs, "out_spec": _spec_to_json(lowered.out_spec),
        "bytecode_nbytes": len(bytecode), "sha256": hashlib.sha256(bytecode).hexdigest(),
        "producer": f"msmlir {__version__}"}, allow_nan=False).encode()
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".mindir", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(_PREFIX.pack(_MIR_MAGIC, _VERSION, 0, len(header)))
            f.write(header)
            f.write(bytecode)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _check_out_spec(path, s, depth=0):
    if depth > 64:
        raise _bad(path, "out_spec is nested too deeply")
    if s == "L":
        return 1
    if isinstance(s, list) and len(s) == 2 and s[0] in ("tuple", "list") and \
            isinstance(s[1], list):
        return sum(_check_out_spec(path, c, depth + 1) for c in s[1])
    if isinstance(s, list) and len(s) == 2 and s[0] == "C" and \
            (s[1] is None or isinstance(s[1], (bool, int, float, str))):
        return 0
    raise _bad(path, f"invalid out_spec element {s!r:.80}")


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
        self.input_specs = [(tuple(i["shape"]), _ALLOWED[i["dtype"]]) for i in header["inputs"]]
        self.output_specs = [(tuple(o["shape"]), _ALLOWED[o["dtype"]])
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
        from ..frontend.jit import _BUILD_LOCK
        ctx = context()
        with _BUILD_LOCK, ctx:
            try:
                module = ir.Module.parse(self._bytecode)
            except Exception as e:  # noqa: BLE001  (MLIRError and friends)
                raise _bad(self.file_name, f"the MLIR bytecode does not parse: {e}") from None
            try:   # before anything else looks at it: only what export writes
                check_loadable(module)
            except ValueError as e:
                raise _bad(self.file_name, str(e)) from None
            func = _find_func(module, self.entry)
            if func is None or "sym_visibility" in func.attributes:
                raise _bad(self.file_name, f"the module has no public function '{self.entry}'")
            ftype = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
            try:
                ins = [_type_spec(t) for t in ftype.inputs]
                outs = [_type_spec(t) for t in ftype.results]
            except Exception as e:  # noqa: BLE001
                raise _bad(self.file_name, f"unsupported function type: {e}") from None
            want_in = [{"shape": list(s), "dtype": d.name} for s, d in self.input_specs]
            want_out = [{"shape": list(s), "dtype": d.name} for s, d in self.output_specs]
            if ins != want_in or outs != want_out:
                raise _bad(self.file_name, "the module's function type does not match the "
                                           "header's inputs/outputs")
            try:
                module.operation.verify()
            except Exception as e:  # noqa: BLE001
                raise _bad(self.file_name, f"the module does not verify: {e}") from None
        return module

    def _compile(self):
        with self._lock:
            if self._compiled is None:
                from mlir import ir
                from ..compiler import compile_module, context
                from ..frontend.jit import _BUILD_LOCK
                from ..frontend import jit as _jit
                with _BUILD_LOCK, context():
                    copy = ir.Module.parse(self._bytecode)
                    expand = getattr(_jit, "expand_transforms", None)
                    if expand is not None:   # mindir.grad ops -> mindir-autodiff, as jit does
                        expand(copy)
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


_ISOLATED_CHECK = r"""
import sys
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


def _isolated_parse_check(path, bytecode, timeout=300):
    """Parses and verifies `bytecode` in a child Python process first, so that a payload
    that crashes MLIR's bytecode reader is rejected instead of killing this process."""
    import subprocess
    import sys
    try:
        r = subprocess.run([sys.executable, "-I", "-c", _ISOLATED_CHECK], input=bytecode,
                           capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise _bad(path, "parsing the MLIR bytecode timed out (isolated check)") from None
    if r.returncode != 0 or r.stdout != b"msmlir-bytecode-ok":
        how = f"exit status {r.returncode}" if r.returncode >= 0 else f"signal {-r.returncode}"
        tail = r.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or [""]
        raise _bad(path, f"the MLIR bytecode does not parse or verify (isolated check: {how}; "
                         f"{tail[0][:300]})")


def load(file_name, isolated=True, **kwargs):
    """Loads a `.mindir` file written by `export` as a callable `GraphCell`.
    With `isolated` (default), the bytecode is first parsed in a child process
    (see the module docstring)."""
    if kwargs.get("dec_key") is not None:
        raise NotImplementedError("load: encrypted models are not supported")
    if not isinstance(file_name, (str, os.PathLike)):
        raise TypeError("For 'load', file_name must be a str")
    path = os.fspath(file_name)
    if not os.path.isfile(path):
        raise ValueError(f"For 'load', the file {path} does not exist")
    with open(path, "rb") as f:
        header, after, size = _read_header(f, path, _MIR_MAGIC, "MindIR model")
        _exact_keys(path, header, {"format", "version", "entry", "inputs", "outputs", "out_spec",
                                   "bytecode_nbytes", "sha256", "producer"}, "header")
        if header["format"] != "msmlir.mindir" or header["version"] != _VERSION:
            raise _bad(path, "header does not describe an msmlir MindIR v1 model")
        _name(path, header["entry"], "entry")
        if not isinstance(header["producer"], str):
            raise _bad(path, "producer must be a string")
        for key in ("inputs", "outputs"):
            specs = header[key]
            if not isinstance(specs, list) or len(specs) > 100_000:
                raise _bad(path, f"{key} must be a list")
            for i, s in enumerate(specs):
                _exact_keys(path, s, {"shape", "dtype"}, f"{key}[{i}]")
                _shape(path, s["shape"], f"{key}[{i}]")
                _dtype(path, s["dtype"], f"{key}[{i}]")
        n_leaves = _check_out_spec(path, header["out_spec"])
        if n_leaves != len(header["outputs"]):
            raise _bad(path, f"out_spec has {n_leaves} tensors but outputs lists "
                             f"{len(header['outputs'])}")
        nbytes = _int(path, header["bytecode_nbytes"], "bytecode_nbytes")
        if after + nbytes != size:
            raise _bad(path, f"bytecode_nbytes {nbytes} does not match the file size "
                             f"({size - after} bytes after the header)")
        digest = header["sha256"]
        if not isinstance(digest, str) or len(digest) != 64:
            raise _bad(path, "sha256 must be a 64-character hex string")
        bytecode = f.read(nbytes)
    if len(bytecode) != nbytes or hashlib.sha256(bytecode).hexdigest() != digest.lower():
        raise _bad(path, "the bytecode does not match its SHA-256 checksum")
    if not bytecode.startswith(b"ML\xefR"):
        raise _bad(path, "the payload is not MLIR bytecode")
    if isolated:
        _isolated_parse_check(path, bytecode)
    return GraphCell(path, header, bytecode)
