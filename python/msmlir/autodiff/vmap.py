"""`msmlir.vmap(fn, in_axes=0, out_axes=0)`: vectorizing map (MindSpore `vmap`).

Calling the mapped function builds `fn`'s per-example function `@<fn>_fn`
(arguments with the mapped axis removed), then a declaration

    func.func private @<fn>_vmap(batched args...) -> (batched results...)
        attributes {mindir.vmap = {callee = @<fn>_fn, in_axes = [...], out_axes = [...]}}

which `passes/vmap/` (the `mindir-vmap` batching transformation) fills
at once with the batched body (per-op batching rules: no loop, no unrolling),
and calls it. `mindir.grad` ops inside `fn` (vmap of grad) are expanded by
mindir-autodiff first so that the batching sees plain mindir.

in_axes: an int (every argument mapped along that axis), None (not mapped), or
a tuple with one entry per positional argument (an int, None, or for a
tuple/list argument a nested tuple). Keyword arguments are not mapped.
out_axes: an int or None for every output, or a tuple with one entry per
element of fn's returned tuple. All mapped axes must have the same size.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import func

from ..frontend import builder as _b
from ..frontend.parser import invoke
from ..frontend.trace import TensorSpec, call_operands
from ..pytree import LEAF, tree_flatten, tree_unflatten
from ..frontend.values import TensorValue
from . import _transform as T

__all__ = ["vmap", "VmapFunction"]


def _is_tv(v):
    return isinstance(v, TensorValue)


def _check_axes(ax, what):
    if ax is None or (isinstance(ax, int) and not isinstance(ax, bool)):
        return
    if isinstance(ax, (tuple, list)):
        for a in ax:
            _check_axes(a, what)
        return
    raise TypeError(f"vmap: {what} must be an int, None, or a tuple of them, got {ax!r}")


def _leaf_axes(value, ax, what):
    """The axis of each tensor leaf of `value` under the (nested) axis spec."""
    spec, leaves = tree_flatten(value, _is_tv)
    if ax is None or isinstance(ax, int):
        return [ax] * len(leaves)
    if isinstance(value, (tuple, list)) and len(value) == len(ax):
        out = []
        for v, a in zip(value, ax):
            out.extend(_leaf_axes(v, a, what))
        return out
    _b.error(f"vmap: {what} {tuple(ax)!r} does not match the structure of "
             f"{'a ' + type(value).__name__ + ' of length ' + str(len(value)) if isinstance(value, (tuple, list)) else 'a tensor'}")


def _expand_grads(module, f):
    """mindir-autodiff's expansion of the mindir.grad ops in @f and its callees."""
    from msmlir.passes.autodiff.autodiff import State

    names, todo, seen = [], [f], set()
    st = State(module.operation)
    funcs = st.functions()
    while todo:
        g = todo.pop()
        n = ir.StringAttr(g.operation.attributes["sym_name"]).value
        if n in seen:
            continue
        seen.add(n)
        names.append(n)
        stack = [g.operation]
        while stack:
            o = stack.pop()
            for r in o.regions:
                for b in r.blocks:
                    for op in b.operations:
                        if op.operation.name == "func.call":
                            c = ir.FlatSymbolRefAttr(op.operation.attributes["callee"]).value
                            if c in funcs:
                                todo.append(funcs[c])
                        stack.append(op.operation)
    try:
        for n in names:
            st.ensure_expanded(st.functions()[n])
    finally:
        st.holders.cleanup()


def _has_grad(op) -> bool:
    for r in op.regions:
        for b in r.blocks:
            for o in b.operations:
                if o.operation.name == "mindir.grad" or _has_grad(o.operation):
                    return True
    return False


