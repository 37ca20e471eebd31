"""The Ascend C plan of one vector kernel (no pass): analysis of an outlined
kernel's linalg-on-tensors body into the Ascend C programming model.

A vector kernel (elementwise, broadcast, last-axis reductions: softmax,
layernorm, B1-style chains) is seen as a 2-D problem after unit dims are
dropped: an iteration domain D = outer x inner, split at `s` (the first
reduced dim, or the smallest split at which every operand reads all inner
dims or none). R = prod(outer) rows of C = prod(inner) elements. Every tensor
value has a role:

    full    R x C, read elementwise                    (x, y, exp(x - max))
    row     R, one value per row (reductions, [R,1])   (max, sum, mean, rstd)
    col     C, the same row for every row              (gamma, beta, a bias)
    scalar  one value                                  (constants, tensor<f32> args)

The work is cut into tiles of `rb` rows x `cb` columns (cb = C when a row
fits in UB, always when the kernel reduces; else rb = 1 and rows are
chunked), tiles are split evenly over blockDim cores (GetBlockIdx), and
every tile runs CopyIn (GM -> VECIN queues, depth 2 = double buffering) /
Compute (vector instructions on UB, one per scalar op of each linalg body)
/ CopyOut (VECOUT queues -> GM). Rows are stored in UB at a pitch padded to
32 bytes; copies whose length is not a multiple of 32 bytes use
DataCopyPad, the others DataCopy. Intermediate values live in TBuf slots
reused by liveness. Tile sizes are solved from the UB budget of the
target's memory model (passes/poly/targets.py, `Ascend`).

Reductions over the first axes (bias gradients) use the "col" mode: column
chunks split over the cores, each accumulated over all rows. i1 values are
f32 0/1 masks in UB (uint8 in GM); i32 inputs (labels) are converted to f32.

f16 tensors are half in GM and in their queues, Cast to f32 in UB; each
f16-typed op is computed in f32 and rounded to f16 (Cast to half and back),
exactly half arithmetic for + - * / sqrt (f32 has more than 2 x 11 + 2 bits).

Anything else (middle-axis or mixed reductions, transposed or strided
access in vector kernels, convolutions and pooling windows, f64/i64,
f16 in column-mode kernels, f16 sums accumulated in f16,
i32 results, gathers) raises `Unsupported` with the reason; convolutions,
pooling and outer+inner sums have planners of their own (conv.py, pool.py,
split.py), the rest goes to the scalar fallback or, with fallback=false, is
an error at the kernel.

The Ascend level is MLIR: to_ascendc.py turns a vector plan into an
`ascendc.kernel` op (dialects/AscendC.td: queues with depth, TBufs,
CopyIn/Compute/CopyOut stages, DataCopy/DataCopyPad with block parameters,
vector instructions with counts, the tile split over cores), checked by the
dialect's verifiers and printed by emit_ascendc.py. The planners' statements
(`compute`, `row_pre`, `finish`) are stmt.py records, one Ascend C call each.
Cube, transpose, data-movement, pooling and scalar kernels are not on that
IR yet: they are emitted from their plans.
"""
from __future__ import annotations

import math
import struct
from dataclasses import dataclass, field

from mlir import ir

from ..common.linalg import loop_info

F32 = 4
ALIGN = 32
LANES = ALIGN // F32          # f32 elements per 32-byte block


class Unsupported(Exception):
    """The kernel is outside what the Ascend emitter handles (message: why)."""


def align_up(n: int, a: int = LANES) -> int:
    return (n + a - 1) // a * a


def f32_literal(v: float) -> str:
    """A C++ float literal that round-trips `v` bit for bit."""
    if math.isnan(v):
        return "NAN"
    if math.isinf(v):
        return "INFINITY" if v > 0 else "-INFINITY"
    v = struct.unpack("f", struct.pack("f", v))[0]
    text = repr(float(v))
    if "e" not in text and "." not in text and "inf" not in text:
        text += ".0"
    return text + "f"


