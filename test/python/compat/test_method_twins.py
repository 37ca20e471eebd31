"""ops.<name> for MindSpore functional ops that are the functional form of a msmlir
Tensor method (msmlir/ops/method_twins.py): same results as the method (and numpy),
eagerly and inside jit; only MindSpore's names, no in-place ones."""
import numpy as np
import pytest

import msmlir as ms
from msmlir import Tensor, ops
from msmlir.compat._reference import NAMES
from msmlir.ops import method_twins

R = np.random.RandomState(0)
X = R.uniform(0.1, 0.9, (3, 4)).astype(np.float32)
SQ = R.randn(3, 3).astype(np.float32) + 3 * np.eye(3, dtype=np.float32)

CASES = [
    ("diagonal", (X, 1), lambda x, o: np.diagonal(x, o)),
    ("trace", (SQ,), np.trace),
    ("arcsinh", (X,), np.arcsinh),
    ("arctanh", (X,), np.arctanh),
    ("arccosh", (X + 1,), np.arccosh),
    ("nansum", (np.where(X > 0.5, np.nan, X),), np.nansum),
    ("fliplr", (X,), np.fliplr),
    ("flipud", (X,), np.flipud),
    ("hypot", (X, X[::-1]), np.hypot),
    ("logaddexp", (X, X[::-1]), np.logaddexp),
    ("det", (SQ,), np.linalg.det),
    ("moveaxis", (X, 0, 1), np.moveaxis),
    ("inner", (X, X), np.inner),
    ("ravel", (X,), np.ravel),
    ("deg2rad", (X,), np.deg2rad),
    ("signbit", (X - 0.5,), np.signbit),
]


@pytest.mark.parametrize("name, args, ref", CASES, ids=[c[0] for c in CASES])
def test_twin_matches_numpy_and_the_method(name, args, ref):
    targs = [Tensor(a) if isinstance(a, np.ndarray) else a for a in args]
    got = getattr(ops, name)(*targs)
    np.testing.assert_allclose(got.asnumpy(), ref(*args), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(got.asnumpy(),
                                  getattr(targs[0], name)(*targs[1:]).asnumpy())


def test_twins_compile_inside_jit():
    @ms.jit
    def f(a, b):
        return ops.trace(a) + ops.nansum(ops.hypot(b, b))
    want = np.trace(SQ) + np.hypot(X, X).sum()
    np.testing.assert_allclose(f(Tensor(SQ), Tensor(X)).asnumpy(), want, rtol=1e-5)


def test_twins_are_mindspore_names_only():
    names = set(NAMES["ops"])
    assert len(method_twins.__all__) > 90
    for n in method_twins.__all__:
        assert n in names and not n.endswith("_"), n
        assert getattr(ops, n) is getattr(method_twins, n)
    assert not hasattr(ops, "clamp_")            # in-place forms are not functional twins
    with pytest.raises(AttributeError):
        ops.no_such_op_anywhere                    # noqa: B018
