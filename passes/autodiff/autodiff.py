"""mindir-autodiff: expands every `mindir.grad` into forward + reverse-mode
backward functions (source transformation, as MindSpore's GradOperation).

    %v, %dx = mindir.grad @f(%x) sens(%s : ...) {grad_position = array<i64: 0>,
                                                  has_aux, return_value}

becomes `func.call @f_grad(%x, %s)`, where the new private @f_grad holds a
copy of @f's body (the forward) followed by its backward, in one function, so
later passes (CSE, canonicalize, fusion) see both and the backward reuses the
forward values. Semantics:

* `sens` are the cotangents of the differentiated results (ones when absent);
* `has_aux`: only the first result is differentiated, the others are aux
  values (returned with `return_value`);
* results: @f's results first when `return_value` (value_and_grad), then one
  gradient per entry of `grad_position` (in that order; a non-float argument
  gets zeros).

Higher order: grads inside @f (and inside every function @f calls) are
expanded first, so grad(grad(f)) differentiates the generated forward +
backward like any other function. The frontend only has to emit `mindir.grad`.

Python API for other passes (e.g. kernel-level AD):
    build_grad_function(module, func_name, grad_position, has_aux=False,
                        return_value=False, with_sens=False) -> (name, index)
    vjp_functions(module, func_name, positions) -> VJP
    register_bprop / register_non_differentiable / register_fallback (registry)
"""
from __future__ import annotations

from dataclasses import dataclass, field

from mlir import ir
from mlir.dialects import func

from msmlir.dialects import mindir

from ..registry import PassFailure, register_pass
from ..symbols import unique_symbol
from . import control_flow  # noqa: F401  (registers the structured entries)
from . import custom_bprop  # noqa: F401  (calls of functions with a user bprop; frontend hook)
from . import emit as E
from .activity import AutodiffError, analyze, func_body, func_name, terminator, walk_ops
from .engine import (BlockDiff, FuncDiff, Holders, defined_inside, rematerialize,
                     replace_in_block, set_terminator, split_remat, used_values)


@dataclass
class VJP:
    """How to differentiate calls of one function w.r.t. some arguments.

    mode "split": call @fwd(args) -> (results..., saved...) in the forward and
    @bwd(cotangents..., saved_args...) -> grads in the backward, where each
    saved_args entry is ("arg", i) (the call's argument i), ("out", i) (the
    call's result i) or ("res", i) (saved result i of @fwd, after the results). mode "recompute": the forward calls @fwd (the
    original function) and the backward calls @bwd(args..., cotangents...) ->
    (results..., grads...)."""
    mode: str
    fwd: str
    bwd: str
    positions: list
    varied_results: list
    result_types: list
    saved_types: list = field(default_factory=list)
    saved_sources: list = field(default_factory=list)
    # index[k]: the result of @bwd holding logical result k (grads in split
    # mode, results + grads in recompute mode); equal values are returned once
    index: list = field(default_factory=list)
    bwd_types: list = field(default_factory=list)


def _ftype(f) -> ir.FunctionType:
    return ir.FunctionType(ir.TypeAttr(f.operation.attributes["function_type"]).value)


def _set_ftype(f, ins, outs) -> None:
    f.operation.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(ins, outs))


