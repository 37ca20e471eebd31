"""MindSpore's `mindspore.mindrecord`: `FileWriter` / `FileReader` for record files
that `dataset.MindDataset` reads.

The on-disk layout is msmlir's own, NOT MindSpore's page-based MindRecord layout
(which could not be reproduced and checked without MindSpore): files written here
are read by msmlir only, and MindSpore's files are rejected with a clear error. The
API (schema, index fields, shards, `file_name + str(i)` shard names, the `.db`
companion file) is MindSpore's. Layout of one shard file, little-endian:

    b"MSMLIRMR" | u32 version (1) | u32 n | header: n bytes of UTF-8 JSON | u32 crc32(header)
    records, each:  u64 len | payload (len bytes) | u32 crc32(payload)
    index:          u64 offset of each record (from the file start)
    trailer (32 B): u64 index offset | u64 record count | u32 crc32(index) | u32 0 | b"MSMLREND"

The header holds the schema ({field: {"type", "shape"?}}), its description, the
index fields, and the shard set (`shard_id`, `shard_num`, the file names of all
shards, a random `set_id` shared by them). A payload is the fields in schema order:
int32/int64/float32/float64 scalars as their bytes; "string" as u32 length + UTF-8;
"bytes" as u64 length + bytes; a field with a "shape" (numeric types) as u8 ndim,
ndim x u32 dims, then the C-order data. The reader checks every length, dimension
(against the schema's, -1 = any), CRC and offset, so a truncated, corrupted or
foreign file raises a RuntimeError naming the file; nothing read is ever executed
(JSON and raw numbers only). A file without its trailer was not committed.

Like MindSpore, `commit` also writes `file_name.db` per shard: an SQLite file with
the index fields of every row (table INDEXES: ROW_ID plus one column per index
field), which lets `os.remove(f + ".db")` clean-up code and `overwrite` checks work.
"""
from __future__ import annotations

import json
import math
import numbers
import os
import re
import sqlite3
import struct
import uuid
import zlib

import numpy as np

__all__ = ["FileWriter", "FileReader", "SUCCESS", "FAILED"]

SUCCESS = 0
FAILED = 1

MAGIC = b"MSMLIRMR"
END_MAGIC = b"MSMLREND"
VERSION = 1
_TRAILER = struct.Struct("<QQII8s")
_NUMERIC = {"int32": np.dtype("<i4"), "int64": np.dtype("<i8"), "float32": np.dtype("<f4"),
            "float64": np.dtype("<f8")}
_TYPES = tuple(_NUMERIC) + ("string", "bytes")
_NAME = re.compile(r"^[0-9a-zA-Z_]+$")
_MAX_HEADER = 64 << 20
_MAX_NDIM = 32


# ---------------------------------------------------------------------------
# schema
# ---------------------------------------------------------------------------

def check_schema(schema, where="add_schema"):
    """Validates a schema dict {name: {"type": t[, "shape": [d, ...]]}}; returns a
    normalised copy (shape as a list of ints, -1 for any size)."""
    if not isinstance(schema, dict) or not schema:
        raise ValueError(f"{where}: the schema must be a non-empty dict of fields, got "
                         f"{schema!r}")
    out = {}
    for name, spec in schema.items():
        if not isinstance(name, str) or not _NAME.match(name):
            raise ValueError(f"{where}: field name {name!r} must be letters, digits and '_'")
        if not isinstance(spec, dict) or "type" not in spec or \
                set(spec) - {"type", "shape"}:
            raise ValueError(f"{where}: field '{name}' must be {{'type': ..., ['shape': "
                             f"...]}}, got {spec!r}")
        t = spec["type"]
        if t not in _TYPES:
            raise ValueError(f"{where}: field '{name}' has type {t!r}; the types are "
                             f"{list(_TYPES)}")
        norm = {"type": t}
        if "shape" in spec:
            shape = spec["shape"]
            if t not in _NUMERIC:
                raise ValueError(f"{where}: field '{name}' of type {t} cannot have a shape")
            if not isinstance(shape, (list, tuple)) or not 1 <= len(shape) <= _MAX_NDIM or \
                    not all(isinstance(d, numbers.Integral) and not isinstance(d, bool) and
                            (d == -1 or d > 0) for d in shape):
                raise ValueError(f"{where}: field '{name}' has shape {shape!r}; a shape is a "
                                 f"list of 1 to {_MAX_NDIM} positive ints or -1")
            norm["shape"] = [int(d) for d in shape]
        out[name] = norm
    return out


