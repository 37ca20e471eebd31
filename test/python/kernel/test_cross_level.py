"""Cross-level AD: mindir-autodiff (graph level) differentiates a network that
contains a compute kernel by calling kernel-level AD through its fallback hook."""
import numpy as np
import pytest
from mlir import ir
from mlir.dialects import func

from msmlir.compiler import compile_module, context
from msmlir.kernel import In, compute, kernel, reduce_sum, tanh
from msmlir.passes import run_pipeline

autodiff = pytest.importorskip("msmlir.passes.autodiff")

RNG = np.random.default_rng(3)


@kernel
def scaled_tanh(x: In[("n", "m")], b: In[("m",)]):
    return compute(x.shape, lambda i, j: tanh(x[i, j] * b[j]))


@kernel
def rowdot(x: In[("n", "m")], w: In[("m",)]):
    return compute(("n",), lambda i: reduce_sum(lambda j: x[i, j] * w[j], j="m"))


def _network_module():
    """@f(x, b, w) = rowdot(scaled_tanh(exp(x), b) * 2, w) ... with mindir ops around the
    kernels; @main = value_and_grad of @f w.r.t. x, b and w."""
    ctx = context()
    with ctx, ir.Location.unknown():
        f64 = ir.F64Type.get()
        t = ir.RankedTensorType.get([3, 4], f64)
        tb = ir.RankedTensorType.get([4], f64)
        tr = ir.RankedTensorType.get([3], f64)
        m = ir.Module.create()
        with ir.InsertionPoint(m.body):
            f = func.FuncOp("f", ir.FunctionType.get([t, tb, tb], [tr]))
            blk = f.add_entry_block()
            with ir.InsertionPoint(blk):
                x, b, w = blk.arguments
                e = ir.Operation.create("mindir.exp", results=[t], operands=[x]).result
                y = scaled_tanh.build(e, b)
                y2 = ir.Operation.create("mindir.mul", results=[t], operands=[y, y]).result
                r = rowdot.build(y2, w)
                func.ReturnOp([r])
        text = "\n".join(str(o) for o in m.body.operations) + """
func.func @main(%x: tensor<3x4xf64>, %b: tensor<4xf64>, %w: tensor<4xf64>, %s: tensor<3xf64>)
    -> (tensor<3xf64>, tensor<3x4xf64>, tensor<4xf64>, tensor<4xf64>) {
  %v, %dx, %db, %dw = mindir.grad @f(%x, %b, %w) sens(%s : tensor<3xf64>)
      {grad_position = array<i64: 0, 1, 2>, return_value}
      : (tensor<3x4xf64>, tensor<4xf64>, tensor<4xf64>)
      -> (tensor<3xf64>, tensor<3x4xf64>, tensor<4xf64>, tensor<4xf64>)
  return %v, %dx, %db, %dw : tensor<3xf64>, tensor<3x4xf64>, tensor<4xf64>, tensor<4xf64>
}
"""
        return ir.Module.parse(text)


def _ref(x, b, w):
    y = np.tanh(np.exp(x) * b)
    return (y * y) @ w


def test_hook_is_registered():
    import msmlir.passes.kernel as pk
    from msmlir.passes.autodiff import registry
    assert pk.kernel_fallback in registry._FALLBACKS


def test_graph_ad_through_kernels():
    m = _network_module()
    with m.context:
        run_pipeline(m, "builtin.module(mindir-autodiff)")
        text = str(m)
        # the backward of each kernel is a kernel built by kernel-level AD
        assert text.count("mskernel.grad_wrt") == 2
        run_pipeline(m, "builtin.module(mskernel-inline-kernels)")
        assert "mskernel." not in str(m)
        cm = compile_module(m)
    x, b, w, s = RNG.standard_normal((3, 4)), RNG.standard_normal(4), RNG.standard_normal(4), \
        RNG.standard_normal(3)
    v, dx, db, dw = cm.call("main", x, b, w, s)
    np.testing.assert_allclose(v, _ref(x, b, w), rtol=1e-13)
    eps = 1e-6
    for arg, got in ((0, dx), (1, db), (2, dw)):
        args = [x.copy(), b.copy(), w.copy()]
        fd = np.zeros_like(args[arg])
        for idx in np.ndindex(fd.shape):
            p = [a.copy() for a in args]
            q = [a.copy() for a in args]
            p[arg][idx] += eps
            q[arg][idx] -= eps
            fd[idx] = np.sum((_ref(*p) - _ref(*q)) * s) / (2 * eps)
        np.testing.assert_allclose(got, fd, rtol=1e-6, atol=1e-8)


def test_kernel_the_fallback_does_not_claim():
    """A graph kernel of mindir ops is not a compute kernel: the fallback declines it."""
    from msmlir.passes.kernel import kernel_fallback
    ctx = context()
    with ctx:
        m = ir.Module.parse("""
func.func @g(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = mskernel.fused(%a) {kind = #mskernel.kind<elemwise>} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    %e = mindir.exp %x : tensor<4xf32>
    mskernel.yield %e : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}""")
        fused = m.body.operations[0].regions[0].blocks[0].operations[0]
        assert kernel_fallback(fused) is None
        k = scaled_tanh.module(np.zeros((2, 3)), np.zeros(3))
        kf = k.body.operations[0].regions[0].blocks[0].operations[0]
        assert kernel_fallback(kf) is not None
