"""Trace state: the module and the function being built, and building by tracing.

Layer 2, under `msmlir.ops`, because the ops need it to run eagerly: an op
called outside `jit` (PyNative) is traced into a one-function module, compiled
and run here (`eager_call`) without the parser. The parser (layer 4) plugs
itself in with `set_parser`, so `ModuleBuilder` parses a user function's
source when one is given and `trace=False`.

* `ModuleBuilder` builds one `builtin.module`: the entry function and every
  specialization of the user functions it calls.
* `Frame` / `param_value`: how Parameters become function arguments, and the
  RNG counter of the random ops (see frontend/builder.py, "Function frames").
* `build_module` / `Lowered`: one compiled specialization (used by jit).
* `eager_call`: PyNative execution of an op or a composite of ops.
"""
from __future__ import annotations

import functools
import os
import threading
import time
import weakref
from dataclasses import dataclass, field

import numpy as np
from mlir import ir
from mlir.dialects import func

from .. import dtype as _dt
from ..arraylike import as_array, has_array, host_wrapper, is_array, result_wrapper, wrap_results
from ..dialects import mindir
from ..errors import CompileError, SourcePos
from ..pytree import LEAF, const_key, iter_leaves, spec_key, tree_flatten, tree_unflatten
from ..seed import next_rng_offset
from . import builder as _b
from .values import TensorValue

__all__ = ["ModuleBuilder", "TensorSpec", "FuncInfo", "Frame", "param_value", "rng_offset",
           "RNG_COUNTER", "call_operands", "close_over", "set_parser", "build_module", "Lowered",
           "BUILD_LOCK", "ParameterChanged", "eager_call", "abstract_args", "fast_args", "expand_transforms",
           "strip_error"]

MAX_CALL_DEPTH = 200    # nested calls of user functions


def _is_tensor_value(v):
    return isinstance(v, TensorValue)


# ---------------------------------------------------------------------------
# The parser hook
# ---------------------------------------------------------------------------

_PARSER: list = []    # [parse]: fn -> parsed function (def_pos, compile(mb, args, kwargs)) or None


def set_parser(parse) -> None:
    """Registers the parser (msmlir.frontend.parser does, when imported):
    `parse(fn)` returns None when fn has no source, else an object with
    `def_pos` and `compile(module_builder, args, kwargs) -> (result, return pos)`."""
    _PARSER[:] = [parse]


def _parse(fn):
    if not _PARSER:
        raise RuntimeError("msmlir.frontend.parser is not loaded: a function can only be traced")
    return _PARSER[0](fn)


# ---------------------------------------------------------------------------
# Function frames (the protocol is described in frontend/builder.py)
# ---------------------------------------------------------------------------

class Frame:
    """The function under construction: its entry block and the Parameters bound
    to (or captured as) its arguments."""

    def __init__(self, block, bind=(), bound_values=()):
        self.block = block
        self.params: list = []        # Parameters bound to arguments, in argument order
        self.values: dict = {}        # id(param) -> TensorValue
        for p, v in zip(bind, bound_values):
            self.params.append(p)
            self.values[id(p)] = v

    def value(self, p):
        v = self.values.get(id(p))
        if v is None:
            # a Parameter a sharded graph left sliced on this rank (msmlir.parallel)
            # stands for the whole one
            shape = getattr(p, "_msmlir_global_shape", None) or p.shape
            t = _b.tensor_type(tuple(shape), p.dtype)
            arg = self.block.add_argument(t, ir.Location.unknown())
            v = TensorValue(arg)
            self.params.append(p)
            self.values[id(p)] = v
        return v



def param_value(x):
    """The TensorValue standing for Parameter `x` in the function being built
    (captured as an argument on first use), or None when `x` is not a Parameter
    or no function is being built. For `RNG_COUNTER`: a new value derived from
    it at each request (one per random op or call site, see below)."""
    if not _b.is_parameter(x):
        return None
    fr = _b.current_frame()
    if fr is None:
        return None
    if x is RNG_COUNTER:
        return _rng_site_value(fr)
    return fr.value(x)


