"""Cases run unchanged by real MindSpore 2.10 (tools/ms_record_values.py records their
inputs and outputs into data/mindspore_2_10_values.npz) and by msmlir
(test_mindspore_values.py replays them): each case is `fn(ms, *arrays)` where `ms` is the
`mindspore` or the `msmlir` module, so the same MindSpore-style code runs on both.

A case returns Tensors, tuples of them, Python numbers or dtypes; `ERROR` cases record
the type of the exception raised. Inputs are fixed numpy arrays (seeded here, stored in
the data file too). This module imports neither framework.
"""
import numpy as np

CASES = {}          # name -> (fn, inputs, options)


def case(name, *inputs, error=False, rtol=1e-5, atol=1e-6):
    def deco(fn):
        assert name not in CASES, name
        CASES[name] = (fn, [np.asarray(a) for a in inputs],
                       {"error": error, "rtol": rtol, "atol": atol})
        return fn
    return deco


_rng = np.random.default_rng(20261125)


def f32(*shape, lo=-1.0, hi=1.0):
    return _rng.uniform(lo, hi, shape).astype(np.float32)


def i32(*shape, lo=0, hi=5):
    return _rng.integers(lo, hi, shape).astype(np.int32)


A = f32(2, 3, 4)
B = f32(2, 3, 4)
M = f32(3, 4)
N = f32(4, 5)
POS = f32(2, 3, 4, lo=0.1, hi=2.0)
IMG = f32(2, 3, 7, 7)
W33 = f32(4, 3, 3, 3)
LOGITS = f32(4, 5)
LABELS = np.array([1, 0, 4, 2], np.int32)


def T(ms, a):
    return ms.Tensor(a)


# ---- the most-used Primitive classes (usage_counts.tsv order) ------------------------------
def _p(ms):
    return ms.ops.operations


@case("P.Cast", A)
def _(ms, a):
    return _p(ms).Cast()(T(ms, a), ms.float16)


@case("P.Concat", A, B)
def _(ms, a, b):
    return _p(ms).Concat(1)((T(ms, a), T(ms, b)))


@case("P.Reshape", A)
def _(ms, a):
    return _p(ms).Reshape()(T(ms, a), (4, -1))


@case("P.ReduceSum.keep_dims", A)
def _(ms, a):
    return _p(ms).ReduceSum(keep_dims=True)(T(ms, a), (0, 2))


@case("P.ReduceSum.all", A)
def _(ms, a):
    return _p(ms).ReduceSum()(T(ms, a))


@case("P.Transpose", A)
def _(ms, a):
    return _p(ms).Transpose()(T(ms, a), (2, 0, 1))


@case("P.ReduceMean", A)
def _(ms, a):
    return _p(ms).ReduceMean(keep_dims=False)(T(ms, a), -1)


@case("P.ExpandDims", A)
def _(ms, a):
    return _p(ms).ExpandDims()(T(ms, a), 1)


@case("P.Shape", A)
def _(ms, a):
    return _p(ms).Shape()(T(ms, a))


@case("P.Tile", M)
def _(ms, a):
    return _p(ms).Tile()(T(ms, a), (2, 1, 3))


@case("P.Add", A, B)
def _(ms, a, b):
    return _p(ms).Add()(T(ms, a), T(ms, b))


@case("P.Mul.broadcast", A, M)
def _(ms, a, b):
    return _p(ms).Mul()(T(ms, a), T(ms, b))


@case("P.Squeeze", f32(2, 1, 3, 1))
def _(ms, a):
    return _p(ms).Squeeze(1)(T(ms, a))


@case("P.OneHot", LABELS)
def _(ms, a):
    return _p(ms).OneHot()(T(ms, a), 5, T(ms, np.float32(1.0)), T(ms, np.float32(0.0)))


@case("P.ReLU", A)
def _(ms, a):
    return _p(ms).ReLU()(T(ms, a))


@case("P.Select", A > 0, A, B)
def _(ms, c, a, b):
    return _p(ms).Select()(T(ms, c), T(ms, a), T(ms, b))


@case("P.Sigmoid", A)
def _(ms, a):
    return _p(ms).Sigmoid()(T(ms, a))


@case("P.Split", A)
def _(ms, a):
    return _p(ms).Split(2, 2)(T(ms, a))


@case("P.DType", A)
def _(ms, a):
    return _p(ms).DType()(T(ms, a))


@case("P.Fill")
def _(ms):
    return _p(ms).Fill()(ms.float32, (2, 3), 1.5)


@case("P.Softmax", A)
def _(ms, a):
    return _p(ms).Softmax(axis=-1)(T(ms, a))


@case("P.Equal", i32(3, 4), i32(3, 4))
def _(ms, a, b):
    return _p(ms).Equal()(T(ms, a), T(ms, b))


@case("P.Greater", A, B)
def _(ms, a, b):
    return _p(ms).Greater()(T(ms, a), T(ms, b))


@case("P.MatMul.transpose_b", M, f32(5, 4))
def _(ms, a, b):
    return _p(ms).MatMul(transpose_b=True)(T(ms, a), T(ms, b))


@case("P.GatherNd", A, np.array([[0, 1], [1, 2]], np.int32))
def _(ms, a, i):
    return _p(ms).GatherNd()(T(ms, a), T(ms, i))


@case("P.BatchMatMul", A, f32(2, 4, 3))
def _(ms, a, b):
    return _p(ms).BatchMatMul()(T(ms, a), T(ms, b))


@case("P.Sqrt", POS)
def _(ms, a):
    return _p(ms).Sqrt()(T(ms, a))


@case("P.ArgMaxWithValue", A)
def _(ms, a):
    return _p(ms).ArgMaxWithValue(axis=1, keep_dims=False)(T(ms, a))


@case("P.Log", POS)
def _(ms, a):
    return _p(ms).Log()(T(ms, a))


@case("P.Gather", A, np.array([2, 0], np.int32))
def _(ms, a, i):
    return _p(ms).Gather()(T(ms, a), T(ms, i), 1)


@case("P.Exp", A)
def _(ms, a):
    return _p(ms).Exp()(T(ms, a))


@case("P.ZerosLike", A)
def _(ms, a):
    return _p(ms).ZerosLike()(T(ms, a))


@case("P.Pow", POS, B)
def _(ms, a, b):
    return _p(ms).Pow()(T(ms, a), T(ms, b))


@case("P.TopK", f32(3, 6))
def _(ms, a):
    return _p(ms).TopK(sorted=True)(T(ms, a), 3)


@case("P.Maximum", A, B)
def _(ms, a, b):
    return _p(ms).Maximum()(T(ms, a), T(ms, b))


@case("P.Sub", A, B)
def _(ms, a, b):
    return _p(ms).Sub()(T(ms, a), T(ms, b))


@case("P.Minimum", A, B)
def _(ms, a, b):
    return _p(ms).Minimum()(T(ms, a), T(ms, b))


@case("P.LogicalAnd", A > 0, B > 0)
def _(ms, a, b):
    return _p(ms).LogicalAnd()(T(ms, a), T(ms, b))


@case("P.Reciprocal", POS)
def _(ms, a):
    return _p(ms).Reciprocal()(T(ms, a))


@case("P.Less", A, B)
def _(ms, a, b):
    return _p(ms).Less()(T(ms, a), T(ms, b))


@case("P.Stack", M, M * 2)
def _(ms, a, b):
    return _p(ms).Stack(axis=1)((T(ms, a), T(ms, b)))


@case("P.ResizeNearestNeighbor", IMG)
def _(ms, a):
    return _p(ms).ResizeNearestNeighbor((10, 12))(T(ms, a))


@case("P.SigmoidCrossEntropyWithLogits", M, (M > 0).astype(np.float32))
def _(ms, a, b):
    return _p(ms).SigmoidCrossEntropyWithLogits()(T(ms, a), T(ms, b))


@case("P.OnesLike", A)
def _(ms, a):
    return _p(ms).OnesLike()(T(ms, a))


@case("P.RealDiv", A, POS)
def _(ms, a, b):
    return _p(ms).RealDiv()(T(ms, a), T(ms, b))


@case("P.NotEqual", i32(3, 4), i32(3, 4))
def _(ms, a, b):
    return _p(ms).NotEqual()(T(ms, a), T(ms, b))


@case("P.Argmax", A)
def _(ms, a):
    return _p(ms).Argmax(axis=-1)(T(ms, a))


@case("P.Ones")
def _(ms):
    return _p(ms).Ones()((2, 3), ms.int32)


@case("P.GreaterEqual", i32(3, 4), i32(3, 4))
def _(ms, a, b):
    return _p(ms).GreaterEqual()(T(ms, a), T(ms, b))


