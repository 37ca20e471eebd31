"""The one tensor-method table (msmlir/ops/tensor_methods.py), in both modes.

Every entry of the table is called on an msmlir.Tensor in PyNative and on the
same data inside `msmlir.jit` (a TensorValue); both must agree (and with numpy
where a reference is given), and the jitted call must compile to mindir ops,
never to a JIT Fallback host callback.
"""
import warnings

import numpy as np
import pytest

import msmlir as ms
from msmlir.frontend.values import TensorValue
from msmlir.ops.tensor_methods import METHODS

RNG = np.random.default_rng(0)
F = (RNG.uniform(0.1, 0.9, (2, 3))).astype(np.float32)          # in (0, 1): log, sqrt, ... defined
G = (RNG.uniform(-2, 2, (2, 3))).astype(np.float32)
B = F > 0.5
C = G > 0
I32 = np.array([[3, -4, 5], [-6, 7, 8]], np.int32)
IDX = np.array([2, 0], np.int32)
SH = np.array([[0, 1, 2], [3, 30, 5]], np.int32)                   # shift amounts in [0, 32)
S1 = F.reshape(2, 1, 3)

# name -> (input, args, kwargs, numpy reference or None). Arrays among args are
# passed as tensors (jit arguments / Tensors); other args are Python constants.
CASES = {
    "__add__": (F, (G,), {}, lambda x, o: x + o), "__radd__": (F, (2.0,), {}, lambda x, o: o + x),
    "__sub__": (F, (G,), {}, lambda x, o: x - o), "__rsub__": (F, (2.0,), {}, lambda x, o: o - x),
    "__mul__": (F, (0.5,), {}, lambda x, o: x * o), "__rmul__": (F, (G,), {}, lambda x, o: o * x),
    "__truediv__": (F, (G,), {}, lambda x, o: x / o),
    "__rtruediv__": (F, (3.0,), {}, lambda x, o: o / x),
    "__floordiv__": (I32, (2,), {}, lambda x, o: x // o),
    "__rfloordiv__": (I32, (7,), {}, lambda x, o: o // x),
    "__mod__": (I32, (3,), {}, lambda x, o: x % o), "__rmod__": (I32, (7,), {}, lambda x, o: o % x),
    "__pow__": (F, (2.0,), {}, lambda x, o: x ** o), "__rpow__": (F, (2.0,), {}, lambda x, o: o ** x),
    "__matmul__": (F, (G.T.copy(),), {}, lambda x, o: x @ o),
    "__rmatmul__": (F, (G.T.copy(),), {}, lambda x, o: o @ x),
    "__neg__": (G, (), {}, np.negative), "__pos__": (G, (), {}, lambda x: x),
    "__abs__": (G, (), {}, np.abs),
    "__lt__": (F, (G,), {}, np.less), "__le__": (F, (G,), {}, np.less_equal),
    "__gt__": (F, (G,), {}, np.greater), "__ge__": (F, (G,), {}, np.greater_equal),
    "__eq__": (I32, (3,), {}, np.equal), "__ne__": (I32, (3,), {}, np.not_equal),
    "__and__": (B, (C,), {}, np.logical_and), "__rand__": (B, (C,), {}, np.logical_and),
    "__or__": (B, (C,), {}, np.logical_or), "__ror__": (B, (C,), {}, np.logical_or),
    "__xor__": (B, (C,), {}, np.logical_xor), "__rxor__": (B, (C,), {}, np.logical_xor),
    "__invert__": (B, (), {}, np.logical_not),
    "invert": (I32, (), {}, np.invert), "bitwise_not": (I32, (), {}, np.invert),
    "bitwise_and": (I32, (SH,), {}, np.bitwise_and), "bitwise_or": (I32, (SH,), {}, np.bitwise_or),
    "bitwise_xor": (I32, (SH,), {}, np.bitwise_xor),
    "__lshift__": (I32, (SH,), {}, np.left_shift),
    "bitwise_left_shift": (I32, (SH,), {}, np.left_shift),
    "__rlshift__": (SH, (I32,), {}, lambda x, o: np.left_shift(o, x)),
    "__rshift__": (I32, (SH,), {}, np.right_shift),
    "bitwise_right_shift": (I32, (SH,), {}, np.right_shift),
    "__rrshift__": (SH, (I32,), {}, lambda x, o: np.right_shift(o, x)),
    "__divmod__": (I32, (3,), {}, divmod), "__rdivmod__": (I32, (7,), {}, lambda x, o: divmod(o, x)),
    "__round__": (G * 3, (), {}, np.round),
    "__getitem__": (F, ((slice(None), 1),), {}, lambda x, i: x[i]),
    "add": (F, (G,), {}, np.add), "sub": (F, (G,), {}, np.subtract),
    "subtract": (F, (G,), {}, np.subtract), "mul": (F, (G,), {}, np.multiply),
    "multiply": (F, (G,), {}, np.multiply), "div": (F, (G,), {}, np.divide),
    "divide": (F, (G,), {}, np.divide), "true_divide": (F, (G,), {}, np.divide),
    "floor_divide": (I32, (2,), {}, np.floor_divide), "remainder": (I32, (3,), {}, np.remainder),
    "pow": (F, (3.0,), {}, np.power), "matmul": (F, (G.T.copy(),), {}, np.matmul),
    "maximum": (F, (G,), {}, np.maximum), "minimum": (F, (G,), {}, np.minimum),
    "less": (F, (G,), {}, np.less), "lt": (F, (G,), {}, np.less),
    "less_equal": (F, (G,), {}, np.less_equal), "le": (F, (G,), {}, np.less_equal),
    "greater": (F, (G,), {}, np.greater), "gt": (F, (G,), {}, np.greater),
    "greater_equal": (F, (G,), {}, np.greater_equal), "ge": (F, (G,), {}, np.greater_equal),
    "equal": (I32, (3,), {}, np.equal), "eq": (I32, (3,), {}, np.equal),
    "not_equal": (I32, (3,), {}, np.not_equal), "ne": (I32, (3,), {}, np.not_equal),
    "logical_and": (B, (C,), {}, np.logical_and), "logical_or": (B, (C,), {}, np.logical_or),
    "logical_xor": (B, (C,), {}, np.logical_xor),
    "neg": (G, (), {}, np.negative), "negative": (G, (), {}, np.negative),
    "abs": (G, (), {}, np.abs), "absolute": (G, (), {}, np.abs),
    "exp": (G, (), {}, np.exp), "log": (F, (), {}, np.log), "log1p": (F, (), {}, np.log1p),
    "expm1": (G, (), {}, np.expm1), "sqrt": (F, (), {}, np.sqrt),
    "rsqrt": (F, (), {}, lambda x: 1 / np.sqrt(x)), "square": (G, (), {}, np.square),
    "tanh": (G, (), {}, np.tanh), "sigmoid": (G, (), {}, lambda x: 1 / (1 + np.exp(-x))),
    "relu": (G, (), {}, lambda x: np.maximum(x, 0)), "sign": (G, (), {}, np.sign),
    "floor": (G, (), {}, np.floor), "ceil": (G, (), {}, np.ceil), "round": (G * 3, (), {}, np.round),
    "trunc": (G, (), {}, np.trunc), "reciprocal": (G, (), {}, np.reciprocal),
    "sin": (G, (), {}, np.sin), "cos": (G, (), {}, np.cos), "erf": (G, (), {}, None),
    "isnan": (G, (), {}, np.isnan), "isinf": (G, (), {}, np.isinf),
    "isfinite": (G, (), {}, np.isfinite), "logical_not": (B, (), {}, np.logical_not),
    "stop_gradient": (G, (), {}, lambda x: x),
    "clip": (G, (-0.5, 0.5), {}, np.clip), "clamp": (G, (), {"min": -0.5, "max": 0.5},
                                                     lambda x, min, max: np.clip(x, min, max)),
    "softmax": (G, (), {}, lambda x: np.exp(x) / np.exp(x).sum(-1, keepdims=True)),
    "reshape": (F, (3, 2), {}, lambda x, *s: x.reshape(s)),
    "view": (F, ((3, 2),), {}, lambda x, s: x.reshape(s)),
    "view_as": (F, (G.reshape(3, 2),), {}, lambda x, o: x.reshape(o.shape)),
    "transpose": (F, (), {}, np.transpose),
    "permute": (F, (1, 0), {}, lambda x, *axes: np.transpose(x, axes)),
    "T": (F, None, {}, np.transpose),
    "swapaxes": (F, (0, 1), {}, np.swapaxes),
    "flatten": (F, (), {}, np.ravel), "ravel": (F, (), {}, np.ravel),
    "squeeze": (S1, (1,), {}, np.squeeze), "expand_dims": (F, (0,), {}, np.expand_dims),
    "unsqueeze": (F, (1,), {}, np.expand_dims),
    "broadcast_to": (F[:1], ((4, 3),), {}, np.broadcast_to),
    "expand_as": (F[:1], (np.zeros((4, 3), np.float32),), {}, lambda x, o: np.broadcast_to(x, o.shape)),
    "tile": (F, ((2, 1),), {}, np.tile),
    "gather": (F, (IDX, 1), {}, lambda x, i, a: np.take(x, i, axis=a)),
    "astype": (F, (ms.int32,), {}, lambda x, d: x.astype(np.int32)),
    "to": (F, (ms.float16,), {}, lambda x, d: x.astype(np.float16)),
    "float": (I32, (), {}, lambda x: x.astype(np.float32)),
    "half": (F, (), {}, lambda x: x.astype(np.float16)),
    "double": (F, (), {}, lambda x: x.astype(np.float64)),
    "int": (F * 10, (), {}, lambda x: x.astype(np.int32)),
    "long": (I32, (), {}, lambda x: x.astype(np.int64)),
    "bool": (I32, (), {}, lambda x: x.astype(bool)),
    "sum": (F, (1,), {}, lambda x, a: x.sum(a)), "mean": (F, (0,), {}, lambda x, a: x.mean(a)),
    "prod": (F, (), {}, np.prod),
    "max": (G, (), {"axis": 1, "return_indices": True},
            lambda x, axis, return_indices: (x.max(axis), x.argmax(axis))),
    "amax": (G, (0,), {}, lambda x, a: x.max(a)),
    "min": (G, (), {"axis": 0, "keepdims": True}, lambda x, axis, keepdims: x.min(axis, keepdims=True)),
    "amin": (G, (), {}, np.min),
    "argmax": (G, (1,), {}, lambda x, a: x.argmax(a)), "argmin": (G, (0,), {}, lambda x, a: x.argmin(a)),
    "all": (B, (1,), {}, lambda x, a: x.all(a)), "any": (B, (), {}, np.any),
    "var": (G, (), {"axis": 1, "ddof": 1}, lambda x, axis, ddof: x.var(axis, ddof=ddof)),
    "std": (G, (), {}, np.std),
    "sort": (G, (), {}, lambda x: (np.sort(x), np.argsort(x))), "argsort": (G, (1,), {}, lambda x, a: np.argsort(x, a)),
    "topk": (G, (2,), {}, lambda x, k: (-np.sort(-x, -1)[..., :k], np.argsort(-x, -1)[..., :k])),
}


def _flat(v):
    if isinstance(v, (tuple, list)):
        return [e for x in v for e in _flat(x)]
    return [np.asarray(v.asnumpy() if hasattr(v, "asnumpy") else v)]


def _close(got, want, name):
    g, w = _flat(got), _flat(want)
    assert len(g) == len(w), name
    for a, b in zip(g, w):
        assert a.shape == b.shape, (name, a.shape, b.shape)
        np.testing.assert_allclose(a.astype(np.float64), b.astype(np.float64), rtol=2e-3,
                                   atol=2e-3, err_msg=name)


def _call(x, name, args, kwargs):
    if args is None:                       # an attribute (property)
        return getattr(x, name)
    return getattr(x, name)(*args, **kwargs)


def test_every_entry_has_a_case():
    # the DELEGATED entries (implemented in layer 5, msmlir/ops/tensor_extra.py) have their
    # cases in test/python/compat/test_tensor_methods_extra.py
    from msmlir.ops.tensor_methods import DELEGATED
    assert sorted(set(METHODS) - set(CASES) - set(DELEGATED)) == []
    assert sorted(set(CASES) - set(METHODS)) == []


def test_the_table_is_installed_on_both_classes():
    for name, m in METHODS.items():
        assert TensorValue.__dict__[name] is m.fn, name
        assert name in ms.Tensor.__dict__ or name == "__getitem__", name   # Tensor's own getitem


@pytest.mark.parametrize("name", sorted(CASES))
def test_method_in_pynative_and_jit(name):
    data, args, kwargs, ref = CASES[name]
    tensor_args = None if args is None else [ms.Tensor(a) if isinstance(a, np.ndarray) else a
                                              for a in args]
    eager = _call(ms.Tensor(data), name, tensor_args, kwargs)

    positions = [] if args is None else [i for i, a in enumerate(args) if isinstance(a, np.ndarray)]

    @ms.jit
    def graph(x, *arrays):
        if args is None:
            return _call(x, name, None, kwargs)
        a = list(args)
        for i, v in zip(positions, arrays):
            a[i] = v
        return _call(x, name, a, kwargs)

    arrays = [args[i] for i in positions]
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # no FallbackWarning: it compiles
        text = graph.lower(data, *arrays)
        compiled = graph(data, *arrays)
    assert "host_callback" not in text, name
    _close(compiled, eager, name)
    if ref is not None:
        want = ref(data) if args is None else ref(data, *args, **kwargs)
        _close(eager, want, name)
