"""msmlir.numpy in graph mode (inside msmlir.jit), with msmlir.Tensor, and its errors."""
import numpy as np
import pytest

import msmlir as ms
import msmlir.numpy as mnp
from msmlir import ops

RNG = np.random.default_rng(7)
X = RNG.uniform(-1, 1, (3, 4)).astype(np.float32)
Y = RNG.uniform(0.5, 2, (3, 4)).astype(np.float32)


@ms.jit
def _graph(x, y):
    a = mnp.add(x, y) * mnp.arctan2(x, y)
    b = mnp.var(mnp.concatenate((x, y), axis=0), axis=0)
    c = mnp.cumsum(mnp.flip(x, 1), axis=1)
    d = mnp.dot(mnp.transpose(x), y)
    e = mnp.where(mnp.isclose(x, 0.0, atol=0.3), mnp.zeros_like(x), mnp.sqrt(y))
    f = mnp.pad(mnp.tril(d), 1, mode="reflect")
    g = mnp.take_along_axis(y, mnp.argmax(x, axis=1).reshape(3, 1), 1)
    h = mnp.linspace(0, 1, 5) + mnp.arange(5) + mnp.eye(5)
    s1, s2 = mnp.split(mnp.hstack((x, y)), 2, axis=1)
    return a, b, c, d, e, f, g, h, mnp.mean(s1 - s2, axis=1), mnp.arcsinh(x)


def _graph_ref(x, y):
    a = (x + y) * np.arctan2(x, y)
    b = np.var(np.concatenate((x, y), axis=0), axis=0)
    c = np.cumsum(np.flip(x, 1), axis=1)
    d = np.dot(x.T, y)
    e = np.where(np.isclose(x, 0.0, atol=0.3), 0.0, np.sqrt(y))
    f = np.pad(np.tril(d), 1, mode="reflect")
    g = np.take_along_axis(y, np.argmax(x, axis=1).reshape(3, 1), 1)
    h = np.linspace(0, 1, 5) + np.arange(5) + np.eye(5)
    s1, s2 = np.split(np.hstack((x, y)), 2, axis=1)
    return a, b, c, d, e, f, g, h, np.mean(s1 - s2, axis=1), np.arcsinh(x)


def test_group_in_one_jit_function():
    got = _graph(X, Y)
    want = _graph_ref(X, Y)
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        assert g.dtype == np.float32, i
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6, err_msg=f"output {i}")
    text = _graph.mlir(X, Y)
    assert "mindir.batch_matmul" in text or "mindir.matmul" in text
    assert "host_callback" not in text  # compiled, no fallback to the interpreter


def test_graph_mode_python_values_and_dtypes():
    @ms.jit
    def f(x):
        z = mnp.zeros((2, 2))
        i = mnp.arange(3)
        a = mnp.array([1, 2, 3])
        s = mnp.sum(x > 0)
        st = mnp.array([x[0], mnp.ones(4), x[1] * 2])  # a list of traced tensors: stacked
        return z, i, a, s, mnp.full((2,), 7), mnp.divide(i, 2), st

    z, i, a, s, full, half, st = f(X)
    np.testing.assert_allclose(st, np.stack([X[0], np.ones(4), X[1] * 2]), rtol=1e-6)
    assert z.dtype == np.float32 and i.dtype == np.int32 and a.dtype == np.int32
    assert s.dtype == np.int32 and int(s) == int((X > 0).sum())
    assert full.dtype == np.int32 and half.dtype == np.float32
    np.testing.assert_array_equal(half, [0, 0.5, 1])


def test_gradient_through_composites():
    def loss(x):
        return mnp.sum(mnp.arctan(x) * mnp.cumsum(x, axis=1))

    g = ms.grad(loss)(X)
    eps = 1e-3
    num = np.zeros_like(X)
    for idx in np.ndindex(X.shape):
        xp, xm = X.copy(), X.copy()
        xp[idx] += eps
        xm[idx] -= eps
        ref = lambda v: np.sum(np.arctan(v) * np.cumsum(v, axis=1))  # noqa: E731
        num[idx] = (ref(xp.astype(np.float64)) - ref(xm.astype(np.float64))) / (2 * eps)
    np.testing.assert_allclose(g, num, rtol=1e-3, atol=1e-3)


