"""Helpers for the kernel tests: central finite differences of <dout, k(args)>."""
from __future__ import annotations

import numpy as np


def finite_diff(fn, args, dout, eps=1e-6):
    """Gradients of sum(fn(*args) * dout) w.r.t. every arg (float64, central)."""
    args = [np.array(a, dtype=np.float64) for a in args]
    grads = []
    for a in args:
        g = np.zeros_like(a)
        for idx in np.ndindex(a.shape):
            old = a[idx]
            a[idx] = old + eps
            fp = float(np.sum(np.asarray(fn(*args)) * dout))
            a[idx] = old - eps
            fm = float(np.sum(np.asarray(fn(*args)) * dout))
            a[idx] = old
            g[idx] = (fp - fm) / (2 * eps)
        grads.append(g)
    return grads


def check_grads(k, args, wrt=None, seed=0, rtol=1e-6, atol=1e-7, ref=None):
    """Kernel-level AD of kernel k vs finite differences (of k itself, or of the
    numpy reference `ref` when given). Returns the AD gradients."""
    rng = np.random.default_rng(seed)
    y = np.asarray(k(*args))
    if ref is not None:
        np.testing.assert_allclose(y, ref(*args), rtol=1e-12, atol=1e-12)
    dout = rng.standard_normal(y.shape)
    names = k.input_names
    idx = list(range(len(args))) if wrt is None else \
        [names.index(w) if isinstance(w, str) else w for w in wrt]
    got = k.grad(*args, dout=dout, wrt=idx)
    fd = finite_diff(ref or k, args, dout)
    assert len(got) == len(idx)
    for i, g in zip(idx, got):
        assert g.shape == np.shape(args[i])
        np.testing.assert_allclose(g, fd[i], rtol=rtol, atol=atol,
                                   err_msg=f"gradient of input {names[i]}")
    return got
