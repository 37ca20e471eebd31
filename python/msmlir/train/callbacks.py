"""Training callbacks (mindspore.train.Callback, LossMonitor, TimeMonitor) and
the RunContext that Model.train passes to them."""
from __future__ import annotations

import sys
import time

import numpy as np

__all__ = ["Callback", "RunContext", "LossMonitor", "TimeMonitor", "ProgressBar"]


class RunContext:
    def __init__(self, cb_params):
        self._params = cb_params
        self._stop = False

    def original_args(self):
        return self._params

    def request_stop(self):
        self._stop = True

    def get_stop_requested(self):
        return self._stop


class _Params(dict):
    """cb_params: a dict whose keys are also attributes (MindSpore's _InternalCallbackParam)."""

    def __getattr__(self, k):
        try:
            return self[k]
        except KeyError:
            raise AttributeError(k) from None

    def __setattr__(self, k, v):
        self[k] = v


class Callback:
    def on_train_begin(self, run_context): pass
    def on_train_epoch_begin(self, run_context): pass
    def on_train_step_begin(self, run_context): pass
    def on_train_step_end(self, run_context): pass
    def on_train_epoch_end(self, run_context): pass
    def on_train_end(self, run_context): pass
    def on_eval_begin(self, run_context): pass
    def on_eval_end(self, run_context): pass

    # MindSpore 1.x names
    def begin(self, run_context): pass
    def epoch_begin(self, run_context): pass
    def step_begin(self, run_context): pass
    def step_end(self, run_context): pass
    def epoch_end(self, run_context): pass
    def end(self, run_context): pass


def _loss_value(loss):
    if isinstance(loss, (tuple, list)):
        loss = loss[0]
    if hasattr(loss, "asnumpy"):
        loss = loss.asnumpy()
    return float(np.mean(loss))


class LossMonitor(Callback):
    """Prints the loss every `per_print_times` steps: 'epoch: 1 step: 10, loss is 0.51'."""

    def __init__(self, per_print_times=1):
        if not isinstance(per_print_times, int) or per_print_times < 0:
            raise ValueError("LossMonitor: per_print_times must be an int >= 0")
        self._per_print_times = per_print_times
        self.losses = []

    def on_train_step_end(self, run_context):
        p = run_context.original_args()
        loss = _loss_value(p.net_outputs)
        self.losses.append(loss)
        step = (p.cur_step_num - 1) % p.batch_num + 1
        if np.isnan(loss) or np.isinf(loss):
            raise ValueError(f"epoch: {p.cur_epoch_num} step: {step}. Invalid loss, terminating "
                             f"training.")
        if self._per_print_times and p.cur_step_num % self._per_print_times == 0:
            print(f"epoch: {p.cur_epoch_num} step: {step}, loss is {loss:.6f}", flush=True)


class TimeMonitor(Callback):
    """Prints per-epoch time and per-step time."""

    def __init__(self, data_size=None):
        self.data_size = data_size

    def on_train_epoch_begin(self, run_context):
        self._t = time.perf_counter()

    def on_train_epoch_end(self, run_context):
        p = run_context.original_args()
        dt = time.perf_counter() - self._t
        n = self.data_size or p.batch_num
        print(f"epoch time: {dt * 1000:.1f} ms, per step time: {dt * 1000 / max(n, 1):.3f} ms",
              flush=True)


class ProgressBar(Callback):
    """A text progress bar per epoch (on stderr-free stdout, rewritten in place):
    `epoch 1/5 [=========>     ] 20/34 loss 0.512`; ends with the epoch's mean loss."""

    def __init__(self, width=30, stream=None):
        self.width = width
        self.stream = stream or sys.stdout

    def on_train_epoch_begin(self, run_context):
        self._losses = []
        self._t = time.perf_counter()
        self._tty = hasattr(self.stream, "isatty") and self.stream.isatty()

    def on_train_step_end(self, run_context):
        p = run_context.original_args()
        self._losses.append(_loss_value(p.net_outputs))
        done = (p.cur_step_num - 1) % p.batch_num + 1
        n = p.batch_num
        k = int(self.width * done / max(n, 1))
        bar = "=" * max(k - 1, 0) + (">" if k < self.width else "=") + " " * (self.width - k)
        if not self._tty and done != n:
            return
        self.stream.write(f"\repoch {p.cur_epoch_num}/{p.epoch_num} [{bar}] {done}/{n} "
                          f"loss {self._losses[-1]:.4f}")
        self.stream.flush()

    def on_train_epoch_end(self, run_context):
        p = run_context.original_args()
        dt = time.perf_counter() - self._t
        mean = float(np.mean(self._losses)) if self._losses else float("nan")
        p.epoch_mean_loss = mean
        self.stream.write(f"  mean loss {mean:.4f}  {dt:.2f}s\n")
        self.stream.flush()


