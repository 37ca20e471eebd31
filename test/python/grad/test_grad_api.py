"""msmlir.grad / value_and_grad / vjp / ops.GradOperation: MindSpore 2.x semantics
(positions, weights, has_aux, sens, return structures), inside and outside jit,
checked against finite differences in float64 (or exact formulas)."""
from __future__ import annotations

import numpy as np
import pytest

import msmlir as ms
from msmlir import Parameter, ops
from support.gradcheck import close, fd, fd_param

RNG = np.random.default_rng(0)
X = np.array([0.3, -0.7, 1.1])
Y = np.array([0.5, 0.2, -0.4])


def f2(x, y):
    return (ops.tanh(x * y) + ops.exp(x) * ops.sin(y)).sum()


def f2_np(x, y):
    return (np.tanh(x * y) + np.exp(x) * np.sin(y)).sum()


def test_grad_default_position_vs_finite_differences():
    g = ms.grad(f2)(X, Y)
    assert isinstance(g, np.ndarray) and g.shape == (3,) and g.dtype == np.float64
    close(g, fd(lambda x: f2_np(x, Y), X))


def test_grad_positions_tuple_negative_and_order():
    gx, gy = ms.grad(f2, (0, 1))(X, Y)
    close(gx, fd(lambda x: f2_np(x, Y), X))
    close(gy, fd(lambda y: f2_np(X, y), Y))
    gy2, gx2 = ms.grad(f2, (-1, 0))(X, Y)        # the order of grad_position is kept
    close(gy2, gy, rtol=1e-12)
    close(gx2, gx, rtol=1e-12)
    (only_y,) = ms.grad(f2, (1,))(X, Y)          # a 1-tuple gives a 1-tuple
    close(only_y, gy, rtol=1e-12)


def test_value_and_grad():
    v, (gx, gy) = ms.value_and_grad(f2, (0, 1))(X, Y)
    close(v, f2_np(X, Y), rtol=1e-12)
    close(gx, fd(lambda x: f2_np(x, Y), X))
    close(gy, fd(lambda y: f2_np(X, y), Y))


def test_several_outputs_differentiate_their_sum():
    def f(x):
        return (x * x).sum(), ops.sin(x).sum()
    close(ms.grad(f)(X), 2 * X + np.cos(X), rtol=1e-12)


def test_has_aux_grad_and_value_and_grad():
    def f(x, y):
        return (x * ops.exp(y)).sum(), y * 2.0, x + 1.0
    g, aux = ms.grad(f, 1, has_aux=True)(X, Y)
    close(g, X * np.exp(Y), rtol=1e-12)          # only the first output is differentiated
    assert isinstance(aux, tuple) and len(aux) == 2
    close(aux[0], Y * 2)
    close(aux[1], X + 1)
    (value, grads) = ms.value_and_grad(f, (0, 1), has_aux=True)(X, Y)
    assert isinstance(value, tuple) and len(value) == 3
    close(value[0], (X * np.exp(Y)).sum())
    close(grads[0], np.exp(Y), rtol=1e-12)
    close(grads[1], X * np.exp(Y), rtol=1e-12)


def test_has_aux_single_aux_is_a_tuple():
    def f(x):
        return (x * x).sum(), x
    g, aux = ms.grad(f, has_aux=True)(X)
    close(g, 2 * X)
    assert isinstance(aux, tuple) and len(aux) == 1
    close(aux[0], X)


def test_sens_param_gives_the_initial_cotangent():
    def f(x):
        return x * x, ops.sin(x)
    s1, s2 = np.array([1.0, 0.0, 2.0]), np.array([0.5, 1.0, 0.0])
    g = ms.grad(f, sens_param=True)(X, (s1, s2))
    close(g, 2 * X * s1 + np.cos(X) * s2, rtol=1e-12)
    v, g = ms.value_and_grad(lambda x: ops.exp(x), sens_param=True)(X, s1)
    close(v, np.exp(X))
    close(g, np.exp(X) * s1, rtol=1e-12)


