"""MindSpore's Primitive classes (msmlir.ops.operations, one table): every class
of the table against numpy with MindSpore's documented semantics, in PyNative
mode (one cached kernel per primitive) and inside `jit` (IR built in place),
plus the Primitive API (attrs, add_prim_attr, shard, repr, user subclasses,
constexpr) and primitives inside a Cell's `construct` in both modes."""
import math

import numpy as np
import pytest

import msmlir as ms
from msmlir import nn, ops
from msmlir.ops import operations as P
from msmlir.ops.operations import CLASSES

RS = np.random.RandomState(12)


def f32(*shape):
    return RS.randn(*shape).astype(np.float32)


def pos(*shape):
    return (RS.rand(*shape) + 0.5).astype(np.float32)


def T(a):
    return ms.Tensor(a)


def i32(a):
    return ms.Tensor(np.asarray(a, np.int32))


def _softmax(x, axis=-1):
    e = np.exp(x - x.max(axis, keepdims=True))
    return e / e.sum(axis, keepdims=True)


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


_erf = np.vectorize(math.erf, otypes=[np.float64])


def _conv2d(x, w, stride, pad):
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh = (h + 2 * pad - kh) // stride + 1
    ow = (wd + 2 * pad - kw) // stride + 1
    out = np.zeros((n, o, oh, ow), np.float64)
    for i in range(oh):
        for j in range(ow):
            patch = xp[:, :, i * stride:i * stride + kh, j * stride:j * stride + kw]
            out[:, :, i, j] = np.tensordot(patch, w, ((1, 2, 3), (1, 2, 3)))
    return out


def _pool(x, k, s, fn):
    n, c, h, w = x.shape
    oh, ow = (h - k) // s + 1, (w - k) // s + 1
    out = np.zeros((n, c, oh, ow), x.dtype)
    for i in range(oh):
        for j in range(ow):
            out[:, :, i, j] = fn(x[:, :, i * s:i * s + k, j * s:j * s + k], axis=(2, 3))
    return out


def _nearest(x, size, align=False):
    h, w = x.shape[2:]
    oh, ow = size

    def src(n_in, n_out):
        i = np.arange(n_out)
        s = np.round(i * (n_in - 1) / (n_out - 1)) if align else np.floor(i * n_in / n_out)
        return np.minimum(s, n_in - 1).astype(int)
    return x[:, :, src(h, oh)][:, :, :, src(w, ow)]


def _bilinear(x, size, half_pixel=False):
    out = x.astype(np.float64)
    for axis, n_out in ((2, size[0]), (3, size[1])):
        n_in = out.shape[axis]
        i = np.arange(n_out, dtype=np.float64)
        s = np.maximum((i + 0.5) * n_in / n_out - 0.5, 0) if half_pixel else i * n_in / n_out
        lo = np.minimum(np.floor(s), n_in - 1).astype(int)
        hi = np.minimum(lo + 1, n_in - 1)
        f = s - np.floor(s)
        shp = [1, 1, 1, 1]
        shp[axis] = n_out
        a, b = np.take(out, lo, axis), np.take(out, hi, axis)
        out = a + (b - a) * f.reshape(shp)
    return out


def _iou(a, g):
    out = np.zeros((len(g), len(a)))
    for m in range(len(g)):
        for n in range(len(a)):
            iw = max(min(a[n, 2], g[m, 2]) - max(a[n, 0], g[m, 0]) + 1, 0)
            ih = max(min(a[n, 3], g[m, 3]) - max(a[n, 1], g[m, 1]) + 1, 0)
            inter = iw * ih
            aa = (a[n, 2] - a[n, 0] + 1) * (a[n, 3] - a[n, 1] + 1)
            ag = (g[m, 2] - g[m, 0] + 1) * (g[m, 3] - g[m, 1] + 1)
            out[m, n] = inter / (aa + ag - inter)
    return out


def _cumsum(x, axis, exclusive=False, reverse=False):
    if reverse:
        x = np.flip(x, axis)
    c = np.cumsum(x, axis)
    if exclusive:
        c = c - x
    return np.flip(c, axis) if reverse else c


def _conv_t(dout, w, pad):
    """The gradient of a stride-1 conv2d w.r.t. its input (transposed convolution)."""
    n, o, oh, ow = dout.shape
    _, c, kh, kw = w.shape
    full = np.zeros((n, c, oh + kh - 1, ow + kw - 1))
    for i in range(oh):
        for j in range(ow):
            full[:, :, i:i + kh, j:j + kw] += np.einsum("no,ocij->ncij", dout[:, :, i, j], w)
    return full[:, :, pad:full.shape[2] - pad, pad:full.shape[3] - pad]


X23, X34, X345 = f32(2, 3), f32(3, 4), f32(3, 4, 5)
DOUT = f32(1, 2, 4, 4)
W_T = f32(2, 3, 3, 3)
P23, P34 = pos(2, 3), pos(3, 4)
B23 = RS.rand(2, 3) > 0.5
B23b = RS.rand(2, 3) > 0.5
IMG = f32(1, 2, 4, 4)
IMG_S = f32(1, 2, 2, 3)
W33 = f32(2, 2, 3, 3)
IDX = np.array([2, 0, 1, 2], np.int32)
BOX_A = np.array([[0, 0, 4, 4], [2, 2, 6, 7], [1, 0, 3, 5]], np.float32)
BOX_G = np.array([[1, 1, 5, 5], [0, 0, 2, 2]], np.float32)
LAB = np.eye(3, dtype=np.float32)[[0, 2]]
PROB = (RS.rand(2, 3) * 0.8 + 0.1).astype(np.float32)
YB = (RS.rand(2, 3) > 0.5).astype(np.float32)
GATHER_D_IDX = np.array([[0, 3], [1, 1], [3, -1]], np.int32)
SORT_X = np.float32([[3, 1, 2, 5], [0, -1, 4, 4]])

