"""MindSpore's SummaryRecord and SummaryCollector, writing TensorBoard event files.

MindSpore writes its summaries for MindInsight in its own protobuf schema; msmlir
writes TensorBoard's instead (`tensorflow.Event` / `Summary`, the schema TensorBoard
and tbparse read), with the same record framing both use: per record, the length
(uint64 little-endian), its masked CRC32C, the serialized Event, its masked CRC32C.
The file name carries TensorBoard's `tfevents` marker
(`{prefix}.out.tfevents.{time}.{host}{suffix}`) so `tensorboard --logdir` finds it.
The CRC32C is TFRecordDataset's (msmlir/dataset/tfrecord.py). The protobuf
messages are encoded here field by field (no protobuf dependency):

    Event   {double wall_time = 1; int64 step = 2; string file_version = 3; Summary summary = 5}
    Summary {repeated Value value = 1}
    Value   {string tag = 1; float simple_value = 2; Image image = 4;
             HistogramProto histo = 5; TensorProto tensor = 8}

Values come from `add_value(plugin, name, value)` and from the summary operators
(`ops.ScalarSummary` ..., msmlir/ops/summary.py), whose values `record(step)` takes.
"""
from __future__ import annotations

import os
import re
import socket
import struct
import time
import warnings
import zlib

import numpy as np

from ..ops import summary as _ops_summary
from .callbacks import Callback

__all__ = ["SummaryRecord", "SummaryCollector", "frame"]


def frame(record: bytes) -> bytes:
    """One TFRecord: length, masked CRC of the length, data, masked CRC of the data."""
    from ..dataset.tfrecord import masked_crc32c   # (importing msmlir.train stays light)
    length = struct.pack("<Q", len(record))
    return (length + struct.pack("<I", masked_crc32c(length)) + record
            + struct.pack("<I", masked_crc32c(record)))


# ---------------------------------------------------------------------------
# Protobuf wire format
# ---------------------------------------------------------------------------


def _varint(n: int) -> bytes:
    n &= (1 << 64) - 1     # negative int64: two's complement, ten bytes
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _key(field: int, wire: int) -> bytes:
    return _varint(field << 3 | wire)


def _int(field, v):
    return _key(field, 0) + _varint(int(v))


def _double(field, v):
    return _key(field, 1) + struct.pack("<d", float(v))


def _float(field, v):
    return _key(field, 5) + struct.pack("<f", float(v))


def _bytes(field, b):
    b = b.encode() if isinstance(b, str) else b
    return _key(field, 2) + _varint(len(b)) + b


def _packed_doubles(field, vs):
    return _bytes(field, struct.pack(f"<{len(vs)}d", *vs))


# TensorFlow's DataType enum
_TF_DTYPE = {np.dtype(np.float32): 1, np.dtype(np.float64): 2, np.dtype(np.int32): 3,
             np.dtype(np.uint8): 4, np.dtype(np.int16): 5, np.dtype(np.int8): 6,
             np.dtype(np.int64): 9, np.dtype(np.bool_): 10, np.dtype(np.uint16): 17,
             np.dtype(np.float16): 19, np.dtype(np.uint32): 22, np.dtype(np.uint64): 23}


def _tensor_proto(a: np.ndarray) -> bytes:
    a = np.ascontiguousarray(a)
    if a.dtype not in _TF_DTYPE:
        a = a.astype(np.float32)     # bfloat16 and the like
    shape = b"".join(_bytes(2, _int(1, d)) for d in a.shape)
    return _int(1, _TF_DTYPE[a.dtype]) + _bytes(2, shape) + _bytes(4, a.astype(
        a.dtype.newbyteorder("<")).tobytes())


def _histogram_proto(a: np.ndarray, bins: int = 30) -> bytes:
    a = np.asarray(a, np.float64).ravel()
    a = a[np.isfinite(a)]
    if a.size == 0:
        return _double(3, 0)
    counts, edges = np.histogram(a, bins=bins)
    return (_double(1, a.min()) + _double(2, a.max()) + _double(3, a.size) + _double(4, a.sum())
            + _double(5, np.dot(a, a)) + _packed_doubles(6, edges[1:].tolist())
            + _packed_doubles(7, counts.astype(np.float64).tolist()))


