"""TFRecordDataset: records and tf.train.Example messages written here byte by byte from
the TFRecord and protobuf wire-format specifications, read back and checked; CRC-32C
against its published check value; corrupted files rejected."""
import struct

import numpy as np
import pytest

import msmlir as ms
import msmlir.dataset as ds
from msmlir.dataset.tfrecord import crc32c, masked_crc32c


def _varint(v):
    v &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def _ld(num, payload):                       # length-delimited field
    return _varint(num << 3 | 2) + _varint(len(payload)) + payload


def _feature(v):
    if isinstance(v, list) and v and isinstance(v[0], bytes):
        return _ld(1, b"".join(_ld(1, x) for x in v))
    arr = np.asarray(v)
    if arr.dtype.kind == "f":                # packed floats
        return _ld(2, _ld(1, arr.astype("<f4").tobytes()))
    # unpacked int64 values (wire type 0), as some writers emit
    return _ld(3, b"".join(_varint(1 << 3 | 0) + _varint(int(x)) for x in arr))


def _example(feats):
    entries = b"".join(_ld(1, _ld(1, k.encode()) + _ld(2, _feature(v)))
                       for k, v in feats.items())
    return _ld(1, entries)


def _record(data):
    n = struct.pack("<Q", len(data))
    return n + struct.pack("<I", masked_crc32c(n)) + data + struct.pack("<I", masked_crc32c(data))


def _rows(n):
    return [{"label": [i - 2], "vec": np.arange(3, dtype=np.float32) * i + 0.5,
             "img": [bytes(range(i, i + 6))], "name": [f"n{i}".encode()]} for i in range(n)]


def test_crc32c_check_value():
    assert crc32c(b"123456789") == 0xE3069283          # the published CRC-32C check value
    assert crc32c(b"") == 0


def test_read_without_schema(tmp_path):
    rows = _rows(5)
    f1, f2 = tmp_path / "a.tfrecord", tmp_path / "b.tfrecord"
    f1.write_bytes(b"".join(_record(_example(r)) for r in rows[:3]))
    f2.write_bytes(b"".join(_record(_example(r)) for r in rows[3:]))
    d = ds.TFRecordDataset([str(f1), str(f2)], shuffle=False)
    assert d.get_col_names() == ["img", "label", "name", "vec"]
    assert d.get_dataset_size() == 5
    for got, want in zip(d.create_dict_iterator(output_numpy=True), rows):
        assert got["label"].dtype == np.int64 and got["label"].tolist() == want["label"]
        np.testing.assert_array_equal(got["vec"], want["vec"])
        assert got["vec"].dtype == np.float32
        assert got["img"].tolist() == want["img"] and got["name"].tolist() == want["name"]


def test_read_with_schema_and_shards(tmp_path):
    rows = _rows(6)
    f = tmp_path / "a.tfrecord"
    f.write_bytes(b"".join(_record(_example(r)) for r in rows))
    s = ds.Schema()
    s.add_column("img", de_type=ms.uint8, shape=[2, 3])
    s.add_column("label", de_type=ms.int32)
    s.add_column("name", de_type="string")
    d = ds.TFRecordDataset(str(f), schema=s, shuffle=False)
    assert d.get_col_names() == ["img", "label", "name"]
    for k, (img, label, name) in enumerate(d.create_tuple_iterator(output_numpy=True)):
        np.testing.assert_array_equal(img, np.arange(k, k + 6, dtype=np.uint8).reshape(2, 3))
        assert label.dtype == np.int32 and label.tolist() == [k - 2]
        assert str(name) == f"n{k}"
    ds.config.set_seed(1)
    got = []
    for sid in range(3):
        d = ds.TFRecordDataset(str(f), columns_list=["label"], num_shards=3, shard_id=sid)
        got += [int(r[0][0]) for r in d.create_tuple_iterator(output_numpy=True)]
    assert sorted(got) == [k - 2 for k in range(6)]


def test_corrupted_files(tmp_path):
    rows = _rows(2)
    raw = b"".join(_record(_example(r)) for r in rows)
    f = tmp_path / "bad.tfrecord"
    f.write_bytes(raw[:-3])
    with pytest.raises(RuntimeError, match="record 1 is truncated"):
        ds.TFRecordDataset(str(f))
    f.write_bytes(b"x" * 40)
    with pytest.raises(RuntimeError, match="corrupted length \\(CRC mismatch\\)"):
        ds.TFRecordDataset(str(f))
    bad = bytearray(raw)
    bad[14] ^= 0xFF                                      # in record 0's data
    f.write_bytes(bytes(bad))
    with pytest.raises(RuntimeError, match="record 0 is corrupted \\(data CRC"):
        ds.TFRecordDataset(str(f))
    # correct CRCs around a message whose length field lies
    msg = _varint(1 << 3 | 2) + _varint(100) + b"abc"
    f.write_bytes(_record(msg))
    with pytest.raises(RuntimeError, match="not a valid tf.train.Example"):
        ds.TFRecordDataset(str(f))
    f.write_bytes(_record(_example(rows[0])))
    with pytest.raises(ValueError, match=r"columns \['nope'\] are not features"):
        ds.TFRecordDataset(str(f), columns_list=["nope"])
    with pytest.raises(ValueError, match="compression_type"):
        ds.TFRecordDataset(str(f), compression_type="GZIP")
    s = ds.Schema()
    s.add_column("vec", de_type=ms.float32, shape=[2, 2])
    with pytest.raises(RuntimeError, match="do not fit the schema shape"):
        list(ds.TFRecordDataset(str(f), schema=s).create_tuple_iterator(output_numpy=True))
