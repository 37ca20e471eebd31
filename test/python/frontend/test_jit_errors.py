"""User errors in jitted code: msmlir.CompileError at the user's file:line,
with a clear message and no compiler-internal traceback."""
from __future__ import annotations

import inspect
import os
import traceback

import numpy as np
import pytest

import msmlir as ms
from msmlir import ops

X23 = np.ones((2, 3), np.float32)
X4 = np.ones((4,), np.float32)
THIS_FILE = os.path.abspath(__file__)
PKG_DIR = os.path.dirname(os.path.abspath(ms.__file__))


def _line(fn, text):
    lines, start = inspect.getsourcelines(fn)
    hits = [start + i for i, ln in enumerate(lines) if text in ln]
    assert len(hits) == 1, (text, hits)
    return hits[0]


def _compile_error(fn, *args, **kwargs) -> ms.CompileError:
    with pytest.raises(ms.CompileError) as info:
        fn(*args, **kwargs)
    return info.value


def _assert_points_at(err, fn, text):
    line = _line(fn, text)
    msg = str(err)
    assert msg.startswith(f"{THIS_FILE}:{line}:"), msg
    assert err.filename == THIS_FILE and err.lineno == line
    assert text.strip() in msg  # the offending source line is quoted


def test_broadcast_error_points_at_the_users_line_without_internal_frames():
    @ms.jit
    def f(x, y):
        z = x * 2
        w = z + y
        return w

    err = _compile_error(f, X23, X4)
    _assert_points_at(err, f, "w = z + y")
    assert "shapes [2, 3] and [4] cannot be broadcast together" in str(err)
    # no chained internal exception, and no frame of the compiler's internals
    assert err.__cause__ is None and err.__suppress_context__
    frames = traceback.extract_tb(err.__traceback__)
    internal = [fr for fr in frames if fr.filename.startswith(PKG_DIR)]
    # the only msmlir frame is the jit entry point that re-raises the error
    assert [os.path.basename(fr.filename) for fr in internal] == ["jit.py"]
    assert all(fr.name == "__call__" for fr in internal)
    text = "".join(traceback.format_exception(err))
    for module in ("parser.py", "values.py", "builder.py", "ops/", "_mindir_ops_gen", "MLIRError"):
        assert module not in text, text


def test_error_inside_helper_names_the_helper_line_and_the_call_site():
    def helper(a, b):
        return ops.matmul(a, b)

    @ms.jit
    def f(x):
        return helper(x, x)

    err = _compile_error(f, X23)
    _assert_points_at(err, helper, "return ops.matmul(a, b)")
    assert "mindir.matmul" in str(err)
    assert f"in 'helper', called from {THIS_FILE}:{_line(f, 'return helper(x, x)')}" in str(err)


def test_reshape_and_index_errors():
    @ms.jit
    def f(x):
        y = x + 1
        return ops.reshape(y, (5,))

    err = _compile_error(f, X23)
    _assert_points_at(err, f, "return ops.reshape(y, (5,))")
    assert "cannot reshape [2, 3] (6 elements) to [5]" in str(err)

    @ms.jit
    def g(x):
        return x[2]

    err = _compile_error(g, X23)
    _assert_points_at(err, g, "return x[2]")
    assert "index 2 is out of bounds for axis 0 with size 2" in str(err)


@pytest.mark.parametrize("construct", ["class", "global", "yield", "nonlocal"])
def test_unsupported_syntax_names_the_construct_and_line(construct):
    def f_class(x):
        class A:
            pass
        return x

    def f_global(x):
        global X23
        return x

    def f_yield(x):
        yield x

    def f_nonlocal(x):
        n = 1

        def inner():
            nonlocal n
            return n
        return x * inner()

    fn, text, what = {
        "class": (f_class, "class A:", "class definitions are not supported"),
        "global": (f_global, "global X23", "`global` declarations are not supported"),
        "yield": (f_yield, "yield x", "`yield` (generators) is not supported"),
        "nonlocal": (f_nonlocal, "nonlocal n", "`nonlocal` declarations are not supported"),
    }[construct]
    err = _compile_error(ms.jit(fn), X23)
    _assert_points_at(err, fn, text)
    assert what in str(err)


def test_branches_of_a_tensor_if_must_agree_on_types():
    @ms.jit
    def f(x):
        if x.sum() > 0:
            y = x
        else:
            y = x[0]
        return y

    err = _compile_error(f, X23)
    line = _line(f, "if x.sum() > 0:")
    _assert_points_at(err, f, "if x.sum() > 0:")
    assert (f"variable 'y' is Tensor(shape=[2, 3], dtype=Float32) in the `if` branch but "
            f"Tensor(shape=[3], dtype=Float32) in the `else` branch of the `if` at line {line}") in str(err)


