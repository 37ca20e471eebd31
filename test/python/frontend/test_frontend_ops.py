"""msmlir.ops inside jit: MindSpore argument conventions -> mindir ops and attributes,
and the dtype objects."""
from __future__ import annotations

import numpy as np
import pytest

import msmlir as ms
from msmlir import dtype, ops
from jit_testutil import filecheck

F = np.float32


def _lower(fn, *args):
    return ms.jit(fn).lower(*args)


def test_dtype_objects_and_mappings():
    assert ms.float32 is dtype.float32 and ms.bool_ is dtype.bool_
    assert repr(ms.float32) == "Float32" and str(ms.int64) == "int64"
    assert dtype.get(np.float16) is ms.float16 and dtype.get("int8") is ms.int8
    assert dtype.get(float) is ms.float32 and dtype.get(int) is ms.int64 and dtype.get(bool) is ms.bool_
    assert dtype.from_numpy(np.dtype("float64")) is ms.float64
    assert ms.float32 == np.float32 and ms.int32 != ms.int64
    assert ms.float32.to_numpy() == np.float32 and ms.bool_.is_bool and ms.bfloat16.is_float
    assert dtype.promote_types(ms.int32, ms.float16) is ms.float16
    assert dtype.promote_types(ms.float16, ms.bfloat16) is ms.float32
    assert dtype.promote_types(ms.bool_, ms.int8) is ms.int8
    # uint8 & co. are host-only dtypes (a Tensor holds them; compiled code refuses them)
    assert dtype.from_numpy(np.uint8) is ms.uint8 and not ms.uint8.compiled
    with pytest.raises(TypeError, match="not supported by the msmlir compiler"):
        ms.uint8.to_mlir()
    with pytest.raises(TypeError):
        dtype.from_numpy(np.dtype("U3"))
    from mlir import ir
    with ir.Context(), ir.Location.unknown():
        for d in dtype.all_dtypes:
            assert dtype.from_mlir(d.to_mlir()) is d
        assert str(ms.bfloat16.to_mlir()) == "bf16" and str(ms.bool_.to_mlir()) == "i1"


def test_elementwise_conventions():
    def f(x, i):
        return (ops.div(i, 2), ops.div(x, 2, rounding_mode="floor"), ops.exp(i), ops.pow(i, 2),
                ops.pow(x, 0.5), ops.clamp(x, 0, 1), ops.clamp(x, max=1.0), ops.where(x > 0, x, i),
                ops.gelu(x), ops.gelu(x, approximate="tanh"), ops.leaky_relu(x, 0.1))

    filecheck(_lower(f, np.ones((2,), F), np.ones((2,), np.int32)), """
        CHECK: mindir.cast %arg1 : tensor<2xi32> to tensor<2xf32>
        CHECK: mindir.div {{.*}} -> tensor<2xf32>
        CHECK: mindir.floordiv {{.*}} -> tensor<2xf32>
        CHECK: mindir.cast %arg1 : tensor<2xi32> to tensor<2xf32>
        CHECK-NEXT: mindir.exp
        CHECK: mindir.mul %arg1, %arg1 : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
        CHECK: mindir.pow {{.*}} -> tensor<2xf32>
        CHECK: mindir.clamp
        CHECK: %[[NEG_INF:.*]] = mindir.constant dense<0xFF800000>
        CHECK: mindir.clamp %arg0, %[[NEG_INF]],
        CHECK: mindir.greater
        CHECK: mindir.cast %arg1 : tensor<2xi32> to tensor<2xf32>
        CHECK: mindir.select
        CHECK: mindir.gelu %arg0 {approximate = #mindir.approximate<none>}
        CHECK: mindir.gelu %arg0 : tensor<2xf32>
        CHECK: mindir.leaky_relu %arg0 {alpha = 1.000000e-01 : f64}
    """)


