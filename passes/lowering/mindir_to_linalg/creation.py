"""Creation ops: constant, fill, zeros_like, ones_like, arange, random_uniform,
random_normal.

The random ops are stateless and counter-based: element i (row-major linear
index, taken modulo 2^32) is a 32-bit hash of i under keys derived from the
seed, so the result depends on nothing but (seed, i) and is the same for every
schedule and target. The hash is three rounds of the murmur3 finalizer
(`fmix32`), each after mixing in a key:

    h = fmix32(i ^ k0);  h = fmix32(h + k1);  h = fmix32(h ^ k2)

and the keys of (seed, stream) are computed at compile time by `stream_keys`.
Each round is a bijection of the 32-bit counter, so distinct indices never
collide. Uniform floats take the top p bits of h (p = 24 for f32, 11 for f16,
8 for bf16, all 32 for f64): u = (h >> (32 - p)) * 2^-p in [0, 1), then
minval + u * (maxval - minval) in f32 (f64 for f64), rounded to the result type
and kept below maxval. random_normal is Box-Muller on two independent streams:
z = sqrt(-2 log(1 - u1)) * cos(2 pi u2), mean + stddev * z.
"""
from __future__ import annotations

import math as pymath
import struct

from mlir import ir
from mlir.dialects import arith, linalg, math

from . import builders as B
from . import lowering
from .elementwise import (attr, c, cmpf, compute_type, convert, is_float, result_type,
                          select, to_float)

M32 = 0xFFFFFFFF
FMIX_C1 = 0x85EBCA6B
FMIX_C2 = 0xC2B2AE35


def fmix32(h: int) -> int:
    """murmur3's 32-bit finalizer, on Python ints (for the compile-time keys)."""
    h &= M32
    h ^= h >> 16
    h = (h * FMIX_C1) & M32
    h ^= h >> 13
    h = (h * FMIX_C2) & M32
    h ^= h >> 16
    return h


def stream_keys(seed: int, stream: int) -> tuple[int, int, int]:
    """The three 32-bit round keys of (seed, stream)."""
    s = seed & 0xFFFFFFFFFFFFFFFF
    lo, hi = s & M32, s >> 32
    k0 = fmix32(lo ^ fmix32((hi + 0x9E3779B9 * (stream + 1)) & M32))
    k1 = fmix32((k0 + 0x7F4A7C15) & M32)
    k2 = fmix32((k1 ^ 0x165667B1) & M32)
    return k0, k1, k2


# --- IR ------------------------------------------------------------------------

def _i32(v: int) -> ir.Value:
    """An i32 constant from an unsigned 32-bit Python int."""
    v &= M32
    if v >= 1 << 31:
        v -= 1 << 32
    return c(ir.IntegerType.get_signless(32), v)


def _fmix32_ir(h: ir.Value) -> ir.Value:
    h = arith.xori(h, arith.shrui(h, _i32(16)))
    h = arith.muli(h, _i32(FMIX_C1))
    h = arith.xori(h, arith.shrui(h, _i32(13)))
    h = arith.muli(h, _i32(FMIX_C2))
    return arith.xori(h, arith.shrui(h, _i32(16)))


def hash_ir(counter: ir.Value, keys: tuple[int, int, int]) -> ir.Value:
    """The counter-based hash of an i32 counter (see the module docstring)."""
    k0, k1, k2 = keys
    h = _fmix32_ir(arith.xori(counter, _i32(k0)))
    h = _fmix32_ir(arith.addi(h, _i32(k1)))
    return _fmix32_ir(arith.xori(h, _i32(k2)))


def linear_index_i32(shape) -> ir.Value:
    """Row-major linear index of the current linalg.generic iteration, as i32
    (modulo 2^32). Call inside a generic body whose loops are `shape`."""
    index = ir.IndexType.get()
    lin = None
    for d, n in enumerate(shape):
        i = linalg.IndexOp(d).result
        lin = i if lin is None else arith.addi(arith.muli(lin, arith.constant(index, n)), i)
    if lin is None:
        return _i32(0)
    return arith.index_cast(ir.IntegerType.get_signless(32), lin)


def uniform_bits(elem: ir.Type) -> int:
    """Random bits per uniform: the mantissa precision of elem, 32 for f64."""
    if isinstance(elem, ir.F64Type):
        return 32
    if isinstance(elem, ir.F16Type):
        return 11
    if isinstance(elem, ir.BF16Type):
        return 8
    return 24


def unit_uniform(h: ir.Value, bits: int, ct: ir.Type) -> ir.Value:
    """u = (h >> (32 - bits)) * 2^-bits in [0, 1), exactly, as ct (f32/f64)."""
    if bits < 32:
        h = arith.shrui(h, _i32(32 - bits))
    return arith.mulf(arith.uitofp(ct, h), c(ct, 2.0 ** -bits))


