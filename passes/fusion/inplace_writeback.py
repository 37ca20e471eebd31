"""msmlir-inplace-writeback: parameter updates that may be written in place.

A written-back result (`msmlir.writeback = [[result, argument], ...]`, see
mindir-functionalize-assign) is computed into an out-parameter and then
copied into the caller's argument array by the runtime: for B5's train step
that is 2.6 MB of weights copied after every step (~0.2 ms of 2.4 ms at one
thread, serial at two). When the kernel that computes the new value reads
each old element before it writes the new one, it can write the argument's
own buffer.

After bufferization (results are out-parameters appended to the arguments;
the host function's `msmlir.num_inputs`, stamped by
mskernel-outline-kernels, says where they start) each pair is checked:

  * host function: one top-level op T writes the out-parameter (no other
    use of it); the argument is used only by calls, loads and linalg ops
    before T, and by T;
  * T is a kernel call taking both once (else T itself is checked): the
    argument is only read and the out-parameter only written (directly or
    through unit-stride subviews), each write has its own read of the same
    elements -- index expressions equal as linear forms over the loop
    variables, same vector type and map -- and in the innermost block
    holding both, the reads of all such pairs come before their writes; or
    both are the operands of one all-parallel linalg.generic with identity
    maps that does not read its output.

So an element is read before it is overwritten and not read again, given
two properties of the code this pipeline generates: a kernel writes each
output element once (tiles do not overlap; masked tails), and the LLVM
lowering marks no memref noalias (LLVM keeps a load before a store that may
alias it). The pairs that pass are listed in `msmlir.inplace` on the host
function (a subset of `msmlir.writeback`); the runtime may then pass the
argument's array as that out-parameter and copy nothing. A malformed
`msmlir.writeback` / `msmlir.num_inputs` is an error at the function.
"""
from __future__ import annotations

from mlir import ir

from ..registry import PassFailure, register_pass

WRITEBACK = "msmlir.writeback"
NUM_INPUTS = "msmlir.num_inputs"
INPLACE = "msmlir.inplace"

_READS = {"vector.transfer_read": 0, "memref.load": 0, "vector.load": 0}
_WRITES = {"vector.transfer_write": 1, "memref.store": 1, "vector.store": 1}


def _pairs(attr: ir.Attribute) -> list[tuple[int, int]]:
    return [tuple(ir.IntegerAttr(x).value for x in ir.ArrayAttr(p)) for p in ir.ArrayAttr(attr)]


def _uses(value: ir.Value) -> list[tuple[ir.Operation, int]]:
    return [(_operation(u.owner), u.operand_number) for u in value.uses]


def _operation(op) -> ir.Operation:
    return op.operation if hasattr(op, "operation") else op


def _top(op: ir.Operation, block: ir.Block) -> ir.Operation | None:
    """The ancestor of `op` (or op itself) that is an op of `block`."""
    while op is not None:
        if op.block == block:
            return op
        parent = op.parent
        op = _operation(parent) if parent is not None and parent.name != "builtin.module" else None
    return None


def _indices(op: ir.Operation, base: int) -> list[ir.Value]:
    """The index operands of a load/store/transfer (after the memref at `base`)."""
    name = op.name
    ops = list(op.operands)
    if name in ("vector.transfer_read", "vector.transfer_write"):
        # read: source, indices..., padding[, mask]; write: vector, dest, indices...[, mask]
        memref = ir.MemRefType(ops[base].type)
        return ops[base + 1: base + 1 + memref.rank]
    return ops[base + 1:]


def _linear(v: ir.Value, memo: dict, depth: int = 0) -> frozenset:
    """`v` as a linear form {(leaf, coefficient), ..., (None, constant)} over
    values that are not index arithmetic (arith add/sub/mul by a constant,
    affine.apply), so that equal indices computed two ways compare equal."""
    if v in memo:
        return memo[v]
    form = None
    owner = v.owner
    op = _operation(owner) if not isinstance(owner, ir.Block) and depth < 64 else None
    name = op.name if op is not None else ""
    if name == "arith.constant" and isinstance(v.type, ir.IndexType):
        form = {None: ir.IntegerAttr(op.attributes["value"]).value}
    elif name in ("arith.addi", "arith.subi", "arith.muli"):
        a, b = (dict(_linear(x, memo, depth + 1)) for x in op.operands)
        if name == "arith.muli":
            if set(b) == {None}:
                a, b = b, a
            if set(a) == {None}:
                form = {k: c * a[None] for k, c in b.items()}
        else:
            sign = 1 if name == "arith.addi" else -1
            form = dict(a)
            for k, c in b.items():
                form[k] = form.get(k, 0) + sign * c
    elif name == "affine.apply":
        m = ir.AffineMapAttr(op.attributes["map"]).value
        if len(m.results) == 1:
            inputs = [dict(_linear(x, memo, depth + 1)) for x in op.operands]
            form = _affine(m.results[0], inputs, m.n_dims)
    if form is None:
        form = {v: 1}
    out = frozenset((k, c) for k, c in form.items() if c or k is None)
    memo[v] = out
    return out


