"""Kernel-level AD: the backward kernel of a compute definition (AKG-style).

`differentiate_kernel(fused, wrt, dout)` builds, at the current insertion
point, one `mskernel.fused {kind = #mskernel.kind<compute>}` kernel computing the gradients of
the forward kernel `fused` with respect to its inputs `wrt`, given the
gradients `dout` of its results. It works on the IR (any compute kernel made of
linalg.generic stages, whether written with the msmlir.kernel DSL or by hand).

How a gradient kernel is formed. A stage computes, for every point p of its
loop space, `out[O(p)] (+)= f(in_0[M_0(p)], ..., in_n[M_n(p)])`. Reverse mode
propagates the result's adjoint A through each *read*: for the reads of a tensor
T through one map M (reads of T through equal maps are one group),

    dT[M(p)] += A[O(p)] * sum_{reads k of T via M} df/d(read_k)   for every p

which is one linalg.generic over the stage's own loop space whose output T is
indexed by M, accumulating. A loop dim that is a bare result of M (`d1` in
`(d0, d1) -> (d1)`) is `parallel` in it (distinct values of the dim write
distinct elements); every other dim is a `reduction`. This covers, uniformly:

  * broadcast reads (M a projected permutation dropping dims): plain reductions;
  * reductions of the forward stage: their dims simply are not in M;
  * non-injective maps (`x[i + j]`, `x[i // 2]`, `x[2 * i + k]`): M is not a
    projected permutation, the output map of the gradient generic is M itself,
    and the dims in compound results become reduction iterators. This is a
    scatter-accumulate: lowered to loops (convert-linalg-to-loops), each
    iteration does `dT[M(p)] = dT[M(p)] + c(p)`, executed sequentially along
    the reduction dims, so collisions accumulate correctly. Nothing forms the
    Jacobian of the index map, so its structural zeros (the `i + j == q`
    conditions of a gather formulation) never arise.

The derivative df/d(read) is symbolic (derivative.py) and simplified on
construction (expr.py), so structurally zero terms are eliminated: a group
whose derivative is zero emits nothing, an input all of whose groups vanish
gets no kernel (its gradient is returned as None), `0 + dout` becomes `dout`
(an input whose gradient equals the incoming gradient, e.g. `x` of `x + b`,
gets no kernel either), and a gradient written exactly once per element (a
permutation map, no reduction) is not zero-filled first.

Reductions: `combine(out, f)` with combine = addf (sum: df/dread), max/min
(the derivative is masked by `f == y`, y the forward result: every element
attaining the extremum gets the gradient). Stages chain (multi-stage kernels):
stages are processed in reverse, adjoints of intermediate tensors accumulate,
and the forward values the backward needs are recomputed inside the backward
kernel (cloned stages) or, for the kernel's own results, taken from the
forward kernel's results (`use_forward_results`).

User-supplied derivatives (AKG's `custom_sigmoid_fdiff`): a kernel may carry
`mskernel.fdiff = {in<i> = @fn}`: `fn(y, r_0, ..., r_{n-1}) -> dy/d(read of
input i)` over scalars, where y is the element of the kernel's result #0 and
r_k the element its output stage reads through operand #k. It replaces the
derivative of that stage's reads of input i; everything else stays automatic.
"""
from __future__ import annotations

from collections import OrderedDict
from typing import Sequence

from mlir import ir

from msmlir.dialects import mskernel
from msmlir.dialects.enums import FusionKind, KernelTarget, enum_case, enum_name

from . import builders as B
from . import expr as E
from .derivative import derivative
from .expr import KernelADError
from .structure import Kernel, Stage, analyze, bare_dims