# ---------------------------------------------------------------------------
# The RNG counter: fresh random numbers at every execution
# ---------------------------------------------------------------------------
#
# mindir.dropout / random_uniform / random_normal are counter-based (element i
# is a hash of (seed, offset, i)); their optional `offset` operand makes them
# stateful as in MindSpore. `RNG_COUNTER` is a pseudo-Parameter (0-d int64)
# whose `asnumpy()` returns the next value of a process-wide counter
# (msmlir.seed.next_rng_offset; `set_seed` restarts it). A random op
# takes `rng_offset()`, which captures the counter like a Parameter, so the
# compiled function gets it as a trailing input that jit reads once per
# execution (eager ops too: they are one-op functions). Each use in a function
# -- every random op, and every call passing the counter on to a callee that
# draws random numbers -- gets its own value `counter * RNG_SITE_MUL + site`
# (site = 1, 2, ... in build order): two dropouts of one function, or two calls
# of one helper, draw different numbers.

RNG_SITE_MUL = 0x9E3779B97F4A7C15 - (1 << 64)   # odd; as a signed int64


class _RngCounter:
    """The RNG counter as a Parameter (see above)."""
    __msmlir_parameter__ = True
    shape = ()
    name = "msmlir.rng_counter"
    requires_grad = False

    @property
    def dtype(self):
        return _dt.int64

    def asnumpy(self) -> np.ndarray:
        return np.array(next_rng_offset(), np.int64)

    def __repr__(self):
        return "RNG_COUNTER"


RNG_COUNTER = _RngCounter()


def _rng_site_value(fr: Frame):
    counter = fr.value(RNG_COUNTER)
    fr.rng_sites = getattr(fr, "rng_sites", 0) + 1
    i64 = ir.IntegerType.get_signless(64)
    t = ir.RankedTensorType.get([], i64)

    def const(v):
        return _b.emit(mindir.ConstantOp, ir.DenseElementsAttr.get_splat(
            t, ir.IntegerAttr.get(i64, v))).result
    scaled = _b.emit(mindir.MulOp, counter.value, const(RNG_SITE_MUL)).result
    return TensorValue(_b.emit(mindir.AddOp, scaled, const(fr.rng_sites)).result)


def rng_offset():
    """The `offset` operand (a 0-d int64 TensorValue) for one random op in the
    function being built, or None outside compilation."""
    return param_value(RNG_COUNTER)


# ---------------------------------------------------------------------------
# Module builder: one module, many specialized functions
# ---------------------------------------------------------------------------

@dataclass
class TensorSpec:
    """An entry argument: a tensor of known shape and dtype."""
    shape: tuple
    dtype: object

    def mlir_type(self):
        return _b.tensor_type(self.shape, self.dtype)


@dataclass
class FuncInfo:
    name: str
    func_op: object          # None when elided (the body built nothing)
    out_spec: tuple
    result_types: list
    params: list = field(default_factory=list)   # Parameters passed after the leaves
    closed: list = field(default_factory=list)   # enclosing functions' values, passed last


def call_operands(info: FuncInfo, args, kwargs) -> list:
    """The operands of a call of `info` from the function being built: the tensor
    leaves of the arguments, the caller's values of the Parameters the callee
    uses (captured by the caller in turn), then the closed-over values."""
    _, leaves = tree_flatten((tuple(args), dict(kwargs)), _is_tensor_value)
    ops = [lf.value for lf in leaves]
    ops += [param_value(p).value for p in info.params]
    ops += list(info.closed)
    return ops


def close_over(fop, block) -> list:
    """Closure conversion of a just-built function: every value its body uses
    that is defined outside it (a tensor of an enclosing function, reached
    through a jit-local closure) becomes a new trailing argument. Returns the
    outer values, in argument order (a call passes them last)."""
    inside = set()
    todo = [fop.operation]
    ops = []
    while todo:
        op = todo.pop()
        for r in op.regions:
            for b in r.blocks:
                inside.update(b.arguments)
                for o in b.operations:
                    inside.update(o.operation.results)
                    ops.append(o.operation)
                    todo.append(o.operation)
    outer, repl = [], {}
    for o in ops:
        for v in list(o.operands):
            if v in inside:
                continue
            if v not in repl:
                repl[v] = block.add_argument(v.type, ir.Location.unknown())
                outer.append(v)
            o.replace_uses_of_with(v, repl[v])
    return outer


