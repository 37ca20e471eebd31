"""Functions wrapped by functools.wraps decorators, compiled by jit (issue 12).

The decorators live in wrapping_decorators.py, a module that does not import
`ops`: the wrapped functions below use `ops`, so they only compile if each
function is parsed from its own code with its own globals (a wrapper carries
the wrapped function's __name__ and __wrapped__; looking its source up by
those parsed the user's def with the wrapper's module globals)."""
from __future__ import annotations

import inspect
import os

import numpy as np
import pytest

import msmlir as ms
from msmlir import nn, ops

import wrapping_decorators as wd

X = np.array([[1.0, 2.0, 3.0], [0.5, 4.0, 9.0]], np.float32)
THIS_FILE = os.path.abspath(__file__)


@pytest.fixture
def graph_mode():
    old = ms.get_context("mode")
    ms.set_context(mode=ms.GRAPH_MODE)
    yield
    ms.set_context(mode=old)


def _close(out, expect):
    out = out.asnumpy() if hasattr(out, "asnumpy") else np.asarray(out)
    np.testing.assert_allclose(out, expect, rtol=1e-6, atol=1e-6)


def test_jit_over_a_transparent_wrapper():
    @ms.jit
    @wd.passthrough
    def f(x):
        return ops.log(x)

    _close(f(X), np.log(X))


def test_jit_below_the_decorator():
    @wd.passthrough
    @ms.jit
    def f(x):
        return ops.log(x)

    _close(f(X), np.log(X))


def test_decorator_that_jits_inside():
    @wd.graph
    def f(x, y):
        return ops.log(x) * y

    _close(f(X, X), np.log(X) * X)


def test_run_with_cell_in_graph_mode(graph_mode):
    @wd.run_with_cell
    def f(x):
        return ops.log(x)

    _close(f(ms.Tensor(X)), np.log(X))


def test_grad_of_a_run_with_cell_function_in_graph_mode(graph_mode):
    # MindSpore's tests/st/ops/test_ops_log.py pattern: grad of a wrapped
    # function, itself called from a wrapped function
    @wd.run_with_cell
    def forward(x):
        return ops.log(x)

    @wd.run_with_cell
    def backward(x):
        return ops.grad(forward, 0)(x)

    _close(forward(ms.Tensor(X)), np.log(X))
    _close(backward(ms.Tensor(X)), 1.0 / X)


def test_cell_construct_decorated(graph_mode):
    class Net(nn.Cell):
        @wd.passthrough
        def construct(self, x):
            return ops.log(x) + 1

    _close(Net()(ms.Tensor(X)), np.log(X) + 1)


def test_wrapper_that_changes_arguments_is_compiled_as_written():
    # not transparent: unwrapping it would give log(x), not log(2x) + 1
    @ms.jit
    @wd.doubled_input
    def f(x):
        return ops.log(x)

    _close(f(X), np.log(2 * X) + 1)


def test_nested_decorators():
    @ms.jit
    @wd.scaled(3.0)
    @wd.doubled_input
    @wd.passthrough
    def f(x):
        return ops.log(x)

    _close(f(X), (np.log(2 * X) + 1) * 3.0)


def test_wrapper_with_args_and_kwargs():
    @wd.passthrough
    def f(x, y, *, scale=1.0, shift=0.0):
        return ops.log(x) * scale + y + shift

    g = ms.jit(f)
    _close(g(X, X, scale=2.0), np.log(X) * 2.0 + X)
    _close(g(X, X, shift=1.0, scale=0.5), np.log(X) * 0.5 + X + 1.0)


def test_wrapped_function_called_from_jitted_code():
    @wd.passthrough
    def inner(x):
        return ops.exp(x)

    @ms.jit
    def outer(x):
        return inner(x) - ops.log(x)

    _close(outer(X), np.exp(X) - np.log(X))


def test_two_functions_wrapped_by_one_decorator_stay_apart():
    # one wrapper code object, two closures: each call compiles its own fn
    @wd.passthrough
    def a(x):
        return ops.exp(x)

    @wd.passthrough
    def b(x):
        return ops.log(x)

    @ms.jit
    def f(x):
        return a(x) + b(x) * 2

    _close(f(X), np.exp(X) + np.log(X) * 2)


def test_undefined_name_in_a_wrapped_function_points_at_the_users_line():
    @ms.jit
    @wd.passthrough
    def f(x):
        return ops.log(x) + not_defined_anywhere  # noqa: F821

    with pytest.raises(ms.CompileNameError) as info:
        f(X)
    err = info.value
    lines, start = inspect.getsourcelines(f.__wrapped__ if hasattr(f, "__wrapped__") else f)
    line = next(start + i for i, ln in enumerate(lines) if "not_defined_anywhere" in ln)
    assert err.filename == THIS_FILE and err.lineno == line, str(err)
    assert "name 'not_defined_anywhere' is not defined" in str(err)
