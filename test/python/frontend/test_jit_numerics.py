"""msmlir.jit end to end: compile through msmlir-cpu-pipeline, run on the CPU,
compare with numpy; plus the signature cache."""
from __future__ import annotations

import numpy as np
import pytest

import msmlir as ms
from msmlir import ops
from msmlir.frontend import jit as jit_module

rng = np.random.default_rng(7)


def _softmax(z, axis=-1):
    e = np.exp(z - z.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


# ---------------------------------------------------------------------------
# MLP forward
# ---------------------------------------------------------------------------

def _dense(x, w, b):
    return x @ w + b


def _hidden(x, w, b):
    return ops.relu(_dense(x, w, b))


@ms.jit
def mlp(x, w1, b1, w2, b2):
    h = _hidden(x, w1, b1)
    logits = _dense(h, w2, b2)
    return ops.softmax(logits, axis=-1), logits


def test_mlp_forward_with_softmax_matches_numpy():
    x = rng.standard_normal((8, 16)).astype(np.float32)
    w1 = rng.standard_normal((16, 32)).astype(np.float32) * 0.3
    b1 = rng.standard_normal(32).astype(np.float32)
    w2 = rng.standard_normal((32, 10)).astype(np.float32) * 0.3
    b2 = rng.standard_normal(10).astype(np.float32)
    probs, logits = mlp(x, w1, b1, w2, b2)
    ref_logits = np.maximum(x @ w1 + b1, 0) @ w2 + b2
    assert probs.shape == (8, 10) and probs.dtype == np.float32
    np.testing.assert_allclose(logits, ref_logits, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(probs, _softmax(ref_logits), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(probs.sum(-1), 1.0, rtol=1e-5)


def test_nested_helper_calls_and_jit_calling_jit():
    @ms.jit
    def inner(a):
        return ops.tanh(a) * 2

    def middle(a, b):
        return inner(a) + ops.exp(-b)

    def outer(a, b):
        return middle(a, b) - middle(b, a)

    @ms.jit
    def f(a, b):
        return outer(a, b), inner(b)

    a = rng.standard_normal((3, 5)).astype(np.float32)
    b = rng.standard_normal((3, 5)).astype(np.float32)
    r0, r1 = f(a, b)
    ref = (np.tanh(a) * 2 + np.exp(-b)) - (np.tanh(b) * 2 + np.exp(-a))
    np.testing.assert_allclose(r0, ref, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(r1, np.tanh(b) * 2, rtol=1e-5, atol=1e-6)
    assert "func.func private @middle" in f.lower(a, b)


def test_python_control_flow_unrolled_indexing_reductions_and_promotion():
    @ms.jit
    def f(x, idx, n):
        acc = ops.zeros_like(x[0])
        for i in range(n):
            acc = acc + x[i] * (i + 1)
        cols = x[:, 1:3]
        as_int = x.astype(ms.int32) + 1          # int32 arithmetic
        mixed = as_int * 0.5                      # int32 * float -> float32
        return (acc, cols.sum(axis=0), x.mean(axis=1, keep_dims=True), mixed,
                ops.gather(x, idx, 0), x[::-1, None, 0], n)

    x = rng.uniform(-3, 3, (4, 5)).astype(np.float32)
    idx = np.array([3, 0, 3], np.int32)
    acc, colsum, mean, mixed, gathered, rev, n = f(x, idx, 3)
    np.testing.assert_allclose(acc, x[0] + 2 * x[1] + 3 * x[2], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(colsum, x[:, 1:3].sum(0), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(mean, x.mean(1, keepdims=True), rtol=1e-5, atol=1e-6)
    assert mixed.dtype == np.float32
    np.testing.assert_allclose(mixed, (x.astype(np.int32) + 1) * 0.5)
    np.testing.assert_array_equal(gathered, x[idx])
    np.testing.assert_array_equal(rev, x[::-1, None, 0])
    assert n == 3  # a Python value returned as it is


def test_tuple_and_constant_returns():
    @ms.jit
    def f(x):
        return x + 1, (x * 2, "tag"), None

    x = np.arange(3, dtype=np.float32)
    a, (b, tag), none = f(x)
    np.testing.assert_array_equal(a, x + 1)
    np.testing.assert_array_equal(b, x * 2)
    assert tag == "tag" and none is None

    @ms.jit
    def single(x):
        return x - 1

    out = single(x)
    assert isinstance(out, np.ndarray)
    np.testing.assert_array_equal(out, x - 1)


def test_eager_ops_on_numpy_arrays():
    x = rng.standard_normal((3, 4)).astype(np.float32)
    np.testing.assert_allclose(ops.softmax(x), _softmax(x), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ops.reduce_sum(x, 1, True), x.sum(1, keepdims=True), rtol=1e-5)
    np.testing.assert_array_equal(ops.concat((x, x), 1), np.concatenate((x, x), 1))
    parts = ops.split(np.arange(10, dtype=np.float32), 4)
    assert [p.tolist() for p in parts] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    np.testing.assert_array_equal(ops.one_hot(np.array([0, 2], np.int32), 3),
                                  np.eye(3, dtype=np.float32)[[0, 2]])
    np.testing.assert_array_equal(ops.zeros((2, 2), ms.int32), np.zeros((2, 2), np.int32))


# ---------------------------------------------------------------------------
# the signature cache
# ---------------------------------------------------------------------------

def test_second_call_with_same_signature_does_not_recompile(monkeypatch):
    builds, compiles = [], []
    real_build = jit_module.build_module

    def counting_build(*a, **k):
        builds.append(1)
        return real_build(*a, **k)

    import msmlir.compiler as compiler
    real_compile = compiler.compile_module

    def counting_compile(module, *a, **k):
        compiles.append(1)
        return real_compile(module, *a, **k)

    monkeypatch.setattr(jit_module, "build_module", counting_build)
    monkeypatch.setattr(compiler, "compile_module", counting_compile)

    @ms.jit
    def f(x, k):
        return x * k

    x = np.ones((2, 3), np.float32)
    np.testing.assert_array_equal(f(x, 2.0), x * 2)
    np.testing.assert_array_equal(f(x + 1, 2.0), (x + 1) * 2)   # same shapes/dtypes and scalar
    assert (len(builds), len(compiles)) == (1, 1)
    assert f.cache_info() == {"compiles": 1, "hits": 1, "entries": 1}

    np.testing.assert_array_equal(f(np.ones((4, 3), np.float32), 2.0), np.full((4, 3), 2.0))
    assert (len(builds), len(compiles)) == (2, 2)              # new shape: recompiled
    np.testing.assert_array_equal(f(x, 3.0), x * 3)            # new Python scalar value
    f(x.astype(np.float64), 3.0)                               # new dtype
    assert (len(builds), len(compiles)) == (4, 4)
    f(np.ones((4, 3), np.float32), 2.0)
    f(x, 3.0)
    assert f.cache_info() == {"compiles": 4, "hits": 3, "entries": 4}
    assert (len(builds), len(compiles)) == (4, 4)


def test_jit_as_a_function_and_bad_arguments():
    def plain(x):
        return x * x

    f = ms.jit(plain)
    assert f.__wrapped__ is plain and f.__name__ == "plain"
    np.testing.assert_array_equal(f(np.arange(3, dtype=np.float32)), np.arange(3) ** 2)
    with pytest.raises(ms.CompileError, match="uint8"):
        f(np.arange(3, dtype=np.uint8))
    with pytest.raises(TypeError):
        ms.jit(plain, bogus_option=1)


def test_changing_the_parallel_mode_recompiles():
    """A graph compiled stand-alone is not reused under another parallel mode
    (the sharded compilers of msmlir.parallel see only new compiles)."""
    @ms.jit
    def f(x):
        return x * 2.0

    x = np.ones((2, 3), np.float32)
    f(x)
    try:
        ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, device_num=1)
        np.testing.assert_array_equal(f(x), x * 2)
        assert f.cache_info()["compiles"] == 2
    finally:
        ms.reset_auto_parallel_context()
    f(x)
    assert f.cache_info() == {"compiles": 2, "hits": 1, "entries": 2}
