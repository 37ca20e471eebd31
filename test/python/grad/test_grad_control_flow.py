"""Gradients through the frontend's control flow (a tensor `if` -> scf.if, a
tensor `while` -> scf.while, `for` over range unrolled, helper functions ->
func.call) vs finite differences in float64, outside and inside jit."""
from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

import msmlir as ms
from msmlir import ops
from support.gradcheck import close, fd

X = np.array([0.3, -0.2, 0.5])


def f_if(x):
    if x.sum() > 0:                 # data-dependent: scf.if
        y = x * x * ops.exp(x)
    else:
        y = ops.sin(x) * 3.0
    return y.sum()


def f_while(x):
    s = x
    while s.sum() < 10.0:           # tensor condition: scf.while, run-time trip count
        s = s * 1.5 + ops.tanh(s)
    return (s * s).sum()


def scale(x, k):
    return ops.tanh(x * k) + x


def f_for(x):
    acc = x
    for i in range(4):              # Python loop: unrolled; helper called with Python k
        acc = scale(acc, float(i + 1)) * x
    return acc.sum()


def inner(x, w):
    if (x * w).sum() > 0.0:
        return ops.exp(x * w) * 0.5
    return x * w


def middle(x):
    return inner(x, 2.0) + inner(-x, 0.5)


def f_nested(x):
    return (middle(x) * middle(x * x)).sum()


def f_if_while(x):
    y = x
    if y.max() > 0.4:
        while y.sum() < 5.0:
            y = y * 2.0
    else:
        y = y * y
    return ops.sin(y).sum()


CASES = [f_if, f_while, f_for, f_nested, f_if_while]


@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
@pytest.mark.parametrize("sign", [1.0, -1.0], ids=["pos", "neg"])
def test_grad_vs_finite_differences(fn, sign):
    x = X * sign
    jf = ms.jit(fn)
    g = ms.grad(fn)(x)
    close(g, fd(jf, x), rtol=1e-6, atol=1e-7)


def test_control_flow_ir_is_structured():
    text = ms.grad(f_while).lower(X)
    assert "mindir.grad" in text and "scf.while" in text
    text = ms.grad(f_if).lower(X)
    assert "scf.if" in text


def test_grad_of_control_flow_inside_jit():
    @ms.jit
    def step(x):
        v, g = ms.value_and_grad(f_while)(x)
        g2 = ms.grad(f_if)(x)
        return v, g + g2
    v, g = step(X)
    close(v, ms.jit(f_while)(X), rtol=1e-12)
    close(g, ms.grad(f_while)(X) + ms.grad(f_if)(X), rtol=1e-10)


@pytest.mark.xfail(strict=True, raises=ms.CompileError,
                   reason="mindir-autodiff limitation: differentiating the backward of a while "
                          "loop needs per-iteration stacks of run-time size nested in a loop "
                          "('cannot save a value of dynamic type tensor<?xf64> per loop iteration')")
def test_second_derivative_through_a_while_loop():
    def f(x):
        s = x
        while s < 3.0:
            s = s * s + 0.5
        return s
    x = np.array(0.7)
    d1 = ms.grad(f)
    d2 = ms.grad(ms.grad(f))
    eps = 1e-5
    close(d2(x), (d1(x + eps) - d1(x - eps)) / (2 * eps), rtol=1e-6)


def test_grad_wrt_loop_carried_weight_inside_jit():
    """A while loop inside a jitted training-like function, gradient w.r.t. a
    second argument used in the body."""
    def f(x, w):
        i = 0.0 * w.sum()
        h = x
        while i < 3.0:
            h = ops.tanh(h * w) + x
            i = i + 1.0
        return (h * h).sum()
    w = np.array([0.9, -0.4, 0.7])
    g = ms.jit(lambda x, w: ms.grad(f, 1)(x, w))(X, w)
    close(g, fd(lambda w_: ms.jit(f)(X, w_), w), rtol=1e-6, atol=1e-8)


def test_branch_returning_a_saved_value_in_a_subprocess(tmp_path):
    """Regression guard, run in a subprocess (a crash must not take the session down):
    mindir-autodiff's scf.if forward yields a branch value that is also a saved
    residual (`scf.yield %e, %e`); without msmlir-cpu-pipeline's `inline` after
    mindir-autodiff, the callee's fwd function returned one buffer twice after
    bufferization and buffer-results-to-out-params crashed (SIGSEGV)."""
    code = textwrap.dedent("""
        import numpy as np, msmlir as ms
        from msmlir import ops
        def inner(x):
            if x.sum() > 0.0:
                return ops.exp(x)
            return x
        def f(x):
            return inner(x).sum()
        x = np.array([0.3, -0.2, 0.5])
        g = ms.grad(f)(x)
        assert np.allclose(g, np.exp(x), rtol=1e-12), g
        print("ok", g)
    """)
    script = tmp_path / "branch_crash.py"     # a file: jit parses the functions' source
    script.write_text(code)
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "ok" in r.stdout