def _field_kind(spec):
    return "array" if "shape" in spec else spec["type"]


def _encode_field(name, spec, value, where):
    t = spec["type"]
    if "shape" in spec:
        arr = np.asarray(value.asnumpy() if hasattr(value, "asnumpy") else value)
        if arr.dtype == object or arr.dtype.kind not in "biuf":
            raise TypeError(f"{where}: field '{name}' must be a numeric array, got "
                            f"{arr.dtype}")
        want = spec["shape"]
        if arr.ndim != len(want) and not (len(want) == 1 and want[0] == -1):
            raise ValueError(f"{where}: field '{name}' has shape {list(arr.shape)}, the schema "
                             f"says {want}")
        if len(want) == 1 and want[0] == -1:
            arr = arr.reshape(-1)
        for d, w in zip(arr.shape, want):
            if w != -1 and d != w:
                raise ValueError(f"{where}: field '{name}' has shape {list(arr.shape)}, the "
                                 f"schema says {want}")
        dt = _NUMERIC[t]
        if dt.kind == "i" and arr.dtype.kind == "f":
            raise TypeError(f"{where}: field '{name}' is {t}, got float data")
        if dt.kind == "i" and arr.size and (arr.min() < np.iinfo(dt).min or
                                            arr.max() > np.iinfo(dt).max):
            raise ValueError(f"{where}: field '{name}' has values outside {t}")
        if max(arr.shape, default=0) >= 2 ** 32:
            raise ValueError(f"{where}: field '{name}' is too large")
        data = np.ascontiguousarray(arr, dtype=dt).tobytes()
        return struct.pack(f"<B{arr.ndim}I", arr.ndim, *arr.shape) + data
    if t in _NUMERIC:
        v = value.asnumpy() if hasattr(value, "asnumpy") else value
        if isinstance(v, np.ndarray):
            if v.size != 1:
                raise ValueError(f"{where}: field '{name}' is a scalar {t}, got an array of "
                                 f"shape {list(v.shape)}")
            v = v.reshape(()).item()
        dt = _NUMERIC[t]
        if dt.kind == "i":
            if isinstance(v, bool) or not isinstance(v, numbers.Integral):
                raise TypeError(f"{where}: field '{name}' is {t}, got {type(v).__name__}")
            if not np.iinfo(dt).min <= int(v) <= np.iinfo(dt).max:
                raise ValueError(f"{where}: field '{name}' value {v} is outside {t}")
        elif isinstance(v, bool) or not isinstance(v, numbers.Real):
            raise TypeError(f"{where}: field '{name}' is {t}, got {type(v).__name__}")
        return np.asarray(v, dtype=dt).tobytes()
    if t == "string":
        if not isinstance(value, str):
            raise TypeError(f"{where}: field '{name}' is a string, got {type(value).__name__}")
        b = value.encode("utf-8")
        if len(b) >= 2 ** 32:
            raise ValueError(f"{where}: field '{name}' is too long")
        return struct.pack("<I", len(b)) + b
    if isinstance(value, np.ndarray) and value.dtype == np.uint8 and value.ndim == 1:
        value = value.tobytes()
    if not isinstance(value, (bytes, bytearray, memoryview)):
        raise TypeError(f"{where}: field '{name}' is bytes, got {type(value).__name__}")
    value = bytes(value)
    return struct.pack("<Q", len(value)) + value


