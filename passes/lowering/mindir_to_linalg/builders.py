"""Shared IR builders for the mindir lowerings: broadcasting linalg.generic,
reductions, and scalar arith that picks the float or integer op."""
from __future__ import annotations

from typing import Callable, Sequence

from mlir import ir
from mlir.dialects import arith, func, linalg, tensor


def module_of(op) -> ir.Operation:
    """The builtin.module an op is nested in."""
    op = op.operation
    while op.name != "builtin.module":
        op = op.parent
    return op


def declare_function(module: ir.Operation, name: str, args: list, results: list,
                     attributes: dict | None = None) -> None:
    """`func.func private @name(args) -> results` (with `attributes`) unless the
    module has it: the runtime entries and helpers lowerings call."""
    body = module.regions[0].blocks[0]
    for o in body.operations:
        if o.operation.name == "func.func" and ir.StringAttr(o.attributes["sym_name"]).value == name:
            return
    with ir.InsertionPoint.at_block_begin(body), ir.Location.unknown():
        f = func.FuncOp(name, ir.FunctionType.get(args, results), visibility="private")
        for key, value in (attributes or {}).items():
            f.attributes[key] = value


def declare_i64_function(module: ir.Operation, name: str, n_args: int) -> None:
    """`func.func private @name(i64 x n_args)`: host callbacks, failed run-time checks."""
    declare_function(module, name, [ir.IntegerType.get_signless(64)] * n_args, [])


def tensor_type(v: ir.Value) -> ir.RankedTensorType:
    return ir.RankedTensorType(v.type)


def is_float(t: ir.Type) -> bool:
    return isinstance(t, (ir.F16Type, ir.BF16Type, ir.F32Type, ir.F64Type))


def empty(shape: Sequence[int], elem: ir.Type) -> ir.Value:
    return tensor.EmptyOp(list(shape), elem).result


def constant(elem: ir.Type, value) -> ir.Value:
    """A scalar arith.constant of `elem` type."""
    if is_float(elem):
        return arith.ConstantOp(elem, ir.FloatAttr.get(elem, float(value))).result
    return arith.ConstantOp(elem, ir.IntegerAttr.get(elem, int(value))).result


def fill(shape: Sequence[int], elem: ir.Type, value) -> ir.Value:
    init = empty(shape, elem)
    c = value if isinstance(value, ir.Value) else constant(elem, value)
    return fill_op(c, init)


def fill_op(value: ir.Value, init: ir.Value) -> ir.Value:
    """linalg.fill of `init` with the scalar `value`: the same op as the
    opdsl callable `linalg.fill(value, outs=[init])`, whose Python-side
    configuration costs ~0.3 ms a call (~30 fills in a train step), built
    here by the op class and its C++ region builder (~0.02 ms)."""
    op = linalg.FillOp([init.type], [value], [init])
    linalg.fill_builtin_region(op.operation)
    return op.result


_ITERATORS: dict = {}


def _iterator(it: str) -> ir.Attribute:
    """#linalg.iterator_type<it> (parsed once per context)."""
    ctx = ir.Context.current
    hit = _ITERATORS.get(it)
    if hit is None or hit[0] is not ctx:
        hit = _ITERATORS[it] = (ctx, ir.Attribute.parse(f"#linalg.iterator_type<{it}>"))
    return hit[1]