def test_reductions_conventions():
    def f(x):
        return (ops.reduce_sum(x), ops.reduce_sum(x, (0, -1), True), ops.sum(x, 1), ops.mean(x, -1),
                ops.max(x, 1), ops.argmax(x), ops.reduce_mean(x.astype(ms.int32), 0),
                ops.logsumexp(x, 1))

    filecheck(_lower(f, np.ones((2, 3, 4), F)), """
        CHECK: mindir.reduce_sum %arg0 : (tensor<2x3x4xf32>) -> tensor<f32>
        CHECK: mindir.reduce_sum %arg0 {axes = array<i64: 0, 2>, keep_dims = true} : (tensor<2x3x4xf32>) -> tensor<1x3x1xf32>
        CHECK: mindir.reduce_sum %arg0 {axes = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
        CHECK: mindir.reduce_mean %arg0 {axes = array<i64: 2>} : (tensor<2x3x4xf32>) -> tensor<2x3xf32>
        CHECK: mindir.reduce_max %arg0 {axes = array<i64: 1>, msmlir.first_extremum}
        CHECK: mindir.argmax %arg0 {axis = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x4xi32>
        CHECK: mindir.reshape %arg0 {shape = array<i64: -1>}
        CHECK: mindir.argmax {{.*}} {axis = 0 : i64} : (tensor<24xf32>) -> tensor<i32>
        CHECK: mindir.cast {{.*}} : tensor<2x3x4xi32> to tensor<2x3x4xf32>
        CHECK: mindir.reduce_mean {{.*}} {axes = array<i64: 0>}
        CHECK: mindir.stop_gradient
        CHECK: mindir.exp
        CHECK: mindir.log
        CHECK: mindir.squeeze {{.*}} {axis = array<i64: 1>} : (tensor<2x1x4xf32>) -> tensor<2x4xf32>
    """)


def test_matmul_variants():
    def f(a, b, v, bat):
        return ops.matmul(a, b), ops.matmul(v, b), ops.matmul(bat, b), ops.dense(a, b.T, b[0] * 0)

    filecheck(_lower(f, np.ones((2, 3), F), np.ones((3, 4), F), np.ones((3,), F),
                     np.ones((5, 2, 3), F)), """
        CHECK: mindir.matmul %arg0, %arg1 : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
        CHECK: mindir.expand_dims %arg2 {axis = 0 : i64}
        CHECK: mindir.matmul {{.*}} -> tensor<1x4xf32>
        CHECK: mindir.squeeze {{.*}} {axis = array<i64: 0>} : (tensor<1x4xf32>) -> tensor<4xf32>
        CHECK: %[[B3:.*]] = mindir.reshape %arg1 {shape = array<i64: 1, 3, 4>}
        CHECK: mindir.batch_matmul %arg3, %[[B3]] : (tensor<5x2x3xf32>, tensor<1x3x4xf32>) -> tensor<5x2x4xf32>
        CHECK: mindir.matmul %arg0, {{.*}} {transpose_b = true}
    """)


def test_shape_ops_conventions():
    def f(x):
        a, b = ops.split(x, 2, axis=1)
        c = ops.split(x, (1, 3), axis=1)
        return (a, c[1], ops.concat((x, x), -1), ops.stack((x, x), 0), ops.expand_dims(x, -1),
                ops.squeeze(ops.expand_dims(x, 0)), ops.flatten(ops.expand_dims(x, 0)),
                ops.tile(x, (2, 1)), ops.pad(x, (1, 2)), ops.broadcast_to(x, (3, 2, 4)),
                ops.transpose(x, (1, 0)), ops.gather(x, np.array([1, 0]), 0), ops.slice(x, (0, 1), (2, -1)))

    filecheck(_lower(f, np.ones((2, 4), F)), """
        CHECK: mindir.split %arg0 {axis = 1 : i64, output_num = 2 : i64} : (tensor<2x4xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>)
        CHECK: mindir.strided_slice %arg0 {begin = array<i64: 0, 0>, end = array<i64: 2, 1>, {{.*}}} : (tensor<2x4xf32>) -> tensor<2x1xf32>
        CHECK: mindir.strided_slice %arg0 {begin = array<i64: 0, 1>, end = array<i64: 2, 4>, {{.*}}} : (tensor<2x4xf32>) -> tensor<2x3xf32>
        CHECK: mindir.concat %arg0, %arg0 {axis = 1 : i64} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x8xf32>
        CHECK: mindir.stack %arg0, %arg0 : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x2x4xf32>
        CHECK: mindir.expand_dims %arg0 {axis = 2 : i64} : (tensor<2x4xf32>) -> tensor<2x4x1xf32>
        CHECK: mindir.squeeze {{.*}} : (tensor<1x2x4xf32>) -> tensor<2x4xf32>
        CHECK: mindir.flatten {{.*}} : (tensor<1x2x4xf32>) -> tensor<1x8xf32>
        CHECK: mindir.tile %arg0 {multiples = array<i64: 2, 1>} : (tensor<2x4xf32>) -> tensor<4x4xf32>
        CHECK: mindir.pad %arg0 {paddings = array<i64: 0, 0, 1, 2>} : (tensor<2x4xf32>) -> tensor<2x7xf32>
        CHECK: mindir.broadcast_to %arg0 {shape = array<i64: 3, 2, 4>}
        CHECK: mindir.transpose %arg0 {perm = array<i64: 1, 0>}
        CHECK: mindir.constant dense<[1, 0]> : tensor<2xi32>
        CHECK: mindir.gather %arg0, {{.*}} : (tensor<2x4xf32>, tensor<2xi32>) -> tensor<2x4xf32>
        CHECK: mindir.slice %arg0 {begin = array<i64: 0, 1>, size = array<i64: 2, -1>} : (tensor<2x4xf32>) -> tensor<2x3xf32>
    """)