# ----------------------------------------------------------------------------- data model
@dataclass
class Value:
    """A tensor (or scalar) value of the kernel."""
    name: str
    role: str                      # full | row | col | scalar
    kind: str                      # input | output | temp | const | scalar_in
    index: int = -1                # argument / result index
    const: float | None = None     # const scalars
    slot: str | None = None        # C++ local of its UB storage
    aliases: list = field(default_factory=list)
    dtype: str = "f32"             # f32 | u8 (i1 tensors in GM) | i32 | f16
    data: list | None = None       # non-splat constants (col role): the values


@dataclass
class Tiling:
    R: int
    C: int
    rb: int
    cb: int
    nct: int                       # column tiles per row
    tiles: int
    block_dim: int
    tiles_per_core: int

    @property
    def pitch(self) -> int:
        return align_up(self.cb)


def tiling_values(t: Tiling) -> dict:
    """The host tiling data of a vector kernel (TILING_DATA_FIELD_DEF order)."""
    return {"totalRows": t.R, "rowLen": t.C, "tileRows": t.rb, "tileCols": t.cb, "colTiles": t.nct,
            "tileNum": t.tiles, "tilesPerCore": t.tiles_per_core, "blockDim": t.block_dim}


@dataclass
class Plan:
    kernel: str                    # Ascend kernel symbol
    func: str                      # the kernel function's name in the module
    kind: str
    inputs: list                   # [(Value, numel)] in argument order
    outputs: list                  # [(Value, numel)] in result order
    tiling: Tiling
    full_slots: int
    row_slots: int
    reduces: bool
    compute: list                  # C++ statements of Compute() (tile body)
    row_pre: list                  # col mode: statements run at the start of each column chunk
    scalars: list                  # [(c++ name, input index)] scalar GM inputs
    cols: list                     # [(Value, input index)]
    double_buffer: bool = True
    soc: str = "Ascend910B"
    ub_bytes: int = 0
    vec_ops: list = field(default_factory=list)   # [(api, count class)] per tile, cost model
    scalar_ops: int = 0            # GetValue/SetValue per row, cost model
    shapes: dict = field(default_factory=dict)    # io shapes (host side)
    cube: dict | None = None       # matmul kernels: m, n, k, base sizes
    report: dict | None = None     # cost.report(), set by lower_module
    mode: str = "row"              # row: reductions over the last axes; col: over the first axes
    finish: list = field(default_factory=list)    # col mode: statements after a column chunk's rows
    col_slots: int = 0             # col mode: TBuf slots of one column chunk
    transpose: dict | None = None  # transpose kernels (group.py): tiling
    scalar: dict | None = None     # scalar-fallback kernels (scalar.py): tiling, body, reason
    parts: list | None = None      # groups (group.py): [(plan, inputs, outputs)], each an
                                   # ("arg", i) / ("ws", j) / ("out", k)
    workspaces: list = field(default_factory=list)  # groups: GM workspace shapes
    col_consts: list = field(default_factory=list)  # [Value] non-splat constant columns (static arrays)
    masks: bool = False            # i1 values: f32 0/1 masks in UB, Compare/Select, u8 <-> f32 casts
    halves: bool = False           # f16 values: half queues, Cast f16 <-> f32, a half rounding buffer
    dma: dict | None = None        # data-movement kernels (conv.py: im2col, permute): tiling, copies
    pool: dict | None = None       # pooling kernels (pool.py): tiling, window, gather tables
    ir: object = None              # vector kernels: the ascendc.kernel op (to_ascendc.py), the emitter's input


# ----------------------------------------------------------------------------- analysis helpers
def _norm_shape(t: ir.Type) -> list[int]:
    st = ir.RankedTensorType(t)
    if not st.has_static_shape:
        raise Unsupported(f"dynamic shape {t}")
    if not (isinstance(st.element_type, ir.F32Type) or is_bool(t) or is_i32(t) or is_f16(t)):
        raise Unsupported(f"element type {st.element_type} (only f32, f16, i32 and i1 are emitted)")
    return [d for d in st.shape if d != 1]


