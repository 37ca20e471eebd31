"""Image transforms (MindSpore's `mindspore.dataset.vision`), numpy implementations.

Images are numpy arrays <H, W> or <H, W, C> (HWC, like MindSpore's C++ ops and
OpenCV), uint8 or float; most transforms also take a batch <..., H, W, C>. Every
transform is a callable usable eagerly (``vision.Resize(32)(img)``) or in
`Dataset.map`. The random ones draw from the per-row generator of the pipeline
(`msmlir.dataset._random`): reproducible under `ds.config.set_seed`, identical with
any number of parallel workers.

Resize follows OpenCV's `cv::resize` (what MindSpore's Resize calls): LINEAR maps
output pixel x to the source coordinate (x + 0.5) * in / out - 0.5 (half-pixel
centers; horizontally clamped to the border, vertically only the row indices are,
as OpenCV does), NEAREST to floor(x * in / out). uint8 LINEAR reproduces OpenCV's
fixed-point arithmetic (11-bit weights, its vector rounding; an exact 2x
downscale is a rounded 2x2 box mean, as OpenCV switches to INTER_AREA there).
Measured against opencv-python 4.8 and 5.0 on 11 size pairs (upscaling,
downscaling, mixed; 1 and 3 channels): LINEAR, NEAREST and AREA uint8 are
bit-exact; float32 LINEAR/AREA within 4e-6 of OpenCV (values in [0, 1]), NEAREST
exact. CUBIC (A = -0.75, replicated border) is computed in float: float32 within
2e-6, uint8 within 1 (about 2% of the pixels differ by 1). AREA is OpenCV's box
filter when shrinking and its linear variant when enlarging along an axis;
PILCUBIC is treated as CUBIC and ANTIALIAS as AREA (Pillow filters in MindSpore).

MindSpore's other module paths are aliases of this module: `vision.utils` (Inter,
Border), `vision.transforms`, and the 1.x `vision.c_transforms` (same classes,
TypeCast = ToType) and `vision.py_transforms` (same classes on arrays; its
`Normalize` expects CHW images, as after ToTensor, and `ToPIL` passes arrays
through).
"""
from __future__ import annotations

import numbers
from enum import Enum, IntEnum

import numpy as np

from ._random import generator as _generator

__all__ = ["Resize", "Rescale", "Normalize", "HWC2CHW", "CenterCrop", "Crop", "RandomCrop",
           "RandomResizedCrop", "RandomHorizontalFlip", "RandomVerticalFlip", "HorizontalFlip",
           "VerticalFlip", "ToTensor", "ToType", "Grayscale", "Pad", "Decode", "Inter", "Border"]
# the modules `utils`, `transforms`, `c_transforms` and `py_transforms` are registered at
# the end of this file


class Inter(IntEnum):
    """Interpolation modes of Resize-like transforms (MindSpore's `vision.Inter`)."""
    NEAREST = 0
    ANTIALIAS = 1
    BILINEAR = 2
    LINEAR = 2
    BICUBIC = 3
    CUBIC = 3
    AREA = 4
    PILCUBIC = 5


class Border(str, Enum):
    """Padding modes (MindSpore's `vision.Border`): CONSTANT fills with fill_value, EDGE
    repeats the border pixel, REFLECT mirrors without repeating it (3 2 1 | 1 2 3 ->
    ... 2 | 1 2 3), SYMMETRIC mirrors repeating it."""
    CONSTANT = "constant"
    EDGE = "edge"
    REFLECT = "reflect"
    SYMMETRIC = "symmetric"


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------

def _np(x):
    return np.asarray(x.asnumpy() if hasattr(x, "asnumpy") else x)


def _contig(a):
    """C-contiguous without np.ascontiguousarray's promotion of 0-d arrays to 1-d."""
    return np.asarray(a, order="C")


def _image(x, what):
    x = _np(x)
    if x.ndim < 2:
        raise RuntimeError(f"{what}: the image must be <H, W> or <H, W, C> (or a batch "
                           f"<..., H, W, C>), got shape {list(x.shape)}")
    return x


def _hw_axes(x):
    """Axes of H and W: <H, W> -> (0, 1); <..., H, W, C> -> (-3, -2)."""
    return (0, 1) if x.ndim == 2 else (x.ndim - 3, x.ndim - 2)


