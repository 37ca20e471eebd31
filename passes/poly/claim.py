"""mskernel-poly-claim: the kernel classes the isl scheduler takes from the hand strategies.

The one place where the CPU pipeline decides, per kernel class, whether a
linalg op is compiled by the hand-written strategies (msmlir-cpu-tile-
vectorize, fuse-rows, pack-matmul, the direct convolutions) or by the
polyhedral scheduler. Runs on tensors in the codegen stage, after the
matmul/conv strategies took their ops.
A claimed op is outlined into a private function `<func>_poly<k>` carrying
`mskernel.poly` (the hand passes skip such functions); after bufferization
`mskernel-poly-schedule{claimed=true}` lowers it to affine loops and
schedules it with isl (and gives a remark, keeping the plain loops, when it
cannot). Runs after msmlir-cpu-generalize and before the row fusion and
tile-vectorize: msmlir-fuse-rows would otherwise take a transpose feeding an
elementwise op as a row loop reading columns (transpose + add 1024^2:
10.8 ms).

Measured (bench/poly_classes.py, one run: hand = every op to the hand
strategies, poly = the best of the scheduler taking the plain path of the
pipeline (poly=true min-work=2^40) and the scheduler alone (codegen=false +
the poly stage); min of 20 interleaved calls, us, 1 thread, the noisy 2-vCPU
machine, with this module's schedule.py fixes: no tiling of bands that lose
no reuse, the most contiguous member innermost, separate loops instead of
guards; transposes vary +-30% between runs):

  class                                 hand    poly   default
  transpose 2048^2                     12317    4526   poly (4 KiB-multiple rows: 5458)
  transpose + add 1024^2                6630     974   poly (4 KiB-multiple rows: 1107)
  transpose 1024^2                       824     671   poly (4 KiB-multiple rows: 757)
  transpose 1000^2 / 512x768         305/145 451/180   hand
  transpose + add 1000^2                 783     454   hand (poly fuses the add into
                                                       its tiles; claiming the transpose
                                                       alone measured 867)
  elementwise add 1024^2                 429     428   hand (equal: nothing to gain)
  broadcast add 1024^2 + 1024            284     281   hand (equal)
  elementwise chain gelu*sigmoid 1M      656     870   hand (its vector polynomials)
  softmax 1024^2 (row fusion)            480    2531   hand
  layernorm 1024^2 (row fusion)          322    1209   hand
  row sum 4096x1024                      552    1984   hand (a scalar fp chain: LLVM
                                                       does not reassociate it)
  column sum 4096x1024                   559     566   hand (equal; hand splits
                                                       columns over threads)
  middle-axis sum 64x256x64              141     141   hand (equal)
  matmul 17x23x19 / 64^3                 1.7/4.0 2.8/18.6 hand
  matmul 256^3 / 128x784x512         180/594 5351/17890 hand (packed micro-kernel)
  conv 3x3 16x32x32x32                  3594   66942   hand (direct conv kernels)
  max / avg pool 2x2 16x32x32x32     115/129 112/136   hand (equal / hand)
  B6 kernels (LeNet5 train step, poly=true min-work=2^40 vs hand):
    max pool 36/70 -> 58/180, max-pool grads 88/208 -> 567/1868,
    conv + bias epilogues 194/288 -> 289/335, bias-grad sums 24/117 -> 206/620

So the claimed class is: a top-level linalg.generic on static tensors with
only parallel loops, at least `min-work` iterations, reading an operand
through a transposed map (a permutation of the loop dims out of order) whose
rows are a multiple of 4 KiB apart: every cell of a column then falls in the
same L1 set, and the hand strategies read columns (tile-vectorize's 16-row
vector transposes; fuse-rows makes transpose + add one row loop reading a
column per row), while the scheduler's L2/L1 tiles reuse each line. Other
strides stay with the hand strategies (faster there). Declined candidates (a
transposed read in an op with a reduction, a value from outside the op that
is not a constant) keep the hand strategy with a remark at the op saying why.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import func as func_d

from ..common.diagnostics import emit_remark
from ..common.linalg import MIN_WORK, funcs, in_block, loop_info, numel
from ..registry import Option, register_pass
from .model import owner_op

NAME = "mskernel-poly-claim"
ATTR_POLY = "mskernel.poly"


def _transposed(m: ir.AffineMap) -> bool:
    """A projected permutation whose dims are not in increasing order."""
    dims = []
    for e in m.results:
        if not isinstance(e, ir.AffineDimExpr):
            return False
        dims.append(ir.AffineDimExpr(e).position)
    return len(dims) > 1 and dims != sorted(dims)


CONFLICT_STRIDE = 4096  # bytes: rows this far apart (or a multiple) share an L1 set


def _conflicting(op: ir.Operation, m: ir.AffineMap, k: int) -> bool:
    """Operand `k`, read through map `m`, is transposed and its rows are a
    multiple of CONFLICT_STRIDE bytes apart."""
    if not _transposed(m):
        return False
    t = ir.RankedTensorType(op.operands[k].type)
    bits = getattr(t.element_type, "width", 32)
    return t.shape[-1] * bits // 8 % CONFLICT_STRIDE == 0


def decide(op: ir.Operation, min_work: int) -> tuple[bool, str | None]:
    """(claimed, reason): claimed ops go to the scheduler; `reason` (for a
    remark) when the op is a candidate that stays with the hand strategy."""
    if op.name != "linalg.generic" or not any(len(list(r.uses)) for r in op.results):
        return False, None
    li = loop_info(op)
    if li is None:
        return False, None
    if not any(_conflicting(op, m, k) for k, m in enumerate(li.maps[:li.n_inputs])):
        return False, None
    if numel(op) < min_work:
        return False, None
    if any(it != "parallel" for it in li.iterators):
        return False, "a transposed read in an op with a reduction (not measured against the hand strategy)"
    outside = _captured(op)
    if outside is None:
        return False, "its body uses a value defined outside the op that is not a constant"
    return True, None


def _captured(op: ir.Operation) -> list | None:
    """arith.constant values the op's body uses from outside (None: another value)."""
    inside, used = set(), []

    def walk(o):
        for r in o.regions:
            for b in r.blocks:
                inside.update(b.arguments)
                for x in b.operations:
                    inside.update(x.results)
                    used.extend(x.operands)
                    walk(x)
    walk(op)
    out = []
    for v in used:
        if v in inside or v in out:
            continue
        d = owner_op(v)
        if d is None or d.name != "arith.constant":
            return None
        out.append(v)
    return out