def test_creation_and_nn_ops():
    def f(x, labels, img, wt):
        z = ops.zeros((2, 3), ms.int32)
        o = ops.ones_like(x)
        fl = ops.fill(ms.float16, (2,), 1.5)
        ar = ops.arange(0, 6, 2)
        oh = ops.one_hot(labels, 4, 1.0, 0.0)
        ln = ops.layer_norm(x, (3,), eps=1e-6)
        loss = ops.cross_entropy(x, labels[:2] * 0)
        conv = ops.conv2d(img, wt, stride=2, pad_mode="pad", padding=1)
        pool = ops.max_pool2d(img, 2)
        drop = ops.dropout(x, p=0.5, training=False)
        return z, o, fl, ar, oh, ln, loss, conv, pool, drop

    filecheck(_lower(f, np.ones((2, 3), F), np.array([0, 3, 1], np.int32), np.ones((1, 2, 8, 8), F),
                     np.ones((4, 2, 3, 3), F)), """
        CHECK: mindir.fill 0 : i32 : tensor<2x3xi32>
        CHECK: mindir.ones_like %arg0
        CHECK: mindir.fill 1.500000e+00 : f16 : tensor<2xf16>
        CHECK: mindir.arange {delta = 2.000000e+00 : f64, limit = 6.000000e+00 : f64, start = 0.000000e+00 : f64} : tensor<3xi64>
        CHECK: mindir.one_hot %arg1, {{.*}} {depth = 4 : i64} : (tensor<3xi32>, tensor<f32>, tensor<f32>) -> tensor<3x4xf32>
        CHECK: mindir.layer_norm %arg0, {{.*}} {begin_norm_axis = 1 : i64, begin_params_axis = 1 : i64, epsilon = 9.9999999999999995E-7 : f64}
        CHECK: mindir.sparse_softmax_cross_entropy_with_logits %arg0
        CHECK: mindir.reduce_mean
        CHECK: mindir.conv2d %arg2, %arg3 {pad = array<i64: 1, 1, 1, 1>, pad_mode = #mindir.pad_mode<pad>, stride = array<i64: 2, 2>} : (tensor<1x2x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x4x4xf32>
        CHECK: mindir.max_pool2d %arg2 {kernel_size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32>
        CHECK: return {{.*}}, %arg0 :
    """)


def test_op_argument_errors_are_compile_errors():
    with pytest.raises(ms.CompileError, match="axis 2 is out of range for a tensor of rank 2"):
        _lower(lambda x: ops.reduce_sum(x, 2), np.ones((2, 3), F))
    with pytest.raises(ms.CompileError, match="transpose: permutation"):
        _lower(lambda x: ops.transpose(x, (0,)), np.ones((2, 3), F))
    with pytest.raises(ms.CompileError, match="split: sections \\[1, 1\\] do not add up"):
        _lower(lambda x: ops.split(x, [1, 1], 1), np.ones((2, 3), F))
    with pytest.raises(ms.CompileError, match="expected a tensor, got the string"):
        _lower(lambda x: ops.exp("x"), np.ones((2, 3), F))
