"""Numerics of the creation ops (constant, fill, zeros_like, ones_like, arange,
random_uniform, random_normal), compiled through msmlir-cpu-pipeline.

The random ops are checked bit for bit against an independent numpy
implementation of the counter-based generator the lowering documents
(passes/lowering/mindir_to_linalg/builders.py: splitmix64 of (seed, stream,
offset, i)), and statistically on large samples."""
from __future__ import annotations

import math

import numpy as np
import pytest

from mindir_cases import Case, bf16_round, check_cases, rng

M64 = (1 << 64) - 1


# --- the generator, in numpy ----------------------------------------------------
#
# splitmix64 (Steele, Lea, Flood 2014): the tensor key of (seed, stream, offset)
# is k = mix(mix(seed * G + stream + 1) + offset * G) and element i is
# mix(k + (i + 1) * G), i.e. the (i+1)-th output of splitmix64 seeded with k.

GAMMA = 0x9E3779B97F4A7C15
STREAM_UNIFORM, STREAM_NORMAL_1, STREAM_NORMAL_2 = 0, 1, 2


def mix64_int(z: int) -> int:
    z &= M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def mix64(z: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def tensor_key(seed: int, stream: int, offset: int = 0) -> int:
    s = mix64_int(seed * GAMMA + stream + 1)
    return mix64_int(s + offset * GAMMA)


def hash_counter(n: int, seed: int, stream: int, offset: int = 0) -> np.ndarray:
    k = np.uint64(tensor_key(seed, stream, offset))
    i = np.arange(n, dtype=np.uint64)
    with np.errstate(over="ignore"):
        return mix64(k + (i + np.uint64(1)) * np.uint64(GAMMA))


def _below(v, dt):
    if dt == "bf16":
        # largest bf16 below bf16(v) (v > 0 here)
        b = bf16_round(np.float32(v)).view(np.uint32)
        return (b - np.uint32(0x10000)).view(np.float32) if v > 0 else \
            (b + np.uint32(0x10000)).view(np.float32)
    return np.nextafter(dt(v), dt(-np.inf))


def ref_uniform(shape, dt, seed, lo=0.0, hi=1.0, offset=0):
    """dt: np.float16/32/64 or "bf16" (returned as f32 holding bf16 values)."""
    n = int(np.prod(shape))
    h = hash_counter(n, seed, STREAM_UNIFORM, offset)
    if dt == np.float64:
        u = (h >> np.uint64(11)).astype(np.float64) * 2.0 ** -53
        v = np.float64(lo) + u * np.float64(hi - lo)
        v = np.where(v < np.float64(hi), v, _below(hi, np.float64))
        return v.reshape(shape)
    bits = {np.float32: 24, np.float16: 11, "bf16": 8}[dt]
    u = (h >> np.uint64(64 - bits)).astype(np.float32) * np.float32(2.0 ** -bits)
    v = np.float32(lo) + u * np.float32(hi - lo)  # f32 arithmetic, as the lowering
    if dt == np.float16:
        v = v.astype(np.float16)
        v = np.where(v < np.float16(hi), v, _below(hi, np.float16))
    elif dt == "bf16":
        v = bf16_round(v)
        hb = bf16_round(np.float32(hi))
        v = np.where(v < hb, v, _below(hi, "bf16"))
    else:
        v = np.where(v < np.float32(hi), v, _below(hi, np.float32))
    return v.reshape(shape)


def ref_normal_uniforms(shape, seed, f64: bool, offset=0):
    n = int(np.prod(shape))
    h1 = hash_counter(n, seed, STREAM_NORMAL_1, offset)
    h2 = hash_counter(n, seed, STREAM_NORMAL_2, offset)
    if f64:
        u1 = 1.0 - (h1 >> np.uint64(11)).astype(np.float64) * 2.0 ** -53
        u2 = (h2 >> np.uint64(11)).astype(np.float64) * 2.0 ** -53
    else:
        u1 = np.float32(1.0) - (h1 >> np.uint64(40)).astype(np.float32) * np.float32(2.0 ** -24)
        u2 = (h2 >> np.uint64(40)).astype(np.float32) * np.float32(2.0 ** -24)
    return u1, u2


def ref_normal(shape, dt, seed, mean=0.0, std=1.0, offset=0):
    """Box-Muller from the same uniforms, evaluated in float64."""
    u1, u2 = ref_normal_uniforms(shape, seed, dt == np.float64, offset)
    if dt != np.float64:  # the f32 constant 2*pi of the lowering
        two_pi = np.float64(np.float32(2 * math.pi))
        angle = np.float64(np.float32(two_pi) * u2.astype(np.float32))
    else:
        angle = 2 * math.pi * u2
    z = np.sqrt(-2.0 * np.log(u1.astype(np.float64))) * np.cos(angle)
    v = mean + std * z
    if dt == "bf16":
        return bf16_round(v.astype(np.float32)).reshape(shape)
    return v.astype(dt).reshape(shape)


def test_hash_is_splitmix64():
    """The reference generator is splitmix64: its finalizer gives the published
    first outputs of splitmix64 seeded with 0, and the numpy (uint64
    wraparound) version matches plain Python ints."""
    assert mix64_int(GAMMA) == 0xE220A8397B1DCDAF
    assert mix64_int(2 * GAMMA) == 0x6E789E6AA1B965F4
    assert mix64_int(3 * GAMMA) == 0x06C45D188009454F
    for seed, stream, offset in [(12345, 0, 0), (-1, 2, 7), (2 ** 40 + 7, 1, -3)]:
        k = tensor_key(seed, stream, offset)
        want = [mix64_int(k + (i + 1) * GAMMA) for i in range(100)]
        assert hash_counter(100, seed, stream, offset).tolist() == want


def _random_case(op, shape, dt, attrs, expected, rtol=0.0, atol=0.0):
    via = None
    if dt == "bf16":
        via = "bf16"
    return Case(op, [], expected, attrs, rtol, atol, via=via)


# Seeds: 0, small, negative, beyond 32 bits.
SEEDS = [0, 42, -1, 2 ** 40 + 7]


def test_random_uniform_bitexact():
    cases = []
    for dt in [np.float32, np.float64, np.float16]:
        for seed in SEEDS if dt == np.float32 else SEEDS[1:3]:
            for shape in [(7, 13), (), (1000,)] if dt == np.float32 else [(7, 13)]:
                cases.append(_random_case("mindir.random_uniform", shape, dt, {"seed": seed},
                                          ref_uniform(shape, dt, seed)))
        # a scaled range, and one where rounding would reach maxval
        cases.append(_random_case("mindir.random_uniform", (64, 33), dt,
                                  {"seed": 3, "minval": -2.5, "maxval": 7.0},
                                  ref_uniform((64, 33), dt, 3, -2.5, 7.0)))
        cases.append(_random_case("mindir.random_uniform", (4096,), dt,
                                  {"seed": 5, "minval": 100.0, "maxval": 101.0},
                                  ref_uniform((4096,), dt, 5, 100.0, 101.0)))
    # bf16: the harness reads the bf16 result as f32 (exact)
    for seed in SEEDS[:2]:
        exp = ref_uniform((7, 13), "bf16", seed).astype(np.float32)
        cases.append(Case("mindir.random_uniform", [], exp, {"seed": seed}, via="bf16"))
    check_cases(cases)


# Run-time offsets (the optional 0-d i64 operand): 0 equals no operand.
OFFSETS = [0, 1, 2, -5, 2 ** 40 + 3]


def test_random_uniform_offset():
    cases = []
    for off in OFFSETS:
        for dt in [np.float32, np.float64, np.float16]:
            cases.append(Case("mindir.random_uniform", [np.array(off, np.int64)],
                              ref_uniform((7, 13), dt, 42, -1.0, 3.0, offset=off),
                              {"seed": 42, "minval": -1.0, "maxval": 3.0}))
        cases.append(Case("mindir.random_uniform", [np.array(off, np.int64)],
                          ref_uniform((4096,), np.float32, 3, offset=off), {"seed": 3}))
    check_cases(cases)
    # offsets give different numbers; offset 0 is the op without an offset
    u = [ref_uniform((4096,), np.float32, 3, offset=o) for o in OFFSETS]
    assert np.array_equal(u[0], ref_uniform((4096,), np.float32, 3))
    for i in range(len(u)):
        for j in range(i):
            assert (u[i] != u[j]).mean() > 0.99
            assert abs(np.corrcoef(u[i], u[j])[0, 1]) < 5 / math.sqrt(4096)


def test_random_uniform_properties():
    """Range [minval, maxval), mean/variance on 2^20 samples, uniform
    histogram, determinism, independence of the shape, different seeds differ."""
    n = 1 << 20
    cases = [Case("mindir.random_uniform", [], ref_uniform((n,), np.float32, 9), {"seed": 9}),
             Case("mindir.random_uniform", [], ref_uniform((1024, 1024), np.float32, 9),
                  {"seed": 9}),
             Case("mindir.random_uniform", [], ref_uniform((n,), np.float32, 10), {"seed": 10}),
             Case("mindir.random_uniform", [], ref_uniform((4096,), np.float16, 1,
                                                            100.0, 101.0),
                  {"seed": 1, "minval": 100.0, "maxval": 101.0})]
    check_cases(cases)  # bit-exact first; then statistics of the same numbers
    a = ref_uniform((n,), np.float32, 9).astype(np.float64)
    assert a.min() >= 0.0 and a.max() < 1.0
    assert abs(a.mean() - 0.5) < 5 * math.sqrt(1 / 12 / n)
    assert abs(a.var() - 1 / 12) < 5 * math.sqrt(1 / 180 / n)
    counts = np.bincount((a * 64).astype(int), minlength=64)
    chi2 = ((counts - n / 64) ** 2 / (n / 64)).sum()
    assert chi2 < 130, chi2  # 63 degrees of freedom: p < 1e-5 above 130
    # serial correlation of neighbours
    assert abs(np.corrcoef(a[:-1], a[1:])[0, 1]) < 5 / math.sqrt(n)
    b = ref_uniform((n,), np.float32, 10)
    assert (a != b).mean() > 0.99
    assert len(np.unique(a)) > 0.96 * n
    h = ref_uniform((4096,), np.float16, 1, 100.0, 101.0)
    assert h.min() >= 100.0 and h.max() < 101.0


def test_random_normal():
    cases = []
    for dt, rt, at in [(np.float32, 1e-5, 1e-5), (np.float64, 1e-12, 1e-12),
                       (np.float16, 2e-3, 2e-3)]:
        for seed in SEEDS if dt == np.float32 else SEEDS[1:3]:
            for shape in [(7, 13), ()] if dt == np.float32 else [(7, 13)]:
                cases.append(Case("mindir.random_normal", [], ref_normal(shape, dt, seed),
                                  {"seed": seed}, rt, at))
        cases.append(Case("mindir.random_normal", [], ref_normal((33, 64), dt, 4, 1.5, 0.25),
                          {"seed": 4, "mean": 1.5, "stddev": 0.25}, rt, at))
    cases.append(Case("mindir.random_normal", [], ref_normal((7, 13), "bf16", 8).astype(
        np.float32), {"seed": 8}, 2.0 ** -7, 2.0 ** -7, via="bf16"))
    n = 1 << 20
    cases.append(Case("mindir.random_normal", [], ref_normal((n,), np.float32, 11, 3.0, 2.0),
                      {"seed": 11, "mean": 3.0, "stddev": 2.0}, 1e-5, 1e-5))
    for off in OFFSETS[1:]:
        for dt, rt, at in [(np.float32, 1e-5, 1e-5), (np.float64, 1e-12, 1e-12)]:
            cases.append(Case("mindir.random_normal", [np.array(off, np.int64)],
                              ref_normal((33, 64), dt, 4, 1.5, 0.25, offset=off),
                              {"seed": 4, "mean": 1.5, "stddev": 0.25}, rt, at))
    check_cases(cases)
    z = (ref_normal((n,), np.float32, 11, 3.0, 2.0).astype(np.float64) - 3.0) / 2.0
    assert abs(z.mean()) < 5 / math.sqrt(n)
    assert abs(z.std() - 1.0) < 5 / math.sqrt(2 * n)
    assert abs((np.abs(z) < 1).mean() - 0.682689) < 0.003
    assert abs((np.abs(z) < 2).mean() - 0.954500) < 0.002
    assert abs((z ** 3).mean()) < 0.02  # skewness
    assert abs((z ** 4).mean() - 3.0) < 0.05  # kurtosis


def test_constant():
    cases = [
        Case("mindir.constant", [], np.array([[1.5, -2.0], [3.0, 4.25]], np.float32),
             {"value": "#raw:dense<[[1.5, -2.0], [3.0, 4.25]]> : tensor<2x2xf32>"}),
        Case("mindir.constant", [], np.full((3, 4), 7, np.int64),
             {"value": "#raw:dense<7> : tensor<3x4xi64>"}),
        Case("mindir.constant", [], np.array(-0.5, np.float64),
             {"value": "#raw:dense<-0.5> : tensor<f64>"}),
        Case("mindir.constant", [], np.array([1, -2, 127], np.int8),
             {"value": "#raw:dense<[1, -2, 127]> : tensor<3xi8>"}),
        Case("mindir.constant", [], np.array([0.1, 65504.0], np.float16),
             {"value": "#raw:dense<[0.1, 65504.0]> : tensor<2xf16>"}),
        Case("mindir.constant", [], np.array([True, False, True]),
             {"value": "#raw:dense<[true, false, true]> : tensor<3xi1>"}, needs_i1_memory=True),
    ]
    check_cases(cases)


def test_fill_zeros_ones_like():
    r = rng(300)
    cases = [
        Case("mindir.fill", [], np.full((3, 4), 2.5, np.float32), {"value": "#raw:2.5 : f32"}),
        Case("mindir.fill", [], np.full((5,), -7, np.int64), {"value": "#raw:-7 : i64"}),
        Case("mindir.fill", [], np.full((), 3, np.int8), {"value": "#raw:3 : i8"}),
        Case("mindir.fill", [], np.full((2, 2), 0.1, np.float16), {"value": "#raw:0.1 : f16"}),
        Case("mindir.fill", [], np.full((4,), True), {"value": "#raw:true"},
             needs_i1_memory=True),
    ]
    for dt in [np.float32, np.float64, np.float16, np.int8, np.int32, np.int64, np.bool_]:
        for shape in [(7, 13), ()] if dt == np.float32 else [(7, 13)]:
            x = np.asarray(r.integers(-5, 5, shape)).astype(dt)
            i1 = dt == np.bool_
            cases.append(Case("mindir.zeros_like", [x], np.zeros(shape, dt), needs_i1_memory=i1))
            cases.append(Case("mindir.ones_like", [x], np.ones(shape, dt), needs_i1_memory=i1))
    check_cases(cases)


ARANGES = [(0.0, 10.0, 1.0), (1.0, 2.0, 0.1), (-3.5, 4.0, 0.75), (10.0, 0.0, -3.0),
           (0.0, 1000.0, 1.0), (5.0, 6.0, 2.0), (-1.0, -2.0, -0.125)]


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.float16, np.int32, np.int64, np.int8])
def test_arange(dt):
    cases = []
    for start, limit, delta in ARANGES if dt in (np.float32, np.int32) else ARANGES[:4]:
        n = max(0, math.ceil((limit - start) / delta))
        # start + i * delta in float64, converted once (ints truncate toward zero)
        exp = (start + np.arange(n, dtype=np.float64) * delta)
        exp = np.trunc(exp).astype(dt) if np.issubdtype(dt, np.integer) else exp.astype(dt)
        if n:
            # and numpy's own arange agrees to rounding
            np.testing.assert_allclose(exp.astype(np.float64),
                                       np.arange(start, limit, delta).astype(dt).astype(
                                           np.float64)[:n], rtol=1e-3 if dt == np.float16
                                       else 1e-6, atol=1 if np.issubdtype(dt, np.integer)
                                       else 1e-6)
        cases.append(Case("mindir.arange", [], exp,
                          {"start": start, "limit": limit, "delta": delta}))
    check_cases(cases)
