"""Programs with tensor-dependent control flow, checked against numpy. Each
`check_*` function runs in a child process (see test_jit_control_flow_e2e.py)."""
from __future__ import annotations

import numpy as np

import msmlir as ms
from msmlir import ops


@ms.jit
def double_until(x):
    i = 0
    while x.sum() < 100:
        x = x * 2
        i = i + 1
    return x, i


def check_while_doubling():
    for start in (np.ones((2, 3), np.float32), np.full((2, 3), 0.3, np.float32),
                  np.full((2, 3), 50.0, np.float32)):
        x, i = double_until(start)
        ref, n = start.copy(), 0
        while ref.sum() < 100:
            ref, n = ref * 2, n + 1
        np.testing.assert_array_equal(x, ref)
        assert int(i) == n and i.dtype == np.int64, (i, n)


@ms.jit
def branchy(x, w):
    h = x @ w
    if h.mean() > 0:
        y = ops.relu(h)
        scale = 2.0
    else:
        y = ops.sigmoid(h)
        scale = 0.5
    return y * scale


def check_data_dependent_if():
    w = np.eye(3, dtype=np.float32)
    for sign in (1.0, -1.0):
        x = (np.arange(6, dtype=np.float32).reshape(2, 3) - 1.0) * sign
        h = x @ w
        ref = np.maximum(h, 0) * 2.0 if h.mean() > 0 else 1 / (1 + np.exp(-h)) * 0.5
        np.testing.assert_allclose(branchy(x, w), ref, rtol=1e-6, atol=1e-6)


@ms.jit
def early_return(x):
    if x.max() > 10:
        return x / x.max()
    y = x + 1
    if y.sum() < 0:
        return -y
    return y


def check_early_return():
    for x in (np.array([1.0, 20.0], np.float32), np.array([-5.0, -3.0], np.float32),
              np.array([1.0, 2.0], np.float32)):
        ref = x / x.max() if x.max() > 10 else (-(x + 1) if (x + 1).sum() < 0 else x + 1)
        np.testing.assert_allclose(early_return(x), ref, rtol=1e-6)


def _step(x):
    return x * 0.5 if x.sum() > 1 else x + 3


@ms.jit
def loop_with_helper(x, n):
    count = 0
    while count < n:      # the counter is a Python int that changes: carried as a tensor
        x = _step(x)
        count += 1
    return x, count


def check_while_python_bound_with_helper():
    x = np.array([4.0, 4.0], np.float32)
    r, c = loop_with_helper(x, 5)
    ref = x.copy()
    for _ in range(5):
        ref = ref * 0.5 if ref.sum() > 1 else ref + 3
    np.testing.assert_allclose(r, ref, rtol=1e-6)
    assert c == 5   # a Python loop: unrolled at compile time, count stays a Python int