def _has_callable(tree) -> bool:
    """Whether a callable (not a class) occurs in an argument tree."""
    return any(callable(v) and not isinstance(v, type) and not isinstance(v, TensorValue)
               for v in iter_leaves(tree))


class ModuleBuilder:
    """Builds one `builtin.module`: the entry function and every specialization
    of the user functions it calls."""

    def __init__(self):
        self.module = ir.Module.create()
        self.specs: dict = {}
        self.in_progress: set = set()
        self.symbols: set = set()
        self.depth = 0

    def unique_name(self, base: str) -> str:
        base = "".join(c if c.isalnum() or c == "_" else "_" for c in base) or "fn"
        name, i = base, 1
        while name in self.symbols:
            name = f"{base}_{i}"
            i += 1
        self.symbols.add(name)
        return name

    def function(self, fn, args, kwargs, *, public=False, name=None, trace=False,
                 params=(), close=False, key_extra=None) -> FuncInfo:
        """The func.func specialization of `fn` for these arguments, whose leaves
        are TensorValues (a call from jitted code) or TensorSpecs (the entry).

        Its arguments are the tensor leaves, then the Parameters it uses (`params`
        first, bound in that order; then those captured while building, see
        frontend/builder.py), then, with `close`, the values of enclosing
        functions its body uses (closure conversion: a jit-local function passed
        to grad/vmap may close over the caller's tensors). `FuncInfo.params` and
        `FuncInfo.closed` say what a call must pass after the leaves."""
        is_leaf = lambda v: isinstance(v, (TensorValue, TensorSpec))  # noqa: E731
        in_spec, leaves = tree_flatten((tuple(args), dict(kwargs)), is_leaf)
        types_ = [lf.type if isinstance(lf, TensorValue) else lf.mlir_type() for lf in leaves]
        key = (fn, spec_key(in_spec), tuple(str(t) for t in types_), public,
               tuple(id(p) for p in params), key_extra)
        info = self.specs.get(key)
        if info is not None:
            return info
        if key in self.in_progress:
            _b.error(f"recursive call of '{getattr(fn, '__name__', fn)}' with the same argument "
                     f"signature: recursion in jitted code must end on Python values")
        if self.depth >= MAX_CALL_DEPTH:
            _b.error(f"calls nested more than {MAX_CALL_DEPTH} deep")
        src = None if trace else _parse(fn)
        def_pos = src.def_pos if src else _b.current_pos()
        self.in_progress.add(key)
        self.depth += 1
        fop = None
        try:
            sym = name or self.unique_name(getattr(fn, "__name__", "fn"))
            ptypes = [_b.tensor_type(tuple(p.shape), p.dtype) for p in params]
            with _b.at(def_pos):
                with ir.InsertionPoint(self.module.body):
                    fop = func.FuncOp(sym, ir.FunctionType.get(types_ + ptypes, []),
                                      visibility=None if public else "private")
                loc = ir.Location.current
                block = fop.regions[0].blocks.append(*(types_ + ptypes),
                                                     arg_locs=[loc] * (len(types_) + len(ptypes)))
            bargs = list(block.arguments)
            targs, tkwargs = tree_unflatten(in_spec, [TensorValue(a) for a in bargs[:len(types_)]])
            fr = Frame(block, params, [TensorValue(a) for a in bargs[len(types_):]])
            with ir.InsertionPoint(block), _b.frame(fr):
                if src is not None:
                    result, ret_pos = src.compile(self, targs, tkwargs)
                else:
                    with _b.at(def_pos):
                        result, ret_pos = self._trace(fn, targs, tkwargs, explicit=trace), def_pos
                out_spec, outs = tree_flatten(result, _is_tensor_value)
                with _b.at(ret_pos):
                    func.ReturnOp([o.value for o in outs])
            closed = close_over(fop, block) if close else []
            rtypes = [o.type for o in outs]
            if not public and not rtypes and len(block.operations) == 1:
                # A helper that only computes Python values: nothing to call.
                fop.operation.erase()
                self.symbols.discard(sym)
                fop = None
            else:
                fop.attributes["function_type"] = ir.TypeAttr.get(
                    ir.FunctionType.get([a.type for a in block.arguments], rtypes))
            info = FuncInfo(sym, fop, out_spec, rtypes, list(fr.params), closed)
            self.specs[key] = info
            return info
        except BaseException:
            if fop is not None:  # a half-built function (the error may be handled by a `try`)
                fop.operation.erase()
                self.symbols.discard(sym)
            raise
        finally:
            self.depth -= 1
            self.in_progress.discard(key)

    @staticmethod
    def _trace(fn, args, kwargs, explicit):
        """Calls fn on TensorValues directly (tracing: Python control flow runs
        on Python values only)."""
        try:
            return fn(*args, **kwargs)
        except CompileError as e:
            if explicit:
                raise
            name = getattr(fn, "__name__", "function")
            note = (f"(the source of '{name}' is not available, e.g. it was defined in an "
                    f"interactive session, so it was traced instead of parsed: `if`/`while` on "
                    f"tensors need the source)")
            raise CompileError(f"{e.msg} {note}", e.pos, e.call_stack, kind=type(e)) from None
        except (TypeError, ValueError, AttributeError, IndexError, KeyError, ZeroDivisionError) as e:
            _b.error(f"{type(e).__name__}: {e}")

    def call(self, fn, args, kwargs, *, trace=False):
        """Emits a func.call of the specialization of `fn` (building it first).
        When a callable is among the arguments (a lambda or jit-local function,
        a functools/ops partial, ...) it may close over the caller's tensors: the
        callee is then closure-converted, those tensors becoming trailing
        arguments of the call (as for grad/vmap)."""
        name = getattr(fn, "__name__", "fn")
        with _b.calling(name):
            info = self.function(fn, args, kwargs, trace=trace,
                                 close=_has_callable((args, kwargs)))
        if info.func_op is None:
            return tree_unflatten(info.out_spec, [])
        call = _b.emit(func.CallOp, info.result_types, ir.FlatSymbolRefAttr.get(info.name),
                       call_operands(info, args, kwargs))
        return tree_unflatten(info.out_spec, [TensorValue(r) for r in call.operation.results])


