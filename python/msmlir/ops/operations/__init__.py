"""`mindspore.ops.operations` (`P`): MindSpore's Primitive classes, generated from one table.

Each row of `TABLE` is (class name, constructor signature, implementation,
category): the constructor's arguments become the primitive's attributes (as
MindSpore's `prim_attr_register` does: `prim.attrs`, and also plain attributes,
`P.ReduceSum(keep_dims=True).keep_dims`), and the implementation composes the
functional ops (`msmlir.ops`, `msmlir.numpy`) from those attributes and the
call's inputs. The classes derive from `msmlir.ops.primitive.Primitive`, so
`P.Cast()(x, ms.float16)` runs as one cached kernel in PyNative mode and builds
IR inside `jit` or a Cell's `construct`. Rows whose `static` flag is set
(Shape, DType, Rank, ...) compute on the host at compile time.

`MISSING` names the primitives of MindSpore's most used set that msmlir does not
provide, with the reason (data-dependent output shapes, collective
communication, ...); `python -m msmlir.compat` reports both.

Layer 5 (above msmlir.numpy and msmlir.frontend): `msmlir.ops` itself (layer 3)
exposes these classes through msmlir/providers.py.
"""
from __future__ import annotations

import builtins
import inspect
import numbers

import numpy as _np

from ... import dtype as _dt
from ... import numpy as mnp
from ... import ops as F
from ...frontend import builder as _b
from ...frontend import fallback as _fallback
from ..primitive import (Primitive, PrimitiveWithCheck, PrimitiveWithInfer,  # noqa: F401
                         constexpr, prim_attr_register)
from ..nn import (BatchNorm, Dropout, LayerNorm, SoftmaxCrossEntropyWithLogits,  # noqa: F401
                  SparseSoftmaxCrossEntropyWithLogits)
from ..custom import Custom  # noqa: F401
from ..host import host_call as _host_call
from ..summary import summary as _summary
from ..dynamic import masked_select as _masked_select, nonzero as _nonzero, unique as _unique
from . import _attention as _att, _extra as _ex, _grad, _linalg, _moe, _optim, \
    _recurrent as _rnn
from ..comm import all_gather as _all_gather, all_reduce as _all_reduce, \
    all_to_all as _all_to_all, broadcast as _broadcast, reduce_scatter as _reduce_scatter

# ---------------------------------------------------------------------------
# Helpers of the table's implementations
# ---------------------------------------------------------------------------


def _axis(a):
    """MindSpore's reduction axis: () or [] = all axes."""
    if a is None:
        return ()
    return tuple(a) if isinstance(a, list) else a


def _axis_or_all(a):
    """_axis, with None for all axes (axis 0 stays 0)."""
    a = _axis(a)
    return None if a == () else a


def _rank(s, x):
    if x is None or isinstance(x, (numbers.Number, str, list, tuple)):
        _b.error(f"For 'Rank', the input must be a Tensor, but got {type(x).__name__}.",
                 kind=TypeError)
    return F.rank(x)


