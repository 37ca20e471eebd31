"""Kernel-level AD of compute definitions: gradients vs central finite differences
(float64), zero elimination, user-supplied derivatives (fdiff)."""
import numpy as np
import pytest
from support.gradcheck import check_kernel_grads, numeric_grad
from mlir import ir

from msmlir.kernel import (In, compute, exp, floor, kernel, log, maximum, minimum, reduce_max,
                           reduce_min, reduce_sum, select, sigmoid, sqrt, tanh)

RNG = np.random.default_rng(7)


def rand(*shape):
    return RNG.standard_normal(shape)


def grad_ir(k, *args, **kw) -> str:
    """The text of the backward kernel (the mskernel.fused of @<name>_grad after the forward)."""
    text = str(k.grad_module(*args, **kw))
    g = text[text.index(f"func.func @{k.name}_grad"):]
    return g[g.index("mskernel.grad_wrt"):]


# --- the required kernel classes ----------------------------------------------------------

def test_elementwise():
    @kernel
    def ew(x: In[("n",)], y: In[("n",)]):
        return compute(x.shape, lambda i: tanh(x[i] * y[i]) + exp(-x[i]) / (1.0 + y[i] * y[i])
                       + log(1.0 + x[i] * x[i]) * sqrt(2.0 + y[i]))
    x, y = rand(6), np.abs(rand(6))
    check_kernel_grads(ew, [x, y], ref=lambda x, y: np.tanh(x * y) + np.exp(-x) / (1 + y * y)
                + np.log(1 + x * x) * np.sqrt(2 + y))


def test_broadcast():
    @kernel
    def bias_mul(x: In[("n", "m")], b: In[("m",)], s: In[(1,)]):
        return compute(x.shape, lambda i, j: x[i, j] * b[j] + b[j] * s[0])
    x, b, s = rand(3, 4), rand(4), rand(1)
    check_kernel_grads(bias_mul, [x, b, s], ref=lambda x, b, s: x * b + b * s[0])
    # b is read through (i, j) -> (j): i is a reduction in its gradient kernel;
    # s through (i, j) -> (0): both dims are reductions
    g = grad_ir(bias_mul, x, b, s)
    assert 'iterator_types = ["reduction", "parallel"]' in g
    assert 'iterator_types = ["reduction", "reduction"]' in g


def test_reduction():
    @kernel
    def sumsq(x: In[("n", "m")]):
        return compute(("n",), lambda i: reduce_sum(lambda j: x[i, j] * x[i, j], j="m"))
    x = rand(3, 5)
    check_kernel_grads(sumsq, [x], ref=lambda x: (x * x).sum(1))


def test_matmul():
    @kernel
    def matmul(a: In[("n", "k")], b: In[("k", "m")]):
        return compute(("n", "m"), lambda i, j: reduce_sum(lambda k: a[i, k] * b[k, j], k="k"))
    a, b = rand(3, 5), rand(5, 4)
    da, db = check_kernel_grads(matmul, [a, b], ref=lambda a, b: a @ b)
    # exact identities: dA = dC B^T, dB = A^T dC
    dc = RNG.standard_normal((3, 4))
    da, db = matmul.grad(a, b, dout=dc)
    np.testing.assert_allclose(da, dc @ b.T, rtol=1e-13)
    np.testing.assert_allclose(db, a.T @ dc, rtol=1e-13)