def decode_record(payload, schema, path, row, raw_bytes=False):
    """The dict of one record's fields (numpy values; bytes as a uint8 array, or
    Python bytes with `raw_bytes`), checking every length against the payload."""
    out = {}
    pos = 0
    n = len(payload)

    def take(k, what):
        nonlocal pos
        if k < 0 or pos + k > n:
            raise RuntimeError(f"{path}: record {row} is corrupted ({what} runs past the "
                               f"record's end)")
        b = payload[pos:pos + k]
        pos += k
        return b

    for name, spec in schema.items():
        t = spec["type"]
        if "shape" in spec:
            (ndim,) = struct.unpack("<B", take(1, f"field '{name}'"))
            want = spec["shape"]
            if ndim != len(want):
                raise RuntimeError(f"{path}: record {row} field '{name}' has {ndim} dims, the "
                                   f"schema says {want}")
            dims = struct.unpack(f"<{ndim}I", take(4 * ndim, f"field '{name}'"))
            for d, w in zip(dims, want):
                if w != -1 and d != w:
                    raise RuntimeError(f"{path}: record {row} field '{name}' has shape "
                                       f"{list(dims)}, the schema says {want}")
            dt = _NUMERIC[t]
            count = math.prod(dims)                    # Python ints: no overflow
            data = take(count * dt.itemsize, f"field '{name}'")
            out[name] = np.frombuffer(data, dtype=dt).astype(dt.newbyteorder("="))\
                .reshape(dims)
        elif t in _NUMERIC:
            dt = _NUMERIC[t]
            out[name] = np.frombuffer(take(dt.itemsize, f"field '{name}'"), dtype=dt)\
                .astype(dt.newbyteorder("=")).reshape(())
        elif t == "string":
            (k,) = struct.unpack("<I", take(4, f"field '{name}'"))
            try:
                out[name] = take(k, f"field '{name}'").decode("utf-8")
            except UnicodeDecodeError:
                raise RuntimeError(f"{path}: record {row} field '{name}' is not UTF-8") \
                    from None
        else:
            (k,) = struct.unpack("<Q", take(8, f"field '{name}'"))
            b = take(k, f"field '{name}'")
            out[name] = bytes(b) if raw_bytes else np.frombuffer(b, dtype=np.uint8).copy()
    if pos != n:
        raise RuntimeError(f"{path}: record {row} is corrupted ({n - pos} bytes after its "
                           f"last field)")
    return out


# ---------------------------------------------------------------------------
# writer
# ---------------------------------------------------------------------------