# ---------------------------------------------------------------------------
# Checkpointing during Model.train (mindspore.train.CheckpointConfig / ModelCheckpoint)
# and the small record-keeping callbacks (History, LambdaCallback)
# ---------------------------------------------------------------------------

class CheckpointConfig:
    """When ModelCheckpoint saves and how many files it keeps (MindSpore's
    CheckpointConfig): every `save_checkpoint_steps` steps (or, when
    `save_checkpoint_seconds` > 0 and steps is None, every that many seconds),
    keeping the newest `keep_checkpoint_max` files. `append_info` ("epoch_num",
    "step_num", or {name: value} dicts) is saved with the parameters. Not
    supported: encryption (`enc_key`), async saving (saved synchronously)."""

    def __init__(self, save_checkpoint_steps=1, save_checkpoint_seconds=0, keep_checkpoint_max=5,
                 keep_checkpoint_per_n_minutes=0, integrated_save=True, async_save=False,
                 saved_network=None, append_info=None, enc_key=None, enc_mode="AES-GCM",
                 exception_save=False, **kwargs):
        for name, v in (("save_checkpoint_steps", save_checkpoint_steps),
                        ("save_checkpoint_seconds", save_checkpoint_seconds),
                        ("keep_checkpoint_max", keep_checkpoint_max)):
            if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 0):
                raise ValueError(f"For 'CheckpointConfig', '{name}' must be a non-negative int, "
                                 f"but got {v!r}")
        if not save_checkpoint_steps and not save_checkpoint_seconds:
            raise ValueError("For 'CheckpointConfig', one of 'save_checkpoint_steps' and "
                             "'save_checkpoint_seconds' must be positive")
        if enc_key is not None:
            raise ValueError("For 'CheckpointConfig', encrypted checkpoints (enc_key) are not "
                             "supported by msmlir")
        self.save_checkpoint_steps = save_checkpoint_steps
        self.save_checkpoint_seconds = save_checkpoint_seconds
        self.keep_checkpoint_max = keep_checkpoint_max
        self.keep_checkpoint_per_n_minutes = keep_checkpoint_per_n_minutes
        self.integrated_save = integrated_save
        self.async_save = async_save
        self.saved_network = saved_network
        self.append_info = append_info
        self.exception_save = exception_save

    def get_checkpoint_policy(self):
        return {"save_checkpoint_steps": self.save_checkpoint_steps,
                "save_checkpoint_seconds": self.save_checkpoint_seconds,
                "keep_checkpoint_max": self.keep_checkpoint_max,
                "keep_checkpoint_per_n_minutes": self.keep_checkpoint_per_n_minutes}


class ModelCheckpoint(Callback):
    """Saves the network's parameters during Model.train (MindSpore's
    ModelCheckpoint): files `<directory>/<prefix>-<epoch>_<step in epoch>.ckpt`
    in msmlir's checksummed checkpoint format (msmlir.save_checkpoint), written
    atomically; the oldest beyond `keep_checkpoint_max` are deleted;
    `latest_ckpt_file_name` is the newest."""

    def __init__(self, prefix="CKP", directory=None, config=None, **kwargs):
        import os
        if not isinstance(prefix, str) or not prefix or "/" in prefix:
            raise ValueError(f"For 'ModelCheckpoint', 'prefix' must be a non-empty file name "
                             f"prefix, but got {prefix!r}")
        if config is None:
            config = CheckpointConfig()
        if not isinstance(config, CheckpointConfig):
            raise TypeError(f"For 'ModelCheckpoint', 'config' must be a CheckpointConfig, "
                            f"but got {type(config).__name__}")
        self._prefix = prefix
        self._directory = os.path.abspath(directory if directory is not None else ".")
        os.makedirs(self._directory, exist_ok=True)
        self._config = config
        self._saved = []
        self._last_time = None
        self.latest_ckpt_file_name = None

    def on_train_begin(self, run_context):
        self._last_time = time.monotonic()

    def _due(self, step):
        c = self._config
        if c.save_checkpoint_steps:
            return step % c.save_checkpoint_steps == 0
        return time.monotonic() - self._last_time >= c.save_checkpoint_seconds

    def _save(self, p, step_in_epoch):
        import os
        from .checkpoint import save_checkpoint
        net = self._config.saved_network or p.train_network
        append = {}
        info = self._config.append_info or []
        for item in info:
            if item == "epoch_num":
                append["epoch_num"] = int(p.cur_epoch_num)
            elif item == "step_num":
                append["step_num"] = int(p.cur_step_num)
            elif isinstance(item, dict):
                append.update(item)
        name = os.path.join(self._directory,
                            f"{self._prefix}-{p.cur_epoch_num}_{step_in_epoch}.ckpt")
        save_checkpoint(net, name, append_dict=append or None)
        self._last_time = time.monotonic()
        if name in self._saved:
            self._saved.remove(name)
        self._saved.append(name)
        self.latest_ckpt_file_name = name
        keep = self._config.keep_checkpoint_max
        while keep and len(self._saved) > keep:
            old = self._saved.pop(0)
            try:
                os.remove(old)
            except FileNotFoundError:
                pass

    def on_train_step_end(self, run_context):
        p = run_context.original_args()
        step_in_epoch = (p.cur_step_num - 1) % p.batch_num + 1 if p.batch_num else p.cur_step_num
        if self._due(p.cur_step_num):
            self._save(p, step_in_epoch)

    def on_train_end(self, run_context):
        p = run_context.original_args()
        step_in_epoch = (p.cur_step_num - 1) % p.batch_num + 1 if p.batch_num else p.cur_step_num
        name = f"{self._prefix}-{p.cur_epoch_num}_{step_in_epoch}.ckpt"
        if not self._saved or not self._saved[-1].endswith(name):
            self._save(p, step_in_epoch)   # MindSpore saves the final state too


