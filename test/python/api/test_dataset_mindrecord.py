"""mindrecord.FileWriter / FileReader and dataset.MindDataset: round trips of every schema
type, shards, sharded reading, shuffling, and rejection of corrupted files."""
import os
import sqlite3
import struct
import zlib

import numpy as np
import pytest

import msmlir.dataset as ds
from msmlir.mindrecord import FileReader, FileWriter, SUCCESS

SCHEMA = {"id": {"type": "int64"}, "label": {"type": "int32"}, "score": {"type": "float32"},
          "w": {"type": "float64"}, "name": {"type": "string"}, "blob": {"type": "bytes"},
          "img": {"type": "float32", "shape": [2, -1]}, "seq": {"type": "int32", "shape": [-1]}}


def _rows(n, seed=0):
    rng = np.random.default_rng(seed)
    return [{"id": 10 ** 12 + i, "label": i % 3, "score": float(np.float32(i / 7)),
             "w": i * 0.1, "name": f"r{i}-é", "blob": bytes(rng.integers(0, 256, i + 1,
                                                                       dtype=np.uint8)),
             "img": rng.standard_normal((2, i + 1)).astype(np.float32),
             "seq": np.arange(i, dtype=np.int32)} for i in range(n)]


def _write(path, rows, shard_num=1, index=("label",)):
    w = FileWriter(str(path), shard_num)
    assert w.add_schema(SCHEMA, "test") == 0
    if index:
        w.add_index(list(index))
    assert w.write_raw_data(rows[:3]) == SUCCESS
    w.write_raw_data(rows[3:])
    assert w.commit() == SUCCESS


def _check_row(got, want):
    assert got["id"].dtype == np.int64 and got["id"].shape == () and got["id"] == want["id"]
    assert got["label"].dtype == np.int32 and got["label"] == want["label"]
    assert got["score"].dtype == np.float32 and got["score"] == np.float32(want["score"])
    assert got["w"].dtype == np.float64 and got["w"] == want["w"]
    assert str(got["name"]) == want["name"]
    assert got["blob"].dtype == np.uint8 and got["blob"].tobytes() == want["blob"]
    np.testing.assert_array_equal(got["img"], want["img"])
    assert got["img"].dtype == np.float32
    np.testing.assert_array_equal(got["seq"], want["seq"])
    assert got["seq"].dtype == np.int32


def test_round_trip_all_types(tmp_path):
    rows = _rows(7)
    f = tmp_path / "a.mindrecord"
    _write(f, rows)
    data = ds.MindDataset(str(f), shuffle=False)
    assert data.get_col_names() == list(SCHEMA)
    assert data.get_dataset_size() == 7
    got = list(data.create_dict_iterator(output_numpy=True, num_epochs=1))
    assert len(got) == 7
    for g, r in zip(got, rows):
        _check_row(g, r)
    # FileReader: same values, bytes as Python bytes
    rd = FileReader(str(f))
    out = list(rd.get_next())
    rd.close()
    assert [o["blob"] for o in out] == [r["blob"] for r in rows]
    assert [o["name"] for o in out] == [r["name"] for r in rows]
    # the .db index holds the index field of every row
    con = sqlite3.connect(str(f) + ".db")
    assert con.execute("SELECT ROW_ID, label FROM INDEXES ORDER BY ROW_ID").fetchall() == \
        [(i, r["label"]) for i, r in enumerate(rows)]
    con.close()


def test_columns_list_and_pipeline(tmp_path):
    rows = _rows(6)
    f = tmp_path / "b.mindrecord"
    _write(f, rows)
    data = ds.MindDataset(str(f), columns_list=["seq", "label"], shuffle=False)
    assert data.get_col_names() == ["seq", "label"]
    data = data.map(lambda s: s.sum().astype(np.int32), "seq").batch(2)
    got = [(s.tolist(), l.tolist()) for s, l in data.create_tuple_iterator(output_numpy=True)]
    sums = [int(np.arange(i).sum()) for i in range(6)]
    assert got == [(sums[0:2], [0, 1]), (sums[2:4], [2, 0]), (sums[4:6], [1, 2])]


def test_shards_round_robin_and_whole_set(tmp_path):
    rows = _rows(10)
    base = tmp_path / "s.mindrecord"
    _write(base, rows, shard_num=3)
    names = [f"s.mindrecord{i}" for i in range(3)]
    assert all((tmp_path / n).exists() and (tmp_path / (n + ".db")).exists() for n in names)
    # one file of the set brings the whole set; row k went to shard k % 3
    data = ds.MindDataset(str(tmp_path / names[1]), columns_list=["id"], shuffle=False)
    ids = [int(r[0]) - 10 ** 12 for r in data.create_tuple_iterator(output_numpy=True)]
    assert ids == [0, 3, 6, 9, 1, 4, 7, 2, 5, 8]
    # a list is exactly those files
    data = ds.MindDataset([str(tmp_path / names[2])], columns_list=["id"], shuffle=False)
    assert [int(r[0]) - 10 ** 12 for r in data.create_tuple_iterator(output_numpy=True)] == \
        [2, 5, 8]