class State:
    """Pass-wide state: the module, caches of generated functions, holders."""

    def __init__(self, module_op):
        self.module = module_op.operation
        self.body = self.module.regions[0].blocks[0]
        self.holders = Holders()
        self.activity_cache: dict = {}
        self.analysing: set = set()
        self.vjp_cache: dict = {}
        self.grad_cache: dict = {}
        self.expanded: set = set()
        self.expanding: set = set()
        self.vjp_building: set = set()

    # symbols -------------------------------------------------------------------
    def functions(self) -> dict:
        out = {}
        for op in self.body.operations:
            if op.operation.name == "func.func":
                out[func_name(op)] = op
        return out

    def lookup(self, name: str, loc=None):
        f = self.functions().get(name)
        if f is None:
            raise AutodiffError(f"mindir-autodiff: '@{name}' does not reference a function "
                                "in this module", loc)
        if not f.operation.regions[0].blocks:
            raise AutodiffError(f"mindir-autodiff: cannot differentiate the external "
                                f"function @{name} (it has no body)", loc)
        return f

    def unique(self, base: str) -> str:
        return unique_symbol(self.module, base)

    def new_func(self, name: str, ins, outs, loc):
        with ir.InsertionPoint(self.body), loc:
            f = func.FuncOp(self.unique(name), (list(ins), list(outs)), visibility="private")
            f.add_entry_block()
        return f

    # grad expansion ------------------------------------------------------------------
    def ensure_expanded(self, f) -> None:
        """Expands every mindir.grad inside @f (recursively through callees of grads)."""
        name = func_name(f)
        if name in self.expanded:
            return
        if name in self.expanding:
            raise AutodiffError(f"mindir-autodiff: @{name} takes its own gradient "
                                "(recursion through mindir.grad)", f.operation.location)
        self.expanding.add(name)
        try:
            for op in [o for o in walk_ops(f) if o.operation.name == "mindir.grad"]:
                self.expand(op.operation)
        finally:
            self.expanding.discard(name)
        self.expanded.add(name)

    def expand(self, g) -> None:
        attrs = g.attributes
        callee = self.lookup(ir.FlatSymbolRefAttr(attrs["callee"]).value, g.location)
        self.ensure_expanded(callee)
        positions = list(ir.DenseI64ArrayAttr(attrs["grad_position"]))
        has_aux = "has_aux" in attrs
        return_value = "return_value" in attrs
        seg = list(ir.DenseI32ArrayAttr(attrs["operandSegmentSizes"])) \
            if "operandSegmentSizes" in attrs else None
        operands = list(g.operands)
        n_in = seg[0] if seg else len(_ftype(callee).inputs)
        inputs, sens = operands[:n_in], operands[n_in:]
        name, index = self.grad_function(callee, positions, has_aux, return_value, bool(sens),
                                         g.location)
        types = _ftype(self.lookup(name)).results
        with ir.InsertionPoint(g), g.location:
            call = func.CallOp(list(types), name, inputs + sens)
        for r, i in zip(g.results, index):
            r.replace_all_uses_with(call.results[i])
        g.erase()

    def grad_function(self, f, positions, has_aux, return_value, with_sens, loc):
        """(name, result index) of the function mindir.grad expands to."""
        key = (func_name(f), tuple(positions), has_aux, return_value, with_sens)
        if key not in self.grad_cache:
            ft = _ftype(f)
            outs = list(ft.results)
            if has_aux and not outs:
                raise AutodiffError("mindir-autodiff: has_aux needs a function with at least "
                                    "one result", loc)
            ndiff = 1 if has_aux else len(outs)
            if custom_bprop.custom_bprop_name(f) is not None:
                # grad of a function with a user bprop: differentiate a call of
                # it, so its bprop is used (as at its call sites)
                f = self._call_wrapper(f)
            self.grad_cache[key] = build_combined(
                self, f, positions, list(range(ndiff)), seeds_from_args=with_sens,
                return_value=return_value, name=f"{func_name(f)}_grad")
        return self.grad_cache[key]

    def _call_wrapper(self, f):
        """A private function that only calls @f (same type)."""
        ft = _ftype(f)
        w = self.new_func(f"{func_name(f)}_call", list(ft.inputs), list(ft.results),
                          f.operation.location)
        body = func_body(w)
        with ir.InsertionPoint(body), f.operation.location:
            call = func.CallOp(list(ft.results), func_name(f), list(body.arguments))
            func.ReturnOp(list(call.results))
        return w

    # VJPs of callees -----------------------------------------------------------------
    def get_vjp(self, f, positions) -> VJP:
        key = (func_name(f), tuple(positions))
        if key in self.vjp_cache:
            return self.vjp_cache[key]
        if key in self.vjp_building:
            raise AutodiffError(f"mindir-autodiff: recursive function @{key[0]} cannot be "
                                "differentiated", f.operation.location)
        self.vjp_building.add(key)
        try:
            self.ensure_expanded(f)
            vjp = build_vjp(self, f, list(positions))
        finally:
            self.vjp_building.discard(key)
        self.vjp_cache[key] = vjp
        return vjp


