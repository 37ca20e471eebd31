"""Custom derivatives: `msmlir.custom_bprop` and Cells with a `bprop` method.

MindSpore lets a Cell define `bprop(self, *inputs, out, dout)` returning one
gradient per input; autodiff then uses it instead of differentiating
`construct`. msmlir supports that for any callable object with user-written
`construct` and `bprop` methods (the nn.Cell protocol), and for functions:

    def my_bprop(x, y, out, dout):
        return dout * 2, None          # one entry per input; None = zero gradient

    @msmlir.custom_bprop(my_bprop)
    def f(x, y):
        return x * y

How it compiles (frontend side of the hook in passes/autodiff/custom_bprop.py):
each call site of such a callable emits

* `@<name>_custom(leaves..., params..., closed...)` — the forward (a call of
  the parsed function / construct) carrying `mindir.bprop = @<name>_bprop`;
* `@<name>_bprop_user(...)` — the user's bprop parsed like any function, with
  `out` and `dout` as arguments of the forward output's structure;
* `@<name>_bprop(operands..., results..., douts...) -> (one gradient per
  operand)` — the adapter mindir-autodiff calls: it calls the user bprop and
  maps its returned tuple to the operands (None -> zeros; Parameters and
  closed-over values of the forward get zeros; a gradient is cast /
  broadcast to its input's type when it differs).

Parameters used inside the bprop are passed to it as the forward's (unused)
operands, so they are run-time inputs too.
"""
from __future__ import annotations

import functools

from mlir import ir
from mlir.dialects import func

from .. import dtype as _dt
from ..arraylike import is_array
from ..frontend import builder as _b
from ..frontend.parser import invoke, set_custom_bprop_call
from ..frontend.trace import Frame, TensorSpec, call_operands
from ..ops import _base
from ..ops.array import broadcast_to
from ..ops.custom import set_custom_call
from ..pytree import tree_flatten, tree_unflatten
from ..frontend.values import TensorValue
from . import _transform as T

__all__ = ["custom_bprop", "CustomBpropFunction", "cell_call"]


def _is_tv(v):
    return isinstance(v, TensorValue)


def _spec_of(v: TensorValue) -> TensorSpec:
    return TensorSpec(tuple(v.shape), v.dtype)


def custom_call(fwd_target, bprop_target, args, kwargs, name: str, key):
    """Emits a call of `fwd_target(*args, **kwargs)` whose derivative is
    `bprop_target(*args, out, dout)`; returns the call's results."""
    mb = _b.current()
    args = T.as_tensor_args(list(args))
    for i, a in enumerate(args):
        if T.is_python_float(a):
            args[i] = _base.scalar_const(float(a), _dt.float32)

    def fwd(*a, **k):
        return invoke(fwd_target, list(a), k)
    fwd.__name__ = name
    sym = mb.unique_name(name + "_custom")
    with _b.calling(name):
        info = mb.function(fwd, args, kwargs, trace=True, close=True, name=sym,
                           key_extra=("custom", key))
    if info.func_op is None or not info.result_types:
        _b.error(f"custom bprop: '{name}' returns no tensor")
    fop = info.func_op
    if "mindir.bprop" not in fop.operation.attributes:
        _build_bprop(mb, info, bprop_target, args, kwargs, name)
    call = _b.emit(func.CallOp, info.result_types, ir.FlatSymbolRefAttr.get(info.name),
                   call_operands(info, args, kwargs))
    return tree_unflatten(info.out_spec, [TensorValue(r) for r in call.operation.results])


