"""Numerics of the mindir shape ops (reshape family, transpose, broadcast_to,
slicing, concat/split/stack, gather, tile, pad) and of assign/depend, compiled
through msmlir-cpu-pipeline and compared exactly with numpy.
"""
from __future__ import annotations

import numpy as np
import pytest

from mindir_cases import Case, check_cases, rng


def _x(shape, dtype=np.float32, seed=0):
    r = rng(seed)
    if np.issubdtype(dtype, np.integer):
        return r.integers(-100, 100, size=shape).astype(dtype)
    return r.standard_normal(shape).astype(dtype)


def test_reshape_family():
    x = _x((2, 3, 4))
    cases = [
        Case("mindir.reshape", [x], x.reshape(6, 4), {"shape": [-1, 4]}),
        Case("mindir.reshape", [x], x.reshape(3, 8), {"shape": [3, 8]}),       # collapse + expand
        Case("mindir.reshape", [x], x.reshape(4, 3, 2), {"shape": [4, 3, 2]}),
        Case("mindir.reshape", [x], x.reshape(24), {"shape": [24]}),
        Case("mindir.reshape", [x], x.reshape(1, 2, 1, 12, 1), {"shape": [1, 2, 1, 12, 1]}),
        Case("mindir.reshape", [_x((1, 1))], _x((1, 1)).reshape(()), {"shape": []}),
        Case("mindir.reshape", [np.array(3.5, np.float32)], np.full((1, 1), 3.5, np.float32),
             {"shape": [1, 1]}),
        Case("mindir.reshape", [_x((6, 5), np.int32)], _x((6, 5), np.int32).reshape(5, 2, 3),
             {"shape": [5, 2, 3]}),
        Case("mindir.expand_dims", [x], x[:, None], {"axis": 1}),
        Case("mindir.expand_dims", [x], x[..., None], {"axis": -1}),
        Case("mindir.expand_dims", [x], x[None], {"axis": 0}),
        Case("mindir.squeeze", [x.reshape(1, 2, 1, 3, 4)], x, {}),
        Case("mindir.squeeze", [x.reshape(1, 2, 1, 3, 4)], x.reshape(1, 2, 3, 4), {"axis": [2]}),
        Case("mindir.squeeze", [x.reshape(2, 3, 4, 1)], x, {"axis": [-1]}),
        Case("mindir.flatten", [x], x.reshape(2, 12)),
        Case("mindir.flatten", [_x((5,))], _x((5,)).reshape(5, 1)),
        Case("mindir.flatten", [_x((3, 1, 2, 2), np.float64)], _x((3, 1, 2, 2), np.float64).reshape(3, 4)),
    ]
    check_cases(cases)


def test_transpose_broadcast():
    x = _x((2, 3, 4))
    y = _x((3, 1), np.int32)
    cases = [
        Case("mindir.transpose", [x], x.transpose(2, 0, 1).copy(), {"perm": [2, 0, 1]}),
        Case("mindir.transpose", [x], x.transpose(1, 0, 2).copy(), {"perm": [1, 0, 2]}),
        Case("mindir.transpose", [_x((7, 13))], _x((7, 13)).T.copy(), {"perm": [1, 0]}),
        Case("mindir.broadcast_to", [y], np.broadcast_to(y, (2, 3, 4)).copy(),
             {"shape": [2, -1, 4]}),
        Case("mindir.broadcast_to", [_x((4,))], np.broadcast_to(_x((4,)), (3, 4)).copy(),
             {"shape": [3, 4]}),
        Case("mindir.broadcast_to", [np.array(2.0, np.float32)], np.full((2, 3), 2.0, np.float32),
             {"shape": [2, 3]}),
        Case("mindir.broadcast_to", [_x((1, 1))], np.broadcast_to(_x((1, 1)), (5, 1)).copy(),
             {"shape": [5, 1]}),
    ]
    check_cases(cases)


def _norm(dim, b, e, s):
    """begin/end as Python's slice(b, e, s).indices(dim) returns them."""
    return slice(b, e, s).indices(dim)


