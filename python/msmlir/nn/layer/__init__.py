"""nn layers (mindspore.nn): Dense, convolutions, pooling, activations, normalization, Embedding,
combined (Conv2dBnAct), image (ResizeBilinear, PSNR, SSIM), math (MatMul)."""
from .activation import (ELU, GELU, HSigmoid, HSwish, LeakyReLU, LogSoftmax, PReLU, ReLU,  # noqa: F401
                         ReLU6, Sigmoid, SiLU, Softmax, Tanh, Hardtanh, get_activation)
from .basic import Dense, Dropout, Flatten, Identity, Pad  # noqa: F401
from .conv import Conv1d, Conv1dTranspose, Conv2d, Conv2dTranspose, Conv3d  # noqa: F401
from .embedding import Embedding  # noqa: F401
from .normalization import (BatchNorm1d, BatchNorm2d, GroupNorm, LayerNorm,  # noqa: F401
                            SyncBatchNorm)
from .combined import Conv2dBnAct, DenseBnAct  # noqa: F401
from .image import PSNR, SSIM, ResizeBilinear  # noqa: F401
from .math import MatMul  # noqa: F401
from .pooling import AvgPool2d, MaxPool2d  # noqa: F401