def _build_bprop(mb, info, bprop_target, args, kwargs, name):
    fop = info.func_op
    out_types = list(info.result_types)
    out_specs = [TensorSpec(tuple(ir.RankedTensorType(t).shape),
                            _dt.from_mlir(ir.RankedTensorType(t).element_type)) for t in out_types]
    out_struct = tree_unflatten(info.out_spec, out_specs)
    # arguments of the user bprop: the call's inputs (as fresh arguments), out, dout
    in_spec, in_leaves = tree_flatten((tuple(args), dict(kwargs)), _is_tv)
    b_args = list(tree_unflatten(in_spec, [_spec_of(v) for v in in_leaves])[0])

    def user(*a):
        return invoke(bprop_target, list(a[:-2]), {"out": a[-2], "dout": a[-1]}) \
            if _wants_kw(bprop_target) else invoke(bprop_target, list(a), {})
    user.__name__ = name + "_bprop_user"
    with _b.calling(name + ".bprop"):
        uinfo = mb.function(user, b_args + [out_struct, out_struct], {}, trace=True, close=True,
                            name=mb.unique_name(name + "_bprop_user"),
                            key_extra=("custom-bprop", id(info)))
    # the forward takes the Parameters / outer values the bprop uses too
    block = fop.regions[0].blocks[0]
    for p in uinfo.params:
        if all(p is not q for q in info.params):
            block.add_argument(_b.tensor_type(tuple(p.shape), p.dtype), ir.Location.unknown())
            info.params.append(p)
    for v in uinfo.closed:
        if all(v != w for w in info.closed):
            block.add_argument(v.type, ir.Location.unknown())
            info.closed.append(v)
    n_leaves = len(in_leaves)
    n_ops = len(block.arguments)
    fop.attributes["function_type"] = ir.TypeAttr.get(
        ir.FunctionType.get([a.type for a in block.arguments], out_types))
    op_types = [a.type for a in block.arguments]
    # the adapter @name_bprop(operands..., results..., douts...) -> grads per operand
    bname = mb.unique_name(name + "_bprop")
    ins = op_types + out_types + out_types
    with ir.InsertionPoint(mb.module.body), ir.Location.unknown():
        bop = func.FuncOp(bname, ir.FunctionType.get(ins, op_types), visibility="private")
        bblock = bop.regions[0].blocks.append(*ins, arg_locs=[ir.Location.unknown()] * len(ins))
    bargs = [TensorValue(a) for a in bblock.arguments]
    ops_v = bargs[:n_ops]
    res_v = bargs[n_ops:n_ops + len(out_types)]
    dout_v = bargs[n_ops + len(out_types):]
    param_of = {id(p): ops_v[n_leaves + i] for i, p in enumerate(info.params)}
    closed_of = [ops_v[n_leaves + len(info.params) + i] for i in range(len(info.closed))]
    fr = Frame(bblock)
    with ir.InsertionPoint(bblock), _b.frame(fr):
        u_ops = [v.value for v in ops_v[:n_leaves]] + [v.value for v in res_v] + \
                [v.value for v in dout_v]
        u_ops += [param_of[id(p)].value for p in uinfo.params]
        for v in uinfo.closed:
            j = next(i for i, w in enumerate(info.closed) if w == v)
            u_ops.append(closed_of[j].value)
        call = _b.emit(func.CallOp, uinfo.result_types, ir.FlatSymbolRefAttr.get(uinfo.name), u_ops)
        ret = tree_unflatten(uinfo.out_spec, [TensorValue(r) for r in call.operation.results])
        if isinstance(ret, list):
            ret = tuple(ret)
        if not isinstance(ret, tuple):
            ret = (ret,)
        nargs = len(args)
        if len(ret) != nargs:
            _b.error(f"the bprop of '{name}' returned {len(ret)} gradient(s) for {nargs} input(s) "
                     f"(it must return a tuple with one gradient per input; None for no gradient)")
        grads = []
        for a, g in zip(args, ret):
            aspec, aleaves = tree_flatten(a, _is_tv)
            if not aleaves:
                continue
            if g is None:
                grads.extend([None] * len(aleaves))
                continue
            gspec, gleaves = tree_flatten(g, lambda v: _is_tv(v) or v is None or T.is_python_float(v)
                                          or T.is_python_int(v) or is_array(v))
            if len(gleaves) != len(aleaves):
                _b.error(f"the bprop of '{name}' returned a gradient with {len(gleaves)} tensor(s) for "
                         f"an input with {len(aleaves)}")
            grads.extend(gleaves)
        outs = []
        for i, t in enumerate(op_types):
            rt = ir.RankedTensorType(t)
            g = grads[i] if i < len(grads) else None
            if g is None:
                outs.append(_base.scalar_const(0, _dt.from_mlir(rt.element_type), tuple(rt.shape)))
                continue
            g = _base.to_tensor(g, _dt.from_mlir(rt.element_type))
            if tuple(g.shape) != tuple(rt.shape):
                g = broadcast_to(g, tuple(rt.shape))
            outs.append(g)
        func.ReturnOp([o.value for o in outs])
    if len(bblock.arguments) != len(ins):
        _b.error(f"internal error: the bprop adapter of '{name}' captured values")
    fop.attributes["mindir.bprop"] = ir.FlatSymbolRefAttr.get(bname)


def _wants_kw(f) -> bool:
    """Does the bprop take `out`/`dout` by keyword (always true for Python
    functions with those parameter names)? Else they are passed positionally."""
    import inspect
    try:
        sig = inspect.signature(f)
    except (TypeError, ValueError):
        return False
    return "out" in sig.parameters and "dout" in sig.parameters


class CustomBpropFunction(T.Transform):
    """A function with a user-defined bprop (see `custom_bprop`)."""

    def __init__(self, fn, bprop):
        super().__init__()
        if not callable(fn) or not callable(bprop):
            raise TypeError("custom_bprop needs a callable function and a callable bprop")
        self.fn = fn
        self.bprop = bprop
        self.__name__ = T.fn_name(fn)
        functools.update_wrapper(self, fn, updated=())

    def _entry_name(self):
        return self.__name__

    def _build(self, args, kwargs):
        return custom_call(self.fn, self.bprop, args, kwargs, self.__name__, id(self))

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return functools.partial(self.__call__, obj)

    def __repr__(self):
        return f"<msmlir.custom_bprop {self.__name__}>"


def custom_bprop(bprop, fn=None):
    """Decorator: `@custom_bprop(bprop)` gives `fn` the derivative `bprop(*inputs,
    out, dout) -> tuple of one gradient per input` (None: zero). Also
    `custom_bprop(bprop, fn)`."""
    if fn is not None:
        return CustomBpropFunction(fn, bprop)
    return lambda f: CustomBpropFunction(f, bprop)


custom_bprop.__msmlir_transform__ = True


def cell_call(cell, args, kwargs):
    """A call, in code being compiled, of a Cell-like object with a user bprop:
    forward = `cell.construct`, derivative = `cell.bprop`."""
    name = type(cell).__name__
    if not name.isidentifier():
        name = "cell"
    construct = type(cell).construct      # the plain function: parsed with the cell as self

    def forward(*a, **k):
        return invoke(construct, [cell, *a], k)
    forward.__name__ = name
    return custom_call(forward, getattr(cell, "bprop"), args, kwargs, name, id(cell))


# The frontend and ops.Custom call these (layers below: they cannot import them).
set_custom_bprop_call(cell_call)
set_custom_call(custom_call)
