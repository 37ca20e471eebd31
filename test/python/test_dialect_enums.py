"""The dialects' enum attributes (ODS EnumAttr) seen from Python: the helpers of
msmlir.dialects.enums, the generated op builders, and the ValueError the
string-taking API gives for a bad case name."""
import numpy as np
import pytest
from mlir import ir

import msmlir as ms
from msmlir import Tensor, nn, ops
from msmlir.compiler import context
from msmlir.dialects import mindir, mskernel
from msmlir.dialects.enums import (DataFormat, FusionKind, GeluApproximate, KernelTarget, PadMode,
                                   enum_case, enum_name, is_enum_attr)


def test_cases_in_order():
    assert [str(m) for m in PadMode] == ["valid", "same", "pad"]
    assert [str(m) for m in GeluApproximate] == ["tanh", "none"]
    assert [str(m) for m in DataFormat] == ["NCHW", "NHWC"]
    assert [str(m) for m in KernelTarget] == ["cpu", "gpu", "ascend"]
    assert [str(m) for m in FusionKind] == ["compute", "elemwise", "broadcast", "reduce", "matmul",
                                             "conv", "opaque"]


def test_enum_case_and_name():
    assert enum_case(PadMode, "same") is PadMode.same
    assert enum_case(FusionKind, FusionKind.conv) is FusionKind.conv
    with pytest.raises(ValueError, match="pad_mode must be 'valid', 'same' or 'pad', got 'SAME'"):
        enum_case(PadMode, "SAME", "pad_mode")
    with context():
        for text, name in [("#mindir.pad_mode<pad>", "pad"), ("#mindir.approximate<none>", "none"),
                           ("#mindir.data_format<NHWC>", "NHWC"), ("#mskernel.kind<reduce>", "reduce"),
                           ("#mskernel.target<ascend>", "ascend")]:
            a = ir.Attribute.parse(text)
            assert is_enum_attr(a) and enum_name(a) == name
        s = ir.StringAttr.get("same")
        assert not is_enum_attr(s)
        with pytest.raises(TypeError):
            enum_name(s)
    assert enum_name(None, "valid") == "valid"


def test_generated_builders_take_members():
    with context(), ir.Location.unknown():
        m = ir.Module.create()
        t = ir.RankedTensorType.get([4], ir.F32Type.get())
        with ir.InsertionPoint(m.body):
            x = mindir.ConstantOp(ir.DenseElementsAttr.get_splat(t, ir.FloatAttr.get_f32(1.0))).result
            g = mindir.GeluOp(x, approximate=GeluApproximate.none)
            k = mskernel.FusedOp([t], [x], target=KernelTarget.gpu, kind=FusionKind.elemwise)
            blk = k.regions[0].blocks.append(t)
            with ir.InsertionPoint(blk):
                mskernel.YieldOp([blk.arguments[0]])
        assert m.operation.verify()
        assert enum_name(g.approximate) == "none"
        assert "#mskernel.kind<elemwise>" in str(k) and "#mskernel.target<gpu>" in str(k)


def test_api_bad_values_raise_value_error():
    x = Tensor(np.ones((1, 1, 4, 4), np.float32))
    w = Tensor(np.ones((1, 1, 3, 3), np.float32))
    # ops functions raise the ValueError while they are traced, so (as for any
    # Python error there) it reaches the caller as a CompileError naming it
    with pytest.raises(ms.CompileError,
                       match="ValueError: pad_mode must be 'valid', 'same' or 'pad', got 'SAME'"):
        ops.conv2d(x, w, pad_mode="SAME")
    with pytest.raises(ms.CompileError, match="ValueError: pad_mode must be"):
        ops.max_pool2d(x, 2, pad_mode="full")
    with pytest.raises(ms.CompileError,
                       match="ValueError: gelu: approximate must be 'tanh' or 'none', got 'erf'"):
        ops.gelu(x, approximate="erf")
    with pytest.raises(ms.CompileError,
                       match="ValueError: bias_add: data_format must be 'NCHW' or 'NHWC', got 'NCW'"):
        ops.bias_add(x, Tensor(np.ones((1,), np.float32)), data_format="NCW")
    with pytest.raises(ValueError, match="pad_mode"):
        nn.Conv2d(1, 1, 3, pad_mode="SAME")
    with pytest.raises(ValueError, match="target must be 'cpu', 'gpu' or 'ascend', got 'tpu'"):
        ms.kernel(lambda a: a, target="tpu")


def test_api_good_values():
    x = Tensor(np.ones((1, 1, 4, 4), np.float32))
    w = Tensor(np.ones((1, 1, 3, 3), np.float32))
    assert ops.conv2d(x, w, pad_mode="same").shape == (1, 1, 4, 4)
    assert ops.max_pool2d(x, 2, pad_mode="valid").shape == (1, 1, 2, 2)
    np.testing.assert_allclose(ops.gelu(Tensor(np.zeros(3, np.float32)), approximate="tanh").asnumpy(), 0)
