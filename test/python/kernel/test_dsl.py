"""msmlir.kernel DSL: compute definitions -> mskernel.fused kernels; forward results vs numpy."""
import numpy as np
import pytest
from mlir import ir

import msmlir
from msmlir.kernel import (In, KernelDefinitionError, compute, equal, exp, kernel, log, maximum,
                           reduce_max, reduce_min, reduce_sum, relu, select, sigmoid, sqrt, tanh)

RNG = np.random.default_rng(42)


def rand(*shape, dtype=np.float64):
    return RNG.standard_normal(shape).astype(dtype)


@kernel
def bias_mul(x: In[("n", "m")], b: In[("m",)]):
    return compute(("n", "m"), lambda i, j: x[i, j] * b[j] + b[j])


@kernel
def matmul(a: In[("n", "k")], b: In[("k", "m")]):
    return compute(("n", "m"), lambda i, j: reduce_sum(lambda k: a[i, k] * b[k, j], k="k"))


def test_decorator_is_the_module():
    @msmlir.kernel
    def twice(x: In[("n",)]):
        return msmlir.kernel.compute(x.shape, lambda i: x[i] * 2.0)

    assert isinstance(twice, msmlir.kernel.Kernel)
    x = rand(5)
    np.testing.assert_array_equal(twice(x), 2.0 * x)

    @msmlir.kernel(name="plus_one")
    def p(x):
        return compute(x.shape, lambda i: x[i] + 1.0)
    assert p.name == "plus_one"
    np.testing.assert_array_equal(p(x), x + 1.0)


def test_ir_is_a_compute_kernel_of_linalg_generic():
    m = bias_mul.module(rand(2, 3), rand(3))
    text = str(m)
    assert 'mskernel.fused' in text and 'kind = #mskernel.kind<compute>' in text
    assert "affine_map<(d0, d1) -> (d1)>" in text            # the broadcast read of b
    assert 'iterator_types = ["parallel", "parallel"]' in text
    assert "arith.mulf" in text and "arith.addf" in text
    m.operation.verify()


def test_elementwise_and_broadcast_forward():
    x, b = rand(4, 5), rand(5)
    np.testing.assert_allclose(bias_mul(x, b), x * b + b, rtol=1e-15)

    @kernel
    def act(x: In[("n",)], y: In[("n",)]):
        return compute(x.shape, lambda i: tanh(x[i]) * sigmoid(y[i]) + relu(x[i] - y[i])
                       + sqrt(x[i] * x[i] + 1.0) - abs(y[i]) ** 2.0 / (1.0 + exp(-x[i])))
    x, y = rand(7), rand(7)
    ref = np.tanh(x) / (1 + np.exp(-y)) + np.maximum(x - y, 0) + np.sqrt(x * x + 1) \
        - np.abs(y) ** 2 / (1 + np.exp(-x))
    np.testing.assert_allclose(act(x, y), ref, rtol=1e-13)


def test_select_and_index_values():
    @kernel
    def tri(x: In[("n", "n")]):
        # lower triangle of x, scaled by the column index
        return compute(x.shape, lambda i, j: select(j <= i, x[i, j] * j, 0.0))
    x = rand(4, 4)
    ref = np.tril(x) * np.arange(4)[None, :]
    np.testing.assert_allclose(tri(x), ref, rtol=1e-15)

    @kernel
    def diag(x: In[("n", "n")]):
        return compute(x.shape, lambda i, j: select(equal(i, j), x[i, j], 0.0))
    np.testing.assert_array_equal(diag(x), np.diag(np.diag(x)))