def is_i32(t: ir.Type) -> bool:
    """An i32 tensor: int32 in GM, converted to f32 in UB (exact below 2**24: labels, indices)."""
    et = ir.RankedTensorType(t).element_type
    return isinstance(et, ir.IntegerType) and ir.IntegerType(et).width == 32


def is_f16(t: ir.Type) -> bool:
    """An f16 tensor: half in GM and in its UB queue, Cast to/from f32 in UB (f16 ops are
    computed in f32 and rounded to f16 after each op: for + - * / sqrt exactly what native
    half arithmetic gives)."""
    return isinstance(ir.RankedTensorType(t).element_type, ir.F16Type)


def is_bool(t: ir.Type) -> bool:
    """An i1 tensor: uint8 0/1 in GM (numpy bool), widened to an f32 0/1 mask in UB."""
    et = ir.RankedTensorType(t).element_type
    return isinstance(et, ir.IntegerType) and ir.IntegerType(et).width == 1


def _numel(t: ir.Type) -> int:
    return math.prod(ir.RankedTensorType(t).shape)


def _norm_generic(op: ir.Operation):
    """(domain without unit dims, iterators, per operand: list of normalized dims)."""
    li = loop_info(op)
    if li is None:
        raise Unsupported(f"'{op.name}' without a static iteration space")
    keep = [i for i, r in enumerate(li.ranges) if r != 1]
    renum = {d: i for i, d in enumerate(keep)}
    dom = [li.ranges[i] for i in keep]
    its = [li.iterators[i] for i in keep]
    accesses = []
    for v, m in zip(op.operands, li.maps):
        shape = ir.RankedTensorType(v.type).shape if isinstance(v.type, ir.RankedTensorType) else []
        dims = []
        for i, e in enumerate(m.results):
            if shape and shape[i] == 1:
                continue
            if not isinstance(e, ir.AffineDimExpr):
                raise Unsupported(f"non-projected operand access {m} in '{op.name}'")
            dims.append(renum[e.position])
        accesses.append(dims)
    return dom, its, accesses


_BINARY = {"arith.addf": "Add", "arith.subf": "Sub", "arith.mulf": "Mul", "arith.divf": "Div",
           "arith.maximumf": "Max", "arith.minimumf": "Min", "arith.maxnumf": "Max",
           "arith.minnumf": "Min"}
_UNARY = {"math.exp": "Exp", "math.log": "Ln", "math.absf": "Abs", "math.sqrt": "Sqrt",
          "math.rsqrt": "Rsqrt", "math.tanh": "Tanh", "math.erf": "Erf", "math.log1p": "Log1p",
          "math.sin": "Sin", "math.cos": "Cos", "math.floor": "Floor", "math.ceil": "Ceil"}
_SCALAR_FORM = {"Add": "Adds", "Mul": "Muls", "Max": "Maxs", "Min": "Mins"}
_COMBINERS = {"arith.addf": ("ReduceSum", 0.0), "arith.maximumf": ("ReduceMax", -math.inf),
              "arith.maxnumf": ("ReduceMax", -math.inf), "arith.minimumf": ("ReduceMin", math.inf),
              "arith.minnumf": ("ReduceMin", math.inf)}


def _const_scalar(v: ir.Value) -> float | None:
    """The value of an f32 arith.constant (scalar or splat tensor), or of a linalg.fill of one."""
    owner = v.owner
    if isinstance(owner, ir.Block):
        return None
    op = owner.operation if hasattr(owner, "operation") else owner
    if op.name == "arith.constant":
        a = op.attributes["value"]
        if isinstance(a, ir.FloatAttr):
            return ir.FloatAttr(a).value
        if isinstance(a, ir.DenseElementsAttr) and ir.DenseElementsAttr(a).is_splat:
            s = ir.DenseElementsAttr(a).get_splat_value()
            if isinstance(s, ir.FloatAttr):
                return ir.FloatAttr(s).value
        return None
    if op.name == "linalg.fill":
        return _const_scalar(op.operands[0])
    return None