def _split(s, x):
    t = F.to_tensor(x)
    a = s.axis
    dim = t.shape[a if a >= 0 else a + t.ndim]
    n = s.output_num
    if n <= 0 or dim % n:
        _b.error(f"For 'Split', the size {dim} of dim {a} is not divisible by output_num {n}")
    out = F.split(t, dim // n, a)
    return tuple(out)


def _squeeze(s, x):
    axis = s.axis
    if axis == () or axis == []:
        return F.squeeze(x)
    return F.squeeze(x, axis)


def _softmax(fn, s, x):
    axis = s.axis
    if isinstance(axis, (tuple, list)):
        if len(axis) != 1:
            _b.error(f"For '{s.name}', only one axis is supported, got {axis}")
        axis = axis[0]
    return fn(x, axis)


def _reduce_sum(s, x, axis=()):
    """P.ReduceSum keeps the input dtype, bool included (True where any element is; MindSpore
    2.10, recorded), where ops.sum sums bool/int to int64."""
    out = F.reduce_sum(x, _axis(axis), s.keep_dims)
    return F.cast(out, _dt.bool_) if F.to_tensor(x).dtype == _dt.bool_ else out


def _arg_with_value(fn, s, x):
    """(index, value); the index is int64 as MindSpore 2.10's ArgMax/MinWithValue."""
    values, index = fn(x, s.axis, s.keep_dims)
    return F.cast(index, _dt.int64), values


def _strided_slice(s, x, begin, end, strides):
    """x[begin:end:strides] with MindSpore's five bit masks, as a Python index."""
    t = F.to_tensor(x)
    begin, end, strides = tuple(begin), tuple(end), tuple(strides)
    if not len(begin) == len(end) == len(strides):
        _b.error("For 'StridedSlice', begin, end and strides must have the same length")
    index = []
    for i in range(len(begin)):
        bit = 1 << i
        if s.ellipsis_mask & bit:
            index.append(Ellipsis)
        elif s.new_axis_mask & bit:
            index.append(None)
        elif s.shrink_axis_mask & bit:
            index.append(begin[i])
        else:
            index.append(builtins.slice(None if s.begin_mask & bit else begin[i],
                                        None if s.end_mask & bit else end[i], strides[i]))
    return F.getitem(t, tuple(index))


def _pad(s, x):
    p = s.paddings
    t = F.to_tensor(x)
    if len(p) != t.ndim:
        _b.error(f"For 'Pad', paddings must have one (before, after) pair per dim ({t.ndim}), "
                 f"got {p}")
    flat = []
    for before, after in reversed([tuple(q) for q in p]):
        flat += [before, after]
    return F.pad(t, tuple(flat))


def _conv2d(s, x, w):
    if s.data_format != "NCHW":
        _b.error("For 'Conv2D', only data_format='NCHW' is supported")
    pad = s.pad
    return F.conv2d(x, w, None, s.stride, s.pad_mode, pad, s.dilation, s.group)


def _pool(fn, s, x):
    if s.data_format != "NCHW":
        _b.error(f"For '{s.name}', only data_format='NCHW' is supported")
    return fn(x, s.kernel_size, s.strides, 0, s.pad_mode.lower())


def _print(s, *args):
    if _b.current() is None:
        print(*args)
        return None
    return _fallback.host_print(args, {})


def _cumsum(s, x, axis):
    out = F.cumsum(x, axis, exclusive=s.exclusive, reverse=s.reverse)
    return out


def _cumprod(s, x, axis):
    t = F.to_tensor(x)
    if s.reverse:
        t = F.flip(t, axis)
    out = mnp.cumprod(t, axis)
    if s.exclusive:
        a = axis if axis >= 0 else axis + t.ndim
        ones = F.ones(tuple(1 if d == a else n for d, n in enumerate(t.shape)), out.dtype)
        rest = F.slice(out, (0,) * t.ndim,
                       tuple(n - 1 if d == a else n for d, n in enumerate(t.shape)))
        out = F.concat((ones, rest), a)
    return F.flip(out, axis) if s.reverse else out


def _apply_momentum(s, var, accum, lr, grad, momentum):
    acc = F.assign(accum, F.add(F.mul(accum, momentum), grad))
    if s.use_nesterov:
        step = F.add(F.mul(grad, lr), F.mul(F.mul(acc, momentum), lr))
    else:
        step = F.mul(acc, lr)
    return F.assign(var, F.sub(var, step))


def _reduce(loss, reduction):
    if reduction == "none":
        return loss
    return F.reduce_sum(loss) if reduction == "sum" else F.reduce_mean(loss)


def _range(s, start, limit, delta):
    return F.arange(start, limit, delta)


def _nll_loss(s, logits, labels, weight):
    x = F.to_tensor(logits)
    lb = F.to_tensor(labels)
    w = F.gather(F.to_tensor(weight), lb, 0)
    picked = F.squeeze(F.gather_elements(x, 1, F.expand_dims(lb, 1)), 1)
    loss = F.neg(F.mul(picked, w))
    total = F.reduce_sum(w)
    if s.reduction == "none":
        return loss, total
    if s.reduction == "sum":
        return F.reduce_sum(loss), total
    return F.div(F.reduce_sum(loss), total), total


def _resize(fn, s, x, size=None):
    return fn(x, s.size if size is None else size, s.align_corners,
              getattr(s, "half_pixel_centers", False))


def _scalar_cast(s, x, t):
    t = _dt.get(t)
    if isinstance(x, numbers.Number):
        return bool(x) if t.is_bool else int(x) if t.is_int else float(x)
    return F.cast(x, t)


def _dtype_of(s, x):
    return F.dtype(x)


def _identity(s, x):
    return F.depend(x, ()) if F.is_tensor(x) else F.to_tensor(x)


def _cross(s, x, y):
    t = F.to_tensor(x)
    dim = s.dim
    if dim == -65530:   # MindSpore's default: the first dim of size 3
        dim = next((i for i, d in enumerate(t.shape) if d == 3), None)
        if dim is None:
            _b.error("For 'Cross', no dim of size 3")
    return mnp.cross(x, y, axis=dim)


def _reduce_std(s, x):
    axis = _axis_or_all(s.axis)
    mean = F.reduce_mean(x, axis if axis is not None else (), s.keep_dims)
    return mnp.std(x, axis, 1 if s.unbiased else 0, s.keep_dims), mean


def _segment_sum(s, x, ids):
    """Sorted-segment sum: the number of segments is max(ids) + 1, so the ids
    must be known (a host tensor in PyNative; inside jit a compile error)."""
    if not hasattr(ids, "asnumpy") or F.is_tensor(ids):
        _b.error("For 'SegmentSum', segment_ids must be known when the graph is built "
                 "(the output shape depends on them); use UnsortedSegmentSum with "
                 "num_segments inside jit", kind=ValueError)
    return F.unsorted_segment_sum(x, ids, int(_np.max(ids.asnumpy())) + 1)


def _scatter_axis0(var, indices, updates):
    """scatter_nd of `updates` at rows `indices` (any shape) of var."""
    i = F.to_tensor(indices)
    return F.scatter_nd(F.expand_dims(i, -1), updates, F.shape(var))


def _index_add(s, x, indices, y):
    t = F.to_tensor(x)
    a = s.axis + t.ndim if s.axis < 0 else s.axis
    perm = (a,) + tuple(d for d in range(t.ndim) if d != a)
    inv = tuple(_np.argsort(perm))
    yt = F.transpose(y, perm)
    add = F.scatter_nd(F.expand_dims(F.to_tensor(indices), -1), yt,
                       tuple(t.shape[d] for d in perm))
    return F.add(t, F.transpose(add, inv))


def _depth_to_space(s, x):
    t = F.to_tensor(x)
    n, c, h, w = t.shape
    b = s.block_size
    if c % (b * b):
        _b.error(f"For 'DepthToSpace', the channels {c} are not divisible by block_size**2")
    y = F.reshape(t, (n, b, b, c // (b * b), h, w))
    y = F.transpose(y, (0, 3, 4, 1, 5, 2))
    return F.reshape(y, (n, c // (b * b), h * b, w * b))


def _space_to_depth(s, x):
    t = F.to_tensor(x)
    n, c, h, w = t.shape
    b = s.block_size
    if h % b or w % b:
        _b.error(f"For 'SpaceToDepth', height {h} and width {w} must be divisible by "
                 f"block_size {b}")
    y = F.reshape(t, (n, c, h // b, b, w // b, b))
    y = F.transpose(y, (0, 3, 5, 1, 2, 4))
    return F.reshape(y, (n, c * b * b, h // b, w // b))


def _mirror_pad(s, x, paddings):
    p = paddings.asnumpy().tolist() if hasattr(paddings, "asnumpy") else [list(q) for q in
                                                                           paddings]
    return mnp.pad(x, [tuple(q) for q in p], mode=s.mode.lower())


def _eps(s, x):
    t = F.to_tensor(x) if _b.current() is not None else x
    return F.full_like(t, float(_np.finfo(_dt.get(t.dtype).to_numpy()).tiny))


def _uniform_int(s, shape, minval, maxval):
    u = F.random_uniform(shape, s.seed * 65536 + s.seed2)
    lo = F.cast(minval, _dt.float32)
    hi = F.cast(maxval, _dt.float32)
    return F.cast(F.floor(F.add(F.mul(u, F.sub(hi, lo)), lo)), _dt.int32)


def _standard_laplace(s, shape):
    u = F.sub(F.random_uniform(shape, s.seed * 65536 + s.seed2), 0.5)
    return F.neg(F.mul(F.sign(u), F.log1p(F.neg(F.mul(F.abs(u), 2.0)))))


def _channel_dropout(s, x, ndim):
    """(output, mask): whole channels zeroed with probability 1 - keep_prob."""
    t = F.to_tensor(x)
    if t.ndim != ndim:
        _b.error(f"For '{s.name}', the input must be {ndim}-D, got rank {t.ndim}")
    keep = F.less(F.random_uniform(t.shape[:2] + (1,) * (ndim - 2), 0, dtype=t.dtype),
                  s.keep_prob)
    mask = F.broadcast_to(keep, t.shape)
    return F.mul(t, F.mul(F.cast(mask, t.dtype), 1.0 / s.keep_prob)), mask


def _in_top_k(s, x1, x2):
    """Whether x2[i] is among the k largest of row x1[i] (ties count in)."""
    t = F.to_tensor(x1)
    target = F.gather_elements(t, 1, F.expand_dims(F.cast(x2, _dt.int32), 1))
    above = F.reduce_sum(F.cast(F.greater(t, target), _dt.int32), 1)
    return F.less(above, s.k)


def _conv2d_transpose(s, dout, weight, input_size):
    if s.data_format != "NCHW":
        _b.error(f"For '{s.name}', only data_format='NCHW' is supported")
    pad = s.pad if s.pad_list is None else tuple(s.pad_list)
    size = tuple(input_size.asnumpy().tolist()) if hasattr(input_size, "asnumpy") else \
        tuple(input_size)
    return F.conv2d_backprop_input(dout, weight, size, s.stride, s.pad_mode, pad, s.dilation,
                                   s.group)


def _log_space(s, start, end):
    lin = F.linspace(start, end, s.steps)
    out = F.pow(float(s.base), lin)
    return F.cast(out, s.dtype) if s.dtype is not None else out



# ---- detection (the boxes are rows (x1, y1, x2, y2); widths count both ends: x2 - x1 + 1)

def _box_centres(b):
    x1, y1, x2, y2 = F.unstack(F.to_tensor(b), -1)
    return F.mul(F.add(x1, x2), 0.5), F.mul(F.add(y1, y2), 0.5), \
        F.add(F.sub(x2, x1), 1.0), F.add(F.sub(y2, y1), 1.0)


def _check_box_args(s, name, a, b):
    a, b = F.to_tensor(a), F.to_tensor(b)
    if a.ndim != 2 or a.shape[-1] != 4 or tuple(a.shape) != tuple(b.shape):
        _b.error(f"For '{name}', the boxes must both have shape (n, 4), got "
                 f"{tuple(a.shape)} and {tuple(b.shape)}")
    if len(s.means) != 4 or len(s.stds) != 4:
        _b.error(f"For '{name}', 'means' and 'stds' must have 4 elements")
    return a, b


def _bbox_encode(s, anchor, gt):
    """MindSpore's BoundingBoxEncode: ((dx, dy, log dw, log dh) - means) / stds."""
    anchor, gt = _check_box_args(s, "BoundingBoxEncode", anchor, gt)
    px, py, pw, ph = _box_centres(anchor)
    gx, gy, gw, gh = _box_centres(gt)
    d = F.stack((F.div(F.sub(gx, px), pw), F.div(F.sub(gy, py), ph),
                 F.log(F.div(gw, pw)), F.log(F.div(gh, ph))), -1)
    means = F.cast(F.to_tensor(_np.asarray(s.means, _np.float32)), d.dtype)
    stds = F.cast(F.to_tensor(_np.asarray(s.stds, _np.float32)), d.dtype)
    return F.div(F.sub(d, means), stds)


def _bbox_decode(s, anchor, deltas):
    """MindSpore's BoundingBoxDecode: deltas * stds + means applied to the anchors,
    log-size deltas clipped to |log(wh_ratio_clip)|, corners clipped to max_shape (h, w)."""
    anchor, deltas = _check_box_args(s, "BoundingBoxDecode", anchor, deltas)
    if len(s.max_shape) != 2:
        _b.error(f"For 'BoundingBoxDecode', 'max_shape' must be (height, width), got "
                 f"{s.max_shape!r}")
    means = F.cast(F.to_tensor(_np.asarray(s.means, _np.float32)), deltas.dtype)
    stds = F.cast(F.to_tensor(_np.asarray(s.stds, _np.float32)), deltas.dtype)
    dx, dy, dw, dh = F.unstack(F.add(F.mul(deltas, stds), means), -1)
    r = abs(float(_np.log(s.wh_ratio_clip)))
    dw, dh = F.clip_by_value(dw, -r, r), F.clip_by_value(dh, -r, r)
    px, py, pw, ph = _box_centres(anchor)
    gx, gy = F.add(px, F.mul(pw, dx)), F.add(py, F.mul(ph, dy))
    hw, hh = F.mul(F.mul(pw, F.exp(dw)), 0.5), F.mul(F.mul(ph, F.exp(dh)), 0.5)
    h, w = float(s.max_shape[0]), float(s.max_shape[1])
    return F.stack((F.clip_by_value(F.add(F.sub(gx, hw), 0.5), 0.0, w),
                    F.clip_by_value(F.add(F.sub(gy, hh), 0.5), 0.0, h),
                    F.clip_by_value(F.sub(F.add(gx, hw), 0.5), 0.0, w),
                    F.clip_by_value(F.sub(F.add(gy, hh), 0.5), 0.0, h)), -1)


def _check_valid(s, boxes, img_metas):
    """MindSpore's CheckValid: x1, y1 >= 0 and x2 <= w*ratio - 1, y2 <= h*ratio - 1
    (img_metas = (height, width, ratio))."""
    boxes, metas = F.to_tensor(boxes), F.cast(F.to_tensor(img_metas), _dt.float32)
    if boxes.ndim != 2 or boxes.shape[-1] != 4 or tuple(metas.shape) != (3,):
        _b.error(f"For 'CheckValid', bboxes must be (n, 4) and img_metas (3,), got "
                 f"{tuple(boxes.shape)} and {tuple(metas.shape)}")
    x1, y1, x2, y2 = F.unstack(F.cast(boxes, _dt.float32), -1)
    h, w, ratio = F.unstack(metas, 0)
    ok = F.logical_and(F.greater_equal(x1, 0.0), F.greater_equal(y1, 0.0))
    ok = F.logical_and(ok, F.less_equal(x2, F.sub(F.mul(w, ratio), 1.0)))
    return F.logical_and(ok, F.less_equal(y2, F.sub(F.mul(h, ratio), 1.0)))


def _float_status(s, x):
    """[1.] when x holds a NaN or an infinity, else [0.] (x's dtype)."""
    t = F.to_tensor(x)
    bad = F.logical_not(F.reduce_all(F.isfinite(t)))
    return F.cast(F.reshape(bad, (1,)), t.dtype)


def _nms_numpy(boxes, iou_threshold):
    """MindSpore's NMSWithMask CPU kernel on host arrays: boxes sorted by score
    (descending; ties keep input order), output_idx = 0..N-1 (positions in that
    order, as the kernel returns), greedy mask: a box is dropped when a kept
    higher-scored box overlaps it with IoU > iou_threshold (areas without +1)."""
    b = _np.asarray(boxes)
    out = b[_np.argsort(-b[:, 4], kind="stable")]
    x1, y1, x2, y2 = (out[:, k].astype(_np.float64) for k in range(4))
    w = _np.maximum(_np.minimum(x2[:, None], x2[None]) - _np.maximum(x1[:, None], x1[None]), 0)
    h = _np.maximum(_np.minimum(y2[:, None], y2[None]) - _np.maximum(y1[:, None], y1[None]), 0)
    area = (x2 - x1) * (y2 - y1)
    inter = w * h
    with _np.errstate(divide="ignore", invalid="ignore"):
        suppress = inter / (area[:, None] + area[None] - inter) > iou_threshold
    keep = _np.ones(len(b), bool)
    for i in range(len(b) - 1):
        if keep[i]:
            keep[i + 1:] &= ~suppress[i, i + 1:]
    return out, _np.arange(len(b), dtype=_np.int32), keep


def _nms_with_mask(s, bboxes):
    """Host computation (greedy NMS is sequential): in PyNative directly, inside jit
    as a host callback with the op's fixed output shapes."""
    if _b.current() is None:
        arr = _np.asarray(bboxes.asnumpy() if hasattr(bboxes, "asnumpy") else bboxes)
        if arr.ndim != 2 or arr.shape[1] != 5:
            raise ValueError(f"For 'NMSWithMask', bboxes must have shape (N, 5), got "
                             f"{arr.shape}")
        from ...arraylike import host_wrapper
        wrap = host_wrapper() or _np.asarray
        return tuple(wrap(_np.ascontiguousarray(o)) for o in _nms_numpy(arr, s.iou_threshold))
    t = F.to_tensor(bboxes)
    if t.ndim != 2 or t.shape[1] != 5:
        _b.error(f"For 'NMSWithMask', bboxes must have shape (N, 5), got {tuple(t.shape)}")
    n = t.shape[0]
    types = (("tuple", (("L",), ("L",), ("L",))),
             [((n, 5), t.dtype), ((n,), _dt.int32), ((n,), _dt.bool_)])
    thr = s.iou_threshold
    return tuple(_host_call(lambda a: _nms_numpy(a, thr), [t], {}, what="NMSWithMask",
                            result_types=types))


def _random_choice_with_mask(s, x):
    """Up to `count` random positions of the True elements: (count, rank) int32
    coordinates and a (count,) mask; rows past the number of Trues are 0 / False."""
    t = F.to_tensor(x)
    if t.dtype is not _dt.bool_ or not 1 <= t.ndim <= 5:
        _b.error(f"For 'RandomChoiceWithMask', the input must be a bool tensor of rank 1 to 5, "
                 f"got {t.dtype} of rank {t.ndim}")
    if s.count <= 0:
        _b.error(f"For 'RandomChoiceWithMask', 'count' must be positive, got {s.count}")
    n = int(_np.prod(t.shape))
    keys = F.select(F.reshape(t, (n,)), F.random_uniform((n,), s.seed * 65536 + s.seed2),
                    F.fill(_dt.float32, (n,), -1.0))
    if s.count > n:
        keys = F.concat((keys, F.fill(_dt.float32, (s.count - n,), -1.0)), 0)
    vals, pos = F.topk(keys, s.count)
    mask = F.greater_equal(vals, 0.0)
    pos = F.mul(F.cast(pos, _dt.int32), F.cast(mask, _dt.int32))
    coords, stride = [], n
    for d in t.shape:
        stride //= d
        coords.append(F.floor_mod(F.floor_div(pos, stride), d))
    return F.stack(coords, -1), mask


def _roi_align(s, features, rois):
    """MindSpore's ROIAlign (Mask R-CNN): average of sample_num x sample_num bilinear
    samples per output bin, with the semantics of MindSpore's CPU kernel (ROI end +
    roi_end_mode, legacy mode 0 forces ROIs to at least 1x1, samples beyond one pixel
    outside the map count as 0). Composed from gathers, so the gradient w.r.t. the
    features is the gathers' scatter-add; the ROIs get none (stop_gradient), as in
    MindSpore."""
    x = F.to_tensor(features)
    r = F.stop_gradient(F.to_tensor(rois))
    if x.ndim != 4 or r.ndim != 2 or r.shape[1] not in (4, 5):
        _b.error(f"For 'ROIAlign', features must be (N, C, H, W) and rois (R, 5) or (R, 4), "
                 f"got {tuple(x.shape)} and {tuple(r.shape)}")
    if s.sample_num <= 0:
        _b.error("For 'ROIAlign', sample_num <= 0 (a grid size that depends on each ROI's "
                 "size) gives data-dependent work; use sample_num > 0")
    if s.roi_end_mode not in (0, 1):
        _b.error(f"For 'ROIAlign', roi_end_mode must be 0 or 1, got {s.roi_end_mode}")
    n, c, h, w = x.shape
    num, ph, pw, sn = r.shape[0], s.pooled_height, s.pooled_width, s.sample_num
    r = F.cast(r, x.dtype)
    col = lambda k: F.reshape(F.slice(r, (0, k), (num, 1)), (num, 1))   # noqa: E731
    off = 1 if r.shape[1] == 5 else 0
    batch = F.cast(F.round(col(0)), _dt.int32) if off else F.zeros((num, 1), _dt.int32)
    scale = float(s.spatial_scale)

    def axis_samples(k, bins, size):
        """(index low, index high, weight low, weight high) of the samples along one
        axis ((R, bins * sn) each), weights 0 for samples off the map."""
        start = F.mul(col(off + k), scale)
        length = F.sub(F.mul(F.add(col(off + k + 2), float(s.roi_end_mode)), scale), start)
        if s.roi_end_mode == 0:
            length = F.maximum(length, 1.0)
        frac = _np.array([(p + (i + 0.5) / sn) / bins for p in range(bins) for i in range(sn)],
                         _np.float32)
        pos = F.add(start, F.mul(length, F.cast(F.to_tensor(frac[None, :]), x.dtype)))
        valid = F.cast(F.logical_and(F.greater_equal(pos, -1.0), F.less_equal(pos, float(size))),
                       x.dtype)
        pos = F.maximum(pos, 0.0)
        low = F.minimum(F.floor(pos), float(size - 1))
        pos = F.minimum(pos, float(size - 1))
        lw = F.sub(pos, low)
        low_i = F.cast(low, _dt.int32)
        high_i = F.minimum(F.add(low_i, 1), size - 1)
        return low_i, high_i, F.mul(F.sub(1.0, lw), valid), F.mul(lw, valid)

    ylo, yhi, wylo, wyhi = axis_samples(1, ph, h)
    xlo, xhi, wxlo, wxhi = axis_samples(0, pw, w)
    table = F.reshape(F.transpose(x, (0, 2, 3, 1)), (n * h * w, c))
    base = F.reshape(F.mul(batch, h * w), (num, 1, 1))
    out = None
    for yi, wy in ((ylo, wylo), (yhi, wyhi)):
        for xi, wx in ((xlo, wxlo), (xhi, wxhi)):
            idx = F.add(base, F.add(F.mul(F.expand_dims(yi, 2), w), F.expand_dims(xi, 1)))
            wt = F.mul(F.expand_dims(wy, 2), F.expand_dims(wx, 1))            # (R, ph*sn, pw*sn)
            term = F.mul(F.gather(table, idx, 0), F.expand_dims(wt, 3))      # (R, ph*sn, pw*sn, C)
            out = term if out is None else F.add(out, term)
    out = F.reduce_mean(F.reshape(out, (num, ph, sn, pw, sn, c)), (2, 4))
    return F.transpose(out, (0, 3, 1, 2))


def _ctc_loss(s, inputs, labels_indices, labels_values, sequence_length):
    """(loss, gradient): a host computation with MindSpore's bprop (operations/_ctc.py)."""
    from ._ctc import ctc_loss_bprop, ctc_loss_numpy
    opts = (s.preprocess_collapse_repeated, s.ctc_merge_repeated,
            s.ignore_longer_outputs_than_inputs)

    def fwd(x, idx, vals, seq):
        return ctc_loss_numpy(x, idx, vals, seq, *opts)

    fwd.__name__ = "CTCLoss"
    x = inputs if _b.current() is None else F.to_tensor(inputs)
    shape = tuple(getattr(x, "shape", ()))
    if len(shape) != 3:
        _b.error(f"For 'CTCLoss', inputs must be (max_time, batch, num_classes), got shape "
                 f"{shape}")
    dt = F.dtype(x)
    op = Custom(fwd, ((shape[1],), shape), (dt, dt), func_type="pyfunc", bprop=ctc_loss_bprop)
    return op(x, labels_indices, labels_values, sequence_length)


def _adam(s, var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad):
    """MindSpore's fused Adam step on Parameters var, m, v (updated in place)."""
    m_new = F.assign(m, F.add(m, F.mul(F.sub(grad, m), F.sub(1.0, beta1))))
    v_new = F.assign(v, F.add(v, F.mul(F.sub(F.square(grad), v), F.sub(1.0, beta2))))
    lr_t = F.div(F.mul(lr, F.sqrt(F.sub(1.0, beta2_power))), F.sub(1.0, beta1_power))
    num = F.add(F.mul(m_new, beta1), F.mul(grad, F.sub(1.0, beta1))) if s.use_nesterov else m_new
    step = F.div(F.mul(num, lr_t), F.add(F.sqrt(v_new), epsilon))
    return F.assign(var, F.sub(var, step)), m_new, v_new


def _adam_weight_decay(s, var, m, v, lr, beta1, beta2, epsilon, decay, grad):
    """MindSpore's AdamWeightDecay step (decoupled weight decay), in place."""
    m_new = F.assign(m, F.add(F.mul(m, beta1), F.mul(grad, F.sub(1.0, beta1))))
    v_new = F.assign(v, F.add(F.mul(v, beta2), F.mul(F.square(grad), F.sub(1.0, beta2))))
    update = F.add(F.div(m_new, F.add(F.sqrt(v_new), epsilon)), F.mul(var, decay))
    return F.assign(var, F.sub(var, F.mul(update, lr))), m_new, v_new


def _lrn(s, x):
    """x / (bias + alpha * sum of x^2 over the 2r+1 neighbouring channels)^beta (NCHW)."""
    if s.norm_region != "ACROSS_CHANNELS":
        _b.error(f"For 'LRN', norm_region must be 'ACROSS_CHANNELS', got {s.norm_region!r}")
    t = F.to_tensor(x)
    if t.ndim != 4:
        _b.error(f"For 'LRN', the input must be 4-D (NCHW), got shape {tuple(t.shape)}")
    r, c = int(s.depth_radius), t.shape[1]
    sq = F.pad(F.square(t), (0, 0, 0, 0, r, r))
    total = None
    for k in range(2 * r + 1):
        part = F.slice(sq, (0, k, 0, 0), (t.shape[0], c, t.shape[2], t.shape[3]))
        total = part if total is None else F.add(total, part)
    return F.div(t, F.pow(F.add(F.mul(total, s.alpha), s.bias), s.beta))


def _swiglu(s, x):
    t = F.to_tensor(x)
    d = s.dim if s.dim >= 0 else s.dim + t.ndim
    if t.shape[d] % 2:
        _b.error(f"For 'Swiglu', dim {s.dim} has odd size {t.shape[d]}: it is split in halves")
    a, b = F.split(t, t.shape[d] // 2, d)
    return F.mul(F.silu(a), b)


def _scalar_to_array(s, x):
    if isinstance(x, bool) or not isinstance(x, numbers.Number):
        _b.error(f"For 'ScalarToArray', the input must be an int or float, got {x!r}",
                 kind=TypeError)
    return F.scalar_to_tensor(x, _dt.int32 if isinstance(x, numbers.Integral) else _dt.float32)


def _crop_and_resize(s, image, boxes, box_index, crop_size):
    """TensorFlow's crop_and_resize (MindSpore's CropAndResize): per box, a crop_size
    grid over [y1, y2] x [x1, x2] (normalized coordinates) sampled bilinearly or at the
    nearest pixel; samples off the image take extrapolation_value. Composed from
    gathers: gradients w.r.t. the image and (bilinear) the boxes, as MindSpore has."""
    if s.method not in ("bilinear", "nearest"):
        _b.error(f"For 'CropAndResize', method must be 'bilinear' or 'nearest' ('bilinear_v2' is "
                 f"not supported), got {s.method!r}")
    img = F.to_tensor(image)
    bx = F.cast(F.to_tensor(boxes), _dt.float32)
    if img.ndim != 4 or bx.ndim != 2 or bx.shape[1] != 4:
        _b.error(f"For 'CropAndResize', image must be (batch, height, width, depth) and boxes "
                 f"(num_boxes, 4), got {tuple(img.shape)} and {tuple(bx.shape)}")
    ch, cw = (int(v) for v in crop_size)
    b, h, w, depth = img.shape
    nb = bx.shape[0]
    col = lambda k: F.slice(bx, (0, k), (nb, 1))                           # noqa: E731
    xf = F.cast(img, _dt.float32)

    def coords(k, size, n):
        """Source coordinates (nb, n) and their in-range mask along one axis."""
        lo, hi = col(k), col(k + 2)
        if n > 1:
            steps = F.to_tensor(_np.arange(n, dtype=_np.float32)[None, :])
            scale = F.div(F.mul(F.sub(hi, lo), size - 1.0), n - 1.0)     # TF's order of ops
            pos = F.add(F.mul(lo, size - 1.0), F.mul(steps, scale))
        else:
            pos = F.broadcast_to(F.mul(F.add(lo, hi), 0.5 * (size - 1)), (nb, 1))
        ok = F.logical_and(F.greater_equal(pos, 0.0), F.less_equal(pos, size - 1.0))
        return pos, ok

    py, oky = coords(0, h, ch)
    px, okx = coords(1, w, cw)
    table = F.reshape(xf, (b * h * w, depth))
    base = F.reshape(F.mul(F.cast(F.to_tensor(box_index), _dt.int32), h * w), (nb, 1, 1))

    def at(yi, xi):
        yi = F.cast(F.minimum(F.maximum(yi, 0.0), h - 1.0), _dt.int32)
        xi = F.cast(F.minimum(F.maximum(xi, 0.0), w - 1.0), _dt.int32)
        idx = F.add(base, F.add(F.mul(F.expand_dims(yi, 2), w), F.expand_dims(xi, 1)))
        return F.gather(table, idx, 0)                                     # (nb, ch, cw, depth)

    if s.method == "nearest":
        out = at(F.floor(F.add(py, 0.5)), F.floor(F.add(px, 0.5)))    # roundf: half up here
    else:
        y0, x0 = F.floor(py), F.floor(px)
        ly = F.expand_dims(F.expand_dims(F.sub(py, y0), 2), 3)
        lx = F.expand_dims(F.expand_dims(F.sub(px, x0), 1), 3)
        y1, x1 = F.ceil(py), F.ceil(px)
        top = F.add(at(y0, x0), F.mul(F.sub(at(y0, x1), at(y0, x0)), lx))
        bottom = F.add(at(y1, x0), F.mul(F.sub(at(y1, x1), at(y1, x0)), lx))
        out = F.add(top, F.mul(F.sub(bottom, top), ly))
    ok = F.logical_and(F.expand_dims(F.expand_dims(oky, 2), 3),
                       F.expand_dims(F.expand_dims(okx, 1), 3))
    return F.select(ok, out, F.fill(_dt.float32, F.shape(out), float(s.extrapolation_value)))


def _npu_float_status(s, *args):
    _b.error(f"{s.name} reads or clears the Ascend NPU's floating-point overflow register, "
             f"which a CPU has no equivalent of (MindSpore has no CPU/GPU kernel for it "
             f"either); check the gradients instead: amp.all_finite(grads), or "
             f"P.FloatStatus as MindSpore's GPU scripts do", kind=RuntimeError)


def _summary_op(s, tag, value):
    return _summary(s.name, tag, value)


def _triple(v, name, what):
    t = (v,) * 3 if isinstance(v, int) else tuple(v)
    if len(t) == 5:
        t = t[2:]
    if len(t) != 3 or not builtins.all(isinstance(i, int) and i > 0 for i in t):
        _b.error(f"For '{name}', '{what}' must be a positive int or 3 of them, got {v!r}")
    return t


def _pool3d(s, x, mode):
    """3-D pooling of NCDHW as two 2-D poolings: over (H, W), then over D. Exact for
    max (a max of maxes; 'same' pads each dim as the 2-D op does) and for 'valid'
    average pooling (every window is full)."""
    name = s.name
    if s.data_format != "NCDHW":
        _b.error(f"For '{name}', only data_format='NCDHW' is supported")
    pad_mode = s.pad_mode.lower()
    if pad_mode not in ("valid", "same") or (mode == "avg" and pad_mode != "valid"):
        _b.error(f"For '{name}', pad_mode {s.pad_mode!r} is not supported (supported: "
                 f"{'VALID' if mode == 'avg' else 'VALID, SAME'})")
    if getattr(s, "ceil_mode", None):
        _b.error(f"For '{name}', ceil_mode=True is not supported")
    t = F.to_tensor(x)
    if t.ndim != 5:
        _b.error(f"For '{name}', the input must be 5-D (N, C, D, H, W), got rank {t.ndim}")
    kd, kh, kw = _triple(s.kernel_size, name, "kernel_size")
    sd, sh, sw = _triple(s.strides, name, "strides")
    pool = F.max_pool2d if mode == "max" else F.avg_pool2d
    n, c, d, h, w = t.shape
    y = pool(F.reshape(t, (n, c * d, h, w)), (kh, kw), (sh, sw), 0, pad_mode)
    h2, w2 = y.shape[2], y.shape[3]
    y = pool(F.reshape(y, (n * c, 1, d, h2 * w2)), (kd, 1), (sd, 1), 0, pad_mode)
    return F.reshape(y, (n, c, y.shape[2], h2, w2))


def _reverse_sequence(s, x, seq_lengths):
    """Per batch entry b, the first seq_lengths[b] elements along seq_dim reversed,
    the rest kept (P.ReverseSequence)."""
    t, lens = F.to_tensor(x), F.to_tensor(seq_lengths)
    sd = s.seq_dim % t.ndim if -t.ndim <= s.seq_dim < t.ndim else None
    bd = s.batch_dim % t.ndim if -t.ndim <= s.batch_dim < t.ndim else None
    if sd is None or bd is None or sd == bd:
        _b.error(f"For 'ReverseSequence', seq_dim {s.seq_dim} and batch_dim {s.batch_dim} "
                 f"must be different dims of the rank-{t.ndim} input")
    if tuple(lens.shape) != (t.shape[bd],) or not lens.dtype.is_int:
        _b.error(f"For 'ReverseSequence', seq_lengths must be a 1-D integer tensor of "
                 f"length {t.shape[bd]}, got {lens.dtype} of shape {tuple(lens.shape)}",
                 kind=ValueError)
    shp = [1] * t.ndim
    shp[sd] = t.shape[sd]
    pos = F.to_tensor(_np.arange(t.shape[sd], dtype=_np.int64).reshape(shp))
    lshp = [1] * t.ndim
    lshp[bd] = t.shape[bd]
    n = F.reshape(F.cast(lens, _dt.int64), tuple(lshp))
    src = F.select(F.less(pos, n), F.sub(F.sub(n, 1), pos), pos)
    return F.gather_elements(t, sd, F.broadcast_to(src, tuple(t.shape)))


class ReduceOp:
    """The reduction of a collective (AllReduce(op=ReduceOp.SUM))."""
    SUM = "sum"
    MAX = "max"
    MIN = "min"
    PROD = "prod"


# ---------------------------------------------------------------------------
# The table: (name, constructor signature, implementation, category[, flags])
# ---------------------------------------------------------------------------

TABLE = [
    # ---- array ----------------------------------------------------------------------
    ("Cast", "", lambda s, x, t: F.cast(x, t), "array"),
    ("Concat", "axis=0", lambda s, xs: F.concat(xs, s.axis), "array"),
    ("Reshape", "", lambda s, x, shape: F.reshape(x, shape), "array"),
    ("Transpose", "", lambda s, x, perm: F.transpose(x, perm), "array"),
    ("ExpandDims", "", lambda s, x, axis: F.expand_dims(x, axis), "array"),
    ("Shape", "", lambda s, x: F.shape(x), "array", "static"),
    ("TensorShape", "", lambda s, x: F.tuple_to_array(F.shape(x)) if F.shape(x) else
     F.zeros((0,), _dt.int64), "array"),
    ("DynamicShape", "dtype=9", lambda s, x: F.tuple_to_array(F.shape(x)) if F.shape(x) else
     F.zeros((0,), _dt.int64), "array"),
    ("Rank", "", _rank, "array", "static"),
    ("Size", "", lambda s, x: F.size(x), "array", "static"),
    ("DType", "", _dtype_of, "array", "static"),
    ("Tile", "", lambda s, x, multiples: F.tile(x, multiples), "array"),
    ("Squeeze", "axis=()", _squeeze, "array"),
    ("Unsqueeze", "dim", lambda s, x: F.expand_dims(x, s.dim), "array"),
    ("Flatten", "", lambda s, x: F.flatten(x), "array"),
    ("Split", "axis=0, output_num=1", _split, "array"),
    ("Stack", "axis=0", lambda s, xs: F.stack(xs, s.axis), "array"),
    ("Pack", "axis=0", lambda s, xs: F.stack(xs, s.axis), "array"),
    ("Unstack", "axis=0, num=None", lambda s, x: F.unstack(x, s.axis), "array"),
    ("Unpack", "axis=0", lambda s, x: F.unstack(x, s.axis), "array"),
    ("Slice", "", lambda s, x, begin, size: F.slice(x, begin, size), "array"),
    ("StridedSlice", "begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0, "
     "shrink_axis_mask=0", _strided_slice, "array"),
    ("Gather", "batch_dims=0", lambda s, x, idx, axis: F.gather(x, idx, axis, s.batch_dims),
     "array"),
    ("GatherV2", "", lambda s, x, idx, axis: F.gather(x, idx, axis), "array"),
    ("GatherD", "", lambda s, x, dim, idx: F.gather_elements(x, dim, idx), "array"),
    ("GatherNd", "", lambda s, x, idx: F.gather_nd(x, idx), "array"),
    ("ScatterNd", "", lambda s, idx, upd, shape: F.scatter_nd(idx, upd, shape), "array"),
    ("TensorScatterUpdate", "", lambda s, x, idx, upd: F.tensor_scatter_update(x, idx, upd),
     "array"),
    ("ScatterNdUpdate", "use_locking=True",
     lambda s, var, idx, upd: F.assign(var, F.tensor_scatter_update(var, idx, upd)), "array"),
    ("BroadcastTo", "shape", lambda s, x: F.broadcast_to(x, s.shape), "array"),
    ("Fill", "", lambda s, t, shape, value: F.fill(t, shape, value), "array"),
    ("FillV2", "", lambda s, shape, value: F.broadcast_to(value, tuple(shape)), "array"),
    ("Zeros", "", lambda s, shape, t=None: F.zeros(shape, t), "array"),
    ("Ones", "", lambda s, shape, t=None: F.ones(shape, t), "array"),
    ("ZerosLike", "", lambda s, x: F.zeros_like(x), "array"),
    ("OnesLike", "", lambda s, x: F.ones_like(x), "array"),
    ("Eye", "", lambda s, n, m, t: F.eye(n, m, t), "array"),
    ("Identity", "", _identity, "array"),
    ("OneHot", "axis=-1", lambda s, idx, depth, on, off: F.one_hot(idx, depth, on, off, s.axis),
     "array"),
    ("Select", "", lambda s, c, x, y: F.select(c, x, y), "array"),
    ("MaskedFill", "", lambda s, x, mask, value: F.masked_fill(x, mask, value), "array"),
    ("ReverseV2", "axis", lambda s, x: F.flip(x, s.axis), "array"),
    ("Pad", "paddings", _pad, "array"),
    ("Meshgrid", "indexing='xy'", lambda s, xs: tuple(mnp.meshgrid(*xs, indexing=s.indexing)),
     "array"),
    ("LinSpace", "", lambda s, start, stop, num: F.linspace(start, stop, num), "array"),
    ("Range", "maxlen=1000000", _range, "array"),
    ("Sort", "axis=-1, descending=False", lambda s, x: F.sort(x, s.axis, s.descending), "array"),
    ("TopK", "sorted=True", lambda s, x, k: F.topk(x, k, None, True, s.sorted), "array"),
    ("Argmax", "axis=-1, output_type=_dt.int32",
     lambda s, x: F.cast(F.argmax(x, s.axis), s.output_type), "array"),
    ("Argmin", "axis=-1, output_type=_dt.int32",
     lambda s, x: F.cast(F.argmin(x, s.axis), s.output_type), "array"),
    ("ArgMaxWithValue", "axis=0, keep_dims=False",
     lambda s, x: _arg_with_value(F.max, s, x), "array"),
    ("ArgMinWithValue", "axis=0, keep_dims=False",
     lambda s, x: _arg_with_value(F.min, s, x), "array"),
    ("Tril", "diagonal=0", lambda s, x: mnp.tril(x, s.diagonal), "array"),
    ("Triu", "diagonal=0", lambda s, x: mnp.triu(x, s.diagonal), "array"),
    ("Roll", "shift, axis", lambda s, x: mnp.roll(x, s.shift, s.axis), "array"),
    ("ScalarToTensor", "", lambda s, x, t=_dt.float32: F.scalar_to_tensor(x, t), "array"),
    ("TupleToArray", "", lambda s, x: F.tuple_to_array(x), "array"),
    ("ScalarCast", "", _scalar_cast, "array"),
    ("ResizeNearestNeighbor", "size, align_corners=False, half_pixel_centers=False",
     lambda s, x: _resize(F.resize_nearest_neighbor, s, x), "array"),
    ("ResizeBilinear", "size=None, align_corners=False, half_pixel_centers=False",
     lambda s, x, size=None: _resize(F.resize_bilinear, s, x, size), "nn"),
    ("ResizeBilinearV2", "align_corners=False, half_pixel_centers=False",
     lambda s, x, size: F.resize_bilinear(x, size, s.align_corners, s.half_pixel_centers), "nn"),
    # ---- math: binary -----------------------------------------------------------------
    ("Add", "", lambda s, x, y: F.add(x, y), "math"),
    ("TensorAdd", "", lambda s, x, y: F.add(x, y), "math"),
    ("AddV2", "", lambda s, x, y: F.add(x, y), "math"),
    ("Sub", "", lambda s, x, y: F.sub(x, y), "math"),
    ("Mul", "", lambda s, x, y: F.mul(x, y), "math"),
    ("Div", "", lambda s, x, y: F.div(x, y), "math"),
    ("RealDiv", "", lambda s, x, y: F.div(x, y), "math"),
    ("DivNoNan", "", lambda s, x, y: F.select(F.equal(y, 0), F.zeros_like(F.div(x, y)),
                                               F.div(x, F.select(F.equal(y, 0), 1, y))), "math"),
    ("FloorDiv", "", lambda s, x, y: F.floor_div(x, y), "math"),
    ("FloorMod", "", lambda s, x, y: F.floor_mod(x, y), "math"),
    ("Mod", "", lambda s, x, y: F.sub(x, F.mul(F.div(x, y, rounding_mode="trunc"), y)), "math"),
    ("Pow", "", lambda s, x, y: F.pow(x, y), "math"),
    ("Maximum", "", lambda s, x, y: F.maximum(x, y), "math"),
    ("Minimum", "", lambda s, x, y: F.minimum(x, y), "math"),
    ("SquaredDifference", "", lambda s, x, y: F.square(F.sub(x, y)), "math"),
    ("Atan2", "", lambda s, x, y: mnp.arctan2(x, y), "math"),
    ("Xdivy", "", lambda s, x, y: F.select(F.equal(x, 0), F.zeros_like(F.div(x, y)), F.div(x, y)),
     "math"),
    ("AddN", "", lambda s, xs: F.addn(xs), "math"),
    ("MatMul", "transpose_a=False, transpose_b=False",
     lambda s, x, y: F.mat_mul(x, y, s.transpose_a, s.transpose_b), "math"),
    ("BatchMatMul", "transpose_a=False, transpose_b=False",
     lambda s, x, y: F.batch_matmul(x, y, s.transpose_a, s.transpose_b), "math"),
    ("BiasAdd", "data_format='NCHW'", lambda s, x, b: F.bias_add(x, b, s.data_format), "nn"),
    # ---- math: comparison / logical ----------------------------------------------------
    ("Equal", "", lambda s, x, y: F.equal(x, y), "math"),
    ("NotEqual", "", lambda s, x, y: F.not_equal(x, y), "math"),
    ("Greater", "", lambda s, x, y: F.greater(x, y), "math"),
    ("GreaterEqual", "", lambda s, x, y: F.greater_equal(x, y), "math"),
    ("Less", "", lambda s, x, y: F.less(x, y), "math"),
    ("LessEqual", "", lambda s, x, y: F.less_equal(x, y), "math"),
    ("LogicalAnd", "", lambda s, x, y: F.logical_and(x, y), "math"),
    ("LogicalOr", "", lambda s, x, y: F.logical_or(x, y), "math"),
    ("LogicalXor", "", lambda s, x, y: F.logical_xor(x, y), "math"),
    ("LogicalNot", "", lambda s, x: F.logical_not(x), "math"),
    ("IsNan", "", lambda s, x: F.isnan(x), "math"),
    ("IsInf", "", lambda s, x: F.isinf(x), "math"),
    ("IsFinite", "", lambda s, x: F.isfinite(x), "math"),
    ("IsClose", "rtol=1e-05, atol=1e-08, equal_nan=True",
     lambda s, x, y: mnp.isclose(x, y, s.rtol, s.atol, s.equal_nan), "math"),
    # ---- math: unary ----------------------------------------------------------------------
    ("Neg", "", lambda s, x: F.neg(x), "math"),
    ("Abs", "", lambda s, x: F.abs(x), "math"),
    ("Sign", "", lambda s, x: F.sign(x), "math"),
    ("Square", "", lambda s, x: F.square(x), "math"),
    ("Sqrt", "", lambda s, x: F.sqrt(x), "math"),
    ("Rsqrt", "", lambda s, x: F.rsqrt(x), "math"),
    ("Reciprocal", "", lambda s, x: F.reciprocal(x), "math"),
    ("Exp", "", lambda s, x: F.exp(x), "math"),
    ("Expm1", "", lambda s, x: F.expm1(x), "math"),
    ("Log", "", lambda s, x: F.log(x), "math"),
    ("Log1p", "", lambda s, x: F.log1p(x), "math"),
    ("Sin", "", lambda s, x: F.sin(x), "math"),
    ("Cos", "", lambda s, x: F.cos(x), "math"),
    ("Tan", "", lambda s, x: mnp.tan(x), "math"),
    ("Asin", "", lambda s, x: mnp.arcsin(x), "math"),
    ("ACos", "", lambda s, x: mnp.arccos(x), "math"),
    ("Atan", "", lambda s, x: mnp.arctan(x), "math"),
    ("Sinh", "", lambda s, x: mnp.sinh(x), "math"),
    ("Cosh", "", lambda s, x: mnp.cosh(x), "math"),
    ("Asinh", "", lambda s, x: mnp.arcsinh(x), "math"),
    ("Acosh", "", lambda s, x: mnp.arccosh(x), "math"),
    ("Atanh", "", lambda s, x: mnp.arctanh(x), "math"),
    ("Tanh", "", lambda s, x: F.tanh(x), "math"),
    ("Erf", "", lambda s, x: F.erf(x), "math"),
    ("Erfc", "", lambda s, x: F.sub(1.0, F.erf(x)), "math"),
    ("Floor", "", lambda s, x: F.floor(x), "math"),
    ("Ceil", "", lambda s, x: F.ceil(x), "math"),
    ("Round", "", lambda s, x: F.round(x), "math"),
    ("Rint", "", lambda s, x: F.round(x), "math"),
    ("Trunc", "", lambda s, x: F.trunc(x), "math"),
    ("CumSum", "exclusive=False, reverse=False", _cumsum, "math"),
    ("CumProd", "exclusive=False, reverse=False", _cumprod, "math"),
    ("Lerp", "", lambda s, a, b, w: F.add(a, F.mul(w, F.sub(b, a))), "math"),
    ("ClipByValue", "", lambda s, x, lo, hi: F.clip_by_value(x, lo, hi), "math"),
    # ---- math: reductions -----------------------------------------------------------------
    ("ReduceSum", "keep_dims=False, skip_mode=False", _reduce_sum, "math"),
    ("ReduceMean", "keep_dims=False", lambda s, x, axis=(): F.reduce_mean(x, _axis(axis),
                                                                        s.keep_dims), "math"),
    ("ReduceMax", "keep_dims=False", lambda s, x, axis=(): F.reduce_max(x, _axis(axis),
                                                                       s.keep_dims), "math"),
    ("ReduceMin", "keep_dims=False", lambda s, x, axis=(): F.reduce_min(x, _axis(axis),
                                                                       s.keep_dims), "math"),
    ("ReduceProd", "keep_dims=False", lambda s, x, axis=(): F.reduce_prod(x, _axis(axis),
                                                                         s.keep_dims), "math"),
    ("ReduceAll", "keep_dims=False",
     lambda s, x, axis=(): F.all(x, _axis_or_all(axis), s.keep_dims), "math"),
    ("ReduceAny", "keep_dims=False",
     lambda s, x, axis=(): F.any(x, _axis_or_all(axis), s.keep_dims), "math"),
    ("ReduceLogSumExp", "keep_dims=False",
     lambda s, x, axis=(): F.logsumexp(x, _axis_or_all(axis), s.keep_dims), "math"),
    ("SquareSumAll", "", lambda s, x, y: (F.square_sum(x), F.square_sum(y)), "math"),
    # ---- nn ----------------------------------------------------------------------------------
    ("ReLU", "", lambda s, x: F.relu(x), "nn"),
    ("ReLU6", "", lambda s, x: F.relu6(x), "nn"),
    ("ReLUV2", "", lambda s, x: (F.relu(x), F.greater(x, 0)), "nn"),
    ("Sigmoid", "", lambda s, x: F.sigmoid(x), "nn"),
    ("Softplus", "", lambda s, x: F.softplus(x), "nn"),
    ("Softsign", "", lambda s, x: F.div(x, F.add(F.abs(x), 1.0)), "nn"),
    ("SiLU", "", lambda s, x: F.silu(x), "nn"),
    ("GeLU", "", lambda s, x: F.gelu(x, approximate="tanh"), "nn"),   # MindSpore's kernel
    ("GELU", "", lambda s, x: F.gelu(x), "nn"),
    ("FastGeLU", "", lambda s, x: F.mul(x, F.sigmoid(F.mul(1.702, x))), "nn"),
    ("HSwish", "", lambda s, x: F.mul(x, F.div(F.relu6(F.add(x, 3.0)), 6.0)), "nn"),
    ("HSigmoid", "", lambda s, x: F.div(F.relu6(F.add(x, 3.0)), 6.0), "nn"),
    ("Mish", "", lambda s, x: F.mul(x, F.tanh(F.softplus(x))), "nn"),
    ("Elu", "alpha=1.0", lambda s, x: F.select(F.greater(x, 0), x,
                                               F.mul(s.alpha, F.expm1(x))), "nn"),
    ("LeakyReLU", "alpha=0.2", lambda s, x: F.leaky_relu(x, s.alpha), "nn"),
    ("Softmax", "axis=-1", lambda s, x: _softmax(F.softmax, s, x), "nn"),
    ("LogSoftmax", "axis=-1", lambda s, x: _softmax(F.log_softmax, s, x), "nn"),
    ("L2Normalize", "axis=0, epsilon=1e-4", lambda s, x: F.l2_normalize(x, s.axis, s.epsilon),
     "nn"),
    ("Conv2D", "out_channel, kernel_size, mode=1, pad_mode='valid', pad=0, stride=1, "
     "dilation=1, group=1, data_format='NCHW'", _conv2d, "nn"),
    ("MaxPool", "kernel_size=1, strides=1, pad_mode='valid', data_format='NCHW'",
     lambda s, x: _pool(F.max_pool2d, s, x), "nn"),
    ("AvgPool", "kernel_size=1, strides=1, pad_mode='valid', data_format='NCHW'",
     lambda s, x: _pool(F.avg_pool2d, s, x), "nn"),
    ("SigmoidCrossEntropyWithLogits", "",
     lambda s, x, y: F.sigmoid_cross_entropy_with_logits(x, y), "nn"),
    ("BCEWithLogitsLoss", "reduction='mean'",
     lambda s, x, y, w, pw: F.binary_cross_entropy_with_logits(x, y, w, pw, s.reduction), "nn"),
    ("BinaryCrossEntropy", "reduction='mean'",
     lambda s, x, y, w=None: F.binary_cross_entropy(x, y, w, s.reduction), "nn"),
    ("SmoothL1Loss", "beta=1.0, reduction='none'",
     lambda s, x, y: F.smooth_l1_loss(x, y, s.beta, s.reduction), "nn"),
    ("NLLLoss", "reduction='mean', ignore_index=-100", _nll_loss, "nn"),
    ("IOU", "mode='iou'", lambda s, a, g: F.iou(a, g, s.mode), "nn"),
    ("ApplyMomentum", "use_nesterov=False, use_locking=False, gradient_scale=1.0",
     _apply_momentum, "nn"),
    ("RmsNorm", "epsilon=1e-6", lambda s, x, g: F.rms_norm(x, g, s.epsilon), "nn"),
    # ---- random ----------------------------------------------------------------------------
    ("UniformReal", "seed=0, seed2=0",
     lambda s, shape: F.random_uniform(shape, s.seed * 65536 + s.seed2), "random"),
    ("StandardNormal", "seed=0, seed2=0",
     lambda s, shape: F.random_normal(shape, s.seed * 65536 + s.seed2), "random"),
    # ---- other --------------------------------------------------------------------------------
    ("Assign", "", lambda s, var, value: F.assign(var, value), "other"),
    ("AssignAdd", "", lambda s, var, value: F.assign(var, F.add(var, value)), "other"),
    ("AssignSub", "", lambda s, var, value: F.assign(var, F.sub(var, value)), "other"),
    ("Depend", "", lambda s, value, expr: F.depend(value, expr), "other"),
    ("StopGradient", "", lambda s, x: F.stop_gradient(x), "other"),
    ("Print", "", _print, "other", "python"),
    # ---- more compositions of the functional ops --------------------------------------
    ("Addcdiv", "", lambda s, x, a, b, v: F.add(x, F.mul(v, F.div(a, b))), "math"),
    ("Addcmul", "", lambda s, x, a, b, v: F.add(x, F.mul(v, F.mul(a, b))), "math"),
    ("Inv", "", lambda s, x: F.reciprocal(x), "math"),
    ("Logit", "eps=-1.0", lambda s, x: F.logit(x, None if s.eps < 0 else s.eps), "math"),
    ("Xlogy", "", lambda s, x, y: F.xlogy(x, y), "math"),
    ("MulNoNan", "", lambda s, x, y: F.select(F.equal(y, 0), F.zeros_like(F.mul(x, y)),
                                               F.mul(x, y)), "math"),
    ("TruncateDiv", "", lambda s, x, y: F.truncate_div(x, y), "math"),
    ("TruncateMod", "", lambda s, x, y: F.truncate_mod(x, y), "math"),
    ("Hypot", "", lambda s, x, y: mnp.hypot(x, y), "math"),
    ("Heaviside", "", lambda s, x, v: mnp.heaviside(x, v), "math"),
    ("ApproximateEqual", "tolerance=1e-5", lambda s, x, y: F.approximate_equal(x, y, s.tolerance),
     "math"),
    ("EqualCount", "", lambda s, x, y: F.reshape(F.reduce_sum(F.cast(F.equal(x, y), _dt.int32)),
                                                 (1,)), "math"),
    ("Cross", "dim=-65530", _cross, "math"),
    ("AccumulateNV2", "", lambda s, xs: F.addn(xs), "math"),
    ("L2Loss", "", lambda s, x: F.mul(F.reduce_sum(F.square(x)), 0.5), "nn"),
    ("LpNorm", "axis, p=2, keep_dims=False, epsilon=1e-12",
     lambda s, x: F.norm(x, float(s.p), s.axis, s.keep_dims), "math"),
    ("EuclideanNorm", "keep_dims=False",
     lambda s, x, axes: F.sqrt(F.reduce_sum(F.square(x), axes, s.keep_dims)), "math"),
    ("ReduceStd", "axis=(), unbiased=True, keep_dims=False", _reduce_std, "math"),
    ("Trace", "", lambda s, x: mnp.trace(x), "math"),
    ("Diag", "", lambda s, x: F.diag(x), "array"),
    ("DiagPart", "", lambda s, x: mnp.diagonal(x), "array"),
    ("Expand", "", lambda s, x, shape: F.broadcast_to(x, tuple(shape.asnumpy().tolist())
                                                      if hasattr(shape, "asnumpy") else
                                                      tuple(shape)), "array"),
    ("SplitV", "size_splits, split_dim, num_split",
     lambda s, x: F.split(x, list(s.size_splits), s.split_dim), "array"),
    ("MatrixBandPart", "", lambda s, x, lo, up: F.matrix_band_part(x, lo, up), "array"),
    ("CeLU", "alpha=1.0", lambda s, x: F.celu(x, s.alpha), "nn"),
    ("SeLU", "", lambda s, x: F.selu(x), "nn"),
    ("HShrink", "lambd=0.5", lambda s, x: F.hardshrink(x, s.lambd), "nn"),
    ("SoftShrink", "lambd=0.5", lambda s, x: F.soft_shrink(x, s.lambd), "nn"),
    ("PReLU", "", lambda s, x, w: F.prelu(x, w), "nn"),
    ("KLDivLoss", "reduction='mean'", lambda s, x, y: F.kl_div(x, y, s.reduction), "nn"),
    ("SoftMarginLoss", "reduction='mean'",
     lambda s, x, y: _reduce(F.log1p(F.exp(F.neg(F.mul(x, y)))), s.reduction), "nn"),
    ("AdaptiveAvgPool2D", "output_size", lambda s, x: F.adaptive_avg_pool2d(x, s.output_size),
     "nn"),
    ("Cdist", "p=2.0", lambda s, a, b: F.cdist(a, b, s.p), "nn"),
    ("UnsortedSegmentSum", "", lambda s, x, ids, n: F.unsorted_segment_sum(x, ids, n), "array"),
    ("UnsortedSegmentMax", "", lambda s, x, ids, n: F.unsorted_segment_max(x, ids, n), "array"),
    ("UnsortedSegmentMin", "", lambda s, x, ids, n: F.unsorted_segment_min(x, ids, n), "array"),
    ("UnsortedSegmentProd", "", lambda s, x, ids, n: F.unsorted_segment_prod(x, ids, n),
     "array"),
    ("SegmentSum", "", _segment_sum, "array", "python"),
    ("TensorScatterAdd", "", lambda s, x, idx, u: F.add(x, F.scatter_nd(idx, u, F.shape(x))),
     "array"),
    ("TensorScatterSub", "", lambda s, x, idx, u: F.sub(x, F.scatter_nd(idx, u, F.shape(x))),
     "array"),
    ("ScatterNdAdd", "use_locking=False",
     lambda s, var, idx, u: F.assign(var, F.add(var, F.scatter_nd(idx, u, F.shape(var)))),
     "array"),
    ("ScatterNdSub", "use_locking=False",
     lambda s, var, idx, u: F.assign(var, F.sub(var, F.scatter_nd(idx, u, F.shape(var)))),
     "array"),
    ("ScatterAdd", "use_locking=False",
     lambda s, var, idx, u: F.assign(var, F.add(var, _scatter_axis0(var, idx, u))), "array"),
    ("ScatterSub", "use_locking=False",
     lambda s, var, idx, u: F.assign(var, F.sub(var, _scatter_axis0(var, idx, u))), "array"),
    ("ScatterUpdate", "use_locking=True",
     lambda s, var, idx, u: F.assign(var, F.tensor_scatter_update(
         var, F.expand_dims(F.to_tensor(idx), -1), u)), "array"),
    ("InplaceAdd", "indices", lambda s, x, v: F.inplace_add(x, v, s.indices), "array"),
    ("InplaceSub", "indices", lambda s, x, v: F.inplace_sub(x, v, s.indices), "array"),
    ("InplaceUpdate", "indices", lambda s, x, v: F.inplace_update(x, v, s.indices), "array"),
    ("IndexAdd", "axis, use_lock=True, check_index_bound=True", _index_add, "array"),
    ("ResizeNearestNeighborV2", "align_corners=False, half_pixel_centers=False",
     lambda s, x, size: F.resize_nearest_neighbor(
         x, tuple(size.asnumpy().tolist()) if hasattr(size, "asnumpy") else size,
         s.align_corners, s.half_pixel_centers), "nn"),
    ("MirrorPad", "mode='REFLECT'", _mirror_pad, "nn"),
    ("Padding", "pad_dim_size=8",
     lambda s, x: F.concat((x, F.zeros(F.shape(x)[:-1] + (s.pad_dim_size - F.shape(x)[-1],),
                                       F.dtype(x))), -1), "nn"),
    ("Eps", "", _eps, "array"),
    ("DepthToSpace", "block_size", _depth_to_space, "array"),
    ("SpaceToDepth", "block_size", _space_to_depth, "array"),
    ("InvertPermutation", "", lambda s, x: tuple(int(i) for i in _np.argsort(x)), "array",
     "static"),
    ("IdentityN", "", lambda s, xs: tuple(xs), "array"),
    ("UniformInt", "seed=0, seed2=0", _uniform_int, "random"),
    ("StandardLaplace", "seed=0, seed2=0", _standard_laplace, "random"),
    ("LogSpace", "steps=10, base=10, dtype=None", _log_space, "array"),
    ("Dropout2D", "keep_prob=0.5", lambda s, x: _channel_dropout(s, x, 4), "nn"),
    ("Dropout3D", "keep_prob=0.5", lambda s, x: _channel_dropout(s, x, 5), "nn"),
    ("IndexFill", "", lambda s, x, dim, index, value: F.index_fill(x, dim, index, value),
     "array"),
    ("SparseGatherV2", "", lambda s, x, idx, axis: F.gather(x, idx, axis), "array"),
    ("ParallelConcat", "", lambda s, xs: F.concat(xs, 0), "array"),
    ("InTopK", "k", _in_top_k, "nn"),
    ("Conv2DTranspose", "out_channel, kernel_size, pad_mode='valid', pad=0, pad_list=None, "
     "mode=1, stride=1, dilation=1, group=1, data_format='NCHW'", _conv2d_transpose, "nn"),
    ("Conv2DBackpropInput", "out_channel, kernel_size, pad_mode='valid', pad=0, pad_list=None, "
     "mode=1, stride=1, dilation=1, group=1, data_format='NCHW'", _conv2d_transpose, "nn"),
    # ---- detection and overflow status -------------------------------------------------
    ("BoundingBoxEncode", "means=(0.0, 0.0, 0.0, 0.0), stds=(1.0, 1.0, 1.0, 1.0)",
     _bbox_encode, "nn"),
    ("BoundingBoxDecode", "max_shape, means=(0.0, 0.0, 0.0, 0.0), stds=(1.0, 1.0, 1.0, 1.0), "
     "wh_ratio_clip=0.016", _bbox_decode, "nn"),
    ("CheckValid", "", _check_valid, "nn"),
    ("FloatStatus", "", _float_status, "math"),
    ("NMSWithMask", "iou_threshold=0.5", _nms_with_mask, "nn", "python"),
    ("ReverseSequence", "seq_dim, batch_dim=0", _reverse_sequence, "array"),
    ("MaxPool3D", "kernel_size=1, strides=1, pad_mode='VALID', pad_list=0, ceil_mode=None, "
     "data_format='NCDHW'", lambda s, x: _pool3d(s, x, "max"), "nn"),
    ("AvgPool3D", "kernel_size=1, strides=1, pad_mode='valid', pad=0, ceil_mode=False, "
     "count_include_pad=True, divisor_override=0, data_format='NCDHW'",
     lambda s, x: _pool3d(s, x, "avg"), "nn"),
    ("RandomChoiceWithMask", "count=256, seed=0, seed2=0", _random_choice_with_mask, "random"),
    # ---- MindSpore 2.3+ "Ext" primitives (mint's semantics) ------------------------------
    ("AddExt", "", lambda s, x, y, alpha=1: F.add(x, F.mul(y, alpha)) if alpha != 1
     else F.add(x, y), "math"),
    ("SubExt", "", lambda s, x, y, alpha=1: F.sub(x, F.mul(y, alpha)) if alpha != 1
     else F.sub(x, y), "math"),
    ("SumExt", "", lambda s, x, dim=None, keepdim=False, dtype=None: F.reduce_sum(
        x if dtype is None else F.cast(x, dtype), () if dim is None else dim, keepdim), "math"),
    ("SplitWithSize", "", lambda s, x, split_size, dim=0: tuple(F.split(x, list(split_size), dim)),
     "array"),
    ("Gelu", "", lambda s, x: F.gelu(x, approximate="tanh"), "nn"),   # = GeLU in 2.10
    ("StackExt", "dim=0", lambda s, xs: F.stack(xs, s.dim), "array"),
    ("TopkExt", "", lambda s, x, k, dim=-1, largest=True, sorted=True: tuple(
        (v if i == 0 else F.cast(v, _dt.int64))
        for i, v in enumerate(F.topk(x, k, dim, largest, sorted))), "array"),
    ("BatchMatMulExt", "", lambda s, x, y: F.bmm(x, y), "math"),
    ("CumsumExt", "", lambda s, x, dim, dtype=None: F.cumsum(x, dim, dtype), "math"),
    # data-dependent output shapes: PyNative only (msmlir/ops/dynamic.py)
    ("Unique", "", lambda s, x: _unique(x), "array", "python"),
    ("MaskedSelect", "", lambda s, x, mask: _masked_select(x, mask), "array", "python"),
    ("NonZero", "", lambda s, x: _nonzero(x), "array", "python"),
    # collectives over the MPI world or a create_group group (msmlir.communication)
    ("AllReduce", "op='sum', group=None",
     lambda s, x: _all_reduce(x, s.op, group=s.group), "comm"),
    ("AllGather", "group=None", lambda s, x: _all_gather(x, group=s.group), "comm"),
    ("ReduceScatter", "op='sum', group=None",
     lambda s, x: _reduce_scatter(x, s.op, group=s.group), "comm"),
    ("Broadcast", "root_rank, group=None",
     lambda s, xs: tuple(_broadcast(x, s.root_rank, group=s.group) for x in xs), "comm"),
    ("AlltoAll", "split_count, split_dim, concat_dim, group=None",
     lambda s, x: _all_to_all(x, s.split_dim, s.concat_dim, s.split_count, group=s.group),
     "comm"),
    # ---- detection (ROIAlign), summaries, Ascend overflow status --------------------
    ("ROIAlign", "pooled_height, pooled_width, spatial_scale, sample_num=2, roi_end_mode=1",
     _roi_align, "nn"),
    *[(n, "", _summary_op, "other", "python") for n in ("ScalarSummary", "TensorSummary",
                                                         "ImageSummary", "HistogramSummary")],
    ("CTCLoss", "preprocess_collapse_repeated=False, ctc_merge_repeated=True, "
     "ignore_longer_outputs_than_inputs=False", _ctc_loss, "nn", "python"),
    ("Adam", "use_locking=False, use_nesterov=False", _adam, "nn"),
    ("AdamWeightDecay", "use_locking=False", _adam_weight_decay, "nn"),
    ("LRN", "depth_radius=5, bias=1.0, alpha=1.0, beta=0.5, norm_region='ACROSS_CHANNELS'",
     _lrn, "nn"),
    ("Swiglu", "dim=-1", _swiglu, "nn"),
    ("ScalarToArray", "", _scalar_to_array, "array"),
    ("CropAndResize", "method='bilinear', extrapolation_value=0.0", _crop_and_resize, "nn"),
    ("BitwiseAnd", "", lambda s, x, y: F.bitwise_and(x, y), "math"),
    ("BitwiseOr", "", lambda s, x, y: F.bitwise_or(x, y), "math"),
    ("BitwiseXor", "", lambda s, x, y: F.bitwise_xor(x, y), "math"),
    ("LeftShift", "", lambda s, x, y: F.bitwise_left_shift(x, y), "math"),
    ("RightShift", "", lambda s, x, y: F.bitwise_right_shift(x, y), "math"),
    ("Invert", "", lambda s, x: F.invert(x), "math"),
    # ---- LLM / MoE, recurrent and the rest of the 200 most used (issue 12) ----------------
    ("Sum", "", _ex.sum_, "math"),
    ("Morph", "fn, infer_shape, infer_dtype, bprop_fn=None", _ex.morph, "other", "python"),
    ("MoveTo", "", _ex.move_to, "other"),
    ("DropoutGenMask", "Seed0=0, Seed1=0", _ex.dropout_gen_mask, "nn"),
    ("DropoutDoMask", "", _ex.dropout_do_mask, "nn"),
    ("FusedWeightScaleApplyMomentum", "", _ex.fused_weight_scale_apply_momentum, "nn"),
    ("MaxPoolWithArgmax", "kernel_size=1, strides=1, pad_mode='valid', data_format='NCHW'",
     _ex.max_pool_with_argmax, "nn"),
    ("AlltoAllV", "group=None, block_size=1", _ex.alltoallv, "comm"),
    ("GroupedMatmul", "split_item=0, group_type=-1, transpose_a=False, transpose_b=False",
     _att.grouped_matmul, "nn"),
    ("GroupedMatmulV4", "", _att.grouped_matmul_v4, "nn"),
    ("ReshapeAndCache", "", _att.reshape_and_cache, "nn"),
    ("PagedAttention", "head_num, scale_value=1.0, kv_head_num=0, kv_cache_quant_mode='DEFAULT', "
     "mask_mode='MASK_DEFAULT', mla_v_dim=0", _att.paged_attention, "nn"),
    ("PagedAttentionMask", "head_num, scale_value=1.0, kv_head_num=0, "
     "kv_cache_quant_mode='DEFAULT'", _att.paged_attention_mask, "nn"),
    ("FlashAttentionScore", "head_num, keep_prob=1.0, scale_value=1.0, pre_tokens=2147483647, "
     "next_tokens=2147483647, inner_precise=0, input_layout='BSH', sparse_mode=0",
     _att.flash_attention_score, "nn"),
    ("ApplyRotaryPosEmb", "cos_format=0", _att.apply_rotary_pos_emb, "nn"),
    ("DynamicRNN", "cell_type='LSTM', direction='UNIDIRECTIONAL', cell_depth=1, "
     "use_peephole=False, keep_prob=1.0, cell_clip=-1.0, num_proj=0, time_major=True, "
     "activation='tanh', forget_bias=0.0, is_training=True", _rnn.dynamic_rnn, "nn"),
    ("DynamicGRUV2", "direction='UNIDIRECTIONAL', cell_depth=1, keep_prob=1.0, cell_clip=-1.0, "
     "num_proj=0, time_major=True, activation='tanh', gate_order='rzh', reset_after=True, "
     "is_training=True", _rnn.dynamic_gru_v2, "nn"),
    ("LSTM", "input_size, hidden_size, num_layers, has_bias, bidirectional, dropout, "
     "proj_size=0", _rnn.lstm, "nn"),
    ("MoeGatingTopKSoftmax", "", _moe.moe_gating_top_k_softmax, "nn"),
    ("MoeInitRouting", "", _moe.moe_init_routing, "nn"),
    ("MoeInitRoutingV2", "", _moe.moe_init_routing_v2, "nn"),
    ("MoeComputeExpertTokens", "", _moe.moe_compute_expert_tokens, "nn"),
    ("MoeFinalizeRouting", "", _moe.moe_finalize_routing, "nn"),
    ("MoeTokenUnpermute", "", _moe.moe_token_unpermute, "nn"),
    ("GroupTopk", "", _moe.group_topk, "nn"),
    ("FusedAddTopKDiv", "", _moe.fused_add_top_k_div, "nn"),
    ("MoeDistributeDispatch", "", _moe.moe_distribute_dispatch, "comm"),
    ("MoeDistributeCombine", "", _moe.moe_distribute_combine, "comm"),
    # constructed as in MindSpore's scripts (which make them whatever the target); calling
    # one is an error (_npu_float_status)
    *[(n, "", _npu_float_status, "math", "python")
      for n in ("NPUAllocFloatStatus", "NPUGetFloatStatus", "NPUClearFloatStatus")],
]

# MindSpore primitives of the most used set that msmlir does not have, and why.
MISSING = {
    "Im2Col": "no functional twin yet",
    "Einsum": "no functional twin yet",
    "Multinomial": "no functional twin yet (sampling without replacement)",
}


# ---------------------------------------------------------------------------
# Class generation
# ---------------------------------------------------------------------------

def _signature(spec: str) -> inspect.Signature:
    return inspect.signature(eval(f"lambda {spec}: None", {"_dt": _dt}))  # noqa: S307


def _make_class(name, spec, impl, category, *flags):
    sig = _signature(spec)

    def __init__(self, *args, **kwargs):
        Primitive.__init__(self, name)
        try:
            bound = sig.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"For '{name}', {e}") from None
        bound.apply_defaults()
        for k, v in bound.arguments.items():
            setattr(self, k, v)
            self.add_prim_attr(k, v)
            self.init_attrs[k] = v

    def _impl(self, *args, **kwargs):
        return impl(self, *args, **kwargs)

    doc = (f"MindSpore's `ops.{name}({spec})` primitive ({category}); msmlir composes it "
           f"from the functional ops (see msmlir/ops/operations/__init__.py).")
    ns = {"__init__": __init__, "_impl": _impl, "__doc__": doc, "__module__": __name__,
          "_static": "static" in flags, "category": category}
    if "python" in flags:
        ns["__call__"] = lambda self, *a, **k: impl(self, *a, **k)
    return type(name, (PrimitiveWithInfer,), ns)


TABLE += _linalg.ROWS   # linear algebra, special functions, scatters (ops/operations/_linalg.py)
TABLE += _optim.ROWS    # Apply* optimizer steps on Parameters (ops/operations/_optim.py)
TABLE += _grad.ROWS     # backward primitives MindSpore's tests call (ops/operations/_grad.py)
TABLE += [              # twins of ops/nn_extra.py
    ("EmbeddingLookup", "", lambda s, params, indices, offset:
     F.embedding_lookup(params, indices, offset), "nn"),
    ("AdaptiveMaxPool2D", "output_size",
     lambda s, x: F.adaptive_max_pool2d(x, s.output_size, True), "nn"),
]

CLASSES: dict = {}
for _row in TABLE:
    if _row[0] in CLASSES:
        continue
    CLASSES[_row[0]] = _make_class(*_row)
for _cls in (LayerNorm, BatchNorm, Dropout, SoftmaxCrossEntropyWithLogits,
             SparseSoftmaxCrossEntropyWithLogits):
    CLASSES[_cls.__name__] = _cls
CLASSES["Custom"] = Custom
globals().update(CLASSES)

CATEGORY = {n: getattr(c, "category", "nn") for n, c in CLASSES.items()}

__all__ = sorted(CLASSES) + ["ReduceOp", "Primitive", "PrimitiveWithInfer", "PrimitiveWithCheck",
                             "prim_attr_register", "constexpr"]
