"""TFRecordDataset: rows from TFRecord files of `tf.train.Example` messages.

A TFRecord file is a sequence of records: u64 length (little-endian), u32 masked
CRC-32C of the length bytes, the data, u32 masked CRC-32C of the data (mask: rotate
right 15, add 0xa282ead8). The data is a serialized `tf.train.Example` (Features: a
map from name to a BytesList, FloatList or Int64List), parsed here from the protobuf
wire format directly (no TensorFlow / protobuf dependency). Every length, varint and
CRC is checked: a truncated or corrupted file raises a RuntimeError naming the file
and record. CRC-32C is table-driven, vectorized with numpy over 1 KB lanes for
inputs of 8 KB and more (`crc32c`; the event files of SummaryRecord use it too).
"""
from __future__ import annotations

import os
import struct

import numpy as np

from .sources import _RandomAccessDataset

__all__ = ["TFRecordDataset"]


def _crc32c_table():
    poly = 0x82F63B78
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ poly if c & 1 else c >> 1
        table.append(c)
    return table


_CRC_TABLE = _crc32c_table()


def _crc_bytes(c: int, data) -> int:
    """The CRC register c run through `data`, one table step per byte."""
    t = _CRC_TABLE
    for b in data:
        c = t[(c ^ b) & 0xFF] ^ (c >> 8)
    return c


_LANE = 1024                     # bytes per lane of the vectorized CRC
_NP_TABLE = np.array(_CRC_TABLE, np.uint32)
_SHIFT = []                      # the register advanced through _LANE zero bytes, per byte


def _shift_tables():
    """Four 256-entry tables of the linear map "advance the register through _LANE
    zero bytes": shift(v) = T0[v & 255] ^ T1[v >> 8 & 255] ^ T2[...] ^ T3[...]."""
    if not _SHIFT:
        regs = (np.arange(256, dtype=np.uint32)[None, :]
                << (8 * np.arange(4, dtype=np.uint32))[:, None]).ravel()
        for _ in range(_LANE):
            regs = _NP_TABLE[regs & 0xFF] ^ (regs >> 8)
        _SHIFT.extend(regs.reshape(4, 256).tolist())
    return _SHIFT


def crc32c(data: bytes) -> int:
    """CRC-32C (Castagnoli), as TFRecord uses. Long inputs are cut into lanes of
    _LANE bytes whose registers (from 0) advance together in numpy; the register is
    affine in its start value, so the lanes chain as reg = shift(reg) ^ lane."""
    n = len(data) // _LANE
    if n < 8:
        return _crc_bytes(0xFFFFFFFF, data) ^ 0xFFFFFFFF
    lanes = np.frombuffer(data, np.uint8, n * _LANE).reshape(n, _LANE).astype(np.uint32)
    regs = np.zeros(n, np.uint32)
    for j in range(_LANE):
        regs = _NP_TABLE[(regs ^ lanes[:, j]) & 0xFF] ^ (regs >> 8)
    t0, t1, t2, t3 = _shift_tables()
    c = 0xFFFFFFFF
    for r in regs.tolist():
        c = t0[c & 0xFF] ^ t1[c >> 8 & 0xFF] ^ t2[c >> 16 & 0xFF] ^ t3[c >> 24] ^ r
    return _crc_bytes(c, memoryview(data)[n * _LANE:]) ^ 0xFFFFFFFF


