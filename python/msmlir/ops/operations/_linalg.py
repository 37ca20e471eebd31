"""Primitive classes of MindSpore's linear-algebra, special-function and scatter ops
whose Tensor methods / functional twins msmlir has (msmlir/ops/tensor_extra.py,
ops/functional.py): each row calls that implementation with MindSpore's constructor
attributes and input order (P.MatrixTriangularSolve(lower, adjoint)(matrix, rhs),
P.CholeskySolve(upper)(rhs, factor), P.Svd(full_matrices, compute_uv)(a), ...)."""
from __future__ import annotations

import numpy as _np

from ... import dtype as _dt
from ... import ops as F
from ...frontend import builder as _b


def _m(name):
    """Tensor.<name>'s implementation (looked up through providers: tensor_extra
    imports this package's parent)."""
    from ... import providers
    return providers.get("tensor_method_extensions")[name]


def _method(name, *attrs, **fixed):
    """A row implementation: Tensor.<name>(input, *rest, <attrs from the primitive>)."""
    def impl(s, x, *rest):
        return _m(name)(x, *rest, *(getattr(s, a) for a in attrs), **fixed)
    return impl


def _first(name, *attrs):
    def impl(s, *args):
        return _m(name)(*args, *(getattr(s, a) for a in attrs))[0]
    return impl


def triangular_solve(s, matrix, rhs):
    return _m("triangular_solve")(rhs, matrix, not s.lower, bool(s.adjoint))[0]


def matrix_inverse(s, x):
    return _m("inverse")(F.swapaxes(x, -1, -2) if s.adjoint else x)


def lstsq(s, matrix, rhs):
    if float(s.l2_regularizer) != 0.0:
        _b.error("For 'Lstsq', l2_regularizer != 0 is not supported (the least-squares "
                 "solution by QR only)", kind=ValueError)
    return _m("lstsq")(matrix, rhs)


def qr(s, x):
    return _m("qr")(x, not s.full_matrices)


def cumulative_logsumexp(s, x, axis):
    """log(cumsum(exp(x))) along axis; reverse runs from the end, exclusive leaves out
    each element itself (the first output -inf)."""
    t = F.to_tensor(x)
    ax = int(axis.asnumpy()) if hasattr(axis, "asnumpy") else int(axis)
    ax = ax + t.ndim if ax < 0 else ax
    if s.reverse:
        t = F.flip(t, (ax,))
    r = _m("logcumsumexp")(t, ax)
    if s.exclusive:
        n = t.shape[ax]
        head = F.full_like(F.slice(r, (0,) * t.ndim, tuple(1 if i == ax else d
                                                          for i, d in enumerate(t.shape))),
                           -_np.inf)
        r = F.concat((head, F.slice(r, (0,) * t.ndim, tuple(n - 1 if i == ax else d
                                                           for i, d in enumerate(t.shape)))),
                     ax)
    return F.flip(r, (ax,)) if s.reverse else r


def histogram(s, x):
    return _m("histc")(x, 100 if s.bins is None else s.bins, s.min, s.max)


def cauchy(s):
    size = tuple(s.size)
    u = F.uniform(size, 1e-7, 1.0 - 1e-7, None, _dt.float32)
    return F.add(F.mul(F.tan(F.mul(F.sub(u, 0.5), _np.pi)), float(s.sigma)), float(s.median))


def _indices(upper):
    def impl(s):
        fn = _np.triu_indices if upper else _np.tril_indices
        r, c = fn(int(s.row), int(s.offset), int(s.col))
        return F.to_tensor(_np.stack([r, c]).astype(_dt.get(s.dtype).to_numpy()))
    return impl


def search_sorted(s, sorted_sequence, values):
    from ... import numpy as mnp
    out = mnp.searchsorted(sorted_sequence, values, "right" if s.right else "left")
    return F.cast(out, s.dtype)


def _concrete(name, what, v):
    """A Tensor argument's value on the host (PyNative, or a Python number in jit)."""
    if hasattr(v, "asnumpy"):
        return v.asnumpy()
    if F.is_tensor(v):
        _b.error(f"For '{name}', '{what}' is read on the host: inside jit pass a Python "
                 f"number", kind=ValueError)
    return _np.asarray(v)


