"""MindSpore's `mindspore.train`: checkpoints (checkpoint.py), model export and
load (model_file.py; what a loaded model may hold: model_ir.py), both in the
validated file container of _format.py; Model, callbacks and metrics."""
from ._format import CheckpointFormatError  # noqa: F401
from .checkpoint import load_checkpoint, load_param_into_net, save_checkpoint  # noqa: F401
from .model_file import GraphCell, export, load  # noqa: F401

__all__ = ["save_checkpoint", "load_checkpoint", "load_param_into_net", "export", "load",
           "GraphCell", "CheckpointFormatError"]
from .callbacks import (Callback, CheckpointConfig, EarlyStopping, History,  # noqa: E402,F401
                        LambdaCallback, LearningRateScheduler, LossMonitor, ModelCheckpoint,
                        ProgressBar, ReduceLROnPlateau, RunContext, TimeMonitor)
from .metrics import (F1, MAE, MSE, Accuracy, EvaluationBase, Fbeta, Loss, Metric,  # noqa: E402,F401
                      Precision, Recall, Top1CategoricalAccuracy, Top5CategoricalAccuracy,
                      TopKCategoricalAccuracy, get_metric_fn, names, rearrange_inputs,
                      ConfusionMatrix, CosineSimilarity, Dice, Perplexity, auc)
from .model import Model  # noqa: E402,F401
from .loss_scale_manager import (DynamicLossScaleManager, FixedLossScaleManager,  # noqa: E402,F401
                                 LossScaleManager)
from .summary import SummaryCollector, SummaryRecord  # noqa: E402,F401
from .callbacks import _Params as _InternalCallbackParam  # noqa: E402,F401
from ..common.context import ParallelMode  # noqa: E402,F401

__all__ += ["Model", "Callback", "LossMonitor", "TimeMonitor", "ProgressBar", "RunContext",
            "CheckpointConfig", "ModelCheckpoint", "History", "LambdaCallback",
            "LearningRateScheduler", "EarlyStopping", "ReduceLROnPlateau",
            "FixedLossScaleManager", "DynamicLossScaleManager", "LossScaleManager",
            "Metric", "EvaluationBase", "Accuracy", "Loss", "TopKCategoricalAccuracy",
            "Top1CategoricalAccuracy", "Top5CategoricalAccuracy", "Precision", "Recall", "Fbeta",
            "F1", "MAE", "MSE", "get_metric_fn", "names", "rearrange_inputs", "ConfusionMatrix",
            "CosineSimilarity", "Dice", "Perplexity", "auc", "SummaryRecord", "SummaryCollector",
            "ParallelMode"]
