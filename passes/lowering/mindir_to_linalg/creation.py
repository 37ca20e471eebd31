"""Creation ops: constant, fill, zeros_like, ones_like, arange, random_uniform,
random_normal.

The random ops are counter-based, with the generator shared with dropout
(builders.py, "counter-based random numbers"): element i is a splitmix64 hash
of (seed, stream, offset, i), where the optional `offset` operand (a 0-d i64
tensor, read once per execution) lets the frontend draw new numbers at every
run; without it the result depends on nothing but (seed, i). Uniform floats
take the top p bits of the hash (p = 24 for f32, 11 for f16, 8 for bf16, 53
for f64): u = (h >> (64 - p)) * 2^-p in [0, 1), then minval + u * (maxval -
minval) in f32 (f64 for f64), rounded to the result type and kept below
maxval. random_normal is Box-Muller on two independent streams:
z = sqrt(-2 log(1 - u1)) * cos(2 pi u2), mean + stddev * z (u1, u2 with 24
bits in f32, 53 in f64).
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
    key = B.rng_key(seed, B.STREAM_UNIFORM, B.rng_offset(op))
    bits = B.uniform_bits(elem)
    below_hi = _prev_float(hi, elem)

    def body(shape):
        u = B.unit_uniform(B.hash_u64(key, B.linear_index(shape)), bits, ct)
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
    offset = B.rng_offset(op)
    k1 = B.rng_key(seed, B.STREAM_NORMAL_1, offset)
    k2 = B.rng_key(seed, B.STREAM_NORMAL_2, offset)
    bits = 53 if isinstance(ct, ir.F64Type) else 24

    def body(shape):
        i = B.linear_index(shape)
        u1 = arith.subf(c(ct, 1.0), B.unit_uniform(B.hash_u64(k1, i), bits, ct))  # (0, 1]
        u2 = B.unit_uniform(B.hash_u64(k2, i), bits, ct)
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
    return B.fill_op(scalar, B.empty(list(rt.shape), rt.element_type))


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
