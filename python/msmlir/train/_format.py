"""The container shared by checkpoints and exported models, and its validated readers.

Both file kinds start with the same prefix (all integers little-endian)::

    offset 0   8 bytes   magic (b"MSMLCKPT" or b"MSMLMIR\\0")
    offset 8   u32       format version (checkpoints 2, or 1 without checksums; models 1)
    offset 12  u32       reserved (0)
    offset 16  u64       H = length of the header
    offset 24  H bytes   header: a strict UTF-8 JSON object

Every field read from a file goes through a reader here that checks it and
raises `CheckpointFormatError` (a ValueError) naming the file and the field;
nothing here turns file contents into code (no pickle, no eval).
"""
from __future__ import annotations

import itertools
import json
import os
import struct

import numpy as np

from .. import dtype as _dt

CKPT_MAGIC = b"MSMLCKPT"
MIR_MAGIC = b"MSMLMIR\0"
VERSION = 1
PREFIX = struct.Struct("<8sIIQ")      # magic, version, reserved, header length
ALIGN = 64
MAX_HEADER_BYTES = 64 << 20
MAX_TENSORS = 1_000_000
MAX_NAME_CHARS = 4096
MAX_RANK = 32


class CheckpointFormatError(ValueError):
    """A checkpoint or exported model file is malformed or unsafe to load."""


def contig(a):
    """C-contiguous without np.ascontiguousarray's promotion of 0-d arrays to 1-d."""
    return np.asarray(a, order="C")


def _allowed_dtypes() -> dict:
    return {d.name: d for d in _dt.all_dtypes if d.np_dtype is not None}


ALLOWED = _allowed_dtypes()     # dtype name -> msmlir dtype: what a file may hold


def le(np_dtype: np.dtype) -> np.dtype:
    """The little-endian variant of a dtype (the file byte order)."""
    d = np.dtype(np_dtype)
    return d if np.little_endian or d.itemsize == 1 else d.newbyteorder("<")


def bad(path, msg) -> CheckpointFormatError:
    return CheckpointFormatError(f"{path}: {msg}")


# --- strict JSON header ----------------------------------------------------------

def _no_dupes(pairs):
    out = {}
    for k, v in pairs:
        if k in out:
            raise ValueError(f"duplicate key {k!r}")
        out[k] = v
    return out


def _reject_constant(name):
    raise ValueError(f"non-finite number {name} is not allowed")


