"""The structure of a compute kernel: `mskernel.fused` -> stages of linalg.generic.

A compute kernel's body is a sequence of *stages*, each one `linalg.generic`
with one result, plus the ops that make their init tensors (`tensor.empty`,
`linalg.fill` of a scalar constant) and scalar `arith.constant`s. `analyze`
turns it into `Kernel`/`Stage` records: operand tensors with their indexing
maps, iterator types, static loop extents and the scalar body as `expr.Node`s
(leaves `("read", k)` for input operand #k, `("out", 0)` for the accumulator).

It also classifies each stage's reduction: the body of a stage with reduction
loops must be `combine(out, f(reads))` with combine one of addf / maximumf /
maxnumf / minimumf / minnumf (what `reduce_sum/max/min` of the DSL produce), so
that the derivative of the reduced value is known.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from mlir import ir

from . import expr as E
from .expr import KernelADError, Node

COMBINERS = {
    "arith.addf": "sum",
    "arith.maximumf": "max",
    "arith.maxnumf": "max",
    "arith.minimumf": "min",
    "arith.minnumf": "min",
}


def bare_dims(m: ir.AffineMap) -> set[int]:
    """The loop dims that are a whole result of the map (`d3`, not `d3 + d1`)."""
    return {r.position for r in m.results if isinstance(r, ir.AffineDimExpr)}


@dataclass
class Source:
    """Where a tensor value of the kernel body comes from."""
    kind: str                 # "input" | "stage" | "fill" | "empty" | "other"
    index: int = -1           # input number / stage number
    fill: Node | None = None  # the scalar a fill writes


@dataclass
class Stage:
    index: int
    op: ir.Operation
    inputs: list[ir.Value]
    in_maps: list[ir.AffineMap]
    init: ir.Value
    out_map: ir.AffineMap
    iterators: list[str]
    extents: list[int]
    body: Node                 # the yielded element, in leaves read<k>/out
    combiner: str | None = None  # "sum" | "max" | "min" for reductions
    summand: Node | None = None  # f(reads) of `combine(out, f(reads))`, simplified
    raw_summand: Node | None = None  # ... exactly as the forward computes it
    result: ir.Value = None
    element_type: str = ""

    @property
    def reduction_dims(self) -> list[int]:
        return [d for d, it in enumerate(self.iterators) if it == "reduction"]

    @property
    def result_type(self) -> ir.Type:
        return self.result.type


@dataclass
class Kernel:
    op: ir.Operation
    args: list[ir.Value]          # block arguments (kernel inputs)
    stages: list[Stage]
    yields: list[ir.Value]
    sources: dict = field(default_factory=dict)  # ir.Value -> Source
    fdiff: dict = field(default_factory=dict)    # input index -> symbol name

    def source(self, v: ir.Value) -> Source:
        return self.sources.get(v, Source("other"))


def _iterator_kind(attr) -> str:
    s = str(attr)
    return "reduction" if "reduction" in s else "parallel"


def static_loop_extents(inputs, maps, n_dims) -> list[int]:
    extents = [None] * n_dims
    for v, m in zip(inputs, maps):
        shape = ir.RankedTensorType(v.type).shape if isinstance(v.type, ir.RankedTensorType) else None
        if shape is None:
            continue
        for pos, r in enumerate(m.results):
            if isinstance(r, ir.AffineDimExpr) and extents[r.position] is None:
                if shape[pos] < 0:
                    raise KernelADError("kernel-level AD needs static shapes")
                extents[r.position] = shape[pos]
    if any(e is None for e in extents):
        missing = [d for d, e in enumerate(extents) if e is None]
        raise KernelADError(f"the extent of loop dims {missing} cannot be inferred from the "
                            f"operand shapes")
    return extents


def analyze(fused) -> Kernel:
    """Parses a compute kernel (`mskernel.fused`) into stages."""
    op = fused.operation
    if op.name != "mskernel.fused":
        raise KernelADError(f"expected an mskernel.fused kernel, got '{op.name}'")
    block = op.regions[0].blocks[0]
    args = list(block.arguments)
    sources: dict = {}
    for i, a in enumerate(args):
        sources[a] = Source("input", i)
    consts: dict = {}
    stages: list[Stage] = []
    ops = list(block.operations)
    for inner in ops[:-1]:
        inner = inner.operation
        name = inner.name
        if name == "arith.constant":
            c = E.node_of_constant(inner)
            if c is not None:
                consts[inner.results[0]] = c
            continue
        if name == "tensor.empty":
            sources[inner.results[0]] = Source("empty")
            continue
        if name == "linalg.fill":
            scalar = inner.operands[0]
            c = consts.get(scalar)
            if c is None:
                raise KernelADError("linalg.fill of a non-constant scalar in a compute kernel")
            sources[inner.results[0]] = Source("fill", fill=c)
            continue
        if name == "linalg.generic":
            stages.append(_stage(len(stages), inner, consts))
            sources[inner.results[0]] = Source("stage", len(stages) - 1)
            continue
        raise KernelADError(f"'{name}' in a compute kernel: kernel-level AD handles bodies made "
                            f"of linalg.generic stages (with tensor.empty / linalg.fill inits)")
    yields = list(ops[-1].operands)
    k = Kernel(op, args, stages, yields, sources)
    if "mskernel.fdiff" in op.attributes:
        d = ir.DictAttr(op.attributes["mskernel.fdiff"])
        for i in range(len(d)):
            na = d[i]
            if not na.name.startswith("in"):
                raise KernelADError(f"bad mskernel.fdiff key '{na.name}' (expected in<N>)")
            k.fdiff[int(na.name[2:])] = ir.FlatSymbolRefAttr(na.attr).value
    return k


def _stage(index: int, op: ir.Operation, consts: dict) -> Stage:
    n_in = len(op.operands) - len(op.results)
    if len(op.results) != 1:
        raise KernelADError("kernel-level AD handles linalg.generic stages with one result")
    maps = [ir.AffineMapAttr(a).value for a in ir.ArrayAttr(op.attributes["indexing_maps"])]
    iters = [_iterator_kind(a) for a in ir.ArrayAttr(op.attributes["iterator_types"])]
    inputs = list(op.operands[:n_in])
    init = op.operands[n_in]
    out_map = maps[n_in]
    if not out_map.is_projected_permutation:
        raise KernelADError("a stage whose output indexing map is not a projected permutation")
    block = op.regions[0].blocks[0]
    env = {a: E.leaf(("read", k), str(a.type)) for k, a in enumerate(list(block.arguments)[:n_in])}
    out_leaf = E.leaf(("out", 0), str(block.arguments[n_in].type))
    env[block.arguments[n_in]] = out_leaf
    env.update(consts)
    (body,) = E.parse_block(block, env)
    extents = static_loop_extents(inputs + [init], maps, len(iters))
    st = Stage(index, op, inputs, maps[:n_in], init, out_map, iters, extents, body,
               result=op.results[0], element_type=str(block.arguments[n_in].type))
    if st.reduction_dims:
        uses_out = ("out", 0) in E.leaves(body)
        if not uses_out:
            raise KernelADError("a reduction stage whose body ignores its accumulator")
        comb = COMBINERS.get(body.name)
        if comb is None or len(body.args) != 2:
            raise KernelADError(f"unsupported reduction: the body must be combine(out, f(...)) with "
                                f"combine one of {sorted(COMBINERS)}, got {E.to_text(body)}")
        a, b = body.args
        if a == out_leaf and ("out", 0) not in E.leaves(b):
            st.summand = b
        elif b == out_leaf and ("out", 0) not in E.leaves(a):
            st.summand = a
        else:
            raise KernelADError(f"unsupported reduction body {E.to_text(body)}: the accumulator "
                                f"must appear once, as an operand of the combiner")
        st.combiner = comb
        st.raw_summand = st.summand
        st.summand = E.simplify(st.summand)
    else:
        st.body = E.simplify(body)
    return st
