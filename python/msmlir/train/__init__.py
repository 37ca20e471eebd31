"""MindSpore's `mindspore.train`: checkpoints and model export (serialization.py).
(Model, callbacks and metrics belong here too and come with nn.Cell.)"""
from .serialization import (CheckpointFormatError, GraphCell, export, load,  # noqa: F401
                            load_checkpoint, load_param_into_net, save_checkpoint)

__all__ = ["save_checkpoint", "load_checkpoint", "load_param_into_net", "export", "load",
           "GraphCell", "CheckpointFormatError"]
from .callbacks import Callback, LossMonitor, ProgressBar, RunContext, TimeMonitor  # noqa: E402,F401
from .model import Accuracy, Loss, Model, TopKCategoricalAccuracy  # noqa: E402,F401

__all__ += ["Model", "Callback", "LossMonitor", "TimeMonitor", "ProgressBar", "RunContext",
            "Accuracy", "Loss", "TopKCategoricalAccuracy"]