def test_gather_floordiv():
    @kernel
    def upsample(x: In[("n",)], w: In[("n2",)]):
        return compute(w.shape, lambda i: x[i // 2] * w[i])
    x, w = rand(4), rand(8)
    check_kernel_grads(upsample, [x, w], ref=lambda x, w: np.repeat(x, 2) * w)
    g = grad_ir(upsample, x, w)
    # x's gradient accumulates through the non-injective map i -> i floordiv 2
    assert "affine_map<(d0) -> (d0 floordiv 2)>" in str(upsample.grad_module(x, w))
    assert 'iterator_types = ["reduction"]' in g


def test_gather_sum_of_indices():
    @kernel
    def hankel(x: In[("p",)]):
        n = 3
        return compute((n, x.shape[0] - n + 1), lambda i, j: x[i + j] * x[i + j] * (i + 1.0))
    x = rand(6)
    ref = lambda x: np.array([[x[i + j] ** 2 * (i + 1) for j in range(4)] for i in range(3)])  # noqa: E731
    (dx,) = check_kernel_grads(hankel, [x], ref=ref)
    assert 'iterator_types = ["reduction", "reduction"]' in grad_ir(hankel, x)


def test_convolution_like_reduction():
    @kernel
    def conv1d(x: In[("p",)], w: In[("q",)]):
        return compute((x.shape[0] - w.shape[0] + 1,),
                       lambda i: reduce_sum(lambda k: x[i + k] * w[k], k="q"))
    x, w = rand(9), rand(3)
    check_kernel_grads(conv1d, [x, w], ref=lambda x, w: np.correlate(x, w, "valid"))


def test_strided_window():
    @kernel
    def pool(x: In[("p",)]):
        # k appears only inside 2*i + k
        return compute((x.shape[0] // 2,), lambda i: reduce_sum(lambda k: x[2 * i + k] ** 2.0, k=2))
    x = rand(8)
    check_kernel_grads(pool, [x], ref=lambda x: (x.reshape(4, 2) ** 2).sum(1))


# --- more of what AD supports ------------------------------------------------------------

def test_multi_stage_softmax():
    @kernel
    def softmax(x: In[("n", "m")]):
        mx = compute(("n",), lambda i: reduce_max(lambda j: x[i, j], j="m"))
        e = compute(x.shape, lambda i, j: exp(x[i, j] - mx[i]))
        s = compute(("n",), lambda i: reduce_sum(lambda j: e[i, j], j="m"))
        return compute(x.shape, lambda i, j: e[i, j] / s[i])

    def ref(x):
        e = np.exp(x - x.max(1, keepdims=True))
        return e / e.sum(1, keepdims=True)
    check_kernel_grads(softmax, [rand(3, 5)], ref=ref)


def test_nested_reduction_logsumexp():
    @kernel
    def lse(x: In[("n", "m")]):
        return compute(("n",), lambda i: log(reduce_sum(lambda j: exp(x[i, j]), j="m")) * 2.0)
    check_kernel_grads(lse, [rand(3, 4)], ref=lambda x: 2 * np.log(np.exp(x).sum(1)))


def test_max_min_reductions_and_select():
    @kernel
    def k(x: In[("n", "m")], y: In[("n", "m")]):
        mx = compute(("n",), lambda i: reduce_max(lambda j: x[i, j] * y[i, j], j="m"))
        mn = compute(("n",), lambda i: reduce_min(lambda j: x[i, j] - y[i, j], j="m"))
        return compute(("n",), lambda i: select(mx[i] > 0.0, mx[i], 0.5 * mx[i]) + mn[i])

    def ref(x, y):
        mx = (x * y).max(1)
        return np.where(mx > 0, mx, 0.5 * mx) + (x - y).min(1)
    check_kernel_grads(k, [rand(3, 5), rand(3, 5)], ref=ref)


def test_max_min_elementwise_pow():
    @kernel
    def k(x: In[("n",)], y: In[("n",)]):
        return compute(x.shape, lambda i: maximum(x[i], y[i]) * minimum(x[i], 0.3)
                       + x[i] ** 3.0 + abs(y[i]) ** y[i])
    x = rand(7)
    y = rand(7)
    check_kernel_grads(k, [x, y], ref=lambda x, y: np.maximum(x, y) * np.minimum(x, 0.3) + x ** 3
                + np.abs(y) ** y)


def test_pow_with_constant_exponent_has_no_log_term():
    # d(x^3)/dx = 3x^2; the d(exponent) term (log(x) * x^3 * 0) is eliminated, so a
    # negative base does not produce NaN (log(x) is never computed)
    @kernel
    def cube(x: In[("n",)]):
        return compute(x.shape, lambda i: x[i] ** 3.0)
    x = -np.abs(rand(5)) - 0.1
    (dx,) = cube.grad(x, dout=np.ones(5))
    np.testing.assert_allclose(dx, 3 * x * x, rtol=1e-14)
    assert "math.log" not in grad_ir(cube, x)


def test_wrt_subset_and_names():
    @kernel
    def f(a: In[("n",)], b: In[("n",)], c: In[("n",)]):
        return compute(a.shape, lambda i: a[i] * b[i] * c[i])
    a, b, c = rand(4), rand(4), rand(4)
    dout = rand(4)
    (db,) = f.grad(a, b, c, dout=dout, wrt=["b"])
    np.testing.assert_allclose(db, dout * a * c, rtol=1e-14)
    dc, da = f.grad(a, b, c, dout=dout, wrt=[2, 0])
    np.testing.assert_allclose(dc, dout * a * b, rtol=1e-14)
    np.testing.assert_allclose(da, dout * b * c, rtol=1e-14)
    assert "mskernel.grad_wrt = array<i64: 1>" in grad_ir(f, a, b, c, wrt="b")


def test_float32_gradients():
    @kernel
    def f(x: In[("n", "m")], b: In[("m",)]):
        return compute(x.shape, lambda i, j: tanh(x[i, j] + b[j]))
    x, b = rand(3, 4).astype(np.float32), rand(4).astype(np.float32)
    dout = rand(3, 4).astype(np.float32)
    dx, db = f.grad(x, b, dout=dout)
    assert dx.dtype == np.float32 and db.dtype == np.float32
    t = np.tanh(x.astype(np.float64) + b)
    np.testing.assert_allclose(dx, dout * (1 - t * t), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(db, (dout * (1 - t * t)).sum(0), rtol=1e-5, atol=1e-6)


# --- zero elimination ------------------------------------------------------------------------

def test_zero_gradient_input_gets_no_kernel():
    @kernel
    def f(x: In[("n",)], t: In[("n",)], b: In[("n",)]):
        # t only enters through floor (derivative 0); b through a 0 factor
        return compute(x.shape, lambda i: x[i] * floor(t[i]) + b[i] * 0.0 + exp(x[i]))
    x, t, b = rand(5), rand(5), rand(5)
    dout = rand(5)
    dx, dt, db = f.grad(x, t, b, dout=dout)
    np.testing.assert_allclose(dx, dout * (np.floor(t) + np.exp(x)), rtol=1e-14)
    np.testing.assert_array_equal(dt, np.zeros(5))
    np.testing.assert_array_equal(db, np.zeros(5))
    g = grad_ir(f, x, t, b)
    assert "mskernel.grad_wrt = array<i64: 0>" in g          # one gradient kernel: x
    assert g.count("linalg.generic") == 1
    assert "arith.constant dense<0.000000e+00> : tensor<5xf64>" in g  # dt, db: constants
    assert "linalg.fill" not in g   # written once: no zero-filled accumulator either


def test_zero_terms_are_not_computed():
    @kernel
    def f(x: In[("n",)], y: In[("n",)]):
        return compute(x.shape, lambda i: x[i] * y[i] + x[i] * 0.0 + 2.0 * x[i] * 1.0)
    x, y = rand(4), rand(4)
    g = grad_ir(f, x, y)
    body = g[:g.index("mskernel.yield")]
    # dx = dout * (y + 2), dy = dout * x: no multiplication by 0 or 1 survives
    assert "0.000000e+00" not in body
    assert "1.000000e+00" not in body
    check_kernel_grads(f, [x, y], ref=lambda x, y: x * y + 2 * x)
    # without zero elimination the same kernel multiplies by those constants
    from msmlir.passes import run_pipeline
    m = f.module(x, y)
    with m.context:
        fn = m.body.operations[0]
        fn.attributes["mskernel.grad"] = ir.DictAttr.get({"name": ir.StringAttr.get("f_grad")})
        run_pipeline(m, "builtin.module(mskernel-autodiff{zero-elimination=false})")
    naive = str(m)
    naive = naive[naive.index("mskernel.grad_wrt"):]
    assert "0.000000e+00" in naive[:naive.index("mskernel.yield")]


def test_relu_mask_becomes_a_select():
    @kernel
    def relu(x: In[("n",)]):
        return compute(x.shape, lambda i: maximum(x[i], 0.0))
    g = grad_ir(relu, rand(4))
    assert "arith.select" in g and "arith.mulf" not in g.split("mskernel.yield")[0]
    x = np.array([-1.0, 2.0, -3.0, 4.0])
    (dx,) = relu.grad(x, dout=np.ones(4))
    np.testing.assert_array_equal(dx, [0, 1, 0, 1])


def test_identity_gradient_needs_no_kernel():
    @kernel
    def add(x: In[("n", "m")], b: In[("m",)]):
        return compute(x.shape, lambda i, j: x[i, j] + b[j])
    x, b = rand(2, 3), rand(3)
    g = grad_ir(add, x, b)
    # dx is dout itself; only db (a reduction over i) needs a kernel
    assert g.count("linalg.generic") == 1
    dout = rand(2, 3)
    dx, db = add.grad(x, b, dout=dout)
    np.testing.assert_array_equal(dx, dout)
    np.testing.assert_allclose(db, dout.sum(0), rtol=1e-15)


# --- user-supplied derivative ------------------------------------------------------------------

def _sigmoid_kernel():
    @kernel
    def sig(x: In[("n",)]):
        return compute(x.shape, lambda i: 1.0 / (1.0 + exp(-x[i])))
    return sig


def test_fdiff_sigmoid_is_used():
    sig = _sigmoid_kernel()
    x = rand(6)
    auto = grad_ir(sig, x)
    assert "math.exp" in auto  # the automatic derivative goes through exp

    @sig.fdiff("x")
    def dsig(y, x, i):
        return y[i] * (1.0 - y[i])

    text = str(sig.grad_module(x))
    back = grad_ir(sig, x)
    bwd_kernel = back[:back.index("mskernel.yield")]
    assert "math.exp" not in bwd_kernel          # dy/dx = y * (1 - y), from the forward result
    assert "arith.subf" in bwd_kernel and bwd_kernel.count("arith.mulf") == 2
    assert "mskernel.fdiff = {in0 = @sig_fdiff_x}" in text
    # the backward kernel reads the forward kernel's result
    grad_fn = text[text.index("func.func @sig_grad"):]
    assert "mskernel.fused(%arg1, %0)" in grad_fn
    check_kernel_grads(sig, [x], ref=lambda x: 1 / (1 + np.exp(-x)))


def test_fdiff_for_one_input_rest_automatic():
    @kernel
    def k(x: In[("n",)], w: In[("n",)]):
        return compute(x.shape, lambda i: sigmoid(x[i]) * w[i])

    # a deliberately *wrong* user derivative makes its use observable in the numbers
    @k.fdiff("x")
    def dk(y, x, w, i):
        return 2.0 * w[i]
    x, w = rand(5), rand(5)
    dout = rand(5)
    dx, dw = k.grad(x, w, dout=dout)
    np.testing.assert_allclose(dx, dout * 2.0 * w, rtol=1e-14)
    np.testing.assert_allclose(dw, dout / (1 + np.exp(-x)), rtol=1e-14)


def test_fdiff_errors():
    from msmlir.kernel import KernelDefinitionError
    sig = _sigmoid_kernel()
    with pytest.raises(KernelDefinitionError, match="has no input 'z'"):
        sig.fdiff("z")

    @sig.fdiff("x")
    def bad(y, x, i):
        return x[0]
    with pytest.raises(KernelDefinitionError, match="which the output stage does not read"):
        sig.module(rand(4))


# --- the Python API -------------------------------------------------------------------------

def test_differentiate_kernel_api():
    """differentiate_kernel on IR: None douts, structural zeros as None, recompute mode."""
    from mlir.dialects import func
    from msmlir.compiler import compile_module, context
    from msmlir.passes import run_pipeline
    from msmlir.passes.kernel import differentiate_kernel

    @kernel
    def two(x: In[("n",)], t: In[("n",)]):
        return (compute(x.shape, lambda i: tanh(x[i]) * floor(t[i])),
                compute(x.shape, lambda i: x[i] * 3.0))

    ctx = context()
    with ctx, ir.Location.unknown():
        v = ir.RankedTensorType.get([5], ir.F64Type.get())
        m = ir.Module.create()
        with ir.InsertionPoint(m.body):
            f = func.FuncOp("g", ir.FunctionType.get([v, v, v], [v, v]))
            blk = f.add_entry_block()
            with ir.InsertionPoint(blk):
                x, t, d0 = blk.arguments
                y0, y1 = two.build(x, t)
                fused = y0.owner
                # only result 0 receives a gradient; t's gradient is structurally zero
                grads = differentiate_kernel(fused, [0, 1], [d0, None],
                                             use_forward_results=False)
                assert grads[1] is None and grads[0] is not None
                zeros = differentiate_kernel(fused, [1], [d0, None], materialize_zeros=True)
                func.ReturnOp([grads[0], zeros[0]])
        m.operation.verify()
        text = str(m)
        # recompute mode: the backward kernel does not take the forward results
        assert text.count("mskernel.fused") == 2
        run_pipeline(m, "builtin.module(mskernel-inline-kernels)")
        cm = compile_module(m)
    xv, tv, dv = rand(5), rand(5), rand(5)
    dx, dt = cm.call("g", xv, tv, dv)
    np.testing.assert_allclose(dx, dv * (1 - np.tanh(xv) ** 2) * np.floor(tv), rtol=1e-13)
    np.testing.assert_array_equal(dt, np.zeros(5))


def test_finite_difference_helper_is_sensitive():
    # a test that cannot fail is not a test: a wrong gradient is caught
    @kernel
    def sq(x: In[("n",)]):
        return compute(x.shape, lambda i: x[i] * x[i])
    x = rand(3)
    dout = np.ones(3)
    (fd,) = numeric_grad(sq, [x], cotangent=dout)
    np.testing.assert_allclose(fd, 2 * x, rtol=1e-7)
    with pytest.raises(AssertionError):
        np.testing.assert_allclose(fd, 3 * x, rtol=1e-7)
