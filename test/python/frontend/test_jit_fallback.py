"""JIT Fallback: Python that graph mode cannot compile runs in the interpreter,
at compile time on constants and at run time (host callbacks) on tensors."""
import math
import warnings

import numpy as np
import pytest

import msmlir as ms
import msmlir.numpy  # noqa: F401  (registers the names a FallbackWarning suggests instead)
from msmlir import nn, ops
from msmlir.frontend.fallback import FallbackWarning
from msmlir.runtime.host_callbacks import HostCallbackError

X = (np.arange(6, dtype=np.float32).reshape(2, 3) - 2.5) / 2


def _lineno(fn, text):
    import inspect
    lines, start = inspect.getsourcelines(fn)
    for i, line in enumerate(lines):
        if text in line:
            return start + i
    raise AssertionError(text)


def _quiet(fn, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FallbackWarning)
        return fn(*args)


# ---- compile time: Python on constants becomes constants ---------------------------

def test_numpy_and_math_on_constants_run_at_compile_time():
    @ms.jit
    def f(x):
        c = np.linspace(0.0, 1.0, 3).astype(np.float32)
        k = math.sqrt(16.0) + sorted([3, 1, 2])[0]
        return x * ms.Tensor(c) + k

    np.testing.assert_allclose(f(X), X * np.linspace(0, 1, 3, dtype=np.float32) + 5.0, rtol=1e-6)
    assert "host_callback" not in f.lower(X)


def test_try_except_finally_at_compile_time():
    @ms.jit
    def f(x):
        try:
            scale = float(np.linalg.inv(np.zeros((2, 2)))[0, 0])
        except np.linalg.LinAlgError:
            scale = 2.0
        else:
            scale = -1.0
        finally:
            shift = 3.0
        try:
            raise KeyError("k")
        except (ValueError, KeyError) as e:
            shift += len(str(e))
        return x * scale + shift

    np.testing.assert_allclose(f(X), X * 2.0 + 6.0, rtol=1e-6)


def test_try_does_not_catch_compile_errors():
    @ms.jit
    def f(x):
        try:
            y = x + np.ones(4, np.float32)   # a shape error is not a Python exception
        except Exception:
            y = x
        return y

    with pytest.raises(ms.CompileError, match="cannot be broadcast"):
        f(X)


def test_with_on_python_context_managers_at_compile_time():
    log = []

    class Scope:
        def __enter__(self):
            log.append("enter")
            return 10.0

        def __exit__(self, *exc):
            log.append("exit" if exc[0] is None else f"exit {exc[0].__name__}")
            return exc[0] is ZeroDivisionError   # swallows ZeroDivisionError only

    @ms.jit
    def f(x):
        with Scope() as k:
            y = x * k
        with Scope():
            y = y + 1
            z = 1 / 0
        return y

    np.testing.assert_allclose(f(X), X * 10 + 1, rtol=1e-6)
    assert log == ["enter", "exit", "enter", "exit ZeroDivisionError"]
    f(X)
    assert len(log) == 4   # cached: the context managers ran once, at compile time


def test_with_on_a_tensor_is_an_error():
    @ms.jit
    def f(x):
        with x:
            pass
        return x

    with pytest.raises(ms.CompileError, match="is not a context manager") as e:
        f(X)
    assert e.value.lineno == _lineno(f.fn, "with x:")


# ---- run time: host callbacks ---------------------------------------------------------

def test_print_runs_at_every_call(capfd):
    @ms.jit
    def f(x):
        print("x sum:", x.sum())
        print(f"first={x[0, 0]} n={x.shape[1]}")
        print("constant")
        return x * 2

    for k in (1.0, 3.0):
        np.testing.assert_allclose(f(X * k), X * k * 2)
    out = capfd.readouterr().out.splitlines()
    assert out == [f"x sum: {np.asarray((X * 1.0).sum())}", f"first={X[0, 0] * 1.0} n=3", "constant",
                   f"x sum: {np.asarray((X * 3.0).sum())}", f"first={X[0, 0] * 3.0} n=3", "constant"]
    assert f.cache_info()["compiles"] == 1
    assert f.lower(X).count("mindir.host_callback") == 3


