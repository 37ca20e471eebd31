"""Image transforms (MindSpore's `mindspore.dataset.vision`): geometry and resizing in
numpy; decoding and the photometric ops (Decode, RandomCropDecodeResize's decode,
RandomColorAdjust, AutoContrast, Equalize, RandomSharpness, RandomColor,
RandomGrayscale, RandomPosterize, RandomRotation) with Pillow (the `vision` extra);
RandomAffine (inverse-mapped NEAREST / BILINEAR sampling), RandomErasing (CHW, after
ToTensor), RandomResize and MixUpBatch (on batches) in numpy.

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

import math
import numbers
from enum import Enum, IntEnum

import numpy as np

from ._random import generator as _generator

__all__ = ["Resize", "Rescale", "Normalize", "HWC2CHW", "CenterCrop", "Crop", "RandomCrop",
           "RandomResizedCrop", "RandomHorizontalFlip", "RandomVerticalFlip", "HorizontalFlip",
           "VerticalFlip", "ToTensor", "ToType", "Grayscale", "Pad", "Decode",
           "RandomCropDecodeResize", "RandomColorAdjust", "Invert", "AutoContrast", "Equalize",
           "RandomSharpness", "RandomColor", "RandomGrayscale", "RandomPosterize", "CutOut",
           "RandomSolarize", "RandomSelectSubpolicy", "RandomRotation",
           "RandomAffine", "RandomErasing", "RandomResize", "MixUpBatch", "is_pil",
           "Inter", "Border"]
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


def _pil():
    try:
        from PIL import Image
    except ImportError:
        raise RuntimeError("this vision transform needs Pillow (pip install 'msmlir[vision]' "
                           "or pillow)") from None
    return Image


def _decode(img, what):
    """Encoded bytes (bytes or a 1-D uint8 array) -> PIL RGB image (validated by Pillow)."""
    if isinstance(img, (bytes, bytearray, memoryview)):
        data = bytes(img)
    else:
        x = _np(img)
        if x.ndim == 0 and x.dtype.kind == "S":          # np.asarray(b"...") in a pipeline
            x = np.frombuffer(x.item(), dtype=np.uint8)
        if x.ndim != 1 or x.dtype != np.uint8:
            raise TypeError(f"{what}: the input must be encoded image bytes (a 1-D uint8 "
                            f"array), got {x.dtype} of shape {list(x.shape)}")
        data = x.tobytes()
    Image = _pil()
    import io
    try:
        with Image.open(io.BytesIO(data)) as im:
            im.load()
            return im.convert("RGB")
    except (OSError, SyntaxError, ValueError, Image.DecompressionBombError) as e:
        raise RuntimeError(f"{what}: cannot decode the image ({len(data)} bytes): "
                           f"{type(e).__name__}: {e}") from None


class Decode:
    """Decodes an encoded image (JPEG, PNG, BMP, ... as bytes or a 1-D uint8 array) to
    RGB HWC uint8 with Pillow (a PIL image with `to_pil=True`). An already decoded
    <H, W[, C]> array passes through. Undecodable data raises RuntimeError."""

    def __init__(self, to_pil=False):
        if not isinstance(to_pil, bool):
            raise TypeError(f"Decode: to_pil must be a bool, got {to_pil!r}")
        self.to_pil = to_pil

    def __call__(self, img):
        if not isinstance(img, (bytes, bytearray, memoryview)) and _np(img).ndim >= 2:
            return _np(img)
        im = _decode(img, "Decode")
        return im if self.to_pil else np.asarray(im)


class RandomCropDecodeResize(RandomResizedCrop):
    """Decodes an encoded image (Pillow, to RGB), then crops and resizes it as
    `RandomResizedCrop` (same parameters and random box; MindSpore fuses the two for
    speed). An already decoded HWC image is cropped as is."""

    def __call__(self, img):
        if isinstance(img, (bytes, bytearray, memoryview)) or _np(img).ndim == 1:
            img = np.asarray(_decode(img, "RandomCropDecodeResize"))
        return super().__call__(img)


def _factor_range(value, name, center, lo_bound, hi_bound=None):
    """MindSpore's color-jitter parameter: a float v gives [max(lo, center - v), center + v],
    a (min, max) pair is the range itself (within [lo_bound, hi_bound])."""
    what = "RandomColorAdjust"
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        v = float(value)
        if v < 0 or (hi_bound is not None and v > hi_bound):
            top = "inf" if hi_bound is None else hi_bound
            raise ValueError(f"{what}: {name} must be in [0, {top}], got {v}")
        return max(lo_bound, center - v), center + v
    if isinstance(value, (list, tuple)) and len(value) == 2 and \
            all(isinstance(x, numbers.Real) and not isinstance(x, bool) for x in value):
        lo, hi = float(value[0]), float(value[1])
        if not lo_bound <= lo <= hi or (hi_bound is not None and hi > hi_bound):
            raise ValueError(f"{what}: {name} range must satisfy {lo_bound} <= min <= max"
                             f"{' <= ' + str(hi_bound) if hi_bound is not None else ''}, "
                             f"got {list(value)}")
        return lo, hi
    raise TypeError(f"{what}: {name} must be a float or a (min, max) sequence, got {value!r}")


def adjust_hue(im, hue):
    """Shifts the hue of a PIL RGB image by `hue` turns (in [-0.5, 0.5]), in Pillow's HSV
    (H stored in 0..255, shifted modulo 256), as torchvision's PIL backend does."""
    Image = _pil()
    h, s, v = im.convert("HSV").split()
    hh = np.asarray(h, dtype=np.uint8)
    hh = (hh.astype(np.int16) + int(round(hue * 255))).astype(np.uint8)  # wraps mod 256
    return Image.merge("HSV", (Image.fromarray(hh, "L"), s, v)).convert("RGB")