def differentiate_kernel(fused, wrt: Sequence[int], dout: Sequence, *,
                         use_forward_results: bool = True,
                         materialize_zeros: bool = False,
                         zero_elimination: bool = True) -> list:
    """Builds the backward kernel of compute kernel `fused` at the current insertion point.

    fused: an `mskernel.fused` op (compute kernel: linalg.generic stages).
    wrt: indices of the kernel inputs to differentiate with respect to.
    dout: one Value (or None for zero) per kernel result: the incoming gradients.
    use_forward_results: the backward kernel reads the forward kernel's results
      (`y`) when it needs them (the insertion point must then be dominated by
      `fused`); False recomputes them inside the backward kernel.
    materialize_zeros: structurally zero gradients come back as
      `arith.constant dense<0.0>` instead of None.
    zero_elimination: False builds the naive chain-rule derivative (no algebraic
      simplification, zero-filled accumulators, no copy elision): for comparison.

    Returns one entry per `wrt`: the gradient Value, or None where it is
    structurally zero (no kernel emitted for it). Raises KernelADError for a
    kernel it cannot differentiate (nothing is left in the IR then)."""
    op = fused.operation
    with op.location:
        k = analyze(op)
        wrt = [int(i) for i in wrt]
        for i in wrt:
            if not 0 <= i < len(k.args):
                raise KernelADError(f"wrt index {i} out of range: the kernel has {len(k.args)} inputs")
        if len(dout) != len(op.results):
            raise KernelADError(f"{len(dout)} output gradients for a kernel with "
                                f"{len(op.results)} results")
        builder = _Backward(k, wrt, list(dout), use_forward_results)
        with E.simplification(zero_elimination):
            grads = builder.run()
        if materialize_zeros:
            grads = [g if g is not None else B.splat_constant(B.tensor_type(k.args[i]), 0.0)
                     for g, i in zip(grads, wrt)]
        return grads


