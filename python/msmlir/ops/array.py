"""Shape manipulation, indexing, creation and state ops."""
from __future__ import annotations

import builtins
import numbers

import numpy as np

from .. import dtype as _dt
import msmlir.frontend.builder as _b
from ..frontend.trace import rng_offset
from ._base import (TensorValue, cast_to, const, emit, int_tuple, mindir, norm_axes, norm_axis,
                    primitive, promote, to_tensor)

__all__ = [
    "reshape", "transpose", "permute", "swapaxes", "broadcast_to", "expand_dims", "unsqueeze",
    "squeeze", "flatten", "slice", "strided_slice", "concat", "cat", "split", "stack", "unstack",
    "gather", "tile", "pad", "getitem", "shape", "rank", "size", "zeros", "ones", "zeros_like",
    "ones_like", "fill", "full", "full_like", "arange", "assign", "depend", "scalar_to_tensor",
    "tensor", "random_uniform", "random_normal", "uniform", "standard_normal",
    "sort", "argsort", "topk",
]


# ---------------------------------------------------------------------------
# Compile-time queries
# ---------------------------------------------------------------------------

def shape(input_x):
    """The shape as a tuple of Python ints (ops.shape)."""
    if isinstance(input_x, TensorValue):
        return input_x.shape
    return tuple(np.shape(input_x))


def rank(input_x):
    """The number of dims, a Python int (ops.rank)."""
    return len(shape(input_x))


def size(input_x):
    """The number of elements, a Python int (ops.size)."""
    n = 1
    for d in shape(input_x):
        n *= d
    return n


# ---------------------------------------------------------------------------
# Shape manipulation
# ---------------------------------------------------------------------------

@primitive
def reshape(input, shape):
    """Reshape to `shape` (at most one -1) (ops.reshape)."""
    t = to_tensor(input)
    s = int_tuple(shape, "reshape shape")
    if s == t.shape:
        return t
    return emit(mindir.ReshapeOp, t.value, _b.i64_array(s))


@primitive
def transpose(input, input_perm):
    """Permute dims: out.shape[i] = input.shape[input_perm[i]] (ops.transpose)."""
    t = to_tensor(input)
    perm = int_tuple(input_perm, "transpose permutation")
    if len(perm) != t.ndim:
        _b.error(f"transpose: permutation {perm} does not match the rank {t.ndim} of the input")
    perm = tuple(norm_axis(p, t.ndim) for p in perm)
    if sorted(perm) != list(range(t.ndim)):
        _b.error(f"transpose: {perm} is not a permutation of the {t.ndim} dims")
    if perm == tuple(range(t.ndim)):
        return t
    return emit(mindir.TransposeOp, t.value, _b.i64_array(perm))


@primitive
def permute(input, axis):
    """ops.permute."""
    return transpose(input, axis)


@primitive
def swapaxes(input, axis0, axis1):
    """Exchange two dims (ops.swapaxes)."""
    t = to_tensor(input)
    perm = list(range(t.ndim))
    a, b = norm_axis(axis0, t.ndim), norm_axis(axis1, t.ndim)
    perm[a], perm[b] = perm[b], perm[a]
    return transpose(t, tuple(perm))


@primitive
def broadcast_to(input, shape):
    """Broadcast to `shape` (-1 keeps the input dim) (ops.broadcast_to)."""
    t = to_tensor(input)
    s = int_tuple(shape, "broadcast shape")
    if s == t.shape:
        return t
    return emit(mindir.BroadcastToOp, t.value, _b.i64_array(s))


@primitive
def expand_dims(input_x, axis):
    """Insert a unit dim at `axis` (ops.expand_dims)."""
    t = to_tensor(input_x)
    a = norm_axis(axis, t.ndim, allow_end=True)
    return emit(mindir.ExpandDimsOp, t.value, _b.i64_attr(a))


@primitive
def unsqueeze(input, dim):
    """ops.unsqueeze."""
    return expand_dims(input, dim)