class RandomColorAdjust:
    """Randomly adjusts brightness, contrast, saturation and hue (MindSpore's parameters:
    a float b gives a factor uniform in [max(0, 1 - b), 1 + b], a (min, max) pair that
    range; hue h in [0, 0.5] gives a shift uniform in [-h, h] turns, or a (min, max)
    pair within [-0.5, 0.5]). The adjustments are Pillow's: ImageEnhance.Brightness,
    Contrast, Color (saturation), and a hue rotation in HSV (`adjust_hue`); they run in
    a random order, as MindSpore's, each drawn only when its range is not the identity.
    Input: RGB HWC uint8 (a <H, W> or <H, W, 1> image takes only brightness and
    contrast). Draws from the row's generator (reproducible under set_seed)."""

    def __init__(self, brightness=(1, 1), contrast=(1, 1), saturation=(1, 1), hue=(0, 0)):
        self.brightness = _factor_range(brightness, "brightness", 1.0, 0.0)
        self.contrast = _factor_range(contrast, "contrast", 1.0, 0.0)
        self.saturation = _factor_range(saturation, "saturation", 1.0, 0.0)
        self.hue = _factor_range(hue, "hue", 0.0, -0.5, 0.5)

    def __call__(self, img):
        x = _image(img, "RandomColorAdjust")
        if x.dtype != np.uint8:
            raise TypeError(f"RandomColorAdjust: the image must be uint8 (as Decode gives), "
                            f"got {x.dtype}")
        rgb = x.ndim == 3 and x.shape[2] == 3
        if not (x.ndim == 2 or (x.ndim == 3 and x.shape[2] in (1, 3))):
            raise RuntimeError(f"RandomColorAdjust: the image must be <H, W>, <H, W, 1> or "
                               f"<H, W, 3>, got shape {list(x.shape)}")
        if not rgb and (self.saturation != (1.0, 1.0) or self.hue != (0.0, 0.0)):
            raise RuntimeError(f"RandomColorAdjust: saturation and hue need an RGB <H, W, 3> "
                               f"image, got shape {list(x.shape)}")
        Image = _pil()
        from PIL import ImageEnhance
        im = Image.fromarray(np.ascontiguousarray(x.reshape(x.shape[:2])) if not rgb else
                             np.ascontiguousarray(x), "RGB" if rgb else "L")
        rng = _generator()
        steps = [("b", self.brightness, (1.0, 1.0)), ("c", self.contrast, (1.0, 1.0)),
                 ("s", self.saturation, (1.0, 1.0)), ("h", self.hue, (0.0, 0.0))]
        for k in rng.permutation(4):
            kind, (lo, hi), ident = steps[int(k)]
            if (lo, hi) == ident:
                continue
            f = float(rng.uniform(lo, hi))
            if kind == "b":
                im = ImageEnhance.Brightness(im).enhance(f)
            elif kind == "c":
                im = ImageEnhance.Contrast(im).enhance(f)
            elif kind == "s":
                im = ImageEnhance.Color(im).enhance(f)
            else:
                im = adjust_hue(im, f)
        return np.asarray(im).reshape(x.shape)


