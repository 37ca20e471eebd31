"""@kernel: compute definitions -> `mskernel.fused {kind = #mskernel.kind<compute>}` kernels.

    from msmlir.kernel import kernel, In, compute, reduce_sum, exp

    @kernel
    def bias_mul(x: In[("n", "m")], b: In[("m",)]):
        return compute(("n", "m"), lambda i, j: x[i, j] * b[j])

    bias_mul(x_np, b_np)                        # compile (CPU) and run on numpy arrays
    bias_mul.grad(x_np, b_np, dout=g)           # kernel-level AD: [dx, db]
    bias_mul.build(x_val, b_val)                # emit the kernel into IR being built
    bias_mul.module(x_np, b_np)                 # a module holding func @bias_mul

A kernel function takes its inputs (annotated `In[shape]` or `In[shape, dtype]`,
shape entries ints or symbols bound by the actual shapes; unannotated inputs
take any shape) and returns one `compute(...)` tensor or a tuple of them.
It may define intermediate stages with further `compute` calls. All inputs
share one floating-point dtype (f16, bf16, f32, f64).

User derivative (AKG's custom fdiff): `@k.fdiff("x")` on
`def d(y, x, b, i, j): return ...` gives d y[i, j] / d x[...] at one loop point
of the output stage, in terms of the forward result `y` and the elements the
stage reads (the stage's loop variables follow the inputs). It replaces the
automatic derivative for the output stage's reads of `x`.
"""
from __future__ import annotations

import functools
import inspect
from typing import Callable

import numpy as np
from mlir import ir
from mlir.dialects import func as func_d

from msmlir.dialects import mskernel
from msmlir.dialects.enums import FusionKind, KernelTarget, enum_case
from msmlir.passes.symbols import unique_symbol

from .dsl import (Expr, Idx, IndexVar, KernelDefinitionError, Stage, Tensor, Trace, _TRACES,
                  as_expr)

_DTYPES = {"float16": "f16", "float32": "f32", "float64": "f64", "bfloat16": "bf16",
           "f16": "f16", "f32": "f32", "f64": "f64", "bf16": "bf16"}


class _InSpec:
    def __init__(self, shape, dtype=None):
        if isinstance(shape, (str, int)):
            shape = (shape,)
        self.shape = tuple(shape)
        self.dtype = _DTYPES.get(str(dtype), None) if dtype is not None else None
        if dtype is not None and self.dtype is None:
            raise KernelDefinitionError(f"In[...]: unsupported dtype {dtype!r}")

    def __repr__(self):
        return f"In[{self.shape}{', ' + self.dtype if self.dtype else ''}]"


class In:
    """Input annotation: `In[("n", "m")]`, `In[(4, "m"), "f32"]`."""

    def __class_getitem__(cls, item):
        if isinstance(item, tuple) and len(item) == 2 and isinstance(item[1], str) \
                and isinstance(item[0], (tuple, list)):
            return _InSpec(item[0], item[1])
        return _InSpec(item)


def _spec_of(x) -> tuple[tuple[int, ...], str]:
    """(shape, dtype) of a numpy array, an ir.Value/Type, or a (shape, dtype) pair."""
    if isinstance(x, ir.Value):
        x = x.type
    if isinstance(x, ir.Type):
        t = ir.RankedTensorType(x)
        return tuple(t.shape), str(t.element_type)
    if isinstance(x, tuple) and len(x) == 2 and isinstance(x[1], (str, np.dtype, type)):
        shape, dt = x
        return tuple(int(s) for s in shape), _dtype_name(dt)
    a = np.asarray(x)
    return tuple(a.shape), _dtype_name(a.dtype)


def _dtype_name(dt) -> str:
    if isinstance(dt, str) and dt in _DTYPES:
        return _DTYPES[dt]
    name = np.dtype(dt).name
    if name not in _DTYPES:
        raise KernelDefinitionError(f"kernel inputs must be floating point, got {name}")
    return _DTYPES[name]