class FileWriter:
    """Writes rows (dicts) to `shard_num` record files: `file_name` itself when
    shard_num is 1, else `file_name + "0"` ... `file_name + str(shard_num - 1)`
    (MindSpore's naming). Row k of all rows written goes to shard k % shard_num.
    Call `add_schema` (and optionally `add_index`) before `write_raw_data`, then
    `commit`. Existing files raise unless `overwrite=True`. Format: see the module
    docstring (msmlir's own layout, not MindSpore's)."""

    def __init__(self, file_name, shard_num=1, overwrite=False):
        if not isinstance(file_name, str) or not file_name:
            raise TypeError(f"FileWriter: file_name must be a non-empty str, got {file_name!r}")
        if isinstance(shard_num, bool) or not isinstance(shard_num, numbers.Integral) or \
                not 1 <= shard_num <= 1000:
            raise ValueError(f"FileWriter: shard_num must be an int in [1, 1000], got "
                             f"{shard_num!r}")
        if os.path.isdir(file_name):
            raise ValueError(f"FileWriter: {file_name} is a directory")
        d = os.path.dirname(os.path.abspath(file_name))
        if not os.path.isdir(d):
            raise ValueError(f"FileWriter: the directory {d} does not exist")
        self._paths = [file_name] if shard_num == 1 else \
            [f"{file_name}{i}" for i in range(shard_num)]
        for p in self._paths:
            for q in (p, p + ".db"):
                if os.path.exists(q):
                    if not overwrite:
                        raise RuntimeError(f"FileWriter: {q} already exists; remove it or "
                                           f"pass overwrite=True")
                    os.remove(q)
        self._schema = None
        self._desc = ""
        self._index = []
        self._files = None
        self._offsets = [[] for _ in self._paths]
        self._index_rows = [[] for _ in self._paths]
        self._next = 0
        self._committed = False
        self._header_size = 1 << 24
        self._page_size = 1 << 25

    # MindSpore's tuning knobs: validated and recorded (no pages in this layout)
    def set_header_size(self, header_size):
        if not isinstance(header_size, numbers.Integral) or not \
                (1 << 14) <= header_size <= (1 << 30):
            raise ValueError(f"FileWriter.set_header_size: {header_size!r} is not in "
                             f"[16 KB, 1 GB]")
        self._header_size = int(header_size)
        return SUCCESS

    def set_page_size(self, page_size):
        if not isinstance(page_size, numbers.Integral) or not \
                (1 << 15) <= page_size <= (1 << 30):
            raise ValueError(f"FileWriter.set_page_size: {page_size!r} is not in "
                             f"[32 KB, 1 GB]")
        self._page_size = int(page_size)
        return SUCCESS

    def _check_open(self, what):
        if self._committed:
            raise RuntimeError(f"FileWriter.{what}: the writer was already committed")

    def add_schema(self, content, desc=None):
        """Sets the schema (see `check_schema`); returns the schema id (0)."""
        self._check_open("add_schema")
        if self._files is not None:
            raise RuntimeError("FileWriter.add_schema: rows were already written")
        if self._schema is not None:
            raise RuntimeError("FileWriter.add_schema: the schema was already added")
        if desc is not None and not isinstance(desc, str):
            raise TypeError(f"FileWriter.add_schema: desc must be a str, got {desc!r}")
        self._schema = check_schema(content)
        self._desc = desc or ""
        return 0

    def add_index(self, index_fields):
        """Fields (scalar numeric or string, in the schema) recorded in the `.db` index."""
        self._check_open("add_index")
        if self._files is not None:
            raise RuntimeError("FileWriter.add_index: rows were already written")
        if self._schema is None:
            raise RuntimeError("FileWriter.add_index: add the schema first")
        if not isinstance(index_fields, list) or not index_fields or \
                not all(isinstance(f, str) for f in index_fields):
            raise ValueError(f"FileWriter.add_index: index_fields must be a non-empty list of "
                             f"field names, got {index_fields!r}")
        for f in index_fields:
            spec = self._schema.get(f)
            if spec is None:
                raise ValueError(f"FileWriter.add_index: '{f}' is not a schema field")
            if "shape" in spec or spec["type"] == "bytes":
                raise ValueError(f"FileWriter.add_index: '{f}' is an array or bytes field; "
                                 f"index fields must be scalars or strings")
        self._index = list(dict.fromkeys(self._index + index_fields))
        return SUCCESS

    def _open(self):
        set_id = uuid.uuid4().hex
        names = [os.path.basename(p) for p in self._paths]
        self._files = []
        for i, p in enumerate(self._paths):
            header = json.dumps({"format": "msmlir-mindrecord", "version": VERSION,
                                 "schema": self._schema, "desc": self._desc,
                                 "index_fields": self._index, "shard_id": i,
                                 "shard_num": len(self._paths), "shard_files": names,
                                 "set_id": set_id}).encode("utf-8")
            f = open(p, "wb")
            f.write(MAGIC + struct.pack("<II", VERSION, len(header)) + header +
                    struct.pack("<I", zlib.crc32(header)))
            self._files.append(f)

    def write_raw_data(self, raw_data, parallel_writer=False):
        """Appends rows (a list of dicts with exactly the schema's fields)."""
        self._check_open("write_raw_data")
        if self._schema is None:
            raise RuntimeError("FileWriter.write_raw_data: add the schema first")
        if not isinstance(raw_data, list):
            raise TypeError(f"FileWriter.write_raw_data: raw_data must be a list of dicts, got "
                            f"{type(raw_data).__name__}")
        encoded = []
        for k, row in enumerate(raw_data):       # validate everything before writing
            where = f"FileWriter.write_raw_data (row {k})"
            if not isinstance(row, dict):
                raise TypeError(f"{where}: a row must be a dict, got {type(row).__name__}")
            missing = [f for f in self._schema if f not in row]
            extra = [f for f in row if f not in self._schema]
            if missing or extra:
                raise ValueError(f"{where}: fields {missing} are missing and {extra} are not "
                                 f"in the schema")
            payload = b"".join(_encode_field(nm, sp, row[nm], where)
                               for nm, sp in self._schema.items())
            encoded.append((payload, [row[f] for f in self._index]))
        if self._files is None:
            self._open()
        for payload, idx in encoded:
            s = self._next % len(self._files)
            f = self._files[s]
            self._offsets[s].append(f.tell())
            f.write(struct.pack("<Q", len(payload)) + payload +
                    struct.pack("<I", zlib.crc32(payload)))
            self._index_rows[s].append(idx)
            self._next += 1
        return SUCCESS

    def commit(self):
        """Writes the index and trailer of every shard (and the `.db` files)."""
        self._check_open("commit")
        if self._schema is None:
            raise RuntimeError("FileWriter.commit: no schema was added")
        if self._files is None:
            self._open()
        for s, f in enumerate(self._files):
            offs = np.asarray(self._offsets[s], dtype="<u8").tobytes()
            at = f.tell()
            f.write(offs)
            f.write(_TRAILER.pack(at, len(self._offsets[s]), zlib.crc32(offs), 0, END_MAGIC))
            f.close()
            self._write_db(self._paths[s] + ".db", self._index_rows[s])
        self._committed = True
        return SUCCESS

    def _write_db(self, path, rows):
        sql_type = {"int32": "INTEGER", "int64": "INTEGER", "float32": "REAL",
                    "float64": "REAL", "string": "TEXT"}
        cols = ", ".join(f'"{f}" {sql_type[self._schema[f]["type"]]}' for f in self._index)
        con = sqlite3.connect(path)
        try:
            con.execute(f"CREATE TABLE INDEXES (ROW_ID INTEGER PRIMARY KEY"
                        f"{', ' + cols if cols else ''})")
            if self._index:
                marks = ", ".join("?" * (len(self._index) + 1))
                con.executemany(f"INSERT INTO INDEXES VALUES ({marks})",
                                [(i, *(np.asarray(v).item() for v in r))
                                 for i, r in enumerate(rows)])
            con.commit()
        finally:
            con.close()

    def __del__(self):
        for f in getattr(self, "_files", None) or ():
            try:
                f.close()
            except Exception:  # noqa: BLE001 - interpreter shutdown
                pass


