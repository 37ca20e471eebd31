"""msmlir.nn: MindSpore 2.x `mindspore.nn` — Cell, layers, losses, optimizers, learning-rate
schedules, wrappers and metrics."""
from .cell import Cell, CellList, SequentialCell  # noqa: F401
from .dynamic_lr import (cosine_decay_lr, exponential_decay_lr, inverse_decay_lr,  # noqa: F401
                         natural_exp_decay_lr, piecewise_constant_lr, polynomial_decay_lr, warmup_lr)
from .layer import (ELU, GELU, AvgPool2d, BatchNorm1d, BatchNorm2d, Conv1d,  # noqa: F401
                    Conv1dTranspose, Conv2d, Conv2dTranspose, Dense, Dropout, Embedding, Flatten, GroupNorm, HSigmoid, HSwish,
                    Identity, LayerNorm, LeakyReLU, LogSoftmax, MaxPool2d, PReLU, ReLU, ReLU6,
                    Sigmoid, SiLU, Softmax, Tanh, Hardtanh, Pad, get_activation)
from .layer.extras import *  # noqa: F401,F403  (activations, padding, tools, losses)
from .learning_rate_schedule import (CosineDecayLR, ExponentialDecayLR, InverseDecayLR,  # noqa: F401
                                     LearningRateSchedule, NaturalExpDecayLR, PolynomialDecayLR,
                                     WarmUpLR)
from .loss import (BCEWithLogitsLoss, CrossEntropyLoss, L1Loss, LossBase, MSELoss,  # noqa: F401
                   NLLLoss, SoftmaxCrossEntropyWithLogits)
from .distributed import DistributedGradReducer  # noqa: F401
from .layer import (PSNR, SSIM, Conv2dBnAct, Conv3d, DenseBnAct, MatMul,  # noqa: F401
                    ResizeBilinear, SyncBatchNorm)
from .rnn import GRU, LSTM, RNN  # noqa: F401
from .usage_names import (_Loss, _VirtualDatasetCell, no_init_parameters,  # noqa: F401
                          opt_init_args_register)
from .rnn_cells import GRUCell, LSTMCell, RNNCell  # noqa: F401
from .optim import SGD, Adagrad, Adam, AdamWeightDecay, Lamb, Momentum, Optimizer, RMSProp  # noqa: F401
from .wrap import (DynamicLossScaleUpdateCell, FixedLossScaleUpdateCell,  # noqa: F401
                   TrainOneStepCell, TrainOneStepWithLossScaleCell, WithEvalCell, WithLossCell)
from ..train.metrics import (F1, MAE, MSE, Accuracy, Fbeta, Loss, Metric, Precision,  # noqa: F401
                             Recall, TopKCategoricalAccuracy, Top1CategoricalAccuracy,
                             Top5CategoricalAccuracy, get_metric_fn, names, ConfusionMatrix,
                             CosineSimilarity, Dice, Perplexity, auc, rearrange_inputs)