# ---------------------------------------------------------------------------
# Building and compiling one specialization
# ---------------------------------------------------------------------------

def _context() -> ir.Context:
    """The process-wide MLIR context that msmlir.compiler shares with the frontend."""
    from ..compiler import context
    return context()


# IR building in the shared context is serialized (MLIR contexts are not
# thread-safe for concurrent IR construction).
BUILD_LOCK = threading.RLock()


def abstract_args(args, kwargs, per_rank: list | None = None):
    """(key, abstract args, abstract kwargs, arrays): arrays become TensorSpecs.
    For a jit call (`per_rank` a list) the JIT_ARG_HOOKS may change the specs
    the graph is traced with; the indices of the arrays a hook changed (each
    rank's slice of a bigger global array) are appended to `per_rank`."""
    spec, leaves = tree_flatten((tuple(args), dict(kwargs)), is_array)
    arrays, specs = [], []
    for leaf in leaves:
        arr = as_array(leaf)
        try:
            dt = _dt.from_numpy(arr.dtype)
            if not dt.compiled:      # a host-only dtype (int16, unsigned, complex)
                dt.to_mlir()         # raises the TypeError that says what to do
        except TypeError as e:
            raise CompileError(f"argument of dtype {arr.dtype}: {e}", kind=TypeError) from None
        arrays.append(arr)
        specs.append(TensorSpec(tuple(arr.shape), dt))
    if per_rank is not None:
        for hook in JIT_ARG_HOOKS:
            specs = hook(specs, per_rank)
    key = (spec_key(spec), tuple((s.shape, s.dtype.name) for s in specs))
    a, k = tree_unflatten(spec, specs)
    return key, a, k, arrays


# The fast path's argument kinds, decided once per type: an array (0: a numpy
# array; 1: a type with `asnumpy`; 2: another array type, converted with
# as_array), a compile-time constant keyed by const_key (3), or anything else
# (4: a container, which the full path flattens).
# A constant whose type compares and hashes by identity (a Cell, a function) is
# keyed by the object itself (5), which is what const_key gives it, without its
# isinstance/hash chain.
_ARRAY, _ASNUMPY, _ARRAY_LIKE, _CONST, _OTHER, _IDENTITY = 0, 1, 2, 3, 4, 5
_KINDS: dict = {np.ndarray: _ARRAY, tuple: _OTHER, list: _OTHER, dict: _OTHER}


