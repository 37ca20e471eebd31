"""Numerics of the reductions (reduce_sum/mean/max/min/prod, argmax/argmin),
compiled through msmlir-cpu-pipeline and compared with numpy."""
from __future__ import annotations

import numpy as np
import pytest

from mindir_cases import Case, bf16_round, check_cases, rng

# (shape, axes, keep_dims): all axes, single/multiple/negative axes, 0-d, unit dims
CONFIGS = [
    ((7, 13), [], False),
    ((7, 13), [], True),
    ((7, 13), [0], False),
    ((7, 13), [-1], True),
    ((7, 13), [1, 0], False),
    ((2, 3, 5), [0, 2], False),
    ((2, 3, 5), [-2], True),
    ((2, 3, 5), [1, -1], True),
    ((), [], False),
    ((1,), [0], False),
    ((4, 1, 6), [1], False),
    ((33, 65), [1], False),  # longer rows
]
FLOATS = [np.float32, np.float64, np.float16]
INTS = [np.int8, np.int32, np.int64]
# (rtol, atol) for float sums of values in [-1, 1]: f32 accumulates in order in f32
# (numpy sums pairwise in float64 here), f16 accumulates in f32 and rounds once.
SUM_TOL = {np.float32: (1e-5, 1e-5), np.float64: (1e-12, 1e-12), np.float16: (1e-3, 2e-3)}


def _axes_tuple(shape, axes):
    return tuple(axes) if axes else tuple(range(len(shape)))


def _attrs(axes, keep):
    a = {}
    if axes:
        a["axes"] = list(axes)
    if keep:
        a["keep_dims"] = True
    return a


def _data(r, shape, dt, kind):
    if np.issubdtype(dt, np.floating):
        if kind == "prod":
            return np.asarray(r.uniform(0.5, 1.5, shape)).astype(dt)
        return np.asarray(r.uniform(-1, 1, shape)).astype(dt)
    info = np.iinfo(dt)
    if kind == "prod":
        return np.asarray(r.integers(-2, 3, shape)).astype(dt)  # wraps like numpy
    return np.asarray(r.integers(info.min, info.max, shape, endpoint=True)).astype(dt)


def _ref(kind, x, ax, keep):
    dt = x.dtype
    if kind in ("max", "min"):
        return (np.max if kind == "max" else np.min)(x, axis=ax, keepdims=keep)
    if np.issubdtype(dt, np.floating):
        x64 = x.astype(np.float64)
        r = {"sum": np.sum, "mean": np.mean, "prod": np.prod}[kind](x64, axis=ax, keepdims=keep)
        return np.asarray(r).astype(dt)
    if kind == "sum":
        return np.asarray(np.sum(x, axis=ax, keepdims=keep, dtype=dt))  # wraps
    if kind == "prod":
        return np.asarray(np.prod(x, axis=ax, keepdims=keep, dtype=dt))
    # integer mean: exact sum, division truncating toward zero
    s = np.sum(x.astype(np.int64), axis=ax, keepdims=keep)
    n = int(np.prod([x.shape[a] for a in ax])) if ax else 1
    return np.asarray(np.sign(s) * (np.abs(s) // n)).astype(dt)


@pytest.mark.parametrize("kind", ["sum", "mean", "max", "min", "prod"])
def test_reduce(kind):
    op = f"mindir.reduce_{kind}"
    r = rng(100)
    cases = []
    for dt in FLOATS + INTS:
        configs = CONFIGS if dt == np.float32 else CONFIGS[2:6] if dt == np.int32 else \
            CONFIGS[3:5]
        for shape, axes, keep in configs:
            x = _data(r, shape, dt, kind)
            ax = _axes_tuple(shape, axes)
            exp = _ref(kind, x, ax, keep)
            rt = at = 0.0
            if np.issubdtype(dt, np.floating) and kind in ("sum", "mean", "prod"):
                rt, at = SUM_TOL[dt]
            cases.append(Case(op, [x], exp, _attrs(axes, keep), rt, at))
    if kind in ("max", "min"):  # NaN propagates; +-inf
        for dt in (np.float32, np.float16):
            x = _data(r, (5, 9), dt, kind)
            x[1, 3] = np.nan
            x[2, :] = -np.inf if kind == "max" else np.inf
            x[3, 0] = np.inf if kind == "max" else -np.inf
            for axes in ([1], []):
                ax = _axes_tuple(x.shape, axes)
                cases.append(Case(op, [x], _ref(kind, x, ax, False), _attrs(axes, False),
                                  label="nan/inf"))
    # bf16 (f32 accumulation for sum/mean/prod, rounded once)
    x = bf16_round(_data(r, (7, 13), np.float32, kind))
    exp = bf16_round(_ref(kind, x.astype(np.float64), (1,), False).astype(np.float32))
    cases.append(Case(op, [x], exp, {"axes": [1]}, 2.0 ** -8, 2.0 ** -8, via="bf16"))
    check_cases(cases)


def test_reduce_sum_f16_accumulates_in_f32():
    """4096 ones in f16: f16 accumulation would stop at 2048."""
    x = np.ones((2, 4096), np.float16)
    check_cases([Case("mindir.reduce_sum", [x], np.array([4096, 4096], np.float16),
                      {"axes": [1]})])


ARG_CONFIGS = [((7, 13), -1, False), ((7, 13), 0, False), ((7, 13), 1, True),
               ((2, 3, 5), 1, False), ((2, 3, 5), -3, True), ((9,), 0, False),
               ((1,), 0, True), ((4, 1), 1, False)]


@pytest.mark.parametrize("kind", ["argmax", "argmin"])
def test_arg_reduce(kind):
    op = f"mindir.{kind}"
    ref = np.argmax if kind == "argmax" else np.argmin
    r = rng(101)
    cases = []
    for dt in [np.float32, np.float64, np.float16, np.int32, np.int8, np.int64]:
        configs = ARG_CONFIGS if dt == np.float32 else ARG_CONFIGS[:3] if dt == np.int32 \
            else ARG_CONFIGS[:2]
        for shape, axis, keep in configs:
            # few distinct values: ties are common and the first index must win
            x = np.asarray(r.integers(-3, 4, shape)).astype(dt)
            exp = ref(x, axis=axis, keepdims=keep).astype(np.int32)
            cases.append(Case(op, [x], exp, {"axis": axis, "keep_dims": keep}))
    for dt in [np.float32, np.float64, np.float16]:
        x = np.asarray(r.uniform(-5, 5, (6, 11))).astype(dt)
        x[0, 4] = x[0, 7] = np.nan  # first NaN wins (numpy)
        x[1, 0] = np.nan
        x[2, :] = np.inf if kind == "argmax" else -np.inf  # all equal: index 0
        x[3, :] = -np.inf if kind == "argmax" else np.inf  # identity values: index 0
        x[4, 10] = np.inf if kind == "argmax" else -np.inf
        for axis in (1, 0):
            cases.append(Case(op, [x], ref(x, axis=axis).astype(np.int32), {"axis": axis},
                              label="nan/inf"))
    for dt in INTS:  # extreme values, incl. the fill value of the accumulator
        info = np.iinfo(dt)
        x = np.array([[info.min, info.min, info.min], [info.max, 0, info.max],
                      [5, info.min, info.max]], dt)
        cases.append(Case(op, [x], ref(x, axis=1).astype(np.int32), {"axis": 1}))
    check_cases(cases)