# (name, constructor args, constructor kwargs, inputs, numpy reference of the outputs)
CASES = [
    ("Cast", (), {}, lambda: (T(X23), ms.float16), lambda x, t: x.astype(np.float16)),
    ("Concat", (1,), {}, lambda: ((T(X23), T(P23)),), lambda xs: np.concatenate(xs, 1)),
    ("Reshape", (), {}, lambda: (T(X23), (3, 2)), lambda x, s: x.reshape(s)),
    ("ReduceSum", (), {"keep_dims": True}, lambda: (T(X23), 1),
     lambda x, a: x.sum(1, keepdims=True)),
    ("Transpose", (), {}, lambda: (T(X345), (2, 0, 1)), lambda x, p: x.transpose(p)),
    ("ReduceMean", (), {}, lambda: (T(X345), (0, 2)), lambda x, a: x.mean(a)),
    ("ExpandDims", (), {}, lambda: (T(X23), 1), lambda x, a: np.expand_dims(x, a)),
    ("Shape", (), {}, lambda: (T(X345),), lambda x: (3, 4, 5)),
    ("TensorShape", (), {}, lambda: (T(X345),), lambda x: np.array([3, 4, 5])),
    ("DynamicShape", (), {}, lambda: (T(X345),), lambda x: np.array([3, 4, 5])),
    ("Rank", (), {}, lambda: (T(X345),), lambda x: 3),
    ("Size", (), {}, lambda: (T(X345),), lambda x: 60),
    ("DType", (), {}, lambda: (T(X23),), lambda x: ms.float32),
    ("Tile", (), {}, lambda: (T(X23), (2, 1, 2)), lambda x, m: np.tile(x, m)),
    ("Squeeze", (), {}, lambda: (T(f32(1, 3, 1)),), lambda x: x.reshape(3)),
    ("Unsqueeze", (), {"dim": 0}, lambda: (T(X23),), lambda x: x[None]),
    ("Flatten", (), {}, lambda: (T(X345),), lambda x: x.reshape(3, 20)),
    ("Split", (1, 3), {}, lambda: (T(X23),), lambda x: tuple(np.split(x, 3, 1))),
    ("Stack", (1,), {}, lambda: ((T(X23), T(P23)),), lambda xs: np.stack(xs, 1)),
    ("Pack", (), {}, lambda: ((T(X23), T(P23)),), lambda xs: np.stack(xs, 0)),
    ("Unstack", (), {"axis": 1}, lambda: (T(X23),), lambda x: tuple(x[:, i] for i in range(3))),
    ("Unpack", (), {}, lambda: (T(X23),), lambda x: (x[0], x[1])),
    ("Slice", (), {}, lambda: (T(X345), (1, 0, 2), (2, -1, 2)), lambda x, b, s: x[1:3, :, 2:4]),
    ("StridedSlice", (), {}, lambda: (T(X345), (1, 0, 0), (3, 4, 5), (1, 2, -1)),
     lambda x, b, e, s: x[1:3, 0:4:2, 0:5:-1]),
    ("StridedSlice", (), {"begin_mask": 2, "end_mask": 4, "shrink_axis_mask": 1},
     lambda: (T(X345), (1, 2, 1), (2, 3, 3), (1, 1, 1)), lambda x, b, e, s: x[1, :3, 1:]),
    ("Gather", (), {}, lambda: (T(X34), i32(IDX), 0), lambda x, i, a: x[IDX]),
    ("GatherV2", (), {}, lambda: (T(X34), i32([3, 0]), 1), lambda x, i, a: x[:, [3, 0]]),
    ("GatherD", (), {}, lambda: (T(X34), 1, i32(GATHER_D_IDX)),
     lambda x, d, i: np.take_along_axis(x, np.where(GATHER_D_IDX < 0, GATHER_D_IDX + 4,
                                                      GATHER_D_IDX), 1)),
    ("GatherNd", (), {}, lambda: (T(X345), i32([[0, 1], [2, 3]])),
     lambda x, i: x[[0, 2], [1, 3]]),
    ("ScatterNd", (), {}, lambda: (i32([[0], [2], [0]]), T(X34), (4, 4)),
     lambda i, u, s: np.stack([u[0] + u[2], np.zeros(4), u[1], np.zeros(4)])),
    ("TensorScatterUpdate", (), {}, lambda: (T(X34), i32([[2], [0]]), T(P34[:2])),
     lambda x, i, u: np.stack([u[1], x[1], u[0]])),
    ("BroadcastTo", ((2, 2, 3),), {}, lambda: (T(X23),), lambda x: np.broadcast_to(x, (2, 2, 3))),
    ("Fill", (), {}, lambda: (ms.float32, (2, 3), 2.5), lambda t, s, v: np.full(s, 2.5)),
    ("FillV2", (), {}, lambda: ((2, 3), T(np.float32(1.5))), lambda s, v: np.full(s, 1.5)),
    ("Zeros", (), {}, lambda: ((2, 3), ms.float32), lambda s, t: np.zeros(s)),
    ("Ones", (), {}, lambda: ((2, 3), ms.int32), lambda s, t: np.ones(s, np.int32)),
    ("ZerosLike", (), {}, lambda: (T(X23),), lambda x: np.zeros_like(x)),
    ("OnesLike", (), {}, lambda: (T(X23),), lambda x: np.ones_like(x)),
    ("Eye", (), {}, lambda: (3, 4, ms.float32), lambda n, m, t: np.eye(3, 4)),
    ("Identity", (), {}, lambda: (T(X23),), lambda x: x),
    ("OneHot", (), {}, lambda: (i32([0, 2, 1]), 3, T(np.float32(1)), T(np.float32(0))),
     lambda i, d, on, off: np.eye(3)[[0, 2, 1]]),
    ("Select", (), {}, lambda: (T(B23), T(X23), T(P23)), lambda c, x, y: np.where(c, x, y)),
    ("MaskedFill", (), {}, lambda: (T(X23), T(B23), 0.5), lambda x, m, v: np.where(m, 0.5, x)),
    ("ReverseV2", ((1,),), {}, lambda: (T(X34),), lambda x: x[:, ::-1]),
    ("Pad", (((1, 0), (0, 2)),), {}, lambda: (T(X23),), lambda x: np.pad(x, ((1, 0), (0, 2)))),
    ("Meshgrid", (), {}, lambda: ((T(f32(3)), T(f32(4))),), lambda xs: tuple(np.meshgrid(*xs))),
    ("LinSpace", (), {}, lambda: (T(np.float32(-1)), T(np.float32(2)), 7),
     lambda a, b, n: np.linspace(-1, 2, 7)),
    ("Range", (), {}, lambda: (1, 10, 3), lambda a, b, c: np.arange(1, 10, 3)),
    ("Sort", (), {"descending": True}, lambda: (T(SORT_X),),
     lambda x: (-np.sort(-x, -1, kind="stable"), np.argsort(-x, -1, kind="stable"))),
    ("TopK", (), {}, lambda: (T(SORT_X), 2),
     lambda x, k: (-np.sort(-x, -1)[:, :2], np.argsort(-x, -1, kind="stable")[:, :2])),
    ("Argmax", (), {"axis": 1}, lambda: (T(X34),), lambda x: x.argmax(1)),
    ("Argmin", (), {}, lambda: (T(X34),), lambda x: x.argmin(-1)),
    ("ArgMaxWithValue", (), {"axis": 1, "keep_dims": True}, lambda: (T(X34),),
     lambda x: (x.argmax(1)[:, None], x.max(1, keepdims=True))),
    ("ArgMinWithValue", (), {}, lambda: (T(X34),), lambda x: (x.argmin(0), x.min(0))),
    ("Tril", (), {}, lambda: (T(X34),), lambda x: np.tril(x)),
    ("Triu", (), {"diagonal": 1}, lambda: (T(X34),), lambda x: np.triu(x, 1)),
    ("Roll", (), {"shift": 1, "axis": 0}, lambda: (T(X34),), lambda x: np.roll(x, 1, 0)),
    ("ScalarToTensor", (), {}, lambda: (3, ms.float32), lambda v, t: np.float32(3)),
    ("TupleToArray", (), {}, lambda: ((1.0, 2.0, 3.5),), lambda t: np.float32(t)),
    ("ScalarCast", (), {}, lambda: (3.7, ms.int32), lambda v, t: 3),
    ("ResizeNearestNeighbor", ((4, 6),), {}, lambda: (T(IMG_S),), lambda x: _nearest(x, (4, 6))),
    ("ResizeNearestNeighbor", ((3, 5),), {"align_corners": True}, lambda: (T(IMG_S),),
     lambda x: _nearest(x, (3, 5), True)),
    ("ResizeBilinear", ((4, 5),), {}, lambda: (T(IMG_S),), lambda x: _bilinear(x, (4, 5))),
    ("ResizeBilinearV2", (), {"half_pixel_centers": True}, lambda: (T(IMG_S), (3, 7)),
     lambda x, s: _bilinear(x, (3, 7), True)),
    # ---- math
    ("Add", (), {}, lambda: (T(X23), T(P23)), np.add),
    ("TensorAdd", (), {}, lambda: (T(X23), 2.0), np.add),
    ("AddV2", (), {}, lambda: (T(X23), T(P23)), np.add),
    ("Sub", (), {}, lambda: (T(X23), T(P23)), np.subtract),
    ("Mul", (), {}, lambda: (T(X23), T(P23)), np.multiply),
    ("Div", (), {}, lambda: (T(X23), T(P23)), np.divide),
    ("RealDiv", (), {}, lambda: (T(X23), T(P23)), np.divide),
    ("DivNoNan", (), {}, lambda: (T(X23), T(np.float32([[1, 0, 2], [0, 3, 0]]))),
     lambda x, y: np.where(y == 0, 0, x / np.where(y == 0, 1, y))),
    ("FloorDiv", (), {}, lambda: (T(X23 * 4), T(P23)), lambda x, y: np.floor(x / y)),
    ("FloorMod", (), {}, lambda: (T(X23 * 4), T(P23)), lambda x, y: x - np.floor(x / y) * y),
    ("Mod", (), {}, lambda: (T(X23 * 4), T(P23)), np.fmod),
    ("Pow", (), {}, lambda: (T(P23), T(X23)), np.power),
    ("Maximum", (), {}, lambda: (T(X23), T(P23 - 1)), np.maximum),
    ("Minimum", (), {}, lambda: (T(X23), T(P23 - 1)), np.minimum),
    ("SquaredDifference", (), {}, lambda: (T(X23), T(P23)), lambda x, y: (x - y) ** 2),
    ("Atan2", (), {}, lambda: (T(X23), T(P23 - 1)), np.arctan2),
    ("Xdivy", (), {}, lambda: (T(np.float32([[0, 1, 2]])), T(P23)),
     lambda x, y: np.where(x == 0, 0, x / y)),
    ("AddN", (), {}, lambda: ((T(X23), T(P23), T(X23)),), lambda xs: xs[0] + xs[1] + xs[2]),
    ("MatMul", (), {"transpose_b": True}, lambda: (T(X34), T(f32(2, 4))), lambda a, b: a @ b.T),
    ("MatMul", (), {"transpose_a": True}, lambda: (T(X34), T(f32(3, 2))), lambda a, b: a.T @ b),
    ("BatchMatMul", (), {"transpose_a": True}, lambda: (T(f32(2, 3, 4)), T(f32(2, 3, 5))),
     lambda a, b: np.swapaxes(a, 1, 2) @ b),
    ("BiasAdd", (), {}, lambda: (T(IMG), T(f32(2))), lambda x, b: x + b[None, :, None, None]),
    ("Equal", (), {}, lambda: (T(np.float32([1, 2, 3])), T(np.float32([1, 0, 3]))), np.equal),
    ("NotEqual", (), {}, lambda: (T(np.float32([1, 2, 3])), 2.0), np.not_equal),
    ("Greater", (), {}, lambda: (T(X23), T(P23 - 1)), np.greater),
    ("GreaterEqual", (), {}, lambda: (T(X23), 0.0), np.greater_equal),
    ("Less", (), {}, lambda: (T(X23), T(P23 - 1)), np.less),
    ("LessEqual", (), {}, lambda: (T(X23), 0.0), np.less_equal),
    ("LogicalAnd", (), {}, lambda: (T(B23), T(B23b)), np.logical_and),
    ("LogicalOr", (), {}, lambda: (T(B23), T(B23b)), np.logical_or),
    ("LogicalXor", (), {}, lambda: (T(B23), T(B23b)), np.logical_xor),
    ("LogicalNot", (), {}, lambda: (T(B23),), np.logical_not),
    ("IsNan", (), {}, lambda: (T(np.float32([1, np.nan, np.inf])),), np.isnan),
    ("IsInf", (), {}, lambda: (T(np.float32([1, np.nan, -np.inf])),), np.isinf),
    ("IsFinite", (), {}, lambda: (T(np.float32([1, np.nan, np.inf])),), np.isfinite),
    ("IsClose", (), {}, lambda: (T(np.float32([1, 2, np.nan])), T(np.float32([1, 2.1, np.nan]))),
     lambda x, y: np.isclose(x, y, equal_nan=True)),
    ("Neg", (), {}, lambda: (T(X23),), np.negative),
    ("Abs", (), {}, lambda: (T(X23),), np.abs),
    ("Sign", (), {}, lambda: (T(np.float32([-2, 0, 3])),), np.sign),
    ("Square", (), {}, lambda: (T(X23),), np.square),
    ("Sqrt", (), {}, lambda: (T(P23),), np.sqrt),
    ("Rsqrt", (), {}, lambda: (T(P23),), lambda x: 1 / np.sqrt(x)),
    ("Reciprocal", (), {}, lambda: (T(P23),), np.reciprocal),
    ("Exp", (), {}, lambda: (T(X23),), np.exp),
    ("Expm1", (), {}, lambda: (T(X23),), np.expm1),
    ("Log", (), {}, lambda: (T(P23),), np.log),
    ("Log1p", (), {}, lambda: (T(P23),), np.log1p),
    ("Sin", (), {}, lambda: (T(X23),), np.sin),
    ("Cos", (), {}, lambda: (T(X23),), np.cos),
    ("Tan", (), {}, lambda: (T(X23 * 0.5),), np.tan),
    ("Asin", (), {}, lambda: (T(P23 - 0.6),), np.arcsin),
    ("ACos", (), {}, lambda: (T(P23 - 0.6),), np.arccos),
    ("Atan", (), {}, lambda: (T(X23),), np.arctan),
    ("Sinh", (), {}, lambda: (T(X23),), np.sinh),
    ("Cosh", (), {}, lambda: (T(X23),), np.cosh),
    ("Asinh", (), {}, lambda: (T(X23),), np.arcsinh),
    ("Acosh", (), {}, lambda: (T(P23 + 1),), np.arccosh),
    ("Atanh", (), {}, lambda: (T(P23 - 0.6),), np.arctanh),
    ("Tanh", (), {}, lambda: (T(X23),), np.tanh),
    ("Erf", (), {}, lambda: (T(X23),), _erf),
    ("Erfc", (), {}, lambda: (T(X23),), lambda x: 1 - _erf(x)),
    ("Floor", (), {}, lambda: (T(X23 * 3),), np.floor),
    ("Ceil", (), {}, lambda: (T(X23 * 3),), np.ceil),
    ("Round", (), {}, lambda: (T(np.float32([-1.7, 0.2, 2.6])),), np.round),
    ("Rint", (), {}, lambda: (T(np.float32([-1.7, 0.2, 2.6])),), np.rint),
    ("Trunc", (), {}, lambda: (T(X23 * 3),), np.trunc),
    ("CumSum", (), {}, lambda: (T(X34), 1), lambda x, a: np.cumsum(x, 1)),
    ("CumSum", (), {"exclusive": True, "reverse": True}, lambda: (T(X34), 0),
     lambda x, a: _cumsum(x, 0, True, True)),
    ("CumProd", (), {}, lambda: (T(P34), 1), lambda x, a: np.cumprod(x, 1)),
    ("CumProd", (), {"exclusive": True}, lambda: (T(P34), 1),
     lambda x, a: np.concatenate([np.ones((3, 1)), np.cumprod(x, 1)[:, :-1]], 1)),
    ("Lerp", (), {}, lambda: (T(X23), T(P23), T(np.float32(0.3))),
     lambda a, b, w: a + 0.3 * (b - a)),
    ("ClipByValue", (), {}, lambda: (T(X23), T(np.float32(-0.5)), T(np.float32(0.5))),
     lambda x, lo, hi: np.clip(x, -0.5, 0.5)),
    ("ReduceMax", (), {"keep_dims": True}, lambda: (T(X345), (1, 2)),
     lambda x, a: x.max(a, keepdims=True)),
    ("ReduceMin", (), {}, lambda: (T(X345), 0), lambda x, a: x.min(0)),
    ("ReduceProd", (), {}, lambda: (T(P34),), lambda x: x.prod()),
    ("ReduceAll", (), {}, lambda: (T(B23), 1), lambda x, a: x.all(1)),
    ("ReduceAny", (), {"keep_dims": True}, lambda: (T(B23),), lambda x: x.any(keepdims=True)),
    ("ReduceLogSumExp", (), {}, lambda: (T(X34), 1), lambda x, a: np.log(np.exp(x).sum(1))),
    ("SquareSumAll", (), {}, lambda: (T(X23), T(P23)),
     lambda x, y: ((x ** 2).sum(), (y ** 2).sum())),
    # ---- nn
    ("ReLU", (), {}, lambda: (T(X23),), lambda x: np.maximum(x, 0)),
    ("ReLU6", (), {}, lambda: (T(X23 * 5),), lambda x: np.clip(x, 0, 6)),
    ("ReLUV2", (), {}, lambda: (T(X23),), lambda x: (np.maximum(x, 0), x > 0)),
    ("Sigmoid", (), {}, lambda: (T(X23),), _sigmoid),
    ("Softplus", (), {}, lambda: (T(X23),), lambda x: np.log1p(np.exp(x))),
    ("Softsign", (), {}, lambda: (T(X23),), lambda x: x / (1 + np.abs(x))),
    ("SiLU", (), {}, lambda: (T(X23),), lambda x: x * _sigmoid(x)),
    # MindSpore 2.10's GeLU kernel is the tanh approximation (recorded: mindspore_cases.py)
    ("GeLU", (), {}, lambda: (T(X23),),
     lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))),
    ("GELU", (), {}, lambda: (T(X23),), lambda x: 0.5 * x * (1 + _erf(x / np.sqrt(2)))),
    ("FastGeLU", (), {}, lambda: (T(X23),),
     lambda x: x / (1 + np.exp(-1.702 * np.abs(x))) * np.exp(0.851 * (x - np.abs(x)))),
    ("HSwish", (), {}, lambda: (T(X23 * 4),), lambda x: x * np.clip(x + 3, 0, 6) / 6),
    ("HSigmoid", (), {}, lambda: (T(X23 * 4),), lambda x: np.clip(x + 3, 0, 6) / 6),
    ("Mish", (), {}, lambda: (T(X23),), lambda x: x * np.tanh(np.log1p(np.exp(x)))),
    ("Elu", (), {}, lambda: (T(X23),), lambda x: np.where(x > 0, x, np.expm1(x))),
    ("LeakyReLU", (), {"alpha": 0.1}, lambda: (T(X23),), lambda x: np.where(x >= 0, x, 0.1 * x)),
    ("Softmax", (), {}, lambda: (T(X34),), _softmax),
    ("Softmax", ((0,),), {}, lambda: (T(X34),), lambda x: _softmax(x, 0)),
    ("LogSoftmax", (), {}, lambda: (T(X34),), lambda x: np.log(_softmax(x))),
    ("L2Normalize", (), {"axis": 1}, lambda: (T(X34),),
     lambda x: x / np.sqrt(np.maximum((x ** 2).sum(1, keepdims=True), 1e-4))),
    ("Conv2D", (2, 3), {"pad_mode": "pad", "pad": 1}, lambda: (T(IMG), T(W33)),
     lambda x, w: _conv2d(x, w, 1, 1)),
    ("Conv2D", (2, 3), {"stride": 2}, lambda: (T(f32(1, 2, 7, 7)), T(W33)),
     lambda x, w: _conv2d(x, w, 2, 0)),
    ("MaxPool", (), {"kernel_size": 2, "strides": 2}, lambda: (T(IMG),),
     lambda x: _pool(x, 2, 2, np.max)),
    ("AvgPool", (), {"kernel_size": 2, "strides": 1}, lambda: (T(IMG),),
     lambda x: _pool(x, 2, 1, np.mean)),
    ("SigmoidCrossEntropyWithLogits", (), {}, lambda: (T(X23), T(YB)),
     lambda x, z: np.maximum(x, 0) - x * z + np.log1p(np.exp(-np.abs(x)))),
    ("BCEWithLogitsLoss", (), {}, lambda: (T(X23), T(YB), T(P23), T(np.float32([1, 2, 1]))),
     lambda x, y, w, pw: np.mean(w * ((1 + (pw - 1) * y) * np.log1p(np.exp(-x)) + (1 - y) * x))),
    ("BinaryCrossEntropy", (), {}, lambda: (T(PROB), T(YB), T(P23)),
     lambda x, y, w: np.mean(-w * (y * np.log(x) + (1 - y) * np.log(1 - x)))),
    ("BinaryCrossEntropy", (), {"reduction": "none"}, lambda: (T(PROB), T(YB)),
     lambda x, y: -(y * np.log(x) + (1 - y) * np.log(1 - x))),
    ("SmoothL1Loss", (), {"beta": 0.5}, lambda: (T(X23), T(P23)),
     lambda x, y: np.where(np.abs(x - y) < 0.5, 0.5 * (x - y) ** 2 / 0.5, np.abs(x - y) - 0.25)),
    ("NLLLoss", (), {}, lambda: (T(X34), i32([0, 3, 1]), T(pos(4))),
     None),   # checked below against its closed form
    ("IOU", (), {}, lambda: (T(BOX_A), T(BOX_G)), _iou),
    ("RmsNorm", (), {}, lambda: (T(X34), T(pos(4))),
     lambda x, g: (x / np.sqrt((x ** 2).mean(-1, keepdims=True) + 1e-6) * g,
                   1 / np.sqrt((x ** 2).mean(-1, keepdims=True) + 1e-6))),
    ("SoftmaxCrossEntropyWithLogits", (), {}, lambda: (T(X23), T(LAB)),
     lambda x, y: (-(y * np.log(_softmax(x))).sum(1), _softmax(x) - y)),
    ("SparseSoftmaxCrossEntropyWithLogits", (), {}, lambda: (T(X23), i32([0, 2])),
     lambda x, y: np.mean(-np.log(_softmax(x))[[0, 1], [0, 2]])),
    ("LayerNorm", (), {"begin_norm_axis": -1, "begin_params_axis": -1},
     lambda: (T(X34), T(pos(4)), T(f32(4))), None),
    ("BatchNorm", (), {}, lambda: (T(IMG), T(pos(2)), T(f32(2)), T(f32(2)), T(pos(2))), None),
    ("StopGradient", (), {}, lambda: (T(X23),), lambda x: x),
    # ---- the second batch of compositions
    ("Addcdiv", (), {}, lambda: (T(X23), T(P23), T(P23 + 1), T(np.float32(0.5))),
     lambda x, a, b, v: x + 0.5 * a / b),
    ("Addcmul", (), {}, lambda: (T(X23), T(P23), T(X23), T(np.float32(2))),
     lambda x, a, b, v: x + 2 * a * b),
    ("Inv", (), {}, lambda: (T(P23),), np.reciprocal),
    ("Logit", (), {}, lambda: (T(P23 / 2),), lambda x: np.log(x / (1 - x))),
    ("Logit", (), {"eps": 0.4}, lambda: (T(P23 / 2),),
     lambda x: np.log(np.clip(x, .4, .6) / (1 - np.clip(x, .4, .6)))),
    ("Xlogy", (), {}, lambda: (T(np.float32([0, 1, 2])), T(np.float32([1, 2, 3]))),
     lambda x, y: x * np.log(y)),
    ("MulNoNan", (), {}, lambda: (T(np.float32([np.inf, 1, 2])), T(np.float32([0, 2, 3]))),
     lambda x, y: np.float32([0, 2, 6])),
    ("TruncateDiv", (), {}, lambda: (T(X23 * 4), T(P23)), lambda x, y: np.trunc(x / y)),
    ("TruncateMod", (), {}, lambda: (T(X23 * 4), T(P23)), np.fmod),
    ("Hypot", (), {}, lambda: (T(X23), T(P23)), np.hypot),
    ("Heaviside", (), {}, lambda: (T(np.float32([-1, 0, 2])), T(np.float32([.5, .5, .5]))),
     np.heaviside),
    ("ApproximateEqual", (), {"tolerance": 0.1}, lambda: (T(X23), T(X23 + 0.05)),
     lambda x, y: np.abs(x - y) < 0.1),
    ("EqualCount", (), {}, lambda: (T(np.float32([1, 2, 3])), T(np.float32([1, 0, 3]))),
     lambda x, y: np.array([2], np.int32)),
    ("Cross", (), {}, lambda: (T(f32(2, 3)), T(f32(2, 3))), lambda a, b: np.cross(a, b)),
    ("AccumulateNV2", (), {}, lambda: ((T(X23), T(P23)),), lambda xs: xs[0] + xs[1]),
    ("L2Loss", (), {}, lambda: (T(X23),), lambda x: (x ** 2).sum() / 2),
    ("LpNorm", (), {"axis": 1, "p": 1}, lambda: (T(X23),), lambda x: np.abs(x).sum(1)),
    ("EuclideanNorm", (), {}, lambda: (T(X23), 1), lambda x, a: np.sqrt((x ** 2).sum(1))),
    ("ReduceStd", (), {"axis": 1}, lambda: (T(X34),), lambda x: (x.std(1, ddof=1), x.mean(1))),
    ("Trace", (), {}, lambda: (T(X34),), np.trace),
    ("Diag", (), {}, lambda: (T(f32(3)),), np.diag),
    ("DiagPart", (), {}, lambda: (T(f32(3, 3)),), np.diagonal),
    ("Expand", (), {}, lambda: (T(f32(1, 3)), (2, 3)), lambda x, s: np.broadcast_to(x, s)),
    ("SplitV", (), {"size_splits": (1, 3), "split_dim": 1, "num_split": 2},
     lambda: (T(X34),), lambda x: (x[:, :1], x[:, 1:])),
    ("MatrixBandPart", (), {}, lambda: (T(X34), 0, 1),
     lambda x, lo, up: x * ((np.arange(3)[:, None] - np.arange(4) <= 0) &
                            (np.arange(4) - np.arange(3)[:, None] <= 1))),
    ("CeLU", (), {"alpha": 2.0}, lambda: (T(X23),),
     lambda x: np.maximum(x, 0) + np.minimum(0, 2 * np.expm1(x / 2))),
    ("SeLU", (), {}, lambda: (T(X23),),
     lambda x: 1.05070098 * np.where(x > 0, x, 1.67326324 * np.expm1(x))),
    ("HShrink", (), {}, lambda: (T(X23),), lambda x: np.where(np.abs(x) > 0.5, x, 0)),
    ("SoftShrink", (), {"lambd": 0.2}, lambda: (T(X23),),
     lambda x: np.where(np.abs(x) > 0.2, x - 0.2 * np.sign(x), 0)),
    ("PReLU", (), {}, lambda: (T(IMG), T(np.float32([0.1, 0.5]))),
     lambda x, w: np.where(x > 0, x, w[None, :, None, None] * x)),
    ("KLDivLoss", (), {"reduction": "sum"}, lambda: (T(np.log(PROB)), T(PROB[::-1].copy())),
     lambda x, y: (y * (np.log(y) - x)).sum()),
    ("SoftMarginLoss", (), {}, lambda: (T(X23), T(np.sign(P23 - 1))),
     lambda x, y: np.log1p(np.exp(-x * y)).mean()),
    ("AdaptiveAvgPool2D", ((2, 2),), {}, lambda: (T(IMG),),
     lambda x: x.reshape(1, 2, 2, 2, 2, 2).mean((3, 5))),
    ("Cdist", (), {}, lambda: (T(f32(3, 4)), T(f32(2, 4))),
     None),
    ("UnsortedSegmentSum", (), {}, lambda: (T(X34), i32([0, 2, 0]), 3),
     lambda x, i, n: np.stack([x[0] + x[2], np.zeros(4), x[1]])),
    ("UnsortedSegmentMax", (), {}, lambda: (T(X34), i32([1, 1, 0]), 2),
     lambda x, i, n: np.stack([x[2], np.maximum(x[0], x[1])])),
    ("UnsortedSegmentMin", (), {}, lambda: (T(X34), i32([1, 1, 0]), 2),
     lambda x, i, n: np.stack([x[2], np.minimum(x[0], x[1])])),
    ("UnsortedSegmentProd", (), {}, lambda: (T(X34), i32([1, 1, 0]), 2),
     lambda x, i, n: np.stack([x[2], x[0] * x[1]])),
    ("TensorScatterAdd", (), {}, lambda: (T(X34), i32([[1], [1]]), T(P34[:2])),
     lambda x, i, u: np.stack([x[0], x[1] + u[0] + u[1], x[2]])),
    ("TensorScatterSub", (), {}, lambda: (T(X34), i32([[2]]), T(P34[:1])),
     lambda x, i, u: np.stack([x[0], x[1], x[2] - u[0]])),
    ("InplaceAdd", (), {"indices": (0, 2)}, lambda: (T(X34), T(P34[:2])),
     lambda x, v: np.stack([x[0] + v[0], x[1], x[2] + v[1]])),
    ("InplaceSub", (), {"indices": (1,)}, lambda: (T(X34), T(P34[:1])),
     lambda x, v: np.stack([x[0], x[1] - v[0], x[2]])),
    ("InplaceUpdate", (), {"indices": (2,)}, lambda: (T(X34), T(P34[:1])),
     lambda x, v: np.stack([x[0], x[1], v[0]])),
    ("IndexAdd", (), {"axis": 1}, lambda: (T(X34), i32([0, 3]), T(P34[:, :2])),
     lambda x, i, y: x + np.stack([y[:, 0], 0 * y[:, 0], 0 * y[:, 0], y[:, 1]], 1)),
    ("ResizeNearestNeighborV2", (), {}, lambda: (T(IMG_S), (4, 6)),
     lambda x, s: _nearest(x, (4, 6))),
    ("MirrorPad", (), {}, lambda: (T(X34), ((1, 1), (2, 0))),
     lambda x, p: np.pad(x, ((1, 1), (2, 0)), mode="reflect")),
    ("MirrorPad", (), {"mode": "SYMMETRIC"}, lambda: (T(X34), ((1, 1), (2, 0))),
     lambda x, p: np.pad(x, ((1, 1), (2, 0)), mode="symmetric")),
    ("Padding", (), {"pad_dim_size": 4}, lambda: (T(f32(3, 1)),),
     lambda x: np.concatenate([x, np.zeros((3, 3))], 1)),
    ("Eps", (), {}, lambda: (T(X23),), lambda x: np.full(x.shape, np.finfo(np.float32).tiny)),
    ("DepthToSpace", (), {"block_size": 2}, lambda: (T(f32(1, 8, 2, 3)),),
     lambda x: x.reshape(1, 2, 2, 2, 2, 3).transpose(0, 3, 4, 1, 5, 2).reshape(1, 2, 4, 6)),
    ("SpaceToDepth", (), {"block_size": 2}, lambda: (T(f32(1, 2, 4, 6)),),
     lambda x: x.reshape(1, 2, 2, 2, 3, 2).transpose(0, 3, 5, 1, 2, 4).reshape(1, 8, 2, 3)),
    ("InvertPermutation", (), {}, lambda: ((3, 4, 0, 2, 1),), lambda p: (2, 4, 3, 0, 1)),
    ("IdentityN", (), {}, lambda: ((T(X23), T(P23)),), lambda xs: tuple(xs)),
    ("LogSpace", (), {"steps": 4, "base": 2}, lambda: (T(np.float32(0)), T(np.float32(3))),
     lambda a, b: np.float32([1, 2, 4, 8])),
    ("IndexFill", (), {}, lambda: (T(X34), 1, i32([0, 2]), T(np.float32(9))),
     lambda x, d, i, v: np.where(np.isin(np.arange(4), [0, 2])[None], 9, x)),
    ("SparseGatherV2", (), {}, lambda: (T(X34), i32([2, 0]), 0), lambda x, i, a: x[[2, 0]]),
    ("ParallelConcat", (), {}, lambda: ((T(X34[:1]), T(P34[:1])),),
     lambda xs: np.concatenate(xs, 0)),
    ("InTopK", (2,), {}, lambda: (T(X34), i32([0, 1, 3])),
     lambda x, t: (x > x[np.arange(3), [0, 1, 3]][:, None]).sum(1) < 2),
    ("Conv2DTranspose", (2, 3), {"pad_mode": "pad", "pad": 1},
     lambda: (T(DOUT), T(W_T), (1, 3, 4, 4)), lambda d, w, s: _conv_t(d, w, 1)),
    ("Conv2DBackpropInput", (2, 3), {}, lambda: (T(f32(1, 2, 2, 2)), T(W_T), (1, 3, 4, 4)),
     lambda d, w, s: _conv_t(d, w, 0)),
    ("Depend", (), {}, lambda: (T(X23), T(P23)), lambda x, y: x),
]