def _u8_pil(img, what, rgb_only=False):
    """A uint8 <H, W>, <H, W, 1> or <H, W, 3> array -> (PIL image, a function mapping a PIL
    image back to the input's shape)."""
    x = _image(img, what)
    if x.dtype != np.uint8:
        raise TypeError(f"{what}: the image must be uint8, got {x.dtype}")
    if not (x.ndim == 2 or (x.ndim == 3 and x.shape[2] in (1, 3))) or \
            (rgb_only and not (x.ndim == 3 and x.shape[2] == 3)):
        raise RuntimeError(f"{what}: the image must be <H, W, 3>"
                           f"{'' if rgb_only else ', <H, W> or <H, W, 1>'}, got shape "
                           f"{list(x.shape)}")
    Image = _pil()
    rgb = x.ndim == 3 and x.shape[2] == 3
    im = Image.fromarray(np.ascontiguousarray(x if rgb else x.reshape(x.shape[:2])),
                         "RGB" if rgb else "L")
    return im, lambda out: np.asarray(out).reshape(x.shape)


def _degrees(degrees, what):
    if not isinstance(degrees, (list, tuple)) or len(degrees) != 2 or not all(
            isinstance(d, numbers.Real) and not isinstance(d, bool) for d in degrees) or \
            not 0 <= degrees[0] <= degrees[1]:
        raise ValueError(f"{what}: degrees must be (min, max) with 0 <= min <= max, got "
                         f"{degrees!r}")
    return float(degrees[0]), float(degrees[1])


def _prob(prob, what):
    if isinstance(prob, bool) or not isinstance(prob, numbers.Real) or not 0 <= prob <= 1:
        raise ValueError(f"{what}: prob must be in [0, 1], got {prob!r}")
    return float(prob)


class Invert:
    """255 - x for a uint8 image (any number of channels)."""

    def __call__(self, img):
        x = _image(img, "Invert")
        if x.dtype != np.uint8:
            raise TypeError(f"Invert: the image must be uint8, got {x.dtype}")
        return 255 - x


class AutoContrast:
    """Pillow's ImageOps.autocontrast: per channel, maps [lo, hi] (after cutting `cutoff`
    percent of the darkest and brightest pixels, ignoring the `ignore` values) to [0, 255]."""

    def __init__(self, cutoff=0.0, ignore=None):
        if isinstance(cutoff, bool) or not isinstance(cutoff, numbers.Real) or \
                not 0 <= cutoff < 50:
            raise ValueError(f"AutoContrast: cutoff must be in [0, 50), got {cutoff!r}")
        if ignore is not None:
            vals = [ignore] if isinstance(ignore, numbers.Integral) else ignore
            if not isinstance(vals, (list, tuple)) or not all(
                    isinstance(v, numbers.Integral) and not isinstance(v, bool) and
                    0 <= v <= 255 for v in vals):
                raise ValueError(f"AutoContrast: ignore must be an int or a list of ints in "
                                 f"[0, 255], got {ignore!r}")
            ignore = [int(v) for v in vals]
        self.cutoff, self.ignore = float(cutoff), ignore

    def __call__(self, img):
        from PIL import ImageOps
        im, back = _u8_pil(img, "AutoContrast")
        return back(ImageOps.autocontrast(im, cutoff=self.cutoff, ignore=self.ignore))


class Equalize:
    """Pillow's ImageOps.equalize: histogram equalization per channel."""

    def __call__(self, img):
        from PIL import ImageOps
        im, back = _u8_pil(img, "Equalize")
        return back(ImageOps.equalize(im))


class RandomSharpness:
    """Pillow's ImageEnhance.Sharpness with a factor uniform in `degrees` (0 blurs, 1 is
    the original, 2 sharpens)."""

    def __init__(self, degrees=(0.1, 1.9)):
        self.degrees = _degrees(degrees, "RandomSharpness")

    def __call__(self, img):
        from PIL import ImageEnhance
        im, back = _u8_pil(img, "RandomSharpness")
        f = float(_generator().uniform(*self.degrees))
        return back(ImageEnhance.Sharpness(im).enhance(f))


