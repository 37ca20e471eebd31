"""mskernel-poly-claim: the kernel classes the isl scheduler takes from the hand strategies.

The one place where the CPU pipeline decides, per kernel class, whether a
linalg op is compiled by the hand-written strategies (msmlir-cpu-tile-
vectorize, fuse-rows, pack-matmul, the direct convolutions) or by the
polyhedral scheduler. Runs on tensors in the codegen stage, after the
matmul/conv strategies took their ops.
A claimed op (or pair) is outlined into a private function
`<func>_poly<k>` carrying `mskernel.poly` (msmlir-cpu-tile-vectorize skips
such functions); after bufferization `mskernel-poly-schedule{claimed=true
cpu-threads=N}` lowers it to affine loops and schedules it with isl (tasks
for N threads, vector accumulators for reductions; a remark, keeping the
plain loops, when it cannot). Runs after msmlir-cpu-generalize and before the row fusion and
tile-vectorize: msmlir-fuse-rows would otherwise take a transpose feeding an
elementwise op as a row loop reading columns (transpose + add 1024^2:
10.8 ms).

Measured (bench/poly_classes.py: hand = every op to the hand strategies,
default = this pass's claims, sched = the scheduler alone (codegen=false +
the poly stage); min of 40-200 interleaved calls, us of thread CPU time, 1
thread, the shared 2-vCPU machine at load 7-11; transposes vary +-30%
between runs):

  class                                 hand  default    sched  claimed
  transpose 2048^2                 4472-7064 3722-4584 3504-4153 yes (4 KiB-multiple rows)
  transpose 1024^2                   708-794  580-715  582-653  yes (4 KiB-multiple rows)
  transpose 1000^2 / 512x768         299/148  294/146  447/183  no (alone: hand faster)
  standalone transposes, session 9 with vectorize.transposes' 8x8 blocks
  (quiet machine, load 1-3, min of 20 calls x 3 input placements; hand /
  sched us): 1000^2 326/338, 512x768 208/162, 768x512 187/154, 500x700
  110/125, 256x384 20.1/19.0, 2000x1500 1433/1234, 300x77 5.3/4.5,
  129x4000 243/220, 1024^2 709/440, 2048^2 6116/3643: the scheduler wins
  on most but loses 1000^2 and 500x700, so the claim keeps its 4 KiB rule
  transpose + add 1024^2           6396-6812  798-1155 697-946  yes (pair; before: the
                                                               transpose alone, 1080)
  transpose + add 1000^2             771-803  602-627  449-570  yes (pair, any stride: the
                                                               add fused into its tiles;
                                                               the transpose alone: 867)
  transpose*y + b 512x768 (3 ops)    459-497  200-211  204-217  yes (pair; b fused by linalg)
  row sum 4096x1024                  556-567  556-572  527-565  yes (a tie, memory bound;
                                                               the scheduler alone was
                                                               1984-2020: vectorize.py)
  row sum 1000x1000                  121-135  124-135  127-134  yes (a tie: A/B 124/124,
                                                               129/126, 127/133 default/hand)
  row sum 256x1024 (in L2)            7.3-12   7.3-12   7.0-12  yes (a tie)
  row sum 4096x100                   27-30.4  22.5-26  23.3-33  yes (1.15-1.2x)
  row sum 4096x24                        9.2      8.4        -  yes (1.1x)
  row sum 8192x12                  12.8-13.5  13.2-14.0       -  session 8: no (a scalar
                                                               loop then)
  rows shorter than a vector, session 9 (vectorize.py: the widest vector
  the row fills + a masked step; load 7; hand / default / sched us):
  row sum 8192x12 14.9/12.0/11.1, 8192x10 16.4/12.0/11.1, 16384x6
  21.1/17.1/15.1; row max 8192x12 39.7/32.3/29.0, 16384x6 56.3/40.2/34.2:
  yes (1.2-1.4x), rows of >= MIN_LANES (4) elements
  row max 4096x100                     61-68    35-37       33  yes (1.75x: halving tree)
  row max 4096x1024                  528-571  526-588  564-570  yes (a tie to 3% slower,
                                                               memory bound: A/B 575/556,
                                                               526/528, 551/536)
  row sum of squares 1000x1000       123-135  124-135  121-132  yes (a tie: A/B 124/123,
                                                               131/127, 135/133)
  elementwise add 1024^2                 425      420      420  no (equal: nothing to gain)
  broadcast add 1024^2 + 1024            278      285      280  no (equal)
  column sum 4096x1024                   563      566      564  no (equal)
  middle-axis sum 64x256x64              142      137      142  no (equal)
  elementwise chain gelu*sigmoid 1M      633      625      917  no (hand's vector polynomials)
  softmax / layernorm 1024^2         430/301  460/294  778/862  no (row fusion)
  matmul, conv, pooling, B6's pool grads and bias sums: hand, 1.5-19x (session 7
    table: pack-matmul 5-30x, direct conv ~19x, pooling 1.6-9x)
  session 9 (load ~10, thread CPU time, min of 40-100 interleaved calls;
  hand / sched, us), none claimed:
  column sums (bias gradients) 1000^2 131/131, 64x500 2.8/3.9, 128x84
    1.7/2.0, 256x10 1.6/1.6, 4096x1024 571/570     (a tie or hand)
  middle-axis sum 64x256x64                 136/147       (hand)
  max / avg pool 2x2 16x32x32x32        113/111, 133/144 (a tie / hand)
  matmul 17x23x19, 64^3                   1.9/3.2, 4.7/22.5 (hand: pack-matmul)
  B5 / B6 kernels: none claimed (per-kernel times equal, bench --bench B5|B6).

  threads=2 (wall clock, min of 60 interleaved calls, the claimed schedule
  given cpu-threads=2 (bench modes hand2 / default2), load 4.4; us, hand /
  default): row sum 4096x1024 308 / 267, 1000x1000 51 / 39, 4096x100 80 / 75,
  row max 4096x1024 279 / 273, 4096x100 117 / 86, column sum (not claimed)
  321 / 314, transpose 2048^2 3907 / 2552, 1024^2 906 / 720, transpose + add
  1024^2 6528 / 707, 1000^2 441 / 334, transpose*y + b 222 / 115. (At load
  8.5 no speedup over t=1 showed for either path.)

  session 10 (codegen's own vector loops, vectorize.elementwise / columns:
  16 x f32 lanes as the hand path's, masked tails, column blocks held in
  registers across the reduced rows in strips of 8 rows; load 13-17 (the
  shared machine busy), thread CPU time, min of 40-100 interleaved calls;
  us hand / claimed (default) / the scheduler alone, and the scheduler
  alone before this session; default/hand per run in brackets):
  elementwise chain gelu*sigmoid 1M   654 / 644 / 751, before 978  (0.87-1.03 over 6 runs)
  elementwise add 1M                  439 / 481 / 476, before 449  (0.91-1.06: a tie)
  broadcast add 1024^2 + 1024         309 / 323 / 312, before 304  (0.95-1.00)
  column sum 4096x1024                583 / 588 / 575, before 589  (0.95-1.01)
  column sum 1000^2                   127 / 128 / 146, before 127  (1.01 over 100 calls x 3
                                                                    placements; 1.02-1.05 in
                                                                    6 runs of 40)
  column sums 64x500, 128x84          2.8/2.7/2.7, 1.8/1.8/1.8, before 3.0, 2.1
  middle-axis sum 64x256x64           143 / 152 / 143, before 144  (0.96-1.03)
  B1's kernel (4M)                    3702 / 3326 (t=2 wall: 7563 / 3860)
  -> claimed: elementwise ops on their own, reductions over outer axes.
  Compile time: +30-70 ms of thread CPU per claimed kernel (isl and the
  Python codegen; B5 / B6 claim none of their kernels: unchanged).
  Not claimed: matmuls (pack-matmul runs before this pass; the scheduler's
  row-blocked FMA columns: 64^3 5.8 / 4.6 us, 256^3 296 / 197, 17x23x19
  2.0 / 1.9; before 15.9, 5849, 3.2), softmax / layernorm (row fusion:
  659 / 339, 1023 / 648), standalone transposes at other strides (mixed,
  and unmeasurable at this load: +-30% between runs).

So the claimed classes are top-level linalg.generic ops on static tensors
with at least `min-work` iterations:
  * an elementwise op on its own (all loops parallel, inputs identity or
    broadcast maps, body arith/math on non-index scalars, no bools) that
    reads no other linalg op's result and feeds none (chains stay with
    fusion / msmlir-fuse-rows / tile-vectorize): codegen's innermost vector
    loop (vectorize.elementwise) ties or beats tile-vectorize;
  * a reduction over outer axes only (its innermost loop parallel: column
    sums, bias gradients, middle-axis sums; inputs identity maps), on its
    own as above: codegen keeps blocks of up to 8 result vectors in
    registers across the reduced rows (vectorize.columns);
  * transposes (only parallel loops, an operand read through a transposed
    map) whose rows are a multiple of 4 KiB apart: every cell of a column
    then falls in the same L1 set, and the hand strategies read columns
    (tile-vectorize's 16-row vector transposes), while the scheduler's L2/L1
    tiles reuse each line;
  * a transpose at any stride whose result has one use, an elementwise op
    (identity/broadcast maps): the pair is outlined together, two generics
    (bufferization writes the transpose into the consumer's output), which
    the isl scheduler fuses into one nest and tiles as a whole (fuse-rows
    would make the pair one row loop reading a column per row). Not one
    generic (upstream linalg-fuse-elementwise-ops, what this pass did until
    session 9): the same tiles then run 15-30% slower on this CPU (1000^2:
    thread CPU time over 10 random input placements, min/median 655/702 us
    fused against 525/564 unfused, the scheduler alone 540/561; the
    loops are identical but for the one statement's store of the transposed
    value, and taking that store out of the scheduler-alone code
    reproduces the slowdown: 626 -> 814 us). That was the "claimed
    transpose + add slower than the same schedule alone" of session 8; at
    1024^2 the remaining spread follows the arrays' addresses (fused
    761-1471 us over random placements, unfused 902-1037);
  * row reductions (only the innermost loop reduced, rows of at least
    MIN_LANES (4) elements, inputs read in loop order, the body one combine op of
    vectorize.KINDS, f16..f64 / i32 / i64) that read no other
    linalg op's result and feed none (a softmax's or layernorm's row sums
    stay in msmlir-fuse-rows' row loops): codegen gives them vector
    accumulators (vectorize.py). Their filled init stays in the caller.
Declined candidates (a transposed read in an op with a reduction, a value
from outside the op that is not a constant, a row reduction next to other
linalg ops) keep the hand strategy with a remark at the op saying why.
Claimed functions hold one linalg op: msmlir-fuse-rows (which does not skip
mskernel.poly functions) only forms clusters of two or more.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import func as func_d

from ..common.diagnostics import emit_remark
from ..common.linalg import MIN_WORK, funcs, in_block, loop_info, numel
from ..registry import Option, register_pass
from .model import owner_op
from .vectorize import KINDS, MIN_LANES

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


def _projection(m: ir.AffineMap) -> bool:
    return all(isinstance(e, ir.AffineDimExpr) for e in m.results)


def _elementwise(op: ir.Operation, n: int) -> bool:
    """An all-parallel linalg.generic over `n` loops whose inputs keep the
    dims in order (identity or broadcast), output identity: what the
    scheduler fuses into a transpose's tiles."""
    if op.name != "linalg.generic":
        return False
    li = loop_info(op)
    if li is None or len(li.iterators) != n or any(it != "parallel" for it in li.iterators):
        return False
    ident = ir.AffineMap.get_identity(n)
    return (all(_projection(m) and not _transposed(m) for m in li.maps[:li.n_inputs])
            and all(m == ident for m in li.maps[li.n_inputs:]) and _captured(op) is not None)