# (the collectives run on 2 MPI ranks in test/python/distributed/test_collectives.py)
# tested against numpy in test/python/ops/test_usage_gap_ops.py
USAGE_GAP_TESTED = {"BoundingBoxEncode", "BoundingBoxDecode", "CheckValid", "FloatStatus",
                    "AddExt", "SubExt", "SumExt", "SplitWithSize", "Gelu", "Unique",
                    "MaskedSelect", "NonZero", "NMSWithMask", "RandomChoiceWithMask",
                    "MaxPool3D", "AvgPool3D", "ReverseSequence"}
# issue 12's second round: test/python/ops/test_roi_align.py, test_usage_gap_primitives.py,
# test_bitwise.py, test/python/compat/test_summary.py
ISSUE12_TESTED = {"ROIAlign", "CTCLoss", "CropAndResize", "Adam", "AdamWeightDecay", "LRN",
                  "Swiglu", "ScalarToArray", "BitwiseAnd", "BitwiseOr", "BitwiseXor", "LeftShift",
                  "RightShift", "Invert", "ScalarSummary", "TensorSummary", "ImageSummary",
                  "HistogramSummary", "NPUAllocFloatStatus", "NPUGetFloatStatus",
                  "NPUClearFloatStatus"}
# the rest of the 200 most used: test/python/ops/test_llm_primitives.py,
# test_recurrent_primitives.py, test_alltoallv.py
TOP200_TESTED = {"GroupedMatmul", "GroupedMatmulV4", "ReshapeAndCache", "PagedAttention",
                 "PagedAttentionMask", "FlashAttentionScore", "ApplyRotaryPosEmb",
                 "MoeGatingTopKSoftmax", "MoeInitRouting", "MoeInitRoutingV2",
                 "MoeComputeExpertTokens", "MoeFinalizeRouting", "MoeTokenUnpermute", "GroupTopk",
                 "FusedAddTopKDiv", "MoeDistributeDispatch", "MoeDistributeCombine", "DynamicRNN",
                 "DynamicGRUV2", "LSTM", "MaxPoolWithArgmax", "DropoutGenMask", "DropoutDoMask",
                 "FusedWeightScaleApplyMomentum", "Sum", "Morph", "MoveTo", "AlltoAllV",
                 "StackExt", "TopkExt", "BatchMatMulExt", "CumsumExt"}
