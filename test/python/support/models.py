"""Small networks the training tests share."""
from __future__ import annotations

import numpy as np

from msmlir import Tensor, nn


def dense_classifier(sizes=(20, 32, 5), seed=0, scale=0.3):
    """Dense-ReLU-...-Dense with `sizes`, parameters drawn from N(0, scale²)
    with `seed` (so two calls give identical networks)."""
    layers = []
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
        layers.append(nn.Dense(a, b))
        if i < len(sizes) - 2:
            layers.append(nn.ReLU())
    net = nn.SequentialCell(layers)
    rng = np.random.default_rng(seed)
    for p in net.trainable_params():
        p.set_data(Tensor((rng.standard_normal(p.shape) * scale).astype(np.float32)))
    return net