def test_vjp():
    out, vjp_fn = ms.vjp(lambda a, b: a * ops.sin(b), X, Y)
    close(out, X * np.sin(Y))
    v = np.array([1.0, 2.0, 3.0])
    ga, gb = vjp_fn(v)
    close(ga, np.sin(Y) * v, rtol=1e-12)
    close(gb, X * np.cos(Y) * v, rtol=1e-12)


def test_grad_operation():
    def f(a, b):
        return a * b
    sens = np.array([1.0, 2.0, 3.0])
    ga, gb = ops.GradOperation(get_all=True, sens_param=True)(f)(X, Y, sens)
    close(ga, Y * sens)
    close(gb, X * sens)
    g0 = ops.GradOperation()(lambda a, b: (a * b).sum())(X, Y)
    close(g0, Y)


def test_tanh_higher_order_matches_mindspore():
    # MindSpore's documented printout for grad(tanh), grad(grad(tanh)), grad^3(tanh) at 2.0
    d1 = ms.grad(ops.tanh)(2.0)
    d2 = ms.grad(ms.grad(ops.tanh))(2.0)
    d3 = ms.grad(ms.grad(ms.grad(ops.tanh)))(2.0)
    assert np.asarray(d1).dtype == np.float32
    np.testing.assert_allclose([d1, d2, d3], [0.070650816, -0.13621868, 0.25265405], rtol=1e-6)
    t = np.tanh(2.0)
    e1 = 1 - t * t
    e2 = -2 * t * e1
    e3 = -2 * e1 * e1 - 2 * t * e2
    f = ms.grad(ms.grad(ms.grad(ops.tanh)))
    np.testing.assert_allclose(f(np.array(2.0)), e3, rtol=1e-12)   # float64 input


def test_hessian_vector_product():
    A = RNG.standard_normal((4, 3))

    def f(x):
        return ops.tanh(ops.matmul(A, x)).sum() + (ops.exp(x) * x).sum()

    def hvp(x, v):
        return ms.grad(lambda z: (ms.grad(f)(z) * v).sum())(x)

    v = np.array([1.0, -1.0, 0.5])
    got = ms.jit(hvp)(X, v)
    gradf = ms.grad(f)
    eps = 1e-5
    H = np.stack([(gradf(X + eps * e) - gradf(X - eps * e)) / (2 * eps) for e in np.eye(3)], 1)
    close(got, H @ v, rtol=1e-7, atol=1e-8)
    close(ms.grad(hvp)(X, v), fd(lambda x: float(np.dot(ms.jit(hvp)(x, v), np.ones(3))), X),
          rtol=1e-5, atol=1e-7)


# --- inside jit ----------------------------------------------------------------------------

def test_grad_inside_jit_equals_outside():
    @ms.jit
    def step(x, y):
        loss, g = ms.value_and_grad(f2, 1)(x, y)
        return loss * 2.0, g - 1.0
    loss, g = step(X, Y)
    close(loss, 2 * f2_np(X, Y), rtol=1e-12)
    close(g, ms.grad(f2, 1)(X, Y) - 1.0, rtol=1e-12)
    text = step.lower(X, Y)
    assert "mindir.grad @f2_fn" in text and "grad_position = array<i64: 1>" in text
    assert "return_value" in text


def test_grad_of_jit_local_closure():
    @ms.jit
    def outer(x, y):
        def inner(z):
            return (z * y * y).sum()       # closes over the enclosing function's tensor y
        return ms.grad(inner)(x)
    close(outer(X, Y), Y * Y, rtol=1e-12)


def test_tensor_inputs_give_tensor_outputs():
    g = ms.grad(f2)(ms.Tensor(X), ms.Tensor(Y))
    assert isinstance(g, ms.Tensor)
    close(g.asnumpy(), ms.grad(f2)(X, Y), rtol=1e-12)