def _remap(op: ir.Operation, mapping: dict) -> None:
    for i, v in enumerate(op.operands):
        if v in mapping:
            op.operands[i] = mapping[v]
    for r in op.regions:
        for b in r.blocks:
            for x in b.operations:
                _remap(x.operation, mapping)


def outline(op: ir.Operation, name: str) -> None:
    """`op` moved into private function `name` (its operands as arguments, an
    empty init made inside, captured constants cloned), called in its place."""
    func = op.parent
    while func.name != "func.func":
        func = func.parent
    args, inits = [], {}
    for v in op.operands:
        d = owner_op(v)
        if d is not None and d.name == "tensor.empty" and not len(d.operands):
            inits[v] = d
        elif v not in args:
            args.append(v)
    consts = _captured(op)
    with op.location:
        with ir.InsertionPoint(func):
            callee = func_d.FuncOp(name, ([v.type for v in args], [r.type for r in op.results]),
                                   visibility="private")
        callee.attributes[ATTR_POLY] = ir.UnitAttr.get()
        entry = callee.add_entry_block()
        mapping = dict(zip(args, entry.arguments))
        with ir.InsertionPoint(entry):
            for v, d in inits.items():
                mapping[v] = d.clone().results[0]
            for c in consts:
                mapping[c] = owner_op(c).clone().results[0]
            new = op.clone()
            func_d.ReturnOp(list(new.results))
        _remap(new, mapping)
        with ir.InsertionPoint(op):
            call = func_d.CallOp([r.type for r in op.results], ir.FlatSymbolRefAttr.get(name), args)
    for old, r in zip(op.results, call.results):
        old.replace_all_uses_with(r)
    op.erase()


@register_pass(NAME, "outline the linalg ops of the kernel classes the isl scheduler compiles "
                     "better than the hand strategies (transposes), marked mskernel.poly",
               options={"min-work": Option(int, MIN_WORK, "ops with a smaller iteration space "
                                                          "stay on the plain path")})
def claim(module: ir.Operation, *, min_work: int):
    table = ir.SymbolTable(module)
    for func in list(funcs(module)):
        if ATTR_POLY in func.attributes:
            continue
        base = ir.StringAttr(func.attributes["sym_name"]).value
        entry = func.regions[0].blocks[0]
        k = 0
        for op in [o.operation for o in entry.operations]:
            if not in_block(op, entry):
                continue
            claimed, reason = decide(op, min_work)
            if reason is not None:
                emit_remark(op.location, f"{NAME}: keeps the hand strategy: {reason}")
            if not claimed:
                continue
            while f"{base}_poly{k}" in table:
                k += 1
            outline(op, f"{base}_poly{k}")
            table = ir.SymbolTable(module)
