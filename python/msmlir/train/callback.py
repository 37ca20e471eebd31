"""`mindspore.train.callback`: the callbacks msmlir has (msmlir/train/callbacks.py).
Not there yet: BackupAndRestore, OnRequestExit."""
from .callbacks import (Callback, CheckpointConfig, EarlyStopping, History,  # noqa: F401
                        LambdaCallback, LearningRateScheduler, LossMonitor, ModelCheckpoint,
                        ProgressBar, ReduceLROnPlateau, RunContext, TimeMonitor)
from .callbacks import _Params as _InternalCallbackParam  # noqa: F401
from .summary import SummaryCollector  # noqa: F401

__all__ = ["Callback", "CheckpointConfig", "EarlyStopping", "History", "LambdaCallback",
           "LearningRateScheduler", "LossMonitor", "ModelCheckpoint", "ProgressBar",
           "ReduceLROnPlateau", "RunContext", "TimeMonitor", "SummaryCollector"]