class RandomColor:
    """Pillow's ImageEnhance.Color (saturation) with a factor uniform in `degrees` (0 is
    grayscale, 1 the original); RGB images."""

    def __init__(self, degrees=(0.1, 1.9)):
        self.degrees = _degrees(degrees, "RandomColor")

    def __call__(self, img):
        from PIL import ImageEnhance
        im, back = _u8_pil(img, "RandomColor", rgb_only=True)
        f = float(_generator().uniform(*self.degrees))
        return back(ImageEnhance.Color(im).enhance(f))


class RandomGrayscale:
    """With probability `prob`, Pillow's grayscale (L = 0.299 R + 0.587 G + 0.114 B),
    repeated on the input's number of channels."""

    def __init__(self, prob=0.1):
        self.prob = _prob(prob, "RandomGrayscale")

    def __call__(self, img):
        im, back = _u8_pil(img, "RandomGrayscale")
        if _generator().random() >= self.prob:
            return _np(img)
        g = np.asarray(im.convert("L"))
        x = _np(img)
        return np.ascontiguousarray(np.broadcast_to(g[..., None], x.shape)) if x.ndim == 3 \
            else g


class RandomPosterize:
    """Keeps the `bits` high bits of every uint8 value (Pillow's ImageOps.posterize);
    `bits` is an int or a (min, max) range in [1, 8], drawn uniformly per image."""

    def __init__(self, bits=(8, 8)):
        b = (bits, bits) if isinstance(bits, numbers.Integral) else bits
        if not isinstance(b, (list, tuple)) or len(b) != 2 or not all(
                isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in b) or \
                not 1 <= b[0] <= b[1] <= 8:
            raise ValueError(f"RandomPosterize: bits must be an int or (min, max) with "
                             f"1 <= min <= max <= 8, got {bits!r}")
        self.bits = (int(b[0]), int(b[1]))

    def __call__(self, img):
        from PIL import ImageOps
        im, back = _u8_pil(img, "RandomPosterize")
        k = int(_generator().integers(self.bits[0], self.bits[1] + 1))
        return back(ImageOps.posterize(im, k))


class CutOut:
    """Sets `num_patches` random `length` x `length` squares (each fully inside the image,
    top-left corner uniform) to 0; `is_hwc=False` for CHW images."""

    def __init__(self, length, num_patches=1, is_hwc=True):
        for nm, v in (("length", length), ("num_patches", num_patches)):
            if isinstance(v, bool) or not isinstance(v, numbers.Integral) or v <= 0:
                raise ValueError(f"CutOut: {nm} must be a positive int, got {v!r}")
        if not isinstance(is_hwc, bool):
            raise TypeError(f"CutOut: is_hwc must be a bool, got {is_hwc!r}")
        self.length, self.num_patches, self.is_hwc = int(length), int(num_patches), is_hwc

    def __call__(self, img):
        x = _image(img, "CutOut")
        if x.ndim != 3 and not (x.ndim == 2 and self.is_hwc):
            want = "<H, W[, C]>" if self.is_hwc else "<C, H, W>"
            raise RuntimeError(f"CutOut: the image must be {want}, got shape {list(x.shape)}")
        ay, ax = (0, 1) if self.is_hwc else (1, 2)
        H, W = x.shape[ay], x.shape[ax]
        n = self.length
        if n > H or n > W:
            raise RuntimeError(f"CutOut: length {n} is larger than the image ({H} x {W})")
        out = np.array(x, copy=True)
        rng = _generator()
        for _ in range(self.num_patches):
            top = int(rng.integers(0, H - n + 1))
            left = int(rng.integers(0, W - n + 1))
            idx = [slice(None)] * out.ndim
            idx[ay], idx[ax] = slice(top, top + n), slice(left, left + n)
            out[tuple(idx)] = 0
        return out