def drop_broadcast_dims(v: ir.Value, out_shape: Sequence[int]) -> tuple[ir.Value, list[int]]:
    """Right-aligns v against out_shape; collapses away the unit dims of v that
    broadcast. Returns the collapsed value and the output dims it indexes."""
    shape = tensor_type(v).shape
    off = len(out_shape) - len(shape)
    keep = [i for i, d in enumerate(shape) if not (d == 1 and out_shape[i + off] != 1)]
    if len(keep) == len(shape):
        return v, [i + off for i in keep]
    # Group every dropped unit dim with the next kept dim (or the previous one).
    groups: list[list[int]] = []
    pending: list[int] = []
    for i in range(len(shape)):
        pending.append(i)
        if i in keep:
            groups.append(pending)
            pending = []
    if pending and groups:
        groups[-1].extend(pending)
    elem = tensor_type(v).element_type
    new_type = ir.RankedTensorType.get([shape[i] for i in keep], elem)
    collapsed = tensor.CollapseShapeOp(new_type, v, ir.ArrayAttr.get([
        ir.ArrayAttr.get([ir.IntegerAttr.get(ir.IntegerType.get_signless(64), i) for i in g])
        for g in groups])).result
    return collapsed, [i + off for i in keep]


def generic(inputs: Sequence[ir.Value], input_dims: Sequence[Sequence[int]],
            out_shape: Sequence[int], out_elems: Sequence[ir.Type],
            body: Callable[..., Sequence[ir.Value]],
            iterators: Sequence[str] | None = None,
            out_dims: Sequence[Sequence[int]] | None = None,
            inits: Sequence[ir.Value] | None = None) -> list[ir.Value]:
    """linalg.generic over a loop nest of rank len(out_shape) (or len(iterators)).

    input_dims[i] lists the loop dims that index input i (a projected
    permutation); body(*scalars) returns the yielded scalars, where scalars are
    the input elements followed by the current output elements."""
    n = len(iterators) if iterators is not None else len(out_shape)
    iterators = iterators or ["parallel"] * n
    out_dims = out_dims or [list(range(n))] * len(out_elems)
    if inits is None:
        inits = [empty(out_shape, e) for e in out_elems]
    maps = [ir.AffineMap.get(n, 0, [ir.AffineDimExpr.get(d) for d in dims])
            for dims in list(input_dims) + list(out_dims)]
    iter_attr = ir.ArrayAttr.get([_iterator(it) for it in iterators])
    op = linalg.GenericOp([ir.Value(i).type for i in inits], list(inputs), list(inits),
                          ir.ArrayAttr.get([ir.AffineMapAttr.get(m) for m in maps]), iter_attr)
    arg_types = [tensor_type(v).element_type for v in inputs] + \
                [tensor_type(v).element_type for v in inits]
    block = op.regions[0].blocks.append(*arg_types)
    with ir.InsertionPoint(block):
        results = body(*block.arguments)
        if isinstance(results, ir.Value):
            results = [results]
        linalg.YieldOp(list(results))
    return list(op.results)


def elementwise(inputs: Sequence[ir.Value], result_type: ir.RankedTensorType,
                body: Callable[..., ir.Value]) -> ir.Value:
    """Broadcasting elementwise op: body(*input_scalars) -> result scalar."""
    out_shape = list(result_type.shape)
    collapsed, dims = zip(*[drop_broadcast_dims(v, out_shape) for v in inputs]) if inputs else ((), ())
    return generic(collapsed, dims, out_shape, [result_type.element_type],
                   lambda *args: body(*args[:len(inputs)]))[0]


def reassociation(groups: Sequence[Sequence[int]]) -> ir.ArrayAttr:
    """The reassociation attribute of tensor.expand_shape/collapse_shape."""
    i64 = ir.IntegerType.get_signless(64)
    return ir.ArrayAttr.get([ir.ArrayAttr.get([ir.IntegerAttr.get(i64, i) for i in g])
                             for g in groups])


def unit_dim_groups(out_rank: int, src_positions: Sequence[int]) -> list[list[int]]:
    """Reassociation groups for inserting unit dims: src dim k lands at output
    dim src_positions[k] (increasing); every other output dim (a unit dim)
    joins the group of the next src dim, trailing ones the last group."""
    groups: list[list[int]] = []
    pending: list[int] = []
    pos = set(src_positions)
    for j in range(out_rank):
        pending.append(j)
        if j in pos:
            groups.append(pending)
            pending = []
    if pending and groups:
        groups[-1].extend(pending)
    return groups