EXTRA_TESTED = {"AllReduce", "AllGather", "ReduceScatter", "Broadcast", "AlltoAll", "Dropout", "UniformReal", "StandardNormal", "Assign", "AssignAdd", "AssignSub",
                "ScatterNdUpdate", "ApplyMomentum", "Print", "Custom", "LayerNorm",
                "BatchNorm", "NLLLoss", "ScatterNdAdd", "ScatterNdSub", "ScatterAdd",
                "ScatterSub", "ScatterUpdate", "UniformInt", "StandardLaplace", "SegmentSum",
                "Cdist", "Dropout2D", "Dropout3D"}


def _check(out, ref):
    if isinstance(ref, tuple):
        assert isinstance(out, tuple) and len(out) == len(ref), (out, ref)
        for o, r in zip(out, ref):
            _check(o, r)
        return
    if isinstance(ref, (int, ms.dtype.DType)) and not isinstance(ref, bool):
        assert out == ref
        return
    got = out.asnumpy() if hasattr(out, "asnumpy") else np.asarray(out)
    ref = np.asarray(ref)
    assert got.shape == ref.shape, (got.shape, ref.shape)
    if ref.dtype == bool:
        np.testing.assert_array_equal(got, ref)
    else:
        np.testing.assert_allclose(got.astype(np.float64), ref.astype(np.float64),
                                   rtol=2e-5 if got.dtype != np.float16 else 2e-3, atol=2e-5)


