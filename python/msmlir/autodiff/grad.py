"""`msmlir.grad`, `msmlir.value_and_grad`, `msmlir.vjp`, `ops.GradOperation`
(MindSpore 2.x semantics), by source transformation.

Calling a gradient function builds, in the module being compiled:

1. the *forward function* `@<fn>_fn(leaves..., weights..., captured...,
   closed...)`: `fn` specialized to the argument signature, whose arguments are
   the flattened tensor leaves of the call's arguments, then the `weights`
   (Parameters bound to arguments, see frontend/builder.py), then any other
   Parameter `fn` uses and the enclosing-function values a jit-local `fn`
   closes over;
2. at the call site, one `mindir.grad @<fn>_fn(...) [sens(...)]` op with
   `grad_position` = the leaves of the requested positions and the weights,
   `has_aux` and `return_value` (value_and_grad).

`mindir-autodiff` then expands the op into forward + backward functions (run by
the compiler before the CPU pipeline). Nothing is traced or taped at run time;
`grad(grad(f))` nests `mindir.grad` ops, which the pass expands inside out.

Return structure (as MindSpore's `mindspore.grad`):
* grad_position int -> one gradient; tuple -> tuple of gradients;
* weights only (grad_position=None) -> a tuple of weight gradients (a single
  gradient when `weights` is one Parameter);
* both -> (position gradients, weight gradients);
* has_aux: `grad` returns (gradients, aux) where aux is the tuple of fn's
  outputs after the first; `value_and_grad` returns (value, gradients) where
  value is fn's whole output; aux outputs carry no gradient (stop_gradient);
* without has_aux and several outputs, the gradient is that of their sum
  (each output's sensitivity is ones), as MindSpore.

Sensitivities: `sens_param=True` (MindSpore's `GradOperation(sens_param=True)`)
makes the gradient function take one more positional argument, the initial
cotangent of fn's output (of its first output with has_aux), with the output's
structure; `msmlir.vjp(fn, *inputs)` is the MindSpore 2.x functional form.
A Python float at a differentiated position becomes a float32 0-d tensor.
"""
from __future__ import annotations

from mlir import ir

from .. import dtype as _dt
from ..arraylike import is_array
from ..frontend import builder as _b
from ..frontend.parser import invoke
from ..frontend.trace import call_operands
from ..pytree import LEAF, tree_flatten, tree_unflatten
from ..frontend.values import TensorValue
from . import _transform as T

__all__ = ["grad", "value_and_grad", "vjp", "GradOperation", "GradFunction"]

_ALL = "all"     # grad_position sentinel: every positional argument (GradOperation get_all)


def _is_tv(v):
    return isinstance(v, TensorValue)


def _norm_positions(grad_position):
    if grad_position is None or grad_position == _ALL:
        return grad_position
    if isinstance(grad_position, bool):
        raise TypeError(f"grad_position must be an int, a tuple of ints or None, got "
                        f"{grad_position!r}")
    if isinstance(grad_position, int):
        return grad_position
    if isinstance(grad_position, (tuple, list)):
        if not grad_position:
            raise ValueError("grad_position must not be an empty tuple")
        for p in grad_position:
            if isinstance(p, bool) or not isinstance(p, int):
                raise TypeError(f"grad_position must contain ints, got {p!r}")
        return tuple(grad_position)
    raise TypeError(f"grad_position must be an int, a tuple of ints or None, got "
                    f"{grad_position!r}")


def _norm_weights(weights):
    """(list of Parameters, single?) ; None -> ([], False)."""
    if weights is None:
        return [], False
    if _b.is_parameter(weights):
        return [weights], True
    if isinstance(weights, dict):
        weights = list(weights.values())
    try:
        items = list(weights)
    except TypeError:
        raise TypeError(f"weights must be a Parameter, a list/tuple of Parameters (e.g. "
                        f"net.trainable_params()) or None, got {type(weights).__name__}") from None
    for w in items:
        if not _b.is_parameter(w):
            raise TypeError(f"weights must contain Parameters, got {type(w).__name__} (a tensor "
                            f"that should be differentiated is passed as an argument and named "
                            f"in grad_position)")
    return items, False


