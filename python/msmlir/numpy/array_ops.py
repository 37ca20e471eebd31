"""Array manipulation (mindspore.numpy.array_ops): shapes, joining and
splitting, reordering, indexing, padding."""
from __future__ import annotations

import builtins
import numbers

import numpy as onp

from .. import dtype as _dt
from .. import ops
from ..frontend import builder as _b
from ..frontend.values import TensorValue
from ..ops._base import cast_to, const, scalar_const
from ._utils import _api, _axis, _broadcast_shapes, _int, _operands, _prod, _shape, _t

__all__ = [
    "reshape", "ravel", "squeeze", "expand_dims", "transpose", "swapaxes", "moveaxis", "rollaxis",
    "concatenate", "append", "stack", "vstack", "row_stack", "hstack", "dstack", "column_stack",
    "split", "array_split", "hsplit", "vsplit", "dsplit", "tile", "repeat", "broadcast_to",
    "broadcast_arrays", "flip", "fliplr", "flipud", "roll", "rot90", "take", "take_along_axis",
    "where", "select", "choose", "atleast_1d", "atleast_2d", "atleast_3d", "pad", "unravel_index",
    "size", "ndim", "shape",
]


# ---------------------------------------------------------------------------
# Compile-time queries (Python ints, no kernel)
# ---------------------------------------------------------------------------

def _static_shape(a):
    if isinstance(a, TensorValue):
        return a.shape
    if hasattr(a, "asnumpy"):
        return tuple(a.shape)
    return tuple(onp.shape(a))


def shape(a):
    """The shape of `a` as a tuple of ints (mindspore.numpy.shape)."""
    return _static_shape(a)


def ndim(a):
    """The number of dimensions of `a` (mindspore.numpy.ndim)."""
    return len(_static_shape(a))


def size(a, axis=None):
    """The number of elements of `a`, or along `axis` (mindspore.numpy.size)."""
    s = _static_shape(a)
    if axis is None:
        return _prod(s)
    if isinstance(axis, bool) or not isinstance(axis, numbers.Integral):
        raise TypeError(f"msmlir.numpy.size: axis must be an int, got {axis!r}")
    if not -len(s) <= axis < len(s):
        raise ValueError(f"msmlir.numpy.size: axis {axis} is out of range for a tensor of rank {len(s)}")
    return s[axis]


# ---------------------------------------------------------------------------
# Shapes and axis order
# ---------------------------------------------------------------------------

def _reshape(t, new_shape):
    s = list(_shape_with_unknown(new_shape))
    n = _prod(t.shape)
    if s.count(-1) > 1:
        _b.error(f"can only specify one unknown dimension (-1) in {tuple(s)}")
    if -1 in s:
        known = _prod(d for d in s if d != -1)
        if known == 0 or n % known:
            _b.error(f"cannot reshape a tensor of shape {t.shape} into shape {tuple(s)}")
        s[s.index(-1)] = n // known
    if _prod(s) != n:
        _b.error(f"cannot reshape a tensor of shape {t.shape} (size {n}) into shape {tuple(s)}")
    return ops.reshape(t, tuple(s))


def _shape_with_unknown(s):
    if isinstance(s, TensorValue):
        _b.error("the new shape must be known at compile time (a tuple of ints), got a tensor")
    if isinstance(s, (numbers.Integral, onp.integer)) and not isinstance(s, bool):
        s = (int(s),)
    if not isinstance(s, (list, tuple)):
        _b.error(f"the new shape must be an int or a tuple of ints, got {s!r}")
    out = tuple(_int(d, "shape entry") for d in s)
    if builtins.any(d < -1 for d in out):
        _b.error(f"invalid shape {out}")
    return out


@_api
def reshape(x, new_shape):
    """x with a new shape of the same size; one dim may be -1 (mindspore.numpy.reshape)."""
    return _reshape(_t(x), new_shape)


@_api
def ravel(x):
    """The flattened tensor (mindspore.numpy.ravel)."""
    return ops.reshape(_t(x), (-1,))


@_api
def squeeze(a, axis=None):
    """Removes unit dims: those in `axis`, or all (mindspore.numpy.squeeze)."""
    t = _t(a)
    if axis is None:
        if 1 not in t.shape:
            return t
        return ops.reshape(t, tuple(d for d in t.shape if d != 1))
    axes = axis if isinstance(axis, (list, tuple)) else (axis,)
    axes = [_axis(v, t.ndim) for v in axes]
    for v in axes:
        if t.shape[v] != 1:
            _b.error(f"cannot select an axis to squeeze out which has size not equal to one "
                     f"(axis {v} has size {t.shape[v]})")
    if not axes:
        return t
    return ops.reshape(t, tuple(d for i, d in enumerate(t.shape) if i not in axes))