def _return_unique(f, block, values) -> list:
    """Ends `block` with a return of the distinct `values` (a function that
    returns one buffer twice breaks buffer-results-to-out-params), sets the
    function type, and gives for each value the index of its result."""
    uniq, index = [], []
    for v in values:
        for i, u in enumerate(uniq):
            if u == v:
                index.append(i)
                break
        else:
            index.append(len(uniq))
            uniq.append(v)
    set_terminator(block, "func.return", uniq)
    ft = _ftype(f)
    _set_ftype(f, list(ft.inputs), [v.type for v in uniq])
    return index


def _forward(state, f, positions, new_f, arg_offset=0):
    """Copies @f's body into new_f's entry block; returns (FuncDiff, BlockDiff,
    mapped return values, the temporary return op)."""
    act = analyze(state, f, positions)
    fd = FuncDiff(state, act)
    bd = BlockDiff(fd)
    src = func_body(f)
    body = func_body(new_f)
    for a, b in zip(src.arguments, list(body.arguments)[arg_offset:]):
        fd.map(a, b)
    with ir.InsertionPoint(body), f.operation.location:
        bd.forward(src)
        rets = [fd.mapping[v] for v in terminator(src).operands]
        ret = func.ReturnOp(rets)
    return fd, bd, rets, ret


def build_combined(state, f, positions, dresults, *, seeds_from_args: bool, return_value: bool,
                   name: str):
    """@name(args..., [cotangents of results `dresults`]) -> ([results...], grads...):
    forward and backward of @f in one function. Without seeds_from_args the
    cotangents are ones. Returns (name, index): equal values are returned
    once, index[k] is the function result holding logical result k."""
    ft = _ftype(f)
    ins, outs = list(ft.inputs), list(ft.results)
    seed_types = [outs[i] for i in dresults] if seeds_from_args else []
    grad_types = [ins[p] for p in positions]
    new_f = state.new_func(name, ins + seed_types, (outs if return_value else []) + grad_types,
                           f.operation.location)
    fd, bd, rets, ret = _forward(state, f, positions, new_f)
    body = func_body(new_f)
    zeros: dict = {}
    with ir.InsertionPoint(ret), f.operation.location:
        seeds = []
        for t, i in enumerate(dresults):
            if not fd.is_varied(rets[i]):
                continue
            s = body.arguments[len(ins) + t] if seeds_from_args else mindir.ones_like(rets[i])
            seeds.append((rets[i], s))
        adj = bd.backward(seeds)
        grads = []
        for p in positions:
            a = body.arguments[p]
            g = adj.get(a)
            grads.append(g if g is not None else _typed_zero(a.type, zeros))
    vals = list(ret.operands) if return_value else []
    index = _return_unique(new_f, body, vals + grads)
    return func_name(new_f), index


def _typed_zero(t, cache: dict):
    """One zero of type t per function (equal zeros are one returned value)."""
    key = str(t)
    if key not in cache:
        if isinstance(t, ir.RankedTensorType):
            rt = ir.RankedTensorType(t)
            cache[key] = E.zeros(list(rt.shape), rt.element_type)
        else:
            cache[key] = E.scalar_constant(t, 0)
    return cache[key]


