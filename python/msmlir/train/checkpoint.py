"""Checkpoints (MindSpore's `save_checkpoint`, `load_checkpoint`,
`load_param_into_net`): parameters in a file that is safe to load.

Two formats: msmlir's own (``*.ckpt``, the default) and the ecosystem's
safetensors (``format="safetensors"``, ``*.safetensors``, through the
`safetensors` library; string entries go in its metadata). Neither can carry code.

Checkpoint file (``*.ckpt``), after the common prefix (see `_format`)::

    offset 0   8 bytes   magic  b"MSMLCKPT", u32 version (2), u32 reserved, u64 H
    offset 24  H bytes   header: UTF-8 JSON object
                            {"format": "msmlir.checkpoint", "version": 2,
                             "tensors": [{"name": str, "dtype": str, "shape": [int, ...],
                                          "offset": int, "nbytes": int, "crc32": int}, ...],
                             "strings": {name: str, ...}}
    D = 24 + H rounded up to a multiple of 64
    offset D   data region: each tensor's raw C-order little-endian bytes at
               D + offset (offsets are 64-byte aligned when written)

Loading checks: the magic and version; H <= 64 MiB and within the file; the
header is strict JSON (no NaN/Infinity, no duplicate keys) with exactly the keys
above; names are non-empty strings (at most 4096 characters), unique across
tensors and strings; dtype is one of the allow-list (float16, float32, float64,
int8, int32, int64, bool, and bfloat16 when ml_dtypes is installed); shape is a
list of at most 32 non-negative ints that numpy can allocate; nbytes ==
prod(shape) * itemsize; offset and nbytes are non-negative ints with the region
inside the file; regions do not overlap; the data's CRC-32 matches (version 1
files, written before checksums, have none); bool bytes are 0 or 1. Any
violation raises
`CheckpointFormatError` (a ValueError) naming the file and the field. The
memory a load allocates is bounded by the file's size; checkpoints carry no code.
"""
from __future__ import annotations

import json
import numbers
import os
import zlib

import numpy as np

from .. import dtype as _dt
from ._format import (ALIGN, ALLOWED, CKPT_MAGIC, MAX_NAME_CHARS, MAX_TENSORS, PREFIX,
                      CheckpointFormatError, bad, check_array_size, contig, exact_keys, le,
                      read_dtype, read_header, read_int, read_name, read_shape, write_atomically)

CKPT_VERSION = 2            # 1: the same without the per-tensor "crc32"
FORMATS = ("ckpt", "safetensors")