@_api
def expand_dims(a, axis):
    """Inserts unit dims at the positions `axis` (int or tuple) of the result
    (mindspore.numpy.expand_dims)."""
    t = _t(a)
    axes = axis if isinstance(axis, (list, tuple)) else (axis,)
    nd = t.ndim + len(axes)
    pos = sorted(_axis(v, nd) for v in axes)
    if len(set(pos)) != len(pos):
        _b.error(f"repeated axis in {axis!r}")
    dims = iter(t.shape)
    return ops.reshape(t, tuple(1 if i in pos else next(dims) for i in range(nd)))


@_api
def transpose(a, axes=None):
    """Permutes the dims (reverses them when axes is None) (mindspore.numpy.transpose)."""
    t = _t(a)
    if axes is None:
        perm = tuple(range(t.ndim - 1, -1, -1))
    else:
        if not isinstance(axes, (list, tuple)):
            _b.error(f"axes must be a tuple of ints, got {axes!r}")
        if len(axes) != t.ndim:
            _b.error(f"axes {tuple(axes)} do not match a tensor of rank {t.ndim}")
        perm = tuple(_axis(v, t.ndim) for v in axes)
        if sorted(perm) != list(range(t.ndim)):
            _b.error(f"repeated axis in transpose: {tuple(axes)}")
    if t.ndim < 2:
        return t
    return ops.transpose(t, perm)


@_api
def swapaxes(x, axis1, axis2):
    """Interchanges two axes (mindspore.numpy.swapaxes)."""
    t = _t(x)
    a, b = _axis(axis1, t.ndim, "axis1"), _axis(axis2, t.ndim, "axis2")
    perm = list(range(t.ndim))
    perm[a], perm[b] = perm[b], perm[a]
    return ops.transpose(t, tuple(perm)) if a != b else t