class Kernel:
    """A compute definition (see the module docstring)."""

    def __init__(self, fn: Callable, name: str | None = None, target: str = "cpu",
                 fdiff: dict | None = None):
        self.fn = fn
        self.name = name or fn.__name__
        self.target = str(enum_case(KernelTarget, target, f"kernel {self.name}: target"))
        try:  # annotations may be strings (from __future__ import annotations)
            sig = inspect.signature(fn, eval_str=True)
        except Exception:
            sig = inspect.signature(fn)
        self.params = list(sig.parameters.values())
        for p in self.params:
            if p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
                raise KernelDefinitionError(f"kernel {self.name}: parameter '{p.name}' must be a "
                                            f"plain positional parameter (one per input tensor)")
        self.input_names = [p.name for p in self.params]
        self._fdiff: dict[str, Callable] = {}
        for k, v in (fdiff or {}).items():
            self.fdiff(k)(v)
        self._compiled: dict = {}
        try:
            self._loc = (inspect.getsourcefile(fn) or "<kernel>", fn.__code__.co_firstlineno)
        except TypeError:
            self._loc = ("<kernel>", 0)
        functools.update_wrapper(self, fn)

    # -- user derivatives -----------------------------------------------------------------

    def fdiff(self, input_name: str):
        """Decorator: a hand-written derivative of the output w.r.t. input `input_name`."""
        if input_name not in self.input_names:
            raise KernelDefinitionError(f"kernel {self.name} has no input '{input_name}' "
                                        f"(inputs: {', '.join(self.input_names)})")

        def deco(fn):
            self._fdiff[input_name] = fn
            self._compiled.clear()
            return fn
        return deco

    # -- tracing --------------------------------------------------------------------------

    def trace(self, *specs) -> Trace:
        if len(specs) != len(self.params):
            raise KernelDefinitionError(f"kernel {self.name} takes {len(self.params)} inputs, "
                                        f"got {len(specs)}")
        shapes = [_spec_of(s) for s in specs]
        dtypes = {d for _, d in shapes}
        if len(dtypes) != 1:
            raise KernelDefinitionError(f"kernel {self.name}: all inputs must share one dtype, "
                                        f"got {sorted(dtypes)}")
        dtype = dtypes.pop()
        symbols: dict = {}
        for p, (shape, dt) in zip(self.params, shapes):
            ann = p.annotation
            if isinstance(ann, _InSpec):
                if len(ann.shape) != len(shape):
                    raise KernelDefinitionError(f"kernel {self.name}: input '{p.name}' is declared "
                                                f"with rank {len(ann.shape)} but has shape {shape}")
                if ann.dtype and ann.dtype != dt:
                    raise KernelDefinitionError(f"kernel {self.name}: input '{p.name}' is declared "
                                                f"{ann.dtype} but is {dt}")
                for s, n in zip(ann.shape, shape):
                    if isinstance(s, str):
                        if symbols.setdefault(s, n) != n:
                            raise KernelDefinitionError(
                                f"kernel {self.name}: shape symbol '{s}' is {symbols[s]} and {n}")
                    elif int(s) != n:
                        raise KernelDefinitionError(f"kernel {self.name}: input '{p.name}' must have "
                                                    f"shape {ann.shape}, got {shape}")
        tr = Trace(dtype, symbols)
        tr.inputs = [Tensor(p.name, shape, dt, "input", i)
                     for i, (p, (shape, dt)) in enumerate(zip(self.params, shapes))]
        _TRACES.append(tr)
        try:
            out = self.fn(*tr.inputs)
        finally:
            _TRACES.pop()
        outs = out if isinstance(out, tuple) else (out,)
        if not outs or not all(isinstance(o, Tensor) and o.role == "stage" for o in outs):
            raise KernelDefinitionError(f"kernel {self.name} must return compute(...) tensors")
        tr.outputs = list(outs)
        tr.multi = isinstance(out, tuple)
        return tr

    # -- IR -------------------------------------------------------------------------------

    def build(self, *values: ir.Value):
        """Emits the kernel (mskernel.fused) at the current insertion point; returns its
        result Value (a tuple for kernels returning several tensors)."""
        tr = self.trace(*[v.type for v in values])
        loc = ir.Location.file(self._loc[0], self._loc[1], 1) if self._loc[1] else \
            ir.Location.unknown()
        types = [ir.RankedTensorType.get(list(t.shape), ir.Type.parse(t.dtype))
                 for t in tr.outputs]
        with loc:
            op = mskernel.FusedOp(types, list(values), target=enum_case(KernelTarget, self.target),
                                  kind=FusionKind.compute)
            block = op.regions[0].blocks.append(*[v.type for v in values])
            env = {t: a for t, a in zip(tr.inputs, block.arguments)}
            plans = {}
            with ir.InsertionPoint(block):
                for st in tr.stages:
                    plans[st.tensor] = _emit_stage(st, env, tr.dtype)
                mskernel.YieldOp([env[t] for t in tr.outputs])
            if self._fdiff:
                self._emit_fdiff(op, tr, plans)
        res = list(op.results)
        return tuple(res) if tr.multi else res[0]

    def _emit_fdiff(self, op, tr: Trace, plans: dict):
        _, E = _passes()
        out = tr.outputs[0]
        st = next(s for s in tr.stages if s.tensor is out)
        plan = plans[out]
        module = _enclosing_module(op.operation)
        entries = {}
        for name, fn in self._fdiff.items():
            idx = self.input_names.index(name)
            y = Tensor("y", out.shape, tr.dtype, "output", -1)
            _TRACES.append(tr)
            try:
                d = as_expr(fn(y, *tr.inputs, *st.all_vars))
            finally:
                _TRACES.pop()
            node = _to_node(d, plan, tr.dtype, fdiff_output=(y, st.vars))
            sym = unique_symbol(module, f"{self.name}_fdiff_{name}")
            scalar = ir.Type.parse(tr.dtype)
            with ir.InsertionPoint(module.regions[0].blocks[0]):
                f = func_d.FuncOp(sym, ir.FunctionType.get([scalar] * (1 + len(plan.operands)),
                                                           [scalar]), visibility="private")
                f.attributes["mskernel.fdiff_fn"] = ir.UnitAttr.get()
                blk = f.add_entry_block()
                with ir.InsertionPoint(blk):
                    env = {("y", 0): blk.arguments[0]}
                    env.update({("read", k): a for k, a in enumerate(list(blk.arguments)[1:])})
                    (v,) = E.emit([node], env)
                    func_d.ReturnOp([v])
            entries[f"in{idx}"] = ir.FlatSymbolRefAttr.get(sym)
        op.operation.attributes["mskernel.fdiff"] = ir.DictAttr.get(entries)

    def module(self, *specs, func_name: str | None = None) -> ir.Module:
        """A module with `func.func @<name>(inputs) -> outputs` applying the kernel."""
        from msmlir.compiler import context
        shapes = [_spec_of(s) for s in specs]
        ctx = context()
        with ctx, ir.Location.unknown():
            types = [ir.RankedTensorType.get(list(s), ir.Type.parse(d)) for s, d in shapes]
            m = ir.Module.create()
            with ir.InsertionPoint(m.body):
                tr = self.trace(*specs)
                outs = [ir.RankedTensorType.get(list(t.shape), ir.Type.parse(t.dtype))
                        for t in tr.outputs]
                f = func_d.FuncOp(func_name or self.name, ir.FunctionType.get(types, outs))
                blk = f.add_entry_block()
                with ir.InsertionPoint(blk):
                    r = self.build(*blk.arguments)
                    func_d.ReturnOp(list(r) if isinstance(r, tuple) else [r])
        return m

    def grad_module(self, *specs, wrt=None) -> ir.Module:
        """module() plus `@<name>_grad(inputs..., douts...) -> grads` made by kernel-level
        AD (the mskernel-autodiff pass). wrt: input names or numbers (default: all)."""
        from msmlir.passes import run_pipeline
        m = self.module(*specs)
        wrt_idx = self._wrt(wrt)
        with m.context:
            f = next(o for o in m.body.operations if o.operation.name == "func.func" and
                     ir.StringAttr(o.attributes["sym_name"]).value == self.name)
            f.attributes["mskernel.grad"] = ir.DictAttr.get({
                "name": ir.StringAttr.get(f"{self.name}_grad"),
                "wrt": ir.DenseI64ArrayAttr.get(wrt_idx)})
            run_pipeline(m, "builtin.module(mskernel-autodiff)")
        return m

    def _wrt(self, wrt) -> list[int]:
        if wrt is None:
            return list(range(len(self.input_names)))
        if isinstance(wrt, (str, int)):
            wrt = [wrt]
        out = []
        for w in wrt:
            if isinstance(w, str):
                if w not in self.input_names:
                    raise KernelDefinitionError(f"kernel {self.name} has no input '{w}'")
                w = self.input_names.index(w)
            out.append(int(w))
        return out

    # -- running (CPU) ----------------------------------------------------------------------

    def _compile(self, key, make):
        c = self._compiled.get(key)
        if c is None:
            from msmlir.compiler import compile_module
            from msmlir.passes import run_pipeline
            m = make()
            with m.context:
                run_pipeline(m, "builtin.module(mskernel-inline-kernels)")
            c = self._compiled[key] = compile_module(m)
        return c

    def __call__(self, *arrays):
        arrays = [np.asarray(a) for a in arrays]
        key = ("fwd",) + tuple(_spec_of(a) for a in arrays)
        c = self._compile(key, lambda: self.module(*arrays))
        out = c.call(self.name, *arrays)
        return out[0] if len(out) == 1 else out

    def grad(self, *arrays, dout, wrt=None):
        """Gradients of sum(output * dout) w.r.t. the `wrt` inputs (list, in wrt order)."""
        arrays = [np.asarray(a) for a in arrays]
        douts = list(dout) if isinstance(dout, (list, tuple)) else [dout]
        wrt_idx = self._wrt(wrt)
        key = ("grad", tuple(wrt_idx)) + tuple(_spec_of(a) for a in arrays)
        c = self._compile(key, lambda: self.grad_module(*arrays, wrt=wrt_idx))
        return list(c.call(f"{self.name}_grad", *arrays, *[np.asarray(d) for d in douts]))