def _k0(name, k):
    kv = _concrete(name, "k", k)
    if _np.any(_np.asarray(kv) != 0):
        _b.error(f"For '{name}', only k=0 (the main diagonal) is supported, got {kv!r}",
                 kind=ValueError)


def matrix_diag_v3(s, x, k, num_rows, num_cols, padding_value):
    _k0("MatrixDiagV3", k)
    rows = int(_concrete("MatrixDiagV3", "num_rows", num_rows))
    cols = int(_concrete("MatrixDiagV3", "num_cols", num_cols))
    pad = _concrete("MatrixDiagV3", "padding_value", padding_value)
    return F.matrix_diag(x, 0, rows, cols, float(pad) if _np.ndim(pad) == 0 else pad)


def histogram_fixed_width(s, x, value_range):
    """Counts of nbins equal-width bins over value_range = [lo, hi]; values below lo
    count in the first bin, values from hi on in the last."""
    t = F.cast(F.to_tensor(x), _dt.float64)
    r = F.cast(F.to_tensor(value_range), _dt.float64)
    lo = F.slice(r, (0,), (1,))
    hi = F.slice(r, (1,), (1,))
    flat = F.reshape(t, (-1,))
    pos = F.floor(F.mul(F.div(F.sub(flat, lo), F.sub(hi, lo)), float(s.nbins)))
    pos = F.cast(F.minimum(F.maximum(pos, 0.0), float(s.nbins - 1)), _dt.int32)
    hit = F.equal(F.expand_dims(pos, 1), F.to_tensor(_np.arange(s.nbins, dtype=_np.int32)))
    out_dt = _dt.get(s.dtype) if not isinstance(s.dtype, str) else getattr(_dt, s.dtype)
    return F.cast(F.reduce_sum(F.cast(hit, _dt.int32), 0), out_dt)


def _bound(upper):
    def impl(s, sorted_x, values):
        """Per row, the number of sorted_x elements < (upper: <=) each value."""
        a, v = F.to_tensor(sorted_x), F.to_tensor(values)
        cmp = F.less_equal if upper else F.less
        hit = cmp(F.expand_dims(a, -2), F.expand_dims(v, -1))          # (..., M, N)
        return F.cast(F.reduce_sum(F.cast(hit, _dt.int32), -1), s.out_type)
    return impl


def check_numerics(s, x):
    """x, after checking on the host that it holds no NaN or Inf (PyNative)."""
    if _b.current() is not None:
        _b.error("For 'CheckNumerics', the check runs on the host in PyNative mode only",
                 kind=RuntimeError)
    a = _np.asarray(x)
    if not _np.isfinite(a).all():
        raise RuntimeError("For 'CheckNumerics', the input has NaN or Inf values")
    return x