def _size_pair(size, what):
    if isinstance(size, numbers.Integral) and not isinstance(size, bool):
        if size <= 0:
            raise ValueError(f"{what}: size must be positive, got {size}")
        return int(size), int(size)
    if isinstance(size, (list, tuple)) and len(size) == 2 and \
            all(isinstance(s, numbers.Integral) and not isinstance(s, bool) for s in size):
        if min(size) <= 0:
            raise ValueError(f"{what}: size must be positive, got {list(size)}")
        return int(size[0]), int(size[1])
    raise TypeError(f"{what}: size must be an int or a sequence of 2 ints (height, width), "
                    f"got {size!r}")


def _padding4(padding, what):
    """MindSpore's padding: int (all sides), (left/right, top/bottom) or
    (left, top, right, bottom). Returns (top, bottom, left, right)."""
    if isinstance(padding, numbers.Integral) and not isinstance(padding, bool):
        p = [int(padding)] * 4
    elif isinstance(padding, (list, tuple)) and len(padding) in (2, 4) and \
            all(isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in padding):
        p = [int(v) for v in padding]
        p = [p[0], p[1], p[0], p[1]] if len(p) == 2 else p
    else:
        raise TypeError(f"{what}: padding must be an int or a sequence of 2 or 4 ints, got "
                        f"{padding!r}")
    if min(p) < 0:
        raise ValueError(f"{what}: padding must be non-negative, got {padding!r}")
    left, top, right, bottom = p
    return top, bottom, left, right


def _fill(fill_value, what):
    if isinstance(fill_value, numbers.Number) and not isinstance(fill_value, bool):
        return fill_value
    if isinstance(fill_value, (list, tuple)) and len(fill_value) == 3:
        return tuple(fill_value)
    raise TypeError(f"{what}: fill_value must be a number or a 3-tuple (R, G, B), got "
                    f"{fill_value!r}")


def _border(mode, what):
    if isinstance(mode, Border):
        return mode
    try:
        return Border(mode)
    except ValueError:
        raise TypeError(f"{what}: padding_mode must be a vision.Border, got {mode!r}") from None


def _pad(img, top, bottom, left, right, fill_value=0, mode=Border.CONSTANT):
    if not (top or bottom or left or right):
        return img
    ay, ax = _hw_axes(img)
    widths = [(0, 0)] * img.ndim
    widths[ay] = (top, bottom)
    widths[ax] = (left, right)
    mode = _border(mode, "Pad")
    if mode is not Border.CONSTANT:
        return np.pad(img, widths, mode=mode.value)
    if isinstance(fill_value, tuple):
        if img.ndim < 3 or img.shape[-1] != len(fill_value):
            raise RuntimeError(f"Pad: a {len(fill_value)}-value fill_value needs an image with "
                               f"{len(fill_value)} channels, got shape {list(img.shape)}")
        out = np.empty([s + sum(w) for s, w in zip(img.shape, widths)], img.dtype)
        out[...] = np.asarray(fill_value).astype(img.dtype)
        out[tuple(slice(w[0], w[0] + s) for s, w in zip(img.shape, widths))] = img
        return out
    return np.pad(img, widths, mode="constant", constant_values=fill_value)


def _crop(img, top, left, h, w):
    ay, ax = _hw_axes(img)
    idx = [slice(None)] * img.ndim
    idx[ay] = slice(top, top + h)
    idx[ax] = slice(left, left + w)
    return _contig(img[tuple(idx)])


def _interp(mode, what):
    if isinstance(mode, Inter):
        return mode
    try:
        return Inter(mode)
    except ValueError:
        raise TypeError(f"{what}: interpolation must be a vision.Inter, got {mode!r}") from None


# ---------------------------------------------------------------------------
# resize (OpenCV cv::resize conventions)
# ---------------------------------------------------------------------------

def _linear_taps(out_n, in_n, area=False, vertical=False):
    """OpenCV INTER_LINEAR taps: (i0, i1, fx float32) per output index. With `area`,
    OpenCV's INTER_AREA taps when the image is enlarged along some axis. OpenCV clamps
    the horizontal taps at the borders (weight 0 on the outside pixel) but, vertically,
    only clamps the row indices and keeps the weights (both rows are then the border
    row: same value, different fixed-point rounding)."""
    inv = out_n / in_n
    scale = 1.0 / inv                                  # OpenCV: scale_x = 1 / inv_scale_x
    dx = np.arange(out_n, dtype=np.float64)
    if area:
        sx = np.floor(dx * scale).astype(np.int64)
        f = ((dx + 1) - (sx + 1) * inv).astype(np.float32)
        fx = np.where(f <= 0, np.float32(0), f - np.floor(f)).astype(np.float32)
    else:
        fx = ((dx + 0.5) * scale - 0.5).astype(np.float32)
        sx = np.floor(fx).astype(np.int64)
        fx = (fx - sx.astype(np.float32)).astype(np.float32)
    if vertical:
        return np.clip(sx, 0, in_n - 1), np.clip(sx + 1, 0, in_n - 1), fx
    lo = sx < 0
    fx[lo], sx[lo] = 0, 0
    hi = sx >= in_n - 1
    fx[hi], sx[hi] = 0, in_n - 1
    return sx, np.minimum(sx + 1, in_n - 1), fx


