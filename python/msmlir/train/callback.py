"""`mindspore.train.callback`: the callbacks msmlir has (msmlir/train/callbacks.py).
Not there yet: SummaryCollector, BackupAndRestore, OnRequestExit."""
from .callbacks import (Callback, CheckpointConfig, EarlyStopping, History,  # noqa: F401
                        LambdaCallback, LearningRateScheduler, LossMonitor, ModelCheckpoint,
                        ProgressBar, ReduceLROnPlateau, RunContext, TimeMonitor)

__all__ = ["Callback", "CheckpointConfig", "EarlyStopping", "History", "LambdaCallback",
           "LearningRateScheduler", "LossMonitor", "ModelCheckpoint", "ProgressBar",
           "ReduceLROnPlateau", "RunContext", "TimeMonitor"]
