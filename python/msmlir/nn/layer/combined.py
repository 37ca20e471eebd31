"""nn.Conv2dBnAct / nn.DenseBnAct (mindspore.nn, layer/combined.py): a Conv2d or
Dense, an optional BatchNorm and an optional activation in one cell, with
MindSpore's defaults (BN momentum 0.997 after a convolution, 0.9 after a Dense;
`activation='leakyrelu'` uses `alpha`). `after_fake` (quantization-aware
training) is accepted and has no effect: msmlir has no fake-quant nodes."""
from __future__ import annotations

from ..cell import Cell
from .activation import LeakyReLU, get_activation
from .basic import Dense
from .conv import Conv2d
from .normalization import BatchNorm1d, BatchNorm2d

__all__ = ["Conv2dBnAct", "DenseBnAct"]


def _activation(activation, alpha):
    if isinstance(activation, str) and activation.lower() == "leakyrelu":
        return LeakyReLU(alpha)
    return get_activation(activation)


class Conv2dBnAct(Cell):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, dilation=1, group=1, has_bias=False, weight_init="normal",
                 bias_init="zeros", has_bn=False, momentum=0.997, eps=1e-5, activation=None,
                 alpha=0.2, after_fake=True):
        super().__init__()
        self.conv = Conv2d(in_channels, out_channels, kernel_size, stride, pad_mode, padding,
                           dilation, group, has_bias, weight_init, bias_init)
        self.has_bn = bool(has_bn)
        self.batchnorm = BatchNorm2d(out_channels, eps=eps, momentum=momentum) if has_bn else None
        self.activation = _activation(activation, alpha)

    def construct(self, x):
        x = self.conv(x)
        if self.has_bn:
            x = self.batchnorm(x)
        if self.activation is not None:
            x = self.activation(x)
        return x


class DenseBnAct(Cell):
    def __init__(self, in_channels, out_channels, weight_init="normal", bias_init="zeros",
                 has_bias=True, has_bn=False, momentum=0.9, eps=1e-5, activation=None,
                 alpha=0.2, after_fake=True):
        super().__init__()
        self.dense = Dense(in_channels, out_channels, weight_init, bias_init, has_bias)
        self.has_bn = bool(has_bn)
        self.batchnorm = BatchNorm1d(out_channels, eps=eps, momentum=momentum) if has_bn else None
        self.activation = _activation(activation, alpha)

    def construct(self, x):
        x = self.dense(x)
        if self.has_bn:
            x = self.batchnorm(x)
        if self.activation is not None:
            x = self.activation(x)
        return x
