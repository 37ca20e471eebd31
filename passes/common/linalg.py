"""Static facts about linalg ops on tensors, which the fusion and CPU codegen
strategies are chosen on (nothing here rewrites IR)."""
from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

# Structured ops the vectorizing strategies never touch (they keep the plain
# convert-linalg-to-loops path): convolutions and pooling windows (non
# projected-permutation maps), packing ops, softmax (decomposed upstream).
_KEEP_NAMED_PREFIXES = ("linalg.conv", "linalg.depthwise", "linalg.pooling", "linalg.winograd")
_NOT_STRUCTURED = {"linalg.yield", "linalg.index", "linalg.pack", "linalg.unpack",
                   "linalg.softmax"}


_NAMED_ITERATORS = {
    "linalg.matmul": ("parallel", "parallel", "reduction"),
    "linalg.batch_matmul": ("parallel", "parallel", "parallel", "reduction"),
}


_NAMED_DEFAULT_MAPS = {
    "linalg.matmul": ((0, 2), (2, 1), (0, 1)),
    "linalg.batch_matmul": ((0, 1, 3), (0, 3, 2), (0, 1, 2)),
}


def is_structured(op: ir.Operation) -> bool:
    return op.name.startswith("linalg.") and op.name not in _NOT_STRUCTURED


def keeps_named_form(name: str) -> bool:
    """Named ops left as they are (not generalized): fill, generic itself,
    convolutions/pooling (plain path)."""
    return name in ("linalg.generic", "linalg.fill") or name.startswith(_KEEP_NAMED_PREFIXES)


def walk_ops(op: ir.Operation, out: list, pred) -> list:
    """Appends to `out` the ops nested in `op` (not `op` itself), in pre-order,
    for which `pred` is true; returns `out`. The walk is MLIR's (Operation.walk,
    ~3x faster than iterating regions and blocks from Python: ~0.19 s less CPU
    time in compiling LeNet5's train step, 2.3 s); an exception raised by
    `pred` propagates."""
    root = op.operation
    raised = []

    def visit(inner: ir.Operation) -> ir.WalkResult:
        try:
            if inner != root and pred(inner):
                out.append(inner)
        except Exception as e:  # noqa: BLE001  (re-raised below, as it was)
            raised.append(e)
            return ir.WalkResult.INTERRUPT
        return ir.WalkResult.ADVANCE
    root.walk(visit, ir.WalkOrder.PRE_ORDER)
    if raised:
        raise raised[0]
    return out


def static_tensor(t: ir.Type) -> ir.RankedTensorType | None:
    if not isinstance(t, ir.RankedTensorType):
        try:
            t = ir.RankedTensorType(t)
        except (ValueError, TypeError):
            return None
    return t if t.has_static_shape else None


def elem_bits(t: ir.Type) -> int | None:
    if isinstance(t, (ir.F32Type,)):
        return 32
    if isinstance(t, ir.F64Type):
        return 64
    if isinstance(t, (ir.F16Type, ir.BF16Type)):
        return 16
    if isinstance(t, ir.IntegerType):
        return t.width
    return None


@dataclass
class LoopInfo:
    """Iteration space of a linalg op with static shapes."""
    ranges: list[int]
    iterators: list[str]           # "parallel" / "reduction"
    maps: list[ir.AffineMap]       # inputs then outputs
    n_inputs: int
    elem_types: list[ir.Type]      # of the tensor operands (inputs then outputs)
    min_bits: int                  # smallest element width among the tensor operands
                                   # other than i1 (8 if all are i1)

    @property
    def rank(self) -> int:
        return len(self.ranges)


def _dims_of(m: ir.AffineMap) -> list[int | None]:
    return [r.position if isinstance(r, ir.AffineDimExpr) else None for r in m.results]


def loop_info(op: ir.Operation) -> LoopInfo | None:
    """Loop ranges etc. of a linalg op on static tensors (None if unknown,
    dynamic, not on tensors, or holding a type the vector path avoids: i1 is
    fine, bools are bytes in memory and masks in vectors)."""
    attrs = op.attributes
    try:
        if "indexing_maps" in attrs:
            maps = [ir.AffineMapAttr(a).value for a in attrs["indexing_maps"]]
        elif op.name in _NAMED_DEFAULT_MAPS:
            maps = [ir.AffineMap.get(len(_NAMED_ITERATORS[op.name]), 0,
                                     [ir.AffineDimExpr.get(d) for d in dims])
                    for dims in _NAMED_DEFAULT_MAPS[op.name]]
        else:
            return None
        if "iterator_types" in attrs:
            iterators = []
            for a in attrs["iterator_types"]:
                s = str(a)
                iterators.append("reduction" if "reduction" in s else
                                 "parallel" if "parallel" in s else s)
        elif op.name in _NAMED_ITERATORS:
            iterators = list(_NAMED_ITERATORS[op.name])
        else:
            return None
    except (ValueError, TypeError):
        return None
    if any(it not in ("parallel", "reduction") for it in iterators):
        return None
    n = len(iterators)
    operands = list(op.operands)
    if len(op.results) == 0 or len(maps) != len(operands):
        return None  # not on tensors (or unexpected form)
    n_outputs = len(op.results)
    ranges: list[int | None] = [None] * n
    elem_types = []
    min_bits = 64
    for v, m in zip(operands, maps):
        t = v.type
        if isinstance(t, (ir.RankedTensorType,)) or str(t).startswith("tensor<"):
            rt = static_tensor(t)
            if rt is None:
                return None
            bits = elem_bits(rt.element_type)
            if bits is None or (bits < 8 and bits != 1):
                return None
            if bits >= 8:
                # (i1 operands do not set the vector length: a mask next to f32
                # data is a vector<16xi1>, stored one byte per element)
                min_bits = min(min_bits, bits)
            elem_types.append(rt.element_type)
            for i, d in enumerate(_dims_of(m)):
                if d is not None:
                    ranges[d] = rt.shape[i]
        else:
            bits = elem_bits(t)
            if bits is None or (bits < 8 and bits != 1):
                return None
    if any(r is None for r in ranges):
        return None
    if min_bits == 64 and all(elem_bits(t) == 1 for t in elem_types):
        min_bits = 8  # bool only: byte lanes
    return LoopInfo(list(ranges), iterators, maps, len(operands) - n_outputs, elem_types, min_bits)