class GradFunction(T.Transform):
    """The function returned by `grad` / `value_and_grad`."""

    def __init__(self, fn, grad_position=0, weights=None, has_aux=False, return_value=False,
                 sens_param=False, return_single_all=False):
        super().__init__()
        if not callable(fn):
            raise TypeError(f"grad expects a callable, got {type(fn).__name__}")
        self.fn = fn
        self.grad_position = _norm_positions(grad_position)
        self.weights, self.single_weight = _norm_weights(weights)
        self.weights_given = weights is not None   # an empty list still gives (pos, ())
        if self.grad_position is None and weights is None:
            raise ValueError("grad_position and weights can not be None at the same time")
        self.has_aux = bool(has_aux)
        self.return_value = bool(return_value)
        self.sens_param = bool(sens_param)
        self.return_single_all = return_single_all
        self.__name__ = ("value_and_grad_" if return_value else "grad_") + T.fn_name(fn)
        self.__doc__ = getattr(fn, "__doc__", None)

        transform = self

        def forward(*args, **kwargs):
            return invoke(transform.fn, list(args), kwargs)
        forward.__name__ = T.fn_name(fn) + "_fn"
        self._forward = forward

    def _entry_name(self) -> str:
        return self.__name__

    def __call__(self, *args, **kwargs):
        __tracebackhide__ = True  # noqa: F841
        out = super().__call__(*args, **kwargs)
        return out if T.building() else self._run_hooks(list(args), out)

    def _run_hooks(self, args, out):
        """Tensor.register_hook in PyNative: the hooks of a differentiated argument or weight
        rewrite its gradient (MindSpore runs them in its backward pass; here the backward
        pass is compiled, so they run on its results)."""
        def hooked(t):
            return bool(getattr(t, "__dict__", {}).get("_grad_hooks"))

        args = args[:-1] if self.sens_param and args else args
        positions = self._positions(len(args))
        if not any(hooked(args[p]) for p in positions) and not any(map(hooked, self.weights)):
            return out

        def run(t, g):
            return t._run_grad_hooks(g) if hooked(t) else g

        def weights(wg):
            if self.single_weight:
                return run(self.weights[0], wg)
            return tuple(run(w, g) for w, g in zip(self.weights, wg))

        if self.has_aux and not self.return_value:
            g, aux = out
            rebuild = lambda g2: (g2, aux)   # noqa: E731
        elif self.return_value or self.has_aux:
            value, g = out
            rebuild = lambda g2: (value, g2)   # noqa: E731
        else:
            g, rebuild = out, (lambda g2: g2)
        gp = self.grad_position
        if gp is None:
            return rebuild(weights(g))
        gpos, wg = g if self.weights_given else (g, None)
        if isinstance(gp, int) or (gp == _ALL and self.return_single_all and len(positions) == 1):
            gpos = run(args[positions[0]], gpos)
        else:
            gpos = tuple(run(args[p], x) for p, x in zip(positions, gpos))
        return rebuild((gpos, weights(wg)) if self.weights_given else gpos)

    def __repr__(self):
        kind = "value_and_grad" if self.return_value else "grad"
        return f"<msmlir.{kind} of {self.fn!r}>"

    # -- positions -------------------------------------------------------------------------
    def _positions(self, nargs):
        gp = self.grad_position
        if gp is None:
            return []
        if gp == _ALL:
            return list(range(nargs))
        ps = [gp] if isinstance(gp, int) else list(gp)
        out = []
        for p in ps:
            q = p + nargs if p < 0 else p
            if not 0 <= q < nargs:
                _b.error(f"grad_position {p} is out of range: the function is called with "
                         f"{nargs} positional argument(s)")
            out.append(q)
        return out

    def _split_sens(self, args):
        if not self.sens_param:
            return args, None
        if not args:
            _b.error("sens_param=True: the gradient function takes the sensitivity (the initial "
                     "gradient of the output) as its last positional argument")
        return args[:-1], args[-1]

    def _eager_args(self, args, kwargs):
        args, sens = (args[:-1], args[-1]) if self.sens_param and args else (args, None)
        import numpy as np
        positions = set()
        gp = self.grad_position
        if gp == _ALL:
            positions = set(range(len(args)))
        elif gp is not None:
            for p in ([gp] if isinstance(gp, int) else gp):
                positions.add(p + len(args) if p < 0 else p)
        args = [np.asarray(a, dtype=np.float32) if (i in positions and T.is_python_float(a))
                else a for i, a in enumerate(args)]
        if self.sens_param and sens is not None:
            args.append(np.asarray(sens, dtype=np.float32) if T.is_python_float(sens) else sens)
        return args, kwargs

    # -- building ------------------------------------------------------------------------------
    def _build(self, args, kwargs):
        from ..dialects import mindir
        from ..ops import _base
        from ..ops.math import stop_gradient
        args, sens = self._split_sens(list(args))
        positions = self._positions(len(args))
        args = T.as_tensor_args(args)
        for p in positions:
            a = args[p]
            if T.is_python_float(a):
                args[p] = _base.scalar_const(float(a), _dt.float32)
            elif isinstance(a, TensorValue) or (type(a) in (tuple, list) and
                                                tree_flatten(a, _is_tv)[1]):
                continue
            else:
                _b.error(f"grad_position {p}: cannot differentiate with respect to "
                         f"{T.fn_name(type(a)) if not T.is_python_int(a) else 'the Python int ' + repr(a)}"
                         f" (pass a float tensor or a Python float)")
        # leaf ranges of the positional arguments
        offsets, k = [], 0
        for a in args:
            n = len(tree_flatten(a, _is_tv)[1])
            offsets.append((k, n))
            k += n
        mb = _b.current()
        name = mb.unique_name(T.fn_name(self.fn) + "_fn")
        with _b.calling(T.fn_name(self.fn)):
            info = mb.function(self._forward, args, kwargs, trace=True, params=self.weights,
                               close=True, name=name, key_extra=("grad", id(self)))
        if info.func_op is None or not info.result_types:
            _b.error(f"grad: '{T.fn_name(self.fn)}' returns no tensor to differentiate")
        n_leaves = len(tree_flatten((tuple(args), dict(kwargs)), _is_tv)[1])
        leaf_positions = []
        for p in positions:
            s, n = offsets[p]
            leaf_positions.extend(range(s, s + n))
        weight_positions = [n_leaves + j for j in range(len(self.weights))]
        out_spec, rtypes = info.out_spec, list(info.result_types)
        if self.has_aux:
            ok = out_spec[0] in ("tuple", "list") and len(out_spec[1]) >= 1 and \
                out_spec[1][0] == LEAF
            if not ok:
                _b.error("has_aux=True: the function must return a tuple whose first element is "
                         "the tensor to differentiate (the others are returned as aux)")
        operands = call_operands(info, args, kwargs)
        arg_types = [v.type for v in operands]
        # sensitivities
        sens_vals = []
        if self.sens_param:
            ndiff = 1 if self.has_aux else len(rtypes)
            sens_spec, sens_leaves = tree_flatten(sens, lambda v: _is_tv(v) or is_array(v)
                                                  or T.is_python_float(v) or T.is_python_int(v))
            if len(sens_leaves) != ndiff:
                _b.error(f"sens_param=True: the sensitivity has {len(sens_leaves)} tensor(s), "
                         f"the differentiated output has {ndiff}")
            for lf, t in zip(sens_leaves, rtypes[:ndiff]):
                rt = ir.RankedTensorType(t)
                dt = _dt.from_mlir(rt.element_type)
                v = _base.to_tensor(lf, dt)
                if tuple(v.shape) != tuple(rt.shape):
                    from ..ops.array import broadcast_to
                    v = broadcast_to(v, tuple(rt.shape))
                sens_vals.append(v.value)
        all_positions = leaf_positions + weight_positions
        grad_types = [arg_types[p] for p in all_positions]
        out_types = (rtypes if self.return_value or self.has_aux else []) + grad_types
        attrs = {}
        if self.has_aux:
            attrs["has_aux"] = ir.UnitAttr.get()
        if self.return_value or self.has_aux:
            attrs["return_value"] = ir.UnitAttr.get()
        op = _b.emit(mindir.GradOp, out_types, ir.FlatSymbolRefAttr.get(info.name), operands,
                     sens_vals, _b.i64_array(all_positions), **attrs)
        results = [TensorValue(r) for r in op.operation.results]
        nv = len(rtypes) if (self.return_value or self.has_aux) else 0
        values, grads = results[:nv], results[nv:]
        # structure the gradients
        gi = 0
        pos_grads = []
        for p in positions:
            spec, leaves = tree_flatten(args[p], _is_tv)
            pos_grads.append(tree_unflatten(_consts_to_none(spec), grads[gi:gi + len(leaves)]))
            gi += len(leaves)
        w_grads = grads[gi:]
        gp = self.grad_position
        if gp is None:
            g = w_grads[0] if self.single_weight else tuple(w_grads)
        else:
            if isinstance(gp, int) or (gp == _ALL and self.return_single_all and len(pos_grads) == 1):
                gpos = pos_grads[0]
            else:
                gpos = tuple(pos_grads)
            if self.weights_given:
                wg = w_grads[0] if self.single_weight else tuple(w_grads)
                g = (gpos, wg)
            else:
                g = gpos
        if not (self.return_value or self.has_aux):
            return g
        value = tree_unflatten(out_spec, values)
        if self.has_aux:
            value = type(value)([value[0]] + [_stop_tree(v, stop_gradient) for v in value[1:]])
            if not self.return_value:
                return g, tuple(value[1:])
        return value, g