@primitive
def squeeze(input, axis=None):
    """Remove unit dims: those in `axis`, or all of them (ops.squeeze). A named dim
    whose size is not 1 stays, as in MindSpore 2.10 (ops.squeeze and P.Squeeze)."""
    t = to_tensor(input)
    axes = [a for a in norm_axes(axis, t.ndim) if t.shape[a] == 1]
    if axis is None:
        if 1 not in t.shape:
            return t
    elif not axes:
        return t
    return emit(mindir.SqueezeOp, t.value, axis=_b.i64_array(axes))


@primitive
def flatten(input, order="C", *, start_dim=1, end_dim=-1):
    """Flatten dims start_dim..end_dim into one (ops.flatten; the default keeps dim 0)."""
    if order != "C":
        _b.error("flatten: only order='C' is supported")
    t = to_tensor(input)
    if t.ndim == 0:
        return reshape(t, (1,))
    s = norm_axis(start_dim, t.ndim)
    e = norm_axis(end_dim, t.ndim)
    if s > e:
        _b.error(f"flatten: start_dim {start_dim} is after end_dim {end_dim}")
    if s == 1 and e == t.ndim - 1 and t.ndim >= 2:
        return emit(mindir.FlattenOp, t.value)
    n = 1
    for d in t.shape[s:e + 1]:
        n *= d
    return reshape(t, t.shape[:s] + (n,) + t.shape[e + 1:])


@primitive
def slice(input_x, begin, size):
    """Contiguous slice input_x[begin : begin + size] (size -1 = to the end) (ops.slice)."""
    t = to_tensor(input_x)
    b = int_tuple(begin, "slice begin")
    s = int_tuple(size, "slice size")
    return emit(mindir.SliceOp, t.value, _b.i64_array(b), _b.i64_array(s))


@primitive
def strided_slice(input_x, begin, end, strides):
    """input_x[begin:end:strides] per dim (ops.strided_slice); begin/end are taken
    as Python's slice.indices(dim) gives them (negative ends allowed for negative strides)."""
    t = to_tensor(input_x)
    b = int_tuple(begin, "strided_slice begin")
    e = int_tuple(end, "strided_slice end")
    s = int_tuple(strides, "strided_slice strides")
    return emit(mindir.StridedSliceOp, t.value, _b.i64_array(b), _b.i64_array(e), _b.i64_array(s))


def _tensor_list(tensors, what):
    if isinstance(tensors, TensorValue) or not isinstance(tensors, (list, tuple)) or not tensors:
        _b.error(f"{what} expects a non-empty tuple or list of tensors", kind=TypeError)
    return promote(*tensors)


@primitive
def concat(tensors, axis=0):
    """Concatenate along `axis` (ops.concat)."""
    ts = _tensor_list(tensors, "concat")
    a = norm_axis(axis, ts[0].ndim)
    if len(ts) == 1:
        return ts[0]
    return emit(mindir.ConcatOp, [t.value for t in ts], axis=_b.i64_attr(a))


cat = concat


@primitive
def stack(tensors, axis=0):
    """Stack equally-shaped tensors along a new `axis` (ops.stack)."""
    ts = _tensor_list(tensors, "stack")
    for t in ts[1:]:
        if t.shape != ts[0].shape:
            _b.error(f"stack: all inputs must have the same shape, got {list(ts[0].shape)} and "
                     f"{list(t.shape)}", kind=ValueError)
    a = norm_axis(axis, ts[0].ndim, allow_end=True)
    return emit(mindir.StackOp, [t.value for t in ts], axis=_b.i64_attr(a))