class RandomSolarize:
    """Inverts (255 - x) the uint8 pixels inside a random sub-range of `threshold`
    ((min, max) in [0, 255]): two values are drawn uniformly from [min, max] and the
    pixels between them (inclusive) are inverted, as MindSpore's RandomSolarize."""

    def __init__(self, threshold=(0, 255)):
        t = threshold
        if not isinstance(t, (list, tuple)) or len(t) != 2 or not all(
                isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in t) or \
                not 0 <= t[0] <= t[1] <= 255:
            raise ValueError(f"RandomSolarize: threshold must be (min, max) with "
                             f"0 <= min <= max <= 255, got {threshold!r}")
        self.threshold = (int(t[0]), int(t[1]))

    def __call__(self, img):
        x = _image(img, "RandomSolarize")
        if x.dtype != np.uint8:
            raise TypeError(f"RandomSolarize: the image must be uint8, got {x.dtype}")
        rng = _generator()
        a, b = (int(rng.integers(self.threshold[0], self.threshold[1] + 1)) for _ in range(2))
        lo, hi = min(a, b), max(a, b)
        return np.where((x >= lo) & (x <= hi), 255 - x, x).astype(np.uint8)


class RandomSelectSubpolicy:
    """Picks one sub-policy of `policy` uniformly per image and applies its (op, prob)
    steps in order, each with probability prob (MindSpore's AutoAugment building block)."""

    def __init__(self, policy):
        ok = isinstance(policy, list) and policy and all(
            isinstance(sub, list) and sub and all(
                isinstance(step, tuple) and len(step) == 2 and callable(step[0]) and
                isinstance(step[1], numbers.Real) and not isinstance(step[1], bool) and
                0 <= step[1] <= 1 for step in sub) for sub in policy)
        if not ok:
            raise ValueError("RandomSelectSubpolicy: policy must be a non-empty list of "
                             "non-empty lists of (operation, prob) tuples, prob in [0, 1]")
        self.policy = [[(op, float(p)) for op, p in sub] for sub in policy]

    def __call__(self, *imgs):
        rng = _generator()
        sub = self.policy[int(rng.integers(len(self.policy)))]
        out = imgs
        for op, p in sub:
            if rng.random() < p:
                r = op(*out)
                out = r if isinstance(r, tuple) else (r,)
        return out[0] if len(out) == 1 else tuple(out)


class RandomRotation:
    """Rotates by an angle uniform in `degrees` (a float d: [-d, d]; or (min, max)),
    counter-clockwise, about `center` ((x, y); default the image center), with Pillow's
    Image.rotate: `resample` NEAREST, BILINEAR or BICUBIC, `expand` to fit the whole
    rotated image, `fill_value` (int or RGB tuple) outside. uint8 images. MindSpore's op
    is OpenCV's warpAffine: interpolated pixels can differ from it by rounding."""

    def __init__(self, degrees, resample=Inter.NEAREST, expand=False, center=None,
                 fill_value=0):
        if isinstance(degrees, numbers.Real) and not isinstance(degrees, bool):
            if degrees < 0:
                raise ValueError(f"RandomRotation: degrees must be non-negative, got {degrees}")
            degrees = (-float(degrees), float(degrees))
        if not isinstance(degrees, (list, tuple)) or len(degrees) != 2 or \
                not all(isinstance(d, numbers.Real) for d in degrees) or degrees[0] > degrees[1]:
            raise ValueError(f"RandomRotation: degrees must be a non-negative float or "
                             f"(min, max), got {degrees!r}")
        self.degrees = (float(degrees[0]), float(degrees[1]))
        self.resample = _interp(resample, "RandomRotation")
        if self.resample not in (Inter.NEAREST, Inter.BILINEAR, Inter.BICUBIC):
            raise ValueError(f"RandomRotation: resample must be Inter.NEAREST, BILINEAR or "
                             f"BICUBIC, got {self.resample!r}")
        if not isinstance(expand, bool):
            raise TypeError(f"RandomRotation: expand must be a bool, got {expand!r}")
        if center is not None and not (isinstance(center, (list, tuple)) and len(center) == 2):
            raise ValueError(f"RandomRotation: center must be (x, y), got {center!r}")
        self.expand, self.center = expand, None if center is None else tuple(center)
        self.fill_value = _fill(fill_value, "RandomRotation")

    def __call__(self, img):
        im, _ = _u8_pil(img, "RandomRotation")
        Image = _pil()
        angle = float(_generator().uniform(*self.degrees))
        mode = {Inter.NEAREST: Image.Resampling.NEAREST,
                Inter.BILINEAR: Image.Resampling.BILINEAR,
                Inter.BICUBIC: Image.Resampling.BICUBIC}[self.resample]
        fill = self.fill_value
        if im.mode == "L":
            fill = int(fill[0] if isinstance(fill, tuple) else fill)
        else:
            fill = tuple(int(v) for v in fill) if isinstance(fill, tuple) else (int(fill),) * 3
        out = np.asarray(im.rotate(angle, mode, expand=self.expand, center=self.center,
                                   fillcolor=fill))
        x = _np(img)
        return out.reshape(out.shape[:2] + x.shape[2:])