def _affine(e: ir.AffineExpr, inputs: list[dict], n_dims: int) -> dict | None:
    if isinstance(e, ir.AffineConstantExpr):
        return {None: e.value}
    if isinstance(e, ir.AffineDimExpr):
        return inputs[e.position]
    if isinstance(e, ir.AffineSymbolExpr):
        return inputs[n_dims + e.position]
    if isinstance(e, (ir.AffineAddExpr, ir.AffineMulExpr)):
        lhs, rhs = _affine(e.lhs, inputs, n_dims), _affine(e.rhs, inputs, n_dims)
        if lhs is None or rhs is None:
            return None
        if isinstance(e, ir.AffineAddExpr):
            out = dict(lhs)
            for k, c in rhs.items():
                out[k] = out.get(k, 0) + c
            return out
        if set(rhs) <= {None}:
            lhs, rhs = rhs, lhs
        if set(lhs) <= {None}:
            return {k: c * lhs.get(None, 0) for k, c in rhs.items()}
    return None


def _access_type(op: ir.Operation) -> str:
    if op.name in _READS:
        return str(op.results[0].type)
    return str(op.operands[0].type)


def _map(op: ir.Operation) -> str:
    return str(op.attributes["permutation_map"]) if "permutation_map" in op.attributes else ""


def _identity_generic(op: ir.Operation, src: ir.Value, dst: ir.Value) -> bool:
    """An all-parallel linalg.generic reading `src` and writing `dst` (once each)
    with identity maps, whose body does not read the output."""
    if op.name != "linalg.generic":
        return False
    if any("parallel" not in str(t) for t in ir.ArrayAttr(op.attributes["iterator_types"])):
        return False
    seg = ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"])
    n_in, n_out = seg[0], seg[1]
    ins, outs = list(op.operands)[:n_in], list(op.operands)[n_in:n_in + n_out]
    if [v for v in ins if v == src] != [src] or dst in ins or [v for v in outs if v == dst] != [dst] \
            or src in outs:
        return False
    maps = ir.ArrayAttr(op.attributes["indexing_maps"])
    body = op.regions[0].blocks[0]
    out_arg = body.arguments[n_in + outs.index(dst)]
    if list(out_arg.uses):
        return False
    for i in (ins.index(src), n_in + outs.index(dst)):
        m = ir.AffineMapAttr(maps[i]).value
        if m != ir.AffineMap.get_identity(m.n_dims):
            return False
    return True


def _chain(op: ir.Operation, root: ir.Operation) -> list[tuple[ir.Block, ir.Operation]]:
    """(block, the ancestor of `op` in it) from `op`'s block out to `root`'s body."""
    out = []
    while op is not None and op != root:
        out.append((op.block, op))
        parent = op.parent
        op = _operation(parent) if parent is not None else None
    return out


def _plus(a: frozenset, b: frozenset) -> frozenset:
    out: dict = {}
    for k, c in list(a) + list(b):
        out[k] = out.get(k, 0) + c
    return frozenset((k, c) for k, c in out.items() if c or k is None)


_DYNAMIC = -(2 ** 63)


def _inside(op: ir.Operation, root: ir.Operation) -> bool:
    while op is not None:
        if op == root:
            return True
        parent = op.parent
        op = _operation(parent) if parent is not None else None
    return False


def _accesses(value: ir.Value, kinds: dict, memo: dict, root: ir.Operation,
              offsets=None) -> list | None:
    """[(op, element location)] of the loads (kinds=_READS) or stores
    (kinds=_WRITES) of `value` and of its unit-stride, same-rank subviews:
    the location is a tuple of linear forms, one per dimension of `value`;
    None if it has any other use."""
    if not isinstance(value.type, ir.MemRefType):
        return None
    rank = ir.MemRefType(value.type).rank
    offsets = offsets or [frozenset({(None, 0)})] * rank
    found = []
    for op, i in _uses(value):
        if not _inside(op, root):
            continue           # (the host's earlier readers: checked by _safe_pair)
        if op.name == "memref.subview" and i == 0:
            view = ir.MemRefType(op.results[0].type)
            static = list(ir.DenseI64ArrayAttr(op.attributes["static_offsets"]))
            strides = list(ir.DenseI64ArrayAttr(op.attributes["static_strides"]))
            if view.rank != rank or any(st != 1 for st in strides):
                return None
            dynamic = iter(list(op.operands)[1:])
            inner = [_plus(off, _linear(next(dynamic), memo) if st == _DYNAMIC
                           else frozenset({(None, st)})) for off, st in zip(offsets, static)]
            sub = _accesses(op.results[0], kinds, memo, root, inner)
            if sub is None:
                return None
            found += sub
        elif kinds.get(op.name) == i:
            idx = _indices(op, i)
            found.append((op, tuple(_plus(off, _linear(x, memo)) for off, x in zip(offsets, idx))))
        else:
            return None
    return found