def test_stop_gradient_zeroes_a_path_and_depend_passes_through():
    def f(x, y):
        a = ops.stop_gradient(x * y)
        return (a * x + ops.depend(y * y, a)).sum()
    gx, gy = ms.grad(f, (0, 1))(X, Y)
    close(gx, X * Y, rtol=1e-12)       # not 2*x*y: the stopped factor has no gradient
    close(gy, 2 * Y, rtol=1e-12)       # not 2*y + x*x
    g = ms.grad(lambda x: ops.stop_gradient(x * x).sum() + x.sum())(X)
    close(g, np.ones(3))


# --- weights (Parameters) ----------------------------------------------------------------

class Dense:
    """A Cell-like object: Parameters held as attributes, used as self.w in construct."""

    def __init__(self, n_in, n_out, seed):
        rng = np.random.default_rng(seed)
        self.w = Parameter(rng.standard_normal((n_in, n_out)) * 0.5, name="w")
        self.b = Parameter(rng.standard_normal(n_out) * 0.1, name="b")

    def trainable_params(self):
        return [self.w, self.b]

    def construct(self, x):
        return ops.tanh(ops.matmul(x, self.w) + self.b)

    def __call__(self, x):
        return self.construct(x)


def test_weights_only_and_both_vs_finite_differences():
    net = Dense(3, 2, 1)
    xb = RNG.standard_normal((4, 3))

    def loss(x):
        return (net(x) ** 2).sum()

    def loss_np():
        return float((np.tanh(xb @ net.w.asnumpy() + net.b.asnumpy()) ** 2).sum())

    gw, gb = ms.grad(loss, None, net.trainable_params())(xb)
    close(gw, fd_param(loss_np, net.w))
    close(gb, fd_param(loss_np, net.b))
    single = ms.grad(loss, None, net.w)(xb)            # one Parameter -> one gradient
    close(single, gw, rtol=1e-12)
    gx, (gw2, gb2) = ms.grad(loss, 0, net.trainable_params())(xb)
    close(gx, fd(lambda x: float((np.tanh(x @ net.w.asnumpy() + net.b.asnumpy()) ** 2).sum()), xb))
    close(gw2, gw, rtol=1e-12)
    close(gb2, gb, rtol=1e-12)


def test_parameters_are_inputs_not_constants():
    """A Parameter used by fn (a global here) is an argument of the compiled graph:
    after set_data the same compiled function sees the new value."""
    W = Parameter(np.array([[0.5, -0.3, 0.2], [0.2, 0.1, -0.4]]), name="W")

    def loss(x):
        return ops.tanh(ops.matmul(W, x)).sum()

    gfn = ms.value_and_grad(loss, 0, W)
    v1, (gx1, gW1) = gfn(X)
    W.set_data(W.asnumpy() * 2.0)
    v2, (gx2, gW2) = gfn(X)
    close(v2, np.tanh(W.asnumpy() @ X).sum(), rtol=1e-12)
    close(gW2, fd_param(lambda: np.tanh(W.asnumpy() @ X).sum(), W))
    assert not np.allclose(v1, v2)
    assert gfn._jit.cache_info()["compiles"] == 1
    text = gfn.lower(X)
    assert "tensor<2x3xf64>" in text.split("\n")[1]      # W is an argument of the entry


def test_seed_training_step_value_and_grad_has_aux_weights():
    """The seed's functional training step: value_and_grad(forward_fn, None,
    params, has_aux=True) -> ((loss, logits), grads); a few SGD steps lower the loss."""
    net = Dense(3, 2, 2)
    xb = RNG.standard_normal((8, 3))
    tb = RNG.standard_normal((8, 2)) * 0.5

    def forward_fn(inputs, targets):
        logits = net(inputs)
        loss = ((logits - targets) ** 2).mean()
        return loss, logits

    grad_fn = ms.value_and_grad(forward_fn, None, net.trainable_params(), has_aux=True)

    @ms.jit
    def train_step(inputs, targets):
        (loss, logits), grads = grad_fn(inputs, targets)
        return loss, logits, grads

    losses = []
    for _ in range(5):
        loss, logits, grads = train_step(xb, tb)
        assert logits.shape == (8, 2) and len(grads) == 2
        for p, g in zip(net.trainable_params(), grads):
            p.set_data(p.asnumpy() - 0.5 * g)
        losses.append(float(loss))
    assert losses[-1] < losses[0]
    assert train_step.cache_info()["compiles"] == 1

    def loss_np():
        return float(((np.tanh(xb @ net.w.asnumpy() + net.b.asnumpy()) - tb) ** 2).mean())
    _, _, (gw, gb) = train_step(xb, tb)
    close(gw, fd_param(loss_np, net.w))
    close(gb, fd_param(loss_np, net.b))


