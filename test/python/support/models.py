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


class _LeNet5WithBiases(nn.Cell):
    """bench/run.py's B6 network: LeNet5 with conv biases (valid padding)."""

    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(1, 6, 5, pad_mode="valid", has_bias=True)
        self.c2 = nn.Conv2d(6, 16, 5, pad_mode="valid", has_bias=True)
        self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
        self.relu = nn.ReLU()
        self.flatten = nn.Flatten()
        self.f1, self.f2, self.f3 = nn.Dense(400, 120), nn.Dense(120, 84), nn.Dense(84, 10)

    def construct(self, x):
        x = self.pool(self.relu(self.c1(x)))
        x = self.pool(self.relu(self.c2(x)))
        x = self.flatten(x)
        x = self.relu(self.f1(x))
        x = self.relu(self.f2(x))
        return self.f3(x)


def lenet5_with_biases():
    return _LeNet5WithBiases()