# ---------------------------------------------------------------------------
# reader
# ---------------------------------------------------------------------------

class ShardFile:
    """One validated shard file: header fields, record offsets, random access."""

    def __init__(self, path):
        self.path = path
        try:
            f = open(path, "rb")
        except OSError as e:
            raise RuntimeError(f"MindRecord: cannot open {path}: {e.strerror}") from None
        with f:
            size = os.fstat(f.fileno()).st_size
            head = f.read(16)
            if len(head) < 16 or head[:8] != MAGIC:
                raise RuntimeError(f"{path}: not an msmlir MindRecord file (bad magic; files "
                                   f"written by MindSpore itself are not readable by msmlir)")
            version, hlen = struct.unpack("<II", head[8:])
            if version != VERSION:
                raise RuntimeError(f"{path}: MindRecord version {version} is not supported "
                                   f"(this msmlir reads version {VERSION})")
            if hlen > min(_MAX_HEADER, size - 16 - 4 - _TRAILER.size):
                raise RuntimeError(f"{path}: corrupted header (length {hlen}, file size "
                                   f"{size})")
            header = f.read(hlen)
            (crc,) = struct.unpack("<I", f.read(4))
            if zlib.crc32(header) != crc:
                raise RuntimeError(f"{path}: corrupted header (checksum mismatch)")
            self.data_start = 16 + hlen + 4
            try:
                h = json.loads(header.decode("utf-8"))
            except (UnicodeDecodeError, ValueError, RecursionError):
                raise RuntimeError(f"{path}: corrupted header (not JSON)") from None
            self._check_header(h)
            f.seek(size - _TRAILER.size)
            idx_at, count, idx_crc, _, end = _TRAILER.unpack(f.read(_TRAILER.size))
            if end != END_MAGIC:
                raise RuntimeError(f"{path}: no trailer: the file was not committed "
                                   f"(FileWriter.commit) or is truncated")
            if idx_at < self.data_start or idx_at + 8 * count != size - _TRAILER.size:
                raise RuntimeError(f"{path}: corrupted trailer (index at {idx_at}, {count} "
                                   f"records, file size {size})")
            f.seek(idx_at)
            raw = f.read(8 * count)
            if zlib.crc32(raw) != idx_crc:
                raise RuntimeError(f"{path}: corrupted index (checksum mismatch)")
        offs = np.frombuffer(raw, dtype="<u8").astype(np.int64)
        self.offsets = offs
        self.data_end = idx_at
        if count and (offs[0] != self.data_start or np.any(np.diff(offs) < 12) or
                      offs[-1] + 12 > idx_at):
            raise RuntimeError(f"{path}: corrupted index (record offsets out of order or out "
                               f"of the data area)")
        self._ends = np.append(offs[1:], idx_at)

    def _check_header(self, h):
        p = self.path
        if not isinstance(h, dict) or h.get("format") != "msmlir-mindrecord":
            raise RuntimeError(f"{p}: corrupted header (not an msmlir-mindrecord header)")
        try:
            self.schema = check_schema(h["schema"], f"{p}: header schema")
        except (ValueError, KeyError) as e:
            raise RuntimeError(f"{p}: corrupted header schema: {e}") from None
        idx = h.get("index_fields")
        files = h.get("shard_files")
        sid, snum = h.get("shard_id"), h.get("shard_num")
        ok = isinstance(idx, list) and all(isinstance(x, str) and x in self.schema for x in idx)
        ok = ok and isinstance(snum, int) and isinstance(sid, int) and 0 <= sid < snum <= 1000
        ok = ok and isinstance(files, list) and len(files) == snum and \
            all(isinstance(x, str) and x and os.path.basename(x) == x and x not in (".", "..")
                for x in files)
        ok = ok and isinstance(h.get("set_id"), str) and isinstance(h.get("desc", ""), str)
        if not ok:
            raise RuntimeError(f"{p}: corrupted header (index fields or shard set)")
        self.index_fields, self.shard_files, self.shard_id, self.shard_num = idx, files, sid, snum
        self.set_id, self.desc = h["set_id"], h.get("desc", "")

    def __len__(self):
        return len(self.offsets)

    def read(self, i, fh=None, raw_bytes=False):
        """Record i as a dict of field values (validated)."""
        start, end = int(self.offsets[i]), int(self._ends[i])
        close = fh is None
        fh = fh or open(self.path, "rb")
        try:
            fh.seek(start)
            blob = fh.read(end - start)
        finally:
            if close:
                fh.close()
        if len(blob) != end - start:
            raise RuntimeError(f"{self.path}: record {i} is truncated")
        (n,) = struct.unpack("<Q", blob[:8])
        if n + 12 != len(blob):
            raise RuntimeError(f"{self.path}: record {i} is corrupted (length {n} does not fit "
                               f"its slot of {len(blob) - 12} bytes)")
        payload = blob[8:8 + n]
        if zlib.crc32(payload) != struct.unpack("<I", blob[8 + n:])[0]:
            raise RuntimeError(f"{self.path}: record {i} is corrupted (checksum mismatch)")
        return decode_record(payload, self.schema, self.path, i, raw_bytes)