def test_num_shards_shuffle_and_seed(tmp_path):
    rows = _rows(12)
    f = tmp_path / "c.mindrecord"
    _write(f, rows)
    ds.config.set_seed(5)
    seen = []
    for sid in range(3):
        d = ds.MindDataset(str(f), columns_list=["id"], num_shards=3, shard_id=sid)
        assert d.get_dataset_size() == 4
        seen += [int(r[0]) for r in d.create_tuple_iterator(output_numpy=True)]
    assert sorted(seen) == [10 ** 12 + i for i in range(12)]
    a = [int(r[0]) for r in ds.MindDataset(str(f), columns_list=["id"], shuffle=True)
         .create_tuple_iterator(output_numpy=True)]
    b = [int(r[0]) for r in ds.MindDataset(str(f), columns_list=["id"], shuffle=ds.Shuffle.GLOBAL)
         .create_tuple_iterator(output_numpy=True)]
    assert a == b and sorted(a) == sorted(seen) and a != sorted(a)
    d = ds.MindDataset(str(f), columns_list=["id"], sampler=ds.SubsetSampler([4, 1]))
    assert [int(r[0]) for r in d.create_tuple_iterator(output_numpy=True)] == \
        [10 ** 12 + 4, 10 ** 12 + 1]
    d = ds.MindDataset(str(f), columns_list=["id"], num_samples=5, shuffle=False)
    assert d.get_dataset_size() == 5


def test_padded_sample(tmp_path):
    rows = _rows(5)
    f = tmp_path / "p.mindrecord"
    _write(f, rows)
    d = ds.MindDataset(str(f), columns_list=["label", "name"], shuffle=False,
                       padded_sample={"label": -1, "name": "pad"}, num_padded=3,
                       num_shards=4, shard_id=3)
    got = [(int(l), str(n)) for l, n in d.create_tuple_iterator(output_numpy=True)]
    assert got == [(0, "r3-é"), (-1, "pad")] and d.get_dataset_size() == 2


def test_writer_errors(tmp_path):
    f = str(tmp_path / "e.mindrecord")
    w = FileWriter(f)
    with pytest.raises(RuntimeError, match="add the schema first"):
        w.write_raw_data([{"a": 1}])
    with pytest.raises(ValueError, match="type 'int8'"):
        w.add_schema({"a": {"type": "int8"}})
    with pytest.raises(ValueError, match="cannot have a shape"):
        w.add_schema({"a": {"type": "string", "shape": [2]}})
    with pytest.raises(ValueError, match="field name"):
        w.add_schema({"a b": {"type": "int32"}})
    w.add_schema({"a": {"type": "int32"}, "v": {"type": "float32", "shape": [3]}})
    with pytest.raises(ValueError, match="'v' is an array"):
        w.add_index(["v"])
    with pytest.raises(ValueError, match=r"missing and \['b'\] are not in the schema"):
        w.write_raw_data([{"a": 1, "v": np.zeros(3), "b": 2}])
    with pytest.raises(ValueError, match="shape \\[4\\], the schema says \\[3\\]"):
        w.write_raw_data([{"a": 1, "v": np.zeros(4)}])
    with pytest.raises(ValueError, match="outside int32"):
        w.write_raw_data([{"a": 2 ** 40, "v": np.zeros(3)}])
    with pytest.raises(TypeError, match="'a' is int32, got str"):
        w.write_raw_data([{"a": "x", "v": np.zeros(3)}])
    w.write_raw_data([{"a": 1, "v": np.zeros(3)}])
    w.commit()
    with pytest.raises(RuntimeError, match="already committed"):
        w.write_raw_data([{"a": 1, "v": np.zeros(3)}])
    with pytest.raises(RuntimeError, match="already exists"):
        FileWriter(f)
    FileWriter(f, overwrite=True)
    assert not os.path.exists(f)


def _good_file(tmp_path):
    f = tmp_path / "g.mindrecord"
    _write(f, _rows(4), index=None)
    return f


def test_reader_rejects_corruption(tmp_path):
    f = _good_file(tmp_path)
    raw = f.read_bytes()
    bad = tmp_path / "bad.mindrecord"

    def check(data, match):
        bad.write_bytes(data)
        with pytest.raises(RuntimeError, match=match):
            d = ds.MindDataset(str(bad), shuffle=False)
            list(d.create_tuple_iterator(output_numpy=True))

    check(b"\x00" * 100, "not an msmlir MindRecord")
    check(raw[:-10], "not committed \\(FileWriter.commit\\) or is truncated")
    check(raw[:-40] + raw[-32:], "corrupted trailer")
    hlen = struct.unpack("<I", raw[12:16])[0]
    flipped = bytearray(raw)
    flipped[20] ^= 1                                   # in the header JSON
    check(bytes(flipped), "corrupted header")
    rec = 16 + hlen + 4                                # first record
    flipped = bytearray(raw)
    flipped[rec + 20] ^= 0xFF                          # in its payload
    check(bytes(flipped), "record 0 is corrupted \\(checksum")