def _row_reduction(op: ir.Operation) -> bool:
    """A linalg.generic reducing its innermost loop only, inputs read in
    loop order (identity maps), one result over the other loops, its body
    folding an expression of the inputs into the accumulator with one
    combine op of the kinds codegen vectorizes (vectorize.KINDS)."""
    if op.name != "linalg.generic" or len(op.results) != 1:
        return False
    li = loop_info(op)
    if li is None:
        return False
    n = len(li.iterators)
    if n < 2 or li.iterators != ["parallel"] * (n - 1) + ["reduction"]:
        return False
    ident = ir.AffineMap.get_identity(n)
    rows = ir.AffineMap.get(n, 0, [ir.AffineDimExpr.get(d) for d in range(n - 1)])
    if any(m != ident for m in li.maps[:li.n_inputs]) or list(li.maps[li.n_inputs:]) != [rows]:
        return False
    body = op.regions[0].blocks[0]
    acc = body.arguments[len(body.arguments) - 1]
    et = acc.type
    if not (isinstance(et, ir.FloatType) or (isinstance(et, ir.IntegerType) and et.width in (32, 64))):
        return False  # (bools and bytes: not measured)
    if li.ranges[-1] is None or li.ranges[-1] < MIN_LANES:
        return False  # (rows of 1-3: a scalar loop, not measured)
    ops = [o.operation for o in body.operations]
    if any(not (o.name.startswith(("arith.", "math.")) or o.name == "linalg.yield")
           or any(isinstance(v.type, ir.IndexType) for v in list(o.operands) + list(o.results))
           for o in ops):
        return False  # linalg.index, index maths: not vectorized by codegen
    comb = owner_op(ops[-1].operands[0])
    return (comb is not None and comb.name in KINDS and acc in list(comb.operands)
            and len(list(acc.uses)) == 1)