def _stop_tree(v, stop_gradient):
    spec, leaves = tree_flatten(v, _is_tv)
    return tree_unflatten(spec, [stop_gradient(x) for x in leaves])


def _consts_to_none(spec):
    kind = spec[0]
    if kind == "L":
        return spec
    if kind == "C":
        return ("C", None)
    if kind in ("nt", "dict"):
        return (kind, spec[1], tuple(_consts_to_none(c) for c in spec[2]))
    return (kind, tuple(_consts_to_none(c) for c in spec[1]))


def grad(fn, grad_position=0, weights=None, has_aux=False, *, sens_param=False):
    """The gradient function of `fn` (MindSpore 2.x `mindspore.grad`).

    Args:
        fn: a function, jitted function, method, Cell or another transform.
        grad_position: int, tuple of ints, or None (only weights).
        weights: None, a Parameter or a list/tuple of Parameters (e.g.
            `net.trainable_params()`); they need not be arguments of `fn`: fn
            uses them (as `self.w`, a global, ...) and they become arguments of
            the compiled forward function.
        has_aux: only fn's first output is differentiated; returns
            (gradients, aux) with aux = fn's other outputs (no gradient).
        sens_param: the returned function takes the initial gradient of fn's
            output (with the output's structure) as an extra last argument.
    """
    return GradFunction(fn, grad_position, weights, has_aux, return_value=False,
                        sens_param=sens_param)


