"""Tensor.svd's Jacobi sweeps and Tensor.igamma / igammac's series and continued
fraction run as scf.while loops over one copy of their step (tensor_extra._loop), so
the traced graph no longer grows with the step count: the mindir text holds one loop
per iteration scheme and a bounded number of ops; values match numpy / scipy, inside
jit too; igamma's gradient in x matches the closed form (finite where the other
branch would overflow)."""
import re

import numpy as np
import pytest

import msmlir as ms

RNG = np.random.default_rng(99)


def _ops(text):
    return len(re.findall(r"^\s*(?:%\S+ = )?\"?[a-z_]+\.[a-z_.]+", text, re.M))


def test_svd_graph_is_one_sweep_in_a_loop():
    for n in (3, 6):
        a = RNG.standard_normal((n, n))
        text = ms.jit(lambda t: t.svd()).lower(ms.Tensor(a))
        assert text.count("scf.while") == 1
        rotations = n * (n - 1) // 2
        assert text.count("mindir.rsqrt") == rotations        # one sweep, not 12
        s, u, v = ms.jit(lambda t: t.svd())(ms.Tensor(a))
        np.testing.assert_allclose(s.asnumpy(), np.linalg.svd(a, compute_uv=False), rtol=1e-12)
        np.testing.assert_allclose((u.asnumpy() * s.asnumpy()) @ v.asnumpy().T, a, atol=1e-12)


def test_igamma_graph_size_and_gradient():
    sp = pytest.importorskip("scipy.special")
    a = np.array([0.5, 2.0, 5.0, 1.0, 30.0, 3.0])
    x = np.array([0.3, 3.0, 4.0, 9.0, 25.0, 0.01])
    text = ms.jit(lambda p, q: p.igamma(q)).lower(ms.Tensor(a), ms.Tensor(x))
    assert text.count("scf.while") == 2 and _ops(text) < 400
    got = ms.jit(lambda p, q: p.igammac(q))(ms.Tensor(a), ms.Tensor(x.astype(np.float32)))
    np.testing.assert_allclose(got.asnumpy(), sp.gammaincc(a, x.astype(np.float32)), rtol=1e-12)
    g = ms.grad(lambda t: ms.Tensor(a).igamma(t).sum())(ms.Tensor(x))
    np.testing.assert_allclose(g.asnumpy(), np.exp(-x) * x ** (a - 1) / sp.gamma(a),
                               rtol=1e-12)
