"""`Schema` (MindSpore's `mindspore.dataset.Schema`): column names, types and shapes,
given to GeneratorDataset (names and the cast of each column) or read from a JSON
schema file ({"columns": {name: {"type", "rank", "shape"}} or a list of
{"name", "type", "shape"}, optional "numRows" and "datasetType"})."""
from __future__ import annotations

import json
import numbers

import numpy as np

__all__ = ["Schema"]

_EXTRA = ("string", "bytes")


def _type_name(de_type, name):
    """The dtype name of a column type: an msmlir/MindSpore dtype, a numpy type or a name;
    'string' and 'bytes' for text / binary columns."""
    if isinstance(de_type, str) and de_type in _EXTRA:
        return de_type
    if de_type in (str, np.str_):
        return "string"
    if de_type in (bytes, np.bytes_):
        return "bytes"
    from .. import dtype as _dt
    try:
        return str(_dt.get(de_type))
    except (TypeError, ValueError):
        pass
    try:
        return str(_dt.get(np.dtype(de_type).name))
    except (TypeError, ValueError):
        raise TypeError(f"Schema: column '{name}' has an unknown type {de_type!r}") from None


class Schema:
    """Columns of a dataset: `add_column(name, de_type, shape)`, `parse_columns`,
    `to_json` / `from_json`, or `Schema(schema_file)` for a JSON file."""

    def __init__(self, schema_file=None):
        self.columns = []          # [{"name", "type"[, "shape"]}] in order
        self.num_rows = None
        self.dataset_type = ""
        if schema_file is not None:
            if not isinstance(schema_file, str):
                raise TypeError(f"Schema: schema_file must be a path, got {schema_file!r}")
            try:
                with open(schema_file, encoding="utf-8") as f:
                    obj = json.load(f)
            except OSError as e:
                raise RuntimeError(f"Schema: cannot read {schema_file}: {e.strerror}") from None
            except ValueError as e:
                raise RuntimeError(f"Schema: {schema_file} is not valid JSON: {e}") from None
            self.from_json(obj)

    def add_column(self, name, de_type, shape=None):
        """Appends a column; `shape` is a list of ints (-1 for any size) or None."""
        if not isinstance(name, str) or not name:
            raise TypeError(f"Schema.add_column: name must be a non-empty str, got {name!r}")
        if any(c["name"] == name for c in self.columns):
            raise ValueError(f"Schema.add_column: column '{name}' already exists")
        col = {"name": name, "type": _type_name(de_type, name)}
        if shape is not None:
            if not isinstance(shape, (list, tuple)) or not all(
                    isinstance(d, numbers.Integral) and not isinstance(d, bool) and
                    (d == -1 or d > 0) for d in shape):
                raise ValueError(f"Schema.add_column: column '{name}' shape must be a list of "
                                 f"positive ints or -1, got {shape!r}")
            col["shape"] = [int(d) for d in shape]
        self.columns.append(col)

    def parse_columns(self, columns):
        """Adds columns from {name: {"type", "shape"}} or [{"name", "type", "shape"}]."""
        if isinstance(columns, dict):
            items = []
            for k, v in columns.items():
                if not isinstance(v, dict):
                    raise ValueError(f"Schema: column '{k}' must be a dict, got {v!r}")
                items.append(dict(v, name=k))
        elif isinstance(columns, list):
            items = columns
        else:
            raise TypeError(f"Schema: columns must be a dict or a list, got "
                            f"{type(columns).__name__}")
        for c in items:
            if not isinstance(c, dict) or "name" not in c or "type" not in c:
                raise RuntimeError(f"Schema: a column needs 'name' and 'type', got {c!r}")
            shape = c.get("shape")
            if "rank" in c and shape is not None and len(shape) != c["rank"]:
                raise RuntimeError(f"Schema: column '{c['name']}' has rank {c['rank']} but "
                                   f"shape {shape}")
            self.add_column(c["name"], c["type"], shape)

    def from_json(self, json_obj):
        if not isinstance(json_obj, dict) or "columns" not in json_obj:
            raise RuntimeError("Schema: the JSON object needs a 'columns' entry")
        self.columns = []
        self.parse_columns(json_obj["columns"])
        n = json_obj.get("numRows")
        if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 0):
            raise RuntimeError(f"Schema: numRows must be a non-negative int, got {n!r}")
        self.num_rows = n
        self.dataset_type = json_obj.get("datasetType", "")

    def to_json(self):
        cols = {}
        for c in self.columns:
            d = {"type": c["type"]}
            if "shape" in c:
                d["rank"] = len(c["shape"])
                d["shape"] = list(c["shape"])
            cols[c["name"]] = d
        obj = {"columns": cols}
        if self.num_rows is not None:
            obj["numRows"] = self.num_rows
        if self.dataset_type:
            obj["datasetType"] = self.dataset_type
        return json.dumps(obj, indent=2)

    def get_num_rows(self):
        return self.num_rows

    def column_names(self):
        return [c["name"] for c in self.columns]

    def numpy_types(self):
        """Per column, the numpy dtype to cast to (None for string / bytes columns)."""
        from .. import dtype as _dt
        return [None if c["type"] in _EXTRA else np.dtype(_dt.get(c["type"]).to_numpy())
                for c in self.columns]

    def __repr__(self):
        return self.to_json()