@case("P.Square", A)
def _(ms, a):
    return _p(ms).Square()(T(ms, a))


@case("P.Slice", A)
def _(ms, a):
    return _p(ms).Slice()(T(ms, a), (0, 1, 1), (2, 2, 2))


@case("P.Div", A, POS)
def _(ms, a, b):
    return _p(ms).Div()(T(ms, a), T(ms, b))


@case("P.Div.int32", i32(6, lo=-7, hi=7), np.array([2, 3, -2, 5, 4, -3], np.int32))
def _(ms, a, b):
    return _p(ms).Div()(T(ms, a), T(ms, b))


@case("P.BroadcastTo", f32(1, 4))
def _(ms, a):
    return _p(ms).BroadcastTo((3, 4))(T(ms, a))


@case("P.LogSoftmax", A)
def _(ms, a):
    return _p(ms).LogSoftmax(axis=1)(T(ms, a))


@case("P.Flatten", A)
def _(ms, a):
    return _p(ms).Flatten()(T(ms, a))


@case("P.ReduceMax", A)
def _(ms, a):
    return _p(ms).ReduceMax(keep_dims=True)(T(ms, a), 1)


@case("P.StridedSlice", A)
def _(ms, a):
    return _p(ms).StridedSlice()(T(ms, a), (0, 0, 3), (2, 3, 0), (1, 2, -1))


@case("P.StridedSlice.masks", A)
def _(ms, a):
    return _p(ms).StridedSlice(begin_mask=1, end_mask=2, shrink_axis_mask=4)(
        T(ms, a), (1, 0, 2), (2, 2, 3), (1, 1, 1))


@case("P.LessEqual", A, B)
def _(ms, a, b):
    return _p(ms).LessEqual()(T(ms, a), T(ms, b))


@case("P.Floor", A * 3)
def _(ms, a):
    return _p(ms).Floor()(T(ms, a))


@case("P.BiasAdd", IMG, f32(3))
def _(ms, a, b):
    return _p(ms).BiasAdd()(T(ms, a), T(ms, b))


@case("P.Tanh", A)
def _(ms, a):
    return _p(ms).Tanh()(T(ms, a))


@case("P.SmoothL1Loss", M, M * 0.3 + 0.5)
def _(ms, a, b):
    return _p(ms).SmoothL1Loss(beta=0.5)(T(ms, a), T(ms, b))


@case("P.L2Normalize", M)
def _(ms, a):
    return _p(ms).L2Normalize(axis=1)(T(ms, a))


@case("P.Abs", A)
def _(ms, a):
    return _p(ms).Abs()(T(ms, a))


@case("P.LogicalNot", A > 0)
def _(ms, a):
    return _p(ms).LogicalNot()(T(ms, a))


@case("P.IOU", np.array([[0, 0, 4, 4], [1, 1, 5, 6]], np.float32),
      np.array([[2, 2, 6, 6], [0, 0, 3, 3], [1, 1, 5, 6]], np.float32))
def _(ms, a, b):
    return _p(ms).IOU()(T(ms, a), T(ms, b))


@case("P.Neg", A)
def _(ms, a):
    return _p(ms).Neg()(T(ms, a))


@case("P.MaxPool.same", IMG)
def _(ms, a):
    return _p(ms).MaxPool(kernel_size=3, strides=2, pad_mode="SAME")(T(ms, a))


@case("P.MaxPool.valid", IMG)
def _(ms, a):
    return _p(ms).MaxPool(kernel_size=2, strides=2, pad_mode="VALID")(T(ms, a))


@case("P.BoundingBoxEncode", np.array([[0, 0, 4, 4], [1, 1, 5, 6]], np.float32),
      np.array([[0.5, 0.5, 4.5, 3.5], [1, 2, 6, 6]], np.float32))
def _(ms, a, b):
    return _p(ms).BoundingBoxEncode(means=(0.0, 0.0, 0.0, 0.0),
                                    stds=(1.0, 1.0, 1.0, 1.0))(T(ms, a), T(ms, b))


@case("P.BoundingBoxDecode", np.array([[0, 0, 4, 4], [1, 1, 5, 6]], np.float32),
      f32(2, 4, lo=-0.2, hi=0.2))
def _(ms, a, b):
    return _p(ms).BoundingBoxDecode(max_shape=(8, 8), means=(0.0, 0.0, 0.0, 0.0),
                                    stds=(1.0, 1.0, 1.0, 1.0))(T(ms, a), T(ms, b))


@case("P.Pad", M)
def _(ms, a):
    return _p(ms).Pad(((1, 2), (0, 1)))(T(ms, a))


@case("P.SoftmaxCrossEntropyWithLogits", LOGITS, np.eye(5, dtype=np.float32)[LABELS])
def _(ms, a, b):
    return _p(ms).SoftmaxCrossEntropyWithLogits()(T(ms, a), T(ms, b))


@case("P.SparseSoftmaxCrossEntropyWithLogits", LOGITS, LABELS)
def _(ms, a, b):
    return _p(ms).SparseSoftmaxCrossEntropyWithLogits()(T(ms, a), T(ms, b))


@case("P.GatherD", M, i32(3, 2, hi=4))
def _(ms, a, i):
    return _p(ms).GatherD()(T(ms, a), 1, T(ms, i))


@case("P.Sort", f32(3, 6))
def _(ms, a):
    return _p(ms).Sort(axis=-1, descending=True)(T(ms, a))


@case("P.ScatterNd", np.array([[0], [2]], np.int32), f32(2, 4))
def _(ms, i, u):
    return _p(ms).ScatterNd()(T(ms, i), T(ms, u), (3, 4))


@case("P.Eye")
def _(ms):
    return _p(ms).Eye()(3, 4, ms.float32)


@case("P.Conv2D.pad", IMG, W33)
def _(ms, x, w):
    return _p(ms).Conv2D(out_channel=4, kernel_size=3, pad_mode="pad", pad=1)(T(ms, x), T(ms, w))


@case("P.Conv2D.same.stride2", IMG, W33)
def _(ms, x, w):
    return _p(ms).Conv2D(out_channel=4, kernel_size=3, pad_mode="same", stride=2)(
        T(ms, x), T(ms, w))


@case("P.Identity", A)
def _(ms, a):
    return _p(ms).Identity()(T(ms, a))


@case("P.Cos", A)
def _(ms, a):
    return _p(ms).Cos()(T(ms, a))


@case("P.ReverseV2", A)
def _(ms, a):
    return _p(ms).ReverseV2(axis=(0, 2))(T(ms, a))


@case("P.Sin", A)
def _(ms, a):
    return _p(ms).Sin()(T(ms, a))


@case("P.Round", np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.3], np.float32))
def _(ms, a):
    return _p(ms).Round()(T(ms, a))


@case("P.AvgPool.same", IMG)
def _(ms, a):
    return _p(ms).AvgPool(kernel_size=3, strides=2, pad_mode="SAME")(T(ms, a))


@case("P.LogicalOr", A > 0, B > 0)
def _(ms, a, b):
    return _p(ms).LogicalOr()(T(ms, a), T(ms, b))


@case("P.Rsqrt", POS)
def _(ms, a):
    return _p(ms).Rsqrt()(T(ms, a))


@case("P.CumSum", M)
def _(ms, a):
    return _p(ms).CumSum(exclusive=True, reverse=True)(T(ms, a), 1)


@case("P.Sign", np.array([-2.0, 0.0, 3.0], np.float32))
def _(ms, a):
    return _p(ms).Sign()(T(ms, a))


@case("P.BinaryCrossEntropy", f32(3, 4, lo=0.05, hi=0.95), (M > 0).astype(np.float32))
def _(ms, a, b):
    return _p(ms).BinaryCrossEntropy(reduction="mean")(T(ms, a), T(ms, b), None)


@case("P.AddN", A, B, A * 2)
def _(ms, a, b, c):
    return _p(ms).AddN()((T(ms, a), T(ms, b), T(ms, c)))


@case("P.Erf", A * 2)
def _(ms, a):
    return _p(ms).Erf()(T(ms, a))


@case("P.FloorDiv", i32(6, lo=-7, hi=7), np.array([2, 3, -2, 5, 4, -3], np.int32))
def _(ms, a, b):
    return _p(ms).FloorDiv()(T(ms, a), T(ms, b))


@case("P.FloorMod", i32(6, lo=-7, hi=7), np.array([2, 3, -2, 5, 4, -3], np.int32))
def _(ms, a, b):
    return _p(ms).FloorMod()(T(ms, a), T(ms, b))


@case("P.UnsortedSegmentSum", M, np.array([0, 2, 0], np.int32))
def _(ms, a, s):
    return _p(ms).UnsortedSegmentSum()(T(ms, a), T(ms, s), 3)