# ---------------------------------------------------------------------------
# RandomAffine, RandomErasing, RandomResize, MixUpBatch (in numpy); is_pil
# ---------------------------------------------------------------------------

def _range(v, name, what, sym_ok=True, lo=None, hi=None, sizes=(2,)):
    """A (min, max) pair (or pairs) from MindSpore's number-or-sequence arguments."""
    if sym_ok and isinstance(v, numbers.Real) and not isinstance(v, bool):
        if v < 0:
            raise ValueError(f"{what}: {name} must be non-negative, got {v}")
        return (-float(v), float(v))
    if not isinstance(v, (list, tuple)) or len(v) not in sizes or \
            not all(isinstance(e, numbers.Real) and not isinstance(e, bool) for e in v):
        raise TypeError(f"{what}: {name} must be a number or a sequence of {sizes} numbers, "
                        f"got {v!r}")
    v = tuple(float(e) for e in v)
    if any(v[i] > v[i + 1] for i in range(0, len(v), 2)):
        raise ValueError(f"{what}: {name} must be (min, max) pairs with min <= max, got {v}")
    if (lo is not None and min(v) < lo) or (hi is not None and max(v) > hi):
        raise ValueError(f"{what}: {name} must lie in [{lo}, {hi}], got {v}")
    return v


