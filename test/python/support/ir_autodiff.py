"""The mindir-autodiff harness: build a module with @f and a @main that takes
mindir.grad of @f, run mindir-autodiff, compile through the CPU pipeline, and
compare the gradients with central finite differences (`gradcheck`).

Compilation and execution run in a forked child process, so that a crash in
a lowering (an LLVM assertion aborts the process) fails one test instead of
the whole session; results come back as JSON over a pipe.
"""
from __future__ import annotations

import json
import os
import resource
import signal
import time
import traceback

import numpy as np
from mlir import ir

from msmlir.compiler import compile_module, context
from msmlir.passes import run_pipeline

from .gradcheck import numeric_grad

COMPILE_TIMES: dict = {}
CHILD_MEMORY = 6 << 30      # bytes of address space for a child
CHILD_SECONDS = 600

# No MLIR worker threads in this process: the children are forked from it, and
# a fork only carries the forking thread (a pool thread holding a lock would
# deadlock the child).
context().enable_multithreading(False)


def _np_to_mlir(dtype) -> str:
    return {np.dtype(np.float64): "f64", np.dtype(np.float32): "f32", np.dtype(np.int32): "i32",
            np.dtype(np.int64): "i64", np.dtype(np.bool_): "i1"}[np.dtype(dtype)]


def ttype(a) -> str:
    a = np.asarray(a)
    return "tensor<" + "".join(f"{d}x" for d in a.shape) + _np_to_mlir(a.dtype) + ">"


def grad_module(f_text: str, arg_types, result_types, positions, extra: str = "") -> str:
    """@main(args..., sens...) -> (results..., grads...) = grad of @f with sens."""
    args = ", ".join(f"%a{i}: {t}" for i, t in enumerate(arg_types))
    sens = ", ".join(f"%s{i}: {t}" for i, t in enumerate(result_types))
    names = ", ".join(f"%a{i}" for i in range(len(arg_types)))
    snames = ", ".join(f"%s{i}" for i in range(len(result_types)))
    outs = list(result_types) + [arg_types[p] for p in positions]
    rnames = ", ".join(f"%r{i}" for i in range(len(outs)))
    pos = ", ".join(str(p) for p in positions)
    return f"""{f_text}
{extra}
func.func @main({args}, {sens}) -> ({", ".join(outs)}) {{
  {rnames} = mindir.grad @f({names}) sens({snames} : {", ".join(result_types)}) {{grad_position = array<i64: {pos}>, return_value}} : ({", ".join(arg_types)}) -> ({", ".join(outs)})
  return {rnames} : {", ".join(outs)}
}}
"""


def autodiff_text(text: str) -> str:
    """mindir-autodiff on `text` (in this process: the pass is pure Python)."""
    with context():
        m = ir.Module.parse(text)
        run_pipeline(m, "builtin.module(mindir-autodiff)")
        m.operation.verify()
        return str(m)


def _compile(text: str, pipeline: str = "mindir-autodiff"):
    ctx = context()
    with ctx:
        m = ir.Module.parse(text)
        t0 = time.perf_counter()
        if pipeline:
            run_pipeline(m, f"builtin.module({pipeline})")
        m.operation.verify()
        cm = compile_module(m)
        dt = time.perf_counter() - t0
    return cm, dt


def _encode(x):
    if isinstance(x, np.ndarray) or isinstance(x, np.generic):
        return {"__nd__": np.asarray(x).tolist(), "dtype": str(np.asarray(x).dtype)}
    if isinstance(x, (list, tuple)):
        return [_encode(v) for v in x]
    if isinstance(x, dict):
        return {k: _encode(v) for k, v in x.items()}
    return x


def _decode(x):
    if isinstance(x, dict) and "__nd__" in x:
        return np.array(x["__nd__"], dtype=x["dtype"])
    if isinstance(x, list):
        return [_decode(v) for v in x]
    if isinstance(x, dict):
        return {k: _decode(v) for k, v in x.items()}
    return x