def _run(prim, *args):
    return prim(*args)


_jit_run = ms.jit(_run)


def _id(case):
    return f"{case[0]}-{CASES.index(case)}"


@pytest.mark.parametrize("case", [c for c in CASES if c[4] is not None], ids=_id)
def test_primitive_pynative(case):
    name, args, kwargs, inputs, ref = case
    prim = getattr(P, name)(*args, **kwargs)
    xs = inputs()
    out = prim(*xs)
    np_in = [x.asnumpy() if hasattr(x, "asnumpy") else
             tuple(e.asnumpy() if hasattr(e, "asnumpy") else e for e in x)
             if isinstance(x, tuple) else x for x in xs]
    _check(out, ref(*np_in))
    if name not in ("Shape", "Rank", "Size", "DType", "ScalarCast", "InvertPermutation"):
        leaves = out if isinstance(out, tuple) else (out,)
        assert all(isinstance(o, ms.Tensor) for o in leaves), [type(o) for o in leaves]


@pytest.mark.parametrize("case", [c for c in CASES if c[4] is not None], ids=_id)
def test_primitive_in_jit(case):
    name, args, kwargs, inputs, ref = case
    prim = getattr(P, name)(*args, **kwargs)
    xs = inputs()
    np_in = [x.asnumpy() if hasattr(x, "asnumpy") else
             tuple(e.asnumpy() if hasattr(e, "asnumpy") else e for e in x)
             if isinstance(x, tuple) else x for x in xs]
    _check(_jit_run(prim, *xs), ref(*np_in))


