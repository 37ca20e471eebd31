"""msmlir-cpu-streaming-stores: a kernel's big output written with non-temporal stores.

After msmlir-cpu-lower-vectors (1-D `vector.store`s, loops still scf), each
vector.store into a function argument (or in-bounds unmasked 1-D
vector.transfer_write, which becomes the store it stands for) is marked
`nontemporal = true` with its alignment (the vector's bytes) when all of
this holds:

  - the argument is written only: every use in the function is a store into
    it (the kernel never reads its output back, so bypassing the caches costs
    it nothing);
  - it has a static shape and the identity layout, and every element offset a
    marked store writes at is a multiple of the vector's length (a
    divisibility walk of the index arithmetic: constants, scf loop bounds and
    steps, addi/muli, affine.apply);
  - the vector is a power of two of at least 16 bytes (whole lines are
    filled by consecutive stores, through the write-combining buffers);
  - the output holds at least `min-output-bytes` (4 MiB) and the function's
    memref arguments together (its working set between calls) at least
    `min-footprint-bytes` (96 MiB);
  - the store's block has at most `max-ops-per-store` (32) ops per store: the
    loop is memory-bound (layernorm's output loop ~8, softmax's 4; B1's
    gelu * sigmoid chain 62 is compute-bound: 64 MiB streamed ran 0.38x-1.09x
    over six runs under load).

Why: an ordinary store first reads the line it writes (read for
ownership), so an output streamed to memory costs its bytes twice. A
non-temporal store writes the line without reading it and without keeping
it in the caches. It pays only when the output would not stay in the cache
anyway. Measured on the 2-vCPU AVX-512 VM (lscpu: L2 4 MiB per core, L3
"480 MiB"), the kernel with and without the pass in one process,
alternating blocks of calls, min per variant (t=1: thread CPU time, t=2:
wall), in a quiet window (load 1.3-1.9): layernorm rows x 1024 f32 with a
16 / 40 / 48 / 56 / 64 MiB output (32 / 80 / 96 / 112 / 128 MiB of
arguments) t=2 0.43x / 0.90x / 1.08x / 1.08x / 1.35x, t=1 0.84x / 1.07x /
1.09x / 1.29x / 1.42x; softmax 16 / 64 MiB t=2 0.86x / 1.19x, t=1 0.86x /
1.17x. Under load (7-11) the step moves down (80 MiB: 1.13x-1.60x), the L3
share of this VM shrinking. A C copy loop shows the same: regular and
streaming stores run at the same ~57-59 GB/s while input + output stay in
the L3 this VM really gets (~64-90 MiB), streaming wins beyond. Hence the
footprint threshold, 96 MiB, the first size that won in both states; the
output threshold (one core's L2) keeps small outputs of big kernels out. The
consumer of the output (often the next kernel of a train step) then reads
it from memory, not from L3: below the threshold that would be a second
loss, above it the output has left L3 anyway. (A caller that keeps its
results makes every call write cold memory: B3 at 16 MiB with the last 8
results kept ran 1.65x faster streaming. The kernel cannot see that; the
thresholds are for the bench's case, an output buffer reused warm.)

Alignment: a `vmovntps` faults on an address that is not a multiple of its
size, and LLVM splits a non-temporal store whose alignment it cannot prove
into scalar `movnti`s. numpy's big arrays are 16 bytes past a 64-byte
boundary, so alignment is checked at run time: the outermost op of the
function (a loop nest, an scf.parallel) holding marked stores is versioned,
`scf.if` (every marked base pointer % 64 == 0) {the streaming copy} else
{the original}. (The CPU runtime's own output arrays come from np.empty:
until it allocates them on a cache line, only callers' aligned buffers
take the streaming copy.)

Ordering: streaming stores are weakly ordered (Intel's optimization manual:
"a fencing operation is required"; they may sit in write-combining buffers
after later ordinary stores are visible). Neither MLIR's lowering nor LLVM
adds a fence for a `!nontemporal` store (checked in the x86 code), and the
OpenMP join/barrier is built from C++-style atomics, which do not order
non-temporal stores (the LLVM "non-temporal fencing" RFC's reading: the
synchronization primitives need not consider them; an SFENCE after the
stores makes them correct). So each task (the body of each scf.parallel, one
iteration per thread in this pipeline) and each serial nest ends with
`sfence` (`llvm.x86.sse.sfence`), once per task, before another thread can
read the output. x86-64 hosts only (elsewhere the pass changes nothing).
"""
from __future__ import annotations

