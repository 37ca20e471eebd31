"""Smaller MindSpore primitives of the most used set: Sum, Morph, MoveTo,
DropoutGenMask / DropoutDoMask (the bit-packed dropout mask), FusedWeightScaleApplyMomentum,
MaxPoolWithArgmax, AlltoAllV. Compositions of the functional ops."""
from __future__ import annotations

import numbers

import numpy as _np

from ... import dtype as _dt
from ... import ops as F
from ...frontend import builder as _b


def _t(x):
    return F.to_tensor(x)


def sum_(s, input, dim=None, keepdim=False, dtype=None):
    """ops.sum's primitive: the sum over dim (None: all), optionally cast first."""
    t = _t(input)
    if dtype is not None:
        t = F.cast(t, dtype)
    elif t.dtype.is_bool or (t.dtype.is_int and t.dtype != _dt.int64):
        t = F.cast(t, _dt.int64)                     # MindSpore: integer sums are int64
    axis = () if dim is None else (tuple(dim) if isinstance(dim, list) else dim)
    return F.reduce_sum(t, axis, bool(keepdim))


def morph(s, *args):
    """fn(*args); with bprop_fn, fn's gradient is bprop_fn(*args, out, dout)."""
    fn = s.fn
    if not callable(fn):
        _b.error(f"For 'Morph', fn must be callable, got {type(fn).__name__}", kind=TypeError)
    if s.bprop_fn is not None:
        from ...autodiff import custom_bprop
        return custom_bprop(s.bprop_fn, fn)(*args)
    if _b.current() is not None:
        from ...frontend.parser import invoke
        return invoke(fn, list(args), {})
    return fn(*args)


_TARGETS = ("CPU", "Ascend", "GPU")


def move_to(s, input, to="CPU", blocking=True):
    """A copy of input 'moved' to device `to`: msmlir tensors live in host memory, so
    it is a copy (a new tensor) whatever the target."""
    if to not in _TARGETS:
        _b.error(f"For 'MoveTo', to must be one of {', '.join(_TARGETS)}, got {to!r}",
                 kind=ValueError)
    if not isinstance(blocking, bool):
        _b.error(f"For 'MoveTo', blocking must be a bool, got {blocking!r}", kind=TypeError)
    return F.identity(_t(input)) if hasattr(F, "identity") else F.add(_t(input), 0)


# ---- bit-packed dropout masks -----------------------------------------------------------------

_BITS = _np.array([1 << b for b in range(8)], dtype=_np.int32)


def _mask_len(shape, name):
    if not isinstance(shape, (tuple, list)) or not all(
            isinstance(d, numbers.Integral) and not isinstance(d, bool) and d > 0 for d in shape):
        _b.error(f"For '{name}', shape must be a tuple of positive ints, got {shape!r}",
                 kind=TypeError)
    n = int(_np.prod(shape)) if shape else 1
    return n, (n + 127) // 128 * 128


def _keep(name, keep_prob):
    if isinstance(keep_prob, numbers.Number) and not 0 < keep_prob <= 1:
        _b.error(f"For '{name}', keep_prob must be in (0, 1], got {keep_prob}", kind=ValueError)
    return keep_prob