def test_every_class_of_the_table_is_tested():
    from msmlir.ops.operations._linalg import ROWS   # test/python/ops/test_linalg_primitives.py
    from msmlir.ops.operations import _grad, _optim  # test_grad_primitives.py, test_optim_primitives.py
    tested = ({c[0] for c in CASES if c[4] is not None} | EXTRA_TESTED | USAGE_GAP_TESTED
              | ISSUE12_TESTED | TOP200_TESTED | {r[0] for r in ROWS}
              | {r[0] for r in _optim.ROWS + _grad.ROWS}
              | {"EmbeddingLookup", "AdaptiveMaxPool2D"})   # test_found_by_mindspore_tests.py
    assert set(CLASSES) - tested == set()


def test_primitive_api():
    rs = P.ReduceSum(keep_dims=True)
    assert isinstance(rs, ops.Primitive) and isinstance(rs, ops.PrimitiveWithInfer)
    assert rs.name == "ReduceSum" and rs.keep_dims is True
    assert rs.attrs["keep_dims"] is True and rs.get_attr_dict()["skip_mode"] is False
    assert repr(rs) == "Prim[ReduceSum]<keep_dims=True, skip_mode=False>"
    assert repr(P.Cast()) == "Prim[Cast]"
    assert rs.add_prim_attr("fusion", 1) is rs and rs.attrs["fusion"] == 1
    rs.del_prim_attr("fusion")
    assert "fusion" not in rs.attrs
    mm = ops.MatMul(transpose_b=True).shard(((2, 1), (1, 1)))
    assert mm.attrs["in_strategy"] == ((2, 1), (1, 1))
    with pytest.raises(TypeError, match="shard"):
        mm.shard([[2, 1]])
    assert ops.MatMul is P.MatMul and ops.LayerNorm is P.LayerNorm
    assert ms.ops.Cast is P.Cast
    with pytest.raises(TypeError, match="For 'MatMul'"):
        P.MatMul(transpose_c=True)
    # a changed attribute compiles a new kernel (the eager cache is keyed by attributes)
    x = T(X23)
    a = P.ReduceSum()(x, 1)
    b = P.ReduceSum(keep_dims=True)(x, 1)
    assert a.shape == (2,) and b.shape == (2, 1)