class History(Callback):
    """Records the training loss of every epoch's last step in `history['loss']`
    and `epoch` (MindSpore's History)."""

    def __init__(self):
        self.history = {}
        self.epoch = []

    def on_train_begin(self, run_context):
        self.history = {}
        self.epoch = []

    def on_train_epoch_end(self, run_context):
        p = run_context.original_args()
        self.epoch.append(p.cur_epoch_num)
        if p.net_outputs is not None:
            self.history.setdefault("loss", []).append(_loss_value(p.net_outputs))


class LambdaCallback(Callback):
    """A callback from functions (MindSpore's LambdaCallback): each takes the
    RunContext."""

    def __init__(self, on_train_epoch_begin=None, on_train_epoch_end=None,
                 on_train_step_begin=None, on_train_step_end=None, on_train_begin=None,
                 on_train_end=None, on_eval_epoch_begin=None, on_eval_epoch_end=None,
                 on_eval_step_begin=None, on_eval_step_end=None, on_eval_begin=None,
                 on_eval_end=None):
        for name, fn in list(locals().items()):
            if name != "self" and fn is not None:
                setattr(self, name, fn)


__all__ += ["CheckpointConfig", "ModelCheckpoint", "History", "LambdaCallback"]


# ---------------------------------------------------------------------------
# Learning-rate and stopping callbacks. The monitored value is looked up in
# cb_params.eval_results (a dict, when something evaluated during training) or,
# for "loss", the training loss of the epoch's last step; a missing value is
# reported once (a RuntimeWarning) and the epoch skipped, as MindSpore does.
# ---------------------------------------------------------------------------

def _lr_parameter(p, who):
    opt = p.get("optimizer")
    lr = getattr(opt, "learning_rate", None)
    if lr is None or not hasattr(lr, "set_data") or getattr(opt, "dynamic_lr", False):
        raise RuntimeError(f"{who} needs an optimizer with a fixed learning rate (a float "
                           f"kept in its 'learning_rate' Parameter)")
    return lr


def _set_lr(param, value):
    from ..common.tensor import Tensor
    old = param.asnumpy()
    param.set_data(Tensor(np.full(old.shape, value, old.dtype)))


def _monitored(cb, p):
    res = p.get("eval_results") or {}
    if cb.monitor in res:
        v = res[cb.monitor]
    elif cb.monitor == "loss" and p.get("net_outputs") is not None:
        v = _loss_value(p.net_outputs)
    else:
        if not getattr(cb, "_warned", False):
            import warnings
            warnings.warn(f"{type(cb).__name__}: the monitored value {cb.monitor!r} is not "
                          f"available (available: {sorted(res) + ['loss']}); skipping",
                          RuntimeWarning, stacklevel=3)
            cb._warned = True
        return None
    return float(np.mean(v.asnumpy() if hasattr(v, "asnumpy") else v))