import math
import platform

from mlir import ir
from mlir.dialects import arith, llvm, memref, scf, vector

from ..registry import Option, register_pass

MiB = 1 << 20
_X86 = platform.machine().lower() in ("x86_64", "amd64")
# store op -> the operand number of its base memref
_STORES = {"vector.store": 1, "vector.transfer_write": 1, "memref.store": 1,
           "vector.maskedstore": 0}
_ALIGN = 64   # the runtime check: a base aligned to a cache line
_TAG = "msmlir.streaming_store"       # a store to mark, while the nest is cloned


@register_pass("msmlir-cpu-streaming-stores",
               "After msmlir-cpu-lower-vectors: vector.stores into a big write-only output "
               "argument -> non-temporal (aligned, versioned on the base alignment at run "
               "time, sfence at the end of each task); x86-64 only",
               options={"min-output-bytes": Option(int, 4 * MiB, "smallest output marked"),
                        "max-ops-per-store": Option(int, 32, "most ops per store in the store's "
                                                             "block (a compute-bound loop: not "
                                                             "marked)"),
                        "min-footprint-bytes": Option(int, 96 * MiB,
                                                      "smallest working set (all memref "
                                                      "arguments' bytes) of a marked function")})
def streaming_stores(module: ir.Operation, *, min_output_bytes: int, min_footprint_bytes: int,
                     max_ops_per_store: int):
    if not _X86:
        return
    for func in _functions(module):
        mark_function(func, min_output_bytes, min_footprint_bytes, max_ops_per_store)


def _functions(module: ir.Operation) -> list:
    out = []
    for op in module.regions[0].blocks[0].operations:
        if op.operation.name == "func.func" and len(op.regions[0].blocks) == 1:
            out.append(op.operation)
    return out


def _bytes(t: ir.Type) -> int:
    """The bytes of a static memref of whole-byte ints or floats (else 0)."""
    if not isinstance(t, ir.MemRefType) or not t.has_static_shape:
        return 0
    bits = getattr(t.element_type, "width", 0)
    return math.prod(t.shape) * bits // 8 if bits % 8 == 0 else 0


def mark_function(func: ir.Operation, min_output_bytes: int, min_footprint_bytes: int,
                  max_ops_per_store: int) -> int:
    """Marks the eligible stores of one function (versioned, fenced); returns
    how many were marked."""
    entry = func.regions[0].blocks[0]
    if sum(_bytes(a.type) for a in entry.arguments) < min_footprint_bytes:
        return 0
    chosen = []                      # (argument, [its stores to mark])
    for arg in entry.arguments:
        t = arg.type
        if not isinstance(t, ir.MemRefType) or _bytes(t) < max(min_output_bytes, 1) or \
                t.get_strides_and_offset() != (_strides(t.shape), 0):
            continue
        stores = [st for st in _write_only_stores(arg) if _light(st, max_ops_per_store)]
        if stores:
            chosen.append((arg, stores))
    if not chosen:
        return 0
    # the outermost ops (children of the entry block) holding marked stores
    tops: dict = {}
    for arg, stores in chosen:
        for st in stores:
            top = _top(st, entry)
            if top is None or len(top.results):
                return 0
            tops.setdefault(top, []).append(st)
    n = 0
    for top, stores in tops.items():
        n += _version(top, stores, [a for a, _ in chosen])
    return n