def test_gradient_penalty_weights_of_an_input_gradient():
    """grad w.r.t. a weight of |d f / d x|^2 (a mindir.grad inside the function differentiated)."""
    W = Parameter(np.array([[0.5, -0.3, 0.2], [0.2, 0.1, -0.4]]), name="W")

    def f(x):
        return ops.tanh(ops.matmul(W, x)).sum() + (ops.exp(x) * x).sum()

    def pen(x):
        g = ms.grad(f)(x)
        return (g * g).sum()

    jp = ms.jit(pen)
    gw = ms.grad(pen, None, W)(X)
    close(gw, fd_param(lambda: jp(X), W), rtol=1e-5)


def test_grad_of_a_method_and_of_a_callable_object():
    net = Dense(3, 2, 3)
    xb = RNG.standard_normal((2, 3))
    ref = ms.grad(lambda x: net(x).sum())(xb)
    close(ms.grad(lambda x: net.construct(x).sum())(xb), ref, rtol=1e-12)
    close(ms.grad(net)(xb), ref, rtol=1e-12)      # a non-scalar output: sens = ones


# --- errors -----------------------------------------------------------------------------------

def test_errors():
    with pytest.raises(ValueError, match="can not be None at the same time"):
        ms.grad(f2, None, None)
    with pytest.raises(TypeError, match="Parameters"):
        ms.grad(f2, None, [np.ones(3)])
    with pytest.raises(ms.CompileError, match="grad_position 2 is out of range"):
        ms.grad(f2, 2)(X, Y)
    with pytest.raises(ms.CompileError, match="has_aux=True: the function must return a tuple"):
        ms.grad(lambda x: x.sum(), has_aux=True)(X)
    with pytest.raises(ms.CompileError, match="sensitivity has 1 tensor"):
        ms.grad(lambda x: (x, x), sens_param=True)(X, X)


def test_jit_of_a_transform_and_transform_of_a_jit_function():
    def f(x):
        return ops.sin(x).sum()
    close(ms.jit(ms.grad(f))(X), np.cos(X), rtol=1e-12)
    close(ms.grad(ms.jit(f))(X), np.cos(X), rtol=1e-12)
    xs = RNG.standard_normal((2, 3))
    close(ms.jit(ms.vmap(f))(xs), np.sin(xs).sum(axis=1), rtol=1e-12)


def test_sgd_step_inside_jit_assigns_the_captured_parameters():
    """grad w.r.t. weights + ops.assign on the same (captured) Parameters in one
    compiled step: the Parameters are updated in place, no recompilation."""
    net = Dense(3, 2, 4)
    xb = RNG.standard_normal((4, 3))

    def loss(x):
        return (net(x) ** 2).mean()

    grad_fn = ms.value_and_grad(loss, None, net.trainable_params())

    @ms.jit
    def step(x):
        v, grads = grad_fn(x)
        for p, g in zip(net.trainable_params(), grads):
            ops.assign(p, p - 0.1 * g)
        return v

    w0, b0 = net.w.asnumpy().copy(), net.b.asnumpy().copy()
    gw, gb = ms.grad(loss, None, net.trainable_params())(xb)
    v0 = step(xb)
    close(net.w.asnumpy(), w0 - 0.1 * gw, rtol=1e-12)
    close(net.b.asnumpy(), b0 - 0.1 * gb, rtol=1e-12)
    v1 = step(xb)
    assert float(v1) < float(v0)
    assert step.cache_info()["compiles"] == 1
