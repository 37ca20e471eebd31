"""Replays every case of mindspore_cases.py through msmlir and compares with the values
real MindSpore 2.10.0 (CPU wheel, PyNative) produced for the same inputs
(data/mindspore_2_10_values.npz, recorded by tools/ms_record_values.py; MindSpore is not
needed here). Outputs must have MindSpore's structure, dtypes and values (f32 rtol 1e-5);
error cases must raise the same built-in exception class."""
import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

import msmlir as ms

_spec = importlib.util.spec_from_file_location(
    "mindspore_cases", Path(__file__).with_name("mindspore_cases.py"))
mc = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(mc)

DATA = np.load(Path(__file__).with_name("data") / "mindspore_2_10_values.npz")
META = json.loads(str(DATA["__meta__"]))
CASES = META["cases"]

# case -> why msmlir differs from MindSpore 2.10 (kept only while it does; strict xfail)
XFAIL: dict = {}


def _params():
    out = []
    for name in mc.CASES:
        marks = [pytest.mark.xfail(reason=XFAIL[name], strict=True)] if name in XFAIL else []
        out.append(pytest.param(name, id=name, marks=marks))
    return out


def test_every_case_is_recorded():
    assert set(CASES) == set(mc.CASES), (
        "mindspore_cases.py and the recorded data differ: re-record with "
        "tools/ms_record_values.py (MindSpore 2.10's python)")
    assert META["source"].startswith("mindspore 2.10.0")


@pytest.mark.parametrize("name", _params())
def test_matches_mindspore_2_10(name):
    fn, _, opts = mc.CASES[name]
    rec = CASES[name]
    inputs = [DATA[f"{name}::in{k}"] for k in range(rec["n_in"])]
    if opts["error"]:
        err = rec["error"]
        assert err is not None
        with pytest.raises(Exception) as info:
            mc.flatten(ms, fn(ms, *inputs))
        assert mc.builtin_base(info.type) == err["builtin"], (
            f"MindSpore raised {err['type']} ({err['message']}); msmlir raised "
            f"{info.type.__name__}: {info.value}")
        return
    assert "error" not in rec, rec
    struct, leaves = mc.flatten(ms, fn(ms, *inputs))
    assert struct == rec["structure"], (struct, rec["structure"])
    assert [k for k, _ in leaves] == rec["kinds"]
    for k, (kind, got) in enumerate(leaves):
        if kind == "other":
            assert got == rec["other"][str(k)], (got, rec["other"][str(k)])
            continue
        want = DATA[f"{name}::out{k}"]
        assert got.dtype == want.dtype, f"output {k}: dtype {got.dtype}, MindSpore {want.dtype}"
        assert got.shape == want.shape, f"output {k}: shape {got.shape}, MindSpore {want.shape}"
        if want.dtype.kind == "f":
            np.testing.assert_allclose(got, want, rtol=opts["rtol"], atol=opts["atol"],
                                       err_msg=f"output {k}")
        else:
            np.testing.assert_array_equal(got, want, err_msg=f"output {k}")