def test_reductions_forward():
    a, b = rand(3, 5), rand(5, 4)
    np.testing.assert_allclose(matmul(a, b), a @ b, rtol=1e-13)

    @kernel
    def stats(x: In[("n", "m")]):
        return (compute(("n",), lambda i: reduce_max(lambda j: x[i, j], j="m")),
                compute(("n",), lambda i: reduce_min(lambda j: x[i, j], j="m")),
                compute(("m",), lambda j: reduce_sum(lambda i: x[i, j], x.shape[0])))
    x = rand(3, 6)
    mx, mn, s = stats(x)
    np.testing.assert_array_equal(mx, x.max(1))
    np.testing.assert_array_equal(mn, x.min(1))
    np.testing.assert_allclose(s, x.sum(0), rtol=1e-14)


def test_non_injective_reads_forward():
    @kernel
    def upsample(x: In[("n",)]):
        return compute((2 * x.shape[0],), lambda i: x[i // 2])

    @kernel
    def hankel(x: In[("p",)]):
        return compute((3, x.shape[0] - 2), lambda i, j: x[i + j])

    @kernel
    def conv1d(x: In[("p",)], w: In[("q",)]):
        return compute((x.shape[0] - w.shape[0] + 1,),
                       lambda i: reduce_sum(lambda k: x[i + k] * w[k], k="q"))

    @kernel
    def strided(x: In[("p",)]):
        # a reduction dim that only appears inside a compound index: k of x[2*i + k]
        return compute((3,), lambda i: reduce_sum(lambda k: x[2 * i + k], k=2))

    x = rand(6)
    np.testing.assert_array_equal(upsample(x), np.repeat(x, 2))
    np.testing.assert_array_equal(hankel(x), np.array([x[i:i + 4] for i in range(3)]))
    w = rand(3)
    np.testing.assert_allclose(conv1d(x, w), np.correlate(x, w, "valid"), rtol=1e-13)
    np.testing.assert_allclose(strided(x), x.reshape(3, 2).sum(1), rtol=1e-15)
    text = str(strided.module(x))
    assert "tensor.empty() : tensor<2xi8>" in text  # the loop-range operand of k


def test_multi_stage_and_nested_reduction():
    @kernel
    def softmax(x: In[("n", "m")]):
        mx = compute(("n",), lambda i: reduce_max(lambda j: x[i, j], j="m"))
        e = compute(x.shape, lambda i, j: exp(x[i, j] - mx[i]))
        s = compute(("n",), lambda i: reduce_sum(lambda j: e[i, j], j="m"))
        return compute(x.shape, lambda i, j: e[i, j] / s[i])

    @kernel
    def logsumexp(x: In[("n", "m")]):
        return compute(("n",), lambda i: log(reduce_sum(lambda j: exp(x[i, j]), j="m")))

    x = rand(3, 5)
    e = np.exp(x - x.max(1, keepdims=True))
    np.testing.assert_allclose(softmax(x), e / e.sum(1, keepdims=True), rtol=1e-14)
    np.testing.assert_allclose(logsumexp(x), np.log(np.exp(x).sum(1)), rtol=1e-14)
    # the nested reduction became its own stage: two generics in the kernel
    assert str(logsumexp.module(x)).count("linalg.generic") == 2


def test_float32_kernel():
    x, b = rand(8, 3, dtype=np.float32), rand(3, dtype=np.float32)
    y = bias_mul(x, b)
    assert y.dtype == np.float32
    np.testing.assert_allclose(y, x * b + b, rtol=1e-6)
    a, c = rand(4, 6, dtype=np.float32), rand(6, 2, dtype=np.float32)
    np.testing.assert_allclose(matmul(a, c), a @ c, rtol=1e-5, atol=1e-5)


def test_kernel_inside_a_network_of_mindir_ops():
    from mlir.dialects import func
    from msmlir.compiler import compile_module, context
    from msmlir.passes import run_pipeline

    ctx = context()
    with ctx, ir.Location.unknown():
        t = ir.RankedTensorType.get([3, 4], ir.F64Type.get())
        tb = ir.RankedTensorType.get([4], ir.F64Type.get())
        m = ir.Module.create()
        with ir.InsertionPoint(m.body):
            f = func.FuncOp("net", ir.FunctionType.get([t, tb], [t]))
            blk = f.add_entry_block()
            with ir.InsertionPoint(blk):
                x, b = blk.arguments
                e = ir.Operation.create("mindir.exp", results=[t], operands=[x]).result
                y = bias_mul.build(e, b)
                r = ir.Operation.create("mindir.mul", results=[t], operands=[y, y]).result
                func.ReturnOp([r])
        m.operation.verify()
        assert "mindir.exp" in str(m) and "mskernel.fused" in str(m)
        run_pipeline(m, "builtin.module(mskernel-inline-kernels)")
        assert "mskernel.fused" not in str(m)
        cm = compile_module(m)
    x, b = rand(3, 4), rand(4)
    (out,) = cm.call("net", x, b)
    ref = np.exp(x) * b + b
    np.testing.assert_allclose(out, ref * ref, rtol=1e-14)


def test_kernel_location_is_the_python_source():
    text = bias_mul.module(rand(2, 3), rand(3)).operation.get_asm(enable_debug_info=True)
    assert "test_dsl.py" in text


@pytest.mark.parametrize("make, args, msg", [
    (lambda: kernel(lambda x: compute((4,), lambda i: x[i + 1])), [np.zeros(4)],
     "ranges over [1, 4] but the dimension has size 4"),
    (lambda: kernel(lambda x: compute((4,), lambda i: x[i, i])), [np.zeros(4)],
     "has rank 1 but is indexed with 2 indices"),
    (lambda: kernel(lambda x: compute((2,), lambda i: x[i * i])), [np.zeros(4)],
     "indices must be affine in loop variables"),
    (lambda: kernel(lambda x: compute((4,), lambda i: x[i] if x[i] > 0 else 0.0)), [np.zeros(4)],
     "use select"),
    (lambda: kernel(lambda x: compute(("m",), lambda i: x[i])), [np.zeros(4)],
     "unknown shape symbol 'm'"),
    (lambda: kernel(lambda x: compute((4,), lambda i: reduce_sum(lambda k: x[k], q=4))),
     [np.zeros(4)], "no loop variable named ['q']"),
    (lambda: kernel(lambda x: x), [np.zeros(4)], "must return compute(...) tensors"),
    (lambda: kernel(lambda x: compute((4,), lambda i: x[i])), [np.zeros(4, np.int32)],
     "must be floating point"),
])
def test_definition_errors(make, args, msg):
    k = make()
    with pytest.raises(KernelDefinitionError) as e:
        k.module(*args)
    assert msg in str(e.value)


def test_annotation_checks():
    with pytest.raises(KernelDefinitionError, match="shape symbol 'm' is 3 and 4"):
        bias_mul.module(rand(2, 3), rand(4))
    with pytest.raises(KernelDefinitionError, match="declared with rank 1"):
        bias_mul.module(rand(2, 3), rand(3, 1))

    @kernel
    def f32_only(x: In[("n",), "f32"]):
        return compute(x.shape, lambda i: x[i])
    with pytest.raises(KernelDefinitionError, match="declared f32 but is f64"):
        f32_only.module(rand(3))

    @kernel
    def mixed(x, y):
        return compute(x.shape, lambda i: maximum(x[i], y[i]))
    with pytest.raises(KernelDefinitionError, match="share one dtype"):
        mixed.module(rand(3), rand(3, dtype=np.float32))


def test_string_annotations():
    # as written under `from __future__ import annotations`
    def f(x: "In[('n',)]", b: "In[('n',)]"):
        return compute(("n",), lambda i: x[i] * b[i])
    k = kernel(f)
    x, b = rand(3), rand(3)
    np.testing.assert_allclose(k(x, b), x * b, rtol=1e-15)
    with pytest.raises(KernelDefinitionError, match="shape symbol 'n' is 3 and 4"):
        k.module(x, rand(4))
