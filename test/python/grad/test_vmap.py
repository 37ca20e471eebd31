"""msmlir.vmap: an IR batching transformation (passes/vmap), checked
against a Python loop over the examples (each example run through msmlir.jit)
for several in_axes/out_axes combinations, composed with grad, nested, on
control flow; and its diagnostics."""
from __future__ import annotations

import re

import numpy as np
import pytest

import msmlir as ms
from msmlir import ops
from support.gradcheck import close

RNG = np.random.default_rng(7)


def loop_ref(f, in_axes, out_axes, *args):
    """The reference: f on each example (jitted), stacked along out_axes."""
    B = next(a.shape[ax] for a, ax in zip(args, in_axes) if ax is not None)
    jf = ms.jit(f)
    outs = [jf(*[np.take(a, i, axis=ax) if ax is not None else a
                 for a, ax in zip(args, in_axes)]) for i in range(B)]
    if isinstance(outs[0], tuple):
        oa = out_axes if isinstance(out_axes, tuple) else (out_axes,) * len(outs[0])
        return tuple(np.stack([o[k] for o in outs], axis=a) for k, a in enumerate(oa))
    return np.stack(outs, axis=out_axes)


def mlp(x, w, b):
    return ops.softmax(ops.matmul(x, w) + b, axis=-1)


def two_outputs(x, y):
    return x * y + 1.0, (ops.exp(x) * y).sum(axis=-1)