def test_user_primitive_subclass_and_constexpr():
    class MyPrim(ops.PrimitiveWithInfer):
        @ops.prim_attr_register
        def __init__(self, scale=2.0):
            self.init_prim_io_names(inputs=["x"], outputs=["y"])

        def _impl(self, x):     # msmlir: the body composes functional ops
            return ops.mul(x, self.attrs["scale"])

    p = MyPrim(scale=3.0)
    assert p.attrs["scale"] == 3.0 and p.attrs["input_names"] == ["x"]
    np.testing.assert_allclose(p(T(X23)).asnumpy(), X23 * 3, rtol=1e-6)

    class NoKernel(ops.Primitive):
        @ops.prim_attr_register
        def __init__(self):
            pass
    with pytest.raises(ms.CompileError, match="no msmlir implementation"):
        NoKernel()(T(X23))

    @ops.constexpr
    def _double(n):
        return n * 2

    @ms.jit
    def f(x):
        return ops.reshape(x, (_double(x.shape[0]) // 2, -1))
    assert f(T(X23)).shape == (2, 3)


class _PrimNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.matmul = P.MatMul(transpose_b=True)
        self.reduce = P.ReduceMean(keep_dims=True)
        self.cast = P.Cast()
        self.concat = P.Concat(axis=1)
        self.argmax = P.ArgMaxWithValue(axis=1)

    def construct(self, x, w):
        y = self.matmul(x, w)
        y = self.concat((y, self.reduce(y, 1)))
        idx, val = self.argmax(y)
        return self.cast(y, ms.float16), idx, val


@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE])
def test_primitives_in_cell_construct(mode):
    x, w = f32(3, 4), f32(5, 4)
    ms.set_context(mode=mode)
    try:
        y, idx, val = _PrimNet()(T(x), T(w))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    ref = x @ w.T
    ref = np.concatenate([ref, ref.mean(1, keepdims=True)], 1)
    assert y.dtype == ms.float16
    np.testing.assert_allclose(y.asnumpy(), ref, rtol=2e-3, atol=2e-3)
    np.testing.assert_array_equal(idx.asnumpy(), ref.argmax(1))
    np.testing.assert_allclose(val.asnumpy(), ref.max(1), rtol=1e-5)


