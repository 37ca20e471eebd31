"""Helpers of the msmlir.grad / vmap tests: central finite differences in float64."""
from __future__ import annotations

import numpy as np


def fd(f, x, eps=1e-6):
    """d f(x) / dx of a scalar function f of one float64 array, by central differences."""
    x = np.asarray(x, dtype=np.float64)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        xp = x.copy()
        xm = x.copy()
        xp[i] += eps
        xm[i] -= eps
        g[i] = (float(f(xp)) - float(f(xm))) / (2 * eps)
    return g


def fd_param(f, p, eps=1e-6):
    """d f() / d p for a Parameter p (f reads p's current value)."""
    base = np.array(p.asnumpy(), copy=True)
    g = np.zeros_like(base)
    try:
        for i in np.ndindex(base.shape):
            v = base.copy()
            v[i] += eps
            p.set_data(v)
            a = float(f())
            v[i] -= 2 * eps
            p.set_data(v)
            b = float(f())
            g[i] = (a - b) / (2 * eps)
    finally:
        p.set_data(base)
    return g


def close(a, b, rtol=1e-6, atol=1e-8):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=rtol, atol=atol)
