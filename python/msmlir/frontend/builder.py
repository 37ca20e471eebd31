"""Build-time state shared by the parser, the tensor values and `msmlir.ops`.

While a function is being compiled, `current()` is the active `ModuleBuilder`
(thread-local). The parser keeps the user's source position on a stack
(`at(pos)`), which also enters the matching `ir.Location.file`, so every op
built by `msmlir.ops` carries the user's file:line:col, and `error()` /
`emit()` raise `CompileError`s that point at it.

Layer 2 (below the ops, which use it for every op): it imports only layer 0.
What a Parameter is, is a protocol (`__msmlir_parameter__`), not a class.
"""
from __future__ import annotations

import contextlib
import threading

import numpy as np
from mlir import ir

from .. import dtype as _dt
from ..errors import CompileError, SourcePos

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
#
# `Frame` and `param_value` are in frontend/trace.py (they make TensorValues);
# the stack of frames is thread-local build state, kept here.


def is_parameter(x) -> bool:
    return bool(getattr(type(x), "__msmlir_parameter__", False))


def _frames():
    f = getattr(_state, "frames", None)
    if f is None:
        f = _state.frames = []
    return f


def current_frame():
    f = _frames()
    return f[-1] if f else None


@contextlib.contextmanager
def frame(fr):
    stack = _frames()
    stack.append(fr)
    try:
        yield fr
    finally:
        stack.pop()


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


def make_error(msg: str, pos: SourcePos | None = None, kind=None) -> CompileError:
    calls = [(n, p) for n, p in _calls() if p is not None]
    pos = pos or current_pos()
    if pos is None and calls:  # e.g. binding the arguments of a call: point at the call
        pos = calls.pop()[1]
    return CompileError(msg, pos, calls, kind=kind)


def error(msg: str, pos: SourcePos | None = None, kind=None):
    """Raises a CompileError at the current (or given) source position; `kind`
    (TypeError, ValueError, IndexError, RuntimeError) is the built-in exception it
    also is (default: chosen from the message, msmlir.errors.classify)."""
    raise make_error(msg, pos, kind)


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