def test_nll_layernorm_batchnorm_primitives():
    x, lab, w = X34, np.array([0, 3, 1]), pos(4)
    loss, total = P.NLLLoss()(T(x), i32(lab), T(w))
    picked = -x[np.arange(3), lab] * w[lab]
    np.testing.assert_allclose(total.asnumpy(), w[lab].sum(), rtol=1e-6)
    np.testing.assert_allclose(loss.asnumpy(), picked.sum() / w[lab].sum(), rtol=1e-5)
    g, b = pos(4), f32(4)
    y, mean, rstd = P.LayerNorm(-1, -1, 1e-5)(T(x), T(g), T(b))
    ref = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5) * g + b
    np.testing.assert_allclose(y.asnumpy(), ref, rtol=1e-4, atol=1e-5)
    sc, bi, mu, var = pos(2), f32(2), f32(2), pos(2)
    y = P.BatchNorm()(T(IMG), T(sc), T(bi), T(mu), T(var))[0]
    r = lambda v: v[None, :, None, None]   # noqa: E731
    np.testing.assert_allclose(y.asnumpy(), (IMG - r(mu)) / np.sqrt(r(var) + 1e-5) * r(sc) + r(bi),
                               rtol=1e-4, atol=1e-5)


def test_stateful_and_random_primitives(capsys):
    v = ms.Parameter(T(X23.copy()), name="v")
    P.Assign()(v, T(P23))
    np.testing.assert_allclose(v.asnumpy(), P23)
    P.AssignAdd()(v, T(X23))
    np.testing.assert_allclose(v.asnumpy(), P23 + X23, rtol=1e-6)
    P.AssignSub()(v, T(X23))
    np.testing.assert_allclose(v.asnumpy(), P23, rtol=1e-6, atol=1e-6)
    var = ms.Parameter(T(X34.copy()), name="var")
    P.ScatterNdUpdate()(var, i32([[1], [2]]), T(P34[:2]))
    np.testing.assert_allclose(var.asnumpy(), np.stack([X34[0], P34[0], P34[1]]))
    # ApplyMomentum: accum = accum * momentum + grad; var -= lr * accum
    pv, acc, g = ms.Parameter(T(X23.copy()), "pv"), ms.Parameter(T(P23.copy()), "acc"), f32(2, 3)
    P.ApplyMomentum()(pv, acc, T(np.float32(0.1)), T(g), T(np.float32(0.9)))
    new_acc = P23 * 0.9 + g
    np.testing.assert_allclose(acc.asnumpy(), new_acc, rtol=1e-6)
    np.testing.assert_allclose(pv.asnumpy(), X23 - 0.1 * new_acc, rtol=1e-5, atol=1e-6)
    u = P.UniformReal(seed=3)((2000,)).asnumpy()
    assert u.shape == (2000,) and u.min() >= 0 and u.max() < 1 and abs(u.mean() - 0.5) < 0.05
    n = P.StandardNormal(seed=4)((4000,)).asnumpy()
    assert abs(n.mean()) < 0.08 and abs(n.std() - 1) < 0.08
    x = np.ones((200, 50), np.float32)
    out, mask = P.Dropout(keep_prob=0.8)(T(x))
    out, mask = out.asnumpy(), mask.asnumpy()
    np.testing.assert_allclose(out, x * mask / 0.8, rtol=1e-6)
    assert 0.75 < mask.mean() < 0.85
    P.Print()("value:", T(np.float32([1.5])))
    assert "value:" in capsys.readouterr().out


def test_primitive_errors_are_builtin_types():
    with pytest.raises(ValueError, match="divisible"):
        P.Split(1, 2)(T(X23))
    with pytest.raises(ValueError):
        P.Reshape()(T(X23), (4, 2))
    with pytest.raises(TypeError):
        P.Concat()(T(X23))     # not a tuple
    with pytest.raises(ms.CompileError):
        P.Transpose()(T(X23), (0, 0))


def test_parameter_scatter_primitives_and_random_ints():
    def par(a):
        return ms.Parameter(T(a.copy()), name="p")
    v = par(X34)
    P.ScatterNdAdd()(v, i32([[0], [0]]), T(P34[:2]))
    np.testing.assert_allclose(v.asnumpy(), np.stack([X34[0] + P34[0] + P34[1], X34[1], X34[2]]),
                               rtol=1e-6)
    v = par(X34)
    P.ScatterNdSub()(v, i32([[2]]), T(P34[:1]))
    np.testing.assert_allclose(v.asnumpy()[2], X34[2] - P34[0], rtol=1e-6)
    v = par(X34)
    P.ScatterAdd()(v, i32([1, 1]), T(P34[:2]))
    np.testing.assert_allclose(v.asnumpy()[1], X34[1] + P34[0] + P34[1], rtol=1e-6)
    v = par(X34)
    P.ScatterSub()(v, i32([[0]]), T(P34[:1][None]))
    np.testing.assert_allclose(v.asnumpy()[0], X34[0] - P34[0], rtol=1e-6)
    v = par(X34)
    P.ScatterUpdate()(v, i32([2, 0]), T(P34[:2]))
    np.testing.assert_allclose(v.asnumpy(), np.stack([P34[1], X34[1], P34[0]]))
    r = P.UniformInt(seed=1)((3000,), T(np.int32(-2)), T(np.int32(5))).asnumpy()
    assert r.dtype == np.int32 and r.min() == -2 and r.max() == 4
    assert abs(r.mean() - 1.0) < 0.15
    lap = P.StandardLaplace(seed=2)((6000,)).asnumpy()
    assert abs(lap.mean()) < 0.08 and abs(np.abs(lap).mean() - 1) < 0.08
    out = P.SegmentSum()(T(X34), i32([0, 0, 2]))
    np.testing.assert_allclose(out.asnumpy(), np.stack([X34[0] + X34[1], np.zeros(4), X34[2]]),
                               rtol=1e-6)
    a, b = f32(3, 4), f32(2, 4)
    np.testing.assert_allclose(P.Cdist()(T(a), T(b)).asnumpy(),
                               np.sqrt(((a[:, None] - b[None]) ** 2).sum(-1)), rtol=1e-5)


def test_channel_dropout_primitives():
    x = T(np.ones((4, 30, 2, 2), np.float32))
    out, mask = P.Dropout2D(keep_prob=0.6)(x)
    out, mask = out.asnumpy(), mask.asnumpy()
    assert mask.dtype == np.bool_ and (mask == mask[:, :, :1, :1]).all()
    np.testing.assert_allclose(out, mask / 0.6, rtol=1e-6)
    assert 0.4 < mask.mean() < 0.8
    out3, mask3 = P.Dropout3D(0.5)(T(np.ones((2, 4, 2, 2, 2), np.float32)))
    assert out3.shape == (2, 4, 2, 2, 2) and mask3.shape == (2, 4, 2, 2, 2)