def _moveaxis(t, source, destination):
    src = source if isinstance(source, (list, tuple)) else (source,)
    dst = destination if isinstance(destination, (list, tuple)) else (destination,)
    if len(src) != len(dst):
        _b.error("source and destination must have the same number of elements")
    src = [_axis(v, t.ndim, "source") for v in src]
    dst = [_axis(v, t.ndim, "destination") for v in dst]
    if len(set(src)) != len(src) or len(set(dst)) != len(dst):
        _b.error("repeated axis in source or destination")
    order = [d for d in range(t.ndim) if d not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    if order == list(range(t.ndim)):
        return t
    return ops.transpose(t, tuple(order))


@_api
def moveaxis(a, source, destination):
    """Moves axes to new positions, keeping the order of the others (mindspore.numpy.moveaxis)."""
    return _moveaxis(_t(a), source, destination)


@_api
def rollaxis(x, axis, start=0):
    """Moves `axis` to just before position `start` (mindspore.numpy.rollaxis)."""
    t = _t(x)
    n = t.ndim
    ax = _axis(axis, n)
    start = _int(start, "start")
    if start < 0:
        start += n
    if not 0 <= start <= n:
        _b.error(f"start {start} is out of range for a tensor of rank {n}")
    if ax < start:
        start -= 1
    if ax == start:
        return t
    order = [d for d in range(n) if d != ax]
    order.insert(start, ax)
    return ops.transpose(t, tuple(order))


# ---------------------------------------------------------------------------
# Joining
# ---------------------------------------------------------------------------

def _tensors(arrays, what):
    if isinstance(arrays, TensorValue) or not isinstance(arrays, (list, tuple)):
        if isinstance(arrays, TensorValue) or hasattr(arrays, "shape"):
            t = _t(arrays)
            if t.ndim == 0:
                _b.error(f"{what} needs a sequence of tensors, got a 0-d tensor")
            return list(ops.unstack(t, 0))
        _b.error(f"{what} needs a sequence of tensors, got {type(arrays).__name__}")
    if not arrays:
        _b.error(f"{what} needs at least one tensor")
    return list(_operands(*arrays, broadcast=False)) if len(arrays) > 1 else [_t(arrays[0])]


def _concat(ts, ax):
    nd = ts[0].ndim
    for i, t in enumerate(ts):
        if t.ndim != nd:
            _b.error(f"all the input tensors must have the same number of dimensions: tensor 0 has "
                     f"rank {nd}, tensor {i} has rank {t.ndim}")
        for d in range(nd):
            if d != ax and t.shape[d] != ts[0].shape[d]:
                _b.error(f"the input shapes {ts[0].shape} and {t.shape} (tensor {i}) differ in "
                         f"dim {d}, which is not the concatenation axis {ax}")
    return ops.concat(ts, ax) if len(ts) > 1 else ts[0]


@_api
def concatenate(arrays, axis=0):
    """Joins tensors along an existing axis; axis None flattens them first
    (mindspore.numpy.concatenate)."""
    ts = _tensors(arrays, "concatenate")
    if axis is None:
        return _concat([ops.reshape(t, (-1,)) for t in ts], 0)
    if ts[0].ndim == 0:
        _b.error("zero-dimensional tensors cannot be concatenated")
    return _concat(ts, _axis(axis, ts[0].ndim))


@_api
def append(arr, values, axis=None):
    """arr with values appended along `axis` (None: both flattened) (mindspore.numpy.append)."""
    a, v = _operands(arr, values, broadcast=False)
    if axis is None:
        return _concat([ops.reshape(a, (-1,)), ops.reshape(v, (-1,))], 0)
    return _concat([a, v], _axis(axis, a.ndim))


@_api
def stack(arrays, axis=0):
    """Joins equally shaped tensors along a new axis (mindspore.numpy.stack)."""
    ts = _tensors(arrays, "stack")
    for i, t in enumerate(ts):
        if t.shape != ts[0].shape:
            _b.error(f"all input tensors must have the same shape: {ts[0].shape} and {t.shape} "
                     f"(tensor {i})")
    return ops.stack(ts, _axis(axis, ts[0].ndim + 1))


def _atleast(t, n):
    if t.ndim >= n:
        return t
    if n == 2 or t.ndim == 0:
        return ops.reshape(t, (1,) * (n - t.ndim) + t.shape)
    # 3-D: (N,) -> (1, N, 1); (M, N) -> (M, N, 1)
    if t.ndim == 1:
        return ops.reshape(t, (1, t.shape[0], 1))
    return ops.reshape(t, t.shape + (1,))


def _atleast_api(n):
    def fn(*arys):
        if not arys:
            _b.error("needs at least one input")
        outs = [_atleast(_t(a), n) for a in arys]
        return outs[0] if len(outs) == 1 else tuple(outs)
    fn.__name__ = fn.__qualname__ = f"atleast_{n}d"
    fn.__doc__ = (f"Views of the inputs with at least {n} dims (mindspore.numpy.atleast_{n}d); "
                  f"one input gives a tensor, several a tuple.")
    return _api(fn)


atleast_1d = _atleast_api(1)
atleast_2d = _atleast_api(2)
atleast_3d = _atleast_api(3)


@_api
def vstack(tup):
    """Stacks along dim 0 after making inputs at least 2-D (mindspore.numpy.vstack)."""
    return _concat([_atleast(t, 2) for t in _tensors(tup, "vstack")], 0)


row_stack = vstack


@_api
def hstack(tup):
    """Stacks along dim 1 (dim 0 for 1-D inputs) (mindspore.numpy.hstack)."""
    ts = [_atleast(t, 1) for t in _tensors(tup, "hstack")]
    return _concat(ts, 0 if ts[0].ndim == 1 else 1)


@_api
def dstack(tup):
    """Stacks along dim 2 after making inputs at least 3-D (mindspore.numpy.dstack)."""
    return _concat([_atleast(t, 3) for t in _tensors(tup, "dstack")], 2)


@_api
def column_stack(tup):
    """Stacks 1-D tensors as columns (and 2-D ones as they are) into a 2-D tensor
    (mindspore.numpy.column_stack)."""
    ts = []
    for t in _tensors(tup, "column_stack"):
        if t.ndim < 2:
            t = ops.reshape(t, (-1, 1))
        ts.append(t)
    return _concat(ts, 1)


# ---------------------------------------------------------------------------
# Splitting
# ---------------------------------------------------------------------------

def _split_at(t, ax, bounds):
    outs = []
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        if hi <= lo:
            _b.error(f"the split gives an empty section [{lo}:{hi}] along axis {ax} "
                     f"(zero-size tensors are not supported)")
        begin = [0] * t.ndim
        end = list(t.shape)
        begin[ax], end[ax] = lo, hi
        outs.append(ops.strided_slice(t, begin, end, [1] * t.ndim) if (lo, hi) != (0, t.shape[ax]) else t)
    return tuple(outs)


def _split(t, indices_or_sections, axis, equal, what):
    ax = _axis(axis, t.ndim)
    n = t.shape[ax]
    if isinstance(indices_or_sections, (numbers.Integral, onp.integer)) and not isinstance(
            indices_or_sections, bool):
        k = int(indices_or_sections)
        if k <= 0:
            _b.error(f"number of sections must be larger than 0, got {k}")
        if equal and n % k:
            _b.error(f"array split does not result in an equal division: {n} into {k} sections")
        q, r = divmod(n, k)
        sizes = [q + 1] * r + [q] * (k - r)
        bounds = [0]
        for s in sizes:
            bounds.append(bounds[-1] + s)
    elif isinstance(indices_or_sections, (list, tuple)):
        idx = [_int(i, "split index") for i in indices_or_sections]
        bounds = [0] + [builtins.min(builtins.max(i + n if i < 0 else i, 0), n) for i in idx] + [n]
    else:
        _b.error(f"indices_or_sections must be an int or a list of ints, got {indices_or_sections!r}")
    return _split_at(t, ax, bounds)


@_api
def split(x, indices_or_sections, axis=0):
    """Splits into equal sections, or at the given indices (mindspore.numpy.split);
    returns a tuple."""
    return _split(_t(x), indices_or_sections, axis, True, "split")


@_api
def array_split(x, indices_or_sections, axis=0):
    """Like split, but N sections need not divide the axis (mindspore.numpy.array_split)."""
    return _split(_t(x), indices_or_sections, axis, False, "array_split")


@_api
def hsplit(x, indices_or_sections):
    """split along dim 1 (dim 0 for 1-D) (mindspore.numpy.hsplit)."""
    t = _t(x)
    if t.ndim == 0:
        _b.error("hsplit only works on tensors of 1 or more dimensions")
    return _split(t, indices_or_sections, 1 if t.ndim > 1 else 0, True, "hsplit")


@_api
def vsplit(x, indices_or_sections):
    """split along dim 0 of a tensor of at least 2 dims (mindspore.numpy.vsplit)."""
    t = _t(x)
    if t.ndim < 2:
        _b.error("vsplit only works on tensors of 2 or more dimensions")
    return _split(t, indices_or_sections, 0, True, "vsplit")


@_api
def dsplit(x, indices_or_sections):
    """split along dim 2 of a tensor of at least 3 dims (mindspore.numpy.dsplit)."""
    t = _t(x)
    if t.ndim < 3:
        _b.error("dsplit only works on tensors of 3 or more dimensions")
    return _split(t, indices_or_sections, 2, True, "dsplit")


# ---------------------------------------------------------------------------
# Repetition and broadcasting
# ---------------------------------------------------------------------------

@_api
def tile(a, reps):
    """a repeated reps[i] times along dim i (mindspore.numpy.tile)."""
    t = _t(a)
    r = _shape(reps, "reps")
    if builtins.any(v == 0 for v in r):
        _b.error("zero repetitions (zero-size tensors) are not supported")
    if t.ndim == 0 and not r:
        return t
    return ops.tile(t, r)


def _gather_const(t, idx, ax):
    return ops.gather(t, const(onp.asarray(idx, dtype=onp.int32)), ax)


@_api
def repeat(a, repeats, axis=None):
    """Repeats each element `repeats` times (an int, or one count per element) along
    `axis` (None: of the flattened tensor) (mindspore.numpy.repeat)."""
    t = _t(a)
    if axis is None:
        t = ops.reshape(t, (-1,))
        axis = 0
    if t.ndim == 0:
        t = ops.reshape(t, (1,))
    ax = _axis(axis, t.ndim)
    n = t.shape[ax]
    if isinstance(repeats, (list, tuple)) and len(repeats) == 1:
        repeats = repeats[0]
    if isinstance(repeats, (numbers.Integral, onp.integer)) and not isinstance(repeats, bool):
        r = int(repeats)
        if r <= 0:
            _b.error(f"repeats must be positive, got {r} (zero-size tensors are not supported)")
        if r == 1:
            return t
        e = ops.expand_dims(t, ax + 1)
        s = list(e.shape)
        s[ax + 1] = r
        out_shape = list(t.shape)
        out_shape[ax] = n * r
        return ops.reshape(ops.broadcast_to(e, tuple(s)), tuple(out_shape))
    if isinstance(repeats, (list, tuple)):
        reps = [_int(v, "repeats entry") for v in repeats]
        if len(reps) != n:
            _b.error(f"repeats has {len(reps)} entries, axis {ax} has size {n}")
        if builtins.any(v < 0 for v in reps) or builtins.sum(reps) == 0:
            _b.error("repeats must be non-negative with a positive total")
        idx = [i for i, v in enumerate(reps) for _ in range(v)]
        return _gather_const(t, idx, ax)
    _b.error(f"repeats must be an int or a sequence of ints known at compile time, got {repeats!r}")


def _check_broadcast(src, dst):
    if len(src) > len(dst):
        return False
    for s, d in zip(reversed(src), reversed(dst)):
        if s != d and s != 1:
            return False
    return True


@_api
def broadcast_to(array, shape):
    """array broadcast to `shape` (mindspore.numpy.broadcast_to)."""
    t = _t(array)
    s = _shape(shape)
    if not _check_broadcast(t.shape, s):
        _b.error(f"cannot broadcast a tensor of shape {t.shape} to shape {s}")
    return ops.broadcast_to(t, s) if t.shape != s else t


@_api
def broadcast_arrays(*args):
    """The inputs broadcast against each other (mindspore.numpy.broadcast_arrays); a tuple."""
    ts = [_t(a) for a in args]
    s = _broadcast_shapes(*(t.shape for t in ts))
    return tuple(ops.broadcast_to(t, s) if t.shape != s else t for t in ts)


# ---------------------------------------------------------------------------
# Reordering
# ---------------------------------------------------------------------------

def _flip(t, axes):
    if not axes:
        return t
    begin, end, strides = [], [], []
    for d, n in enumerate(t.shape):
        if d in axes:
            b, e, s = builtins.slice(None, None, -1).indices(n)
        else:
            b, e, s = 0, n, 1
        begin.append(b), end.append(e), strides.append(s)
    return ops.strided_slice(t, begin, end, strides)


@_api
def flip(m, axis=None):
    """Reverses the order of elements along `axis` (None: all) (mindspore.numpy.flip)."""
    t = _t(m)
    if axis is None:
        axes = tuple(range(t.ndim))
    else:
        axes = tuple(_axis(v, t.ndim) for v in (axis if isinstance(axis, (list, tuple)) else (axis,)))
    return _flip(t, axes)


@_api
def fliplr(m):
    """Reverses dim 1 (mindspore.numpy.fliplr)."""
    t = _t(m)
    if t.ndim < 2:
        _b.error("the input must be at least 2-D")
    return _flip(t, (1,))


@_api
def flipud(m):
    """Reverses dim 0 (mindspore.numpy.flipud)."""
    t = _t(m)
    if t.ndim < 1:
        _b.error("the input must be at least 1-D")
    return _flip(t, (0,))


def _roll1(t, shift, ax):
    n = t.shape[ax]
    s = shift % n
    if s == 0:
        return t
    lo, hi = _split_at(t, ax, [0, n - s, n])
    return ops.concat([hi, lo], ax)


@_api
def roll(a, shift, axis=None):
    """Rolls elements along `axis` (None: of the flattened tensor, then reshaped)
    (mindspore.numpy.roll)."""
    t = _t(a)
    if axis is None:
        flat = ops.reshape(t, (-1,))
        return ops.reshape(_roll1(flat, _int(shift, "shift"), 0), t.shape)
    axes = axis if isinstance(axis, (list, tuple)) else (axis,)
    shifts = shift if isinstance(shift, (list, tuple)) else (shift,)
    if len(shifts) == 1 and len(axes) > 1:
        shifts = shifts * len(axes)
    if len(axes) == 1 and len(shifts) > 1:
        axes = axes * len(shifts)
    if len(axes) != len(shifts):
        _b.error(f"shift and axis must have the same length, got {len(shifts)} and {len(axes)}")
    total = {}
    for ax, sh in zip(axes, shifts):
        d = _axis(ax, t.ndim)
        total[d] = total.get(d, 0) + _int(sh, "shift")
    for d, sh in total.items():
        t = _roll1(t, sh, d)
    return t


@_api
def rot90(a, k=1, axes=(0, 1)):
    """Rotates by 90 degrees k times in the plane of `axes`, from the first axis
    toward the second (mindspore.numpy.rot90)."""
    t = _t(a)
    if not isinstance(axes, (list, tuple)) or len(axes) != 2:
        _b.error(f"axes must be a pair of ints, got {axes!r}")
    if t.ndim < 2:
        _b.error("the input must be at least 2-D")
    a0, a1 = _axis(axes[0], t.ndim), _axis(axes[1], t.ndim)
    if a0 == a1:
        _b.error(f"axes must be different, got {tuple(axes)}")
    k = _int(k, "k") % 4
    if k == 0:
        return t
    if k == 2:
        return _flip(t, (a0, a1))
    perm = list(range(t.ndim))
    perm[a0], perm[a1] = perm[a1], perm[a0]
    if k == 1:
        return ops.transpose(_flip(t, (a1,)), tuple(perm))
    return _flip(ops.transpose(t, tuple(perm)), (a1,))


# ---------------------------------------------------------------------------
# Indexing and selection
# ---------------------------------------------------------------------------

def _index_tensor(indices, what):
    if isinstance(indices, TensorValue) or hasattr(indices, "asnumpy") or isinstance(indices, onp.ndarray):
        i = _t(indices)
        if not i.dtype.is_int:
            _b.error(f"{what} must be integers, got {i.dtype}")
        return i
    arr = onp.asarray(indices)
    if arr.dtype.kind not in "iu":
        _b.error(f"{what} must be integers, got {indices!r}")
    return arr


def _fix_indices(idx, n, mode, what):
    """Index handling: 'clip' (to [0, n-1]), 'wrap' (modulo n), 'raise' (negative
    indices count from the end; out-of-range constant indices are an error,
    tensor indices are clipped since compiled code cannot raise)."""
    if mode not in ("raise", "wrap", "clip"):
        _b.error(f"mode must be 'raise', 'wrap' or 'clip', got {mode!r}")
    if isinstance(idx, onp.ndarray):
        if mode == "raise":
            if idx.size and (idx.min() < -n or idx.max() >= n):
                _b.error(f"{what} out of range for an axis of size {n}: {idx.tolist()}")
            idx = onp.where(idx < 0, idx + n, idx)
        elif mode == "wrap":
            idx = onp.mod(idx, n)
        else:
            idx = onp.clip(idx, 0, n - 1)
        return const(idx.astype(onp.int32))
    i = idx
    if mode == "wrap":
        return ops.floor_mod(i, scalar_const(n, i.dtype))
    if mode == "raise":
        i = ops.select(ops.less(i, 0), ops.add(i, scalar_const(n, i.dtype)), i)
    return ops.clamp(i, scalar_const(0, i.dtype), scalar_const(n - 1, i.dtype))


@_api
def take(a, indices, axis=None, mode="clip"):
    """Elements of `a` at `indices` along `axis` (None: of the flattened tensor)
    (mindspore.numpy.take; default mode 'clip', see _fix_indices)."""
    t = _t(a)
    if axis is None:
        t = ops.reshape(t, (-1,))
        axis = 0
    ax = _axis(axis, t.ndim)
    raw = _index_tensor(indices, "indices")
    idx = _fix_indices(raw, t.shape[ax], mode, "indices")
    if idx.ndim == 0:
        out = ops.gather(t, ops.reshape(idx, (1,)), ax)
        return ops.squeeze(out, ax)
    return ops.gather(t, idx, ax)


def _flat_positions(out_shape, ax, idx, src_shape):
    """Flat (row-major) positions in a tensor of shape src_shape of the elements
    whose index along `ax` is idx (of shape out_shape) and whose other indices
    are their own coordinates."""
    strides = [1] * len(src_shape)
    for d in range(len(src_shape) - 2, -1, -1):
        strides[d] = strides[d + 1] * src_shape[d + 1]
    pos = ops.mul(idx, scalar_const(strides[ax], idx.dtype)) if strides[ax] != 1 else idx
    for d, n in enumerate(out_shape):
        if d == ax or n == 1:
            continue
        s = [1] * len(out_shape)
        s[d] = n
        iota = ops.reshape(ops.arange(0, n, 1, dtype=idx.dtype), tuple(s))
        pos = ops.add(pos, ops.mul(iota, scalar_const(strides[d], idx.dtype)))
    return pos


@_api
def take_along_axis(arr, indices, axis):
    """Values of arr at `indices` along `axis`, matched on the other dims
    (mindspore.numpy.take_along_axis); negative indices count from the end."""
    t = _t(arr)
    i = _index_tensor(indices, "indices")
    if isinstance(i, onp.ndarray):
        i = const(i.astype(onp.int32))
    if axis is None:
        t = ops.reshape(t, (-1,))
        if i.ndim != 1:
            _b.error("with axis=None the indices must be 1-D")
        axis = 0
    if i.ndim != t.ndim:
        _b.error(f"indices (rank {i.ndim}) and arr (rank {t.ndim}) must have the same number "
                 f"of dimensions")
    ax = _axis(axis, t.ndim)
    other = _broadcast_shapes(tuple(d for k, d in enumerate(t.shape) if k != ax),
                              tuple(d for k, d in enumerate(i.shape) if k != ax))
    out_shape = other[:ax] + (i.shape[ax],) + other[ax:]
    src_shape = other[:ax] + (t.shape[ax],) + other[ax:]
    if t.shape != src_shape:
        t = ops.broadcast_to(t, src_shape)
    if i.shape != out_shape:
        i = ops.broadcast_to(i, out_shape)
    n = t.shape[ax]
    i = ops.select(ops.less(i, 0), ops.add(i, scalar_const(n, i.dtype)), i)
    pos = _flat_positions(out_shape, ax, i, src_shape)
    return ops.gather(ops.reshape(t, (-1,)), pos, 0)


@_api
def where(condition, x=None, y=None):
    """x where condition is true, else y, broadcasting (mindspore.numpy.where)."""
    if x is None and y is None:
        _b.error("the one-argument form (indices of non-zero elements) has a data-dependent "
                 "shape and is not supported; pass x and y")
    if x is None or y is None:
        _b.error("either both or neither of x and y should be given")
    c = _t(condition)
    a, b = _operands(x, y)
    _broadcast_shapes(c.shape, a.shape, b.shape)
    return ops.select(c, a, b)


@_api
def select(condlist, choicelist, default=0):
    """Elements of choicelist[i] where condlist[i] is the first true condition,
    else `default` (mindspore.numpy.select)."""
    if not isinstance(condlist, (list, tuple)) or not isinstance(choicelist, (list, tuple)):
        _b.error("condlist and choicelist must be sequences")
    if len(condlist) != len(choicelist):
        _b.error(f"condlist and choicelist must have the same length, got {len(condlist)} "
                 f"and {len(choicelist)}")
    if not condlist:
        _b.error("condlist must not be empty")
    choices = _operands(*choicelist, default, broadcast=False)
    conds = [_t(c) for c in condlist]
    shape = _broadcast_shapes(*(c.shape for c in conds), *(c.shape for c in choices))
    out = ops.broadcast_to(choices[-1], shape)
    for c, v in zip(reversed(conds), reversed(choices[:-1])):
        out = ops.select(c, v, out)
    return out


@_api
def choose(a, choices, mode="clip"):
    """out[i] = choices[a[i]][i], everything broadcast (mindspore.numpy.choose;
    mode 'clip' or 'wrap', 'raise' acts as 'clip')."""
    idx = _t(a)
    if not idx.dtype.is_int:
        _b.error(f"the index tensor must be integer, got {idx.dtype}")
    cs = _tensors(choices, "choose")
    shape = _broadcast_shapes(idx.shape, *(c.shape for c in cs))
    stacked = ops.stack([ops.broadcast_to(c, shape) if c.shape != shape else c for c in cs], 0)
    idx = ops.broadcast_to(idx, shape) if idx.shape != shape else idx
    n = len(cs)
    if mode == "wrap":
        idx = ops.floor_mod(idx, scalar_const(n, idx.dtype))
    elif mode in ("clip", "raise"):
        idx = ops.clamp(idx, scalar_const(0, idx.dtype), scalar_const(n - 1, idx.dtype))
    else:
        _b.error(f"mode must be 'raise', 'wrap' or 'clip', got {mode!r}")
    idx = ops.reshape(idx, (1,) + shape)
    pos = _flat_positions((1,) + shape, 0, idx, (n,) + shape)
    return ops.reshape(ops.gather(ops.reshape(stacked, (-1,)), pos, 0), shape)


@_api
def unravel_index(indices, shape, order="C"):
    """The coordinates in `shape` of flat indices (mindspore.numpy.unravel_index);
    a tuple of int32 tensors."""
    if order not in ("C", "F"):
        _b.error(f"order must be 'C' or 'F', got {order!r}")
    s = _shape(shape)
    i = _t(indices)
    if not i.dtype.is_int:
        _b.error(f"indices must be integers, got {i.dtype}")
    dims = list(range(len(s)))
    if order == "F":
        dims = dims[::-1]
    out = [None] * len(s)
    rest = i
    for d in reversed(dims):
        n = scalar_const(s[d], i.dtype)
        out[d] = ops.floor_mod(rest, n)
        rest = ops.floor_div(rest, n)
    return tuple(out)


# ---------------------------------------------------------------------------
# Padding
# ---------------------------------------------------------------------------

def _pairs(v, nd, what):
    """numpy's per-axis (before, after) broadcasting of pad_width-like arguments."""
    if isinstance(v, TensorValue):
        _b.error(f"{what} must be known at compile time")
    try:
        arr = onp.broadcast_to(onp.asarray(v), (nd, 2))
    except ValueError:
        _b.error(f"{what} {v!r} cannot be broadcast to ({nd}, 2)")
    return [tuple(row) for row in arr.tolist()]


def _pad_index(n, before, after, mode):
    idx = onp.arange(-before, n + after)
    if mode == "edge":
        return onp.clip(idx, 0, n - 1)
    if mode == "wrap":
        return onp.mod(idx, n)
    if mode == "symmetric":
        p = 2 * n
        m = onp.mod(idx, p)
        return onp.where(m < n, m, p - 1 - m)
    # reflect
    if n == 1:
        return onp.zeros_like(idx)
    p = 2 * (n - 1)
    m = onp.mod(idx, p)
    return onp.where(m < n, m, p - m)


@_api
def pad(arr, pad_width, mode="constant", stat_length=None, constant_values=0, end_values=0,
        reflect_type="even"):
    """Pads a tensor (mindspore.numpy.pad). Modes: 'constant' (per-axis
    constant_values), 'edge', 'reflect', 'symmetric', 'wrap' (any pad width),
    'maximum', 'minimum', 'mean' (over the whole axis, or the stat_length
    elements next to the edge), 'empty' (zeros)."""
    t = _t(arr)
    nd = t.ndim
    if nd == 0:
        _b.error("cannot pad a 0-d tensor")
    widths = _pairs(pad_width, nd, "pad_width")
    for b, a in widths:
        if not (isinstance(b, numbers.Integral) and isinstance(a, numbers.Integral)) or b < 0 or a < 0:
            _b.error(f"pad_width must contain non-negative ints, got {pad_width!r}")
    if reflect_type != "even":
        _b.error("only reflect_type='even' is supported")
    if mode in ("constant", "empty"):
        vals = _pairs(0 if mode == "empty" else constant_values, nd, "constant_values")
        flat = {v for pair in vals for v in pair}
        if len(flat) == 1:
            p = []
            for b, a in reversed(widths):
                p += [b, a]
            return ops.pad(t, tuple(p), value=flat.pop())
        for d in range(nd):
            for side in (0, 1):
                if widths[d][side]:
                    p = [0] * (2 * nd)
                    p[2 * (nd - 1 - d) + side] = widths[d][side]
                    t = ops.pad(t, tuple(p), value=vals[d][side])
        return t
    if mode in ("edge", "wrap", "symmetric", "reflect"):
        for d in range(nd):
            b, a = widths[d]
            if b == 0 and a == 0:
                continue
            t = _gather_const(t, _pad_index(t.shape[d], b, a, mode), d)
        return t
    if mode in ("maximum", "minimum", "mean"):
        lens = _pairs(stat_length, nd, "stat_length") if stat_length is not None else None
        for d in range(nd):
            b, a = widths[d]
            n = t.shape[d]
            parts = []
            for side, w in ((0, b), (1, a)):
                if not w:
                    parts.append(None)
                    continue
                k = n if lens is None else builtins.max(1, builtins.min(int(lens[d][side]), n))
                lo, hi = (0, k) if side == 0 else (n - k, n)
                begin = [0] * nd
                end = list(t.shape)
                begin[d], end[d] = lo, hi
                region = ops.strided_slice(t, begin, end, [1] * nd) if (lo, hi) != (0, n) else t
                if mode == "maximum":
                    v = ops.reduce_max(region, (d,), True)
                elif mode == "minimum":
                    v = ops.reduce_min(region, (d,), True)
                else:
                    v = ops.reduce_mean(cast_to(region, _dt.float32) if not region.dtype.is_float
                                        else region, (d,), True)
                    if not t.dtype.is_float:
                        v = cast_to(ops.round(v), t.dtype)
                s = list(t.shape)
                s[d] = w
                parts.append(ops.broadcast_to(v, tuple(s)))
            pieces = ([parts[0]] if parts[0] is not None else []) + [t] + (
                [parts[1]] if parts[1] is not None else [])
            t = ops.concat(pieces, d)
        return t
    _b.error(f"mode {mode!r} is not supported (supported: constant, edge, reflect, symmetric, "
             f"wrap, maximum, minimum, mean, empty)")
