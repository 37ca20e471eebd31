"""The mindspore.numpy functions of msmlir/numpy/extras.py against numpy."""
import numpy as onp
import pytest

import msmlir as ms
import msmlir.numpy as mnp

RS = onp.random.RandomState(8)
X = RS.randn(3, 4).astype(onp.float32)
V = RS.randn(6).astype(onp.float32)


def _cmp(got, ref):
    if isinstance(ref, (tuple, list)):
        assert len(got) == len(ref)
        for g, r in zip(got, ref):
            _cmp(g, r)
        return
    got = got.asnumpy() if hasattr(got, "asnumpy") else onp.asarray(got)
    ref = onp.asarray(ref)
    assert got.shape == ref.shape, (got.shape, ref.shape)
    onp.testing.assert_allclose(got.astype(onp.float64), ref.astype(onp.float64), rtol=2e-5,
                                atol=2e-5)


CASES = [
    ("bartlett", (7,), {}), ("blackman", (6,), {}), ("hamming", (5,), {}), ("hanning", (8,), {}),
    ("tril_indices", (4,), {"k": 1}), ("triu_indices", (3, 0, 4), {}),
    ("tril_indices_from", (X,), {}), ("triu_indices_from", (X, 1), {}),
    ("diag_indices", (3,), {}), ("geomspace", (1, 1000, 4), {}),
    ("vander", (V[:4],), {}), ("vander", (V[:3], 4), {"increasing": True}),
    ("polyadd", (onp.float32([1, 2]), onp.float32([3, 4, 5])), {}),
    ("polysub", (onp.float32([1, 2, 3]), onp.float32([3, 4])), {}),
    ("polymul", (onp.float32([1, 2, 3]), onp.float32([3, 4])), {}),
    ("polyval", (onp.float32([1, -2, 3]), V), {}),
    ("polyder", (onp.float32([4, 3, 2, 1]),), {"m": 2}),
    ("polyint", (onp.float32([3, 2, 1]),), {}),
    ("digitize", (V, onp.float32([-1, 0, 1])), {}),
    ("digitize", (V, onp.float32([-1, 0, 1])), {"right": True}),
    ("interp", (V, onp.float32([-1, 0, 2]), onp.float32([0, 1, -1])), {}),
    ("convolve", (V, onp.float32([1, 0.5, -1])), {}),
    ("convolve", (V, onp.float32([1, 0.5, -1])), {"mode": "same"}),
    ("convolve", (V, onp.float32([1, 0.5, -1])), {"mode": "valid"}),
    ("correlate", (V, onp.float32([1, 0.5])), {}),
    ("correlate", (V, onp.float32([1, 0.5, 2])), {"mode": "full"}),
    ("histogram", (V, 4), {}),
    ("histogram", (V, 3), {"range": (-1, 1)}),
    ("histogram_bin_edges", (V, 5), {}),
    ("gradient", (V,), {}), ("gradient", (X, 2.0), {}), ("gradient", (X,), {"axis": 1}),
    ("unwrap", (onp.float32([0, 3, 6.5, 0.5, -3, 2]),), {}),
    ("ravel_multi_index", ((onp.int32([0, 2, 1]), onp.int32([3, 1, 0])), (3, 4)), {}),
]


def _np(name):
    return getattr(onp, name)


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_numpy_function(case):
    name, args, kwargs = case
    ref = _np(name)(*args, **kwargs)
    if name == "histogram":
        ref = (ref[0], ref[1])
    tensors = [ms.Tensor(a) if isinstance(a, onp.ndarray) else
               tuple(ms.Tensor(e) for e in a) if isinstance(a, tuple) and a and
               isinstance(a[0], onp.ndarray) else a for a in args]
    _cmp(getattr(mnp, name)(*tensors, **kwargs), ref)


def test_grids_ix_random_and_helpers():
    _cmp(mnp.mgrid[0:2, 0:3], onp.mgrid[0:2, 0:3])
    _cmp(mnp.ogrid[0:3, 1:2], tuple(onp.ogrid[0:3, 1:2]))
    _cmp(mnp.mgrid[0:1:5j], onp.mgrid[0:1:5j])
    _cmp(mnp.ix_(ms.Tensor(onp.int32([0, 2])), ms.Tensor(onp.int32([1, 2, 3]))),
         onp.ix_(onp.int32([0, 2]), onp.int32([1, 2, 3])))
    r = mnp.rand(2000).asnumpy()
    assert r.min() >= 0 and r.max() < 1 and abs(r.mean() - 0.5) < 0.05
    n = mnp.randn(3, 1000).asnumpy()
    assert n.shape == (3, 1000) and abs(n.std() - 1) < 0.06
    i = mnp.randint(2, 5, (3000,)).asnumpy()
    assert i.dtype == onp.int32 and i.min() == 2 and i.max() == 4
    assert mnp.promote_types(ms.int8, ms.float16) == ms.float16
    assert mnp.result_type(ms.Tensor(onp.int32([1])), 1.0) == ms.float32
    assert mnp.array_str(ms.Tensor(onp.float32([1, 2]))) == onp.array_str(onp.float32([1, 2]))
    _cmp(mnp.norm(ms.Tensor(X)), onp.linalg.norm(X))
    _cmp(mnp.piecewise(ms.Tensor(V), [ms.Tensor(V < 0), ms.Tensor(V >= 0)],
                       [lambda t: -t, lambda t: t * 2]),
         onp.piecewise(V, [V < 0, V >= 0], [lambda t: -t, lambda t: t * 2]))
    _cmp(mnp.apply_along_axis(lambda r: r.sum(), 1, ms.Tensor(X)),
         onp.apply_along_axis(lambda r: r.sum(), 1, X))
    _cmp(mnp.apply_over_axes(mnp.sum, ms.Tensor(X), [0, 1]),
         onp.apply_over_axes(onp.sum, X, [0, 1]))

    @ms.jit
    def f(v):
        return mnp.convolve(v, v), mnp.histogram(v, 3)[0], mnp.gradient(v)
    c, h, g = f(ms.Tensor(V))
    _cmp(c, onp.convolve(V, V))
    _cmp(h, onp.histogram(V, 3)[0])
    _cmp(g, onp.gradient(V))