def expand_unit_dims(v: ir.Value, out_shape: Sequence[int],
                     src_positions: Sequence[int]) -> ir.Value:
    """tensor.expand_shape of v to out_shape, which is v's shape with unit dims
    inserted; src_positions[k] is the output dim of v's dim k. A 0-d v expands
    to all-unit out_shape."""
    src = tensor_type(v)
    if list(src.shape) == list(out_shape):
        return v
    rt = ir.RankedTensorType.get(list(out_shape), src.element_type)
    groups = unit_dim_groups(len(out_shape), src_positions)
    return tensor.ExpandShapeOp(rt, v, reassociation(groups), [],
                                ir.DenseI64ArrayAttr.get(list(out_shape))).result


def collapse_dims(v: ir.Value, groups: Sequence[Sequence[int]]) -> ir.Value:
    """tensor.collapse_shape of v merging each group of dims into one."""
    src = tensor_type(v)
    shape = list(src.shape)
    new_shape = []
    for g in groups:
        n = 1
        for d in g:
            n *= shape[d]
        new_shape.append(n)
    if len(new_shape) == len(shape):
        return v
    rt = ir.RankedTensorType.get(new_shape, src.element_type)
    return tensor.CollapseShapeOp(rt, v, reassociation(groups)).result


def broadcast_to(v: ir.Value, out_shape: Sequence[int]) -> ir.Value:
    """Materializes numpy broadcasting of v to out_shape with linalg.broadcast
    (after collapsing v's unit dims that broadcast); v itself if no-op."""
    src = tensor_type(v)
    if list(src.shape) == list(out_shape):
        return v
    collapsed, dims = drop_broadcast_dims(v, out_shape)
    init = empty(out_shape, src.element_type)
    added = [d for d in range(len(out_shape)) if d not in dims]
    r = linalg.broadcast(collapsed, outs=[init], dimensions=added)
    return r if isinstance(r, ir.Value) else r.results[0]


# --- counter-based random numbers (shared by dropout and the random ops) --------
#
# One generator for mindir.random_uniform, mindir.random_normal and
# mindir.dropout: element i of a random tensor is a pure function of
# (seed, stream, offset, i), so results do not depend on the schedule and are
# the same on every target. All arithmetic is on uint64, mod 2^64:
#
#   G = 0x9E3779B97F4A7C15                       (the splitmix64 increment)
#   mix(z): z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
#           z = (z ^ (z >> 27)) * 0x94D049BB133111EB
#           z ^ (z >> 31)                        (the splitmix64 finalizer)
#   s = mix(seed * G + stream + 1)               stream key, at compile time
#   k = mix(s + offset * G)                      tensor key, once per execution
#   h = mix(k + (i + 1) * G)                     element i (row-major linear index)
#   u = (h >> (64 - m)) * 2^-m                   uniform on [0, 1), exact in the type
#
# m is the float's mantissa precision (f16 11, bf16 8, f32 24, f64 53). The
# offset is the op's optional 0-d i64 operand (0 without one): the frontend
# feeds it a counter that advances at every execution, so a compiled graph draws
# new numbers on each run. The keys k of consecutive offsets are consecutive
# outputs of splitmix64 seeded by s, and the elements consecutive outputs of
# splitmix64 seeded by k. Streams: random_uniform 0, random_normal 1 and 2
# (the two uniforms of Box-Muller), dropout 3.

RNG_GAMMA = 0x9E3779B97F4A7C15
RNG_M1 = 0xBF58476D1CE4E5B9
RNG_M2 = 0x94D049BB133111EB
M64 = (1 << 64) - 1

STREAM_UNIFORM, STREAM_NORMAL_1, STREAM_NORMAL_2, STREAM_DROPOUT = 0, 1, 2, 3


def mix64(z: int) -> int:
    """The splitmix64 finalizer on Python ints (compile-time keys)."""
    z &= M64
    z = ((z ^ (z >> 30)) * RNG_M1) & M64
    z = ((z ^ (z >> 27)) * RNG_M2) & M64
    return z ^ (z >> 31)