def test_variable_defined_on_one_path_only():
    @ms.jit
    def f(x):
        if x.sum() > 0:
            y = x * 2
        return y

    err = _compile_error(f, X23)
    _assert_points_at(err, f, "return y")
    assert (f"variable 'y' is not defined on every path: it is assigned in only one branch of the "
            f"`if` at line {_line(f, 'if x.sum() > 0:')}") in str(err)


def test_tensor_while_loop_variable_must_keep_its_type():
    @ms.jit
    def f(x):
        while x.sum() < 10:
            x = ops.concat((x, x))
        return x

    err = _compile_error(f, X23)
    _assert_points_at(err, f, "while x.sum() < 10:")
    assert "variable 'x' changes type in the body of the `while` loop" in str(err)
    assert "Tensor(shape=[4, 3], dtype=Float32)" in str(err)


def test_break_and_return_under_tensor_conditions_are_rejected_clearly():
    @ms.jit
    def f(x):
        for i in range(3):
            if x.sum() > i:
                break
        return x

    err = _compile_error(f, X23)
    _assert_points_at(err, f, "break")
    assert "`break`/`continue` inside an `if` whose condition is a tensor is not supported" in str(err)

    @ms.jit
    def g(x):
        for i in range(3):
            if x.sum() > i:
                return x
        return x + 1

    err = _compile_error(g, X23)
    _assert_points_at(err, g, "return x\n")
    assert "`return` inside an `if` whose condition is a tensor is only supported" in str(err)

    @ms.jit
    def h(x):
        while x.sum() < 10:
            x = x * 2
            if x.max() > 3:
                break
        return x

    err = _compile_error(h, X23)
    _assert_points_at(err, h, "break")
    assert "`break` inside a `while` loop whose condition is a tensor is not supported" in str(err)


def test_runtime_values_cannot_be_used_as_python_values():
    @ms.jit
    def f(x):
        n = int(x.sum())          # fine: a 0-d tensor stands for the run-time int
        for i in range(n):        # but a loop count must be known at compile time
            x = x + i
        return x

    err = _compile_error(f, X23)
    _assert_points_at(err, f, "for i in range(n):")
    assert "range() of a tensor: the number of iterations is only known at run time" in str(err)

    @ms.jit
    def g(x):
        return x if x > 0 else -x   # a [2, 3] condition is ambiguous

    err = _compile_error(g, X23)
    _assert_points_at(err, g, "return x if x > 0 else -x")
    assert "must be a tensor with a single element, got shape [2, 3]" in str(err)


def test_undefined_names_attributes_and_python_errors():
    @ms.jit
    def f(x):
        return x + not_defined_anywhere  # noqa: F821

    err = _compile_error(f, X23)
    _assert_points_at(err, f, "return x + not_defined_anywhere")
    assert "name 'not_defined_anywhere' is not defined" in str(err)

    @ms.jit
    def g(x):
        return x.no_such_method()

    err = _compile_error(g, X23)
    assert "Tensor has no attribute 'no_such_method'" in str(err)

    @ms.jit
    def h(x, n):
        return x * (1 / n)

    err = _compile_error(h, X23, 0)
    _assert_points_at(err, h, "return x * (1 / n)")
    assert "ZeroDivisionError" in str(err)


def test_raise_and_assert_on_python_values_are_compile_errors():
    @ms.jit
    def f(x, mode):
        if mode not in ("a", "b"):
            raise ValueError(f"bad mode {mode}")
        return x

    err = _compile_error(f, X23, "c")
    _assert_points_at(err, f, 'raise ValueError(f"bad mode {mode}")')
    assert "ValueError raised at compile time: bad mode c" in str(err)

    @ms.jit
    def g(x):
        assert x.ndim == 3, "need NCHW"
        return x

    err = _compile_error(g, X23)
    assert "assertion failed: need NCHW" in str(err)


def test_lower_raises_the_same_error_and_eager_ops_raise_compile_errors():
    @ms.jit
    def f(x, y):
        return x - y

    with pytest.raises(ms.CompileError, match="cannot be broadcast"):
        f.lower(X23, X4)
    with pytest.raises(ms.CompileError, match="shapes \\[2, 3\\] and \\[4\\] cannot be broadcast"):
        ops.add(X23, X4)


def test_conditional_expression_branches_must_agree():
    @ms.jit
    def f(x):
        return x if x.sum() > 0 else x[0]

    err = _compile_error(f, X23)
    _assert_points_at(err, f, "return x if x.sum() > 0 else x[0]")
    assert ("the value of the conditional expression is Tensor(shape=[2, 3], dtype=Float32) in the "
            "`if` branch but Tensor(shape=[3], dtype=Float32) in the `else` branch") in str(err)


def test_bad_call_of_a_helper_points_at_the_call():
    def helper(a, b):
        return a + b

    @ms.jit
    def f(x):
        y = x * 2
        return helper(y)

    err = _compile_error(f, X23)
    _assert_points_at(err, f, "return helper(y)")
    assert "calling 'helper': missing a required argument: 'b'" in str(err)