def _prev_float(value: float, elem: ir.Type) -> float:
    """The largest float of type elem below value (value rounded to elem)."""
    import numpy as np
    if isinstance(elem, ir.BF16Type):
        f32 = struct.unpack("<I", struct.pack("<f", float(np.float32(value))))[0]
        b = (f32 + 0x7FFF + ((f32 >> 16) & 1)) >> 16  # round to nearest even
        v = struct.unpack("<f", struct.pack("<I", b << 16))[0]
        if v == 0:
            b = 0x8001  # -smallest subnormal
        else:
            b = b - 1 if v > 0 else b + 1
        return struct.unpack("<f", struct.pack("<I", (b & 0xFFFF) << 16))[0]
    np_t = {ir.F16Type: np.float16, ir.F32Type: np.float32, ir.F64Type: np.float64}[type(elem)]
    v = np_t(value)
    return float(np.nextafter(v, np_t(-np.inf)))


def _random_generic(op, body) -> ir.Value:
    rt = result_type(op)
    shape = list(rt.shape)
    return B.generic([], [], shape, [rt.element_type], lambda _out: body(shape))[0]


@lowering("mindir.random_uniform")
def lower_random_uniform(op):
    rt = result_type(op)
    elem = rt.element_type
    ct = compute_type(elem)
    seed = attr(op, "seed", 0)
    lo, hi = attr(op, "minval", 0.0), attr(op, "maxval", 1.0)
    keys = stream_keys(seed, 0)
    bits = uniform_bits(elem)
    below_hi = _prev_float(hi, elem)

    def body(shape):
        u = unit_uniform(hash_ir(linear_index_i32(shape), keys), bits, ct)
        v = to_float(arith.addf(c(ct, lo), arith.mulf(u, c(ct, hi - lo))), elem)
        # Rounding can reach maxval; keep the interval half-open.
        return select(cmpf("OLT", v, c(elem, hi)), v, c(elem, below_hi))
    return _random_generic(op, body)


@lowering("mindir.random_normal")
def lower_random_normal(op):
    rt = result_type(op)
    elem = rt.element_type
    ct = compute_type(elem)
    seed = attr(op, "seed", 0)
    mean, std = attr(op, "mean", 0.0), attr(op, "stddev", 1.0)
    k1, k2 = stream_keys(seed, 1), stream_keys(seed, 2)
    bits = 32 if isinstance(ct, ir.F64Type) else 24

    def body(shape):
        i = linear_index_i32(shape)
        u1 = arith.subf(c(ct, 1.0), unit_uniform(hash_ir(i, k1), bits, ct))  # (0, 1]
        u2 = unit_uniform(hash_ir(i, k2), bits, ct)
        r = math.sqrt(arith.mulf(c(ct, -2.0), math.log(u1)))
        z = arith.mulf(r, math.cos(arith.mulf(c(ct, 2.0 * pymath.pi), u2)))
        return to_float(arith.addf(c(ct, mean), arith.mulf(c(ct, std), z)), elem)
    return _random_generic(op, body)


# --- deterministic creation -------------------------------------------------------

@lowering("mindir.constant")
def lower_constant(op):
    value = op.operation.attributes["value"]
    return arith.ConstantOp(result_type(op), value).result


@lowering("mindir.fill")
def lower_fill(op):
    rt = result_type(op)
    value = op.operation.attributes["value"]
    scalar = arith.ConstantOp(rt.element_type, value).result
    return linalg.fill(scalar, outs=[B.empty(list(rt.shape), rt.element_type)])


@lowering("mindir.zeros_like")
def lower_zeros_like(op):
    rt = result_type(op)
    return B.fill(list(rt.shape), rt.element_type, 0)


@lowering("mindir.ones_like")
def lower_ones_like(op):
    rt = result_type(op)
    return B.fill(list(rt.shape), rt.element_type, 1)


@lowering("mindir.arange")
def lower_arange(op):
    """start + i * delta, computed in f64 and converted once to the element
    type (integer results truncate toward zero)."""
    rt = result_type(op)
    elem = rt.element_type
    start, delta = attr(op, "start", 0.0), attr(op, "delta", 1.0)
    f64 = ir.F64Type.get()

    def body(_out):
        i = arith.index_cast(ir.IntegerType.get_signless(64), linalg.IndexOp(0).result)
        v = arith.addf(c(f64, start), arith.mulf(arith.sitofp(f64, i), c(f64, delta)))
        return to_float(v, elem) if is_float(elem) else convert(v, elem)
    return B.generic([], [], list(rt.shape), [elem], body)[0]