def _safe_region(root: ir.Operation, src: ir.Value, dst: ir.Value) -> bool:
    """Inside `root` `src` is only read and `dst` only written (directly or
    through unit-stride subviews); each write has its own read of the same
    elements (equal index expressions, same vector type), and in the innermost
    block holding both, the reads of all such pairs come before their writes."""
    uses = [(op, i) for op, i in _uses(src) + _uses(dst) if _inside(op, root)]
    generics = {op for op, _ in uses if op.name == "linalg.generic"}
    if generics:
        return len(uses) == 2 and len(generics) == 1 and _identity_generic(next(iter(generics)), src, dst)
    memo: dict = {}
    reads, writes = _accesses(src, _READS, memo, root), _accesses(dst, _WRITES, memo, root)
    if not reads or not writes or len(reads) != len(writes):
        return False
    groups: dict = {}          # common block -> ([read tops], [write tops])
    free = list(reads)
    for w, where in writes:
        key = (where, _access_type(w), _map(w), w.name.split(".")[0])
        wc = _chain(w, root)
        best = None            # the read of the same elements sharing the innermost block
        for r, at in free:
            if at != where or _access_type(r) != key[1] or _map(r) != key[2] \
                    or r.name.split(".")[0] != key[3]:
                continue
            rc = dict(_chain(r, root))
            depth = next((d for d, (b, _) in enumerate(wc) if b in rc), None)
            if depth is None or rc[wc[depth][0]] == wc[depth][1]:
                continue       # (the read and the write in different regions of one op)
            if best is None or depth < best[0]:
                best = (depth, (r, at), rc[wc[depth][0]])
        if best is None:
            return False
        depth, match, rtop = best
        free.remove(match)
        g = groups.setdefault(wc[depth][0], ([], []))
        g[0].append(rtop)
        g[1].append(wc[depth][1])
    for block, (rtops, wtops) in groups.items():
        order = {op.operation: k for k, op in enumerate(block.operations)}
        if max(order[t] for t in rtops) >= min(order[t] for t in wtops):
            return False
    return True


def _callee(module: ir.Operation, call: ir.Operation) -> ir.Operation | None:
    name = ir.FlatSymbolRefAttr(call.attributes["callee"]).value
    for op in module.regions[0].blocks[0].operations:
        op = op.operation
        if op.name == "func.func" and ir.StringAttr(op.attributes["sym_name"]).value == name:
            return op if op.regions[0].blocks else None
    return None


def _safe_pair(module: ir.Operation, f: ir.Operation, src: ir.Value, dst: ir.Value) -> bool:
    block = f.regions[0].blocks[0]
    if len(f.regions[0].blocks) != 1 or src.type != dst.type \
            or not isinstance(src.type, ir.MemRefType):
        return False
    writers = {_top(op, block) for op, _ in _uses(dst)}
    if len(writers) != 1 or None in writers:
        return False
    writer = writers.pop()
    order = {op.operation: k for k, op in enumerate(block.operations)}
    for op, _ in _uses(src):
        top = _top(op, block)
        if top is None or order[top] > order[writer]:
            return False
        if top != writer and op.name not in ("func.call",) and op.name not in _READS \
                and op.name != "linalg.generic":
            return False       # (a view or an op we do not know: its uses are not followed)
    if writer.name != "func.call":
        return _safe_region(writer, src, dst)
    operands = list(writer.operands)
    if operands.count(src) != 1 or operands.count(dst) != 1:
        return False
    callee = _callee(module, writer)
    if callee is None or len(callee.regions[0].blocks) != 1:
        return False
    args = callee.regions[0].blocks[0].arguments
    return _safe_region(callee, args[operands.index(src)], args[operands.index(dst)])


@register_pass("msmlir-inplace-writeback",
               "List the parameter write-backs a kernel can compute in place (msmlir.inplace; "
               "after bufferization)")
def inplace_writeback(module: ir.Operation):
    i64 = ir.IntegerType.get_signless(64)
    for f in module.regions[0].blocks[0].operations:
        f = f.operation
        if f.name != "func.func" or WRITEBACK not in f.attributes or NUM_INPUTS not in f.attributes \
                or not f.regions[0].blocks:
            continue
        args = f.regions[0].blocks[0].arguments
        try:
            n_in = ir.IntegerAttr(f.attributes[NUM_INPUTS]).value
            pairs = _pairs(f.attributes[WRITEBACK])
            if not 0 <= n_in <= len(args) or any(len(p) != 2 or min(p) < 0 for p in pairs):
                raise ValueError
        except ValueError:
            f.location.emit_error(
                f"msmlir-inplace-writeback: expected {WRITEBACK} = [[result, argument], ...] "
                f"and {NUM_INPUTS} = the argument count before the results (at most "
                f"{len(args)}), got {f.attributes[WRITEBACK]} and {f.attributes[NUM_INPUTS]}")
            raise PassFailure() from None
        safe = []
        for r, a in pairs:
            if a < n_in and n_in + r < len(args) and _safe_pair(module, f, args[a], args[n_in + r]):
                safe.append(ir.ArrayAttr.get([ir.IntegerAttr.get(i64, r), ir.IntegerAttr.get(i64, a)]))
        if safe:
            f.attributes[INPLACE] = ir.ArrayAttr.get(safe)
        elif INPLACE in f.attributes:
            del f.attributes[INPLACE]
