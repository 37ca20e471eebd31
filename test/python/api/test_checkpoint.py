"""Checkpoints: bit-exact round trips, load_param_into_net, and malicious files rejected."""
import json
import os
import pickle
import struct

import numpy as np
import pytest

import msmlir as ms
from msmlir import Parameter, Tensor
from msmlir.train import CheckpointFormatError

PREFIX = struct.Struct("<8sIIQ")


class FakeCell:
    """The duck-typed Cell protocol used by checkpoints: parameters_and_names()."""

    def __init__(self, **params):
        self._params = {k: Parameter(v, name=k) for k, v in params.items()}

    def parameters_and_names(self):
        return list(self._params.items())

    def __getitem__(self, k):
        return self._params[k]


def special_floats(dt):
    vals = np.array([0.0, -0.0, 1.5, -2.25, np.inf, -np.inf, np.nan, 1e-30, 65504.0], dt)
    return vals


def all_dtype_arrays():
    rng = np.random.default_rng(0)
    out = {
        "f16": special_floats(np.float16),
        "f32": np.concatenate([special_floats(np.float32),
                               rng.standard_normal(7).astype(np.float32)]).reshape(2, 8),
        "f64": special_floats(np.float64).reshape(3, 3),
        "i8": np.array([-128, 127, 0, 5], np.int8),
        "i32": rng.integers(-2**31, 2**31 - 1, (2, 2, 3)).astype(np.int32),
        "i64": np.array([-2**63, 2**63 - 1, 0], np.int64),
        "b": np.array([[True, False, True]]),
        "scalar": np.array(3.25, np.float32),
        "empty": np.zeros((0, 4), np.float32),
    }
    # a NaN payload that is not the default one: bit patterns must survive
    out["nan_payload"] = np.array([0x7FC00123, 0xFFC00001], np.uint32).view(np.float32)
    return out