def masked_crc32c(data: bytes) -> int:
    c = crc32c(data)
    return (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF


# ---------------------------------------------------------------------------
# protobuf wire format
# ---------------------------------------------------------------------------

class _Corrupt(Exception):
    pass


def _varint(buf, pos):
    out = 0
    for k in range(10):
        if pos >= len(buf):
            raise _Corrupt("a varint runs past the end")
        b = buf[pos]
        pos += 1
        out |= (b & 0x7F) << (7 * k)
        if not b & 0x80:
            return out & 0xFFFFFFFFFFFFFFFF, pos
    raise _Corrupt("a varint is longer than 10 bytes")


def _fields(buf):
    """(field number, wire type, value) of a message: an int for varints, bytes for
    length-delimited fields and fixed32/fixed64."""
    pos, n = 0, len(buf)
    while pos < n:
        key, pos = _varint(buf, pos)
        num, wt = key >> 3, key & 7
        if num == 0:
            raise _Corrupt("field number 0")
        if wt == 0:
            v, pos = _varint(buf, pos)
        elif wt == 2:
            k, pos = _varint(buf, pos)
            if pos + k > n:
                raise _Corrupt("a length-delimited field runs past the end")
            v, pos = buf[pos:pos + k], pos + k
        elif wt in (1, 5):
            k = 8 if wt == 1 else 4
            if pos + k > n:
                raise _Corrupt("a fixed-size field runs past the end")
            v, pos = buf[pos:pos + k], pos + k
        else:
            raise _Corrupt(f"unsupported wire type {wt}")
        yield num, wt, v


def _signed(v):
    return v - (1 << 64) if v >= 1 << 63 else v


def _feature(buf):
    """(kind, values) of a tf.train.Feature: ('bytes', [bytes]), ('float', float32 array)
    or ('int64', int64 array)."""
    kind, vals = None, None
    for num, wt, v in _fields(buf):
        if num not in (1, 2, 3) or wt != 2:
            continue
        kind = {1: "bytes", 2: "float", 3: "int64"}[num]
        out = []
        for n2, w2, x in _fields(v):
            if n2 != 1:
                continue
            if kind == "bytes":
                if w2 != 2:
                    raise _Corrupt("a BytesList value is not length-delimited")
                out.append(bytes(x))
            elif kind == "float":
                if w2 == 5:
                    out.append(np.frombuffer(x, "<f4"))
                elif w2 == 2:
                    if len(x) % 4:
                        raise _Corrupt("a packed FloatList is not a multiple of 4 bytes")
                    out.append(np.frombuffer(x, "<f4"))
                else:
                    raise _Corrupt("a FloatList value has the wrong wire type")
            else:
                if w2 == 0:
                    out.append(np.array([_signed(x)], np.int64))
                elif w2 == 2:
                    p, vs = 0, []
                    while p < len(x):
                        y, p = _varint(x, p)
                        vs.append(_signed(y))
                    out.append(np.array(vs, np.int64))
                else:
                    raise _Corrupt("an Int64List value has the wrong wire type")
        if kind == "float":
            vals = np.concatenate(out).astype(np.float32) if out else np.zeros(0, np.float32)
        elif kind == "int64":
            vals = np.concatenate(out) if out else np.zeros(0, np.int64)
        else:
            vals = out
    if kind is None:
        raise _Corrupt("a Feature has no bytes_list, float_list or int64_list")
    return kind, vals


def parse_example(buf):
    """{name: (kind, values)} of a serialized tf.train.Example."""
    out = {}
    for num, wt, v in _fields(buf):
        if num != 1 or wt != 2:
            continue
        for n2, w2, entry in _fields(v):            # Features.feature: map entries
            if n2 != 1 or w2 != 2:
                continue
            key, val = None, None
            for n3, w3, x in _fields(entry):
                if n3 == 1 and w3 == 2:
                    try:
                        key = bytes(x).decode("utf-8")
                    except UnicodeDecodeError:
                        raise _Corrupt("a feature name is not UTF-8") from None
                elif n3 == 2 and w3 == 2:
                    val = x
            if key is None or val is None:
                raise _Corrupt("a feature map entry lacks its name or value")
            out[key] = _feature(val)
    return out


def _index(path):
    """Offsets and lengths of the records of a TFRecord file (length CRCs checked)."""
    offs, lens = [], []
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        pos = 0
        while pos < size:
            head = f.read(12)
            if len(head) < 12:
                raise RuntimeError(f"TFRecordDataset: {path}: truncated record header at byte "
                                   f"{pos}")
            (n,) = struct.unpack("<Q", head[:8])
            if struct.unpack("<I", head[8:])[0] != masked_crc32c(head[:8]):
                raise RuntimeError(f"TFRecordDataset: {path}: record {len(offs)} has a corrupted "
                                   f"length (CRC mismatch); not a TFRecord file?")
            if pos + 16 + n > size:
                raise RuntimeError(f"TFRecordDataset: {path}: record {len(offs)} is truncated")
            offs.append(pos + 12)
            lens.append(n)
            pos += 16 + n
            f.seek(pos)
    return offs, lens


def _convert(name, kind, vals, spec, path, row):
    """A feature's values as the column: per the schema entry `spec` ({"type", "shape"}) or,
    without one, int64 / float32 1-D arrays and bytes as a 1-D array of bytes strings."""
    t = spec.get("type") if spec else None
    if kind == "bytes":
        if t in (None, "string", "bytes"):
            arr = np.array(vals, dtype=np.bytes_)
            if t == "string":
                try:
                    arr = np.array([v.decode("utf-8") for v in vals])
                except UnicodeDecodeError:
                    raise RuntimeError(f"TFRecordDataset: {path}: record {row} feature "
                                       f"'{name}' is not UTF-8 text") from None
            if spec and spec.get("shape") is None and arr.size == 1:
                arr = arr.reshape(())
        else:
            dt = np.dtype(t)
            raw = b"".join(vals)
            if len(raw) % dt.itemsize:
                raise RuntimeError(f"TFRecordDataset: {path}: record {row} feature '{name}' "
                                   f"has {len(raw)} bytes, not a multiple of {t}")
            arr = np.frombuffer(raw, dtype=dt.newbyteorder("<")).astype(dt)
    else:
        arr = vals if t is None else vals.astype(np.dtype(t))
    shape = spec.get("shape") if spec else None
    if shape is not None:
        try:
            arr = arr.reshape(shape)
        except ValueError:
            raise RuntimeError(f"TFRecordDataset: {path}: record {row} feature '{name}' has "
                               f"{arr.size} values, which do not fit the schema shape "
                               f"{shape}") from None
    return arr


class TFRecordDataset(_RandomAccessDataset):
    """Rows of `tf.train.Example` records in TFRecord files (see the module docstring).
    `dataset_files`: a file or a list of files (read in order). Columns: the schema's
    (a `dataset.Schema`, a JSON schema file, or None: the features of the first record,
    sorted by name), or `columns_list`. Without a schema, int64_list -> int64 and
    float_list -> float32 1-D arrays, bytes_list -> a 1-D array of bytes strings; a
    schema casts (a bytes feature with a numeric type is reinterpreted as that type's
    raw little-endian data, e.g. uint8 for encoded images) and reshapes. Shuffling,
    samplers and sharding are per row. `compression_type` must be None or ''
    (GZIP / ZLIB files are not supported)."""

    def __init__(self, dataset_files, schema=None, columns_list=None, num_samples=None,
                 num_parallel_workers=None, shuffle=None, num_shards=None, shard_id=None,
                 shard_equal_rows=False, cache=None, compression_type=None):
        from .file_sources import _shuffle_arg
        from .schema import Schema
        if isinstance(dataset_files, str):
            files = [dataset_files]
        elif isinstance(dataset_files, (list, tuple)) and dataset_files and \
                all(isinstance(f, str) for f in dataset_files):
            files = list(dataset_files)
        else:
            raise TypeError(f"TFRecordDataset: dataset_files must be a file name or a list of "
                            f"them, got {dataset_files!r}")
        if compression_type not in (None, ""):
            raise ValueError(f"TFRecordDataset: compression_type {compression_type!r} is not "
                             f"supported (only uncompressed files)")
        for f in files:
            if not os.path.isfile(f):
                raise ValueError(f"TFRecordDataset: {f} does not exist")
        if isinstance(schema, str):
            schema = Schema(schema)
        if schema is not None and not isinstance(schema, Schema):
            raise TypeError(f"TFRecordDataset: schema must be a dataset.Schema or a JSON file, "
                            f"got {schema!r}")
        self._records = []                  # (file, offset, length)
        for f in files:
            offs, lens = _index(f)
            self._records += [(f, o, n) for o, n in zip(offs, lens)]
        if not self._records:
            raise RuntimeError(f"TFRecordDataset: no records in {files}")
        self._spec = {}
        if schema is not None and schema.columns:
            self._spec = {c["name"]: c for c in schema.columns}
            cols = schema.column_names()
        else:
            cols = sorted(self._example(0))
        if columns_list is not None:
            if not isinstance(columns_list, list) or not all(isinstance(c, str)
                                                             for c in columns_list):
                raise TypeError(f"TFRecordDataset: columns_list must be a list of str, got "
                                f"{columns_list!r}")
            if schema is None or not schema.columns:
                bad = [c for c in columns_list if c not in cols]
                if bad:
                    raise ValueError(f"TFRecordDataset: columns {bad} are not features of "
                                     f"{files[0]} ({cols})")
            cols = list(columns_list)
        super().__init__(cols, num_samples, _shuffle_arg(shuffle, "TFRecordDataset"), None,
                         num_shards, shard_id, num_parallel_workers)
        self._set_cache(cache)

    def _example(self, i):
        path, off, n = self._records[i]
        with open(path, "rb") as f:
            f.seek(off)
            blob = f.read(n + 4)
        data = blob[:n]
        if len(blob) != n + 4 or struct.unpack("<I", blob[n:])[0] != masked_crc32c(data):
            raise RuntimeError(f"TFRecordDataset: {path}: record {i} is corrupted (data CRC "
                               f"mismatch)")
        try:
            return parse_example(data)
        except _Corrupt as e:
            raise RuntimeError(f"TFRecordDataset: {path}: record {i} is not a valid "
                               f"tf.train.Example ({e})") from None

    def _n(self):
        return len(self._records)

    def _get(self, i):
        ex = self._example(i)
        out = []
        for c in self._columns:
            if c not in ex:
                raise RuntimeError(f"TFRecordDataset: {self._records[i][0]}: record {i} has no "
                                   f"feature '{c}' (it has {sorted(ex)})")
            out.append(_convert(c, *ex[c], self._spec.get(c), self._records[i][0], i))
        return tuple(out)
