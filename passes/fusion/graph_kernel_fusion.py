"""mindir-graph-kernel-fusion: clusters of mindir ops -> `mskernel.fused` kernels.

The entrance of the kernel level (MindSpore's graph-kernel fusion, done on
MLIR). Run after mindir-autodiff and mindir-expand-composites, so the forward
and the backward of a network, expanded into basic ops, are clustered
together. Every compute op of every block ends up in exactly one
`mskernel.fused` op (a singleton when nothing fuses with it); what stays in
the host graph is control flow, calls, host callbacks, parameter writes and
constants. `mskernel-outline-kernels` then turns each kernel into a function.

Op patterns, as MindSpore's splitter model: elementwise (incl. broadcasting
binary ops, casts, selects, compares) and layout ops (reshape, transpose,
broadcast_to, ...) fuse freely; a reduction fuses with its producers and its
elementwise consumers, and reductions share a kernel only when they reduce
the same shape over the same axes (softmax's max and sum); matmul and conv
are anchors: one per kernel, joined by their elementwise epilogues (bias,
activation, scaling, the relu mask of the backward), never by a reduction.
Transposes around a 2-D matmul are folded into its transpose flags first
(the legal prologue/epilogue fusion of a transpose). Independent elementwise
kernels of one block are then fused horizontally (`horizontal` at most per
kernel: a network's parameter updates become a few kernels).

Cycle-free by construction: two groups merge only when no path between them
runs through a third. The cost model bounds a kernel's size (`max-ops`) and
never recomputes: a value used outside its kernel becomes an extra kernel
result (only small constants are copied into the kernels that use them).
With `enable=false` every compute op is its own kernel (the A/B baseline,
`set_context(enable_graph_kernel=False)`). `kind` is the kernel's dominant
pattern (conv > matmul > reduce > broadcast > elemwise; opaque for a lone op
of no pattern), which the scheduler reads.
"""
from __future__ import annotations

import heapq
import math

from mlir import ir

from msmlir.dialects import mindir

from ..autodiff.engine import is_ancestor
from ..common.linalg import funcs
from ..registry import Option, register_pass
from .kernel_attrs import kind_attr, target_attr

ELEMENTWISE = frozenset(f"mindir.{n}" for n in """
    neg abs sign square relu exp log log1p expm1 sqrt rsqrt reciprocal sin cos tanh sigmoid
    erf softplus silu floor ceil round stop_gradient leaky_relu gelu logical_not isnan
    isfinite cast add sub mul div floor_div mod pow maximum minimum equal not_equal less
    less_equal greater greater_equal logical_and logical_or select clamp zeros_like ones_like
    """.split())
LAYOUT = frozenset(f"mindir.{n}" for n in
                   "reshape expand_dims squeeze flatten transpose broadcast_to".split())
REDUCE = frozenset(f"mindir.{n}" for n in
                   "reduce_sum reduce_mean reduce_max reduce_min reduce_prod".split())
MATMUL = frozenset({"mindir.matmul", "mindir.batch_matmul"})
CONV = frozenset({"mindir.conv2d", "mindir.conv2d_backprop_input",
                  "mindir.conv2d_backprop_filter"})
# mindir ops that stay in the host graph: ordering, parameter writes, Python.
HOST = frozenset({"mindir.host_callback", "mindir.assign", "mindir.depend", "mindir.grad",
                  "mindir.constant"})
PURE_HOST = frozenset({"mindir.constant", "mskernel.fused"})   # free to move
SMALL_CONSTANT = 64   # constants of at most this many elements (or splats) are copied into kernels

_RANK = {"elemwise": 0, "broadcast": 1, "reduce": 2, "matmul": 3, "conv": 4}


def _numel(t: ir.Type) -> int:
    return math.prod(ir.RankedTensorType(t).shape) if isinstance(t, ir.RankedTensorType) else 1


def _pattern(op: ir.Operation) -> str | None:
    """The op's fusion pattern, or None for ops that stay in the host graph."""
    name = op.name
    if not name.startswith("mindir.") or name in HOST:
        return None
    if not op.results or not all(isinstance(r.type, ir.RankedTensorType) for r in op.results):
        return None
    if name in CONV:
        return "conv"
    if name in MATMUL:
        return "matmul"
    if name in REDUCE:
        return "reduce"
    if name in ELEMENTWISE or name in LAYOUT:
        out = ir.RankedTensorType(op.results[0].type).shape
        broadcasts = name == "mindir.broadcast_to" or any(
            isinstance(v.type, ir.RankedTensorType) and ir.RankedTensorType(v.type).shape != out
            for v in op.operands) and name not in LAYOUT
        return "broadcast" if broadcasts else "elemwise"
    return "opaque"