def same_bits(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape
    assert a.tobytes() == b.tobytes()


def test_round_trip_bit_exact(tmp_path):
    data = all_dtype_arrays()
    f = str(tmp_path / "all")
    ms.save_checkpoint([{"name": k, "data": Tensor(v)} for k, v in data.items()], f)
    assert os.path.exists(f + ".ckpt")                       # suffix appended
    loaded = ms.load_checkpoint(f + ".ckpt")
    assert list(loaded) == list(data)
    for k, v in data.items():
        p = loaded[k]
        assert isinstance(p, Parameter) and p.name == k
        same_bits(p.asnumpy(), v)


def test_save_forms_and_options(tmp_path):
    cell = FakeCell(**{"fc.weight": Tensor(np.ones((2, 3), np.float32)),
                       "fc.bias": Tensor(np.zeros(3, np.float32))})
    f = str(tmp_path / "net.ckpt")
    ms.save_checkpoint(cell, f, append_dict={"epoch_num": 7, "lr": 0.5, "tag": "best",
                                             "flag": True})
    d = ms.load_checkpoint(f)
    assert set(d) == {"fc.weight", "fc.bias", "epoch_num", "lr", "tag", "flag"}
    assert d["tag"] == "best" and d["epoch_num"].asnumpy() == 7
    assert d["epoch_num"].dtype == ms.int64 and d["lr"].dtype == ms.float32
    assert d["flag"].dtype == ms.bool_
    ms.save_checkpoint({"a": Tensor([1.0]), "b": np.arange(3)}, f)          # dict form
    assert set(ms.load_checkpoint(f)) == {"a", "b"}
    ms.save_checkpoint(cell, f, choice_func=lambda n: n.endswith("weight"))
    assert set(ms.load_checkpoint(f)) == {"fc.weight"}
    ms.save_checkpoint(cell, f)
    assert set(ms.load_checkpoint(f, specify_prefix="fc.w")) == {"fc.weight"}
    assert set(ms.load_checkpoint(f, filter_prefix=["fc.w"])) == {"fc.bias"}
    assert set(ms.load_checkpoint(f, choice_func=lambda n: "bias" in n)) == {"fc.bias"}
    with pytest.raises(ValueError, match="twice"):
        ms.save_checkpoint([{"name": "x", "data": Tensor(1.0)}, {"name": "x", "data": 2}], f)
    with pytest.raises(TypeError):
        ms.save_checkpoint([{"name": "x"}], f)
    with pytest.raises(TypeError):
        ms.save_checkpoint({"x": object()}, f)
    with pytest.raises(TypeError, match="dtype"):
        ms.save_checkpoint({"x": np.zeros(2, np.uint16)}, f)
    with pytest.raises(ValueError):
        ms.load_checkpoint(str(tmp_path / "missing.ckpt"))


def test_load_param_into_net(tmp_path):
    src = FakeCell(w=Tensor(np.arange(6, dtype=np.float32).reshape(2, 3)),
                   b=Tensor(np.ones(3, np.float64)),
                   extra=Tensor([1, 2], ms.int32))
    f = str(tmp_path / "src.ckpt")
    ms.save_checkpoint(src, f)
    dst = FakeCell(w=Tensor(np.zeros((2, 3), np.float32)), b=Tensor(np.zeros(3, np.float32)),
                   missing=Tensor(np.zeros(1, np.float32)))
    not_loaded, unused = ms.load_param_into_net(dst, ms.load_checkpoint(f))
    assert not_loaded == ["missing"] and unused == ["extra"]
    same_bits(dst["w"].asnumpy(), src["w"].asnumpy())
    assert dst["b"].dtype == ms.float32 and np.all(dst["b"].asnumpy() == 1)  # f64 -> f32
    with pytest.raises(RuntimeError, match="dtype"):
        ms.load_param_into_net(dst, ms.load_checkpoint(f), strict_load=True)
    wrong = FakeCell(w=Tensor(np.zeros((3, 2), np.float32)))
    with pytest.raises(RuntimeError, match="shape"):
        ms.load_param_into_net(wrong, ms.load_checkpoint(f))
    dst2 = FakeCell(w=Tensor(np.zeros((2, 3), np.float32)))
    ms.load_checkpoint(f, net=dst2)                           # net= loads too
    same_bits(dst2["w"].asnumpy(), src["w"].asnumpy())
    with pytest.raises(TypeError):
        ms.load_param_into_net(dst, [1, 2])


def test_loader_never_unpickles(tmp_path, monkeypatch):
    f = str(tmp_path / "x.ckpt")
    ms.save_checkpoint({"a": Tensor([1.0, 2.0])}, f)

    def forbidden(*a, **k):
        raise AssertionError("pickle used")

    monkeypatch.setattr(pickle, "load", forbidden)
    monkeypatch.setattr(pickle, "loads", forbidden)
    monkeypatch.setattr(pickle, "Unpickler", forbidden)
    monkeypatch.setattr(np, "load", forbidden)
    assert ms.load_checkpoint(f)["a"].asnumpy().tolist() == [1.0, 2.0]


# ---------------------------------------------------------------------------
# malicious / malformed files
# ---------------------------------------------------------------------------

class _Payload:
    """Unpickling this would create the marker file."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (open, (self.marker, "w"))


def _craft(path, header, data=b"", *, magic=b"MSMLCKPT", version=1, hlen=None):
    raw = json.dumps(header).encode() if isinstance(header, (dict, list)) else header
    n = len(raw) if hlen is None else hlen
    body = PREFIX.pack(magic, version, 0, n) + raw
    body += b"\0" * (-len(body) % 64)
    with open(path, "wb") as f:
        f.write(body + data)
    return str(path)


def _hdr(tensors, strings=None):
    return {"format": "msmlir.checkpoint", "version": 1, "tensors": tensors,
            "strings": strings or {}}


def _t(name="w", dtype="float32", shape=(2,), offset=0, nbytes=8):
    return {"name": name, "dtype": dtype, "shape": list(shape), "offset": offset,
            "nbytes": nbytes}


def test_pickle_payload_is_rejected_and_not_executed(tmp_path):
    marker = tmp_path / "PWNED"
    evil = tmp_path / "evil.ckpt"
    evil.write_bytes(pickle.dumps({"w": _Payload(str(marker))}))
    with pytest.raises(CheckpointFormatError, match="pickle"):
        ms.load_checkpoint(str(evil))
    assert not marker.exists()
    # the same payload hidden in a header field or as tensor bytes is only data
    hidden = _craft(tmp_path / "hidden.ckpt",
                    _hdr([_t(nbytes=8)], {"note": pickle.dumps(_Payload(str(marker))).hex()}),
                    b"\0" * 8)
    assert isinstance(ms.load_checkpoint(hidden)["note"], str)
    blob = pickle.dumps(_Payload(str(marker)))
    as_data = _craft(tmp_path / "data.ckpt", _hdr([_t(dtype="int8", shape=[len(blob)],
                                                      nbytes=len(blob))]), blob)
    assert ms.load_checkpoint(as_data)["w"].asnumpy().tobytes() == blob
    assert not marker.exists()


BAD_HEADERS = {
    "unknown dtype": _hdr([_t(dtype="object")]),
    "numpy-string dtype": _hdr([_t(dtype="<U10")]),
    "float128": _hdr([_t(dtype="float128", nbytes=32)]),
    "offset out of range": _hdr([_t(offset=4096)]),
    "negative offset": _hdr([_t(offset=-8)]),
    "nbytes mismatch": _hdr([_t(nbytes=12)]),
    "absurd shape": _hdr([_t(shape=(2 ** 40, 2 ** 40), nbytes=2 ** 80 * 4)]),
    "shape product overflow": _hdr([_t(shape=(2 ** 62, 4), nbytes=0)]),
    "negative dim": _hdr([_t(shape=(-2,), nbytes=8)]),
    "float dim": _hdr([_t(shape=(2.0,))]),
    "bool dim": _hdr([_t(shape=(True, 2))]),
    "rank 40": _hdr([_t(shape=(1,) * 40, nbytes=4)]),
    "non-string name": _hdr([_t(name=7)]),
    "empty name": _hdr([_t(name="")]),
    "duplicate names": _hdr([_t(), _t(offset=64)]),
    "overlap": _hdr([_t(name="a"), _t(name="b", offset=4)]),
    "extra key": _hdr([dict(_t(), code="__import__('os').system('x')")]),
    "missing key": _hdr([{"name": "w", "dtype": "float32", "shape": [2], "offset": 0}]),
    "tensors not a list": _hdr({"w": _t()}),
    "string value not str": _hdr([], {"s": 3}),
    "wrong format": {"format": "pickle", "version": 1, "tensors": [], "strings": {}},
    "header is a list": [1, 2, 3],
    "NaN literal": b'{"format": "msmlir.checkpoint", "version": 1, "tensors": [], '
                   b'"strings": {}, "x": NaN}',
    "duplicate JSON keys": b'{"format": "msmlir.checkpoint", "version": 1, "tensors": [], '
                           b'"tensors": [], "strings": {}}',
    "not UTF-8": b'{"format": "\xff\xfe"}',
    "deep nesting": b"[" * 100000 + b"]" * 100000,
}


@pytest.mark.parametrize("case", list(BAD_HEADERS))
def test_malformed_headers_rejected(tmp_path, case):
    path = _craft(tmp_path / "bad.ckpt", BAD_HEADERS[case], b"\0" * 64)
    with pytest.raises(CheckpointFormatError) as e:
        ms.load_checkpoint(path)
    assert "bad.ckpt" in str(e.value)


def test_malformed_prefix_rejected(tmp_path):
    ok = _hdr([_t()])
    cases = {
        "absurd header length": dict(hlen=2 ** 60),
        "header longer than file": dict(hlen=10 ** 6),
        "bad magic": dict(magic=b"NOTACKPT"),
        "future version": dict(version=3),
        "prefix and header versions differ": dict(version=2),
    }
    for name, kw in cases.items():
        path = _craft(tmp_path / f"{name.replace(' ', '_')}.ckpt", ok, b"\0" * 8, **kw)
        with pytest.raises(CheckpointFormatError):
            ms.load_checkpoint(path)
    short = tmp_path / "short.ckpt"
    short.write_bytes(b"MSMLCK")
    with pytest.raises(CheckpointFormatError, match="too short"):
        ms.load_checkpoint(str(short))
    # MindSpore's own (protobuf) checkpoints are not readable: a clear error, not garbage
    proto = tmp_path / "mindspore.ckpt"
    proto.write_bytes(b"\n\x0f\n\x06weight\x12\x05\x08\x01\x10\x02" + b"\0" * 40)
    with pytest.raises(CheckpointFormatError, match="bad magic"):
        ms.load_checkpoint(str(proto))


def test_truncated_data_and_bad_bools(tmp_path):
    path = _craft(tmp_path / "trunc.ckpt", _hdr([_t(nbytes=8)]), b"\0" * 4)
    with pytest.raises(CheckpointFormatError, match="outside"):
        ms.load_checkpoint(path)
    path = _craft(tmp_path / "bool.ckpt", _hdr([_t(dtype="bool", shape=[2], nbytes=2)]),
                  b"\x01\x02")
    with pytest.raises(CheckpointFormatError, match="bool"):
        ms.load_checkpoint(path)
    # a valid file that was cut short after saving
    good = str(tmp_path / "good.ckpt")
    ms.save_checkpoint({"w": Tensor(np.ones(100, np.float32))}, good)
    raw = open(good, "rb").read()
    open(good, "wb").write(raw[:-1])
    with pytest.raises(CheckpointFormatError):
        ms.load_checkpoint(good)


def test_allocation_bounded_by_file_size(tmp_path):
    """Many tensors each claiming the whole data region must not multiply memory."""
    tensors = [_t(name=f"t{i}", dtype="int8", shape=[1 << 20], offset=0, nbytes=1 << 20)
               for i in range(1000)]
    path = _craft(tmp_path / "alias.ckpt", _hdr(tensors), b"\0" * (1 << 20))
    with pytest.raises(CheckpointFormatError, match="overlaps"):
        ms.load_checkpoint(path)


def test_cell_parameters_saved_under_their_names(tmp_path):
    """As in MindSpore, a Cell's parameters are keyed by Parameter.name; objects without
    a name fall back to the name parameters_and_names() yields."""
    class Named:
        def __init__(self):
            self.p = Parameter(Tensor([1.0, 2.0]), name="backbone.conv.weight")

        def parameters_and_names(self):
            yield "conv.weight", self.p

    class Nameless:
        def __init__(self):
            self.t = Tensor([3.0])

        def parameters_and_names(self):
            yield "t", self.t

    f = str(tmp_path / "n.ckpt")
    ms.save_checkpoint(Named(), f)
    assert list(ms.load_checkpoint(f)) == ["backbone.conv.weight"]
    dst = Named()
    dst.p.set_data(Tensor([0.0, 0.0]))
    assert ms.load_param_into_net(dst, ms.load_checkpoint(f)) == ([], [])
    assert dst.p.asnumpy().tolist() == [1.0, 2.0]
    ms.save_checkpoint(Nameless(), f)
    assert list(ms.load_checkpoint(f)) == ["t"]


def test_with_nn_cell_if_available(tmp_path):
    try:
        from msmlir.nn import Cell
    except (ImportError, AttributeError):
        pytest.skip("msmlir.nn.Cell is not available yet")

    class Inner(Cell):
        def __init__(self):
            super().__init__()
            self.w = Parameter(Tensor(np.arange(6, dtype=np.float32).reshape(2, 3)), name="w")

    class Outer(Cell):
        def __init__(self):
            super().__init__()
            self.inner = Inner()
            self.b = Parameter(Tensor(np.ones(3, np.float32)), name="b")

    src, dst = Outer(), Outer()
    dst.inner.w.set_data(Tensor(np.zeros((2, 3), np.float32)))
    f = str(tmp_path / "cell.ckpt")
    ms.save_checkpoint(src, f)
    d = ms.load_checkpoint(f)
    assert set(d) == {p.name for _, p in src.parameters_and_names()}
    assert ms.load_param_into_net(dst, d) == ([], [])
    same_bits(dst.inner.w.asnumpy(), src.inner.w.asnumpy())


# --- integrity, durability, safetensors ------------------------------------------------

def test_bit_flips_in_the_data_are_detected(tmp_path):
    """Every tensor carries a CRC-32 (format v2): a flipped bit anywhere in the data
    region is an error naming the file and the tensor, never different weights."""
    rng = np.random.default_rng(1)
    path = str(tmp_path / "w.ckpt")
    ms.save_checkpoint({"a": Tensor(rng.standard_normal((64, 32)).astype(np.float32)),
                        "b": Tensor(rng.integers(0, 9, 100).astype(np.int32))}, path)
    raw = bytearray(open(path, "rb").read())
    hlen = PREFIX.unpack(raw[:PREFIX.size])[3]
    data_start = -(-(PREFIX.size + hlen) // 64) * 64
    header = json.loads(raw[PREFIX.size:PREFIX.size + hlen])
    assert header["version"] == 2 and all("crc32" in t for t in header["tensors"])
    flips = 0
    for k in range(19):
        pos = data_start + int(rng.integers(0, len(raw) - data_start))
        inside = any(data_start + t["offset"] <= pos < data_start + t["offset"] + t["nbytes"]
                     for t in header["tensors"])
        if not inside:
            continue
        bad = bytearray(raw)
        bad[pos] ^= 1 << (k % 8)
        p = tmp_path / f"flip{k}.ckpt"
        p.write_bytes(bytes(bad))
        with pytest.raises(CheckpointFormatError, match=f"flip{k}.ckpt.*CRC-32"):
            ms.load_checkpoint(str(p))
        flips += 1
    assert flips >= 10


def test_absurd_shapes_are_rejected_with_the_file_name(tmp_path):
    path = _craft(tmp_path / "huge.ckpt", _hdr([_t(shape=(0, 2 ** 62), nbytes=0)]))
    with pytest.raises(CheckpointFormatError, match=r"huge.ckpt.*too large"):
        ms.load_checkpoint(path)


def test_save_syncs_file_and_directory(tmp_path, monkeypatch):
    synced = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(os.fstat(fd).st_mode), real(fd)))
    ms.save_checkpoint({"w": Tensor(np.ones(3, np.float32))}, str(tmp_path / "s.ckpt"))
    import stat
    assert any(stat.S_ISREG(m) for m in synced) and any(stat.S_ISDIR(m) for m in synced)


def test_a_killed_save_leaves_no_temporary_files(tmp_path):
    """SIGKILL in the middle of saving a big checkpoint: the old file stays intact
    and nothing else is left in the directory."""
    import signal
    import subprocess
    import sys
    import time
    path = tmp_path / "big.ckpt"
    ms.save_checkpoint({"w": Tensor(np.zeros(4, np.float32))}, str(path))
    before = path.read_bytes()
    code = ("import sys, numpy as np, msmlir as ms\n"
            "w = ms.Tensor(np.ones((4096, 4096), np.float32))\n"
            "print('go', flush=True)\n"
            "while True:\n"
            "    ms.save_checkpoint({'w': w}, sys.argv[1])\n")
    for delay in (0.05, 0.2, 0.4):
        proc = subprocess.Popen([sys.executable, "-c", code, str(path)], stdout=subprocess.PIPE)
        assert proc.stdout.readline().strip() == b"go"
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert sorted(os.listdir(tmp_path)) == ["big.ckpt"]
    loaded = ms.load_checkpoint(str(path))["w"].asnumpy()   # old or new, never partial
    assert path.read_bytes() == before or loaded.shape == (4096, 4096)


def test_stale_named_temporaries_are_removed_by_the_next_save(tmp_path):
    """Where O_TMPFILE is not available the temporary file has a name; the next save
    of the same file removes those of dead writers."""
    stale = tmp_path / ".m.ckpt.tmp-999999999-0"
    stale.write_bytes(b"partial")
    mine = tmp_path / f".m.ckpt.tmp-{os.getpid()}-77"   # a live writer's: kept
    mine.write_bytes(b"in progress")
    ms.save_checkpoint({"w": Tensor(np.ones(2, np.float32))}, str(tmp_path / "m.ckpt"))
    assert not stale.exists() and mine.exists()


def test_safetensors_round_trip(tmp_path):
    """MindSpore 2.x's save_checkpoint(..., format="safetensors"): the ecosystem's
    standard for weights that cannot execute code, read by the safetensors library."""
    from safetensors.numpy import load_file
    data = all_dtype_arrays()
    del data["nan_payload"]      # a uint32 view: not a checkpoint dtype
    path = str(tmp_path / "w")
    ms.save_checkpoint({k: Tensor(v) for k, v in data.items()}, path, format="safetensors",
                       append_dict={"note": "epoch 3"})
    assert os.path.exists(path + ".safetensors")
    direct = load_file(path + ".safetensors")
    for k, v in data.items():
        same_bits(direct[k], v)
    got = ms.load_checkpoint(path + ".safetensors", format="safetensors")
    for k, v in data.items():
        same_bits(got[k].asnumpy(), v)
    assert got["note"] == "epoch 3"
    bad = tmp_path / "bad.safetensors"
    bad.write_bytes(b"\xff" * 64)
    with pytest.raises(CheckpointFormatError, match="bad.safetensors"):
        ms.load_checkpoint(str(bad), format="safetensors")
    with pytest.raises(ValueError, match="format must be one of"):
        ms.save_checkpoint({"w": Tensor(np.ones(2, np.float32))}, path, format="pickle")