class _Monitor(Callback):
    def __init__(self, monitor, mode, min_delta):
        if mode not in ("auto", "min", "max"):
            raise ValueError(f"For '{type(self).__name__}', 'mode' must be 'auto', 'min' or "
                             f"'max', but got {mode!r}")
        self.monitor = monitor
        if mode == "auto":
            mode = "max" if "acc" in monitor else "min"
        self.mode = mode
        self.min_delta = abs(min_delta) * (1 if mode == "max" else -1)

    def _improved(self, current, best):
        if best is None:
            return True
        if self.mode == "max":
            return current - self.min_delta > best
        return current - self.min_delta < best


class LearningRateScheduler(Callback):
    """Sets the learning rate after every step to
    `learning_rate_function(lr, cur_step_num)` (MindSpore's LearningRateScheduler)."""

    def __init__(self, learning_rate_function):
        if not callable(learning_rate_function):
            raise TypeError("For 'LearningRateScheduler', 'learning_rate_function' must be "
                            "callable")
        self.learning_rate_function = learning_rate_function

    def on_train_step_end(self, run_context):
        p = run_context.original_args()
        lr = _lr_parameter(p, "LearningRateScheduler")
        cur = float(lr.asnumpy().reshape(-1)[0])
        new = self.learning_rate_function(cur, p.cur_step_num)
        if new != cur:
            _set_lr(lr, float(new))


class EarlyStopping(_Monitor):
    """Stops training when `monitor` has not improved by `min_delta` for
    `patience` epochs (MindSpore's EarlyStopping); `restore_best_weights` puts
    back the parameters of the best epoch."""

    def __init__(self, monitor="eval_loss", min_delta=0, patience=0, verbose=False, mode="auto",
                 baseline=None, restore_best_weights=False):
        super().__init__(monitor, mode, min_delta)
        self.patience, self.verbose = int(patience), verbose
        self.baseline, self.restore_best_weights = baseline, restore_best_weights
        self.stopped_epoch = 0

    def on_train_begin(self, run_context):
        self.wait = 0
        self.best = self.baseline
        self.best_weights = None
        self.stopped_epoch = 0

    def on_train_epoch_end(self, run_context):
        p = run_context.original_args()
        current = _monitored(self, p)
        if current is None:
            return
        if self._improved(current, self.best):
            self.best, self.wait = current, 0
            if self.restore_best_weights:
                self.best_weights = {k: v.asnumpy().copy()
                                     for k, v in p.train_network.parameters_and_names()}
            return
        self.wait += 1
        if self.wait >= self.patience:
            self.stopped_epoch = p.cur_epoch_num
            run_context.request_stop()
            if self.restore_best_weights and self.best_weights is not None:
                from ..common.tensor import Tensor
                for k, v in p.train_network.parameters_and_names():
                    if k in self.best_weights:
                        v.set_data(Tensor(self.best_weights[k]))
            if self.verbose:
                print(f"Epoch {self.stopped_epoch}: early stopping", flush=True)


class ReduceLROnPlateau(_Monitor):
    """Multiplies the learning rate by `factor` (not below `min_lr`) when
    `monitor` has not improved for `patience` epochs, then waits `cooldown`
    epochs (MindSpore's ReduceLROnPlateau)."""

    def __init__(self, monitor="eval_loss", factor=0.1, patience=10, verbose=False, mode="auto",
                 min_delta=1e-4, cooldown=0, min_lr=0):
        super().__init__(monitor, mode, min_delta)
        if not 0 <= factor < 1:
            raise ValueError(f"For 'ReduceLROnPlateau', 'factor' must be in [0, 1), but got "
                             f"{factor}")
        self.factor, self.patience, self.verbose = factor, int(patience), verbose
        self.cooldown, self.min_lr = int(cooldown), float(min_lr)

    def on_train_begin(self, run_context):
        self.wait = 0
        self.cooldown_counter = 0
        self.best = None

    def on_train_epoch_end(self, run_context):
        p = run_context.original_args()
        current = _monitored(self, p)
        if current is None:
            return
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.wait = 0
        if self._improved(current, self.best):
            self.best, self.wait = current, 0
        elif self.cooldown_counter <= 0:
            self.wait += 1
            if self.wait >= self.patience:
                lr = _lr_parameter(p, "ReduceLROnPlateau")
                old = float(lr.asnumpy().reshape(-1)[0])
                new = max(old * self.factor, self.min_lr)
                if new < old:
                    _set_lr(lr, new)
                    if self.verbose:
                        print(f"Epoch {p.cur_epoch_num}: reducing learning rate to {new}",
                              flush=True)
                self.cooldown_counter = self.cooldown
                self.wait = 0


__all__ += ["LearningRateScheduler", "EarlyStopping", "ReduceLROnPlateau"]
