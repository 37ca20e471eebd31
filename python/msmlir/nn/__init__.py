"""msmlir.nn: MindSpore 2.x `mindspore.nn` — Cell, layers, losses, optimizers, wrappers."""
from .cell import Cell, CellList, SequentialCell  # noqa: F401
from .layer import (GELU, AvgPool2d, BatchNorm1d, BatchNorm2d, Conv2d, Dense, Dropout,  # noqa: F401
                    Embedding, Flatten, Identity, LayerNorm, LeakyReLU, LogSoftmax, MaxPool2d, ReLU,
                    ReLU6, Sigmoid, SiLU, Softmax, Tanh, get_activation)
from .loss import (BCEWithLogitsLoss, CrossEntropyLoss, L1Loss, LossBase, MSELoss,  # noqa: F401
                   NLLLoss, SoftmaxCrossEntropyWithLogits)
from .optim import (SGD, Adam, AdamWeightDecay, LearningRateSchedule, Momentum,  # noqa: F401
                    Optimizer)
from .wrap import TrainOneStepCell, WithEvalCell, WithLossCell  # noqa: F401