CASES = {
    # name: (fn, in_axes, out_axes, shapes)
    "mlp_x_mapped": (mlp, (0, None, None), 0, [(5, 2, 3), (3, 4), (4,)]),
    "mlp_w_mapped_axis2_out1": (mlp, (None, 2, None), 1, [(2, 3), (3, 4, 6), (4,)]),
    "mlp_all_mapped_negative_axis": (mlp, (-1, 0, 0), 0, [(2, 3, 5), (5, 3, 4), (5, 4)]),
    "broadcast_lower_rank": (lambda x, y: ops.exp(x) * y - x.sum(), (0, 0), 0, [(4, 3), (4,)]),
    "tuple_outputs_out_axes": (two_outputs, (1, 1), (1, 0), [(3, 4, 2), (3, 4, 2)]),
    "reductions_reshape_transpose": (
        lambda x: (x.reshape(3, 2).T * x.max(axis=0).sum() + x.mean(axis=(0, 1), keep_dims=True)),
        (0,), 0, [(4, 2, 3)]),
    "slicing_concat_stack": (
        lambda x, y: ops.concat((x[1:, ::2], ops.stack((y, y), 0)[:, :2]), 0) * x[0, 0],
        (0, None), 0, [(4, 3, 4), (3,)]),
    "gather_indices_unbatched": (lambda p: ops.gather(p, np.array([2, 0, 2], np.int32), 0) * 2.0,
                                 (0,), 0, [(4, 3, 2)]),
    "select_and_clamp": (lambda x: ops.select(x > 0, x, x * 0.1) + ops.clamp(x, -0.5, 0.5),
                         (0,), 0, [(6, 3)]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_vmap_matches_a_python_loop(name):
    f, ia, oa, shapes = CASES[name]
    args = [RNG.standard_normal(s) for s in shapes]
    got = ms.vmap(f, ia, oa)(*args)
    ref = loop_ref(f, ia, oa, *args)
    if isinstance(ref, tuple):
        assert isinstance(got, tuple) and len(got) == len(ref)
        for g, r in zip(got, ref):
            close(g, r, rtol=1e-12, atol=1e-12)
    else:
        close(got, ref, rtol=1e-12, atol=1e-12)


def _batched_function(text, name):
    m = re.search(r"func\.func private @" + name + r"\(.*?\n  \}", text, re.S)
    assert m, text
    return m.group(0)


def test_vmap_is_an_ir_transformation_not_a_loop():
    x = RNG.standard_normal((8, 2, 3))
    w = RNG.standard_normal((3, 4))
    text = ms.vmap(mlp, (0, None, None)).lower(x, w, np.zeros(4))
    body = _batched_function(text, "mlp_vmap_1")
    assert "mindir.batch_matmul" in body and "tensor<8x2x3xf64>" in body
    assert "softmax" in body and "axis = 2" in body
    for loop in ("scf.for", "scf.while", "tensor.extract_slice", "tensor.insert_slice"):
        assert loop not in text
    assert body.count("mindir.matmul") == 0


def test_vmap_inside_jit_and_nested_vmap():
    A = RNG.standard_normal((4, 3))
    Bm = RNG.standard_normal((5, 3))

    def dot(a, b):
        return (a * b).sum()

    @ms.jit
    def gram(a, b):
        return ms.vmap(ms.vmap(dot, (None, 0)), (0, None))(a, b) * 2.0
    close(gram(A, Bm), 2.0 * A @ Bm.T, rtol=1e-12)


def test_per_example_gradients_vmap_of_grad():
    w = RNG.standard_normal(3)

    def loss(x, w):
        return (ops.tanh(x * w) ** 2).sum()
    xs = RNG.standard_normal((6, 3))
    got = ms.vmap(ms.grad(loss, 1), (0, None))(xs, w)
    t = np.tanh(xs * w)
    close(got, 2 * t * (1 - t * t) * xs, rtol=1e-12)


def test_grad_of_vmap():
    def f(x):
        return ops.sin(x).sum()
    xs = RNG.standard_normal((5, 3))
    g = ms.grad(lambda x: (ms.vmap(f)(x) * np.arange(5.0)).sum())(xs)
    close(g, np.cos(xs) * np.arange(5.0)[:, None], rtol=1e-12)


def branchy(x, w):
    if x.sum() > 0:            # a per-example condition: both branches + select
        y = x * w
    else:
        y = ops.exp(x) - w
    return y


def looped(x, n):
    i = n * 0.0
    while i < n:               # an unbatched condition: the loop carries batched x
        x = x * 0.5 + 1.0
        i = i + 1.0
    return x


def test_vmap_of_control_flow():
    x = RNG.standard_normal((6, 3))
    w = RNG.standard_normal(3)
    close(ms.vmap(branchy, (0, None))(x, w), loop_ref(branchy, (0, None), 0, x, w), rtol=1e-12)
    text = ms.vmap(branchy, (0, None)).lower(x, w)
    assert "mindir.select" in _batched_function(text, "branchy_vmap_1")
    n = np.array(3.0)
    close(ms.vmap(looped, (0, None))(x, n), loop_ref(looped, (0, None), 0, x, n), rtol=1e-12)
    # per-example trip counts: runs while any example continues, select freezes the others
    ns = np.array([0.0, 1.0, 2.0, 3.0, 5.0, 1.0])
    close(ms.vmap(looped, (0, 0))(x, ns), loop_ref(looped, (0, 0), 0, x, ns), rtol=1e-12)


def grow(x):
    s = x
    while s.sum() < 10.0:
        s = s * 1.5 + ops.tanh(s)
    return (s * s).sum()


def test_vmap_of_a_data_dependent_while_and_of_grad_through_if():
    x = np.abs(RNG.standard_normal((5, 3))) + 0.1
    close(ms.vmap(grow)(x), loop_ref(grow, (0,), 0, x), rtol=1e-12)

    def f_if(x):
        if x.sum() > 0:
            y = x * x * ops.exp(x)
        else:
            y = ops.sin(x)
        return y.sum()
    xs = RNG.standard_normal((6, 3))
    # the backward's scf.if on the saved (per-example) condition becomes a select
    close(ms.vmap(ms.grad(f_if))(xs), np.stack([ms.grad(f_if)(v) for v in xs]), rtol=1e-12)


def test_vmap_errors():
    x = RNG.standard_normal((3, 2, 4, 5, 5))

    p = ms.Parameter(ms.Tensor(np.zeros((2, 4, 5, 5))), name="p")

    def write(x):
        ops.assign(p, x)
        return x * 2.0
    with pytest.raises(ms.CompileError, match="no batching rule for 'mindir.assign'"):
        ms.jit(ms.vmap(write))(x)
    with pytest.raises(ms.CompileError, match="different sizes"):
        ms.vmap(lambda a, b: a + b)(np.ones((3, 2)), np.ones((4, 2)))
    with pytest.raises(ms.CompileError, match="carries a non-tensor value"):
        ms.vmap(ms.grad(grow))(np.abs(RNG.standard_normal((4, 3))) + 0.1)
    with pytest.raises(ms.CompileError, match="out_axes is None for output 0"):
        ms.vmap(lambda a: a * 2.0, 0, None)(np.ones((3, 2)))
    with pytest.raises(ms.CompileError, match="in_axes has 1 entries"):
        ms.vmap(lambda a, b: a + b, (0,))(np.ones((3, 2)), np.ones((3, 2)))


@pytest.mark.parametrize("pool,stride,pad", [("max", 1, "valid"), ("avg", 2, "same"),
                                             ("max", 2, "pad")])
def test_per_example_gradients_of_a_cnn(pool, stride, pad):
    """vmap(grad) through conv2d/pooling: the backprop ops get batching rules
    (filter gradients per example as a grouped convolution)."""
    rng = np.random.default_rng(7)
    w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    x = rng.standard_normal((5, 2, 3, 9, 9)).astype(np.float32)
    kw = {"pad_mode": pad, "padding": 1} if pad == "pad" else {"pad_mode": pad}

    def loss(w, x):
        y = ops.relu(ops.conv2d(x, w, stride=stride, **kw))
        y = ops.max_pool2d(y, 2, 2) if pool == "max" else ops.avg_pool2d(y, 2, 2)
        return (y * y).sum()

    g = ms.grad(loss, grad_position=(0, 1))
    per_w, per_x = ms.jit(ms.vmap(g, in_axes=(None, 0)))(w, x)
    single = ms.jit(g)
    for i in range(x.shape[0]):
        gw, gx = single(w, x[i])
        np.testing.assert_allclose(per_w[i], gw, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(per_x[i], gx, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("in_axes", [(0, None, None), (None, 0, 0)])
def test_vmap_of_batch_norm_and_its_gradient(in_axes):
    """Per-example batch norm: statistics per example (examples join the channels)."""
    rng = np.random.default_rng(3)
    B = 3
    x = rng.standard_normal((B, 4, 2, 5, 5) if in_axes[0] == 0 else (4, 2, 5, 5)).astype(np.float32)
    g = rng.standard_normal((B, 2) if in_axes[1] == 0 else (2,)).astype(np.float32)
    b = rng.standard_normal((B, 2) if in_axes[2] == 0 else (2,)).astype(np.float32)
    rm, rv = np.zeros(2, np.float32), np.ones(2, np.float32)

    def loss(x, g, b):
        return (ops.batch_norm(x, rm, rv, g, b, training=True) ** 3).sum()

    gl = ms.grad(loss, grad_position=(0, 1, 2))
    per = ms.jit(ms.vmap(gl, in_axes=in_axes))(x, g, b)
    single = ms.jit(gl)
    for i in range(B):
        args = [a[i] if ax == 0 else a for a, ax in zip((x, g, b), in_axes)]
        for got, want, ax in zip(per, single(*args), in_axes):
            np.testing.assert_allclose(got[i], want, rtol=1e-4, atol=1e-4)


def test_vmap_of_dropout_draws_independent_masks():
    x = np.ones((4, 256), np.float32)
    y = ms.jit(ms.vmap(lambda r: ops.dropout(r, p=0.5)))(x)
    kept = y != 0
    assert 0.35 < kept.mean() < 0.65
    np.testing.assert_array_equal(y[kept], 2.0)
    assert len({row.tobytes() for row in kept}) == 4     # a different mask per example
