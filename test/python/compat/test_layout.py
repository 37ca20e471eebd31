"""MindSpore's module layout: the imports real MindSpore scripts and MindSpore's
own tests use resolve, with `import mindspore` mapped to `msmlir`."""
import importlib

import numpy as np
import pytest

import msmlir as ms


@pytest.mark.parametrize("stmt", [
    "from msmlir import context",
    "from msmlir.context import ParallelMode, set_auto_parallel_context",
    "import msmlir.context as context",
    "from msmlir.ops import operations as P",
    "import msmlir.ops.operations as P",
    "from msmlir.ops import functional as F",
    "from msmlir.ops import composite as C",
    "from msmlir.ops.composite import GradOperation, HyperMap, Map, MultitypeFuncGraph, Partial",
    "from msmlir.ops import function",
    "from msmlir.ops.function import math_func, array_func, nn_func, random_func",
    "from msmlir.ops.primitive import Primitive, PrimitiveWithInfer, constexpr, prim_attr_register",
    "from msmlir.ops import Primitive, PrimitiveWithInfer, PrimitiveWithCheck, constexpr",
    "from msmlir.common.api import jit, _pynative_executor, ms_function, jit_class",
    "import msmlir.common.dtype as mstype",
    "from msmlir.common import dtype as mstype",
    "from msmlir.common.dtype import dtype_to_nptype, pytype_to_dtype",
    "from msmlir import mutable, log, dtype_to_nptype, pytype_to_dtype",
    "from msmlir.train.callback import Callback, LossMonitor, TimeMonitor, RunContext",
    "from msmlir import log as logger",
])
def test_import_resolves(stmt):
    exec(stmt, {})


def test_context_module():
    from msmlir import context
    assert context.set_context is ms.set_context and context.PYNATIVE_MODE == 1
    context.set_auto_parallel_context(parallel_mode=context.ParallelMode.DATA_PARALLEL,
                                      gradients_mean=True, device_num=1)
    try:
        assert context.get_auto_parallel_context("parallel_mode") == "data_parallel"
        assert context.get_auto_parallel_context("gradients_mean") is True
        with pytest.raises(ValueError, match="parallel_mode"):
            context.set_auto_parallel_context(parallel_mode="bogus")
        with pytest.raises(ValueError, match="not recognized"):
            context.set_auto_parallel_context(bogus_key=1)
        with pytest.raises(ValueError, match="not recognized"):
            context.get_auto_parallel_context("bogus_key")
    finally:
        context.reset_auto_parallel_context()
    assert context.get_auto_parallel_context("parallel_mode") == "stand_alone"
    assert ms.ParallelMode.AUTO_PARALLEL == "auto_parallel"


def test_ops_submodules_are_attributes_of_ops():
    from msmlir import ops
    assert ops.operations.Cast is ops.Cast
    assert ops.composite.GradOperation is ops.GradOperation
    assert ops.functional.tensor_add is ops.add and ops.function.math_func.add is ops.add
    assert ops.functional.shape(np.zeros((2, 3))) == (2, 3)
    assert ops.functional.make_range(1, 7, 2) == (1, 3, 5)
    with pytest.raises(AttributeError):
        ops.NoSuchPrimitive


def test_pynative_executor_sync_and_mutable():
    from msmlir.common.api import _pynative_executor
    x = ms.Tensor(np.ones(3, np.float32)) + 1
    assert _pynative_executor.sync() is None
    np.testing.assert_array_equal(x.asnumpy(), [2, 2, 2])
    t = (ms.Tensor([1.0]), ms.Tensor([2.0]))
    assert ms.mutable(t) is t
    with pytest.raises(TypeError, match="mutable"):
        ms.mutable("text")

    @ms.common.api.jit
    def f(a):
        return a * 2
    np.testing.assert_array_equal(f(ms.mutable(ms.Tensor([1.0, 2.0]))).asnumpy(), [2, 4])


def test_log_module(caplog):
    import logging
    assert ms.log.get_level() in ("0", "1", "2", "3", "4")
    with caplog.at_level(logging.WARNING, logger="msmlir"):
        ms.log.warning("careful %d", 3)
    assert "careful 3" in caplog.text


def test_composite_hypermap_map_multitype():
    from msmlir.ops import composite as C
    from msmlir.ops import functional as F

    add = C.MultitypeFuncGraph("add")

    @add.register("Tensor", "Tensor")
    def _add_tt(x, y):
        return x + y

    @add.register("Number", "Tensor")
    def _add_nt(s, x):
        return x * s

    a = (ms.Tensor(np.float32([1, 2])), ms.Tensor(np.float32([3])))
    b = (ms.Tensor(np.float32([10, 20])), ms.Tensor(np.float32([30])))
    hm = C.HyperMap()
    out = hm(add, a, b)
    np.testing.assert_array_equal(out[0].asnumpy(), [11, 22])
    out = C.HyperMap(F.partial(add, 2.0))(a)
    np.testing.assert_array_equal(out[1].asnumpy(), [6])
    nested = C.HyperMap(add)(((a[0],), a[1]), ((b[0],), b[1]))
    np.testing.assert_array_equal(nested[0][0].asnumpy(), [11, 22])
    assert C.Map(add)(a, b)[1].asnumpy().tolist() == [33]
    with pytest.raises(TypeError, match="no registered function"):
        add("x", a[0])

    @ms.jit
    def step(xs, ys):
        return C.HyperMap()(add, xs, ys), C.Map(F.partial(add, 3.0))(xs)
    s, m = step(a, b)
    np.testing.assert_array_equal(s[0].asnumpy(), [11, 22])
    np.testing.assert_array_equal(m[0].asnumpy(), [3, 6])


def test_grad_operation_from_composite():
    from msmlir.ops import composite as C
    g = C.GradOperation()(lambda x: (x * x).sum())
    np.testing.assert_allclose(g(ms.Tensor(np.float32([1, 2]))).asnumpy(), [2, 4])


def test_layers_of_new_modules():
    # the new ops submodules are layer 5 (test_layering.py's LAYERS); msmlir.ops finds them
    # through providers.py, it does not import them
    import sys
    src = importlib.util.find_spec("msmlir.ops").origin
    text = open(src).read()
    assert "import operations" not in text and "from .operations" not in text
    assert "msmlir.ops.operations" in sys.modules or ms.ops.Cast


def test_top_level_helpers(capsys):
    ms.set_algo_parameters(fully_use_devices=False)
    try:
        assert ms.get_algo_parameters("fully_use_devices") is False
        with pytest.raises(ValueError):
            ms.set_algo_parameters(bogus=1)
    finally:
        ms.reset_algo_parameters()
    assert ms.get_algo_parameters("fully_use_devices") is True
    cfg = ms.JitConfig(jit_level="O1")
    assert cfg.jit_config_dict["jit_level"] == "O1"
    ms.run_check()
    assert "installed successfully" in capsys.readouterr().out
    assert ms.Model is ms.train.Model and ms.LossMonitor is ms.train.LossMonitor
    assert ms.byte is ms.int8 and ms.intp is ms.int64 and ms.ubyte is ms.uint8