class _Backward:
    def __init__(self, k: Kernel, wrt: list[int], dout: list, use_forward_results: bool):
        self.k = k
        self.wrt = wrt
        self.dout = dout
        self.use_fwd = use_forward_results

    # -- driver ---------------------------------------------------------------------------

    def run(self) -> list:
        k = self.k
        active = {k.args[i] for i in self.wrt}
        for st in k.stages:
            if any(v in active for v in st.inputs) or st.init in active:
                active.add(st.result)
        self.active = active
        seeds = [(r, d) for r, d in enumerate(self.dout)
                 if d is not None and k.yields[r] in active]
        if not seeds:
            return [None] * len(self.wrt)

        fwd = k.op
        outer = list(fwd.operands)
        n_in = len(outer)
        outer += [d for _, d in seeds]
        if self.use_fwd:
            outer += list(fwd.results)
        # Build into a temporary kernel holding every candidate input; the real one,
        # with only the inputs used, replaces it at the end.
        tmp = mskernel.FusedOp([], outer, target=_target(fwd), kind=FusionKind.compute)
        block = tmp.regions[0].blocks.append(*[v.type for v in outer])
        self.block = block
        bargs = list(block.arguments)
        self.vmap: dict = {a: bargs[i] for i, a in enumerate(k.args)}
        dout_args = {r: bargs[n_in + j] for j, (r, _) in enumerate(seeds)}
        if self.use_fwd:
            base = n_in + len(seeds)
            for r, y in enumerate(k.yields):
                if k.source(y).kind == "stage" and y not in self.vmap:
                    self.vmap[y] = bargs[base + r]
        self.adjoint: dict = {}
        try:
            with ir.InsertionPoint(block):
                for r, _ in seeds:
                    self.add_adjoint(k.yields[r], dout_args[r])
                for st in reversed(k.stages):
                    a = self.adjoint.get(st.result)
                    if a is not None and st.result in active:
                        self.backprop(st, a)
                grads = [self.adjoint.get(k.args[i]) for i in self.wrt]
                # a gradient that is one of the kernel's inputs as is (e.g. dx = dout
                # for x + b) needs no kernel: it is returned as the outer value
                passthrough = {}
                for g in grads:
                    if g is not None and isinstance(g.owner, ir.Block) and g.owner == block:
                        passthrough[g] = outer[bargs.index(g)]
                computed = []
                for g in grads:
                    if g is not None and g not in passthrough and g not in computed:
                        computed.append(g)
                if computed:
                    mskernel.YieldOp(computed)
        except Exception:
            tmp.operation.erase()
            raise

        def outer_value(g, results):
            if g is None:
                return None
            if g in passthrough:
                return passthrough[g]
            return results[computed.index(g)]

        if not computed:
            tmp.operation.erase()
            return [outer_value(g, []) for g in grads]

        used = [i for i, a in enumerate(bargs) if _has_uses(a)]
        with ir.InsertionPoint(tmp):
            final = mskernel.FusedOp([g.type for g in computed], [outer[i] for i in used],
                                     target=_target(fwd), kind=FusionKind.compute)
        final.operation.attributes["mskernel.grad_wrt"] = ir.DenseI64ArrayAttr.get(
            [i for i, g in zip(self.wrt, grads) if g is not None and g not in passthrough])
        nblock = final.regions[0].blocks.append(*[outer[i].type for i in used])
        for j, i in enumerate(used):
            bargs[i].replace_all_uses_with(nblock.arguments[j])
        for inner in list(block.operations):
            nblock.append(inner.operation)
        tmp.operation.erase()
        results = list(final.results)
        return [outer_value(g, results) for g in grads]

    # -- values of the forward kernel inside the backward kernel ---------------------------

    def value(self, v: ir.Value) -> ir.Value:
        """The backward kernel's value for forward value v (clones what it must)."""
        got = self.vmap.get(v)
        if got is not None:
            return got
        owner = v.owner
        if isinstance(owner, ir.Block):
            raise KernelADError("internal: unmapped block argument")
        op = owner.operation
        captured = _captured_values(op)
        mapped_ops = [self.value(o) for o in op.operands]
        mapped_cap = {c: self.value(c) for c in captured}
        new = op.clone(ip=ir.InsertionPoint(self.block))
        for i, m in enumerate(mapped_ops):
            new.operands[i] = m
        if mapped_cap:
            _remap_nested(new, mapped_cap)
        for r_old, r_new in zip(op.results, new.results):
            self.vmap[r_old] = r_new
        return self.vmap[v]

    # -- adjoint accumulation ---------------------------------------------------------------

    def add_adjoint(self, target: ir.Value, grad: ir.Value):
        src = self.k.source(target)
        if src.kind not in ("input", "stage") or target not in self.active:
            return
        cur = self.adjoint.get(target)
        if cur is None:
            self.adjoint[target] = grad
            return
        t = B.tensor_type(cur)
        ident = ir.AffineMap.get_identity(t.rank)
        self.adjoint[target] = B.generic(
            [grad], [ident], cur, ident, ["parallel"] * t.rank,
            lambda ins, acc: _emit_add(acc, ins[0]))

    def backprop(self, st: Stage, A: ir.Value):
        k = self.k
        ety = st.element_type
        body = st.body
        reads_out = ("out", 0) in E.leaves(body) if not st.reduction_dims else False
        init_src = k.source(st.init)
        if not st.reduction_dims and reads_out:
            if init_src.kind == "fill":
                body = E.substitute(body, {E.leaf(("out", 0), ety): init_src.fill})
            elif init_src.kind == "empty":
                raise KernelADError("a stage reads its uninitialized (tensor.empty) output")
        f = st.summand if st.reduction_dims else body
        # the forward result element, where the backward can read it instead of
        # recomputing it (e.g. tanh' = 1 - y*y): a kernel result, with use_forward_results
        y_available = self.vmap.get(st.result) is not None and st.result in k.yields

        groups: OrderedDict = OrderedDict()
        for idx, (v, m) in enumerate(zip(st.inputs, st.in_maps)):
            if v in self.active:
                groups.setdefault((v, str(m)), (v, m, []))[2].append(("read", idx))
        if not st.reduction_dims and reads_out and init_src.kind in ("input", "stage") \
                and st.init in self.active:
            groups.setdefault((st.init, str(st.out_map)), (st.init, st.out_map, []))[2].append(("out", 0))

        dout = E.leaf(("dout", 0), ety)
        y = E.leaf(("y", 0), ety)
        fd_input = None
        if st.result == (k.yields[0] if k.yields else None):
            fd_input = k.fdiff
        for (v, m, keys) in groups.values():
            src = k.source(v)
            user = None
            if fd_input and src.kind == "input" and src.index in fd_input:
                n_groups = sum(1 for (w, _, _) in groups.values() if w == v)
                if n_groups != 1:
                    raise KernelADError(f"mskernel.fdiff for input {src.index}: the output stage "
                                        f"reads it through {n_groups} different indexing maps")
                user = self.user_fdiff(fd_input[src.index], st)
            d = user if user is not None else derivative(f, set(keys))
            if st.combiner in ("max", "min"):
                # the elements equal to the extremum; the reduced value is recomputed
                # exactly as the forward computed it (unsimplified), so that it
                # compares equal to y bit for bit
                d = E.select(E.cmpf("oeq", st.raw_summand, y), d, E.zero(ety))
            elif y_available and user is None:
                d = E.substitute(d, {f: y})
            if E.is_zero(d):
                continue  # structurally zero: no kernel for this read
            self.accumulate(v, m, st, E.mul(dout, d), A)

        if st.reduction_dims and st.init in self.active:
            # out = combine(init, ...): the init tensor is read once per output element
            rank = B.tensor_type(st.result).rank
            ident = ir.AffineMap.get_identity(rank)
            if st.combiner == "sum":
                c = dout
            else:
                c = E.select(E.cmpf("oeq", E.leaf(("out", 0), ety), y), dout, E.zero(ety))
            def operand(key):
                if key == ("dout", 0):
                    return A, ident
                if key == ("y", 0):
                    return self.value(st.result), ident
                if key == ("out", 0):
                    return self.value(st.init), ident
                raise KernelADError(f"internal: leaf {key}")
            space = _Space(rank, list(B.tensor_type(st.result).shape), operand)
            self._accumulate(st.init, ident, space, c)

    def user_fdiff(self, symbol: str, st: Stage) -> E.Node:
        fn = _lookup_func(self.k.op, symbol)
        blk = fn.regions[0].blocks[0]
        args = list(blk.arguments)
        if len(args) != 1 + len(st.inputs):
            raise KernelADError(f"fdiff function @{symbol} takes {len(args)} scalars; expected "
                                f"{1 + len(st.inputs)} (the output element, then one per input "
                                f"operand of the output stage)")
        env = {args[0]: E.leaf(("y", 0), str(args[0].type))}
        for i, a in enumerate(args[1:]):
            env[a] = E.leaf(("read", i), str(a.type))
        (d,) = E.parse_block(blk, env, simplify=True)
        return d

    def accumulate(self, target: ir.Value, tmap: ir.AffineMap, st: Stage, c: E.Node, A: ir.Value):
        """adjoint[target][tmap(p)] += c(p) over the loop space of stage st."""
        def operand(key):
            if key[0] == "read":
                return self.value(st.inputs[key[1]]), st.in_maps[key[1]]
            if key == ("out", 0):
                return self.value(st.init), st.out_map
            if key == ("dout", 0):
                return A, st.out_map
            if key == ("y", 0):
                return self.value(st.result), st.out_map
            raise KernelADError(f"internal: leaf {key}")
        space = _Space(len(st.iterators), st.extents, operand)
        self._accumulate(target, tmap, space, c)

    def _accumulate(self, target: ir.Value, tmap: ir.AffineMap, space: "_Space", c: E.Node):
        cur = self.adjoint.get(target)
        ttype = B.tensor_type(target)
        keys = sorted(E.leaves(c))
        # pure copy: the gradient is the incoming one, element for element
        if cur is None and keys == [("dout", 0)] and c.is_leaf and E.simplifying():
            a, amap = space.operand(("dout", 0))
            if amap == tmap and B.tensor_type(a) == ttype and \
                    all(d in bare_dims(tmap) for d in range(space.n_dims)):
                self.adjoint[target] = a
                return
        operands, maps, env_index = [], [], {}
        for key in keys:
            v, m = space.operand(key)
            sig = (v, str(m))
            if sig not in env_index:
                env_index[sig] = len(operands)
                operands.append(v)
                maps.append(m)
            env_index[key] = env_index[sig]
        bare = bare_dims(tmap)
        iters = ["parallel" if d in bare else "reduction" for d in range(space.n_dims)]
        # written exactly once per element (a permutation, no reduction): no zero fill
        once = E.simplifying() and cur is None and tmap.is_permutation and list(ttype.shape) == \
            [space.extents[r.position] for r in tmap.results]
        if cur is not None:
            init = cur
        elif once:
            init = B.empty(ttype.shape, ttype.element_type)
        else:
            init = B.filled(ttype, 0.0)
        extra = B.shape_operand(space.n_dims, space.extents, maps + [tmap])
        if extra is not None:
            operands.append(extra[0])
            maps.append(extra[1])

        def body(ins, acc):
            env = {key: ins[env_index[key]] for key in keys}
            (val,) = E.emit([c], env)
            return val if once else _emit_add(acc, val)

        self.adjoint[target] = B.generic(operands, maps, init, tmap, iters, body)


