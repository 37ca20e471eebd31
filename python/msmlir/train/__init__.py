"""MindSpore's `mindspore.train`: checkpoints and model export (serialization.py).
(Model, callbacks and metrics belong here too and come with nn.Cell.)"""
from .serialization import (CheckpointFormatError, GraphCell, export, load,  # noqa: F401
                            load_checkpoint, load_param_into_net, save_checkpoint)

__all__ = ["save_checkpoint", "load_checkpoint", "load_param_into_net", "export", "load",
           "GraphCell", "CheckpointFormatError"]
from .callbacks import Callback, LossMonitor, ProgressBar, RunContext, TimeMonitor  # noqa: E402,F401
from .metrics import (F1, MAE, MSE, Accuracy, EvaluationBase, Fbeta, Loss, Metric,  # noqa: E402,F401
                      Precision, Recall, Top1CategoricalAccuracy, Top5CategoricalAccuracy,
                      TopKCategoricalAccuracy, get_metric_fn, names, rearrange_inputs)
from .model import Model  # noqa: E402,F401

__all__ += ["Model", "Callback", "LossMonitor", "TimeMonitor", "ProgressBar", "RunContext",
            "Metric", "EvaluationBase", "Accuracy", "Loss", "TopKCategoricalAccuracy",
            "Top1CategoricalAccuracy", "Top5CategoricalAccuracy", "Precision", "Recall", "Fbeta",
            "F1", "MAE", "MSE", "get_metric_fn", "names", "rearrange_inputs"]