def _png(img: np.ndarray) -> bytes:
    """PNG of an (H, W, C) uint8 image, C in 1 (grey), 3 (RGB), 4 (RGBA)."""
    h, w, c = img.shape
    colour = {1: 0, 3: 2, 4: 6}[c]
    raw = b"".join(b"\x00" + img[y].tobytes() for y in range(h))

    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, colour, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def _image_proto(a: np.ndarray) -> bytes:
    """An NCHW batch as one PNG: the images side by side in a grid (as MindSpore's
    summary does); floats in [0, 1] are scaled to [0, 255]."""
    a = np.asarray(a)
    n, c, h, w = a.shape
    if c not in (1, 3, 4):
        raise ValueError(f"ImageSummary: an image has 1, 3 or 4 channels, got {c}")
    if a.dtype.kind == "f":
        a = np.nan_to_num(a.astype(np.float64))
        if a.size and a.max() <= 1.0:
            a = a * 255.0
    a = np.clip(a, 0, 255).astype(np.uint8).transpose(0, 2, 3, 1)
    cols = int(np.ceil(np.sqrt(n)))
    rows = -(-n // cols)
    canvas = np.zeros((rows * h, cols * w, c), np.uint8)
    for i in range(n):
        r, q = divmod(i, cols)
        canvas[r * h:(r + 1) * h, q * w:(q + 1) * w] = a[i]
    return _int(1, rows * h) + _int(2, cols * w) + _int(3, c) + _bytes(4, _png(canvas))


def _value(plugin: str, tag: str, v: np.ndarray) -> bytes:
    if plugin == "scalar":
        body = _float(2, np.asarray(v, np.float64).reshape(-1)[0])
    elif plugin == "image":
        body = _bytes(4, _image_proto(v))
    elif plugin == "histogram":
        body = _bytes(5, _histogram_proto(v))
    else:
        body = _bytes(8, _tensor_proto(np.asarray(v)))
    return _bytes(1, _bytes(1, tag) + body)


def _event(step=None, summary=None, file_version=None) -> bytes:
    out = _double(1, time.time())
    if step is not None:
        out += _int(2, step)
    if file_version is not None:
        out += _bytes(3, file_version)
    if summary is not None:
        out += _bytes(5, summary)
    return out


# ---------------------------------------------------------------------------
# SummaryRecord
# ---------------------------------------------------------------------------

_PLUGINS = ("scalar", "image", "tensor", "histogram")


def _array(value):
    return value.asnumpy() if hasattr(value, "asnumpy") else np.asarray(value)


class SummaryRecord:
    """`mindspore.SummaryRecord(log_dir, ...)`: `add_value` and the summary operators
    buffer values; `record(step)` writes them as one Event of a TensorBoard event file
    in `log_dir`. Graphs and lineage (MindInsight's plugins) are not written."""

    def __init__(self, log_dir, file_prefix="events", file_suffix="_MS", num_process=32,
                 network=None, max_file_size=None, raise_exception=False, export_options=None):
        if not isinstance(log_dir, (str, os.PathLike)) or not str(log_dir):
            raise ValueError(f"For 'SummaryRecord', log_dir must be a non-empty path, got "
                             f"{log_dir!r}")
        if max_file_size is not None and (not isinstance(max_file_size, int) or max_file_size <= 0):
            raise ValueError(f"For 'SummaryRecord', max_file_size must be a positive int, "
                             f"got {max_file_size!r}")
        if export_options:
            raise ValueError("For 'SummaryRecord', export_options (exporting tensors to npy "
                             "files) is not supported")
        self._log_dir = os.path.realpath(str(log_dir))
        os.makedirs(self._log_dir, exist_ok=True)
        name = (f"{file_prefix}.out.tfevents.{int(time.time())}.{socket.gethostname()}"
                f"{file_suffix}")
        self._path = os.path.join(self._log_dir, name)
        self._max = max_file_size
        self._raise = raise_exception
        self._pending = {}
        self._mode = "train"
        self._file = open(self._path, "ab")   # noqa: SIM115 - closed by close()
        self._size = 0
        self._write(_event(file_version="brain.Event:2"))
        _ops_summary.take()    # values of summary ops from before this record began

    @property
    def log_dir(self):
        return self._log_dir

    @property
    def event_file(self):
        """The path of the event file (msmlir's addition)."""
        return self._path

    def set_mode(self, mode):
        if mode not in ("train", "eval"):
            raise ValueError(f"For 'SummaryRecord', mode must be 'train' or 'eval', got {mode!r}")
        self._mode = mode

    def add_value(self, plugin, name, value):
        """Buffers `value` under tag `name` for the next `record` (plugin: 'scalar',
        'image' (NCHW), 'tensor' or 'histogram')."""
        if plugin not in _PLUGINS:
            raise ValueError(f"For 'add_value', plugin must be one of {_PLUGINS}, got {plugin!r} "
                             f"(graphs and lineage are MindInsight's and not written)")
        if not isinstance(name, str) or not name:
            raise ValueError(f"For 'add_value', name must be a non-empty str, got {name!r}")
        a = _array(value)
        if plugin == "scalar" and a.size != 1:
            raise ValueError(f"For 'add_value', a scalar must hold one element, got shape "
                             f"{a.shape}")
        if plugin == "image" and a.ndim != 4:
            raise ValueError(f"For 'add_value', an image must be NCHW (4-D), got shape {a.shape}")
        self._pending[(plugin, name)] = a

    def record(self, step, train_network=None, plugin_filter=None):
        """Writes the buffered values (and the summary operators' since the last
        record) at `step`; False when there was nothing or the file is full."""
        if isinstance(step, bool) or not isinstance(step, (int, np.integer)):
            raise TypeError(f"For 'record', step must be an int, got {type(step).__name__}")
        if self._file is None:
            raise RuntimeError("For 'record', the SummaryRecord is closed")
        values = {**_ops_summary.take(), **self._pending}
        self._pending = {}
        if plugin_filter is not None:
            values = {k: v for k, v in values.items() if plugin_filter(k[0])}
        if not values:
            return False
        summary = b"".join(_value(p, tag, v) for (p, tag), v in sorted(values.items()))
        return self._write(_event(step=int(step), summary=summary))

    def _write(self, event: bytes) -> bool:
        rec = frame(event)
        if self._max is not None and self._size + len(rec) > self._max:
            warnings.warn(f"SummaryRecord: {self._path} reached max_file_size={self._max}; "
                          f"the record is dropped", RuntimeWarning, stacklevel=3)
            return False
        try:
            self._file.write(rec)
        except OSError as e:
            if self._raise:
                raise
            warnings.warn(f"SummaryRecord: writing {self._path} failed: {e}", RuntimeWarning,
                          stacklevel=3)
            return False
        self._size += len(rec)
        return True

    def flush(self):
        if self._file is not None:
            self._file.flush()

    def close(self):
        if self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:   # noqa: BLE001 - interpreter shutdown
            pass


# ---------------------------------------------------------------------------
# SummaryCollector
# ---------------------------------------------------------------------------

_COLLECT_KEYS = {"collect_metric", "collect_graph", "collect_train_lineage",
                 "collect_eval_lineage", "collect_input_data", "collect_dataset_graph",
                 "histogram_regular", "collect_landscape"}


class SummaryCollector(Callback):
    """`mindspore.SummaryCollector`: a Model.train callback that records, at the first
    step and every `collect_freq` steps, the loss (tag 'loss/auto'), histograms of the
    parameters whose names match `histogram_regular` ('<name>/auto') and the values of
    the network's summary operators, into a TensorBoard event file in `summary_dir`.
    Graphs, lineage, input data and loss landscapes (MindInsight's) are not collected."""

    def __init__(self, summary_dir, collect_freq=10, num_process=32, collect_specified_data=None,
                 keep_default_action=True, custom_lineage_data=None, collect_tensor_format=None,
                 histogram_regular=None, mode="train", export_options=None):
        if isinstance(collect_freq, bool) or not isinstance(collect_freq, int) or collect_freq <= 0:
            raise ValueError(f"For 'SummaryCollector', collect_freq must be a positive int, got "
                             f"{collect_freq!r}")
        if mode != "train":
            raise ValueError(f"For 'SummaryCollector', mode {mode!r}: only 'train' is supported "
                             f"(Model.eval runs no callbacks)")
        spec = dict(collect_specified_data or {})
        unknown = set(spec) - _COLLECT_KEYS
        if unknown:
            raise ValueError(f"For 'SummaryCollector', unknown collect_specified_data keys "
                             f"{sorted(unknown)}; known: {sorted(_COLLECT_KEYS)}")
        if keep_default_action or collect_specified_data is None:
            spec.setdefault("collect_metric", True)
        regular = spec.get("histogram_regular", histogram_regular)
        self._regular = re.compile(regular) if regular else None
        self._metric = bool(spec.get("collect_metric", False))
        self._dir = summary_dir
        self._freq = collect_freq
        self._export = export_options
        self._record = None

    def on_train_begin(self, run_context):
        self._record = SummaryRecord(self._dir, export_options=self._export)

    def on_train_step_end(self, run_context):
        p = run_context.original_args()
        step = p.cur_step_num
        if step != 1 and step % self._freq:
            _ops_summary.take()     # MindSpore keeps only the collected steps' values
            return
        if self._metric and p.get("net_outputs") is not None:
            loss = p.net_outputs
            loss = loss[0] if isinstance(loss, (tuple, list)) else loss
            a = _array(loss)
            if a.size == 1 and a.dtype.kind == "f":
                self._record.add_value("scalar", "loss/auto", a)
        if self._regular is not None:
            net = p.get("train_network") or p.get("network")
            for param in net.get_parameters():
                if self._regular.match(param.name):
                    self._record.add_value("histogram", f"{param.name}/auto", param)
        self._record.record(step)

    def on_train_epoch_end(self, run_context):
        self._record.flush()

    def on_train_end(self, run_context):
        self._record.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self._record is not None:
            self._record.close()