@case("P.GeLU", A * 3)
def _(ms, a):
    return _p(ms).GeLU()(T(ms, a))


@case("P.Softplus", A * 3)
def _(ms, a):
    return _p(ms).Softplus()(T(ms, a))


@case("P.ReduceMin", A)
def _(ms, a):
    return _p(ms).ReduceMin()(T(ms, a), (0, 1))


@case("P.ReduceProd", POS)
def _(ms, a):
    return _p(ms).ReduceProd()(T(ms, a), 2)


@case("P.InvertPermutation")
def _(ms):
    return _p(ms).InvertPermutation()((3, 0, 2, 1))


@case("P.Zeros")
def _(ms):
    return _p(ms).Zeros()((2, 3), ms.float32)


@case("P.CheckValid", np.array([[0, 0, 4, 4], [1, 1, 9, 6], [-1, 0, 3, 3]], np.float32),
      np.array([8, 8, 1], np.float32))
def _(ms, b, m):
    return _p(ms).CheckValid()(T(ms, b), T(ms, m))


@case("P.ScalarToTensor")
def _(ms):
    return _p(ms).ScalarToTensor()(3, ms.float32)


@case("P.MaxPool3D", f32(1, 2, 4, 5, 5))
def _(ms, x):
    return _p(ms).MaxPool3D(kernel_size=2, strides=2, pad_mode="VALID")(T(ms, x))


@case("P.AdaptiveAvgPool2D", IMG)
def _(ms, x):
    return _p(ms).AdaptiveAvgPool2D((3, 2))(T(ms, x))


@case("P.Assign", M, N[:3, :4])
def _(ms, w, v):
    p = ms.Parameter(T(ms, w), name="w")
    _p(ms).Assign()(p, T(ms, v))
    return p.value()


@case("P.AssignAdd", M, N[:3, :4])
def _(ms, w, v):
    p = ms.Parameter(T(ms, w), name="w")
    _p(ms).AssignAdd()(p, T(ms, v))
    return p.value()


@case("P.ScatterNdUpdate", M, np.array([[0], [2]], np.int32), f32(2, 4))
def _(ms, w, i, u):
    p = ms.Parameter(T(ms, w), name="w")
    _p(ms).ScatterNdUpdate()(p, T(ms, i), T(ms, u))
    return p.value()


@case("P.TensorScatterUpdate", M, np.array([[0, 1], [2, 3]], np.int32), f32(2))
def _(ms, w, i, u):
    return _p(ms).TensorScatterUpdate()(T(ms, w), T(ms, i), T(ms, u))


@case("P.ROIAlign", IMG, np.array([[0, 0.5, 0.5, 5.0, 4.5], [1, 1.0, 2.0, 6.0, 6.0]],
                                  np.float32))
def _(ms, x, r):
    return _p(ms).ROIAlign(2, 2, 1.0, 2)(T(ms, x), T(ms, r))


@case("P.NMSWithMask", np.array([[0, 0, 4, 4, 0.9], [0.5, 0.5, 4.5, 4.5, 0.8],
                                 [6, 6, 9, 9, 0.7], [0, 0, 4, 4.2, 0.6]], np.float32))
def _(ms, b):
    return _p(ms).NMSWithMask(0.5)(T(ms, b))


@case("P.Transpose.int64", np.arange(24, dtype=np.int64).reshape(2, 3, 4))
def _(ms, a):
    return _p(ms).Transpose()(T(ms, a), (1, 2, 0))


@case("P.MatMul.transpose_a", f32(4, 3), N)
def _(ms, a, b):
    return _p(ms).MatMul(transpose_a=True)(T(ms, a), T(ms, b))


@case("P.BatchMatMul.transpose_b", A, f32(2, 5, 4))
def _(ms, a, b):
    return _p(ms).BatchMatMul(transpose_b=True)(T(ms, a), T(ms, b))


@case("P.Concat.int32", i32(2, 3), i32(1, 3))
def _(ms, a, b):
    return _p(ms).Concat(0)((T(ms, a), T(ms, b)))


@case("P.Mul.int32", i32(3, 4, lo=-5), i32(3, 4, lo=-5))
def _(ms, a, b):
    return _p(ms).Mul()(T(ms, a), T(ms, b))


@case("P.Cast.int", A * 4)
def _(ms, a):
    return _p(ms).Cast()(T(ms, a), ms.int32)


@case("P.Cast.bool", A)
def _(ms, a):
    return _p(ms).Cast()(T(ms, a), ms.bool_)


@case("P.Tile.int", i32(2, 2))
def _(ms, a):
    return _p(ms).Tile()(T(ms, a), (2, 2))


@case("P.Sigmoid.large", np.array([-100.0, -20.0, 0.0, 20.0, 100.0], np.float32))
def _(ms, a):
    return _p(ms).Sigmoid()(T(ms, a))


@case("P.Softmax.axis0", A)
def _(ms, a):
    return _p(ms).Softmax(axis=0)(T(ms, a))


@case("P.LogSoftmax.large", np.array([[1000.0, 0.0, -1000.0]], np.float32))
def _(ms, a):
    return _p(ms).LogSoftmax()(T(ms, a))


@case("P.Split.uneven_output_num", f32(6, 2))
def _(ms, a):
    return _p(ms).Split(0, 3)(T(ms, a))


@case("P.Pow.scalar", POS)
def _(ms, a):
    return _p(ms).Pow()(T(ms, a), 2.0)


@case("P.Sqrt.neg", np.array([-1.0, 0.0, 4.0], np.float32))
def _(ms, a):
    return _p(ms).Sqrt()(T(ms, a))


@case("P.Log.zero", np.array([0.0, 1.0, -1.0], np.float32))
def _(ms, a):
    return _p(ms).Log()(T(ms, a))


@case("P.RealDiv.by_zero", np.array([1.0, -1.0, 0.0], np.float32))
def _(ms, a):
    return _p(ms).RealDiv()(T(ms, a), T(ms, np.zeros(3, np.float32)))


# ---- functional ops ------------------------------------------------------------------------
@case("F.clip_by_value", A)
def _(ms, a):
    return ms.ops.clip_by_value(T(ms, a), -0.5, 0.25)


@case("F.clip_by_global_norm", M, N)
def _(ms, a, b):
    return ms.ops.clip_by_global_norm((T(ms, a), T(ms, b)), 1.0)


@case("F.norm", M)
def _(ms, a):
    return ms.ops.norm(T(ms, a))


@case("F.interpolate.bilinear", IMG)
def _(ms, a):
    return ms.ops.interpolate(T(ms, a), size=(10, 9), mode="bilinear", align_corners=False)


@case("F.interpolate.nearest", IMG)
def _(ms, a):
    return ms.ops.interpolate(T(ms, a), scale_factor=2.0, mode="nearest",
                              recompute_scale_factor=True)


@case("F.repeat_elements", M)
def _(ms, a):
    return ms.ops.repeat_elements(T(ms, a), rep=2, axis=1)


@case("F.mean", A)
def _(ms, a):
    return ms.ops.mean(T(ms, a), axis=(0, 2), keep_dims=True)


@case("F.arange")
def _(ms):
    return ms.ops.arange(1, 10, 2)


@case("F.arange.float")
def _(ms):
    return ms.ops.arange(0.0, 1.0, 0.25)


@case("F.cat", M, M)
def _(ms, a, b):
    return ms.ops.cat((T(ms, a), T(ms, b)), axis=0)


@case("F.one_hot", LABELS)
def _(ms, a):
    return ms.ops.one_hot(T(ms, a), 6)


@case("F.softmax", A)
def _(ms, a):
    return ms.ops.softmax(T(ms, a), axis=0)


@case("F.gelu.tanh", A * 3)
def _(ms, a):
    return ms.ops.gelu(T(ms, a), approximate="tanh")


@case("F.silu", A * 3)
def _(ms, a):
    return ms.ops.silu(T(ms, a))


@case("F.linspace")
def _(ms):
    return ms.ops.linspace(0.0, 1.0, 5)


@case("F.cumprod", M)
def _(ms, a):
    return ms.ops.cumprod(T(ms, a), 1)


@case("F.logsumexp", M)
def _(ms, a):
    return ms.ops.logsumexp(T(ms, a), 1)


@case("F.cross_entropy", LOGITS, LABELS)
def _(ms, a, b):
    return ms.ops.cross_entropy(T(ms, a), T(ms, b))


@case("F.cross_entropy.label_smoothing", LOGITS, LABELS)
def _(ms, a, b):
    return ms.ops.cross_entropy(T(ms, a), T(ms, b), label_smoothing=0.1)


@case("F.binary_cross_entropy_with_logits", M, (M > 0).astype(np.float32))
def _(ms, a, b):
    w = T(ms, np.ones((3, 4), np.float32))
    return ms.ops.binary_cross_entropy_with_logits(T(ms, a), T(ms, b), w, w)