def test_print_in_graph_and_pynative_mode_match(capfd):
    class Net(nn.Cell):
        def construct(self, x):
            y = ops.relu(x)
            print("relu sum", y.sum())
            return y * 2

    outs = []
    for mode in (ms.GRAPH_MODE, ms.PYNATIVE_MODE):
        ms.set_context(mode=mode)
        try:
            r = Net()(ms.Tensor(X))
        finally:
            ms.set_context(mode=ms.GRAPH_MODE)
        outs.append((r.asnumpy(), capfd.readouterr().out))
    np.testing.assert_array_equal(outs[0][0], outs[1][0])
    assert outs[0][1] == outs[1][1] == f"relu sum {np.asarray(np.maximum(X, 0).sum())}\n"


def test_numpy_on_tensors_runs_at_run_time_and_warns():
    @ms.jit
    def f(x):
        s = np.sort(x, axis=1)[:, ::-1]
        idx = x.asnumpy().argpartition(1, axis=1).astype(np.int32)   # an ndarray method
        return ms.Tensor(s) + 1, idx

    with pytest.warns(FallbackWarning, match="on a tensor runs in the Python interpreter") as w:
        s, idx = f(X)
    assert {r.lineno for r in w} == {_lineno(f.fn, "np.sort(x"), _lineno(f.fn, "argpartition")}
    assert any(str(r.message).startswith("np.sort on a tensor") and
               str(r.message).endswith("msmlir.numpy.sort compiles it") for r in w)
    np.testing.assert_array_equal(s, np.sort(X, axis=1)[:, ::-1] + 1)
    np.testing.assert_array_equal(idx, X.argpartition(1, axis=1))
    assert idx.dtype == np.int32
    # the callback sees the values of each call
    x2 = -X
    s2, idx2 = f(x2)
    np.testing.assert_array_equal(s2, np.sort(x2, axis=1)[:, ::-1] + 1)
    np.testing.assert_array_equal(idx2, x2.argpartition(1, axis=1))


def test_callback_results_feed_compiled_ops_and_control_flow():
    @ms.jit
    def f(x):
        m = np.median(x.asnumpy())          # numpy scalar -> 0-d tensor
        flags = np.isnan(np.log(x))         # bool result
        y = x - m
        if y.sum() > 0:                    # a tensor condition on a callback result
            y = y * 2
        return y, flags

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FallbackWarning)
        for x in (X, X + 5):
            y, flags = f(x)
            ref = x - np.median(x)
            ref = ref * 2 if ref.sum() > 0 else ref
            np.testing.assert_allclose(y, ref, rtol=1e-6)
            with np.errstate(all="ignore"):
                np.testing.assert_array_equal(flags, np.isnan(np.log(x)))


def test_scalar_conversions_are_compiled():
    @ms.jit
    def f(x):
        a = float(x.sum())
        b = int(x.max() * 3)
        c = x.mean().item()
        return x * a + b + c

    np.testing.assert_allclose(f(X), X * X.sum() + int(X.max() * 3) + X.mean(), rtol=1e-5)
    assert "host_callback" not in f.lower(X)

    @ms.jit
    def g(x):
        q, r = divmod(x, 0.75)
        return q, r, round(x * 3)

    q, r, rd = g(X)
    np.testing.assert_allclose(q, np.floor_divide(X, 0.75))
    np.testing.assert_allclose(r, np.mod(X, 0.75), atol=1e-6)
    np.testing.assert_array_equal(rd, np.round(X * 3))
    assert "host_callback" not in g.lower(X)


