"""Bad input is a CompileError at the user's line, never an abort or a silent
answer: sizes that overflow int64, argmax of an empty axis."""
import numpy as np
import pytest

import msmlir as ms
from msmlir import ops

HUGE = (2 ** 40, 2 ** 40)


def zeros_huge(x):
    return ops.zeros(HUGE, ms.float32) + x


def broadcast_huge(x):
    return ops.broadcast_to(x, HUGE)


def argmax_rows(x):
    return ops.argmax(x, 1)


@pytest.mark.parametrize("fn, what", [(zeros_huge, "too large|at most 2\\^63-1 bytes"),
                                      (broadcast_huge, "too large|at most 2\\^63-1 bytes")])
def test_sizes_overflowing_int64_are_located_errors(fn, what):
    with pytest.raises(ms.CompileError, match=what) as e:
        ms.jit(fn)(np.ones(1, np.float32))
    assert "test_bad_input_errors.py" in str(e.value)


def test_argmax_of_an_empty_axis_raises_in_both_modes():
    x = np.zeros((3, 0), np.float32)
    with pytest.raises(ms.CompileError, match="empty axis") as e:
        ms.jit(argmax_rows)(x)
    assert "test_bad_input_errors.py" in str(e.value)
    with pytest.raises(ms.CompileError, match="empty axis"):
        ops.argmax(x, 1)
