"""Image transforms (MindSpore's `mindspore.dataset.vision`), on numpy HWC arrays.

Use them in `Dataset.map`: ``ds.map([vision.Rescale(1 / 255, 0), vision.Normalize(
mean=(0.1307,), std=(0.3081,)), vision.HWC2CHW()], 'image')``.
"""
from __future__ import annotations

import numpy as np

__all__ = ["Rescale", "Normalize", "HWC2CHW", "ToTensor", "RandomHorizontalFlip"]


def _contig(a):
    """C-contiguous without np.ascontiguousarray's promotion of 0-d arrays to 1-d."""
    return np.asarray(a, order="C")


def _np(x):
    return np.asarray(x.asnumpy() if hasattr(x, "asnumpy") else x)


class Rescale:
    """x * rescale + shift, as float32."""

    def __init__(self, rescale, shift):
        self.rescale = float(rescale)
        self.shift = float(shift)

    def __call__(self, img):
        return (_np(img).astype(np.float32) * np.float32(self.rescale)
                + np.float32(self.shift)).astype(np.float32)


class Normalize:
    """(x - mean) / std per channel (the last axis with is_hwc, else the first), float32."""

    def __init__(self, mean, std, is_hwc=True):
        self.mean = np.asarray(mean, np.float32).reshape(-1)
        self.std = np.asarray(std, np.float32).reshape(-1)
        if self.mean.shape != self.std.shape:
            raise ValueError("Normalize: mean and std must have the same length")
        if np.any(self.std <= 0):
            raise ValueError("Normalize: std must be positive")
        self.is_hwc = is_hwc

    def __call__(self, img):
        x = _np(img).astype(np.float32)
        c = len(self.mean)
        if x.ndim == 2:
            x = x[..., None] if self.is_hwc else x[None]
        shape = (1,) * (x.ndim - 1) + (c,) if self.is_hwc else (c,) + (1,) * (x.ndim - 1)
        return ((x - self.mean.reshape(shape)) / self.std.reshape(shape)).astype(np.float32)


class HWC2CHW:
    """Transposes an HWC image to CHW."""

    def __call__(self, img):
        x = _np(img)
        if x.ndim == 2:
            x = x[..., None]
        if x.ndim != 3:
            raise ValueError(f"HWC2CHW: expected a 3-D HWC image, got shape {x.shape}")
        return _contig(x.transpose(2, 0, 1))


class ToTensor:
    """HWC uint8 image -> CHW float in [0, 1] (`output_type`, default float32)."""

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
        return _contig((x.astype(np.float64) / 255.0).transpose(2, 0, 1)
                                    .astype(self.output_type))


class RandomHorizontalFlip:
    """Flips an HWC image left-right with probability `prob` (numpy's global generator,
    seeded by msmlir.set_seed / ds.config.set_seed)."""

    def __init__(self, prob=0.5):
        self.prob = float(prob)

    def __call__(self, img):
        x = _np(img)
        if np.random.random() < self.prob:
            return _contig(x[:, ::-1])
        return x