@primitive
def split(tensor, split_size_or_sections, axis=0):
    """Split along `axis` (ops.split): an int is the size of each chunk (the last
    may be smaller), a tuple/list gives the size of every section. Returns a tuple."""
    t = to_tensor(tensor)
    a = norm_axis(axis, t.ndim)
    dim = t.shape[a]
    if isinstance(split_size_or_sections, numbers.Integral) and not isinstance(split_size_or_sections, bool):
        chunk = int(split_size_or_sections)
        if chunk <= 0:
            _b.error(f"split: split_size must be positive, got {chunk}")
        if dim % chunk == 0:
            n = dim // chunk
            if n == 1:
                return (t,)
            out = emit(mindir.SplitOp, t.value, _b.i64_attr(n), axis=_b.i64_attr(a))
            return out if isinstance(out, tuple) else (out,)
        sections = [chunk] * (dim // chunk) + [dim % chunk]
    else:
        sections = list(int_tuple(split_size_or_sections, "split sections"))
        if builtins.sum(sections) != dim:
            _b.error(f"split: sections {sections} do not add up to dim {a} of size {dim}")
    outs, start = [], 0
    for n in sections:
        begin = [0] * t.ndim
        end = list(t.shape)
        begin[a], end[a] = start, start + n
        outs.append(strided_slice(t, begin, end, [1] * t.ndim))
        start += n
    return tuple(outs)


@primitive
def unstack(input_x, axis=0):
    """Split along `axis` into size-1 pieces with that dim removed (ops.unstack)."""
    t = to_tensor(input_x)
    a = norm_axis(axis, t.ndim)
    return tuple(squeeze(p, a) for p in split(t, 1, a))


@primitive
def gather(input_params, input_indices, axis=0, batch_dims=0):
    """Slices of input_params along `axis` at input_indices (ops.gather). With
    `batch_dims` b, the first b dims of params and indices are batch dims
    (equal sizes) and each batch gathers from its own slice: out.shape =
    params.shape[:axis] + indices.shape[b:] + params.shape[axis + 1:]."""
    p = to_tensor(input_params)
    i = to_tensor(input_indices, None if isinstance(input_indices, TensorValue) else _dt.int32)
    if not i.dtype.is_int:
        _b.error(f"gather: indices must be an integer tensor, got {i.dtype}", kind=TypeError)
    a = norm_axis(axis, p.ndim)
    if isinstance(batch_dims, bool) or not isinstance(batch_dims, numbers.Integral):
        _b.error(f"gather: batch_dims must be an int, got {batch_dims!r}")
    if batch_dims != 0:
        return _batched_gather(p, i, a, int(batch_dims))
    return emit(mindir.GatherOp, p.value, i.value, axis=_b.i64_attr(a))


# gather with batch_dims composes math ops (a module that imports this one): the
# implementation lives in composed.py, which registers it here when msmlir.ops loads.
_BATCHED_GATHER: list = []


def _batched_gather(p, i, a, bd):
    return _BATCHED_GATHER[0](p, i, a, bd)


@primitive
def tile(input, dims):
    """Repeat input dims[i] times along dim i (ops.tile)."""
    t = to_tensor(input)
    m = int_tuple(dims, "tile multiples")
    if len(m) < t.ndim:
        m = (1,) * (t.ndim - len(m)) + m
    elif len(m) > t.ndim:
        t = reshape(t, (1,) * (len(m) - t.ndim) + t.shape)
    return emit(mindir.TileOp, t.value, _b.i64_array(m))


_PAD_MODES = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}