def _kind(t: type) -> int:
    k = _KINDS.get(t)
    if k is None:
        if issubclass(t, np.generic):
            k = _ARRAY_LIKE
        elif hasattr(t, "asnumpy") and hasattr(t, "shape"):
            k = _ASNUMPY
        elif issubclass(t, (tuple, list, dict, np.ndarray)):
            k = _OTHER
        elif t.__hash__ is object.__hash__ and t.__eq__ is object.__eq__ \
                and not issubclass(t, (int, float, str, bytes)):
            k = _IDENTITY
        else:
            k = _CONST
        _KINDS[t] = k
    return k


_SCALARS = frozenset({int, float, bool, str, type(None)})


def _fast_leaf(a, key: list, arrays: list) -> bool:
    t = type(a)
    k = _KINDS.get(t)
    if k is None:
        k = _kind(t)
    if k == _IDENTITY:
        key.append((t, a))
        return True
    if k == _ARRAY:
        if not a.flags.c_contiguous:
            a = as_array(a)
    elif k == _ASNUMPY:
        a = a.asnumpy()
        if type(a) is not np.ndarray or not a.flags.c_contiguous:
            a = as_array(a)
    elif k == _ARRAY_LIKE:
        a = as_array(a)
    elif k == _CONST:
        key.append((t, const_key(a)))
        return True
    elif (t is tuple or t is list) and all(type(e) in _SCALARS for e in a):
        key.append((t, tuple([const_key(e) for e in a])))     # a shape, axes: constants
        return True
    else:
        return False
    key.append((t, a.shape, a.dtype))    # the type: results come back as the caller's
    arrays.append(a)
    return True


def fast_args(args, kwargs):
    """(key, arrays) of a call's arguments for the steady-state path, or None
    when an argument needs the full path (a container: abstract_args). The key
    holds each array's type, shape and dtype and each constant's type and
    const_key (abstract_args' key, plus what decides how results are wrapped);
    the arrays come in abstract_args' order. Array types are recognized by
    their class (a method `asnumpy` and a `shape`), as is_array does for
    instances."""
    key, arrays = [], []
    for a in args:
        if not _fast_leaf(a, key, arrays):
            return None
    if kwargs:
        key.append(tuple(kwargs))
        for a in kwargs.values():
            if not _fast_leaf(a, key, arrays):
                return None
    return tuple(key), arrays


# Compilers that higher layers plug in (msmlir.parallel: semi-auto / auto
# parallel graphs, per-rank sharded code), tried first by Lowered.compile:
# `compile(text, parse, timings, lowered)` returns a compiled module, or None to leave
# the graph to the default path.
GRAPH_COMPILERS: list = []

# Hooks of higher layers on a jit call's array arguments (msmlir.parallel,
# full_batch=False: each rank feeds its slice of the batch and the graph is
# traced for the whole one): `hook(specs, per_rank) -> specs`, see abstract_args.
JIT_ARG_HOOKS: list = []


class ParameterChanged(TypeError):
    """A Parameter a compiled function reads has a new shape or dtype
    (Parameter.set_data(..., slice_shape=True)): jit builds the function again."""