@case("F.nll_loss", LOGITS, LABELS)
def _(ms, a, b):
    return ms.ops.nll_loss(T(ms, a), T(ms, b))


@case("F.masked_fill", M, M > 0)
def _(ms, a, m):
    return ms.ops.masked_fill(T(ms, a), T(ms, m), 9.0)


@case("F.where", M > 0, M, N[:3, :4])
def _(ms, c, a, b):
    return ms.ops.where(T(ms, c), T(ms, a), T(ms, b))


@case("F.tensor_scatter_elements", M, np.array([[1, 0], [2, 3], [0, 1]], np.int32),
      f32(3, 2))
def _(ms, a, i, u):
    return ms.ops.tensor_scatter_elements(T(ms, a), T(ms, i), T(ms, u), axis=1)


@case("F.gather_elements", M, i32(3, 2, hi=4))
def _(ms, a, i):
    return ms.ops.gather_elements(T(ms, a), 1, T(ms, i))


@case("F.std", A)
def _(ms, a):
    return ms.ops.std(T(ms, a), axis=1)


@case("F.var", A)
def _(ms, a):
    return ms.ops.var(T(ms, a), axis=2, ddof=0)


@case("F.topk", f32(3, 6))
def _(ms, a):
    return ms.ops.topk(T(ms, a), 2, dim=0, largest=False)


@case("F.pad.reflect", IMG)
def _(ms, a):
    return ms.ops.pad(T(ms, a), (1, 2, 2, 1), mode="reflect")


@case("F.dropout.eval", A)
def _(ms, a):
    return ms.ops.dropout(T(ms, a), p=0.5, training=False)


@case("F.argsort", f32(3, 6))
def _(ms, a):
    return ms.ops.argsort(T(ms, a), axis=1)


@case("F.tril", f32(4, 4))
def _(ms, a):
    return ms.ops.tril(T(ms, a), -1)


@case("F.shape", A)
def _(ms, a):
    return ms.ops.shape(T(ms, a))


@case("F.cast", A * 3)
def _(ms, a):
    return ms.ops.cast(T(ms, a), ms.int8)


@case("F.stop_gradient.grad", A)
def _(ms, a):
    return ms.grad(lambda x: (x * ms.ops.stop_gradient(x)).sum())(T(ms, a))


@case("F.expand_dims", M)
def _(ms, a):
    return ms.ops.expand_dims(T(ms, a), -1)


@case("F.concat", M, M)
def _(ms, a, b):
    return ms.ops.concat((T(ms, a), T(ms, b)), 1)


@case("F.scalar_to_tensor")
def _(ms):
    return ms.ops.scalar_to_tensor(2.5)


@case("F.ones_like.int", i32(2, 3))
def _(ms, a):
    return ms.ops.ones_like(T(ms, a))


@case("F.range")
def _(ms):
    return ms.ops.range(0, 10, 3)


@case("F.stack", M, M)
def _(ms, a, b):
    return ms.ops.stack((T(ms, a), T(ms, b)), 2)


@case("F.square.int", i32(4, lo=-3))
def _(ms, a):
    return ms.ops.square(T(ms, a))


@case("F.broadcast_to", f32(3, 1))
def _(ms, a):
    return ms.ops.broadcast_to(T(ms, a), (2, 3, 4))


@case("F.zeros")
def _(ms):
    return ms.ops.zeros((2, 2), ms.int32)


@case("F.ones")
def _(ms):
    return ms.ops.ones((3,))


@case("F.fill")
def _(ms):
    return ms.ops.fill(ms.float32, (2, 2), 3)


@case("F.full")
def _(ms):
    return ms.ops.full((2, 2), 7)


@case("F.select", M > 0, M)
def _(ms, c, a):
    return ms.ops.select(T(ms, c), T(ms, a), 0.0)


@case("F.reduce_sum", A)
def _(ms, a):
    return ms.ops.reduce_sum(T(ms, a), 1)


@case("F.sum.int", i32(3, 4))
def _(ms, a):
    return ms.ops.sum(T(ms, a), 0)


@case("F.split.sizes", f32(5, 2))
def _(ms, a):
    return ms.ops.split(T(ms, a), [2, 3], axis=0)


@case("F.split.int", f32(5, 2))
def _(ms, a):
    return ms.ops.split(T(ms, a), 2)


@case("F.gather", A, np.array([[0, 2], [1, 1]], np.int32))
def _(ms, a, i):
    return ms.ops.gather(T(ms, a), T(ms, i), 2)


@case("F.gather.batch_dims", A, np.array([[0, 2], [1, 1]], np.int32))
def _(ms, a, i):
    return ms.ops.gather(T(ms, a), T(ms, i), 1, batch_dims=1)


@case("F.minimum.broadcast", A, f32(4))
def _(ms, a, b):
    return ms.ops.minimum(T(ms, a), T(ms, b))


@case("F.matmul.batched", A, N)
def _(ms, a, b):
    return ms.ops.matmul(T(ms, a), T(ms, b))


@case("F.matmul.vec", f32(4), N)
def _(ms, a, b):
    return ms.ops.matmul(T(ms, a), T(ms, b))


@case("F.transpose", A)
def _(ms, a):
    return ms.ops.transpose(T(ms, a), (1, 0, 2))


@case("F.reshape", A)
def _(ms, a):
    return ms.ops.reshape(T(ms, a), (3, -1))


@case("F.log_softmax", A)
def _(ms, a):
    return ms.ops.log_softmax(T(ms, a), -1)


@case("F.relu6", A * 8)
def _(ms, a):
    return ms.ops.relu6(T(ms, a))


@case("F.leaky_relu", A)
def _(ms, a):
    return ms.ops.leaky_relu(T(ms, a), 0.1)


@case("F.elu", A)
def _(ms, a):
    return ms.ops.elu(T(ms, a))


@case("F.hardswish", A * 4)
def _(ms, a):
    return ms.ops.hardswish(T(ms, a))


@case("F.mish", A * 3)
def _(ms, a):
    return ms.ops.mish(T(ms, a))


@case("F.softplus", A * 3)
def _(ms, a):
    return ms.ops.softplus(T(ms, a))


@case("F.sort", f32(3, 6))
def _(ms, a):
    return ms.ops.sort(T(ms, a), axis=0)


@case("F.unique.sorted", np.array([3, 1, 3, 2, 1], np.int32))
def _(ms, a):
    return ms.ops.unique(T(ms, a))


@case("F.masked_select", M, M > 0)
def _(ms, a, m):
    return ms.ops.masked_select(T(ms, a), T(ms, m))


@case("F.nonzero", M > 0)
def _(ms, m):
    return ms.ops.nonzero(T(ms, m))


@case("F.isclose", M, M + 1e-6)
def _(ms, a, b):
    return ms.ops.isclose(T(ms, a), T(ms, b))


@case("F.l1_loss", M, N[:3, :4])
def _(ms, a, b):
    return ms.ops.l1_loss(T(ms, a), T(ms, b))


@case("F.mse_loss", M, N[:3, :4])
def _(ms, a, b):
    return ms.ops.mse_loss(T(ms, a), T(ms, b), reduction="sum")


@case("F.smooth_l1_loss", M, N[:3, :4])
def _(ms, a, b):
    return ms.ops.smooth_l1_loss(T(ms, a), T(ms, b), beta=0.5, reduction="mean")


@case("F.kl_div", np.log(f32(3, 4, lo=0.1, hi=1)), f32(3, 4, lo=0.1, hi=1))
def _(ms, a, b):
    return ms.ops.kl_div(T(ms, a), T(ms, b), reduction="sum")


@case("F.conv2d", IMG, W33)
def _(ms, x, w):
    return ms.ops.conv2d(T(ms, x), T(ms, w), stride=1, pad_mode="pad", padding=1)


@case("F.max_pool2d", IMG)
def _(ms, x):
    return ms.ops.max_pool2d(T(ms, x), 3, 2, 1)


@case("F.avg_pool2d.count_include_pad", IMG)
def _(ms, x):
    return ms.ops.avg_pool2d(T(ms, x), 3, 2, 1, count_include_pad=False)


@case("F.avg_pool2d.padding_counted", IMG)
def _(ms, x):
    return ms.ops.avg_pool2d(T(ms, x), 3, 2, 1)


@case("F.avg_pool2d.divisor_override", IMG)
def _(ms, x):
    return ms.ops.avg_pool2d(T(ms, x), 2, 2, 0, divisor_override=3)


@case("nn.AvgPool2d.pad", IMG)
def _(ms, x):
    return ms.nn.AvgPool2d(3, 2, pad_mode="pad", padding=1)(T(ms, x))