def _reduce_signature(op: ir.Operation) -> tuple:
    """What a reduction walks: its input shape and axes (kernels mix only equal ones)."""
    shape = tuple(ir.RankedTensorType(op.operands[0].type).shape)
    axes = tuple(ir.DenseI64ArrayAttr(op.attributes["axes"])) if "axes" in op.attributes else ()
    rank = len(shape)
    return shape, tuple(sorted(a % rank for a in axes)) if axes else tuple(range(rank))


def _small_constant(op: ir.Operation) -> bool:
    if op.name != "mindir.constant":
        return False
    value = op.attributes["value"]
    return _numel(op.results[0].type) <= SMALL_CONSTANT or (
        isinstance(value, ir.DenseElementsAttr) and ir.DenseElementsAttr(value).is_splat)


# ------------------------------------------------------------------ transpose folding

def _transpose_2d(v: ir.Value) -> ir.Value | None:
    """x when v = mindir.transpose(x, perm=[1, 0]), else None."""
    owner = v.owner
    if not isinstance(owner, ir.OpView) or owner.operation.name != "mindir.transpose":
        return None
    perm = list(ir.DenseI64ArrayAttr(owner.operation.attributes["perm"]))
    return owner.operation.operands[0] if perm == [1, 0] else None


def _flag(op: ir.Operation, name: str) -> bool:
    return name in op.attributes and ir.BoolAttr(op.attributes[name]).value


def _matmul(a, b, ta: bool, tb: bool, like: ir.Operation) -> ir.Value:
    with ir.InsertionPoint(like), like.location:
        return mindir.matmul(a, b, transpose_a=ir.BoolAttr.get(ta), transpose_b=ir.BoolAttr.get(tb))


def fold_transposes(block: ir.Block) -> None:
    """matmul(transpose(a), b) -> matmul(a, b, transpose_a) (either operand) and
    transpose(matmul(a, b)) -> matmul(b, a) with the flags swapped and flipped."""
    for op in list(block.operations):
        op = op.operation
        if op.name != "mindir.matmul":
            continue
        a, b = op.operands[0], op.operands[1]
        ta, tb = _flag(op, "transpose_a"), _flag(op, "transpose_b")
        xa, xb = _transpose_2d(a), _transpose_2d(b)
        if xa is None and xb is None:
            new_op = op
        else:
            dead = [v.owner.operation for v, x in ((a, xa), (b, xb)) if x is not None]
            a, ta = (xa, not ta) if xa is not None else (a, ta)
            b, tb = (xb, not tb) if xb is not None else (b, tb)
            new = _matmul(a, b, ta, tb, op)
            op.results[0].replace_all_uses_with(new)
            op.erase()
            new_op = new.owner.operation
            for t in dead:
                if not list(t.results[0].uses):
                    t.erase()
        uses = list(new_op.results[0].uses)
        t = uses[0].owner.operation if len(uses) == 1 else None
        if t is not None and t.name == "mindir.transpose" and _transpose_2d(t.results[0]) is not None:
            swapped = _matmul(b, a, not tb, not ta, t)
            t.results[0].replace_all_uses_with(swapped)
            t.erase()
            new_op.erase()


# ------------------------------------------------------------------ clustering

