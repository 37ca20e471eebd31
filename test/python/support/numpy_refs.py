"""numpy references shared by several test files (written from the ops'
documented semantics, independently of msmlir)."""
import numpy as np


def adaptive_avg_pool2d(x, oh, ow):
    """Adaptive average pooling over the last two dims: output cell (i, j)
    averages rows [floor(i*h/oh), ceil((i+1)*h/oh)) and the same for columns."""
    h, w = x.shape[-2:]
    out = np.zeros(x.shape[:-2] + (oh, ow))
    for i in range(oh):
        hs, he = (i * h) // oh, -((-(i + 1) * h) // oh)
        for j in range(ow):
            ws, we = (j * w) // ow, -((-(j + 1) * w) // ow)
            out[..., i, j] = x[..., hs:he, ws:we].mean((-2, -1))
    return out