def build_vjp(state, f, positions) -> VJP:
    ft = _ftype(f)
    ins, outs = list(ft.inputs), list(ft.results)
    act = analyze(state, f, positions)
    vr = [i for i, b in enumerate(act.results) if b]
    base = func_name(f)
    fwd = state.new_func(f"{base}_fwd", ins, outs, f.operation.location)
    bwd = state.new_func(f"{base}_bwd", [outs[i] for i in vr], [ins[p] for p in positions],
                         f.operation.location)
    fd, bd, rets, ret = _forward(state, f, positions, fwd)
    bbody = func_body(bwd)
    zeros: dict = {}
    with ir.InsertionPoint(bbody), f.operation.location:
        adj = bd.backward([(rets[i], bbody.arguments[t]) for t, i in enumerate(vr)])
        grads = []
        for p in positions:
            g = adj.get(func_body(fwd).arguments[p])
            # a missing gradient is a zero made in @bwd (not a saved value)
            grads.append(g if g is not None else _typed_zero(ins[p], zeros))
        ret_b = func.ReturnOp(grads)
    saved = used_values(bbody, lambda v: defined_inside(v, fwd))
    remat, saved = split_remat(saved)
    if remat:
        with ir.InsertionPoint.at_block_begin(bbody), f.operation.location:
            replace_in_block(bbody, {v: rematerialize(v) for v in remat})
    if any(isinstance(v.type, ir.RankedTensorType) and
           not ir.RankedTensorType(v.type).has_static_shape for v in saved):
        # Saved values of run-time shape cannot be returned through the CPU
        # pipeline's out-parameters: recompute the forward in the backward.
        bwd.operation.erase()
        fwd.operation.erase()
        name, index = build_combined(state, f, positions, vr, seeds_from_args=True,
                                     return_value=True, name=f"{base}_vjp")
        return VJP("recompute", base, name, list(positions), vr, outs, index=index,
                   bwd_types=list(_ftype(state.lookup(name)).results))
    fbody = func_body(fwd)
    fargs = list(fbody.arguments)
    repl, sources, res_vals = {}, [], []
    fouts = list(terminator(func_body(fwd)).operands)
    for v in saved:
        repl[v] = bbody.add_argument(v.type, f.operation.location)
        if v in fargs:
            sources.append(("arg", fargs.index(v)))
        elif v in fouts:
            # already a result: not returned twice (buffer-results-to-out-params
            # cannot take a function returning one buffer twice)
            sources.append(("out", fouts.index(v)))
        else:
            sources.append(("res", len(res_vals)))
            res_vals.append(v)
    replace_in_block(bbody, repl)
    del ret_b
    _set_ftype(bwd, [outs[i] for i in vr] + [v.type for v in saved], [ins[p] for p in positions])
    index = _return_unique(bwd, bbody, list(terminator(bbody).operands))
    set_terminator(fbody, "func.return", list(terminator(fbody).operands) + res_vals)
    _set_ftype(fwd, ins, outs + [v.type for v in res_vals])
    return VJP("split", func_name(fwd), func_name(bwd), list(positions), vr, outs,
               [v.type for v in res_vals], sources, index, list(_ftype(bwd).results))


def run_autodiff(module_op) -> None:
    """Expands every mindir.grad of the module (raises AutodiffError)."""
    state = State(module_op)
    try:
        for f in list(state.functions().values()):
            state.ensure_expanded(f)
    except Exception:
        state.holders.cleanup()
        raise
    state.holders.cleanup()


@register_pass("mindir-autodiff",
               "Expand mindir.grad into forward + reverse-mode backward functions "
               "(higher order, scf.if/for/while, func.call)")
def mindir_autodiff(module_op):
    try:
        run_autodiff(module_op)
    except AutodiffError as e:
        loc = e.loc or module_op.location
        loc.emit_error(str(e))
        raise PassFailure() from None


# --- Python API for other passes ------------------------------------------------------

def build_grad_function(module, func_name_: str, grad_position, has_aux=False,
                        return_value=False, with_sens=False):
    """Generates the function `mindir.grad @func_name_` expands to (args...,
    [sens...]) -> ([results...], grads...). Returns (name, index): equal
    values are returned once, logical result k is function result index[k].
    Raises AutodiffError."""
    state = State(module.operation if hasattr(module, "operation") else module)
    f = state.lookup(func_name_)
    state.ensure_expanded(f)
    out = state.grad_function(f, list(grad_position), has_aux, return_value, with_sens,
                              f.operation.location)
    state.holders.cleanup()
    return out


def vjp_functions(module, func_name_: str, positions) -> VJP:
    """Generates @f_fwd/@f_bwd (or the recompute form) for calls of @func_name_."""
    state = State(module.operation if hasattr(module, "operation") else module)
    f = state.lookup(func_name_)
    vjp = state.get_vjp(f, list(positions))
    state.holders.cleanup()
    return vjp