def _write_only_stores(arg: ir.Value) -> list:
    """The vector.stores into `arg` that can stream, if every use of `arg` is
    a store into it (else [])."""
    out = []
    t = ir.MemRefType(arg.type)
    strides = _strides(t.shape)
    elem_bytes = t.element_type.width // 8
    for use in arg.uses:
        op = use.owner.operation
        name = op.name
        if _STORES.get(name) != use.operand_number:
            return []
        if name == "vector.transfer_write" and not _plain_transfer(op, t.rank):
            continue
        if name not in ("vector.store", "vector.transfer_write"):
            continue
        vt = ir.VectorType(op.operands[0].type)
        if vt.rank != 1 or vt.element_type != t.element_type:
            continue
        vbytes = vt.shape[0] * elem_bytes
        if vbytes < 16 or vbytes & (vbytes - 1) or vbytes > _ALIGN:
            continue
        lanes = vt.shape[0]
        div = 0
        for idx, stride in zip(list(op.operands)[2:], strides):
            div = math.gcd(div, _divisor(idx) * stride)
        if div % lanes == 0:        # (div == 0: offset 0)
            out.append(op)
    return out


def _light(store: ir.Operation, max_ops: int) -> bool:
    """Whether the block of `store` has at most `max_ops` ops per store in it
    (a memory-bound loop; a compute-bound one hides its stores' traffic)."""
    ops = list(store.block.operations)
    n_stores = sum(1 for o in ops if o.operation.name in _STORES)
    return len(ops) <= max_ops * max(n_stores, 1)


def _plain_transfer(op: ir.Operation, rank: int) -> bool:
    """A transfer_write that is a vector.store: in bounds, unmasked, along the
    memref's last dim (upstream lowers it to one)."""
    if len(op.operands) != 2 + rank:                        # a mask operand
        return False
    if not all(ir.BoolAttr(a).value for a in ir.ArrayAttr(op.attributes["in_bounds"])):
        return False
    amap = ir.AffineMapAttr(op.attributes["permutation_map"]).value
    return amap == ir.AffineMap.get_minor_identity(rank, 1)


def _strides(shape) -> list[int]:
    out, s = [], 1
    for d in reversed(list(shape)):
        out.append(s)
        s *= d
    return out[::-1]


def _divisor(v: ir.Value, depth: int = 0) -> int:
    """A known divisor of index value `v` (0: v is 0; 1: nothing known)."""
    if depth > 16:
        return 1
    owner = v.owner
    if isinstance(owner, ir.Block):     # a block argument: an scf loop's induction variable?
        parent = owner.owner
        if parent.name == "scf.for" and v.arg_number == 0:
            return math.gcd(_divisor(parent.operands[0], depth + 1),
                            _divisor(parent.operands[2], depth + 1))
        if parent.name == "scf.parallel":
            n = len(owner.arguments)
            i = v.arg_number
            return math.gcd(_divisor(parent.operands[i], depth + 1),
                            _divisor(parent.operands[2 * n + i], depth + 1))
        return 1
    name = owner.name
    if name == "arith.constant":
        a = owner.attributes["value"]
        return abs(ir.IntegerAttr(a).value) if isinstance(a, ir.IntegerAttr) else 1
    if name in ("arith.addi", "arith.subi"):
        return math.gcd(_divisor(owner.operands[0], depth + 1),
                        _divisor(owner.operands[1], depth + 1))
    if name == "arith.muli":
        return _divisor(owner.operands[0], depth + 1) * _divisor(owner.operands[1], depth + 1)
    if name == "affine.apply":
        amap = ir.AffineMapAttr(owner.attributes["map"]).value
        ops = [_divisor(o, depth + 1) for o in owner.operands]
        return _expr_divisor(amap.results[0], ops, amap.n_dims)
    return 1