def test_errors_raised_by_the_callback_name_the_line():
    def check(a):
        if a.min() < 0:
            raise ValueError("negative input")
        return a

    @ms.jit
    def g(x):
        return ms.Tensor(np.apply_along_axis(check, 1, x.asnumpy())) * 2

    x_ok = np.abs(X) + 1
    np.testing.assert_allclose(_quiet(g, x_ok), x_ok * 2)
    with pytest.raises(HostCallbackError) as e:
        g(X)
    msg = str(e.value)
    assert f"{__file__}:{_lineno(g.fn, 'apply_along_axis')}" in msg
    assert "np.apply_along_axis" in msg and "ValueError: negative input" in msg
    assert isinstance(e.value.__cause__, ValueError)
    np.testing.assert_allclose(g(x_ok), x_ok * 2)   # still usable after the error


def test_value_dependent_result_shape_is_a_run_time_error():
    @ms.jit
    def f(x):
        return ms.Tensor(np.nonzero(x.asnumpy() > 0)[0].astype(np.int32))

    x = np.array([1.0, 1.0, 1.0], np.float32)
    np.testing.assert_array_equal(_quiet(f, x), [0, 1, 2])
    with pytest.raises(HostCallbackError, match=r"returned shape \[1\], but graph mode fixed its "
                                                r"result shape to \[3\] at compile time"):
        f(np.array([0.0, 2.0, -1.0], np.float32))


def test_unsupported_result_dtype_is_a_compile_error():
    @ms.jit
    def f(x):
        return np.uint16(x)

    with pytest.raises(ms.CompileError, match="np.uint16 returns dtype uint16, which msmlir "
                                              "tensors do not support") as e:
        _quiet(f, X)
    assert e.value.lineno == _lineno(f.fn, "np.uint16(x)")


def test_probe_failure_is_a_compile_error():
    @ms.jit
    def f(x):
        return np.linalg.cholesky(x.asnumpy() - 1)   # ones - 1 = 0: not positive definite

    with pytest.raises(ms.CompileError, match="calling it once at compile time on arrays of ones, "
                                              "which raised LinAlgError"):
        _quiet(f, np.eye(2, dtype=np.float32))


def test_strings_built_from_tensors_only_print():
    @ms.jit
    def f(x):
        s = f"{x}"
        if s == "[1. 2.]":
            x = x + 1
        return x

    with pytest.raises(ms.CompileError, match="only known at run time: it can be printed"):
        f(X)


def test_no_gradient_through_a_callback():
    def loss(x):
        y = ms.Tensor(np.sin(x.asnumpy()))
        return (y * x).sum()

    with pytest.raises(ms.CompileError, match=r"no gradient through np.sin \(test_jit_fallback.py:"
                                              r"\d+\): it runs in the Python interpreter"):
        _quiet(ms.jit(ms.grad(loss)), X)

    def loss_cut(x):
        y = ms.Tensor(np.sin(ops.stop_gradient(x).asnumpy()))
        print("loss input", x.sum())
        return (y * x).sum()

    np.testing.assert_allclose(_quiet(ms.jit(ms.grad(loss_cut)), X), np.sin(X), rtol=1e-6)


def test_export_rejects_host_callbacks(tmp_path):
    class Net(nn.Cell):
        def construct(self, x):
            print(x)
            return x + 1

    with pytest.raises(ValueError, match=r"cannot run without the Python source"):
        ms.export(Net(), ms.Tensor(X), file_name=str(tmp_path / "net"), file_format="MINDIR")


def test_unregistered_callback_in_mlir_text_is_a_clear_error():
    from msmlir.compiler import compile_mlir
    text = """
    func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
      mindir.host_callback @not_registered "print (a.py:1)" (%x) : (tensor<2xf32>) -> ()
      return %x : tensor<2xf32>
    }"""
    with pytest.raises(HostCallbackError, match="host callback @not_registered is not registered"):
        compile_mlir(text)


def test_range_of_a_tensor_is_still_an_error():
    @ms.jit
    def f(x):
        for i in range(int(x.sum())):
            x = x + i
        return x

    with pytest.raises(ms.CompileError, match="range\\(\\) of a tensor"):
        f(X)