def test_reader_rejects_lying_lengths(tmp_path):
    f = tmp_path / "l.mindrecord"
    w = FileWriter(str(f))
    w.add_schema({"s": {"type": "string"}})
    w.write_raw_data([{"s": "abc"}])
    w.commit()
    raw = bytearray(f.read_bytes())
    hlen = struct.unpack("<I", raw[12:16])[0]
    rec = 16 + hlen + 4
    payload = struct.pack("<I", 1000) + b"abc"         # string length past the record
    raw[rec + 8:rec + 15] = payload
    raw[rec + 15:rec + 19] = struct.pack("<I", zlib.crc32(payload))
    f.write_bytes(bytes(raw))
    with pytest.raises(RuntimeError, match="runs past the record's end"):
        list(ds.MindDataset(str(f)).create_tuple_iterator(output_numpy=True))


def test_dataset_argument_errors(tmp_path):
    f = _good_file(tmp_path)
    with pytest.raises(ValueError, match=r"columns \['nope'\] are not fields"):
        ds.MindDataset(str(f), columns_list=["nope"])
    from msmlir.mindrecord import FileReader
    with pytest.raises(ValueError, match=r"FileReader: columns \['nope'\] are not fields"):
        FileReader(str(f), columns=["nope"])
    with pytest.raises(TypeError, match="FileReader: columns must be a non-empty list"):
        FileReader(str(f), columns=[])
    with pytest.raises(RuntimeError, match="cannot open"):
        ds.MindDataset(str(tmp_path / "missing.mindrecord"))
    with pytest.raises(TypeError, match="dataset_files"):
        ds.MindDataset(3)
    with pytest.raises(TypeError, match="shuffle"):
        ds.MindDataset(str(f), shuffle="yes")
    with pytest.raises(ValueError, match="together"):
        ds.MindDataset(str(f), padded_sample={"id": 0})
    # a shard set with a foreign member
    _write(tmp_path / "x.mindrecord", _rows(4), shard_num=2)
    _write(tmp_path / "y.mindrecord", _rows(4), shard_num=2)
    os.replace(tmp_path / "y.mindrecord1", tmp_path / "x.mindrecord1")
    with pytest.raises(RuntimeError, match="different FileWriter"):
        ds.MindDataset(str(tmp_path / "x.mindrecord0"))


def test_reader_rejects_overflowing_dims(tmp_path):
    f = tmp_path / "o.mindrecord"
    w = FileWriter(str(f))
    w.add_schema({"a": {"type": "int32", "shape": [-1, -1, -1]}})
    w.write_raw_data([{"a": np.zeros((1, 1, 1), np.int32)}])
    w.commit()
    raw = bytearray(f.read_bytes())
    hlen = struct.unpack("<I", raw[12:16])[0]
    rec = 16 + hlen + 4
    n = struct.unpack("<Q", raw[rec:rec + 8])[0]
    # dims whose product is 2**64 (0 in int64 arithmetic), same record length
    payload = struct.pack("<B3I", 3, 2 ** 31, 2 ** 31, 4) + b"\0" * (n - 13)
    raw[rec + 8:rec + 8 + n] = payload
    raw[rec + 8 + n:rec + 12 + n] = struct.pack("<I", zlib.crc32(payload))
    f.write_bytes(bytes(raw))
    with pytest.raises(RuntimeError, match="runs past the record's end"):
        list(ds.MindDataset(str(f)).create_tuple_iterator(output_numpy=True))


def test_padded_dataset_concat_shards(tmp_path):
    rows = _rows(5)
    f = tmp_path / "q.mindrecord"
    _write(f, rows)
    data = ds.MindDataset(str(f), columns_list=["label"], shuffle=False)
    pad = ds.PaddedDataset([{"label": np.int32(-k)} for k in (1, 2, 3)])
    assert pad.get_col_names() == ["label"] and pad.get_dataset_size() == 3
    both = data + pad
    assert [int(r[0]) for r in both.create_tuple_iterator(output_numpy=True)] == \
        [0, 1, 2, 0, 1, -1, -2, -3]
    with pytest.raises(ValueError, match="sample 1 has columns"):
        ds.PaddedDataset([{"a": 1}, {"b": 2}])
    with pytest.raises(TypeError, match="non-empty list of dicts"):
        ds.PaddedDataset([])