class RandomAffine:
    """A random affine transform about the image center: rotation by an angle uniform
    in `degrees` (clockwise, as MindSpore documents), translation by tx * width and
    ty * height with tx, ty uniform in `translate` ((tx_min, tx_max[, ty_min,
    ty_max]) in [-1, 1]), scale uniform in `scale`, and shear angles (degrees)
    uniform in `shear` (a number s: x-shear in [-s, s]; 2 values: x range; 4: x and
    y ranges). Pixels come from the inverse map, with `resample` NEAREST or
    BILINEAR, `fill_value` outside the input. Images <H, W> or <H, W, C>."""

    def __init__(self, degrees, translate=None, scale=None, shear=None, resample=Inter.NEAREST,
                 fill_value=0):
        what = "RandomAffine"
        self.degrees = _range(degrees, "degrees", what)
        self.translate = (0.0, 0.0, 0.0, 0.0) if translate is None else \
            _range(translate, "translate", what, False, -1.0, 1.0, (2, 4))
        if len(self.translate) == 2:
            self.translate += (0.0, 0.0)
        self.scale = (1.0, 1.0) if scale is None else _range(scale, "scale", what, False, 0.0)
        if self.scale[0] <= 0:
            raise ValueError(f"{what}: scale must be positive, got {scale!r}")
        self.shear = (0.0, 0.0, 0.0, 0.0) if shear is None else \
            _range(shear, "shear", what, True, sizes=(2, 4))
        if len(self.shear) == 2:
            self.shear += (0.0, 0.0)
        self.resample = _interp(resample, what)
        if self.resample not in (Inter.NEAREST, Inter.BILINEAR):
            raise ValueError(f"{what}: resample {self.resample!r} is not supported (NEAREST, "
                             f"BILINEAR)")
        self.fill_value = _fill(fill_value, what)

    def _matrix(self, rng, h, w):
        """The 2x2 linear part and the translation (dx, dy) of the forward map."""
        angle = math.radians(rng.uniform(*self.degrees))
        tx, ty = rng.uniform(*self.translate[:2]), rng.uniform(*self.translate[2:])
        s = rng.uniform(*self.scale)
        shx = math.radians(rng.uniform(*self.shear[:2]))
        shy = math.radians(rng.uniform(*self.shear[2:]))
        rot = np.array([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]])
        shear = np.array([[1.0, math.tan(shx)], [math.tan(shy), 1.0]])
        return rot @ shear * s, (round(tx * w), round(ty * h))

    def __call__(self, img):
        x = _image(img, "RandomAffine")
        if x.ndim not in (2, 3):
            raise RuntimeError(f"RandomAffine: the image must be <H, W> or <H, W, C>, got shape "
                               f"{list(x.shape)}")
        h, w = x.shape[:2]
        lin, (dx, dy) = self._matrix(_generator(), h, w)
        cy, cx = (h - 1) / 2.0, (w - 1) / 2.0
        yy, xx = np.meshgrid(np.arange(h, dtype=np.float64), np.arange(w, dtype=np.float64),
                             indexing="ij")
        inv = np.linalg.inv(lin)
        ox, oy = xx - cx - dx, yy - cy - dy
        sx = inv[0, 0] * ox + inv[0, 1] * oy + cx          # source coordinates
        sy = inv[1, 0] * ox + inv[1, 1] * oy + cy
        fill = np.asarray(self.fill_value, np.float64)
        if fill.ndim and (x.ndim != 3 or x.shape[2] != fill.size):
            raise RuntimeError(f"RandomAffine: a {fill.size}-value fill_value needs an image "
                               f"with {fill.size} channels, got shape {list(x.shape)}")
        xf = x.astype(np.float64)
        # one pixel of fill around the image: samples off the image take fill_value
        pad = [(1, 1), (1, 1)] + [(0, 0)] * (x.ndim - 2)
        big = np.pad(xf, pad)
        big[0], big[-1], big[:, 0], big[:, -1] = fill, fill, fill, fill
        if self.resample == Inter.NEAREST:
            iy = np.clip(np.floor(sy + 0.5).astype(np.int64) + 1, 0, h + 1)
            ix = np.clip(np.floor(sx + 0.5).astype(np.int64) + 1, 0, w + 1)
            out = big[iy, ix]
        else:
            sy1, sx1 = np.clip(sy + 1, 0, h + 1), np.clip(sx + 1, 0, w + 1)
            y0 = np.minimum(np.floor(sy1).astype(np.int64), h)
            x0 = np.minimum(np.floor(sx1).astype(np.int64), w)
            fy, fx = sy1 - y0, sx1 - x0
            if x.ndim == 3:
                fy, fx = fy[..., None], fx[..., None]
            out = (big[y0, x0] * (1 - fy) * (1 - fx) + big[y0, x0 + 1] * (1 - fy) * fx
                   + big[y0 + 1, x0] * fy * (1 - fx) + big[y0 + 1, x0 + 1] * fy * fx)
        if x.dtype.kind in "ui":
            info = np.iinfo(x.dtype)
            out = np.clip(np.rint(out), info.min, info.max)
        return out.astype(x.dtype)


class RandomErasing:
    """With probability `prob`, erases a random rectangle of a CHW image (as after
    ToTensor): area a uniform fraction `scale` of the image, aspect ratio log-uniform
    in `ratio`, up to `max_attempts` draws to fit; filled with `value` (a number, one
    per channel, or 'random' for standard-normal noise). MindSpore's (torchvision's)
    algorithm."""

    def __init__(self, prob=0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0, inplace=False,
                 max_attempts=10):
        what = "RandomErasing"
        if isinstance(prob, bool) or not isinstance(prob, numbers.Real) or not 0 <= prob <= 1:
            raise ValueError(f"{what}: prob must be in [0, 1], got {prob!r}")
        self.prob = float(prob)
        self.scale = _range(scale, "scale", what, False, 0.0)
        self.ratio = _range(ratio, "ratio", what, False)
        if self.ratio[0] <= 0:
            raise ValueError(f"{what}: ratio must be positive, got {ratio!r}")
        if not (value == "random" or isinstance(value, numbers.Real) or (
                isinstance(value, (list, tuple)) and all(isinstance(v, numbers.Real)
                                                         for v in value))):
            raise TypeError(f"{what}: value must be a number, a sequence of numbers or "
                            f"'random', got {value!r}")
        if isinstance(max_attempts, bool) or not isinstance(max_attempts, int) or \
                max_attempts <= 0:
            raise ValueError(f"{what}: max_attempts must be a positive int, got {max_attempts!r}")
        self.value, self.inplace, self.max_attempts = value, bool(inplace), max_attempts

    def __call__(self, img):
        x = _np(img)
        if x.ndim != 3:
            raise RuntimeError(f"RandomErasing: the image must be <C, H, W>, got shape "
                               f"{list(x.shape)}")
        rng = _generator()
        if rng.random() >= self.prob:
            return x
        c, h, w = x.shape
        area = h * w
        log_ratio = (math.log(self.ratio[0]), math.log(self.ratio[1]))
        for _ in range(self.max_attempts):
            erase = area * rng.uniform(*self.scale)
            aspect = math.exp(rng.uniform(*log_ratio))
            eh, ew = int(round(math.sqrt(erase * aspect))), int(round(math.sqrt(erase / aspect)))
            if eh < h and ew < w:
                top, left = int(rng.integers(0, h - eh + 1)), int(rng.integers(0, w - ew + 1))
                if self.value == "random":
                    v = rng.standard_normal((c, eh, ew))
                else:
                    v = np.asarray(self.value, np.float64).reshape(-1, 1, 1)
                    if v.shape[0] not in (1, c):
                        raise RuntimeError(f"RandomErasing: value has {v.shape[0]} entries, the "
                                           f"image {c} channels")
                out = x if self.inplace and x.flags.writeable else np.array(x, copy=True)
                out[:, top:top + eh, left:left + ew] = v
                return out
        return x