def _strided_case(x, slices):
    begin, end, strides = [], [], []
    for d, sl in zip(x.shape, slices):
        b, e, s = sl.indices(d)
        begin.append(b)
        end.append(e)
        strides.append(s)
    return Case("mindir.strided_slice", [x], x[tuple(slices)].copy(),
                {"begin": begin, "end": end, "strides": strides})


def test_slices():
    x = _x((5, 6, 7))
    cases = [
        Case("mindir.slice", [x], x[1:3, 2:, 0:7].copy(),
             {"begin": [1, 2, 0], "size": [2, -1, 7]}),
        Case("mindir.slice", [x], x[4:5, 0:1, 6:7].copy(), {"begin": [4, 0, 6], "size": [1, 1, 1]}),
        _strided_case(x, [slice(1, 5, 2), slice(None), slice(0, 7, 3)]),
        _strided_case(x, [slice(None, None, -1), slice(5, 0, -2), slice(None, None, -3)]),
        _strided_case(x, [slice(3, None, -1), slice(None, None, 4), slice(6, 2, -1)]),
        _strided_case(x, [slice(2, 3), slice(4, 5, -1), slice(1, 2)]),       # one element, s<0
        _strided_case(_x((9,), np.int64), [slice(None, None, -2)]),
        _strided_case(_x((9,), np.int64), [slice(7, 1, -3)]),
    ]
    check_cases(cases)


def test_concat_split_stack():
    a, b, c = _x((2, 3), seed=1), _x((2, 5), seed=2), _x((2, 1), seed=3)
    p, q = _x((4, 3), np.int32, 4), _x((1, 3), np.int32, 5)
    x = _x((2, 6, 4))
    u, v, w = _x((2, 3), seed=6), _x((2, 3), seed=7), _x((2, 3), seed=8)
    cases = [
        Case("mindir.concat", [a, b, c], np.concatenate([a, b, c], axis=1), {"axis": -1}),
        Case("mindir.concat", [p, q], np.concatenate([p, q], axis=0)),
        Case("mindir.concat", [a], a.copy(), {"axis": 1}),
        Case("mindir.split", [x], [s.copy() for s in np.split(x, 3, axis=1)],
             {"axis": 1, "output_num": 3}),
        Case("mindir.split", [x], [s.copy() for s in np.split(x, 2, axis=-1)],
             {"axis": -1, "output_num": 2}),
        Case("mindir.split", [x], [s.copy() for s in np.split(x, 2, axis=0)],
             {"output_num": 2}),
        Case("mindir.stack", [u, v, w], np.stack([u, v, w], axis=0)),
        Case("mindir.stack", [u, v, w], np.stack([u, v, w], axis=1), {"axis": 1}),
        Case("mindir.stack", [u, v], np.stack([u, v], axis=-1), {"axis": -1}),
        Case("mindir.stack", [np.array(1.0, np.float32), np.array(2.0, np.float32)],
             np.array([1.0, 2.0], np.float32)),
    ]
    check_cases(cases)


def test_gather():
    params = _x((10, 4))
    p3 = _x((3, 5, 2), np.int64, seed=9)
    i32 = np.array([[0, 9, 3], [2, 2, 7]], np.int32)
    i64 = np.array([3, 0, 1], np.int64)
    i8 = np.array([1, 3], np.int8)
    neg = np.array([-1, -10, 3], np.int32)              # negative: counted from the end
    cases = [
        Case("mindir.gather", [params, i32], params[i32]),
        Case("mindir.gather", [params, i64], np.take(params, i64, axis=1), {"axis": 1}),
        Case("mindir.gather", [p3, i8], np.take(p3, i8, axis=1), {"axis": 1}),
        Case("mindir.gather", [p3, i8[::-1] - 2], np.take(p3, i8[::-1] - 2, axis=-1), {"axis": -1}),
        Case("mindir.gather", [params, neg], params[neg]),
        Case("mindir.gather", [params, np.array(7, np.int32)], params[7].copy()),
    ]
    check_cases(cases)