@primitive
def pad(input_x, padding, mode="constant", value=None):
    """Pads (ops.pad): `padding` = (left, right) for the last dim, then (top, bottom) for
    the one before, ... (PyTorch/MindSpore order); negative amounts crop. Modes
    'constant' (`value`, default 0), 'reflect', 'replicate' and 'circular'; the last three
    are one gather per padded dim at positions numpy's np.pad computes on an arange,
    with MindSpore 2.10's (PadV3) rank and size checks."""
    t = to_tensor(input_x)
    p = int_tuple(padding, "pad padding")
    if len(p) % 2:
        _b.error(f"For 'pad', the size of padding must be divisible by 2, but got {len(p)}",
                 kind=ValueError)
    if len(p) // 2 > t.ndim:
        _b.error(f"pad: padding {p} must have an even length of at most 2 * rank ({2 * t.ndim})",
                 kind=ValueError)
    if mode != "constant":
        return _pad_by_gather(t, p, mode, value)
    pairs = [(0, 0)] * t.ndim
    for k in range(len(p) // 2):
        pairs[t.ndim - 1 - k] = (p[2 * k], p[2 * k + 1])
    flat = [v for pair in pairs for v in pair]
    return emit(mindir.PadOp, t.value, _b.i64_array(flat),
                constant_value=_b.f64_attr(0.0 if value is None else value))


def _pad_by_gather(t, p, mode, value):
    if mode not in _PAD_MODES:
        _b.error(f"For 'pad', mode must be 'constant', 'reflect', 'replicate' or 'circular', "
                 f"but got {mode!r}", kind=ValueError)
    if value is not None:
        _b.error(f"For 'pad', 'value' is only used in mode 'constant', got mode {mode!r}",
                 kind=ValueError)
    n_dims = len(p) // 2
    if t.ndim - n_dims not in (1, 2):
        _b.error(f"For 'pad' mode {mode!r}, padding {n_dims} dims needs an input of rank "
                 f"{n_dims + 1} or {n_dims + 2}, but got rank {t.ndim}", kind=ValueError)
    if mode == "reflect" and t.ndim > 4:
        _b.error(f"For 'pad' mode 'reflect', the input rank must be at most 4, but got "
                 f"{t.ndim}", kind=ValueError)
    out = t
    for k in range(n_dims):
        axis = t.ndim - 1 - k
        left, right = p[2 * k], p[2 * k + 1]
        if (left, right) == (0, 0):
            continue
        # negative amounts crop first, then the rest pads the cropped dim (MindSpore 2.10's
        # circular mode wraps around the cropped size; recorded)
        kept = np.arange(t.shape[axis], dtype=np.int32)[
            builtins.max(-left, 0):t.shape[axis] - builtins.max(-right, 0)]
        n = len(kept)
        left, right = builtins.max(left, 0), builtins.max(right, 0)
        if mode == "reflect" and builtins.max(left, right) >= n:
            _b.error(f"For 'pad' mode 'reflect', padding ({left}, {right}) of dim {axis} must "
                     f"be less than its size {n}", kind=ValueError)
        if mode == "circular" and builtins.max(left, right) > n:
            _b.error(f"For 'pad' mode 'circular', padding ({left}, {right}) of dim {axis} "
                     f"larger than its size {n} is not supported", kind=ValueError)
        if n == 0:
            _b.error(f"pad: padding {tuple(p[2 * k:2 * k + 2])} crops all of dim {axis} (size "
                     f"{t.shape[axis]})", kind=ValueError)
        index = np.pad(kept, (left, right), mode=_PAD_MODES[mode])
        out = gather(out, const(np.ascontiguousarray(index)), axis)
    return out


# ---------------------------------------------------------------------------
# Indexing: x[...]
# ---------------------------------------------------------------------------

def getitem(x, index):
    """x[index] with ints, slices, None, Ellipsis and (one) integer tensor:
    strided_slice, then squeeze for int indices and expand_dims for None; a
    tensor index becomes a gather."""
    t = to_tensor(x)
    if not isinstance(index, tuple):
        index = (index,)
    n_ell = builtins.sum(1 for i in index if i is Ellipsis)
    if n_ell > 1:
        _b.error("an index can only have a single ellipsis ('...')")
    n_used = builtins.sum(1 for i in index if i is not None and i is not Ellipsis)
    if n_used > t.ndim:
        _b.error(f"too many indices for a tensor of rank {t.ndim}: {n_used} given")
    items = []
    for i in index:
        if i is Ellipsis:
            items.extend([builtins.slice(None)] * (t.ndim - n_used))
        else:
            items.append(i)
    if n_ell == 0:
        items.extend([builtins.slice(None)] * (t.ndim - n_used))

    begin, end, strides = [], [], []
    squeeze_axes = []       # dims (of the input) indexed by an int
    new_axes = []           # positions (in the output) of None
    tensor_index = None     # (input dim, tensor)
    out_pos = 0
    dim = 0
    for item in items:
        if item is None:
            new_axes.append(out_pos)
            out_pos += 1
            continue
        size_d = t.shape[dim]
        if isinstance(item, TensorValue) or (hasattr(item, "__len__") and not isinstance(item, (str, builtins.slice))):
            if tensor_index is not None:
                _b.error("only one tensor (or list) index is supported")
            idx = item if isinstance(item, TensorValue) else to_tensor(item, _dt.int32)
            tensor_index = (dim, out_pos, idx)
            begin.append(0), end.append(size_d), strides.append(1)
            out_pos += 1
        elif isinstance(item, builtins.slice):
            for v in (item.start, item.stop, item.step):
                if isinstance(v, TensorValue):
                    _b.error("slice bounds must be Python ints known at compile time, got a tensor")
            if item.step == 0:
                _b.error("slice step cannot be zero")
            b, e, s = item.indices(size_d)
            begin.append(b), end.append(e), strides.append(s)
            out_pos += 1
        elif isinstance(item, numbers.Integral) and not isinstance(item, bool):
            i = int(item)
            if not -size_d <= i < size_d:
                _b.error(f"index {i} is out of bounds for axis {dim} with size {size_d}")
            i = i + size_d if i < 0 else i
            begin.append(i), end.append(i + 1), strides.append(1)
            squeeze_axes.append(dim)
        else:
            _b.error(f"unsupported index {item!r} of type {type(item).__name__}")
        dim += 1

    out = t
    full = all(b == 0 and e == n and s == 1 for b, e, s, n in zip(begin, end, strides, t.shape))
    if not full:
        out = strided_slice(out, begin, end, strides)
    if tensor_index is not None:
        d, pos_d, idx = tensor_index
        out = gather(out, idx, d)
        # gather replaces dim d by the index's dims: shift the later positions
        extra = idx.ndim - 1
        squeeze_axes = [a if a < d else a + extra for a in squeeze_axes]
        new_axes = [p if p < pos_d else p + extra for p in new_axes]
    if squeeze_axes:
        out = squeeze(out, tuple(squeeze_axes))
    for pos in new_axes:
        out = expand_dims(out, pos)
    return out


# ---------------------------------------------------------------------------
# Creation
# ---------------------------------------------------------------------------

def _shape_dtype(size, dtype, what):
    s = int_tuple(size, f"{what} size")
    if builtins.any(d < 0 for d in s):
        _b.error(f"{what}: negative dimension in {s}")
    return s, _dt.get(dtype) if dtype is not None else _dt.float32


def _fill(s, dt, value):
    return TensorValue(_b.emit(mindir.FillOp, _b.tensor_type(s, dt), _b.scalar_attr(value, dt)))


@primitive
def zeros(size, dtype=None):
    """Zeros of shape `size` (ops.zeros; float32 by default)."""
    s, dt = _shape_dtype(size, dtype, "zeros")
    return _fill(s, dt, 0)


@primitive
def ones(size, dtype=None):
    """Ones of shape `size` (ops.ones; float32 by default)."""
    s, dt = _shape_dtype(size, dtype, "ones")
    return _fill(s, dt, 1)


@primitive
def fill(type, shape, value):
    """Tensor of dtype `type` and shape `shape` filled with `value` (ops.fill)."""
    s, dt = _shape_dtype(shape, type, "fill")
    if isinstance(value, TensorValue):
        return broadcast_to(cast_to(value, dt), s)
    return _fill(s, dt, value)


@primitive
def full(size, fill_value, *, dtype=None):
    """ops.full: dtype defaults to that of fill_value (float32 / int64 / bool)."""
    if dtype is None:
        dtype = (fill_value.dtype if isinstance(fill_value, TensorValue) else
                 _dt.bool_ if isinstance(fill_value, bool) else
                 _dt.int64 if isinstance(fill_value, numbers.Integral) else _dt.float32)
    return fill(dtype, size, fill_value)


@primitive
def zeros_like(input, *, dtype=None):
    """Zeros with the shape (and dtype) of input (ops.zeros_like)."""
    t = to_tensor(input)
    if dtype is not None and _dt.get(dtype) is not t.dtype:
        return _fill(t.shape, _dt.get(dtype), 0)
    return emit(mindir.ZerosLikeOp, t.value)


@primitive
def ones_like(input, *, dtype=None):
    """Ones with the shape (and dtype) of input (ops.ones_like)."""
    t = to_tensor(input)
    if dtype is not None and _dt.get(dtype) is not t.dtype:
        return _fill(t.shape, _dt.get(dtype), 1)
    return emit(mindir.OnesLikeOp, t.value)


@primitive
def full_like(input, fill_value, *, dtype=None):
    """ops.full_like."""
    t = to_tensor(input)
    return fill(dtype if dtype is not None else t.dtype, t.shape, fill_value)


@primitive
def arange(start=0, end=None, step=1, *, dtype=None):
    """1-D range [start, end) with step (ops.arange); int64 for int arguments, else float32."""
    for v in (start, end, step):
        if isinstance(v, TensorValue):
            _b.error("arange: start/end/step must be Python numbers known at compile time")
    if end is None:
        start, end = 0, start
    if step == 0:
        _b.error("arange: step must not be zero")
    if dtype is None:
        dtype = (_dt.int64 if builtins.all(isinstance(v, numbers.Integral) for v in (start, end, step))
                 else _dt.float32)
    dt = _dt.get(dtype)
    import math
    n = builtins.max(0, math.ceil((end - start) / step))
    return TensorValue(_b.emit(mindir.ArangeOp, _b.tensor_type((n,), dt), _b.f64_attr(start),
                               _b.f64_attr(end), delta=_b.f64_attr(step)))


@primitive
def scalar_to_tensor(input_x, dtype=None):
    """A 0-d tensor from a Python number (ops.scalar_to_tensor; float32 by default)."""
    return to_tensor(input_x, dtype if dtype is not None else _dt.float32)


@primitive
def tensor(data, dtype=None):
    """A constant tensor from a Python number, list or numpy array."""
    return to_tensor(data, dtype)


def _rng_offset():
    off = rng_offset()  # the run-time RNG counter (frontend/trace.py)
    return None if off is None else off.value


@primitive
def random_uniform(shape, seed=0, minval=0.0, maxval=1.0, dtype=None):
    """Seeded uniform random numbers in [minval, maxval) (mindir.random_uniform).
    Like MindSpore's stateful RNG, every execution draws new numbers (the op's
    offset is the RNG counter); `msmlir.set_seed` restarts the sequence."""
    s, dt = _shape_dtype(shape, dtype, "random_uniform")
    return TensorValue(_b.emit(mindir.RandomUniformOp, _b.tensor_type(s, dt), _b.i64_attr(seed),
                               minval=_b.f64_attr(minval), maxval=_b.f64_attr(maxval),
                               offset=_rng_offset()))


@primitive
def random_normal(shape, seed=0, mean=0.0, stddev=1.0, dtype=None):
    """Seeded normal random numbers (mindir.random_normal); new numbers at every
    execution, as random_uniform."""
    s, dt = _shape_dtype(shape, dtype, "random_normal")
    return TensorValue(_b.emit(mindir.RandomNormalOp, _b.tensor_type(s, dt), _b.i64_attr(seed),
                               mean=_b.f64_attr(mean), stddev=_b.f64_attr(stddev),
                               offset=_rng_offset()))


@primitive
def uniform(shape, minval=0.0, maxval=1.0, seed=None, dtype=None):
    """ops.uniform with Python-number bounds."""
    return random_uniform(shape, 0 if seed is None else seed, minval, maxval, dtype)


@primitive
def standard_normal(shape, seed=None):
    """ops.standard_normal (float32)."""
    return random_normal(shape, 0 if seed is None else seed)


# ---------------------------------------------------------------------------
# Sorting
# ---------------------------------------------------------------------------

def _sort(x, axis, descending, what):
    """(values, int32 indices) of the stable sort of x along `axis` (mindir.sort):
    equal elements keep their order, NaN sorts above +inf (last ascending,
    first descending). bool is sorted as int8."""
    t = to_tensor(x)
    if t.ndim == 0:
        _b.error(f"{what}: the input must have rank >= 1, got a 0-d tensor")
    if isinstance(descending, TensorValue):
        _b.error(f"{what}: descending must be a Python bool known at compile time, got a tensor")
    a = norm_axis(axis, t.ndim, what=f"{what}: axis")
    src = cast_to(t, _dt.int8) if t.dtype.is_bool else t
    values, indices = emit(mindir.SortOp, src.value, axis=_b.i64_attr(a),
                           descending=_b.bool_attr(bool(descending)))
    if t.dtype.is_bool:
        values = cast_to(values, _dt.bool_)
    return values, indices


@primitive
def sort(input_x, axis=-1, descending=False):
    """(values, indices) of input_x sorted along `axis` (ops.sort); stable, the
    indices int32; NaN is larger than +inf (last ascending, first descending)."""
    return _sort(input_x, axis, descending, "sort")


@primitive
def argsort(input, axis=-1, descending=False):
    """int32 indices that sort `input` along `axis` (ops.argsort); stable."""
    return _sort(input, axis, descending, "argsort")[1]


@primitive
def topk(input, k, dim=None, largest=True, sorted=True):
    """(values, int32 indices) of the k largest (largest=False: smallest)
    elements along `dim` (None: the last dim) (ops.topk). Equal elements come
    in index order; the result is always sorted (sorted=False allows any order)."""
    t = to_tensor(input)
    if t.ndim == 0:
        _b.error("topk: the input must have rank >= 1, got a 0-d tensor")
    if isinstance(k, TensorValue) or isinstance(k, bool) or not isinstance(k, numbers.Integral):
        _b.error(f"topk: k must be a Python int known at compile time, got {k!r}")
    a = norm_axis(-1 if dim is None else dim, t.ndim, what="topk: dim")
    n = t.shape[a]
    k = int(k)
    if not 0 <= k <= n:
        _b.error(f"topk: k ({k}) must be in [0, {n}], the size of dim {a} of the input "
                 f"of shape {t.shape}")
    values, indices = _sort(t, a, bool(largest), "topk")
    if k == n:
        return values, indices
    size = tuple(k if d == a else s for d, s in enumerate(t.shape))
    begin = (0,) * t.ndim
    return slice(values, begin, size), slice(indices, begin, size)


# ---------------------------------------------------------------------------
# State and ordering
# ---------------------------------------------------------------------------

@primitive
def assign(variable, value):
    """Write value into a parameter (ops.assign); returns the new value."""
    v = to_tensor(variable)
    x = to_tensor(value, v.dtype)
    if x.shape != v.shape:
        x = broadcast_to(x, v.shape)
    op = _b.emit(mindir.AssignOp, v.value, x.value)
    return TensorValue(op.result)


@primitive
def depend(value, expr):
    """value, ordered after the side effects producing expr (ops.depend)."""
    v = to_tensor(value)
    deps = [e for e in (expr if isinstance(expr, (tuple, list)) else (expr,)) if isinstance(e, TensorValue)]
    return TensorValue(_b.emit(mindir.DependOp, v.value, [d.value for d in deps]).result)