def isolated(fn, *args):
    """Runs fn(*args) in a forked child; returns its (JSON-able) result or
    raises AssertionError with the child's exception or crash signal."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        os.close(r)
        # a runaway program (or compiler) fails the test instead of the machine
        resource.setrlimit(resource.RLIMIT_AS, (CHILD_MEMORY, CHILD_MEMORY))
        signal.alarm(CHILD_SECONDS)
        try:
            payload = {"ok": True, "result": _encode(fn(*args))}
        except BaseException as e:  # noqa: BLE001
            payload = {"ok": False, "error": "".join(traceback.format_exception(e))}
        data = json.dumps(payload).encode()
        view = memoryview(data)
        while view:
            n = os.write(w, view)
            view = view[n:]
        os.close(w)
        os._exit(0)
    os.close(w)
    chunks = []
    while True:
        b = os.read(r, 1 << 16)
        if not b:
            break
        chunks.append(b)
    os.close(r)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        raise AssertionError(f"the compiler crashed in a child process with signal {sig} "
                             f"({signal.Signals(sig).name}); see the captured stderr")
    payload = json.loads(b"".join(chunks).decode()) if chunks else {"ok": False,
                                                                    "error": "no result"}
    if not payload["ok"]:
        raise AssertionError("in the child process:\n" + payload["error"])
    return _decode(payload["result"])


def func_signature(f_text: str, name: str = "f"):
    with context():
        m = ir.Module.parse(f_text)
        for op in m.body.operations:
            if op.operation.name == "func.func" and \
                    ir.StringAttr(op.attributes["sym_name"]).value == name:
                ft = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)
                return [str(t) for t in ft.inputs], [str(t) for t in ft.results]
    raise KeyError(name)


def _check_grad_child(text, inputs, positions, n_results, seed, sens, eps):
    cm, dt = _compile(text)
    rng = np.random.default_rng(seed)
    f = lambda *a: cm.call("f", *a)  # noqa: E731
    vals = f(*inputs)
    if sens is None:
        sens = [rng.standard_normal(np.shape(v)) for v in vals]
    out = cm.call("main", *inputs, *sens)
    fds = numeric_grad(f, inputs, wrt=positions, cotangent=sens, eps=eps)
    return {"time": dt, "vals": list(vals), "out": list(out), "fds": fds}


def check_grad(f_text: str, inputs, positions, *, key=None, rtol=1e-6, atol=1e-8, seed=0,
               sens=None, eps=1e-6):
    """Compiles grad(@f) and @f, checks the value and the gradients against
    central finite differences. Returns (values, grads)."""
    arg_types, result_types = func_signature(f_text)
    text = grad_module(f_text, arg_types, result_types, positions)
    res = isolated(_check_grad_child, text, [np.asarray(a) for a in inputs], list(positions),
                   len(result_types), seed, sens, eps)
    if key:
        COMPILE_TIMES[key] = res["time"]
    n = len(result_types)
    out = res["out"]
    for v, w in zip(out[:n], res["vals"]):
        np.testing.assert_allclose(v, w, rtol=1e-12, atol=1e-12, err_msg="value")
    for p, g, fd in zip(positions, out[n:], res["fds"]):
        np.testing.assert_allclose(g, fd, rtol=rtol, atol=atol,
                                   err_msg=f"gradient w.r.t. argument {p}")
    return out[:n], out[n:]


def _run_child(text, calls, pipeline):
    cm, dt = _compile(text, pipeline)
    return {"time": dt, "results": [list(cm.call(name, *args)) for name, args in calls]}


def run(text: str, calls, *, key=None, pipeline="mindir-autodiff"):
    """Compiles `text` (after `pipeline`) in a child and runs calls
    [(func name, [args])]; returns the list of result tuples."""
    res = isolated(_run_child, text, [(n, [np.asarray(a) for a in args]) for n, args in calls],
                   pipeline)
    if key:
        COMPILE_TIMES[key] = res["time"]
    return res["results"]
