"""msmlir-cpu-scale-by-ldexp: y * 2^(n>>1) * 2^(n - (n>>1)) -> one vscalefps.

Rewrites, in the LLVM dialect (after the lowering to LLVM), the scaling by
two exponent-bit multiplications that msmlir-cpu-fast-math's exp writes

    n1 = n >> 1;  n2 = n - n1
    y * bitcast((n1 + 127) << 23) * bitcast((n2 + 127) << 23)

(f32 vectors, i32 n) into one AVX-512 scale: when n is the fast exp's
integer read from the magic-number sum t (n = bitcast(t) - bits(1.5*2^23))
and the vector has 16 lanes, `llvm.x86.avx512.mask.scalef.ps.512(y, t -
1.5*2^23)`, i.e. vscalefps by the same n as a float (the exp already
computes that float for its range reduction: 1 instruction instead of 9);
on 16 * 2^k lanes (an exp in a 64-wide reduction loop: log_softmax's sum of
exp(x - m)) one such scale per 16-lane slice, the slices cut and joined by
shufflevectors that the back end folds (log_softmax 128x1024 in L2, t=1:
36-37 -> 34-35 us; it was llvm.ldexp, 2 instructions more per vector);
otherwise `llvm.ldexp(y, n)`, which the X86 back end lowers to vcvtdq2ps +
vscalefps. The result is the same: all round once (the first product is
exact), and give +inf on overflow and subnormals / 0 below; for n out of
the two multiplications' range the scale is right where they are not.

Why: the scaling is over a third of the fast exp's instructions, and
softmax (B2) and sigmoid-like activations (B1) are bound by them. Why here
and not in fast-math: MLIR has no vector ldexp op (`llvm.intr.ldexp` takes a
scalar exponent), and an `llvm.call_intrinsic` before bufferization is an
op with unknown memory effects, which bufferization rejects and transfer
hoisting would stop at. Only for hosts with AVX-512 (msmlir-cpu-pipeline adds
it there): elsewhere LLVM scalarizes a vector ldexp into libm calls.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import llvm

from ..common.linalg import walk_ops
from ..registry import Option, register_pass
from .fast_math import FAST_EXP


def _owner(v: ir.Value) -> ir.Operation | None:
    o = v.owner
    o = o.operation if hasattr(o, "operation") else o
    return o if isinstance(o, ir.Operation) else None


def _splat(v: ir.Value) -> int | None:
    """The integer a splat `llvm.mlir.constant` vector holds, else None."""
    o = _owner(v)
    if o is None or o.name != "llvm.mlir.constant":
        return None
    a = o.attributes["value"]
    if not isinstance(a, ir.DenseIntElementsAttr) or not a.is_splat:
        return None
    return ir.IntegerAttr(a.get_splat_value()).value


def _op(v: ir.Value, name: str) -> ir.Operation | None:
    o = _owner(v)
    return o if o is not None and o.name == name else None


def _with_const(op: ir.Operation, c: int) -> ir.Value | None:
    """x of `op(x, c)` (either order for add), else None."""
    a, b = op.operands
    if _splat(b) == c:
        return a
    if op.name == "llvm.add" and _splat(a) == c:
        return b
    return None


def _exponent(scale: ir.Value) -> ir.Value | None:
    """e of bitcast((e + 127) << 23) : vector<Nxi32> -> vector<Nxf32>."""
    bc = _op(scale, "llvm.bitcast")
    if bc is None:
        return None
    shl = _op(bc.operands[0], "llvm.shl")
    if shl is None or _splat(shl.operands[1]) != 23:
        return None
    add = _op(shl.operands[0], "llvm.add")
    return None if add is None else _with_const(add, 127)


def _halves(e1: ir.Value, e2: ir.Value) -> ir.Value | None:
    """n when e1 = n >> 1 and e2 = n - e1 (or the other way round)."""
    for a, b in ((e1, e2), (e2, e1)):
        shr = _op(a, "llvm.ashr")
        sub = _op(b, "llvm.sub")
        if shr is None or sub is None or _splat(shr.operands[1]) != 1:
            continue
        n = shr.operands[0]
        if sub.operands[0] == n and sub.operands[1] == a:
            return n
    return None


def _f32_vector(t: ir.Type) -> bool:
    return isinstance(t, ir.VectorType) and t.rank == 1 and isinstance(t.element_type, ir.F32Type)


def _match(mul: ir.Operation) -> tuple[ir.Value, ir.Value] | None:
    """(y, n) when `mul` is y * 2^e1 * 2^e2 with e1, e2 the halves of n."""
    if not _f32_vector(mul.results[0].type):
        return None
    for inner_v, s2 in (tuple(mul.operands), tuple(mul.operands)[::-1]):
        inner = _op(inner_v, "llvm.fmul")
        e2 = _exponent(s2)
        if inner is None or e2 is None:
            continue
        for y, s1 in (tuple(inner.operands), tuple(inner.operands)[::-1]):
            e1 = _exponent(s1)
            n = None if e1 is None else _halves(e1, e2)
            if n is not None:
                return y, n
    return None


EXP_MAGIC = 12582912.0          # 1.5 * 2^23 (fast_math.EXP_MAGIC)
EXP_MAGIC_BITS = 0x4B400000


def _magic_sum(n: ir.Value) -> ir.Value | None:
    """t when n = bitcast(t) - bits(1.5*2^23), t a vector<16xf32> (the fast
    exp's rounded x/ln2 + magic), else None."""
    sub = _op(n, "llvm.sub")
    if sub is None or _splat(sub.operands[1]) != EXP_MAGIC_BITS:
        return None
    bc = _op(sub.operands[0], "llvm.bitcast")
    if bc is None:
        return None
    t = bc.operands[0]
    vt = t.type
    lanes = ir.VectorType(vt).shape[0] if _f32_vector(vt) else 0
    if lanes < 16 or lanes % 16 or (lanes // 16) & (lanes // 16 - 1):
        return None     # (16 * 2^k lanes: slices of 16, joined pairwise)
    return t


def _scalef16(y: ir.Value, nf: ir.Value) -> ir.Value:
    i16, i32 = ir.IntegerType.get_signless(16), ir.IntegerType.get_signless(32)
    all_lanes = llvm.mlir_constant(ir.IntegerAttr.get(i16, -1))
    cur_direction = llvm.mlir_constant(ir.IntegerAttr.get(i32, 4))
    return llvm.call_intrinsic(y.type, "llvm.x86.avx512.mask.scalef.ps.512",
                               [y, nf, y, all_lanes, cur_direction], [], [])


def _scale(y: ir.Value, n: ir.Value, result_type: ir.Type) -> ir.Value:
    """y * 2^n at the insertion point: vscalefps by the float n when n comes
    from a magic-number sum, else llvm.ldexp."""
    t = _magic_sum(n)
    if t is None:
        return llvm.call_intrinsic(result_type, "llvm.ldexp", [y, n], [], [])
    f32 = ir.F32Type.get()
    magic = llvm.mlir_constant(ir.DenseElementsAttr.get_splat(
        t.type, ir.FloatAttr.get(f32, EXP_MAGIC)))
    nf = llvm.fsub(t, magic)     # exact: t - magic is the integer n (CSE'd with the exp's own)
    lanes = ir.VectorType(t.type).shape[0]
    if lanes == 16:
        return _scalef16(y, nf)
    # wider (a 64-lane exp in a reduction loop): one scale per 16-lane
    # slice, slices taken and joined by shuffles that the X86 back end
    # folds (each slice is one zmm register of the legalized vector)
    v16 = ir.VectorType.get([16], f32)
    parts = [_scalef16(llvm.shufflevector(v16, y, y, list(range(c, c + 16))),
                       llvm.shufflevector(v16, nf, nf, list(range(c, c + 16))))
             for c in range(0, lanes, 16)]
    while len(parts) > 1:
        joined = []
        for a, b in zip(parts[::2], parts[1::2]):
            w = ir.VectorType(a.type).shape[0]
            joined.append(llvm.shufflevector(ir.VectorType.get([2 * w], f32), a, b,
                                             list(range(2 * w))))
        parts = joined
    return parts[0]


def _erase_dead(ops: list[ir.Operation]) -> None:
    changed = True
    while changed:
        changed = False
        for o in list(ops):
            if all(not list(r.uses) for r in o.results):
                ops.remove(o)
                operands = [_owner(v) for v in o.operands]
                o.erase()
                ops.extend(p for p in operands if p is not None and p not in ops
                           and p.name != "llvm.mlir.constant" and p.name.startswith("llvm."))
                changed = True


@register_pass("msmlir-cpu-scale-by-ldexp",
               "LLVM dialect: y * 2^(n>>1) * 2^(n-(n>>1)) on f32 vectors (the fast exp's scaling) "
               "-> one AVX-512 vscalefps (llvm.ldexp(y, n) when n is not the exp's magic sum)",
               options={"marked-only": Option(bool, False, "only the functions msmlir-cpu-fast-math "
                                                           "marked (msmlir.fast_exp: it wrote an exp "
                                                           "there; the mark is dropped)")})
def scale_by_ldexp(module: ir.Operation, *, marked_only: bool):
    # marked-only (msmlir-cpu-pipeline): the walk below visits every op of
    # the LLVM dialect module from Python (~0.5 us each: 7-15 ms on B5/B6's
    # train steps, which have no fast exp at all); the mark makes it skip
    # the functions without an exp.
    roots = [module]
    if marked_only:
        roots = [op.operation for op in module.regions[0].blocks[0].operations
                 if FAST_EXP in op.operation.attributes]
        for op in roots:
            del op.attributes[FAST_EXP]
    matches = [(mul, m) for root in roots
               for mul in walk_ops(root, [], lambda o: o.name == "llvm.fmul")
               if (m := _match(mul)) is not None]
    for mul, (y, n) in matches:
        with mul.location, ir.InsertionPoint(mul):
            new = _scale(y, n, mul.results[0].type)
        inner = _owner(mul.operands[0])
        mul.results[0].replace_all_uses_with(new)
        _erase_dead([mul] + ([inner] if inner is not None and inner.name == "llvm.fmul" else []))