def read_header(f, path, magic, what, versions=(VERSION,)):
    """Reads and validates the fixed prefix and the JSON header; returns
    (header dict, offset just after the header, file size). The prefix's version
    must be one of `versions` and equal the header's "version"."""
    size = os.fstat(f.fileno()).st_size
    raw = f.read(PREFIX.size)
    if len(raw) < PREFIX.size:
        raise bad(path, f"file too short to be an msmlir {what} ({size} bytes)")
    got_magic, version, _reserved, hlen = PREFIX.unpack(raw)
    if got_magic != magic:
        hint = ""
        if raw[:1] == b"\x80":
            hint = " (it looks like a Python pickle, which msmlir never loads)"
        raise bad(path, f"not an msmlir {what} (bad magic {got_magic!r}){hint}")
    if version not in versions:
        raise bad(path, f"unsupported {what} format version {version} (supported: "
                        f"{', '.join(map(str, versions))})")
    if hlen > MAX_HEADER_BYTES or hlen > size - PREFIX.size:
        raise bad(path, f"header length {hlen} is larger than the file allows "
                        f"({size - PREFIX.size} bytes after the prefix, limit "
                        f"{MAX_HEADER_BYTES})")
    text = f.read(hlen)
    if len(text) != hlen:
        raise bad(path, "truncated header")
    try:
        header = json.loads(text.decode("utf-8", errors="strict"),
                            object_pairs_hook=_no_dupes, parse_constant=_reject_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise bad(path, f"header is not valid strict JSON: {e}") from None
    if not isinstance(header, dict):
        raise bad(path, "header must be a JSON object")
    if header.get("version") != version:
        raise bad(path, f"the header's version {header.get('version')!r} differs from the "
                        f"file prefix's version {version}")
    return header, PREFIX.size + hlen, size


# --- field readers ---------------------------------------------------------------

def read_int(path, v, what, lo=0, hi=None):
    if isinstance(v, bool) or not isinstance(v, int):
        raise bad(path, f"{what} must be an integer, got {type(v).__name__}")
    if v < lo or (hi is not None and v > hi):
        raise bad(path, f"{what} {v} is out of range")
    return v


def read_name(path, v, what="name"):
    if not isinstance(v, str):
        raise bad(path, f"{what} must be a string, got {type(v).__name__}")
    if not v or len(v) > MAX_NAME_CHARS:
        raise bad(path, f"{what} must have 1..{MAX_NAME_CHARS} characters")
    return v


def read_dtype(path, v, what):
    if not isinstance(v, str) or v not in ALLOWED:
        raise bad(path, f"{what}: dtype {v!r} is not allowed (allowed: {sorted(ALLOWED)})")
    return ALLOWED[v]


def read_shape(path, v, what):
    if not isinstance(v, list) or len(v) > MAX_RANK:
        raise bad(path, f"{what}: shape must be a list of at most {MAX_RANK} integers")
    return tuple(read_int(path, d, f"{what}: dimension") for d in v)


# numpy's limit: the product of the non-zero dims times the item size must fit
# in an intp (a [0, 2**62] shape is 0 bytes but no numpy array can have it).
MAX_ARRAY_BYTES = 2 ** 62


def check_array_size(path, shape, itemsize, what):
    """The shape is one numpy can allocate (see MAX_ARRAY_BYTES)."""
    n = itemsize
    for d in shape:
        n *= d or 1
    if n > MAX_ARRAY_BYTES:
        raise bad(path, f"{what}: shape {list(shape)} is too large for an array "
                        f"(more than 2**62 bytes ignoring zero dims)")


def exact_keys(path, d, keys, what):
    if not isinstance(d, dict):
        raise bad(path, f"{what} must be a JSON object")
    if set(d) != set(keys):
        raise bad(path, f"{what} must have exactly the keys {sorted(keys)}, got {sorted(d)}")


# --- writing -----------------------------------------------------------------------

def _fsync_directory(directory):
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _stale_temp_files(directory, base):
    """Temporary files of `base` whose writer process is gone (killed mid-save)."""
    prefix = f".{base}.tmp-"
    for name in os.listdir(directory):
        if not name.startswith(prefix):
            continue
        pid = name[len(prefix):].split("-")[0]
        if pid.isdigit() and not os.path.exists(f"/proc/{pid}"):
            yield os.path.join(directory, name)


_TEMP_NAMES = itertools.count()


def _link_open_file(fd, name):
    """linkat(/proc/self/fd/N, name, AT_SYMLINK_FOLLOW): the way to name an
    O_TMPFILE file (os.link does not pass the flag)."""
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    at_fdcwd, at_symlink_follow = -100, 0x400
    if libc.linkat(at_fdcwd, f"/proc/self/fd/{fd}".encode(), at_fdcwd,
                   os.fsencode(name), at_symlink_follow) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err), name)


def write_atomically(path, write):
    """Calls write(file) on a temporary file next to `path`, fsyncs it, renames it
    into place and fsyncs the directory: a reader sees the old file or the whole
    new one, also after a crash of the machine.

    The temporary file is anonymous (O_TMPFILE) where the file system allows, so
    a process killed mid-save leaves nothing behind; elsewhere it is named
    `.<name>.tmp-<pid>-<n>`, and the next save of the same file removes the
    ones whose writer is dead."""
    path = os.path.abspath(path)
    directory, base = os.path.split(path)
    for stale in _stale_temp_files(directory, base):
        try:
            os.unlink(stale)
        except OSError:
            pass
    tmp = os.path.join(directory, f".{base}.tmp-{os.getpid()}-{next(_TEMP_NAMES)}")
    fd = None
    if hasattr(os, "O_TMPFILE"):
        try:
            fd = os.open(directory, os.O_TMPFILE | os.O_WRONLY, 0o644)
        except OSError:
            fd = None
    anonymous = fd is not None
    if fd is None:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
            if anonymous:   # give the finished file a name, then move it into place
                _link_open_file(f.fileno(), tmp)
        os.replace(tmp, path)
        _fsync_directory(directory)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
