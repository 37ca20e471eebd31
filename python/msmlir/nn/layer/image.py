"""Image cells of mindspore.nn (layer/image.py): ResizeBilinear, PSNR, SSIM."""
from __future__ import annotations

import math

import numpy as np

from ... import dtype as mstype
from ... import ops
from ...common.tensor import Tensor
from ..cell import Cell

__all__ = ["ResizeBilinear", "PSNR", "SSIM"]


def _check_4d(x, what, cls):
    if len(x.shape) != 4:
        raise ValueError(f"For '{cls}', '{what}' must be 4-D (N, C, H, W), got shape "
                         f"{tuple(x.shape)}")


class ResizeBilinear(Cell):
    """Bilinear resize of NCHW images to `size` (h, w) or by an integer
    `scale_factor` (exactly one of them)."""

    def __init__(self, half_pixel_centers=False):
        super().__init__()
        self.half_pixel_centers = bool(half_pixel_centers)

    def construct(self, x, size=None, scale_factor=None, align_corners=False):
        _check_4d(x, "x", "ResizeBilinear")
        if (size is None) == (scale_factor is None):
            raise ValueError("For 'ResizeBilinear', exactly one of 'size' and 'scale_factor' "
                             "must be given")
        if size is None:
            if isinstance(scale_factor, bool) or not isinstance(scale_factor, int) \
                    or scale_factor < 1:
                raise ValueError(f"For 'ResizeBilinear', 'scale_factor' must be a positive "
                                 f"int, got {scale_factor!r}")
            size = (x.shape[2] * scale_factor, x.shape[3] * scale_factor)
        return ops.resize_bilinear(x, tuple(size), align_corners, self.half_pixel_centers)


def _to_float(img):
    return img if img.dtype == mstype.float32 else ops.cast(img, mstype.float32)


class PSNR(Cell):
    """Peak signal-to-noise ratio per image: 10 log10(max_val^2 / MSE) over (C, H, W)."""

    def __init__(self, max_val=1.0):
        super().__init__()
        if isinstance(max_val, bool) or not isinstance(max_val, (int, float)) or max_val <= 0:
            raise ValueError(f"For 'PSNR', 'max_val' must be a positive number, got {max_val!r}")
        self.max_val = float(max_val)

    def construct(self, img1, img2):
        _check_4d(img1, "img1", "PSNR")
        _check_4d(img2, "img2", "PSNR")
        d = _to_float(img1) - _to_float(img2)
        mse = ops.reduce_mean(d * d, (-3, -2, -1))
        return ops.log(self.max_val * self.max_val / mse) * (10.0 / math.log(10.0))


def _gaussian_window(size, sigma):
    """MindSpore's SSIM window: a normalised 2-D Gaussian, (1, 1, size, size)."""
    c = np.arange(size, dtype=np.float64) - (size - 1) / 2.0
    g = np.exp(-0.5 * (c[None, :] ** 2 + c[:, None] ** 2) / sigma ** 2)
    return (g / g.sum()).astype(np.float32).reshape(1, 1, size, size)


class SSIM(Cell):
    """Structural similarity per image (Gaussian window `filter_size` x
    `filter_size`, sigma `filter_sigma`, 'valid' windows, channels averaged)."""

    def __init__(self, max_val=1.0, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03):
        super().__init__()
        if isinstance(max_val, bool) or not isinstance(max_val, (int, float)) or max_val <= 0:
            raise ValueError(f"For 'SSIM', 'max_val' must be a positive number, got {max_val!r}")
        if not isinstance(filter_size, int) or filter_size < 1 or filter_sigma <= 0:
            raise ValueError("For 'SSIM', 'filter_size' must be a positive int and "
                             "'filter_sigma' positive")
        self.max_val, self.filter_size = float(max_val), filter_size
        self.c1 = (k1 * self.max_val) ** 2
        self.c2 = (k2 * self.max_val) ** 2
        self._window = Tensor(_gaussian_window(filter_size, float(filter_sigma)))

    def construct(self, img1, img2):
        _check_4d(img1, "img1", "SSIM")
        _check_4d(img2, "img2", "SSIM")
        n, c, h, w = img1.shape
        if h < self.filter_size or w < self.filter_size:
            raise ValueError(f"For 'SSIM', the images ({h}x{w}) are smaller than the "
                             f"filter ({self.filter_size})")
        x = ops.reshape(_to_float(img1), (n * c, 1, h, w))
        y = ops.reshape(_to_float(img2), (n * c, 1, h, w))
        win = self._window

        def blur(t):
            return ops.conv2d(t, win)
        mx, my = blur(x), blur(y)
        mxx, myy, mxy = mx * mx, my * my, mx * my
        sx, sy, sxy = blur(x * x) - mxx, blur(y * y) - myy, blur(x * y) - mxy
        s = ((2.0 * mxy + self.c1) * (2.0 * sxy + self.c2)) / \
            ((mxx + myy + self.c1) * (sx + sy + self.c2))
        s = ops.reshape(s, (n, c, s.shape[2], s.shape[3]))
        return ops.reduce_mean(s, (-3, -2, -1))
