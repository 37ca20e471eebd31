"""The partial notes of names outside MindSpore's API-doc lists (compat.EXTRA_PARTIAL):
each names something msmlir has (else it would be a missing name), says what differs,
and the 200 most used Primitive classes are all present."""
import importlib

from msmlir import compat
from msmlir.compat import usage


def test_extra_partial_names_exist_and_say_what_differs():
    assert compat.EXTRA_PARTIAL
    for key, note in compat.EXTRA_PARTIAL.items():
        ns, name = key.split(":", 1)
        assert ns in compat.NAMESPACES and note, key
        assert name not in compat.NAMES[ns], key          # else it belongs in PARTIAL
        root = importlib.import_module(compat.NAMESPACES[ns]) if ns != "Tensor" else \
            importlib.import_module("msmlir").Tensor
        assert hasattr(root, name), key
    assert set(compat.EXTRA_PARTIAL).isdisjoint(compat.PARTIAL)


def test_top_200_primitives_present():
    counts, _ = usage.load_counts()
    present, k, missing = usage.top_primitives_present(counts)
    assert (present, k, missing) == (200, 200, [])