@case("nn.AvgPool2d.pad.no_count", IMG)
def _(ms, x):
    return ms.nn.AvgPool2d(3, 2, pad_mode="pad", padding=1, count_include_pad=False)(T(ms, x))


@case("F.adaptive_avg_pool2d", IMG)
def _(ms, x):
    return ms.ops.adaptive_avg_pool2d(T(ms, x), (2, 3))


@case("F.flatten", IMG)
def _(ms, x):
    return ms.ops.flatten(T(ms, x), start_dim=2)


@case("F.flip", M)
def _(ms, a):
    return ms.ops.flip(T(ms, a), (0,))


@case("F.triu", f32(4, 4))
def _(ms, a):
    return ms.ops.triu(T(ms, a), 1)


@case("F.diag", f32(3))
def _(ms, a):
    return ms.ops.diag(T(ms, a))


@case("F.outer", f32(3), f32(4))
def _(ms, a, b):
    return ms.ops.outer(T(ms, a), T(ms, b))


@case("F.meshgrid", f32(3), f32(2))
def _(ms, a, b):
    return ms.ops.meshgrid(T(ms, a), T(ms, b), indexing="ij")


@case("F.linspace.tensor_bounds")
def _(ms):
    return ms.ops.linspace(ms.Tensor(0.0), ms.Tensor(2.0), 5)


@case("F.clip_by_norm", M)
def _(ms, a):
    return ms.ops.clip_by_norm(T(ms, a), 0.5)


@case("F.normalize.l2", M)
def _(ms, a):
    return ms.ops.L2Normalize(axis=0)(T(ms, a))


@case("F.amax", A)
def _(ms, a):
    return ms.ops.amax(T(ms, a), (0, 2))


@case("F.prod", POS)
def _(ms, a):
    return ms.ops.prod(T(ms, a), 1)


@case("F.floor_div.float", A * 4, POS)
def _(ms, a, b):
    return ms.ops.floor_div(T(ms, a), T(ms, b))


@case("F.remainder", A * 4, POS)
def _(ms, a, b):
    return ms.ops.remainder(T(ms, a), T(ms, b))


@case("F.atan2", A, B)
def _(ms, a, b):
    return ms.ops.atan2(T(ms, a), T(ms, b))


@case("F.erfinv", A * 0.9)
def _(ms, a):
    return ms.ops.erfinv(T(ms, a))


@case("F.lgamma", POS)
def _(ms, a):
    return ms.ops.lgamma(T(ms, a))


@case("F.bmm", A, f32(2, 4, 3))
def _(ms, a, b):
    return ms.ops.bmm(T(ms, a), T(ms, b))


@case("F.baddbmm", f32(2, 3, 3), A, f32(2, 4, 3))
def _(ms, c, a, b):
    return ms.ops.baddbmm(T(ms, c), T(ms, a), T(ms, b), beta=0.5, alpha=2.0)


@case("F.batch_norm.train", IMG)
def _(ms, x):
    rm = ms.Parameter(T(ms, np.zeros(3, np.float32)), name="rm")
    rv = ms.Parameter(T(ms, np.ones(3, np.float32)), name="rv")
    w = T(ms, np.ones(3, np.float32))
    b = T(ms, np.zeros(3, np.float32))
    y = ms.ops.batch_norm(T(ms, x), rm, rv, w, b, training=True, momentum=0.1)
    return y, rm.value(), rv.value()


@case("F.dense", M, f32(5, 4), f32(5))
def _(ms, x, w, b):
    return ms.ops.dense(T(ms, x), T(ms, w), T(ms, b))


@case("F.hardtanh", A * 3)
def _(ms, a):
    return ms.ops.hardtanh(T(ms, a), -1.0, 1.0)


@case("F.cdist", f32(2, 3, 4), f32(2, 5, 4))
def _(ms, a, b):
    return ms.ops.cdist(T(ms, a), T(ms, b))


@case("F.cosine_similarity", M, N[:3, :4])
def _(ms, a, b):
    return ms.ops.cosine_similarity(T(ms, a), T(ms, b), dim=1)


# ---- Tensor methods --------------------------------------------------------------------------
@case("Tensor.transpose.2d", M)
def _(ms, a):
    return T(ms, a).transpose(0, 1)


@case("Tensor.astype", A * 5)
def _(ms, a):
    return T(ms, a).astype(ms.int32)


@case("Tensor.sum.int", i32(3, 4))
def _(ms, a):
    return T(ms, a).sum()


@case("Tensor.mean", A)
def _(ms, a):
    return T(ms, a).mean(axis=1)


@case("Tensor.view", A)
def _(ms, a):
    return T(ms, a).view(6, 4)


@case("Tensor.max", A)
def _(ms, a):
    return T(ms, a).max(axis=2)


@case("Tensor.argmax", A)
def _(ms, a):
    return T(ms, a).argmax(axis=1)


@case("Tensor.getitem", A)
def _(ms, a):
    return T(ms, a)[1, :, ::2]


@case("Tensor.getitem.bool", M)
def _(ms, a):
    return T(ms, a)[T(ms, np.array([True, False, True]))]


@case("Tensor.matmul", M, N)
def _(ms, a, b):
    return T(ms, a) @ T(ms, b)


@case("Tensor.std", A)
def _(ms, a):
    return T(ms, a).std()


@case("Tensor.var", A)
def _(ms, a):
    return T(ms, a).var(axis=0)


@case("Tensor.floor_divide.neg", np.array([-7.0, 7.0, -3.5], np.float32),
      np.array([2.0, -2.0, 2.0], np.float32))
def _(ms, a, b):
    return T(ms, a) // T(ms, b)


@case("Tensor.mod.neg", np.array([-7.0, 7.0, -3.5], np.float32),
      np.array([2.0, -2.0, 2.0], np.float32))
def _(ms, a, b):
    return T(ms, a) % T(ms, b)


# ---- dtype promotion of mixed-dtype ops --------------------------------------------------------
@case("promote.int32+float32", i32(3, 4), M)
def _(ms, a, b):
    return T(ms, a) + T(ms, b)


@case("promote.int32+pyfloat", i32(3, 4))
def _(ms, a):
    return T(ms, a) + 1.5


@case("promote.float16+float32", M.astype(np.float16), M)
def _(ms, a, b):
    return T(ms, a) * T(ms, b)


@case("promote.bool+int32", M > 0, i32(3, 4))
def _(ms, a, b):
    return T(ms, a) + T(ms, b)


@case("promote.int32/int32", i32(3, 4, lo=1), i32(3, 4, lo=1))
def _(ms, a, b):
    return T(ms, a) / T(ms, b)


@case("promote.int64*pyint", np.arange(4, dtype=np.int64))
def _(ms, a):
    return T(ms, a) * 3


@case("promote.int32+int64", i32(4), np.arange(4, dtype=np.int64))
def _(ms, a, b):
    return ms.ops.add(T(ms, a), T(ms, b))


@case("promote.float32+float64", M, M.astype(np.float64))
def _(ms, a, b):
    return ms.ops.mul(T(ms, a), T(ms, b))


@case("promote.pyint.Tensor")
def _(ms):
    return ms.Tensor(3)


@case("promote.pyfloat.Tensor")
def _(ms):
    return ms.Tensor([1.5, 2.0])


# ---- nn layers -----------------------------------------------------------------------------------
@case("nn.Dense", M, f32(5, 4), f32(5))
def _(ms, x, w, b):
    net = ms.nn.Dense(4, 5, weight_init=T(ms, w), bias_init=T(ms, b), activation="relu")
    return net(T(ms, x))


def _conv(ms, x, w, **kw):
    net = ms.nn.Conv2d(3, 4, 3, weight_init=T(ms, w), **kw)
    return net(T(ms, x))


@case("nn.Conv2d.same", IMG, W33)
def _(ms, x, w):
    return _conv(ms, x, w, pad_mode="same")


@case("nn.Conv2d.valid.stride2", IMG, W33)
def _(ms, x, w):
    return _conv(ms, x, w, pad_mode="valid", stride=2)


@case("nn.Conv2d.pad.dilation", IMG, W33)
def _(ms, x, w):
    return _conv(ms, x, w, pad_mode="pad", padding=2, dilation=2, has_bias=True,
                 bias_init="zeros")


@case("nn.Conv2d.same.stride2", IMG, W33)
def _(ms, x, w):
    return _conv(ms, x, w, pad_mode="same", stride=2)


@case("nn.BatchNorm2d.train", IMG * 3 + 1)
def _(ms, x):
    bn = ms.nn.BatchNorm2d(3, momentum=0.9)
    bn.set_train(True)
    y = bn(T(ms, x))
    return y, bn.moving_mean.value(), bn.moving_variance.value()