def kernel(fn: Callable | None = None, *, name: str | None = None, target: str = "cpu",
           fdiff: dict | None = None):
    """Decorator turning a compute definition into a Kernel (see the module docstring)."""
    if fn is None:
        return lambda f: Kernel(f, name=name, target=target, fdiff=fdiff)
    return Kernel(fn, name=name, target=target, fdiff=fdiff)


# --- emission ----------------------------------------------------------------------------

class _Plan:
    """A stage's generic: its loop dims and operands (tensor, indices, map)."""

    def __init__(self, st: Stage):
        self.stage = st
        self.dims = st.all_vars
        self.pos = {v: i for i, v in enumerate(self.dims)}
        self.operands: list = []   # (Tensor, ir.AffineMap)
        self._index: dict = {}

    def affine(self, i: Idx) -> ir.AffineExpr:
        k = i.kind
        if k == "var":
            if i not in self.pos:
                raise KernelDefinitionError(f"loop variable '{i.name}' used outside its compute()")
            return ir.AffineDimExpr.get(self.pos[i])
        if k == "const":
            return ir.AffineConstantExpr.get(i.a)
        a, b = self.affine(i.a), self.affine(i.b)
        if k == "add":
            return a + b
        if k == "mul":
            return a * b
        if k == "floordiv":
            return ir.AffineExpr.get_floor_div(a, b)
        if k == "mod":
            return ir.AffineExpr.get_mod(a, b)
        raise AssertionError(k)

    def read(self, t: Tensor, idx: tuple, create: bool = True) -> int:
        m = ir.AffineMap.get(len(self.dims), 0, [self.affine(i) for i in idx])
        key = (id(t), str(m))
        k = self._index.get(key)
        if k is None:
            if not create:
                raise KernelDefinitionError(
                    f"fdiff reads {t.name}{list(idx)}, which the output stage does not read "
                    f"(an fdiff may read the forward result at the output point and the "
                    f"elements the stage reads)")
            k = self._index[key] = len(self.operands)
            self.operands.append((t, m))
        return k


