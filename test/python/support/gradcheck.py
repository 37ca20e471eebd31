"""Central finite differences, the reference of every gradient test.

`numeric_grad` differentiates <cotangent, f(*args)> (f returning an array, a
tuple of arrays, or a scalar when there is no cotangent) with respect to the
chosen arguments, in float64; `numeric_grad_param` differentiates a function
that reads a Parameter; `check_kernel_grads` compares a `@msmlir.kernel`'s
kernel-level AD with them.
"""
from __future__ import annotations

import numpy as np


def _contract(cotangent, plus, minus) -> float:
    """<cotangent, plus - minus>; a scalar difference without a cotangent."""
    if cotangent is None:
        return float(plus) - float(minus)
    if isinstance(cotangent, (list, tuple)):
        return sum(float(np.sum(s * (np.asarray(a) - np.asarray(b))))
                   for s, a, b in zip(cotangent, plus, minus))
    return float(np.sum(cotangent * (np.asarray(plus) - np.asarray(minus))))


def numeric_grad(f, args, wrt=None, cotangent=None, eps=1e-6, dtype=np.float64):
    """[d <cotangent, f(*args)> / d args[i] for i in wrt] (default: every argument),
    by central differences. The differentiated arguments are converted to `dtype`
    (None keeps their own); the others are passed as they are."""
    args = list(args)
    wrt = range(len(args)) if wrt is None else list(wrt)
    grads = []
    for i in wrt:
        x = np.array(args[i], dtype=dtype)
        g = np.zeros_like(x)
        for idx in np.ndindex(x.shape):
            xp, xm = x.copy(), x.copy()
            xp[idx] += eps
            xm[idx] -= eps
            plus = f(*args[:i], xp, *args[i + 1:])
            minus = f(*args[:i], xm, *args[i + 1:])
            g[idx] = _contract(cotangent, plus, minus) / (2 * eps)
        grads.append(g)
    return grads


def fd(f, x, eps=1e-6):
    """d f(x) / dx of a scalar function f of one array."""
    return numeric_grad(f, [x], eps=eps)[0]


def numeric_grad_param(f, p, eps=1e-6):
    """d f() / d p for a Parameter p that f reads (p keeps its dtype; restored after)."""
    base = np.array(p.asnumpy(), copy=True)

    def at(v):
        p.set_data(v)
        return f()
    try:
        return numeric_grad(at, [base], eps=eps, dtype=None)[0]
    finally:
        p.set_data(base)


fd_param = numeric_grad_param


def close(a, b, rtol=1e-6, atol=1e-8):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=rtol, atol=atol)


def check_kernel_grads(k, args, wrt=None, seed=0, rtol=1e-6, atol=1e-7, ref=None):
    """Kernel-level AD of the kernel `k` against finite differences (of k itself,
    or of the numpy reference `ref` when given, which must match k's values).
    Returns the AD gradients."""
    rng = np.random.default_rng(seed)
    y = np.asarray(k(*args))
    if ref is not None:
        np.testing.assert_allclose(y, ref(*args), rtol=1e-12, atol=1e-12)
    dout = rng.standard_normal(y.shape)
    names = k.input_names
    idx = list(range(len(args))) if wrt is None else \
        [names.index(w) if isinstance(w, str) else w for w in wrt]
    got = k.grad(*args, dout=dout, wrt=idx)
    fd_ = numeric_grad(ref or k, args, cotangent=dout)
    assert len(got) == len(idx)
    for i, g in zip(idx, got):
        assert g.shape == np.shape(args[i])
        np.testing.assert_allclose(g, fd_[i], rtol=rtol, atol=atol,
                                   err_msg=f"gradient of input {names[i]}")
    return got
