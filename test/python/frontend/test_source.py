"""frontend/source.py: finding and caching the source of user functions."""
import importlib.util

import numpy as np
import pytest

import msmlir as ms

SRC = "def f(x):\n    return x + undefined_name\n"


def _load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.f


def test_identical_functions_in_two_files_report_their_own_file(tmp_path):
    # code objects compare equal when only their file differs: the source cache must
    # not hand the second function the first one's file
    paths = []
    for d in ("one", "two"):
        (tmp_path / d).mkdir()
        p = tmp_path / d / "same.py"
        p.write_text(SRC)
        paths.append(str(p))
    fa, fb = _load(paths[0], "same_one"), _load(paths[1], "same_two")
    assert fa.__code__ == fb.__code__ and fa.__code__.co_filename != fb.__code__.co_filename
    for fn, path in ((fa, paths[0]), (fb, paths[1])):
        with pytest.raises(ms.CompileError, match="undefined_name") as e:
            ms.jit(fn)(np.ones(2, np.float32))
        assert e.value.filename == path