class Lowered:
    """One compiled specialization: the module, its text and the runtime handle."""

    def __init__(self, module, context, name, out_spec, n_outputs, params=()):
        self.module = module
        self.context = context
        self.name = name
        self.out_spec = out_spec
        self.n_outputs = n_outputs
        # Parameters the function uses: trailing inputs fed with their current
        # values at each call (see frontend/builder.py, "Function frames")
        self.params = list(params)
        self.compiled = None
        self._dispatch = None   # the runtime's Dispatcher, after the first run
        self.build_s = 0.0      # seconds spent building the module (compile-time breakdown)
        self.per_rank_args = ()  # arguments each rank feeds its slice of (JIT_ARG_HOOKS)

    @property
    def text(self) -> str:
        """The mindir module as text."""
        with self.context:
            return str(self.module)

    def compile(self):
        """Compiles a copy of the module (compile_module lowers in place; the
        mindir module stays available for inspection)."""
        if self.compiled is None:
            from ..compiler import compile_module, device_target
            t = time.perf_counter()
            with BUILD_LOCK, self.context:
                text = self.module.operation.get_asm(enable_debug_info=True)

            def parse():
                # only when the compile cache misses: the copy that compile_module lowers
                with BUILD_LOCK, self.context:
                    copy = ir.Module.parse(text)
                    expand_transforms(copy)
                return copy
            timings = {"frontend": self.build_s, "print": time.perf_counter() - t}
            try:
                # -- graph compilers of higher layers (msmlir.parallel: semi-auto parallel) --
                for compile_with in GRAPH_COMPILERS:
                    compiled = compile_with(text, parse, timings, self)
                    if compiled is not None:
                        self.compiled = compiled
                        return compiled
                # -- end --
                if device_target() == "Ascend":   # set_context(device_target="Ascend")
                    from ..ascend import compile_graph
                    self.compiled = compile_graph(parse(), timings)
                elif device_target() == "GPU":    # runs in-process, or says why it cannot
                    from ..gpu.graph import compile_graph as compile_for_gpu
                    self.compiled = compile_for_gpu(text, timings, params=self.params)
                    if getattr(self.compiled, "owns_parameters", False):
                        self.params = []    # kept on the device by the module (gpu/resident.py)
                else:
                    self.compiled = compile_module(parse, timings=timings, name=self.name,
                                                   source=text)
            except ir.MLIRError as e:
                msg = _b.diag_message(e)
                if "mindir-autodiff" in msg or "mindir-vmap" in msg:
                    # a differentiation error (no bprop, unsupported construct): a user error
                    raise _transform_error(e) from None
                raise
        return self.compiled

    def run(self, arrays):
        """Runs the compiled function on the entry's arrays (C-contiguous, of the
        signature this specialization was built for: `abstract_args` gives
        them); the Parameters it uses are appended with their current values."""
        d = self._dispatch
        if d is None:
            return self._first_run(arrays)
        if self.params:
            # a Parameter's array is checked when it is not the one of the last call
            # (set_data replaced it); weakly held, so a replaced array is freed
            arrays = list(arrays)
            last = self._param_last
            i = 0
            for p in self.params:
                a = p.asnumpy()
                w = last[i]
                if w is None or w() is not a:
                    a = self._param_array(i, p, a)
                arrays.append(a)
                i += 1
        outs = d(arrays)
        if self._single:
            return outs[0]
        return tree_unflatten(self.out_spec, outs)

    def _param_array(self, i, p, a):
        """Parameter `p`'s array `a`, checked against the compiled signature
        (and remembered when it is the Parameter's own contiguous array)."""
        if type(a) is not np.ndarray or not a.flags.c_contiguous:
            a = as_array(p)
            self._param_last[i] = None
        else:
            self._param_last[i] = weakref.ref(a)
        shape, dtype = self._param_sigs[i]
        if a.shape != shape or a.dtype != dtype:
            self._param_last[i] = None
            raise ParameterChanged(f"Parameter '{getattr(p, 'name', p)}' is now "
                            f"{a.dtype}{list(a.shape)}, but {self.name} was compiled "
                            f"for {dtype}{list(shape)}")
        return a

    def _first_run(self, arrays):
        """The first run: compiles, checks every argument against the compiled
        signature (CompiledModule.call), then sets up the fast path."""
        compiled = self.compile()
        if self.params:
            arrays = list(arrays) + [as_array(p) for p in self.params]
        outs = compiled.call(self.name, *arrays)
        if len(outs) != self.n_outputs:
            raise RuntimeError(f"msmlir: {self.name} returned {len(outs)} results, expected "
                               f"{self.n_outputs}")
        d = compiled.dispatcher(self.name)
        self._param_sigs = d.sig.inputs[len(d.sig.inputs) - len(self.params):]
        self._param_last = [None] * len(self.params)
        self._single = self.out_spec == LEAF
        self._dispatch = d
        return tree_unflatten(self.out_spec, list(outs))


@functools.lru_cache(maxsize=None)
def _pipeline_has(pass_name: str) -> bool:
    """Whether msmlir-cpu-pipeline runs `pass_name` (its text is built once, not per compile)."""
    try:
        from msmlir.passes.registry import get_pass
        info = get_pass("msmlir-cpu-pipeline")
        return info is not None and info.expand is not None and pass_name in info.expand()
    except Exception:  # pragma: no cover
        return False