class _Clusters:
    """Union-find over the ops of one block, with the facts the merge rules need."""

    def __init__(self, ops: list[ir.Operation], max_ops: int):
        self.ops = ops
        self.max_ops = max_ops
        self.index = {op: i for i, op in enumerate(ops)}
        self.parent = list(range(len(ops)))
        self.pattern = [_pattern(op) for op in ops]
        self.members = {i: [i] for i in range(len(ops))}
        self.reduces = {i: ({_reduce_signature(op)} if self.pattern[i] == "reduce" else set())
                        for i, op in enumerate(ops)}
        self.succ = [set() for _ in ops]
        self.pred = [set() for _ in ops]
        for i, op in enumerate(ops):
            for r in op.results:
                for use in r.uses:
                    j = self._top(use.owner)
                    if j is not None and j != i:
                        self.succ[i].add(j)
                        self.pred[j].add(i)
        # Host ops that may have effects (calls, callbacks, writes, control
        # flow) keep their order: an edge from each to the next.
        ordered = [i for i, op in enumerate(ops)
                   if self.pattern[i] is None and op.name not in PURE_HOST]
        for i, j in zip(ordered, ordered[1:]):
            self.succ[i].add(j)
            self.pred[j].add(i)

    def _top(self, owner) -> int | None:
        """Index of the op of this block that contains `owner` (a user nested in a region)."""
        op = owner.operation if isinstance(owner, ir.OpView) else owner
        while op is not None:
            i = self.index.get(op)
            if i is not None:
                return i
            parent = op.parent
            op = parent.operation if parent is not None else None
        return None

    def find(self, i: int) -> int:
        while self.parent[i] != i:
            self.parent[i] = self.parent[self.parent[i]]
            i = self.parent[i]
        return i

    def fusible(self, i: int) -> bool:
        return self.pattern[i] not in (None, "opaque")

    def anchors(self, root: int) -> int:
        return sum(self.pattern[m] in ("matmul", "conv") for m in self.members[root])

    def kind(self, root: int) -> str:
        pats = [self.pattern[m] for m in self.members[root]]
        if pats == ["opaque"]:
            return "opaque"
        return max(pats, key=_RANK.__getitem__)

    def _reaches(self, src: int, dst: int) -> bool:
        """A path src -> ... -> dst through at least one other group. Every
        op-level edge goes forward in block order, so a group whose first op
        comes after dst's last op cannot lead to dst (this keeps long chains
        linear)."""
        last = self.members[dst][-1]
        start = {self.find(j) for m in self.members[src] for j in self.succ[m]} - {src, dst}
        stack = [g for g in start if self.members[g][0] < last]
        seen = set(stack)
        while stack:
            g = stack.pop()
            for m in self.members[g]:
                for j in self.succ[m]:
                    r = self.find(j)
                    if r == dst:
                        return True
                    if r not in seen and r != src and self.members[r][0] < last:
                        seen.add(r)
                        stack.append(r)
        return False

    def compatible(self, a: int, b: int) -> bool:
        """The pattern rules and the size bound of one kernel holding a and b."""
        if not (self.fusible(a) and self.fusible(b)):
            return False
        if len(self.members[a]) + len(self.members[b]) > self.max_ops:
            return False
        anchors = self.anchors(a) + self.anchors(b)
        reduces = self.reduces[a] | self.reduces[b]
        if anchors > 1 or (anchors and reduces) or len(reduces) > 1:
            return False
        return True

    def try_merge(self, a: int, b: int) -> bool:
        a, b = self.find(a), self.find(b)
        if a == b or not self.compatible(a, b) or self._reaches(a, b) or self._reaches(b, a):
            return False
        keep, gone = min(a, b), max(a, b)
        self.parent[gone] = keep
        self.members[keep] = sorted(self.members[keep] + self.members.pop(gone))
        self.reduces[keep] |= self.reduces.pop(gone)
        return True

    def groups(self) -> list[int]:
        return sorted({self.find(i) for i in range(len(self.ops)) if self.fusible(i) or
                       self.pattern[i] == "opaque"})


def _cluster_vertical(c: _Clusters) -> None:
    """Each op joins the kernels of its producers when the rules allow."""
    for i in range(len(c.ops)):
        if not c.fusible(i):
            continue
        if c.pattern[i] in ("matmul", "conv"):
            continue                     # anchors start a kernel (no prologue but transposes)
        for p in sorted(c.pred[i], reverse=True):
            if c.fusible(p):
                c.try_merge(p, i)


def _cluster_horizontal(c: _Clusters, limit: int) -> None:
    """Independent elementwise kernels of the block merge, `limit` at most per kernel."""
    flat = [g for g in c.groups() if c.kind(g) in ("elemwise", "broadcast")]
    while flat:
        head, rest, taken = flat[0], [], 1
        for g in flat[1:]:
            if taken < limit and c.try_merge(head, g):
                taken += 1
            else:
                rest.append(g)
        flat = rest


def _topological(c: _Clusters) -> list[int]:
    """Groups and host ops in an order that respects every use and the order
    of effectful host ops; otherwise as early as they can."""
    units = sorted({c.find(i) for i in range(len(c.ops))})
    deps = {u: set() for u in units}
    for i in range(len(c.ops)):
        for j in c.succ[i]:
            a, b = c.find(i), c.find(j)
            if a != b:
                deps[b].add(a)
    order = []
    ready = sorted(u for u in units if not deps[u])
    users = {u: set() for u in units}
    for u, ds in deps.items():
        for d in ds:
            users[d].add(u)
    waiting = {u: len(ds) for u, ds in deps.items()}
    while ready:
        u = heapq.heappop(ready)
        order.append(u)
        for v in users[u]:
            waiting[v] -= 1
            if waiting[v] == 0:
                heapq.heappush(ready, v)
    assert len(order) == len(units), "graph-kernel fusion made a cycle"
    return order