def _pure_body(op: ir.Operation) -> bool:
    """The body is arith / math ops on non-index scalars (what codegen's
    vector loops clone lane-wise: no linalg.index, no index maths)."""
    for o in op.regions[0].blocks[0].operations:
        o = o.operation
        if not (o.name.startswith(("arith.", "math.")) or o.name == "linalg.yield"):
            return False
        if any(isinstance(v.type, ir.IndexType) for v in list(o.operands) + list(o.results)):
            return False
    return True


def _elementwise_alone(op: ir.Operation) -> bool:
    """An all-parallel linalg.generic (inputs identity / broadcast maps,
    outputs identity) whose operands and results are not bools (vector<i1>
    loads are bit-packed: codegen leaves those loops scalar)."""
    li = loop_info(op) if op.name == "linalg.generic" else None
    if li is None or not li.iterators or not _elementwise(op, len(li.iterators)) \
            or not _pure_body(op):
        return False
    for v in list(op.operands) + list(op.results):
        et = ir.RankedTensorType(v.type).element_type
        if isinstance(et, ir.IntegerType) and ir.IntegerType(et).width == 1:
            return False
    return True


def _outer_reduction(op: ir.Operation) -> bool:
    """A linalg.generic reducing outer loops only (its innermost loop
    parallel: column sums, bias gradients, middle-axis sums), inputs read in
    loop order (identity maps), one result indexed by the parallel loops in
    order: codegen makes its innermost loop a vector loop over the
    accumulator row."""
    if op.name != "linalg.generic" or len(op.results) != 1:
        return False
    li = loop_info(op)
    if li is None or not li.iterators or li.iterators[-1] != "parallel" \
            or "reduction" not in li.iterators:
        return False
    n = len(li.iterators)
    ident = ir.AffineMap.get_identity(n)
    kept = ir.AffineMap.get(n, 0, [ir.AffineDimExpr.get(d) for d in range(n)
                                   if li.iterators[d] == "parallel"])
    if any(m != ident for m in li.maps[:li.n_inputs]) or list(li.maps[li.n_inputs:]) != [kept]:
        return False
    if not _pure_body(op) or _captured(op) is None:
        return False
    return not any(isinstance(et, ir.IntegerType) and ir.IntegerType(et).width == 1
                   for et in (ir.RankedTensorType(v.type).element_type
                              for v in list(op.operands) + list(op.results)))