def test_gather_out_of_range_raises_at_the_users_line():
    """MindSpore raises on the CPU; msmlir used to clamp silently."""
    import msmlir as ms
    from msmlir import ops

    def take(p, i):
        return ops.gather(p, i, 0)

    params = _x((10, 4))
    with pytest.raises(IndexError, match=r"test_shape.py:\d+:\d+: mindir.gather: index (12|-11|100) is "
                                         r"out of range for an axis of size 10 \(valid: -10 to 9\)"
                                         r" \(3 indices are out of range\)"):
        ms.jit(take)(params, np.array([12, -11, 3, 100], np.int32))
    with pytest.raises(IndexError, match="index -11 is out of range"):
        ops.gather(params, np.array([-11], np.int32), 0)        # PyNative as well
    np.testing.assert_array_equal(ms.jit(take)(params, np.array([9, -10], np.int32)),
                                  params[[9, -10]])


def test_tile_pad():
    x = _x((2, 3))
    xi = _x((2, 1, 3), np.int32)
    cases = [
        Case("mindir.tile", [x], np.tile(x, (2, 3)), {"multiples": [2, 3]}),
        Case("mindir.tile", [x], np.tile(x, (1, 2)), {"multiples": [1, 2]}),
        Case("mindir.tile", [x], np.tile(x, (2, 2, 1)), {"multiples": [2, 2, 1]}),
        Case("mindir.tile", [xi], np.tile(xi, (3, 4, 1)), {"multiples": [3, 4, 1]}),
        Case("mindir.tile", [x], x.copy(), {"multiples": [1, 1]}),
        Case("mindir.pad", [x], np.pad(x, ((1, 0), (2, 3))), {"paddings": [1, 0, 2, 3]}),
        Case("mindir.pad", [xi], np.pad(xi, ((0, 1), (1, 1), (0, 2)), constant_values=5),
             {"paddings": [0, 1, 1, 1, 0, 2], "constant_value": "#raw:5.0 : f64"}),
        Case("mindir.pad", [x], np.pad(x, ((2, 2), (0, 0)), constant_values=-1.5),
             {"paddings": [2, 2, 0, 0], "constant_value": "#raw:-1.5 : f64"}),
    ]
    check_cases(cases)


ASSIGN_MLIR = """
module {
  func.func @assign_ret(%w: tensor<4xf32>, %v: tensor<4xf32>) -> tensor<4xf32> {
    %n = mindir.add %v, %v : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %r = mindir.assign %w, %n : tensor<4xf32>
    return %r : tensor<4xf32>
  }
  func.func @assign_read(%w: tensor<4xf32>, %v: tensor<4xf32>) -> tensor<4xf32> {
    %n = mindir.add %w, %v : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %r = mindir.assign %w, %n : tensor<4xf32>
    %m = mindir.mul %r, %v : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    return %m : tensor<4xf32>
  }
  func.func @assign_depend(%w: tensor<4xf32>, %v: tensor<4xf32>) -> tensor<4xf32> {
    %n = mindir.mul %w, %v : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %r = mindir.assign %w, %n : tensor<4xf32>
    %d = mindir.depend %v after %r : tensor<4xf32> : tensor<4xf32>
    return %d : tensor<4xf32>
  }
}
"""


def _assign_module():
    from msmlir.compiler import compile_mlir
    return compile_mlir(ASSIGN_MLIR)


def test_assign():
    mod = _assign_module()
    v = np.arange(4, dtype=np.float32)
    w = np.ones(4, np.float32)
    r, = mod.call("assign_ret", w, v)
    np.testing.assert_array_equal(r, 2 * v)
    np.testing.assert_array_equal(w, 2 * v)            # written into the parameter
    w = np.full(4, 3.0, np.float32)
    m, = mod.call("assign_read", w, v)
    np.testing.assert_array_equal(m, (3.0 + v) * v)
    np.testing.assert_array_equal(w, 3.0 + v)


def test_assign_only_ordered_by_depend():
    mod = _assign_module()
    v = np.arange(4, dtype=np.float32)
    w = np.full(4, 3.0, np.float32)
    d, = mod.call("assign_depend", w, v)
    np.testing.assert_array_equal(d, v)
    np.testing.assert_array_equal(w, 3.0 * v)