ROWS = [
    ("Cholesky", "upper=False", _method("cholesky", "upper"), "math"),
    ("CholeskyInverse", "upper=False", _method("cholesky_inverse", "upper"), "math"),
    ("CholeskySolve", "upper=False", _method("cholesky_solve", "upper"), "math"),
    ("MatrixTriangularSolve", "lower=True, adjoint=False", triangular_solve, "math"),
    ("MatrixInverse", "adjoint=False", matrix_inverse, "math"),
    ("MatrixSolve", "adjoint=False", lambda s, m, rhs: F.matrix_solve(m, rhs, s.adjoint), "math"),
    ("MatrixDeterminant", "", _method("matrix_determinant"), "math"),
    ("LogMatrixDeterminant", "", _method("log_matrix_determinant"), "math"),
    ("MatrixPower", "n", _method("matrix_power", "n"), "math"),
    ("LuSolve", "", _method("lu_solve"), "math"),
    ("Lstsq", "fast=True, l2_regularizer=0.0", lstsq, "math"),
    ("Qr", "full_matrices=False", qr, "math"),
    ("Svd", "full_matrices=False, compute_uv=True",
     _method("svd", "full_matrices", "compute_uv"), "math"),
    ("Geqrf", "", _method("geqrf"), "math"),
    ("Orgqr", "", _method("orgqr"), "math"),
    ("Cummax", "axis", _method("cummax", "axis"), "math"),
    ("Cummin", "axis", _method("cummin", "axis"), "math"),
    ("CumulativeLogsumexp", "exclusive=False, reverse=False", cumulative_logsumexp, "math"),
    ("Digamma", "", _method("digamma"), "math"),
    ("Lgamma", "", _method("lgamma"), "math"),
    ("Erfinv", "", _method("erfinv"), "math"),
    ("Mvlgamma", "p", _method("mvlgamma", "p"), "math"),
    ("Gcd", "", _method("gcd"), "math"),
    ("Lcm", "", _method("lcm"), "math"),
    ("NextAfter", "", _method("nextafter"), "math"),
    ("Real", "", _method("real"), "math"),
    ("Imag", "", _method("imag"), "math"),
    ("Conj", "", _method("conj"), "math"),
    ("Renorm", "p, dim, maxnorm", _method("renorm", "p", "dim", "maxnorm"), "math"),
    ("FillDiagonal", "fill_value, wrap=False", _method("fill_diagonal", "fill_value", "wrap"),
     "array"),
    ("TensorScatterMul", "", _method("scatter_mul"), "array"),
    ("TensorScatterDiv", "", _method("scatter_div"), "array"),
    ("TensorScatterMax", "", _method("scatter_max"), "array"),
    ("TensorScatterMin", "", _method("scatter_min"), "array"),
    ("UniqueWithPad", "", _method("unique_with_pad"), "array"),
    ("Histogram", "bins=100, min=0.0, max=0.0", histogram, "math"),
    ("SearchSorted", "dtype=_dt.int64, right=False", search_sorted, "array"),
    ("TrilIndices", "row, col, offset=0, dtype=_dt.int32", _indices(False), "array"),
    ("TriuIndices", "row, col, offset=0, dtype=_dt.int32", _indices(True), "array"),
    ("Cauchy", "size, median=0.0, sigma=1.0", cauchy, "random"),
    ("LogNormalReverse", "mean=1.0, std=2.0", _method("log_normal", "mean", "std"), "random"),
    ("RandomCategorical", "dtype=_dt.int64",
     lambda s, logits, num_sample, seed=0: _m("random_categorical")(logits, num_sample, seed,
                                                                    s.dtype), "random"),
    # Parameter updates (the functional ops assign in place)
    *[(f"Scatter{k.capitalize()}", "use_locking=False",
       (lambda k: lambda s, x, i, u: getattr(F, f"scatter_{k}")(x, i, u))(k), "array")
      for k in ("mul", "div", "max", "min")],
    *[(f"ScatterNd{k.capitalize()}", "use_locking=False",
       (lambda k: lambda s, x, i, u: getattr(F, f"scatter_nd_{k}")(x, i, u))(k), "array")
      for k in ("mul", "div", "max", "min")],
    ("ScatterNonAliasingAdd", "", lambda s, x, i, u: F.scatter_nd_add(x, i, u), "array"),
    ("ScatterAddWithAxis", "axis=0",
     lambda s, x, i, u: F.tensor_scatter_elements(x, i, u, s.axis, "add"), "array"),
    ("ConjugateTranspose", "", lambda s, x, perm: F.transpose(x, perm), "array"),
    ("HistogramFixedWidth", "nbins, dtype='int32'", histogram_fixed_width, "math"),
    ("LowerBound", "out_type=_dt.int32", _bound(False), "array"),
    ("UpperBound", "out_type=_dt.int32", _bound(True), "array"),
    ("BesselI0e", "", lambda s, x: F.bessel_i0e(x), "math"),
    ("MatrixDiagPartV3", "align='RIGHT_LEFT'",
     lambda s, x, k, padding_value: (_k0("MatrixDiagPartV3", k), F.matrix_diag_part(x))[1],
     "array", "python"),
    ("MatrixSetDiagV3", "align='RIGHT_LEFT'",
     lambda s, x, diagonal, k: (_k0("MatrixSetDiagV3", k), F.matrix_set_diag(x, diagonal))[1],
     "array", "python"),
    ("MatrixDiagV3", "align='RIGHT_LEFT'", matrix_diag_v3, "array", "python"),
    ("CheckNumerics", "", check_numerics, "math", "python"),
]