def _linalg_in_block(v: ir.Value, block: ir.Block) -> bool:
    d = owner_op(v)
    return (d is not None and d.name.startswith("linalg.") and d.name != "linalg.fill"
            and d.parent == block.owner)


def _users_in(op: ir.Operation, block: ir.Block) -> list[ir.Operation]:
    """The ops of `block` that use `op`'s results (or hold a use nested inside)."""
    out = []
    for r in op.results:
        for u in r.uses:
            o = u.owner
            o = o.operation if hasattr(o, "operation") else o
            while o is not None and o.parent != block.owner:
                o = o.parent
            if o is not None and o not in out:
                out.append(o)
    return out


def _placeable(op: ir.Operation, users: list[ir.Operation], block: ir.Block) -> bool:
    """The group can become one call at its last op: the producer has no use
    outside it, the consumers' results none before its last op."""
    pos = {o.operation: k for k, o in enumerate(block.operations)}
    group = [op] + users
    last = max(pos[o] for o in group)
    for o in group:
        for u in _users_in(o, block):
            if u not in group and (o is op or pos[u] <= last):
                return False
    return True


def decide(op: ir.Operation, min_work: int, block: ir.Block | None = None
           ) -> tuple[list[ir.Operation] | None, str | None]:
    """(claimed ops, reason): the ops (`op` first, then any consumers taken
    with it) that go to the scheduler as one function, or None; `reason` (for
    a remark) when `op` is a candidate that stays with the hand strategy."""
    if op.name != "linalg.generic" or not any(len(list(r.uses)) for r in op.results):
        return None, None
    li = loop_info(op)
    if li is None:
        return None, None
    block = block if block is not None else op.parent.regions[0].blocks[0]
    if _row_reduction(op):
        if numel(op) < min_work or _captured(op) is None:
            return None, None
        if any(_linalg_in_block(v, block) for v in list(op.operands)[:li.n_inputs]) or \
                any(u.name.startswith("linalg.") for u in _users_in(op, block)):
            return None, "a row reduction next to other linalg ops (msmlir-fuse-rows' row loops)"
        return [op], None
    if _elementwise_alone(op) or _outer_reduction(op):
        if numel(op) < min_work:
            return None, None
        if any(_linalg_in_block(v, block) for v in list(op.operands)[:li.n_inputs]) or \
                any(u.name.startswith("linalg.") for u in _users_in(op, block)):
            return None, None   # (a chain's member: msmlir-fuse-rows / fusion keep it)
        return [op], None
    ins = li.maps[:li.n_inputs]
    if not any(_transposed(m) for m in ins) or numel(op) < min_work:
        return None, None
    if any(it != "parallel" for it in li.iterators):
        return None, "a transposed read in an op with a reduction (not measured against the hand strategy)"
    if _captured(op) is None:
        return None, "its body uses a value defined outside the op that is not a constant"
    users = _users_in(op, block)
    if len(users) == 1 and _elementwise(users[0], len(li.iterators)) \
            and _placeable(op, users, block):
        return [op] + users, None
    if any(_conflicting(op, m, k) for k, m in enumerate(ins)):
        return [op], None
    return None, None


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


