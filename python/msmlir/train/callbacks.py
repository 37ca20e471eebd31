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