__all__ = ["save_checkpoint", "load_checkpoint", "load_param_into_net"]


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
                        f"checkpoints do not store (allowed: {sorted(ALLOWED)})") from None
    if d.name not in ALLOWED:
        raise TypeError(f"For 'save_checkpoint', '{name}' has dtype {d.name}, which is not "
                        f"allowed in msmlir checkpoints")
    return d, contig(arr)


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
                    format="ckpt", **kwargs):  # noqa: A002  (MindSpore's name)
    """Saves parameters to `ckpt_file_name` ('.ckpt' is appended when missing).

    `save_obj`: a Cell (anything with `parameters_and_names()`; saved under each
    parameter's `name`, else the yielded name), a list of
    ``{'name': str, 'data': Tensor}`` dicts, or a ``{name: Tensor}`` dict.
    `append_dict` adds ``{name: int | float | bool | str | Tensor}`` entries;
    `choice_func(name) -> bool` selects what is saved. `format`: "ckpt" (msmlir's
    checksummed format) or "safetensors". The file is written to a temporary
    file, synced and renamed into place."""
    if enc_key is not None:
        raise NotImplementedError("save_checkpoint: encrypted checkpoints are not supported")
    if not isinstance(ckpt_file_name, (str, os.PathLike)):
        raise TypeError(f"For 'save_checkpoint', ckpt_file_name must be a str, got "
                        f"{type(ckpt_file_name).__name__}")
    _check_format(format, "save_checkpoint")
    path = os.fspath(ckpt_file_name)
    if not path.endswith("." + format):
        path += "." + format
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

    if format == "safetensors":
        _save_safetensors(path, tensors, strings)
        return None
    entries, offset, payloads = [], 0, []
    for name, d, arr in tensors:
        data = memoryview(contig(arr.astype(le(arr.dtype), copy=False)).reshape(-1)
                          .view(np.uint8))
        payloads.append(data)
        entries.append({"name": name, "dtype": d.name, "shape": list(arr.shape),
                        "offset": offset, "nbytes": int(arr.nbytes), "crc32": zlib.crc32(data)})
        offset += -(-arr.nbytes // ALIGN) * ALIGN
    header = json.dumps({"format": "msmlir.checkpoint", "version": CKPT_VERSION,
                         "tensors": entries, "strings": strings},
                        ensure_ascii=False, allow_nan=False).encode()
    data_start = -(-(PREFIX.size + len(header)) // ALIGN) * ALIGN

    def write(f):
        f.write(PREFIX.pack(CKPT_MAGIC, CKPT_VERSION, 0, len(header)))
        f.write(header)
        f.write(b"\0" * (data_start - PREFIX.size - len(header)))
        pos = 0
        for data, e in zip(payloads, entries):
            f.write(b"\0" * (e["offset"] - pos))
            f.write(data)
            pos = e["offset"] + e["nbytes"]
    write_atomically(path, write)
    return None


def _check_format(format, who):  # noqa: A002
    if format not in FORMATS:
        raise ValueError(f"For '{who}', format must be one of {list(FORMATS)}, got {format!r}")


def _save_safetensors(path, tensors, strings):
    from safetensors.numpy import save
    data = save({name: contig(arr) for name, _, arr in tensors}, metadata=strings or None)
    write_atomically(path, lambda f: f.write(data))


def _read_safetensors(path):
    """{name: numpy array | str} from a safetensors file, dtypes checked against
    the allow-list; the library validates the file's structure."""
    from safetensors import SafetensorError, safe_open
    out = {}
    try:
        with safe_open(path, framework="numpy") as f:
            metadata = f.metadata() or {}
            for name in f.keys():
                arr = f.get_tensor(name)
                if not any(d.np_dtype == arr.dtype for d in ALLOWED.values()):
                    raise bad(path, f"tensor '{name}': dtype {arr.dtype} is not allowed "
                                    f"(allowed: {sorted(ALLOWED)})")
                out[name] = arr
    except CheckpointFormatError:
        raise
    except (SafetensorError, OSError, ValueError, TypeError) as e:
        raise bad(path, f"not a valid safetensors file: {e}") from None
    for k, v in metadata.items():
        if k in out:
            raise bad(path, f"duplicate name '{k}'")
        out[k] = v
    return out



def _read_checkpoint(path):
    """{name: numpy array | str}, validated (see the module docstring)."""
    with open(path, "rb") as f:
        header, after, size = read_header(f, path, CKPT_MAGIC, "checkpoint",
                                          versions=(1, CKPT_VERSION))
        exact_keys(path, header, {"format", "version", "tensors", "strings"}, "header")
        version = header["version"]     # 1 or 2, as the prefix (read_header)
        if header["format"] != "msmlir.checkpoint":
            raise bad(path, f"header describes {header['format']!r}, not an msmlir checkpoint")
        keys = {"name", "dtype", "shape", "offset", "nbytes"} | (
            {"crc32"} if version >= 2 else set())
        data_start = -(-after // ALIGN) * ALIGN
        data_len = size - data_start
        if data_len < 0:
            raise bad(path, "file ends before the data region")
        tensors = header["tensors"]
        strings = header["strings"]
        if not isinstance(tensors, list) or len(tensors) > MAX_TENSORS:
            raise bad(path, f"'tensors' must be a list of at most {MAX_TENSORS} entries")
        if not isinstance(strings, dict):
            raise bad(path, "'strings' must be a JSON object")
        names, specs = set(), []
        for i, e in enumerate(tensors):
            what = f"tensor #{i}"
            exact_keys(path, e, keys, what)
            name = read_name(path, e["name"], f"{what}: name")
            what = f"tensor '{name}'"
            if name in names:
                raise bad(path, f"duplicate name '{name}'")
            names.add(name)
            d = read_dtype(path, e["dtype"], what)
            shape = read_shape(path, e["shape"], what)
            nbytes = read_int(path, e["nbytes"], f"{what}: nbytes")
            offset = read_int(path, e["offset"], f"{what}: offset")
            crc = read_int(path, e["crc32"], f"{what}: crc32", hi=2 ** 32 - 1) \
                if version >= 2 else None
            check_array_size(path, shape, d.np_dtype.itemsize, what)
            count = 1
            for s in shape:
                count *= s
            if count * d.np_dtype.itemsize != nbytes:
                raise bad(path, f"{what}: nbytes {nbytes} does not match shape {list(shape)} "
                                 f"of {d.name} ({count * d.np_dtype.itemsize} bytes)")
            if offset + nbytes > data_len:
                raise bad(path, f"{what}: data [{offset}, {offset + nbytes}) lies outside the "
                                 f"data region of {data_len} bytes")
            specs.append((offset, nbytes, name, d, shape, crc))
        for k, v in strings.items():
            read_name(path, k, "string entry name")
            if not isinstance(v, str):
                raise bad(path, f"string entry '{k}' must be a string")
            if k in names:
                raise bad(path, f"duplicate name '{k}'")
        ordered = sorted(specs, key=lambda s: (s[0], s[1]))
        end = 0
        for offset, nbytes, name, *_ in ordered:
            if nbytes and offset < end:
                raise bad(path, f"tensor '{name}': data overlaps the previous tensor's data")
            end = max(end, offset + nbytes)

        out = {}
        for offset, nbytes, name, d, shape, crc in specs:
            arr = np.empty(shape, dtype=d.np_dtype)
            view = arr.reshape(-1).view(np.uint8)
            if nbytes:
                f.seek(data_start + offset)
                got = f.readinto(memoryview(view))
                if got != nbytes:
                    raise bad(path, f"tensor '{name}': truncated data")
            if crc is not None and zlib.crc32(memoryview(view)) != crc:
                raise bad(path, f"tensor '{name}': data does not match its CRC-32 checksum "
                                f"(the file is corrupt)")
            if nbytes:
                if not np.little_endian and np.dtype(d.np_dtype).itemsize > 1:
                    arr = arr.view(le(d.np_dtype)).astype(d.np_dtype)
                if d is _dt.bool_ and view.max() > 1:
                    raise bad(path, f"tensor '{name}': bool data must be bytes 0 or 1")
            out[name] = arr
        out.update(strings)
    return out


def load_checkpoint(ckpt_file_name, net=None, strict_load=False, filter_prefix=None,
                    dec_key=None, dec_mode="AES-GCM", specify_prefix=None, choice_func=None,
                    format="ckpt", **kwargs):  # noqa: A002  (MindSpore's name)
    """Loads a checkpoint: {name: Parameter} (string entries stay str). With `net`,
    the parameters are also loaded into it (`load_param_into_net`). `specify_prefix`
    keeps only names with that prefix (str or list), `filter_prefix` drops them,
    `choice_func(name) -> bool` selects. `format`: "ckpt" or "safetensors"."""
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
    _check_format(format, "load_checkpoint")
    read = _read_safetensors if format == "safetensors" else _read_checkpoint
    for name, value in read(path).items():
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
