"""Numerics of matmul, batch_matmul and bias_add, compiled through
msmlir-cpu-pipeline and compared with numpy."""
from __future__ import annotations

import numpy as np
import pytest

from mindir_cases import Case, bf16_round, check_cases, rng


def _tol(dt, k):
    """(rtol, atol) for a k-term dot product of values in [-1, 1]."""
    if dt == np.float32:
        return 1e-5, 2e-6 * k
    if dt == np.float64:
        return 1e-12, 1e-13 * k
    if dt == np.float16:  # accumulated in f32, rounded once
        return 1e-3, 1e-3
    return 0.0, 0.0


def _operand(r, shape, dt):
    if np.issubdtype(dt, np.floating):
        return np.asarray(r.uniform(-1, 1, shape)).astype(dt)
    if dt == np.int8:  # wraps like numpy's int8 matmul
        return np.asarray(r.integers(-128, 128, shape)).astype(dt)
    return np.asarray(r.integers(-1000, 1000, shape)).astype(dt)


def _ref_matmul(a, b, ta, tb):
    if ta:
        a = np.swapaxes(a, -1, -2)
    if tb:
        b = np.swapaxes(b, -1, -2)
    if np.issubdtype(a.dtype, np.floating):
        return np.matmul(a.astype(np.float64), b.astype(np.float64)).astype(a.dtype)
    return np.matmul(a, b)


MATMUL_SHAPES = [(7, 13, 5), (1, 1, 1), (64, 33, 17), (4, 1, 9), (16, 16, 16)]


@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True), (True, True)])
def test_matmul(ta, tb):
    r = rng(200)
    cases = []
    for dt in [np.float32, np.float64, np.float16, np.int32, np.int64, np.int8]:
        shapes = MATMUL_SHAPES if dt == np.float32 and not (ta or tb) else \
            MATMUL_SHAPES[:3] if dt == np.float32 else MATMUL_SHAPES[:1]
        for m, k, n in shapes:
            a = _operand(r, (k, m) if ta else (m, k), dt)
            b = _operand(r, (n, k) if tb else (k, n), dt)
            rt, at = _tol(dt, k)
            attrs = {}
            if ta:
                attrs["transpose_a"] = True
            if tb:
                attrs["transpose_b"] = True
            cases.append(Case("mindir.matmul", [a, b], _ref_matmul(a, b, ta, tb), attrs, rt, at))
    a = bf16_round(_operand(r, (7, 13), np.float32))
    b = bf16_round(_operand(r, (13, 5), np.float32))
    exp = bf16_round(_ref_matmul(a.astype(np.float64), b.astype(np.float64), False, False)
                     .astype(np.float32))
    if not (ta or tb):
        cases.append(Case("mindir.matmul", [a, b], exp, {}, 2.0 ** -8, 2.0 ** -8, via="bf16"))
    check_cases(cases)


# (a shape, b shape) before transposition; batch dims broadcast
BMM_SHAPES = [((3, 4, 5), (3, 5, 6)), ((2, 1, 4, 5), (3, 5, 6)), ((1, 7, 13), (5, 13, 3)),
              ((2, 3, 4, 5), (2, 3, 5, 2)), ((1, 1, 2, 3), (4, 1, 3, 2)), ((1, 4, 5), (1, 5, 6))]


@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True), (True, True)])
def test_batch_matmul(ta, tb):
    r = rng(201)
    cases = []
    for dt in [np.float32, np.float64, np.int32, np.float16]:
        shapes = BMM_SHAPES if dt == np.float32 else BMM_SHAPES[1:3] if dt == np.int32 \
            else BMM_SHAPES[:1]
        for sa, sb in shapes:
            k = sa[-1]
            if ta:
                sa = sa[:-2] + (sa[-1], sa[-2])
            if tb:
                sb = sb[:-2] + (sb[-1], sb[-2])
            a, b = _operand(r, sa, dt), _operand(r, sb, dt)
            rt, at = _tol(dt, k)
            attrs = {}
            if ta:
                attrs["transpose_a"] = True
            if tb:
                attrs["transpose_b"] = True
            cases.append(Case("mindir.batch_matmul", [a, b], _ref_matmul(a, b, ta, tb), attrs,
                              rt, at))
    check_cases(cases)


def test_bias_add():
    r = rng(202)
    cases = []
    configs = [((2, 3, 4, 5), "NCHW"), ((2, 3, 4, 5), "NHWC"), ((7, 13), "NCHW"),
               ((7, 13), "NHWC"), ((2, 6, 5), "NCHW"), ((1, 1), "NCHW")]
    for dt in [np.float32, np.float64, np.float16, np.int32, np.int8]:
        for shape, fmt in configs if dt == np.float32 else configs[:2]:
            x = _operand(r, shape, dt)
            c = shape[1] if fmt == "NCHW" else shape[-1]
            b = _operand(r, (c,), dt)
            bshape = [1] * len(shape)
            bshape[1 if fmt == "NCHW" else -1] = c
            exp = x + b.reshape(bshape)  # exact in the type (ints wrap)
            attrs = {"data_format": fmt} if fmt == "NHWC" else {}
            cases.append(Case("mindir.bias_add", [x, b], exp, attrs))
    check_cases(cases)
