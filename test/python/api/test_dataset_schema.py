"""dataset.Schema: columns from add_column / JSON files, and GeneratorDataset(schema=...)."""
import json

import numpy as np
import pytest

import msmlir as ms
import msmlir.dataset as ds


def test_add_column_to_json_round_trip(tmp_path):
    s = ds.Schema()
    s.add_column("image", de_type=ms.float32, shape=[2, 3])
    s.add_column("label", de_type=np.int32)
    s.add_column("text", de_type="string")
    assert s.column_names() == ["image", "label", "text"]
    obj = json.loads(s.to_json())
    assert obj == {"columns": {"image": {"type": "float32", "rank": 2, "shape": [2, 3]},
                               "label": {"type": "int32"}, "text": {"type": "string"}}}
    f = tmp_path / "schema.json"
    f.write_text(json.dumps(dict(obj, numRows=4, datasetType="TF")))
    t = ds.Schema(str(f))
    assert t.columns == s.columns and t.get_num_rows() == 4
    u = ds.Schema()
    u.parse_columns([{"name": "a", "type": "uint8", "shape": [-1]}])
    assert u.columns == [{"name": "a", "type": "uint8", "shape": [-1]}]


def test_generator_with_schema_casts():
    s = ds.Schema()
    s.add_column("x", de_type=ms.float32, shape=[2])
    s.add_column("y", de_type=ms.int32)
    rows = [(np.array([1.5, 2.5]), 3), (np.array([0.25, 1.0]), 4)]
    d = ds.GeneratorDataset(rows, schema=s, shuffle=False)
    assert d.get_col_names() == ["x", "y"]
    got = list(d.create_tuple_iterator(output_numpy=True))
    assert got[0][0].dtype == np.float32 and got[0][1].dtype == np.int32
    np.testing.assert_array_equal(got[1][0], np.array([0.25, 1.0], np.float32))
    assert [int(r[1]) for r in got] == [3, 4]


def test_schema_errors(tmp_path):
    s = ds.Schema()
    with pytest.raises(TypeError, match="unknown type"):
        s.add_column("a", de_type="complex1024")
    s.add_column("a", de_type="int32")
    with pytest.raises(ValueError, match="already exists"):
        s.add_column("a", de_type="int32")
    with pytest.raises(ValueError, match="shape must be"):
        s.add_column("b", de_type="int32", shape=[0])
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(RuntimeError, match="bad.json is not valid JSON"):
        ds.Schema(str(bad))
    bad.write_text(json.dumps({"columns": {"a": {"type": "int32", "rank": 2, "shape": [3]}}}))
    with pytest.raises(RuntimeError, match="rank 2 but shape"):
        ds.Schema(str(bad))
    with pytest.raises(RuntimeError, match="needs a 'columns' entry"):
        ds.Schema().from_json({"cols": {}})
    with pytest.raises(ValueError, match="schema has no columns"):
        ds.GeneratorDataset([1], schema=ds.Schema())