class VmapFunction(T.Transform):
    """The function returned by `vmap`."""

    def __init__(self, fn, in_axes=0, out_axes=0):
        super().__init__()
        if not callable(fn):
            raise TypeError(f"vmap expects a callable, got {type(fn).__name__}")
        _check_axes(in_axes, "in_axes")
        _check_axes(out_axes, "out_axes")
        self.fn = fn
        self.in_axes = in_axes
        self.out_axes = out_axes
        self.__name__ = "vmap_" + T.fn_name(fn)
        vm = self

        def forward(*args, **kwargs):
            return invoke(vm.fn, list(args), kwargs)
        forward.__name__ = T.fn_name(fn) + "_fn"
        self._forward = forward

    def _entry_name(self):
        return self.__name__

    def __repr__(self):
        return f"<msmlir.vmap of {self.fn!r} in_axes={self.in_axes!r} out_axes={self.out_axes!r}>"

    def _build(self, args, kwargs):
        from msmlir.passes.vmap import VMAP_ATTR, VmapError, axes_attr, batched_type, \
            expand_declaration
        mb = _b.current()
        args = T.as_tensor_args(list(args))
        kwargs = dict(zip(kwargs, T.as_tensor_args(list(kwargs.values()))))
        ia = self.in_axes
        if isinstance(ia, (tuple, list)):
            if len(ia) != len(args):
                _b.error(f"vmap: in_axes has {len(ia)} entries but the function is called with "
                         f"{len(args)} positional argument(s)")
            per_arg = list(ia)
        else:
            per_arg = [ia] * len(args)
        leaf_axes = []
        for i, (a, ax) in enumerate(zip(args, per_arg)):
            lax = _leaf_axes(a, ax, f"in_axes entry {i}")
            if isinstance(ax, int) and not lax:
                _b.error(f"vmap: in_axes entry {i} is {ax} but argument {i} is not a tensor "
                         f"(use None)")
            leaf_axes.extend(lax)
        n_kw = len(tree_flatten(dict(kwargs), _is_tv)[1])
        leaf_axes.extend([None] * n_kw)
        in_spec, leaves = tree_flatten((tuple(args), dict(kwargs)), _is_tv)
        B, specs, norm = None, [], []
        for k, (lf, ax) in enumerate(zip(leaves, leaf_axes)):
            if ax is None:
                specs.append(TensorSpec(tuple(lf.shape), lf.dtype))
                norm.append(None)
                continue
            n = lf.ndim
            if not -n <= ax < n:
                _b.error(f"vmap: in_axes {ax} is out of range for an argument of rank {n}")
            a = ax + n if ax < 0 else ax
            d = lf.shape[a]
            if B is not None and d != B:
                _b.error(f"vmap: the mapped axes have different sizes ({B} and {d})")
            B = d
            s = list(lf.shape)
            s.pop(a)
            specs.append(TensorSpec(tuple(s), lf.dtype))
            norm.append(a)
        if B is None:
            _b.error("vmap: no argument is mapped (in_axes are all None)")
        sargs, skwargs = tree_unflatten(in_spec, specs)
        name = T.fn_name(self.fn)
        with _b.calling(name):
            info = mb.function(self._forward, list(sargs), skwargs, trace=True, close=True,
                               name=mb.unique_name(name + "_fn"), key_extra=("vmap", id(self)))
        if info.func_op is None or not info.result_types:
            _b.error(f"vmap: '{name}' returns no tensor")
        # out_axes per result leaf
        oa = self.out_axes
        out_spec = info.out_spec
        if isinstance(oa, (tuple, list)):
            if out_spec[0] not in ("tuple", "list") or len(out_spec[1]) != len(oa):
                _b.error(f"vmap: out_axes {tuple(oa)!r} does not match the structure of the "
                         f"function's output")
            out_axes = []
            for child, ax in zip(out_spec[1], oa):
                out_axes.extend(_out_leaf_axes(child, ax))
        else:
            out_axes = [oa] * len(info.result_types)
        operands = call_operands(info, args, kwargs)
        in_axes_all = norm + [None] * (len(operands) - len(leaves))
        in_types = [v.type for v in operands]
        out_types = []
        for t, ax in zip(info.result_types, out_axes):
            if ax is None:
                out_types.append(t)
                continue
            r = ir.RankedTensorType(t).rank + 1
            if not -r <= ax < r:
                _b.error(f"vmap: out_axes {ax} is out of range for an output of rank {r}")
            out_types.append(batched_type(t, B, ax + r if ax < 0 else ax))
        fop = info.func_op
        if _has_grad(mb.module.operation):
            try:
                _expand_grads(mb.module, fop)
            except Exception as e:  # AutodiffError
                _b.error(f"vmap: {e}")
        dname = mb.unique_name(name + "_vmap")
        with ir.InsertionPoint(mb.module.body), ir.Location.unknown():
            decl = func.FuncOp(dname, ir.FunctionType.get(in_types, out_types),
                               visibility="private")
        decl.attributes[VMAP_ATTR] = ir.DictAttr.get({
            "callee": ir.FlatSymbolRefAttr.get(info.name),
            "in_axes": axes_attr(in_axes_all),
            "out_axes": axes_attr(out_axes)})
        try:
            expand_declaration(mb.module, decl)
        except VmapError as e:
            decl.operation.erase()
            loc = e.loc
            msg = str(e)
            if loc is not None and loc.is_a_file():
                msg += f" (at {loc.filename}:{loc.start_line})"
            _b.error(msg)
        call = _b.emit(func.CallOp, out_types, ir.FlatSymbolRefAttr.get(dname),
                       [v for v in operands])
        return tree_unflatten(out_spec, [TensorValue(r) for r in call.operation.results])


def _out_leaf_axes(spec, ax):
    if spec == LEAF:
        if isinstance(ax, (tuple, list)):
            _b.error("vmap: out_axes has a tuple where the function returns a tensor")
        return [ax]
    kind = spec[0]
    if kind == "C":
        return []
    children = spec[2] if kind in ("nt", "dict") else spec[1]
    if ax is None or isinstance(ax, int):
        out = []
        for c in children:
            out.extend(_out_leaf_axes(c, ax))
        return out
    if len(ax) != len(children):
        _b.error("vmap: out_axes does not match the structure of the function's output")
    out = []
    for c, a in zip(children, ax):
        out.extend(_out_leaf_axes(c, a))
    return out


def vmap(fn, in_axes=0, out_axes=0):
    """Vectorizing map of `fn` (MindSpore `mindspore.vmap`): the returned
    function maps fn over the `in_axes` of its arguments and stacks the
    results along `out_axes`, by batching fn's IR (see passes/vmap/)."""
    return VmapFunction(fn, in_axes, out_axes)


vmap.__msmlir_transform__ = True