def test_vmap_runs_the_callback_once_per_example(capfd):
    def f(row, scale):
        print("row", row)
        return ms.Tensor(np.sort(row.asnumpy())[::-1].copy()) * scale

    out = _quiet(ms.jit(ms.vmap(f, in_axes=(0, None))), X, np.float32(2.0))
    np.testing.assert_array_equal(out, np.sort(X, axis=1)[:, ::-1] * 2)
    assert capfd.readouterr().out.splitlines() == [f"row {X[0]}", f"row {X[1]}"]


# ---- ops.Custom(func_type="pyfunc"): declared types, optional bprop ----------------------

def _cube(x):
    return x ** 3


def _cube_bprop(x, out, dout):
    return (3 * x * x * dout,)


def test_custom_pyfunc_forward_and_bprop():
    op = ops.Custom(_cube, out_shape=lambda s: s, out_dtype=lambda t: t, func_type="pyfunc",
                    bprop=_cube_bprop)
    x = np.array([1.0, 2.0, -1.5], np.float32)
    np.testing.assert_array_equal(op(x), x ** 3)                       # PyNative
    assert isinstance(op(ms.Tensor(x)), ms.Tensor)
    with warnings.catch_warnings():
        warnings.simplefilter("error", FallbackWarning)                # declared: no probe, no warning
        np.testing.assert_array_equal(ms.jit(lambda v: op(v) + 1)(x), x ** 3 + 1)
        np.testing.assert_allclose(ms.jit(ms.grad(lambda v: (op(v) * v).sum()))(x), 4 * x ** 3)

    two = ops.Custom(lambda a: (a.sum(keepdims=True), a * 2), out_shape=lambda s: ((1,), s),
                     out_dtype=lambda t: (t, ms.float64), func_type="pyfunc")
    s, d = ms.jit(lambda v: two(v))(x)
    np.testing.assert_allclose(s, [x.sum()])
    assert d.dtype == np.float64
    np.testing.assert_array_equal(d, x * 2)


def test_custom_pyfunc_errors():
    with pytest.raises(ValueError, match="func_type 'akg' is not supported by msmlir"):
        ops.Custom(_cube, (3,), ms.float32, func_type="akg")
    bad = ops.Custom(_cube, out_shape=(4,), out_dtype=ms.float32, func_type="pyfunc")
    x = np.ones(3, np.float32)
    with pytest.raises(ValueError, match=r"returned shape \[3\], declared \[4\]"):
        bad(x)
    with pytest.raises(HostCallbackError, match=r"returned shape \[3\], but graph mode fixed"):
        ms.jit(lambda v: bad(v))(x)
    nograd = ops.Custom(_cube, out_shape=lambda s: s, out_dtype=lambda t: t, func_type="pyfunc")
    with pytest.raises(ms.CompileError, match=r"no gradient through ops.Custom\(_cube\)"):
        ms.jit(ms.grad(lambda v: nograd(v).sum()))(x)


def test_callback_inputs_from_strided_views_and_inside_loops(capfd):
    """Operands that are slices/transposes (non-identity layouts after bufferization)
    reach NumPy with the right values; callbacks inside scf.while / scf.if run per
    iteration / per taken branch."""
    @ms.jit
    def f(x):
        a = np.flip(x[1:, ::2], axis=1)
        b = np.cumsum(x.T[::-1], axis=0)
        i = x.sum() * 0
        while i < 2:
            print("iter", i)
            i = i + 1
        if x.sum() > 0:
            print("positive")
        else:
            print("not positive")
        return ms.Tensor(a) + 0, ms.Tensor(b) + 0

    x = np.arange(20, dtype=np.float32).reshape(4, 5)
    a, b = _quiet(f, x)
    np.testing.assert_array_equal(a, np.flip(x[1:, ::2], axis=1))
    np.testing.assert_array_equal(b, np.cumsum(x.T[::-1], axis=0))
    assert capfd.readouterr().out.splitlines() == ["iter 0.0", "iter 1.0", "positive"]