def open_file_set(dataset_files, what="MindDataset"):
    """The ShardFiles to read: a str is one file of a set and brings all its shards (from
    the same directory, checked to be the same set); a list is exactly those files,
    which must share one schema."""
    if isinstance(dataset_files, str):
        first = ShardFile(dataset_files)
        d = os.path.dirname(dataset_files)
        shards = []
        for k, name in enumerate(first.shard_files):
            p = os.path.join(d, name)
            s = first if k == first.shard_id else ShardFile(p)
            if s.set_id != first.set_id or s.shard_id != k:
                raise RuntimeError(f"{what}: {p} is not shard {k} of the set of "
                                   f"{dataset_files} (written by a different FileWriter)")
            shards.append(s)
    elif isinstance(dataset_files, (list, tuple)) and dataset_files and \
            all(isinstance(p, str) for p in dataset_files):
        if len(set(dataset_files)) != len(dataset_files):
            raise ValueError(f"{what}: dataset_files has duplicates: {list(dataset_files)}")
        shards = [ShardFile(p) for p in dataset_files]
    else:
        raise TypeError(f"{what}: dataset_files must be a file name or a non-empty list of "
                        f"file names, got {dataset_files!r}")
    for s in shards[1:]:
        if s.schema != shards[0].schema:
            raise RuntimeError(f"{what}: {s.path} has schema {s.schema}, but "
                               f"{shards[0].path} has {shards[0].schema}")
    return shards


def select_columns(shard, columns, who: str, arg: str) -> list[str]:
    """The fields to read: all of the shard's schema (columns None), or the
    given non-empty list of distinct field names, checked against it."""
    schema = shard.schema
    if columns is None:
        return list(schema)
    if not isinstance(columns, list) or not columns or not all(isinstance(c, str) for c in columns):
        raise TypeError(f"{who}: {arg} must be a non-empty list of field names, got {columns!r}")
    bad = [c for c in columns if c not in schema]
    if bad:
        raise ValueError(f"{who}: columns {bad} are not fields of {shard.path} "
                         f"(fields: {list(schema)})")
    if len(set(columns)) != len(columns):
        raise ValueError(f"{who}: duplicate columns in {columns}")
    return list(columns)


class FileReader:
    """Reads record files row by row: `get_next()` yields a dict per row (of `columns`,
    default all; bytes fields as Python bytes). `file_name` is one file (its whole
    shard set is read) or a list of files. `num_consumer` and `operator` are accepted
    (rows are read in order by one thread)."""

    def __init__(self, file_name, num_consumer=4, columns=None, operator=None):
        self._shards = open_file_set(file_name, "FileReader")
        self._columns = select_columns(self._shards[0], columns, "FileReader", "columns")
        self._closed = False

    def schema(self):
        return dict(self._shards[0].schema)

    def len(self):
        return sum(len(s) for s in self._shards)

    def get_next(self):
        if self._closed:
            raise RuntimeError("FileReader: the reader is closed")
        for s in self._shards:
            with open(s.path, "rb") as fh:
                for i in range(len(s)):
                    row = s.read(i, fh, raw_bytes=True)
                    yield {c: row[c] for c in self._columns}

    def close(self):
        self._closed = True