def _make_kernel(members: list[ir.Operation], kind: str, before: ir.Operation) -> None:
    """Moves `members` (in block order) into a new mskernel.fused placed before `before`."""
    member_set = set(members)
    inputs, constants, seen = [], [], set()
    for op in members:
        for v in op.operands:
            owner = v.owner
            owner_op = owner.operation if isinstance(owner, ir.OpView) else None
            if owner_op in member_set or v in seen:
                continue
            seen.add(v)
            if owner_op is not None and _small_constant(owner_op):
                constants.append(v)
            else:
                inputs.append(v)
    outputs = [r for op in members for r in op.results
               if any(use.owner.operation not in member_set for use in r.uses)]
    loc = ir.Location.fused([op.location for op in members]) if len(members) > 1 \
        else members[0].location
    fused = ir.Operation.create(
        "mskernel.fused", results=[r.type for r in outputs], operands=inputs,
        attributes={"kind": kind_attr(kind), "target": target_attr("cpu")}, regions=1, loc=loc,
        ip=ir.InsertionPoint(before))
    body = fused.regions[0].blocks.append(*[v.type for v in inputs],
                                          arg_locs=[loc] * len(inputs))
    with ir.InsertionPoint(body), loc:
        anchor = ir.Operation.create("mskernel.yield", operands=[])
    clones = {}
    for v in constants:
        clone = v.owner.operation.clone(ir.InsertionPoint(anchor))
        clones[v] = clone.results[0]
    for op in members:
        op.move_before(anchor)
    for old, new in list(zip(inputs, body.arguments)) + list(clones.items()):
        for use in list(old.uses):
            if use.owner.operation != fused and is_ancestor(fused, use.owner.operation):
                use.owner.operation.operands[use.operand_number] = new
    for old, new in zip(outputs, fused.results):
        for use in list(old.uses):
            if not is_ancestor(fused, use.owner.operation):
                use.owner.operation.operands[use.operand_number] = new
    with ir.InsertionPoint(anchor), loc:
        ir.Operation.create("mskernel.yield", operands=outputs)
    anchor.erase()


def fuse_block(block: ir.Block, *, enable: bool, max_ops: int, horizontal: int) -> None:
    """Clusters the ops of one block into kernels (nested blocks first)."""
    for op in block.operations:
        if not op.operation.name.startswith("scf."):
            continue                     # kernels (@msmlir.kernel bodies) are left as they are
        for region in op.operation.regions:
            for inner in region.blocks:
                fuse_block(inner, enable=enable, max_ops=max_ops, horizontal=horizontal)
    if enable:
        fold_transposes(block)
    ops = [op.operation for op in block.operations]
    terminator = ops.pop() if ops and ops[-1].name in ("func.return", "scf.yield",
                                                      "scf.condition", "mskernel.yield") else None
    c = _Clusters(ops, max_ops)
    if enable:
        _cluster_vertical(c)
        if horizontal > 1:
            _cluster_horizontal(c, horizontal)
    roots = set(c.groups())
    order = _topological(c)
    if terminator is None:
        return                            # a block without terminator: nothing to place before
    for u in order:
        if u in roots:
            _make_kernel([c.ops[m] for m in c.members[u]], c.kind(u), terminator)
        else:
            c.ops[u].move_before(terminator)


@register_pass("mindir-graph-kernel-fusion",
               "Cluster mindir ops into mskernel.fused kernels (elementwise chains, reductions "
               "with producers and consumers, matmul/conv with epilogues, horizontal fusion of "
               "independent elementwise kernels)",
               options={"enable": Option(bool, True, "fuse (false: one kernel per op)"),
                        "max-ops": Option(int, 64, "most ops in one kernel"),
                        "horizontal": Option(int, 8, "most independent elementwise kernels "
                                                     "fused into one (1: no horizontal fusion)")})
def graph_kernel_fusion(module: ir.Operation, *, enable: bool, max_ops: int, horizontal: int):
    for f in list(funcs(module)):
        for block in f.regions[0].blocks:
            fuse_block(block, enable=enable, max_ops=max_ops, horizontal=horizontal)
