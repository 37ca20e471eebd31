"""msmlir's own errors next to the MindSpore 2.10 behaviours recorded in
test_mindspore_values.py (issue 12): inputs MindSpore accepts with results msmlir does not
reproduce, or that have no MindSpore counterpart, fail with a clear error."""
import numpy as np
import pytest

import msmlir as ms


def t(a):
    return ms.Tensor(np.asarray(a, np.float32))


X3 = np.arange(30, dtype=np.float32).reshape(2, 3, 5)


def test_pad_circular_wider_than_the_dim_is_refused():
    with pytest.raises(ValueError, match="circular.*larger than its size 5"):
        ms.ops.pad(t(X3), (6, 1), mode="circular")


def test_pad_cropping_a_whole_dim_is_refused():
    with pytest.raises(ValueError, match="crops all of dim 2"):
        ms.ops.pad(t(X3), (-3, -2), mode="replicate")


def test_pad_value_only_with_constant_mode():
    with pytest.raises(ValueError, match="only used in mode 'constant'"):
        ms.ops.pad(t(X3), (1, 1), mode="reflect", value=2.0)
    with pytest.raises(ValueError, match="mode must be"):
        ms.ops.pad(t(X3), (1, 1), mode="symmetric")


def test_pad_modes_equal_numpy_on_a_large_crop_and_pad():
    got = ms.ops.pad(t(X3), (-2, 4, 1, -1), mode="replicate").asnumpy()
    want = np.pad(X3[:, :2, 2:], ((0, 0), (1, 0), (0, 4)), mode="edge")
    np.testing.assert_array_equal(got, want)


def test_clip_by_value_needs_a_bound():
    with pytest.raises(ValueError, match="at least one of clip_value_min"):
        ms.ops.clip_by_value(t([1.0]))


def test_one_bound_clamp_keeps_integer_dtype_and_values():
    x = ms.Tensor(np.array([-5, 0, 7], np.int32))
    np.testing.assert_array_equal(ms.ops.clamp(x, -1).asnumpy(), [-1, 0, 7])
    np.testing.assert_array_equal(ms.ops.clamp(x, None, 3).asnumpy(), [-5, 0, 3])
    assert ms.ops.clamp(x, -1).dtype == ms.int32


def test_dlpack_capsule_is_consumed_once_and_objects_share_memory():
    a = ms.Tensor(np.arange(3, dtype=np.float32))
    cap = a.to_dlpack()
    ms.Tensor.from_dlpack(cap)
    with pytest.raises(RuntimeError, match="consumed only once"):
        ms.Tensor.from_dlpack(cap)
    src = np.arange(4.0)
    shared = ms.Tensor.from_dlpack(src)
    src[0] = 9.0
    assert shared.asnumpy()[0] == 9.0
    np.testing.assert_array_equal(np.from_dlpack(a), [0, 1, 2])


def test_requires_grad_takes_a_bool():
    with pytest.raises(TypeError, match="must be a bool"):
        ms.Tensor(np.ones(2, np.float32)).requires_grad_(1)