@case("nn.BatchNorm2d.eval", IMG * 3 + 1)
def _(ms, x):
    bn = ms.nn.BatchNorm2d(3, momentum=0.9)
    bn.set_train(True)
    bn(T(ms, x))
    bn.set_train(False)
    return bn(T(ms, x))


@case("nn.BatchNorm1d.train", f32(6, 4) * 2 + 1)
def _(ms, x):
    bn = ms.nn.BatchNorm1d(4)
    bn.set_train(True)
    y = bn(T(ms, x))
    return y, bn.moving_mean.value(), bn.moving_variance.value()


@case("nn.LayerNorm", A * 3)
def _(ms, x):
    return ms.nn.LayerNorm((4,), begin_norm_axis=-1, begin_params_axis=-1)(T(ms, x))


@case("nn.MaxPool2d.ceil_mode", IMG)
def _(ms, x):
    return ms.nn.MaxPool2d(kernel_size=2, stride=2, pad_mode="pad", ceil_mode=True)(T(ms, x))


@case("nn.MaxPool2d.same", IMG)
def _(ms, x):
    return ms.nn.MaxPool2d(kernel_size=3, stride=2, pad_mode="same")(T(ms, x))


@case("nn.AvgPool2d.ceil_mode", IMG)
def _(ms, x):
    return ms.nn.AvgPool2d(kernel_size=2, stride=2, pad_mode="pad", ceil_mode=True)(T(ms, x))


@case("nn.AvgPool2d.valid", IMG)
def _(ms, x):
    return ms.nn.AvgPool2d(kernel_size=3, stride=2)(T(ms, x))


@case("nn.Dropout.eval", A)
def _(ms, x):
    d = ms.nn.Dropout(p=0.3)
    d.set_train(False)
    return d(T(ms, x))


@case("nn.Flatten", IMG)
def _(ms, x):
    return ms.nn.Flatten()(T(ms, x))


@case("nn.GELU", A * 3)
def _(ms, x):
    return ms.nn.GELU()(T(ms, x))


@case("nn.LeakyReLU", A)
def _(ms, x):
    return ms.nn.LeakyReLU(0.2)(T(ms, x))


@case("nn.Softmax", A)
def _(ms, x):
    return ms.nn.Softmax(axis=1)(T(ms, x))


@case("nn.AdaptiveAvgPool2d", IMG)
def _(ms, x):
    return ms.nn.AdaptiveAvgPool2d((1, 1))(T(ms, x))


@case("nn.Embedding", np.array([[1, 3], [0, 2]], np.int32), f32(4, 3))
def _(ms, i, w):
    return ms.nn.Embedding(4, 3, embedding_table=T(ms, w))(T(ms, i))


# ---- losses --------------------------------------------------------------------------------------
@case("nn.MSELoss", M, M * 0.5)
def _(ms, a, b):
    return ms.nn.MSELoss()(T(ms, a), T(ms, b))


@case("nn.L1Loss.sum", M, M * 0.5)
def _(ms, a, b):
    return ms.nn.L1Loss(reduction="sum")(T(ms, a), T(ms, b))


@case("nn.SmoothL1Loss", M, M * 0.5 + 0.7)
def _(ms, a, b):
    return ms.nn.SmoothL1Loss(beta=1.0)(T(ms, a), T(ms, b))


@case("nn.SoftmaxCrossEntropyWithLogits.sparse", LOGITS, LABELS)
def _(ms, a, b):
    return ms.nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")(
        T(ms, a), T(ms, b))


@case("nn.SoftmaxCrossEntropyWithLogits.dense", LOGITS, np.eye(5, dtype=np.float32)[LABELS])
def _(ms, a, b):
    return ms.nn.SoftmaxCrossEntropyWithLogits()(T(ms, a), T(ms, b))


@case("nn.CrossEntropyLoss", LOGITS, LABELS)
def _(ms, a, b):
    return ms.nn.CrossEntropyLoss()(T(ms, a), T(ms, b))


@case("nn.BCEWithLogitsLoss", M, (M > 0).astype(np.float32))
def _(ms, a, b):
    return ms.nn.BCEWithLogitsLoss()(T(ms, a), T(ms, b))


@case("nn.BCELoss", f32(3, 4, lo=0.05, hi=0.95), (M > 0).astype(np.float32))
def _(ms, a, b):
    return ms.nn.BCELoss(reduction="mean")(T(ms, a), T(ms, b))


# ---- one optimizer step on fixed gradients ------------------------------------------------------
def _opt_step(ms, make, w0, g, steps=2):
    p = ms.Parameter(T(ms, w0), name="w")
    opt = make(ms.nn, [p])
    for _ in range(steps):
        opt((T(ms, g),))
    return p.value()


@case("opt.SGD", M, N[:3, :4])
def _(ms, w, g):
    return _opt_step(ms, lambda nn, ps: nn.SGD(ps, learning_rate=0.1), w, g)


@case("opt.SGD.momentum.nesterov.wd", M, N[:3, :4])
def _(ms, w, g):
    return _opt_step(ms, lambda nn, ps: nn.SGD(ps, learning_rate=0.1, momentum=0.9,
                                               nesterov=True, weight_decay=0.01), w, g)


@case("opt.Momentum", M, N[:3, :4])
def _(ms, w, g):
    return _opt_step(ms, lambda nn, ps: nn.Momentum(ps, learning_rate=0.1, momentum=0.9), w, g)


@case("opt.Adam", M, N[:3, :4])
def _(ms, w, g):
    return _opt_step(ms, lambda nn, ps: nn.Adam(ps, learning_rate=0.01), w, g)


@case("opt.AdamWeightDecay", M, N[:3, :4])
def _(ms, w, g):
    return _opt_step(ms, lambda nn, ps: nn.AdamWeightDecay(ps, learning_rate=0.01,
                                                           weight_decay=0.1), w, g)


# ---- gradients -----------------------------------------------------------------------------------
@case("grad.tanh", A)
def _(ms, a):
    return ms.grad(lambda x: ms.ops.tanh(x).sum())(T(ms, a))


@case("grad.softmax_weighted", M, N[:3, :4])
def _(ms, a, w):
    wt = T(ms, w)
    return ms.grad(lambda x: (ms.ops.softmax(x, axis=-1) * wt).sum())(T(ms, a))


@case("grad.matmul.both", M, N)
def _(ms, a, b):
    return ms.grad(lambda x, y: ms.ops.matmul(x, y).sum(), grad_position=(0, 1))(
        T(ms, a), T(ms, b))


@case("grad.log_softmax_nll", LOGITS, LABELS)
def _(ms, a, lab):
    return ms.grad(lambda x: ms.ops.cross_entropy(x, T(ms, lab)))(T(ms, a))


@case("grad.sigmoid_mul", A, B)
def _(ms, a, b):
    return ms.grad(lambda x, y: (ms.ops.sigmoid(x) * y).sum(), grad_position=1)(
        T(ms, a), T(ms, b))


@case("grad.sqrt_div", POS)
def _(ms, a):
    return ms.grad(lambda x: (ms.ops.sqrt(x) / (x + 1.0)).mean())(T(ms, a))


@case("grad.maximum.ties", np.array([1.0, 2.0, 3.0], np.float32),
      np.array([1.0, 1.0, 4.0], np.float32))
def _(ms, a, b):
    return ms.grad(lambda x, y: ms.ops.maximum(x, y).sum(), grad_position=(0, 1))(
        T(ms, a), T(ms, b))


@case("grad.minimum.ties", np.array([1.0, 2.0, 3.0], np.float32),
      np.array([1.0, 1.0, 4.0], np.float32))
def _(ms, a, b):
    return ms.grad(lambda x, y: ms.ops.minimum(x, y).sum(), grad_position=(0, 1))(
        T(ms, a), T(ms, b))


@case("grad.maximum.ties.broadcast", np.array([1.0, 2.0, 3.0], np.float32),
      np.array([2.0], np.float32))
def _(ms, a, b):
    return ms.grad(lambda x, y: ms.ops.maximum(x, y).sum(), grad_position=(0, 1))(
        T(ms, a), T(ms, b))


@case("grad.relu.at0", np.array([-1.0, 0.0, 2.0], np.float32))
def _(ms, a):
    return ms.grad(lambda x: ms.ops.relu(x).sum())(T(ms, a))


@case("grad.abs.at0", np.array([-1.0, 0.0, 2.0], np.float32))
def _(ms, a):
    return ms.grad(lambda x: ms.ops.abs(x).sum())(T(ms, a))


@case("grad.Dense.weights", M, f32(5, 4))
def _(ms, x, w):
    net = ms.nn.Dense(4, 5, weight_init=T(ms, w), bias_init="zeros")
    fn = lambda inp: (net(inp) ** 2).sum()   # noqa: E731
    return ms.grad(fn, grad_position=None, weights=net.trainable_params())(T(ms, x))