_UNARY = {"exp": "math.exp", "log": "math.log", "tanh": "math.tanh", "sqrt": "math.sqrt",
          "rsqrt": "math.rsqrt", "sin": "math.sin", "cos": "math.cos", "erf": "math.erf",
          "log1p": "math.log1p", "expm1": "math.expm1", "floor": "math.floor",
          "ceil": "math.ceil", "abs": "math.absf", "neg": "arith.negf"}
_BINARY = {"add": "arith.addf", "sub": "arith.subf", "mul": "arith.mulf", "div": "arith.divf",
           "pow": "math.powf", "max": "arith.maximumf", "min": "arith.minimumf"}
_INDEX_OPS = {"add": "arith.addi", "mul": "arith.muli", "floordiv": "arith.floordivsi",
              "mod": "arith.remsi"}
_COMBINE = {"sum": ("arith.addf", 0.0), "max": ("arith.maximumf", float("-inf")),
            "min": ("arith.minimumf", float("inf"))}
_CMPF = {"oeq": 1, "ogt": 2, "oge": 3, "olt": 4, "ole": 5, "one": 6}


def _passes():
    """The IR helpers of msmlir.passes.kernel (imported on first use, so that
    `import msmlir` stays light)."""
    from msmlir.passes.kernel import builders, expr
    return builders, expr