def expand_transforms(module) -> None:
    """Runs `mindir-autodiff` on a module holding `mindir.grad` ops when
    msmlir-cpu-pipeline does not (yet) run it first."""
    def has(op) -> bool:
        for r in op.regions:
            for b in r.blocks:
                for o in b.operations:
                    if o.operation.name == "mindir.grad" or has(o.operation):
                        return True
        return False

    if has(module.operation) and not _pipeline_has("mindir-autodiff"):
        from msmlir.passes import run_pipeline
        try:
            run_pipeline(module, "builtin.module(mindir-autodiff)")
        except ir.MLIRError as e:
            raise _transform_error(e) from None


def _transform_error(e) -> CompileError:
    """A CompileError (at the user's line when the diagnostic has one) for an
    MLIRError of mindir-autodiff / mindir-vmap."""
    pos = None
    for d in getattr(e, "error_diagnostics", []) or []:
        if d.location.is_a_file():
            pos = SourcePos(d.location.filename, d.location.start_line, d.location.start_col)
            break
    return CompileError(_b.diag_message(e), pos)


def build_module(fn, args, kwargs, *, name=None, trace=False) -> Lowered:
    """Builds (without compiling) the module of `fn` for abstract arguments whose
    tensor leaves are TensorSpecs. Raises CompileError for user errors."""
    ctx = _context()
    t = time.perf_counter()
    with BUILD_LOCK, ctx, ir.Location.unknown():
        mb = ModuleBuilder()
        with _b.activate(mb):
            info = mb.function(fn, args, kwargs, public=True,
                               name=mb.unique_name(name or getattr(fn, "__name__", "main")), trace=trace)
        try:
            mb.module.operation.verify()
        except ir.MLIRError as e:
            pos = None
            for d in getattr(e, "error_diagnostics", []) or []:
                loc = d.location
                if loc.is_a_file():
                    pos = SourcePos(loc.filename, loc.start_line, loc.start_col)
                    break
            raise CompileError(f"invalid IR: {_b.diag_message(e)}", pos) from None
        lowered = Lowered(mb.module, ctx, info.name, info.out_spec, len(info.result_types),
                          info.params)
        lowered.build_s = time.perf_counter() - t
        return lowered


def strip_error(e: CompileError) -> CompileError:
    """The error without the compiler's frames or chained exceptions."""
    e.__cause__ = None
    e.__context__ = None
    e.__suppress_context__ = True
    return e.with_traceback(None)



# ---------------------------------------------------------------------------
# Eager (PyNative-style) execution of single ops
# ---------------------------------------------------------------------------

_EAGER_CACHE: dict = {}
_EAGER_FAST: dict = {}      # (key or fn, fast_args key) -> (Lowered, result wrapper)
_EAGER_LOCK = threading.Lock()


def eager_call(fn, args, kwargs, key=None):
    """Runs `fn` (an msmlir.ops function) on numpy arrays / Python values by
    tracing it into a one-function module, compiling and running it (cached
    per function and signature)."""
    __tracebackhide__ = True  # noqa: F841
    fast = fast_args(args, kwargs)
    if fast is not None:
        plan = _EAGER_FAST.get((key if key is not None else fn, fast[0]))
        if plan is not None:
            out = plan[0].run(fast[1])
            return out if plan[1] is None else wrap_results(out, plan[1])
    try:
        sig_key, a, k, arrays = abstract_args(args, kwargs)
        cache_key = (key if key is not None else fn, sig_key)
        with _EAGER_LOCK:
            entry = _EAGER_CACHE.get(cache_key)
            if entry is None:
                entry = build_module(fn, a, k, trace=True)
                _EAGER_CACHE[cache_key] = entry
    except CompileError as e:
        if os.environ.get("MSMLIR_JIT_DEBUG"):
            raise
        raise strip_error(e) from None
    wrap = result_wrapper(args, kwargs)
    if wrap is None and not has_array(args, kwargs):
        wrap = host_wrapper()   # made from nothing (ops.zeros, P.Fill): a Tensor, as MindSpore
    out = wrap_results(entry.run(arrays), wrap)
    if fast is not None:
        _EAGER_FAST[(key if key is not None else fn, fast[0])] = (entry, wrap)
    return out