# ---- error types for bad inputs -------------------------------------------------------------------
@case("error.reshape_bad_size", A, error=True)
def _(ms, a):
    return _p(ms).Reshape()(T(ms, a), (5, 5))


@case("error.matmul_shapes", M, M, error=True)
def _(ms, a, b):
    return ms.ops.matmul(T(ms, a), T(ms, b))


@case("error.add_shapes", M, N, error=True)
def _(ms, a, b):
    return ms.ops.add(T(ms, a), T(ms, b))


@case("error.concat_ranks", M, A, error=True)
def _(ms, a, b):
    return ms.ops.cat((T(ms, a), T(ms, b)))


@case("error.tensor_bad_data", error=True)
def _(ms):
    return ms.Tensor({"a": 1})


@case("error.transpose_perm", A, error=True)
def _(ms, a):
    return ms.ops.transpose(T(ms, a), (0, 1))


@case("F.squeeze.non1_axis", A)
def _(ms, a):
    return ms.ops.squeeze(T(ms, a), 1)


@case("error.getitem_out_of_range", A, error=True)
def _(ms, a):
    return T(ms, a)[5]


@case("error.dense_in_channels", M, error=True)
def _(ms, a):
    return ms.nn.Dense(3, 2)(T(ms, a))


@case("error.softmax_axis", A, error=True)
def _(ms, a):
    return ms.ops.softmax(T(ms, a), axis=5)


# ---- near issue 12's fixes: tie gradients, clip bounds, pad modes, batch_norm, int dtypes ----
KINKS = np.array([-1.0, -0.5, 0.0, 0.25, 0.5], np.float32)
TIES = np.array([[1.0, 3.0, 3.0, 0.5], [2.0, 2.0, 0.0, 2.0]], np.float32)
ACT_KINKS = np.array([-4.0, -3.0, 0.0, 3.0, 6.0, 7.0], np.float32)


def _g(ms, fn, *xs, pos=0):
    return ms.grad(fn, grad_position=pos)(*[T(ms, x) for x in xs])


@case("grad.clip_by_value.bounds", KINKS)
def _(ms, a):
    return _g(ms, lambda x: ms.ops.clip_by_value(x, -0.5, 0.25).sum(), a)


@case("grad.clip_by_value.min_only", KINKS)
def _(ms, a):
    return _g(ms, lambda x: ms.ops.clip_by_value(x, -0.5).sum(), a)


@case("grad.clip_by_value.tensor_bounds", KINKS, np.float32(-0.5), np.float32(0.25))
def _(ms, a, lo, hi):
    return _g(ms, lambda x, u, v: ms.ops.clip_by_value(x, u, v).sum(), a, lo, hi, pos=(0, 1, 2))


@case("grad.clamp.bounds", KINKS)
def _(ms, a):
    return _g(ms, lambda x: ms.ops.clamp(x, -0.5, 0.25).sum(), a)


@case("grad.clamp.min_only", KINKS)
def _(ms, a):
    return _g(ms, lambda x: ms.ops.clamp(x, -0.5).sum(), a)


@case("grad.clamp.max_only", KINKS)
def _(ms, a):
    return _g(ms, lambda x: ms.ops.clamp(x, None, 0.25).sum(), a)


@case("grad.clamp.tensor_bounds", KINKS, np.full(5, -0.5, np.float32), np.full(5, 0.25, np.float32))
def _(ms, a, lo, hi):
    return _g(ms, lambda x, u, v: ms.ops.clamp(x, u, v).sum(), a, lo, hi, pos=(0, 1, 2))


@case("grad.Tensor.clip.bounds", KINKS)
def _(ms, a):
    return _g(ms, lambda x: x.clip(-0.5, 0.25).sum(), a)


@case("grad.hardtanh.bounds", KINKS)
def _(ms, a):
    return _g(ms, lambda x: ms.ops.hardtanh(x, -0.5, 0.25).sum(), a)


@case("grad.nn.Hardtanh.bounds", KINKS)
def _(ms, a):
    return _g(ms, lambda x: ms.nn.Hardtanh(-0.5, 0.25)(x).sum(), a)


@case("grad.relu6.kinks", ACT_KINKS)
def _(ms, a):
    return _g(ms, lambda x: ms.ops.relu6(x).sum(), a)


@case("grad.nn.ReLU6.kinks", ACT_KINKS)
def _(ms, a):
    return _g(ms, lambda x: ms.nn.ReLU6()(x).sum(), a)


@case("grad.hardsigmoid.kinks", ACT_KINKS)
def _(ms, a):
    return _g(ms, lambda x: ms.ops.hardsigmoid(x).sum(), a)


@case("grad.hardswish.kinks", ACT_KINKS)
def _(ms, a):
    return _g(ms, lambda x: ms.ops.hardswish(x).sum(), a)


@case("F.hardswish.kinks", ACT_KINKS)
def _(ms, a):
    return ms.ops.hardswish(T(ms, a)), ms.ops.hardsigmoid(T(ms, a)), ms.ops.relu6(T(ms, a))


@case("grad.maximum.scalar_tie", np.array([1.0, 2.0, 0.5], np.float32))
def _(ms, a):
    return _g(ms, lambda x: ms.ops.maximum(x, 1.0).sum(), a)


@case("grad.P.Minimum.ties", TIES, TIES[:, :1])
def _(ms, a, b):
    return _g(ms, lambda x, y: _p(ms).Minimum()(x, y).sum(), a, b, pos=(0, 1))


@case("grad.P.ReduceMax.ties", TIES)
def _(ms, a):
    return _g(ms, lambda x: _p(ms).ReduceMax(keep_dims=True)(x, 1).sum(), a)


@case("grad.amax.ties", TIES)
def _(ms, a):
    return _g(ms, lambda x: ms.ops.amax(x, 1).sum(), a)


@case("grad.amin.all.ties", TIES)
def _(ms, a):
    return _g(ms, lambda x: ms.ops.amin(x), a)


@case("grad.ops.max.axis.ties", TIES)
def _(ms, a):
    return _g(ms, lambda x: ms.ops.max(x, 1)[0].sum(), a)


@case("grad.ops.max.all.ties", TIES)
def _(ms, a):
    return _g(ms, lambda x: ms.ops.max(x)[0], a)


@case("grad.ops.min.axis.ties", TIES)
def _(ms, a):
    return _g(ms, lambda x: ms.ops.min(x, 0, True)[0].sum(), a)


@case("grad.Tensor.max.axis.ties", TIES)
def _(ms, a):
    return _g(ms, lambda x: x.max(axis=1).sum(), a)


@case("grad.Tensor.max.all.ties", TIES)
def _(ms, a):
    return _g(ms, lambda x: x.max(), a)


@case("grad.ArgMaxWithValue.ties", TIES)
def _(ms, a):
    return _g(ms, lambda x: _p(ms).ArgMaxWithValue(axis=1)(x)[1].sum(), a)


@case("grad.ArgMinWithValue.ties", TIES)
def _(ms, a):
    return _g(ms, lambda x: _p(ms).ArgMinWithValue(axis=0, keep_dims=True)(x)[1].sum(), a)


@case("F.max.axis.values", TIES)
def _(ms, a):
    return ms.ops.max(T(ms, a), 1), ms.ops.min(T(ms, a), 0, True), T(ms, a).max(axis=0,
                                                                          return_indices=True)


for _dt_name in ("int8", "int64", "bool_"):   # (int16/uint8: host-only dtypes in msmlir)
    @case(f"F.sum.{_dt_name}", (np.arange(12) % 3).reshape(3, 4).astype(_dt_name))
    def _(ms, a):
        return ms.ops.sum(T(ms, a)), T(ms, a).sum(axis=1), _p(ms).ReduceSum()(T(ms, a), 0)


@case("F.prod.int", i32(3, 4, lo=1, hi=4))
def _(ms, a):
    return ms.ops.prod(T(ms, a)), T(ms, a).prod(0)


@case("F.argmax.dtypes", A)
def _(ms, a):
    t = T(ms, a)
    return (ms.ops.argmax(t), ms.ops.argmax(t, 2, True), ms.ops.argmin(t, 1), t.argmin(axis=0),
            _p(ms).Argmax()(t), _p(ms).Argmin(axis=1)(t), t.argmax())