class _Space:
    """A loop space and how each leaf of a contribution is read in it."""

    def __init__(self, n_dims, extents, operand):
        self.n_dims = n_dims
        self.extents = list(extents)
        self._operand = operand

    def operand(self, key):
        if callable(self._operand):
            return self._operand(key)
        if key not in self._operand:
            raise KernelADError(f"internal: leaf {key}")
        return self._operand[key]


def _emit_add(a: ir.Value, b: ir.Value) -> ir.Value:
    return ir.Operation.create("arith.addf", results=[a.type], operands=[a, b]).result


def _target(op) -> KernelTarget:
    """The target of kernel `op` (a KernelTarget member, cpu when absent)."""
    attrs = op.attributes
    return enum_case(KernelTarget, enum_name(attrs["target"] if "target" in attrs else None, "cpu"))


def _has_uses(v: ir.Value) -> bool:
    for _ in v.uses:
        return True
    return False


def _walk_ops(op: ir.Operation):
    for region in op.regions:
        for block in region.blocks:
            for inner in block.operations:
                inner = inner.operation
                yield inner
                yield from _walk_ops(inner)


def _captured_values(op: ir.Operation) -> list:
    """Values used inside op's regions but defined outside op."""
    defined = set()
    for region in op.regions:
        for block in region.blocks:
            defined.update(block.arguments)
    inner_ops = list(_walk_ops(op))
    for inner in inner_ops:
        defined.update(inner.results)
        for region in inner.regions:
            for block in region.blocks:
                defined.update(block.arguments)
    out = []
    for inner in inner_ops:
        for o in inner.operands:
            if o not in defined and o not in out:
                out.append(o)
    return out


def _remap_nested(op: ir.Operation, mapping: dict):
    for inner in _walk_ops(op):
        for i, o in enumerate(list(inner.operands)):
            if o in mapping:
                inner.operands[i] = mapping[o]


def _lookup_func(op: ir.Operation, symbol: str):
    p = op.operation
    while p is not None and p.name != "builtin.module":
        p = p.parent
        p = p.operation if p is not None else None
    if p is None:
        raise KernelADError(f"fdiff function @{symbol}: the kernel is not inside a module")
    for f in p.regions[0].blocks[0].operations:
        f = f.operation
        if f.name == "func.func" and ir.StringAttr(f.attributes["sym_name"]).value == symbol:
            return f
    raise KernelADError(f"fdiff function @{symbol} not found in the module")