def _expr_divisor(e: ir.AffineExpr, ops: list[int], n_dims: int) -> int:
    if isinstance(e, ir.AffineConstantExpr):
        return abs(e.value)
    if isinstance(e, ir.AffineDimExpr):
        return ops[e.position]
    if isinstance(e, ir.AffineSymbolExpr):
        return ops[n_dims + e.position]
    if isinstance(e, ir.AffineAddExpr):
        return math.gcd(_expr_divisor(e.lhs, ops, n_dims), _expr_divisor(e.rhs, ops, n_dims))
    if isinstance(e, ir.AffineMulExpr):
        return _expr_divisor(e.lhs, ops, n_dims) * _expr_divisor(e.rhs, ops, n_dims)
    return 1


def _top(op: ir.Operation, entry: ir.Block):
    """The ancestor of `op` that is a child of `entry` (None: not in it)."""
    while op is not None:
        op = op.operation
        if op.block == entry:
            return op
        op = op.parent
    return None


def _version(top: ir.Operation, stores: list, args: list) -> int:
    """scf.if (every base in `args` 64-byte aligned) {`top` with `stores`
    non-temporal, sfence at the end of each task} else {`top`}."""
    for st in stores:                     # tags that the clone keeps
        st.attributes[_TAG] = ir.UnitAttr.get()
    with top.location:
        with ir.InsertionPoint(top):
            index = ir.IndexType.get()
            mask = arith.ConstantOp(index, _ALIGN - 1).result
            zero = arith.ConstantOp(index, 0).result
            cond = None
            for a in args:
                p = memref.ExtractAlignedPointerAsIndexOp(a).result
                ok = arith.CmpIOp(arith.CmpIPredicate.eq, arith.AndIOp(p, mask).result, zero).result
                cond = ok if cond is None else arith.AndIOp(cond, ok).result
            if_op = scf.IfOp(cond, [], has_else=True)
        with ir.InsertionPoint(if_op.then_block):
            fast = top.clone().operation
            scf.YieldOp([])
        with ir.InsertionPoint(if_op.else_block):
            scf.YieldOp([])
        top.move_before(if_op.else_block.operations[0])
        for st in stores:
            del st.attributes[_TAG]
        marked, fenced = [], []
        fast.walk(lambda o: (marked.append(o) if _TAG in o.attributes else None)
                  or ir.WalkResult.ADVANCE)
        i64 = ir.IntegerType.get_signless(64)
        for i, st in enumerate(marked):
            if st.name == "vector.transfer_write":    # the vector.store it stands for
                with ir.InsertionPoint(st), st.location:
                    new = vector.StoreOp(st.operands[0], st.operands[1],
                                         list(st.operands)[2:]).operation
                st.erase()
                marked[i] = st = new
            else:
                del st.attributes[_TAG]
            st.attributes["nontemporal"] = ir.BoolAttr.get(True)
            st.attributes["alignment"] = ir.IntegerAttr.get(i64, _vector_bytes(st))
            task = _enclosing_task(st, fast)
            if any(task == f for f in fenced):
                continue
            fenced.append(task)
            if task is not None:          # before the scf.reduce of the parallel body
                block = task.regions[0].blocks[0]
                ip = ir.InsertionPoint(block.operations[len(block.operations) - 1])
            else:                         # after the serial nest
                ip = ir.InsertionPoint(if_op.then_block.operations[1])
            with ip:
                llvm.CallIntrinsicOp(None, "llvm.x86.sse.sfence", [], [], [])
    return len(marked)


def _vector_bytes(store: ir.Operation) -> int:
    vt = ir.VectorType(store.operands[0].type)
    return vt.shape[0] * vt.element_type.width // 8


def _enclosing_task(op: ir.Operation, stop: ir.Operation):
    """The innermost scf.parallel around `op` up to `stop` (inclusive): the
    task whose thread made the stores; None if there is none."""
    stop = stop.operation
    cur = op.parent
    while cur is not None:
        cur = cur.operation
        if cur.name == "scf.parallel":
            return cur
        if cur == stop:
            return None
        cur = cur.parent
    return None