_PAD3 = np.arange(2 * 3 * 5, dtype=np.float32).reshape(2, 3, 5)
_PAD4 = f32(2, 2, 4, 5)
for _mode in ("reflect", "replicate", "circular"):
    for _nm, _x, _p4 in (("3d", _PAD3, (1, 2)), ("3d.2dims", _PAD3, (2, 1, 1, 2)),
                         ("4d", _PAD4, (1, 2, 2, 1)), ("3d.crop", _PAD3, (-1, 2))):
        @case(f"F.pad.{_mode}.{_nm}", _x)
        def _(ms, a, _mode=_mode, _p4=_p4):
            return ms.ops.pad(T(ms, a), _p4, mode=_mode)

    @case(f"grad.pad.{_mode}", _PAD4[:, :, :, :4], np.arange(7, dtype=np.float32))
    def _(ms, a, w, _mode=_mode):
        return _g(ms, lambda x: (ms.ops.pad(x, (2, 1), mode=_mode) * T(ms, w)).sum(), a[0])


@case("F.pad.replicate.5d", f32(1, 2, 3, 4, 5))
def _(ms, a):
    return ms.ops.pad(T(ms, a), (1, 1, 1, 2, 1, 1), mode="replicate")


@case("F.pad.circular.big", _PAD3)
def _(ms, a):
    return ms.ops.pad(T(ms, a), (5, 4), mode="circular")


@case("error.pad_reflect_size", _PAD3, error=True)
def _(ms, a):
    return ms.ops.pad(T(ms, a), (5, 1), mode="reflect")


@case("error.pad_reflect_rank", f32(3, 5), error=True)
def _(ms, a):
    return ms.ops.pad(T(ms, a), (1, 1, 1, 1), mode="reflect")


@case("error.pad_reflect_5d", f32(1, 2, 3, 4, 5), error=True)
def _(ms, a):
    return ms.ops.pad(T(ms, a), (1, 1, 1, 1, 1, 1), mode="reflect")


@case("error.pad_odd", _PAD3, error=True)
def _(ms, a):
    return ms.ops.pad(T(ms, a), (1, 2, 1), mode="replicate")


def _bn_stats(ms, x, momentum, param=True, training=True):
    c = x.shape[1]
    wrap = (lambda v, n: ms.Parameter(T(ms, v), name=n)) if param else (lambda v, n: T(ms, v))
    rm = wrap(np.full(c, 0.5, np.float32), "rm")
    rv = wrap(np.full(c, 2.0, np.float32), "rv")
    w = T(ms, np.linspace(0.5, 1.5, c).astype(np.float32))
    b = T(ms, np.linspace(-0.2, 0.2, c).astype(np.float32))
    y = ms.ops.batch_norm(T(ms, x), rm, rv, w, b, training=training, momentum=momentum)
    return (y, rm.value(), rv.value()) if param else (y, rm, rv)


@case("F.batch_norm.train.2d", f32(6, 4) * 2 + 1)
def _(ms, x):
    return _bn_stats(ms, x, 0.3)


@case("F.batch_norm.train.tensors", IMG * 2 - 0.5)
def _(ms, x):
    return _bn_stats(ms, x, 0.25, param=False)


@case("F.batch_norm.eval", IMG * 2 - 0.5)
def _(ms, x):
    return _bn_stats(ms, x, 0.25, training=False)


@case("nn.BatchNorm2d.momentum", IMG * 3 + 1, f32(2, 3, 7, 7))
def _(ms, x, x2):
    bn = ms.nn.BatchNorm2d(3, momentum=0.8)
    bn.set_train(True)
    bn(T(ms, x))
    bn(T(ms, x2))
    bn.set_train(False)
    return bn(T(ms, x)), bn.moving_mean.value(), bn.moving_variance.value()


@case("Tensor.requires_grad_", M)
def _(ms, a):
    t = T(ms, a)
    p = ms.Parameter(T(ms, a), name="p")
    p.requires_grad_(False)
    return t.requires_grad_(False), p.requires_grad


@case("Tensor.dlpack.roundtrip", A)
def _(ms, a):
    u = ms.Tensor.from_dlpack(T(ms, a).to_dlpack())
    return u, u.dtype, type(T(ms, a).to_dlpack()).__name__


@case("P.Squeeze.non1_axis", A)
def _(ms, a):
    return _p(ms).Squeeze(1)(T(ms, a))


@case("P.Tile.short_multiples", A)
def _(ms, a):
    return _p(ms).Tile()(T(ms, a), (2,))


# error types of the most used ops on bad shapes / axes
_BAD = {
    "error.P.MatMul_shapes": (lambda ms, a, b: _p(ms).MatMul()(T(ms, a), T(ms, b)), M, M),
    "error.P.BatchMatMul_shapes": (lambda ms, a, b: _p(ms).BatchMatMul()(T(ms, a), T(ms, b)),
                                   A, A),
    "error.bmm_shapes": (lambda ms, a, b: ms.ops.bmm(T(ms, a), T(ms, b)), A, A),
    "error.matmul_1d": (lambda ms, a, b: ms.ops.matmul(T(ms, a), T(ms, b)), M[0], M[0, :3]),
    "error.mul_shapes": (lambda ms, a, b: ms.ops.mul(T(ms, a), T(ms, b)), M, N),
    "error.P.Sub_shapes": (lambda ms, a, b: _p(ms).Sub()(T(ms, a), T(ms, b)), M, N),
    "error.div_shapes": (lambda ms, a, b: ms.ops.div(T(ms, a), T(ms, b)), M, N),
    "error.equal_shapes": (lambda ms, a, b: ms.ops.equal(T(ms, a), T(ms, b)), M, N),
    "error.maximum_shapes": (lambda ms, a, b: ms.ops.maximum(T(ms, a), T(ms, b)), M, N),
    "error.P.Concat_dims": (lambda ms, a, b: _p(ms).Concat(0)((T(ms, a), T(ms, b))), M, N),
    "error.stack_shapes": (lambda ms, a, b: ms.ops.stack((T(ms, a), T(ms, b))), M, N),
    "error.P.ReduceSum_axis": (lambda ms, a: _p(ms).ReduceSum()(T(ms, a), 3), A),
    "error.mean_axis": (lambda ms, a: ms.ops.mean(T(ms, a), 4), A),
    "error.P.ExpandDims_axis": (lambda ms, a: _p(ms).ExpandDims()(T(ms, a), 5), A),
    "error.split_uneven": (lambda ms, a: _p(ms).Split(1, 2)(T(ms, a)), A),
    "error.P.Gather_axis": (lambda ms, a: _p(ms).Gather()(T(ms, a), T(ms, LABELS[:2]), 3), A),
    "error.broadcast_to": (lambda ms, a: ms.ops.broadcast_to(T(ms, a), (3, 5)), M),
    "error.select_shapes": (lambda ms, a, b: ms.ops.select(T(ms, a) > 0, T(ms, a), T(ms, b)), M, N),
    "error.P.Conv2D_channels": (lambda ms, x, w: _p(ms).Conv2D(4, 3)(T(ms, x), T(ms, w)),
                                IMG, f32(4, 2, 3, 3)),
    "error.matmul_batch_broadcast": (lambda ms, a, b: ms.ops.matmul(T(ms, a), T(ms, b)),
                                     A, f32(3, 4, 5)),
    "error.matmul_vec_mat": (lambda ms, a, b: ms.ops.matmul(T(ms, a), T(ms, b)), M[0], M),
    "error.reshape_two_minus1": (lambda ms, a: ms.ops.reshape(T(ms, a), (-1, -1)), A),
    "error.P.OneHot_float": (lambda ms, a: _p(ms).OneHot()(T(ms, a), 3, T(ms, np.float32(1)),
                                                             T(ms, np.float32(0))), M),
    "error.GatherNd_depth": (lambda ms, a: ms.ops.gather_nd(T(ms, a), T(ms, np.zeros((2, 4), np.int32))), A),
}
for _name, (_fn, *_ins) in _BAD.items():
    case(_name, *_ins, error=True)(_fn)


# ---- flattening results (shared by the recorder and the replay) ----------------------------------
def flatten(ms, out):
    """(structure, leaves): structure is a nested list of leaf indices ("x" for one leaf),
    each leaf ('tensor', ndarray) / ('scalar', ndarray) / ('other', normalized str)."""
    leaves = []

    def go(o):
        if isinstance(o, ms.Tensor):
            leaves.append(("tensor", np.array(o.asnumpy())))
        elif isinstance(o, (tuple, list)):
            return [go(e) for e in o]
        elif isinstance(o, (bool, int, float, np.generic)):
            leaves.append(("scalar", np.asarray(o)))
        else:
            leaves.append(("other", str(o).lower()))
        return len(leaves) - 1
    return go(out), leaves


def builtin_base(exc_type):
    """The first built-in exception class in exc_type's MRO (TypeError, ValueError, ...)."""
    for k in exc_type.__mro__:
        if k.__module__ == "builtins":
            return k.__name__
    return "Exception"