def value_and_grad(fn, grad_position=0, weights=None, has_aux=False, *, sens_param=False):
    """Like `grad`, returning (fn's output, gradients) (MindSpore `value_and_grad`)."""
    return GradFunction(fn, grad_position, weights, has_aux, return_value=True,
                        sens_param=sens_param)


grad.__msmlir_transform__ = True
value_and_grad.__msmlir_transform__ = True


def vjp(fn, *inputs, weights=None, has_aux=False):
    """MindSpore 2.x `mindspore.vjp`: returns (fn(*inputs), vjp_fn) — or
    (outputs, vjp_fn, aux) with has_aux — where vjp_fn(v) is the gradient
    w.r.t. the inputs of <v, fn(inputs)> (v has the structure of the output;
    with has_aux, of the first output). vjp_fn returns one gradient for one
    input, else a tuple (weights given: (input grads, weight grads))."""
    n = len(inputs)
    if n == 0:
        raise ValueError("vjp needs at least one input")
    position = 0 if n == 1 else tuple(range(n))
    gf = GradFunction(fn, position, weights, has_aux, return_value=False, sens_param=True)
    if T.building():
        out = invoke(fn, list(inputs), {})
    else:
        from ..frontend.jit import JitFunction

        def _fwd(*a):
            return invoke(fn, list(a), {})
        _fwd.__name__ = T.fn_name(fn)
        out = JitFunction(_fwd, trace=True)(*inputs)

    def vjp_fn(*v):
        sens = v[0] if len(v) == 1 else tuple(v)
        r = gf(*inputs, sens)
        return r[0] if has_aux else r
    vjp_fn.__msmlir_transform__ = True
    if has_aux:
        if not isinstance(out, (tuple, list)) or len(out) < 2:
            raise ValueError("vjp(has_aux=True): fn must return a tuple (output, aux...)")
        return out[0], vjp_fn, tuple(out[1:])
    return out, vjp_fn


vjp.__msmlir_transform__ = True


class GradOperation:
    """MindSpore's `ops.GradOperation(get_all=False, get_by_list=False,
    sens_param=False)`: `GradOperation(...)(fn, weights)` is the gradient
    function. Default: the gradient w.r.t. the first input; get_all: a tuple
    over all inputs; get_by_list: a tuple over `weights`; both: (inputs' grads,
    weights' grads); sens_param: the last argument is the output's sensitivity."""

    __msmlir_transform__ = True

    def __init__(self, get_all=False, get_by_list=False, sens_param=False):
        self.get_all = bool(get_all)
        self.get_by_list = bool(get_by_list)
        self.sens_param = bool(sens_param)

    def __call__(self, fn, weights=None):
        if self.get_by_list:
            # without weights MindSpore accepts the call: the weight gradients are then
            # an empty tuple
            ws = [] if weights is None else (
                [weights] if _b.is_parameter(weights) else list(weights))
        else:
            ws = None
        if self.get_all:
            position = _ALL
        elif self.get_by_list:
            position = None
        else:
            position = 0
        return GradFunction(fn, position, ws, False, return_value=False,
                            sens_param=self.sens_param)