def dropout_gen_mask(s, shape, keep_prob):
    """(ceil(n / 128) * 16,) bytes: bit b of byte j keeps element 8 j + b with probability
    keep_prob (n = prod(shape)), as MindSpore's mask — held as int8 (the same bits;
    msmlir compiles no uint8)."""
    name = "DropoutGenMask"
    n, length = _mask_len(shape, name)
    kp = _keep(name, keep_prob)
    u = F.random_uniform((length // 8, 8), s.Seed0 * 65536 + s.Seed1)
    keep = F.cast(F.less(u, F.cast(kp, _dt.float32)), _dt.int32)
    byte = F.reduce_sum(F.mul(keep, F.to_tensor(_BITS)), 1)
    return F.cast(byte, _dt.int8)


def dropout_do_mask(s, input_x, mask, keep_prob):
    """input_x * bit / keep_prob, the bits of DropoutGenMask's mask in element order."""
    name = "DropoutDoMask"
    x = _t(input_x)
    m = _t(mask)
    n = int(_np.prod(x.shape)) if x.shape else 1
    if m.ndim != 1 or m.shape[0] * 8 < n or str(m.dtype) not in ("int8", "int32", "int64"):
        _b.error(f"For '{name}', mask must be DropoutGenMask's 1-D byte mask with at least "
                 f"{(n + 7) // 8} bytes for {n} elements, got {m.dtype} of shape "
                 f"{tuple(m.shape)}", kind=ValueError)
    kp = _keep(name, keep_prob)
    byte = F.bitwise_and(F.cast(m, _dt.int32), 255)
    bits = F.bitwise_and(F.bitwise_right_shift(F.expand_dims(byte, 1),
                                               F.to_tensor(_np.arange(8, dtype=_np.int32))), 1)
    bits = F.reshape(F.slice(F.reshape(bits, (m.shape[0] * 8,)), (0,), (n,)), tuple(x.shape))
    return F.div(F.mul(x, F.cast(bits, x.dtype)), F.cast(kp, x.dtype))


# ---- optimizer step ---------------------------------------------------------------------------

def fused_weight_scale_apply_momentum(s, weight_decay, loss_scale, variable, accumulation,
                                      learning_rate, gradient, momentum):
    """grad = variable * weight_decay + gradient * loss_scale; accumulation =
    momentum * accumulation + grad; variable -= learning_rate * accumulation (in place,
    MindSpore's GPU kernel; loss_scale is the factor the gradient is multiplied by)."""
    g = F.add(F.mul(variable, weight_decay), F.mul(gradient, loss_scale))
    acc = F.assign(accumulation, F.add(F.mul(accumulation, momentum), g))
    return F.assign(variable, F.sub(variable, F.mul(acc, learning_rate)))


# ---- max pooling with the argmax ----------------------------------------------------------------

def _pair(v, name, what):
    t = (v, v) if isinstance(v, numbers.Integral) and not isinstance(v, bool) else tuple(v)
    if len(t) == 4:
        t = t[2:]
    if len(t) != 2 or not all(isinstance(i, numbers.Integral) and i > 0 for i in t):
        _b.error(f"For '{name}', {what} must be a positive int or a tuple of 2 (or 4: "
                 f"(1, 1, h, w)), got {v!r}", kind=ValueError)
    return int(t[0]), int(t[1])


def max_pool_with_argmax(s, x):
    """(output, mask): max pooling of NCHW x, and for each window the index
    h * W + w of its (first) maximum in its input plane, int32."""
    name = "MaxPoolWithArgmax"
    if s.data_format != "NCHW":
        _b.error(f"For '{name}', only data_format='NCHW' is supported", kind=ValueError)
    mode = s.pad_mode.lower()
    if mode not in ("valid", "same"):
        _b.error(f"For '{name}', pad_mode must be 'VALID' or 'SAME', got {s.pad_mode!r}",
                 kind=ValueError)
    t = _t(x)
    if t.ndim != 4:
        _b.error(f"For '{name}', the input must be 4-D (N, C, H, W), got shape {tuple(t.shape)}",
                 kind=ValueError)
    kh, kw = _pair(s.kernel_size, name, "kernel_size")
    sh, sw = _pair(s.strides, name, "strides")
    n, c, h, w = t.shape
    if mode == "valid":
        oh, ow = (h - kh) // sh + 1, (w - kw) // sw + 1
        pt = pl = 0
        if oh <= 0 or ow <= 0:
            _b.error(f"For '{name}', the {kh}x{kw} window does not fit the {h}x{w} input",
                     kind=ValueError)
    else:
        oh, ow = -(-h // sh), -(-w // sw)
        pt = max((oh - 1) * sh + kh - h, 0) // 2
        pl = max((ow - 1) * sw + kw - w, 0) // 2
    out = F.max_pool2d(t, (kh, kw), (sh, sw), 0, mode)
    xp = F.stop_gradient(t)
    ph = max((oh - 1) * sh + kh - h - pt, 0)
    pw = max((ow - 1) * sw + kw - w - pl, 0)
    if pt or pl or ph or pw:
        xp = F.pad(xp, (pl, pw, pt, ph), value=-float("inf"))
    wins = []
    for a in range(kh):
        for b in range(kw):
            wins.append(F.getitem(xp, (slice(None), slice(None),
                                       slice(a, a + (oh - 1) * sh + 1, sh),
                                       slice(b, b + (ow - 1) * sw + 1, sw))))
    which = F.cast(F.argmax(F.stack(wins, 0), 0), _dt.int32)            # (N, C, OH, OW)
    base = (_np.arange(oh)[:, None] * sh - pt) * w + (_np.arange(ow)[None, :] * sw - pl)
    idx = F.add(F.add(F.mul(F.floor_div(which, kw), w), F.floor_mod(which, kw)),
                F.to_tensor(base.astype(_np.int32)))
    return out, idx


def alltoallv(s, input_x, send_numel_list, recv_numel_list):
    from ..comm import all_to_all_v
    return all_to_all_v(input_x, send_numel_list, recv_numel_list, s.group, s.block_size)