def _dense_values(v: ir.Value) -> list | None:
    """The elements of a small non-splat arith.constant (f32 or i32) as floats."""
    owner = v.owner
    if isinstance(owner, ir.Block):
        return None
    op = owner.operation if hasattr(owner, "operation") else owner
    if op.name != "arith.constant" or not isinstance(op.attributes["value"], ir.DenseElementsAttr):
        return None
    import numpy as np
    arr = np.array(ir.DenseElementsAttr(op.attributes["value"]))
    if arr.size > 4096 or arr.dtype not in (np.float32, np.int32):
        return None
    if arr.dtype == np.int32 and np.abs(arr).max(initial=0) >= 2 ** 24:
        return None
    return [float(x) for x in arr.reshape(-1)]


# ----------------------------------------------------------------------------- the planner
class _Planner:
    def __init__(self, fn: ir.Operation, kernel: str, soc_model, cores: int, soc: str,
                 tile_elems: int):
        self.fn, self.kernel, self.model, self.cores, self.soc = fn, kernel, soc_model, cores, soc
        self.tile_elems = tile_elems
        self.block = fn.regions[0].blocks[0]
        self.values: dict = {}        # ir.Value (hashable) -> Value
        self.generics = []
        self.tmp_counter = 0

    # --- structure ------------------------------------------------------------------------
    def analyse(self):
        ops = [op.operation for op in self.block.operations]
        allowed = {"arith.constant", "tensor.empty", "linalg.fill", "linalg.generic",
                   "tensor.expand_shape", "tensor.collapse_shape", "func.return"}
        for op in ops:
            if op.name not in allowed:
                raise Unsupported(f"'{op.name}' in a vector kernel")
            if op.name == "linalg.generic":
                self.generics.append((op, *_norm_generic(op)))
        if not self.generics:                      # a pure copy (flatten, reshape of an argument)
            sizes = {_numel(v.type) for v in ops[-1].operands}
            if len(sizes) != 1:
                raise Unsupported("no linalg.generic to compute")
            self.D, self.s, self.n, self.mode, self.reduces = [sizes.pop()], 0, 1, "row", False
            self.R, self.C = 1, self.D[0]
            return
        n = max(len(g[1]) for g in self.generics)
        doms = {tuple(g[1]) for g in self.generics if len(g[1]) == n}
        if len(doms) != 1:
            raise Unsupported(f"generics over different iteration spaces {sorted(doms)}")
        self.D = list(doms.pop())
        red = set()
        for op, dom, its, acc in self.generics:
            r = {i for i, it in enumerate(its) if it == "reduction"}
            if r and len(dom) != n:
                raise Unsupported("a reduction over a lower-rank iteration space")
            red |= r
        self.mode = "row"
        if red:
            s = min(red)
            if red == set(range(s, n)):
                pass                                   # last axes: one row per reduced value
            elif red == set(range(max(red) + 1)):      # first axes: columns accumulated over rows
                s = max(red) + 1
                self.mode = "col"
            else:
                raise Unsupported(f"reduction over dims {sorted(red)} of {self.D}: only reductions "
                                  "over the innermost (last) or the outermost (first) axes are emitted")
            for op, dom, its, acc in self.generics:
                r = {i for i, it in enumerate(its) if it == "reduction"}
                if r and r != red:
                    raise Unsupported("reductions over different axes in one kernel")
        else:
            s = self._choose_split(n)
        low_dom = self.D[:s] if self.mode == "row" else self.D[s:]
        for op, dom, its, acc in self.generics:
            if len(dom) != n and dom != low_dom:
                raise Unsupported(f"generic over {dom} next to a domain {self.D} split at {s}")
        self.s, self.n = s, n
        self.R, self.C = math.prod(self.D[:s]), math.prod(self.D[s:])
        self.reduces = bool(red)

    def _choose_split(self, n: int) -> int:
        for s in range(n + 1):
            inner = list(range(s, n))
            ok = True
            for op, dom, its, acc in self.generics:
                if len(dom) != n:
                    continue
                for a in acc:
                    ins = [d for d in a if d >= s]
                    if ins and ins != inner:
                        ok = False
                    outs = [d for d in a if d < s]
                    if ins and a != outs + ins:
                        ok = False
            if ok:
                return s
        raise Unsupported("no split of the iteration space reads every operand as whole rows "
                          "(transposed operand)")

    def role_of_access(self, dims: list[int], dom_rank: int) -> str:
        s, n = self.s, self.n
        if self.mode == "col":
            if dom_rank == n and dims == list(range(n)):
                return "full"
            if dom_rank == n and dims == list(range(s, n)):
                return "col"
            if dom_rank != n and dims == list(range(n - s)):
                return "col"
            if not dims:
                return "scalar"
            raise Unsupported(f"operand access {dims} of a {dom_rank}-d domain (columns from dim {s})")
        if dom_rank == n:
            if dims == list(range(n)):
                return "full"
            if s > 0 and dims == list(range(s)):
                return "row"
            if s < n and dims == list(range(s, n)):
                return "col" if s > 0 else "full"
            if not dims:
                return "scalar"
        else:
            if dims == list(range(s)):
                return "row" if s > 0 else "scalar"
            if not dims:
                return "scalar"
        raise Unsupported(f"operand access {dims} of a {dom_rank}-d domain split at {s}")

    # --- values -----------------------------------------------------------------------------
    def val(self, v: ir.Value) -> Value:
        return self.values[v]

    def bind(self, v: ir.Value, role: str) -> Value:
        if v in self.values:
            got = self.values[v]
            if got.role != role and got.role != "scalar":
                if {got.role, role} <= {"row", "scalar"} and self.R == 1:
                    return got
                if {got.role, role} <= {"full", "col"} and self.R == 1:
                    return got
                raise Unsupported(f"value used both as {got.role} and as {role}")
            return got
        c = _const_scalar(v)
        if c is not None:
            x = Value(f"c{len(self.values)}", "scalar", "const", const=c)
        elif role == "col" and _dense_values(v) is not None:
            x = Value(f"kc{len(self.values)}", "col", "cconst", data=_dense_values(v))
        else:
            raise Unsupported("a value the emitter cannot place")
        self.values[v] = x
        return x


# soc -> (vector cores, cube cores)
SOCS = {"Ascend910B": (48, 24), "Ascend910B3": (40, 20), "Ascend910B4": (40, 20), "Ascend310P": (8, 8)}


def camel(kernel: str) -> str:
    """'ascend_reduce_softmax' -> 'AscendReduceSoftmax' (operator / class names)."""
    return "".join(w[:1].upper() + w[1:] for w in kernel.split("_") if w)


def kind_of(fn) -> str:
    """The case name of a kernel function's `mskernel.kind` ('opaque' when absent)."""
    if "mskernel.kind" not in fn.attributes:
        return "opaque"
    t = str(fn.attributes["mskernel.kind"])
    return t[t.index("<") + 1:t.rindex(">")]


def erase_dead_ops(block) -> None:
    """Erases the ops of `block` (its terminator kept) whose results have no
    uses, until none is left: what remains of a kernel body after one of its
    values became a block argument (conv.py, split.py cut kernels in two)."""
    changed = True
    while changed:
        changed = False
        for op in reversed([o.operation for o in block.operations][:-1]):
            if all(len(list(r.uses)) == 0 for r in op.results):
                op.erase()
                changed = True
