"""The reference name lists include the public names of the real MindSpore 2.10.0 wheel
(compat/mindspore_names.json, recorded by tools/ms_record_names.py), and the Tensor
methods added for them behave as MindSpore 2.10's (values checked against numpy and
against what MindSpore 2.10 returned when run by hand: noted per test)."""
import json
from pathlib import Path

import numpy as np
import pytest

import msmlir as ms
from msmlir import compat
from msmlir.compat import _reference

NAMES_JSON = Path(_reference.__file__).with_name("mindspore_names.json")


def test_recorded_lists_are_in_the_table():
    rec = json.loads(NAMES_JSON.read_text())
    assert rec["source"].startswith("mindspore 2.10.0 wheel")
    for ns, names in rec["names"].items():
        assert set(names) <= set(compat.NAMES[ns]), ns
        assert "mindspore 2.10.0 wheel" in compat.SOURCES[ns] or \
            len(names) <= len(set(names) & set(compat.NAMES[ns]))
    tensor = rec["names"]["Tensor"]
    assert len(tensor) == 430
    present = [n for n in tensor if hasattr(ms.Tensor, n)]
    assert len(present) >= 400, sorted(set(tensor) - set(present))


def test_tensor_host_attributes():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    x = ms.Tensor(a)
    assert x.device == "CPU" and x.is_meta is False and x.is_shared() is False
    assert x.const_arg is False and ms.Tensor.const_arg is False
    assert x.value() is x
    d = x.data                        # shares the buffer (MindSpore: data without history)
    assert isinstance(d, ms.Tensor) and d is not x
    np.testing.assert_array_equal(d.asnumpy(), a)
    assert x.data_ptr() == x.asnumpy().ctypes.data
    assert x.data_sync(True) is None
    assert x.get_bytes() == a.tobytes()
    assert x.to_("CPU") is x
    p = ms.Parameter(ms.Tensor(a), name="p")
    assert p.data is p                # Parameter keeps MindSpore's Parameter.data


def test_tensor_set_dtype_and_set_():
    x = ms.Tensor(np.array([0.5, 1.7, -2.2], np.float32))
    assert x.set_dtype(ms.int32) == ms.int32       # MindSpore 2.10 returns the dtype
    assert x.dtype == ms.int32
    np.testing.assert_array_equal(x.asnumpy(), [0, 1, -2])
    y = ms.Tensor(np.zeros(2, np.float32))
    src = ms.Tensor(np.arange(4, dtype=np.int64).reshape(2, 2))
    assert y.set_(src) is y
    assert y.shape == (2, 2) and y.dtype == ms.int64
    np.testing.assert_array_equal(y.asnumpy(), src.asnumpy())
    with pytest.raises(ValueError, match="storage_offset/size/stride"):
        y.set_(src, 1)


def test_tensor_erfinv_in_place():
    v = np.array([0.1, -0.5, 0.9], np.float32)
    x = ms.Tensor(v)
    assert x.erfinv_() is x
    from math import erf
    np.testing.assert_allclose([erf(e) for e in x.asnumpy()], v, rtol=1e-5, atol=1e-6)


def test_erfinv_in_place_inside_jit_is_an_error():
    @ms.jit
    def f(t):
        return t.erfinv_()
    with pytest.raises(RuntimeError, match="in place"):
        f(ms.Tensor(np.array([0.1], np.float32)))
