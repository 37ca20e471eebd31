"""nn layers (mindspore.nn): Dense, Conv2d, pooling, activations, normalization, Embedding."""
from .activation import (GELU, LeakyReLU, LogSoftmax, ReLU, ReLU6, Sigmoid, SiLU, Softmax,  # noqa: F401
                         Tanh, get_activation)
from .basic import Dense, Dropout, Flatten, Identity  # noqa: F401
from .conv import Conv2d  # noqa: F401
from .embedding import Embedding  # noqa: F401
from .normalization import BatchNorm1d, BatchNorm2d, LayerNorm  # noqa: F401
from .pooling import AvgPool2d, MaxPool2d  # noqa: F401
