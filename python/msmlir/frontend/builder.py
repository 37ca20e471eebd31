"""Build-time state shared by the parser, the tensor values and `msmlir.ops`.

While a function is being compiled, `current()` is the active `ModuleBuilder`
(thread-local). The parser keeps the user's source position on a stack
(`at(pos)`), which also enters the matching `ir.Location.file`, so every op
built by `msmlir.ops` carries the user's file:line:col, and `error()` /
`emit()` raise `CompileError`s that point at it.
"""
from __future__ import annotations

import contextlib
import threading

import numpy as np
from mlir import ir

from .. import dtype as _dt
from .errors import CompileError, SourcePos

_state = threading.local()


def current():
    """The active ModuleBuilder, or None outside compilation (eager mode)."""
    return getattr(_state, "builder", None)


@contextlib.contextmanager
def activate(builder):
    prev = current()
    prev_pos = getattr(_state, "pos", None)
    prev_calls = getattr(_state, "calls", None)
    prev_frames = getattr(_state, "frames", None)
    _state.builder, _state.pos, _state.calls, _state.frames = builder, [], [], []
    try:
        yield builder
    finally:
        _state.builder, _state.pos, _state.calls = prev, prev_pos, prev_calls
        _state.frames = prev_frames


# ---------------------------------------------------------------------------
# Function frames: how Parameters become function arguments
# ---------------------------------------------------------------------------
#
# The protocol (MindSpore: parameters are graph inputs, never constants):
#
# * a *Parameter* is an object for which `is_parameter(obj)` holds: an instance of
#   `msmlir.Parameter`, or any object whose type sets `__msmlir_parameter__ = True`
#   and has `shape`, `dtype` (an msmlir dtype) and `asnumpy()` (its current value);
# * every `func.func` being built has a `Frame`. When jitted code uses a
#   Parameter as a tensor (`self.w * x`, a global `W @ x`, `ops.xxx(p)`, an element
#   of `net.trainable_params()`...), `msmlir.ops.to_tensor` asks `param_value(p)`:
#   the frame returns the block argument bound to `p`, adding one to the function
#   the first time ("capture"); the function's signature is then
#   (flattened tensor arguments..., captured Parameters...);
# * a call of a helper passes the caller's value of each Parameter the callee
#   captured (capturing it in the caller in turn); the public entry of a jitted
#   function thus takes every Parameter it (transitively) uses as an input, and
#   `msmlir.jit` feeds the Parameter's current value (`asnumpy()`, no copy) at
#   each call, so updating a Parameter needs no recompilation;
# * `msmlir.grad(..., weights=[...])` builds the forward function with the
#   weights pre-bound to its first parameter arguments (`Frame(bind=weights)`),
#   so the gradient w.r.t. a weight is the gradient w.r.t. that argument.


def is_parameter(x) -> bool:
    if getattr(type(x), "__msmlir_parameter__", False):
        return True
    from ..common.parameter import Parameter
    return isinstance(x, Parameter)


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
            from .values import TensorValue
            t = tensor_type(tuple(p.shape), p.dtype)
            arg = self.block.add_argument(t, ir.Location.unknown())
            v = TensorValue(arg)
            self.params.append(p)
            self.values[id(p)] = v
        return v


def _frames():
    f = getattr(_state, "frames", None)
    if f is None:
        f = _state.frames = []
    return f


def current_frame():
    f = _frames()
    return f[-1] if f else None


@contextlib.contextmanager
def frame(fr: Frame):
    stack = _frames()
    stack.append(fr)
    try:
        yield fr
    finally:
        stack.pop()


def param_value(x):
    """The TensorValue standing for Parameter `x` in the function being built
    (captured as an argument on first use), or None when `x` is not a Parameter
    or no function is being built. For `RNG_COUNTER`: a new value derived from
    it at each request (one per random op or call site, see below)."""
    if not is_parameter(x):
        return None
    fr = current_frame()
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
# (msmlir.common.seed.next_rng_offset; `set_seed` restarts it). A random op
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
        from ..common.seed import next_rng_offset
        return np.array(next_rng_offset(), np.int64)

    def __repr__(self):
        return "RNG_COUNTER"


RNG_COUNTER = _RngCounter()


def _rng_site_value(fr: Frame):
    from ..dialects import mindir
    from .values import TensorValue
    counter = fr.value(RNG_COUNTER)
    fr.rng_sites = getattr(fr, "rng_sites", 0) + 1
    i64 = ir.IntegerType.get_signless(64)
    t = ir.RankedTensorType.get([], i64)

    def const(v):
        return emit(mindir.ConstantOp, ir.DenseElementsAttr.get_splat(
            t, ir.IntegerAttr.get(i64, v))).result
    scaled = emit(mindir.MulOp, counter.value, const(RNG_SITE_MUL)).result
    return TensorValue(emit(mindir.AddOp, scaled, const(fr.rng_sites)).result)


