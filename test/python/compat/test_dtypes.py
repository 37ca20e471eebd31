"""MindSpore's dtypes (issue 12, item 3): int16, uint8/16/32/64, complex64/128 and
bfloat16. The mindir dialect has f16/bf16/f32/f64/i1/i8/i32/i64 only, so the new
integer and complex types are host-only: a Tensor holds them and converts them
on the host (`astype`), compiled code refuses them with a TypeError that says to
cast first. bfloat16 converts through ml_dtypes (the CPU runtime cannot pass bf16
buffers yet)."""
import numpy as np
import pytest

import msmlir as ms
from msmlir import ops

ml_dtypes = pytest.importorskip("ml_dtypes")


@pytest.mark.parametrize("name, np_type, rep", [
    ("int16", np.int16, "Int16"), ("uint8", np.uint8, "UInt8"), ("uint16", np.uint16, "UInt16"),
    ("uint32", np.uint32, "UInt32"), ("uint64", np.uint64, "UInt64"),
    ("complex64", np.complex64, "Complex64"), ("complex128", np.complex128, "Complex128"),
])
def test_host_only_dtypes(name, np_type, rep):
    d = getattr(ms, name)
    assert repr(d) == rep and str(d) == name and not d.compiled
    assert ms.dtype_to_nptype(d) is np_type
    assert ms.pytype_to_dtype(np_type) is d and ms.dtype.get(name) is d
    data = np.arange(6).reshape(2, 3).astype(np_type)
    t = ms.Tensor(data)
    assert t.dtype == d and t.shape == (2, 3)
    np.testing.assert_array_equal(t.asnumpy(), data)
    f = t.astype(ms.float32)
    assert f.dtype == ms.float32
    np.testing.assert_array_equal(f.asnumpy(), data.real.astype(np.float32))
    back = f.astype(d)
    assert back.dtype == d
    np.testing.assert_array_equal(back.asnumpy(), data)
    with pytest.raises(TypeError, match="cast it first"):
        t + 1
    with pytest.raises(TypeError, match="not supported by the msmlir compiler"):
        ms.jit(lambda x: x * 2)(t)
    assert isinstance(ms.jit(lambda x: x * 2)(t.astype(ms.int32)), ms.Tensor)


def test_dtype_helpers():
    assert ms.dtype_to_nptype(ms.float16) is np.float16
    assert ms.dtype_to_nptype(ms.bool_) is np.bool_
    assert ms.pytype_to_dtype(float) is ms.float32 and ms.pytype_to_dtype(int) is ms.int64
    assert ms.pytype_to_dtype(bool) is ms.bool_ and ms.pytype_to_dtype(np.int8) is ms.int8
    with pytest.raises(NotImplementedError):
        ms.pytype_to_dtype(str)
    assert ms.dtype_to_pytype(ms.float64) is float and ms.dtype_to_pytype(ms.int8) is int
    assert ms.dtype_to_pytype(ms.bool_) is bool
    assert ms.get_py_obj_dtype(ms.Tensor([1.0])) is ms.float32
    assert ms.get_py_obj_dtype(3) is ms.int64
    import msmlir.common.dtype as mstype
    assert mstype.float32 is ms.float32 and mstype.int_ is ms.int64 and mstype.uint is ms.uint64
    assert ms.uint8 in mstype.uint_type and ms.float16 in mstype.float_type
    assert ms.int16 in mstype.int_type and ms.complex64 in mstype.number_type
    assert isinstance(ms.float32, mstype.Type)


def test_astype_and_ops_dtype():
    x = ms.Tensor(np.float32([1.7, -2.5, 3.0]))
    y = x.astype(ms.int32)
    assert y.dtype == ms.int32 and ops.dtype(y) == ms.int32
    np.testing.assert_array_equal(y.asnumpy(), [1, -2, 3])       # truncation toward zero
    assert x.astype("float16").dtype == ms.float16
    assert x.astype(np.float64).dtype == ms.float64
    z = x.astype(ms.int16)
    np.testing.assert_array_equal(z.asnumpy(), [1, -2, 3])

    @ms.jit
    def f(a):
        return a.astype(ms.int32) + 1
    np.testing.assert_array_equal(f(x).asnumpy(), [2, -1, 4])


def test_bfloat16_through_ml_dtypes():
    x = ms.Tensor(np.float32([1.5, 2.25, -3.0, 1e-3]))
    b = x.astype(ms.bfloat16)
    assert b.dtype == ms.bfloat16 and b.asnumpy().dtype == np.dtype(ml_dtypes.bfloat16)
    np.testing.assert_array_equal(b.astype(ms.float32).asnumpy(),
                                  np.float32([1.5, 2.25, -3.0, 1e-3]).astype(
                                      ml_dtypes.bfloat16).astype(np.float32))
    assert ms.dtype_to_nptype(ms.bfloat16) is ml_dtypes.bfloat16
    with pytest.raises(TypeError, match="bf16"):     # the CPU runtime: no bf16 buffers yet
        b + b