def test_tensor_in_tensor_out():
    t = ms.Tensor(X)
    r = mnp.exp(t)
    assert isinstance(r, ms.Tensor) and r.dtype == ms.float32
    np.testing.assert_allclose(r.asnumpy(), np.exp(X), rtol=1e-6)
    parts = mnp.split(t, 2, axis=1)
    assert all(isinstance(p, ms.Tensor) for p in parts)
    assert isinstance(mnp.zeros((2,)), ms.Tensor)        # creation: always a Tensor
    assert isinstance(mnp.exp(X), np.ndarray)            # numpy in, numpy out
    # Tensors compose with the Tensor operators and ops
    u = mnp.arange(4) * 2 + 1
    assert isinstance(u, ms.Tensor)
    np.testing.assert_array_equal(ops.reshape(u, (2, 2)).asnumpy(), [[1, 3], [5, 7]])


def test_eager_kernel_cache():
    a = RNG.uniform(0, 1, (5, 6)).astype(np.float32)
    mnp.arcsin(a)
    from msmlir.frontend import trace
    n = len(trace._EAGER_CACHE)
    for _ in range(3):
        mnp.arcsin(a + 0.0)
    assert len(trace._EAGER_CACHE) == n  # one compiled kernel per signature


ERRORS = [
    (lambda: mnp.add(np.ones((2, 3), np.float32), np.ones((4,), np.float32)),
     r"msmlir\.numpy\.add: shapes \[2, 3\] and \[4\] cannot be broadcast"),
    (lambda: mnp.sum(X, axis=2), r"msmlir\.numpy\.sum: axis 2 is out of range for a tensor of rank 2"),
    (lambda: mnp.concatenate((X, np.ones((3, 2, 1), np.float32))),
     r"msmlir\.numpy\.concatenate: .*same number of dimensions"),
    (lambda: mnp.concatenate((X, Y[:2, :3]), axis=0), r"msmlir\.numpy\.concatenate: .*differ in dim 1"),
    (lambda: mnp.stack((X, Y[:2])), r"msmlir\.numpy\.stack: .*same shape"),
    (lambda: mnp.reshape(X, (5, -1)), r"msmlir\.numpy\.reshape: cannot reshape .*\(3, 4\)"),
    (lambda: mnp.matmul(X, X), r"msmlir\.numpy\.matmul: contraction dims do not match"),
    (lambda: mnp.split(X, 3, axis=1), r"msmlir\.numpy\.split: .*equal division"),
    (lambda: mnp.transpose(X, (0, 0)), r"msmlir\.numpy\.transpose: repeated axis"),
    (lambda: mnp.swapaxes(X, 0, -3), r"msmlir\.numpy\.swapaxes: axis2 -3 is out of range"),
    (lambda: mnp.broadcast_to(X, (4, 4)), r"msmlir\.numpy\.broadcast_to: cannot broadcast"),
    (lambda: mnp.squeeze(X, 0), r"msmlir\.numpy\.squeeze: .*size not equal to one"),
    (lambda: mnp.where(X > 0), r"msmlir\.numpy\.where: .*not supported"),
    (lambda: mnp.pad(X, 1, mode="linear_ramp"), r"msmlir\.numpy\.pad: mode 'linear_ramp'"),
    (lambda: mnp.zeros((2, -1)), r"msmlir\.numpy\.zeros: negative dimension"),
    (lambda: mnp.arange(1, 5, 0), r"msmlir\.numpy\.arange: step must not be zero"),
    (lambda: mnp.diagonal(X, axis1=1, axis2=1), r"msmlir\.numpy\.diagonal: axis1 and axis2"),
    (lambda: mnp.tensordot(X, Y, axes=([0], [1])), r"msmlir\.numpy\.tensordot: shape mismatch"),
    (lambda: mnp.exp(X, dtype="complex"), r"msmlir\.numpy\.exp: invalid dtype"),
]


@pytest.mark.parametrize("call,msg", ERRORS, ids=[m.split(":")[0].split(".")[-1] + str(i)
                                                   for i, (_, m) in enumerate(ERRORS)])
def test_errors_name_the_function(call, msg):
    with pytest.raises(ms.CompileError, match=msg):
        call()


def test_error_in_graph_points_at_the_users_line():
    @ms.jit
    def f(x):
        y = mnp.exp(x)
        return mnp.vstack((y, mnp.ones((5,))))  # the error is here

    with pytest.raises(ms.CompileError) as info:
        f(X)
    err = info.value
    assert "msmlir.numpy.vstack: " in err.msg and "differ in dim 1" in err.msg
    assert err.filename == __file__
    assert "the error is here" in str(err)