def _op(o) -> ir.Operation:
    return o.operation if hasattr(o, "operation") else o


def outline(ops, name: str) -> None:
    """`ops` (one op, or a group in block order) moved into private function
    `name` (their outside operands as arguments, empty inits made inside,
    captured constants cloned), called at the last op's place for the
    results used outside the group (a group stays several ops: the isl
    scheduler fuses their nests)."""
    ops = [_op(o) for o in (ops if isinstance(ops, (list, tuple)) else [ops])]
    func = ops[0].parent
    while func.name != "func.func":
        func = func.parent
    produced = {r for o in ops for r in o.results}
    args, inits = [], {}
    for o in ops:
        for v in o.operands:
            if v in produced or v in inits or v in args:
                continue
            d = owner_op(v)
            if d is not None and d.name == "tensor.empty" and not len(d.operands):
                inits[v] = d
            else:
                args.append(v)
    consts = []
    for o in ops:
        consts += [c for c in _captured(o) if c not in consts]
    results = [r for o in ops for r in o.results if any(_op(u.owner) not in ops for u in r.uses)]
    last = ops[-1]
    with last.location:
        with ir.InsertionPoint(func):
            callee = func_d.FuncOp(name, ([v.type for v in args], [r.type for r in results]),
                                   visibility="private")
        callee.attributes[ATTR_POLY] = ir.UnitAttr.get()
        entry = callee.add_entry_block()
        mapping = dict(zip(args, entry.arguments))
        with ir.InsertionPoint(entry):
            for v, d in inits.items():
                mapping[v] = d.clone().results[0]
            for c in consts:
                if c not in mapping:
                    mapping[c] = owner_op(c).clone().results[0]
            for o in ops:
                n = o.clone()
                _remap(n, mapping)
                for a, b in zip(o.results, n.results):
                    mapping[a] = b
            func_d.ReturnOp([mapping[r] for r in results])
        with ir.InsertionPoint(last):
            call = func_d.CallOp([r.type for r in results], ir.FlatSymbolRefAttr.get(name), args)
    for old, r in zip(results, call.results):
        old.replace_all_uses_with(r)
    for o in reversed(ops):
        o.erase()


@register_pass(NAME, "outline the linalg ops of the kernel classes the isl scheduler compiles "
                     "at least as well as the hand strategies (transposes, transposes with their "
                     "elementwise consumers, elementwise ops, row and column reductions), marked "
                     "mskernel.poly",
               options={"min-work": Option(int, MIN_WORK, "ops with a smaller iteration space "
                                                          "stay on the plain path")})
def claim(module: ir.Operation, *, min_work: int):
    table = ir.SymbolTable(module)
    for func in list(funcs(module)):
        if ATTR_POLY in func.attributes:
            continue
        base = ir.StringAttr(func.attributes["sym_name"]).value
        entry = func.regions[0].blocks[0]
        groups, taken = [], []
        for op in [o.operation for o in entry.operations]:
            if not in_block(op, entry) or op in taken:
                continue
            claimed, reason = decide(op, min_work, entry)
            if reason is not None:
                emit_remark(op.location, f"{NAME}: keeps the hand strategy: {reason}")
            if claimed and not any(o in taken for o in claimed):
                groups.append(claimed)
                taken += claimed
        k = 0
        for group in groups:
            while f"{base}_poly{k}" in table:
                k += 1
            outline(group, f"{base}_poly{k}")
            table = ir.SymbolTable(module)