def rng_offset():
    """The `offset` operand (a 0-d int64 TensorValue) for one random op in the
    function being built, or None outside compilation."""
    return param_value(RNG_COUNTER)


def _positions():
    p = getattr(_state, "pos", None)
    if p is None:
        p = _state.pos = []
    return p


def _calls():
    c = getattr(_state, "calls", None)
    if c is None:
        c = _state.calls = []
    return c


def current_pos() -> SourcePos | None:
    p = _positions()
    return p[-1] if p else None


@contextlib.contextmanager
def at(pos: SourcePos | None):
    """Makes `pos` the current source position and MLIR location."""
    if pos is None:
        yield
        return
    stack = _positions()
    stack.append(pos)
    try:
        with ir.Location.file(pos.filename, pos.line, pos.col):
            yield
    finally:
        stack.pop()


@contextlib.contextmanager
def calling(name: str):
    """Records a call to function `name` from the current position (for error notes)."""
    calls = _calls()
    calls.append((name, current_pos()))
    saved = _positions()[:]
    _state.pos = []
    try:
        yield
    finally:
        _state.pos = saved
        calls.pop()


def make_error(msg: str, pos: SourcePos | None = None) -> CompileError:
    calls = [(n, p) for n, p in _calls() if p is not None]
    pos = pos or current_pos()
    if pos is None and calls:  # e.g. binding the arguments of a call: point at the call
        pos = calls.pop()[1]
    return CompileError(msg, pos, calls)


def error(msg: str, pos: SourcePos | None = None):
    """Raises a CompileError at the current (or given) source position."""
    raise make_error(msg, pos)


def diag_message(e: ir.MLIRError) -> str:
    diags = getattr(e, "error_diagnostics", None) or []
    msgs = [d.message for d in diags if d.message]
    if not msgs:
        text = str(e)
        for prefix in ("Operation creation failed:", "Verification failed:"):
            text = text.replace(prefix, "")
        return text.strip()
    return "; ".join(msgs)


def emit(op_builder, *args, **kwargs):
    """Creates an op with the generated builder `op_builder` at the current
    location and insertion point, verifies it, and turns an MLIR diagnostic
    into a CompileError at the user's position."""
    name = getattr(op_builder, "OPERATION_NAME", getattr(op_builder, "__name__", "op"))
    try:
        op = op_builder(*args, **kwargs)
    except ir.MLIRError as e:
        raise make_error(f"{name}: {diag_message(e)}") from None
    operation = op.operation if hasattr(op, "operation") else op
    try:
        operation.verify()
    except ir.MLIRError as e:
        operation.erase()
        raise make_error(f"{name}: {diag_message(e)}") from None
    return op


# ---------------------------------------------------------------------------
# Types and constants
# ---------------------------------------------------------------------------

def tensor_type(shape, dt) -> ir.RankedTensorType:
    return ir.RankedTensorType.get(list(shape), _dt.get(dt).to_mlir())


def scalar_attr(value, dt) -> ir.Attribute:
    dt = _dt.get(dt)
    t = dt.to_mlir()
    if dt.is_float:
        return ir.FloatAttr.get(t, float(value))
    if dt.is_bool:
        return ir.IntegerAttr.get(t, 1 if value else 0)
    return ir.IntegerAttr.get(t, int(value))


def splat_attr(value, shape, dt) -> ir.DenseElementsAttr:
    return ir.DenseElementsAttr.get_splat(tensor_type(shape, dt), scalar_attr(value, dt))


def array_attr(arr: np.ndarray) -> ir.DenseElementsAttr:
    arr = np.asarray(arr)
    dt = _dt.from_numpy(arr.dtype)
    if arr.size > 0 and arr.ndim > 0 and np.all(arr == arr.flat[0]) and not (
            dt.is_float and np.isnan(arr.flat[0])):
        return splat_attr(arr.flat[0].item(), arr.shape, dt)
    return ir.DenseElementsAttr.get(np.asarray(arr, order="C"))  # (ascontiguousarray: 0-d -> 1-d)


def i64_array(values) -> ir.DenseI64ArrayAttr:
    return ir.DenseI64ArrayAttr.get([int(v) for v in values])


def i64_attr(v) -> ir.IntegerAttr:
    return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), int(v))


def f64_attr(v) -> ir.FloatAttr:
    return ir.FloatAttr.get(ir.F64Type.get(), float(v))


def bool_attr(v) -> ir.BoolAttr:
    return ir.BoolAttr.get(bool(v))


def str_attr(v) -> ir.StringAttr:
    return ir.StringAttr.get(str(v))