def stream_key(seed: int, stream: int) -> int:
    """s = mix(seed * G + stream + 1), the compile-time key of (seed, stream)."""
    return mix64(seed * RNG_GAMMA + stream + 1)


def _i64_const(v: int) -> ir.Value:
    i64 = ir.IntegerType.get_signless(64)
    v &= M64
    if v >= 1 << 63:
        v -= 1 << 64
    return arith.ConstantOp(i64, ir.IntegerAttr.get(i64, v)).result


def _mix64_ir(z: ir.Value) -> ir.Value:
    for shift, mul in ((30, RNG_M1), (27, RNG_M2), (31, None)):
        z = arith.XOrIOp(z, arith.ShRUIOp(z, _i64_const(shift)).result).result
        if mul is not None:
            z = arith.MulIOp(z, _i64_const(mul)).result
    return z


def rng_key(seed: int, stream: int, offset: ir.Value | None):
    """The tensor key k of (seed, stream, offset). Without an offset operand it
    is a compile-time int; with one (a 0-d i64 tensor) an i64 value computed at
    the insertion point (call it outside the linalg.generic)."""
    s = stream_key(seed, stream)
    if offset is None:
        return mix64(s)
    o = tensor.ExtractOp(offset, []).result
    return _mix64_ir(arith.AddIOp(_i64_const(s),
                                  arith.MulIOp(o, _i64_const(RNG_GAMMA)).result).result)


def rng_offset(op) -> ir.Value | None:
    """The optional `offset` operand of a random op (None when absent)."""
    off = getattr(op, "offset", None)
    return off if isinstance(off, ir.Value) else None


def linear_index(shape: Sequence[int]) -> ir.Value:
    """Inside a linalg.generic body whose loops are the dims of `shape` (row-major):
    the i64 linear index of the current element."""
    idx_t = ir.IndexType.get()
    lin = None
    for d, size in enumerate(shape):
        i = linalg.IndexOp(ir.IntegerAttr.get(ir.IntegerType.get_signless(64), d)).result
        if lin is None:
            lin = i
        else:
            c = arith.ConstantOp(idx_t, ir.IntegerAttr.get(idx_t, size)).result
            lin = arith.AddIOp(arith.MulIOp(lin, c).result, i).result
    if lin is None:
        return _i64_const(0)
    return arith.IndexCastOp(ir.IntegerType.get_signless(64), lin).result


def hash_u64(key, index: ir.Value) -> ir.Value:
    """h = mix(key + (index + 1) * G) as i64 bits; key: an int or an i64 value
    (from rng_key), index: an i64 value."""
    k = key if isinstance(key, ir.Value) else _i64_const(key)
    step = arith.MulIOp(arith.AddIOp(index, _i64_const(1)).result,
                        _i64_const(RNG_GAMMA)).result
    return _mix64_ir(arith.AddIOp(k, step).result)


def uniform_bits(elem: ir.Type) -> int:
    """Random bits used for a uniform [0, 1) float of type elem (its precision)."""
    if isinstance(elem, ir.F16Type):
        return 11
    if isinstance(elem, ir.BF16Type):
        return 8
    if isinstance(elem, ir.F64Type):
        return 53
    return 24


def unit_uniform(h: ir.Value, bits: int, ct: ir.Type) -> ir.Value:
    """u = (h >> (64 - bits)) * 2^-bits in [0, 1), exactly, as float type ct."""
    top = arith.ShRUIOp(h, _i64_const(64 - bits)).result
    f = arith.UIToFPOp(ct, top).result
    return arith.MulFOp(f, constant(ct, 2.0 ** -bits)).result


def uniform_hash(key, index: ir.Value, elem: ir.Type) -> ir.Value:
    """A float of type elem, uniform on [0, 1), from hash_u64(key, index)."""
    return unit_uniform(hash_u64(key, index), uniform_bits(elem), elem)