def _to_node(e: Expr, plan: _Plan, dtype: str, fdiff_output=None, create=True):
    _, E = _passes()
    memo: dict = {}

    def idx_node(i: Idx) -> E.Node:
        if i.kind == "var":
            if i not in plan.pos:
                raise KernelDefinitionError(f"loop variable '{i.name}' used outside its compute()")
            return E.raw("linalg.index", (), "index", (("dim", f"{plan.pos[i]} : i64"),))
        if i.kind == "const":
            return E.const(i.a, "index")
        return E.raw(_INDEX_OPS[i.kind], (idx_node(i.a), idx_node(i.b)), "index")

    def go(x: Expr) -> E.Node:
        r = memo.get(id(x))
        if r is not None:
            return r
        op = x.op
        if op == "const":
            r = E.const(x.attr, dtype)
        elif op == "read":
            t, idx = x.args
            if fdiff_output is not None and t is fdiff_output[0]:
                if tuple(idx) != tuple(fdiff_output[1]) or any(not isinstance(i, IndexVar)
                                                                for i in idx):
                    raise KernelDefinitionError("an fdiff may read the forward result y only at "
                                                "the output point y[i, j, ...]")
                r = E.leaf(("y", 0), dtype)
            else:
                k = plan.read(t, idx, create=create and fdiff_output is None)
                r = E.leaf(("read", k), dtype)
        elif op == "index":
            if fdiff_output is not None:
                raise KernelDefinitionError("an fdiff cannot use loop variables as values")
            n = E.raw("arith.index_cast", (idx_node(x.args[0]),), "i64")
            r = E.raw("arith.sitofp", (n,), dtype)
        elif op == "unary":
            r = E.raw(_UNARY[x.attr], (go(x.args[0]),), dtype)
        elif op == "binary":
            r = E.raw(_BINARY[x.attr], (go(x.args[0]), go(x.args[1])), dtype)
        elif op == "cmp":
            r = E.raw("arith.cmpf", (go(x.args[0]), go(x.args[1])), "i1",
                      (("predicate", f"{_CMPF[x.attr]} : i64"),))
        elif op == "select":
            r = E.raw("arith.select", tuple(go(a) for a in x.args), dtype)
        elif op == "reduce":
            raise KernelDefinitionError("internal: nested reduction left in a stage")
        else:
            raise AssertionError(op)
        memo[id(x)] = r
        return r

    return go(e)


def _emit_stage(st: Stage, env: dict, dtype: str) -> _Plan:
    B, E = _passes()
    plan = _Plan(st)
    red = st.reduce
    body = st.body.args[0] if red else st.body
    node = _to_node(body, plan, dtype)
    n = len(plan.dims)
    rank = len(st.vars)
    elem = ir.Type.parse(dtype)
    out_t = ir.RankedTensorType.get(list(st.tensor.shape), elem)
    out_map = ir.AffineMap.get(n, 0, [ir.AffineDimExpr.get(d) for d in range(rank)])
    loc = ir.Location.file(st.loc[0], st.loc[1], 1) if st.loc else ir.Location.unknown()
    with loc:
        if red:
            comb, ident = _COMBINE[red[0]]
            init = B.filled(out_t, ident)
        else:
            init = B.empty(out_t.shape, elem)
        inputs = [env[t] for t, _ in plan.operands]
        maps = [m for _, m in plan.operands]
        extents = [v.extent for v in plan.dims]
        extra = B.shape_operand(n, extents, maps + [out_map])
        if extra is not None:
            inputs.append(extra[0])
            maps.append(extra[1])
        iters = ["parallel"] * rank + ["reduction"] * (n - rank)

        def body_fn(ins, acc):
            leaves = {("read", k): ins[k] for k in range(len(plan.operands))}
            (v,) = E.emit([node], leaves)
            if red:
                v = ir.Operation.create(comb, results=[elem], operands=[acc, v]).result
            return v

        env[st.tensor] = B.generic(inputs, maps, init, out_map, iters, body_fn)
    return plan


def _enclosing_module(op: ir.Operation) -> ir.Operation:
    p = op
    while p is not None and p.name != "builtin.module":
        p = p.parent
        p = p.operation if p is not None else None
    if p is None:
        raise KernelDefinitionError("a kernel with an fdiff must be built inside a module")
    return p