def _nearest_index(out_n, in_n):
    ifx = 1.0 / (out_n / in_n)
    return np.minimum(np.floor(np.arange(out_n, dtype=np.float64) * ifx).astype(np.int64),
                      in_n - 1)


def _cubic_matrix(out_n, in_n):
    """OpenCV INTER_CUBIC (A = -0.75) as an (out_n, in_n) weight matrix, border replicated."""
    a = -0.75
    scale = 1.0 / (out_n / in_n)
    fx = (np.arange(out_n, dtype=np.float64) + 0.5) * scale - 0.5
    sx = np.floor(fx)
    x = (fx - sx).astype(np.float32).astype(np.float64)
    c0 = ((a * (x + 1) - 5 * a) * (x + 1) + 8 * a) * (x + 1) - 4 * a
    c1 = ((a + 2) * x - (a + 3)) * x * x + 1
    c2 = ((a + 2) * (1 - x) - (a + 3)) * (1 - x) * (1 - x) + 1
    c3 = 1.0 - c0 - c1 - c2
    m = np.zeros((out_n, in_n))
    rows = np.arange(out_n)
    for k, c in enumerate((c0, c1, c2, c3)):
        idx = np.clip(sx.astype(np.int64) - 1 + k, 0, in_n - 1)
        np.add.at(m, (rows, idx), c)
    return m


def _area_matrix(out_n, in_n):
    """Box filter (OpenCV INTER_AREA when downscaling): the mean of the source pixels
    each output pixel covers, partial pixels weighted by their coverage."""
    scale = in_n / out_n
    m = np.zeros((out_n, in_n))
    for i in range(out_n):
        a, b = i * scale, (i + 1) * scale
        for j in range(int(np.floor(a)), min(int(np.ceil(b)), in_n)):
            m[i, j] = max(0.0, min(b, j + 1) - max(a, j))
    return m / m.sum(axis=1, keepdims=True)


def _apply_matrices(x, my, mx, ay, ax):
    """out = My . x . Mx^T along the H and W axes (float64 for float64 input, else f32)."""
    ct = np.float64 if x.dtype == np.float64 else np.float32
    xf = x.astype(ct, copy=False)
    y = np.moveaxis(np.tensordot(my.astype(ct), xf, axes=([1], [ay])), 0, ay)
    y = np.moveaxis(np.tensordot(mx.astype(ct), y, axes=([1], [ax])), 0, ax)
    return y


def _cast_back(y, dtype):
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return np.clip(np.rint(y), info.min, info.max).astype(dtype)
    return y.astype(dtype)


def _resize_linear_u8(x, out_h, out_w, ay, ax, area=False):
    """OpenCV's fixed-point INTER_LINEAR for uint8 (11-bit weights)."""
    in_h, in_w = x.shape[ay], x.shape[ax]
    y0, y1, fy = _linear_taps(out_h, in_h, area, vertical=True)
    x0, x1, fx = _linear_taps(out_w, in_w, area)
    one = np.float32(1)
    ia0 = np.rint((one - fx) * np.float32(2048)).astype(np.int32)
    ia1 = np.rint(fx * np.float32(2048)).astype(np.int32)
    ib0 = np.rint((one - fy) * np.float32(2048)).astype(np.int32)
    ib1 = np.rint(fy * np.float32(2048)).astype(np.int32)
    xi = x.astype(np.int32)

    def bshape(v, axis):
        s = [1] * x.ndim
        s[axis] = -1
        return v.reshape(s)

    h = np.take(xi, x0, axis=ax) * bshape(ia0, ax) + np.take(xi, x1, axis=ax) * bshape(ia1, ax)
    s0 = np.take(h, y0, axis=ay) >> 4
    s1 = np.take(h, y1, axis=ay) >> 4
    v = ((s0 * bshape(ib0, ay)) >> 16) + ((s1 * bshape(ib1, ay)) >> 16)
    return np.clip((v + 2) >> 2, 0, 255).astype(np.uint8)