class RandomResize(Resize):
    """Resize with an interpolation drawn per image from LINEAR, NEAREST, BICUBIC and
    AREA (MindSpore's RandomResize)."""

    _MODES = (Inter.LINEAR, Inter.NEAREST, Inter.BICUBIC, Inter.AREA)

    def __init__(self, size):
        super().__init__(size)

    def __call__(self, img):
        self.interpolation = self._MODES[int(_generator().integers(len(self._MODES)))]
        return super().__call__(img)


class MixUpBatch:
    """MixUp on a batch (after `batch`): images (N, H, W, C) or (N, C, H, W) and
    one-hot labels (N, classes) are mixed with a shuffled copy of the batch,
    x = lam * x + (1 - lam) * x[perm], lam ~ Beta(alpha, alpha). Images keep their
    dtype, labels become float32."""

    def __init__(self, alpha=1.0):
        if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real) or alpha <= 0:
            raise ValueError(f"MixUpBatch: alpha must be positive, got {alpha!r}")
        self.alpha = float(alpha)

    def __call__(self, images, labels):
        x, y = _np(images), _np(labels)
        if x.ndim != 4:
            raise RuntimeError(f"MixUpBatch: the images must be a batch <N, H, W, C> or "
                               f"<N, C, H, W> (apply it after batch), got shape {list(x.shape)}")
        if y.ndim != 2 or y.shape[0] != x.shape[0]:
            raise RuntimeError(f"MixUpBatch: the labels must be one-hot <N, classes> with N = "
                               f"{x.shape[0]}, got shape {list(y.shape)} (use OneHot first)")
        rng = _generator()
        perm = rng.permutation(x.shape[0])
        lam = rng.beta(self.alpha, self.alpha)
        mixed = lam * x.astype(np.float64) + (1 - lam) * x[perm].astype(np.float64)
        if x.dtype.kind in "ui":
            mixed = np.rint(mixed)
        return (mixed.astype(x.dtype),
                (lam * y.astype(np.float64) + (1 - lam) * y[perm]).astype(np.float32))


def is_pil(img) -> bool:
    """Whether `img` is a PIL image (MindSpore's py_transforms_util.is_pil)."""
    try:
        from PIL import Image
    except ImportError:
        return False
    return isinstance(img, Image.Image)


def is_numpy(img) -> bool:
    return isinstance(img, np.ndarray)


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
    alias_module(me, "py_transforms_util", "MindSpore 1.x "
                 "mindspore.dataset.vision.py_transforms_util: is_pil, is_numpy.",
                 {"is_pil": is_pil, "is_numpy": is_numpy})
    alias_module(me, "py_transforms", "MindSpore 1.x mindspore.dataset.vision.py_transforms on "
                 "numpy HWC arrays (ToPIL passes arrays through; Normalize expects CHW, as after "
                 "ToTensor).", p)


_register_aliases()