@dataclass
class MatmulInfo:
    m: int
    n: int
    k: int
    a_km: bool   # A stored as (k, m)
    b_nk: bool   # B stored as (n, k)
    fill_init: bool


def matmul_info(op: ir.Operation) -> MatmulInfo | None:
    """f32 C[m,n] += A[m,k] * B[k,n] (either operand possibly transposed) on
    static tensors, as linalg.matmul or an equivalent linalg.generic."""
    if op.name not in ("linalg.matmul", "linalg.generic"):
        return None
    li = loop_info(op)
    if li is None or li.rank != 3 or li.n_inputs != 2 or len(op.results) != 1:
        return None
    if li.iterators != ["parallel", "parallel", "reduction"]:
        return None
    if not all(isinstance(t, ir.F32Type) for t in li.elem_types):
        return None
    da, db, dc = (_dims_of(m) for m in li.maps)
    if dc != [0, 1] or da not in ([0, 2], [2, 0]) or db not in ([2, 1], [1, 2]):
        return None
    if op.name == "linalg.generic" and not _is_mul_add_body(op):
        return None
    fill_init = defining_op_name(op.operands[2]) == "linalg.fill"
    return MatmulInfo(li.ranges[0], li.ranges[1], li.ranges[2], da == [2, 0], db == [1, 2], fill_init)


def defining_op(v: ir.Value) -> ir.Operation | None:
    """The op producing `v`, or None for a block argument."""
    owner = v.owner
    if isinstance(owner, ir.Block):
        return None
    return owner.operation if hasattr(owner, "operation") else owner


def defining_op_name(v: ir.Value) -> str | None:
    op = defining_op(v)
    return op.name if op is not None else None


def _is_mul_add_body(op: ir.Operation) -> bool:
    block = op.regions[0].blocks[0]
    ops = [o.operation for o in block.operations]
    if len(ops) != 3 or ops[0].name != "arith.mulf" or ops[1].name != "arith.addf":
        return False
    a, b, c = block.arguments
    mul, add, yld = ops
    if {mul.operands[0], mul.operands[1]} != {a, b}:
        return False
    if {add.operands[0], add.operands[1]} != {mul.results[0], c}:
        return False
    return yld.operands[0] == add.results[0]


# Work (elements or multiply-adds) below which an op is not split across
# threads (scf.forall tasks -> OpenMP regions): below it, the region costs more
# than it saves. A region costs ~1-5 us with libomp's workers spinning.
# Measured on the 2-vCPU dev machine (f32 [n/512, 512], threads=2 vs 1, min
# of interleaved runs of separately compiled modules): relu(x + y) 2^14:
# 4.0 -> 4.6 us (loss), 2^16: 8.6 -> 7.3 us, 2^17: 22.7 -> 13.7 us, 2^19:
# 198 -> 94 us.
PARALLEL_MIN_WORK = 1 << 16

# The same for reductions (one read per element, no write: less work to
# split), e.g. a row sum: 2^16: 4.3 -> 4.4 us (loss), 2^17: 5.9 -> 5.6 us,
# 2^18: 11.2 -> 8.0 us, 2^19: 26 -> 16 us.
PARALLEL_MIN_WORK_REDUCTION = 1 << 17

# Default of the `min-work` options: top-level ops (and fused clusters) with a
# smaller iteration space keep the plain path; their scalar loops compile to
# much less code, LLVM's loop vectorizer still sees them, and they run in
# microseconds either way.
MIN_WORK = 8192


def fill_shape(op: ir.Operation) -> list[int] | None:
    """Result shape of a linalg.fill on a static tensor (None otherwise)."""
    rt = static_tensor(op.results[0].type) if op.results else None
    return None if rt is None else list(rt.shape)


def numel(op: ir.Operation) -> int:
    """Iteration-space size of a linalg op (for fills: result elements)."""
    if op.name == "linalg.fill":
        shape = fill_shape(op)
        ranges = shape if shape is not None else []
    else:
        li = loop_info(op)
        ranges = li.ranges if li is not None else []
    if not ranges and op.name != "linalg.fill":
        return 1 << 62  # unknown: let the strategy decide
    n = 1
    for r in ranges:
        n *= r
    return n


def in_block(op: ir.Operation, block: ir.Block) -> bool:
    """Whether op is directly in `block` (not nested in a loop or region op)."""
    parent = op.parent
    return parent is not None and parent == block.owner


def funcs(module: ir.Operation):
    """The func.func ops with a body at the top level of a module."""
    for op in module.regions[0].blocks[0].operations:
        if op.operation.name == "func.func" and op.operation.regions[0].blocks:
            yield op.operation