def _resize(x, out_h, out_w, mode):
    ay, ax = _hw_axes(x)
    in_h, in_w = x.shape[ay], x.shape[ax]
    if (in_h, in_w) == (out_h, out_w):
        return x
    if mode == Inter.PILCUBIC:
        mode = Inter.BICUBIC
    if mode == Inter.ANTIALIAS:
        mode = Inter.AREA
    area_up = mode == Inter.AREA and (out_h > in_h or out_w > in_w)
    if area_up:                                        # OpenCV: linear with "area" taps
        mode = Inter.LINEAR
    if mode == Inter.NEAREST:
        y = np.take(x, _nearest_index(out_h, in_h), axis=ay)
        return _contig(np.take(y, _nearest_index(out_w, in_w), axis=ax))
    if mode == Inter.LINEAR and not area_up and in_h == 2 * out_h and in_w == 2 * out_w:
        mode = Inter.AREA                              # OpenCV does the same
    if mode == Inter.AREA and in_h % out_h == 0 and in_w % out_w == 0 and \
            x.dtype == np.uint8:
        # OpenCV's fast integer-ratio area: rounded box mean
        kh, kw = in_h // out_h, in_w // out_w
        shp = list(x.shape)
        shp[ay:ay + 1] = [out_h, kh]
        axw = ax + 1
        shp[axw:axw + 1] = [out_w, kw]
        s = x.astype(np.int32).reshape(shp).sum(axis=(ay + 1, axw + 1))
        n = kh * kw
        return ((s + n // 2) // n).astype(np.uint8)
    if mode == Inter.LINEAR:
        if x.dtype == np.uint8:
            return _resize_linear_u8(x, out_h, out_w, ay, ax, area_up)
        ct = np.float64 if x.dtype == np.float64 else np.float32
        y0, y1, fy = _linear_taps(out_h, in_h, area_up, vertical=True)
        x0, x1, fx = _linear_taps(out_w, in_w, area_up)

        def bshape(v, axis):
            s = [1] * x.ndim
            s[axis] = -1
            return v.astype(ct).reshape(s)

        xf = x.astype(ct, copy=False)
        one = ct(1)
        h = np.take(xf, x0, axis=ax) * bshape(one - fx.astype(ct), ax) + \
            np.take(xf, x1, axis=ax) * bshape(fx, ax)
        v = np.take(h, y0, axis=ay) * bshape(one - fy.astype(ct), ay) + \
            np.take(h, y1, axis=ay) * bshape(fy, ay)
        return _cast_back(v, x.dtype)
    if mode == Inter.BICUBIC:
        my, mx = _cubic_matrix(out_h, in_h), _cubic_matrix(out_w, in_w)
    elif mode == Inter.AREA:
        my, mx = _area_matrix(out_h, in_h), _area_matrix(out_w, in_w)
    else:
        raise ValueError(f"Resize: unsupported interpolation {mode!r}")
    return _cast_back(_apply_matrices(x, my, mx, ay, ax), x.dtype)


def _smaller_edge_size(size, in_h, in_w):
    """MindSpore's one-int size: the smaller edge becomes `size`, the other
    floor(other / smaller * size) (float32 arithmetic, as MindSpore)."""
    if in_h < in_w:
        return size, int(np.floor(np.float32(in_w) / np.float32(in_h) * np.float32(size)))
    return int(np.floor(np.float32(in_h) / np.float32(in_w) * np.float32(size))), size


class Resize:
    """Resizes an image <H, W>, <H, W, C> (or a batch <..., H, W, C>) to `size`:
    (height, width), or an int for the smaller edge keeping the aspect ratio.
    Output dtype = input dtype. See the module docstring for the interpolation
    conventions and their measured tolerance against OpenCV."""

    def __init__(self, size, interpolation=Inter.LINEAR):
        if isinstance(size, (list, tuple)) and len(size) == 1:
            size = size[0]
        self._one = isinstance(size, numbers.Integral) and not isinstance(size, bool)
        self.size = _size_pair(size, "Resize")[0] if self._one else _size_pair(size, "Resize")
        self.interpolation = _interp(interpolation, "Resize")

    def __call__(self, img):
        x = _image(img, "Resize")
        ay, ax = _hw_axes(x)
        if self._one:
            out_h, out_w = _smaller_edge_size(self.size, x.shape[ay], x.shape[ax])
        else:
            out_h, out_w = self.size
        return _resize(x, out_h, out_w, self.interpolation)


# ---------------------------------------------------------------------------
# pixel-value transforms
# ---------------------------------------------------------------------------

class Rescale:
    """x * rescale + shift, as float32."""

    def __init__(self, rescale, shift):
        self.rescale = float(rescale)
        self.shift = float(shift)

    def __call__(self, img):
        return (_np(img).astype(np.float32) * np.float32(self.rescale)
                + np.float32(self.shift)).astype(np.float32)


class Normalize:
    """(x - mean) / std per channel (the last axis with is_hwc, else the first of the
    image axes), float32. mean/std have one value per channel (or one for all)."""

    def __init__(self, mean, std, is_hwc=True):
        self.mean = np.asarray(mean, np.float32).reshape(-1)
        self.std = np.asarray(std, np.float32).reshape(-1)
        if self.mean.shape != self.std.shape:
            raise ValueError("Normalize: mean and std must have the same length")
        if np.any(self.std <= 0):
            raise ValueError("Normalize: std must be positive")
        if not isinstance(is_hwc, bool):
            raise TypeError(f"Normalize: is_hwc must be a bool, got {is_hwc!r}")
        self.is_hwc = is_hwc

    def __call__(self, img):
        x = _np(img).astype(np.float32)
        c = len(self.mean)
        if x.ndim == 2:
            shape = (1, 1)
        elif self.is_hwc:
            if c not in (1, x.shape[-1]):
                raise RuntimeError(f"Normalize: {c} mean/std values for an image of "
                                   f"{x.shape[-1]} channels (shape {list(x.shape)}, HWC)")
            shape = (1,) * (x.ndim - 1) + (c,)
        else:
            ch = x.ndim - 3
            if ch < 0 or c not in (1, x.shape[ch]):
                raise RuntimeError(f"Normalize: {c} mean/std values for a CHW image of shape "
                                   f"{list(x.shape)}")
            shape = [1] * x.ndim
            shape[ch] = c
        if x.ndim == 2 and c != 1:
            raise RuntimeError(f"Normalize: {c} mean/std values for a one-channel image")
        return ((x - self.mean.reshape(shape)) / self.std.reshape(shape)).astype(np.float32)


class ToType:
    """Casts to `data_type` (an msmlir dtype or numpy dtype)."""

    def __init__(self, data_type):
        from .. import dtype as _dt
        try:
            self._np = _dt.get(data_type).to_numpy()
        except (TypeError, ValueError):
            self._np = np.dtype(data_type)

    def __call__(self, x):
        return _np(x).astype(self._np)


# ---------------------------------------------------------------------------
# layout
# ---------------------------------------------------------------------------

class HWC2CHW:
    """Transposes an HWC image to CHW (an <H, W> image is returned unchanged, as in
    MindSpore 2.x)."""

    def __call__(self, img):
        x = _np(img)
        if x.ndim == 2:
            return x
        if x.ndim != 3:
            raise RuntimeError(f"HWC2CHW: expected an <H, W, C> or <H, W> image, got shape "
                               f"{list(x.shape)}")
        return _contig(x.transpose(2, 0, 1))


class ToTensor:
    """HWC image (uint8, or any dtype) -> CHW `output_type` (default float32) divided by
    255; an <H, W> image becomes <1, H, W>."""

    def __init__(self, output_type=np.float32):
        from .. import dtype as _dt
        try:
            self.output_type = _dt.get(output_type).to_numpy()
        except (TypeError, ValueError):
            self.output_type = np.dtype(output_type)

    def __call__(self, img):
        x = _np(img)
        if x.ndim == 2:
            x = x[..., None]
        if x.ndim != 3:
            raise RuntimeError(f"ToTensor: expected an <H, W, C> or <H, W> image, got shape "
                               f"{list(x.shape)}")
        return _contig((x.astype(np.float64) / 255.0).transpose(2, 0, 1)
                       .astype(self.output_type))


class Grayscale:
    """RGB HWC -> grayscale with ITU-R 601-2 luma (L = 0.299 R + 0.587 G + 0.114 B; for
    uint8 Pillow's fixed-point rounding). Returns <H, W, 1> (num_output_channels=1) or
    the luma repeated in 3 channels (num_output_channels=3)."""

    def __init__(self, num_output_channels=1):
        if num_output_channels not in (1, 3):
            raise ValueError(f"Grayscale: num_output_channels must be 1 or 3, got "
                             f"{num_output_channels!r}")
        self.num_output_channels = num_output_channels

    def __call__(self, img):
        x = _np(img)
        if x.ndim == 2 or (x.ndim == 3 and x.shape[-1] == 1):
            g = x.reshape(x.shape[0], x.shape[1], 1)
        else:
            if x.ndim != 3 or x.shape[-1] not in (3, 4):
                raise RuntimeError(f"Grayscale: expected an RGB <H, W, 3> image, got shape "
                                   f"{list(x.shape)}")
            r, gg, b = (x[..., i] for i in range(3))
            if x.dtype == np.uint8:
                lum = (r.astype(np.uint32) * 19595 + gg.astype(np.uint32) * 38470
                       + b.astype(np.uint32) * 7471 + 0x8000) >> 16
                g = lum.astype(np.uint8)[..., None]
            else:
                g = (0.299 * r + 0.587 * gg + 0.114 * b).astype(x.dtype)[..., None]
        if self.num_output_channels == 3:
            g = np.repeat(g, 3, axis=-1)
        return _contig(g)


# ---------------------------------------------------------------------------
# crops, pads, flips
# ---------------------------------------------------------------------------

class Crop:
    """Crops the `size` region whose top-left corner is `coordinates` (top, left)."""

    def __init__(self, coordinates, size):
        if not (isinstance(coordinates, (list, tuple)) and len(coordinates) == 2 and
                all(isinstance(c, numbers.Integral) and c >= 0 for c in coordinates)):
            raise TypeError(f"Crop: coordinates must be (top, left), got {coordinates!r}")
        self.coordinates = (int(coordinates[0]), int(coordinates[1]))
        self.size = _size_pair(size, "Crop")

    def __call__(self, img):
        x = _image(img, "Crop")
        ay, ax = _hw_axes(x)
        (t, l_), (h, w) = self.coordinates, self.size
        if t + h > x.shape[ay] or l_ + w > x.shape[ax]:
            raise RuntimeError(f"Crop: the region {self.coordinates} + {self.size} exceeds the "
                               f"image of shape {list(x.shape)}")
        return _crop(x, t, l_, h, w)


class CenterCrop:
    """Crops the center `size` (int: square) region; an image smaller than `size` is
    first zero-padded (ceil(d / 2) before, floor(d / 2) after), as in MindSpore. The
    crop starts at floor((H - h) / 2), floor((W - w) / 2)."""

    def __init__(self, size):
        self.size = _size_pair(size, "CenterCrop")

    def __call__(self, img):
        x = _image(img, "CenterCrop")
        ay, ax = _hw_axes(x)
        h, w = self.size
        dh, dw = max(h - x.shape[ay], 0), max(w - x.shape[ax], 0)
        x = _pad(x, (dh + 1) // 2, dh // 2, (dw + 1) // 2, dw // 2)
        return _crop(x, (x.shape[ay] - h) // 2, (x.shape[ax] - w) // 2, h, w)


class Pad:
    """Pads the borders: `padding` is an int (all sides), (left/right, top/bottom) or
    (left, top, right, bottom); `padding_mode` a vision.Border; `fill_value` (an int or
    an (R, G, B) tuple) for Border.CONSTANT."""

    def __init__(self, padding, fill_value=0, padding_mode=Border.CONSTANT):
        self.padding = _padding4(padding, "Pad")
        self.fill_value = _fill(fill_value, "Pad")
        self.padding_mode = _border(padding_mode, "Pad")

    def __call__(self, img):
        return _contig(_pad(_image(img, "Pad"), *self.padding, self.fill_value,
                            self.padding_mode))


class RandomCrop:
    """Crops a random `size` region (uniform top-left corner) after optional `padding`
    (as in `Pad`); with `pad_if_needed`, an image still smaller than `size` is padded
    on both sides by the missing amount (MindSpore's rule). Several input columns are
    cropped at the same place (they must share H and W)."""

    def __init__(self, size, padding=None, pad_if_needed=False, fill_value=0,
                 padding_mode=Border.CONSTANT):
        self.size = _size_pair(size, "RandomCrop")
        self.padding = (0, 0, 0, 0) if padding is None else _padding4(padding, "RandomCrop")
        if not isinstance(pad_if_needed, bool):
            raise TypeError(f"RandomCrop: pad_if_needed must be a bool, got {pad_if_needed!r}")
        self.pad_if_needed = pad_if_needed
        self.fill_value = _fill(fill_value, "RandomCrop")
        self.padding_mode = _border(padding_mode, "RandomCrop")

    def _prepare(self, x):
        x = _pad(x, *self.padding, self.fill_value, self.padding_mode)
        ay, ax = _hw_axes(x)
        h, w = self.size
        if self.pad_if_needed:
            dh = max(h - x.shape[ay], 0)
            dw = max(w - x.shape[ax], 0)
            x = _pad(x, dh, dh, dw, dw, self.fill_value, self.padding_mode)
        if x.shape[ay] < h or x.shape[ax] < w:
            raise RuntimeError(f"RandomCrop: crop size {list(self.size)} is bigger than the "
                               f"(padded) image {list(x.shape)}; use pad_if_needed=True")
        return x

    def __call__(self, *imgs):
        xs = [self._prepare(_image(i, "RandomCrop")) for i in imgs]
        ay, ax = _hw_axes(xs[0])
        hw = {(x.shape[_hw_axes(x)[0]], x.shape[_hw_axes(x)[1]]) for x in xs}
        if len(hw) != 1:
            raise RuntimeError("RandomCrop: input images in different columns must have the "
                               "same height and width")
        h, w = self.size
        H, W = xs[0].shape[ay], xs[0].shape[ax]
        if (H, W) == (h, w):
            out = [_contig(x) for x in xs]
        else:
            rng = _generator()
            left = int(rng.integers(0, W - w + 1))
            top = int(rng.integers(0, H - h + 1))
            out = [_crop(x, top, left, h, w) for x in xs]
        return out[0] if len(out) == 1 else tuple(out)


class RandomResizedCrop:
    """Crops a random region (area fraction in `scale`, aspect ratio w/h in `ratio`,
    log-uniform; up to `max_attempts` tries, then a center crop clamped to `ratio`) and
    resizes it to `size` with `interpolation` (MindSpore's / torchvision's algorithm)."""

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4.0, 4.0 / 3.0),
                 interpolation=Inter.LINEAR, max_attempts=10):
        self.size = _size_pair(size if not (isinstance(size, (list, tuple)) and len(size) == 1)
                               else size[0], "RandomResizedCrop")
        scale, ratio = tuple(float(s) for s in scale), tuple(float(r) for r in ratio)
        if len(scale) != 2 or not 0 <= scale[0] <= scale[1] or scale[1] <= 0:
            raise ValueError(f"RandomResizedCrop: scale must be (min, max) with 0 <= min <= max, "
                             f"got {scale}")
        if len(ratio) != 2 or not 0 < ratio[0] <= ratio[1]:
            raise ValueError(f"RandomResizedCrop: ratio must be (min, max) with 0 < min <= max, "
                             f"got {ratio}")
        self.scale, self.ratio = scale, ratio
        self.interpolation = _interp(interpolation, "RandomResizedCrop")
        if not isinstance(max_attempts, numbers.Integral) or max_attempts <= 0:
            raise ValueError(f"RandomResizedCrop: max_attempts must be a positive int, got "
                             f"{max_attempts!r}")
        self.max_attempts = int(max_attempts)

    def _box(self, H, W):
        rng = _generator()
        area = H * W
        lo, hi = np.log(self.ratio[0]), np.log(self.ratio[1])
        for _ in range(self.max_attempts):
            s = rng.uniform(self.scale[0], self.scale[1])
            r = float(np.exp(rng.uniform(lo, hi)))
            w = int(round(np.sqrt(area * s * r)))
            h = int(round(w / r))
            if 0 < w <= W and 0 < h <= H:
                return int(rng.integers(0, H - h + 1)), int(rng.integers(0, W - w + 1)), h, w
        aspect = W / H
        if aspect < self.ratio[0]:
            w, h = W, int(round(W / self.ratio[0]))
        elif aspect > self.ratio[1]:
            h, w = H, int(round(H * self.ratio[1]))
        else:
            w, h = W, H
        h, w = max(1, min(h, H)), max(1, min(w, W))
        return (H - h) // 2, (W - w) // 2, h, w

    def __call__(self, *imgs):
        xs = [_image(i, "RandomResizedCrop") for i in imgs]
        ay, ax = _hw_axes(xs[0])
        top, left, h, w = self._box(xs[0].shape[ay], xs[0].shape[ax])
        out = [_resize(_crop(x, top, left, h, w), *self.size, self.interpolation) for x in xs]
        return out[0] if len(out) == 1 else tuple(out)


def _flip(x, axis):
    idx = [slice(None)] * x.ndim
    idx[axis] = slice(None, None, -1)
    return _contig(x[tuple(idx)])


class HorizontalFlip:
    """Flips left-right."""

    def __call__(self, img):
        x = _image(img, "HorizontalFlip")
        return _flip(x, _hw_axes(x)[1])


class VerticalFlip:
    """Flips upside down."""

    def __call__(self, img):
        x = _image(img, "VerticalFlip")
        return _flip(x, _hw_axes(x)[0])


class _RandomFlip:
    _what = ""
    _axis = 0

    def __init__(self, prob=0.5):
        if not isinstance(prob, numbers.Real) or isinstance(prob, bool) or not 0 <= prob <= 1:
            raise ValueError(f"{self._what}: prob must be in [0, 1], got {prob!r}")
        self.prob = float(prob)

    def __call__(self, *imgs):
        xs = [_image(i, self._what) for i in imgs]
        if _generator().random() < self.prob:
            xs = [_flip(x, _hw_axes(x)[self._axis]) for x in xs]
        return xs[0] if len(xs) == 1 else tuple(xs)


class RandomHorizontalFlip(_RandomFlip):
    """Flips left-right with probability `prob` (all input columns together)."""
    _what = "RandomHorizontalFlip"
    _axis = 1


class RandomVerticalFlip(_RandomFlip):
    """Flips upside down with probability `prob` (all input columns together)."""
    _what = "RandomVerticalFlip"
    _axis = 0


class Decode:
    """Decodes an encoded image (1-D uint8 bytes) to RGB HWC uint8 with Pillow, when
    Pillow is installed (msmlir does not depend on it). An already decoded <H, W[, C]>
    array passes through."""

    def __init__(self, to_pil=False):
        self.to_pil = to_pil

    def __call__(self, img):
        if isinstance(img, (bytes, bytearray)):
            data = bytes(img)
        else:
            x = _np(img)
            if x.ndim >= 2:
                return x
            data = x.astype(np.uint8).tobytes()
        try:
            from PIL import Image
        except ImportError:
            raise RuntimeError("vision.Decode needs Pillow to decode JPEG/PNG bytes (pip "
                               "install pillow); or decode in the source and yield HWC "
                               "arrays") from None
        import io
        with Image.open(io.BytesIO(data)) as im:
            return np.asarray(im.convert("RGB"))


# ---------------------------------------------------------------------------
# MindSpore's other module paths: vision.utils, vision.transforms and the 1.x
# vision.c_transforms / vision.py_transforms
# ---------------------------------------------------------------------------

class _PyNormalize(Normalize):
    """(x - mean) / std per channel of a CHW image (py_transforms' convention: its
    Normalize follows ToTensor)."""

    def __init__(self, mean, std):
        super().__init__(mean, std, is_hwc=False)


_PyNormalize.__name__ = _PyNormalize.__qualname__ = "Normalize"


class ToPIL:
    """Passes numpy images through (msmlir's transforms take HWC arrays, which is what
    a PIL image converts to)."""

    def __call__(self, img):
        return _np(img)


def _register_aliases():
    import sys

    from ._alias import alias_module
    me = sys.modules[__name__]
    public = {k: globals()[k] for k in __all__}
    alias_module(me, "utils", "MindSpore's mindspore.dataset.vision.utils (Inter, Border).",
                 {"Inter": Inter, "Border": Border})
    alias_module(me, "transforms", "MindSpore's mindspore.dataset.vision.transforms.", public)
    c = dict(public)
    c.pop("ToTensor")
    c.pop("Grayscale")
    c["TypeCast"] = ToType
    alias_module(me, "c_transforms", "MindSpore 1.x mindspore.dataset.vision.c_transforms: the "
                 "same numpy transforms (HWC arrays).", c)
    p = dict(public)
    p.update({"Normalize": _PyNormalize, "ToPIL": ToPIL})
    alias_module(me, "py_transforms", "MindSpore 1.x mindspore.dataset.vision.py_transforms on "
                 "numpy HWC arrays (ToPIL passes arrays through; Normalize expects CHW, as after "
                 "ToTensor).", p)


_register_aliases()
